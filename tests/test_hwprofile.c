/* test_hwprofile.c: sim/input/hwprofile.c - a profile of every sample kind
 * and a run read back in seconds from a file written in milliseconds, and
 * each validation rule of docs/profiles.md refused with its message at its
 * position (expected columns are computed from the text written, not typed). */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/hwprofile.h"

#define ENV                                                                                                  \
    "\"environment\": {\"machine\": \"m\", \"cpu_model\": \"c\", \"cores\": 2, \"memory_bytes\": 1024, \"os\": " \
    "\"Debian 12\", \"libraries\": {\"python\": \"3.11.2\"}, \"date\": \"2026-11-26\"},\n"

/* A profile whose samples (one a line, from line 6) are `samples`. */
static char *profile(const char *samples)
{
    size_t n = strlen(samples) + 1024;
    char *t = malloc(n);
    snprintf(t, n, "{\n\"servesim_profile\": 1,\n\"source\": \"test\",\n" ENV "\"samples\": [\n%s\n]\n}\n", samples);
    return t;
}

/* Load `text`; returns the message (static) or NULL if it loaded. */
static const char *load_err(const char *dir, const char *text)
{
    static ss_err err;
    memset(&err, 0, sizeof err);
    char *path = ss_test_write(dir, "p.json", text);
    ss_hwprofile p;
    int rc = ss_hwprofile_load(path, &p, &err);
    free(path);
    if (rc == 0) ss_hwprofile_free(&p);
    return rc == 0 ? NULL : err.msg;
}

static void test_reads_every_kind(void)
{
    char *dir = ss_test_tmpdir();
    char *text = profile(
        "{\"kind\": \"compute\", \"model\": \"r\", \"block\": \"block1\", \"device\": \"cpu\", \"batch\": 2, "
        "\"threads\": 1, \"in_bytes\": 1204224, \"latency_ms\": [12.5, 13]},\n"
        "{\"kind\": \"transport\", \"transport\": \"zmq-copy\", \"bytes\": 802816, \"micro_mode\": \"pipeline\", "
        "\"latency_ms\": [1.5]},\n"
        "{\"kind\": \"memcpy\", \"bytes\": 0, \"latency_ms\": [0.002]},\n"
        "{\"kind\": \"memory\", \"what\": \"block1\", \"device\": \"cpu\", \"bytes\": 734003200},\n"
        "{\"kind\": \"coldstart\", \"model\": \"r\", \"stage\": \"init\", \"duration_ms\": [900, 1100]}\n"
        "], \"runs\": [\n"
        "{\"id\": \"a\", \"conditions\": {\"model\": \"r\", \"arrival\": \"closed\", \"clients\": 3, \"duration_ms\": "
        "60000}, \"results\": {\"requests\": 10, \"throughput_per_s\": 8.5, \"latency_mean_ms\": 20, "
        "\"latency_p50_ms\": 19, \"latency_p99_ms\": 40}}");
    char *path = ss_test_write(dir, "p.json", text);
    ss_hwprofile p;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_hwprofile_load(path, &p, &err), 0);
    CU_ASSERT_STRING_EQUAL(p.time_unit, "ms");
    CU_ASSERT_EQUAL(p.cores, 2);
    CU_ASSERT_EQUAL_FATAL(p.nsamples, 5);
    CU_ASSERT_EQUAL(p.samples[0].piece_kind, SS_HWP_BLOCK);
    CU_ASSERT_STRING_EQUAL(p.samples[0].piece, "block1");
    CU_ASSERT_EQUAL(p.samples[0].line, 6);
    CU_ASSERT_DOUBLE_EQUAL(p.samples[0].times_s[0], 0.0125, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(p.samples[0].in_bytes, 1204224, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.samples[0].out_bytes, -1, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.samples[1].times_s[0], 0.0015, 1e-15);
    CU_ASSERT_EQUAL(p.samples[0].micro_mode, 0); /* not said */
    CU_ASSERT_EQUAL(p.samples[1].micro_mode, 2);
    CU_ASSERT_STRING_EQUAL(ss_hwp_micro_mode_name(p.samples[1].micro_mode), "pipeline");
    CU_ASSERT_EQUAL(p.samples[3].kind, SS_HWP_MEMORY);
    CU_ASSERT_STRING_EQUAL(p.samples[4].stage, "init");
    CU_ASSERT_DOUBLE_EQUAL(p.samples[4].times_s[1], 1.1, 1e-12);
    CU_ASSERT_EQUAL_FATAL(p.nruns, 1);
    CU_ASSERT_EQUAL(p.runs[0].clients, 3);
    CU_ASSERT_EQUAL(p.runs[0].batch, 1);
    CU_ASSERT_DOUBLE_EQUAL(p.runs[0].duration_s, 60, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(p.runs[0].latency_p99_s, 0.040, 1e-15);
    ss_hwprofile_free(&p);
    free(path);
    free(text);
    ss_test_rmtree(dir);
}

/* `text` (freed here) is refused with "p.json:LINE:COL: says", COL where
 * `at` is on that line. */
static void bad_at(const char *dir, char *text, int line, const char *at, const char *says)
{
    const char *msg = load_err(dir, text);
    char want[512];
    snprintf(want, sizeof want, "p.json:%d:%d: %s", line, ss_test_col_of(text, line, at), says);
    CU_ASSERT_TRUE(msg && ss_test_has(msg, want));
    free(text);
}

/* One bad sample, on line 6. */
static void bad_sample(const char *dir, const char *sample, const char *at, const char *says)
{
    bad_at(dir, profile(sample), 6, at, says);
}

#define C "{\"kind\": \"compute\", \"model\": \"r\", \"device\": \"cpu\", \"batch\": 1, \"threads\": 1, "

static void test_sample_rules(void)
{
    char *dir = ss_test_tmpdir();
    bad_sample(dir, C "\"latency_s\": [0.01, -0.002]}", "-0.002", "latency_s[1]: expected a number > 0, got '-0.002'");
    bad_sample(dir, C "\"latency_s\": [0.01, 0]}", "0]", "latency_s[1]: expected a number > 0, got '0'");
    bad_sample(dir, C "\"latency_s\": []}", "[]", "latency_s: expected at least one observation");
    /* a ring's deliveries (optional): times > 0, at least one */
    bad_sample(dir, "{\"kind\": \"stacking\", \"runnable\": 1, \"cores\": 2, \"stretch_s\": [1e-5, 2e-5], "
                    "\"delivery_s\": [0.0003, -1e-4]}",
               "-1e-4", "delivery_s[1]: expected a number > 0, got '-1e-4'");
    bad_sample(dir, "{\"kind\": \"stacking\", \"runnable\": 1, \"cores\": 2, \"stretch_s\": [1e-5, 2e-5], "
                    "\"delivery_s\": []}",
               "[]}", "delivery_s: expected at least one delivery");
    bad_sample(dir, "{\"kind\": \"compute\", \"model\": \"r\", \"batch\": 1, \"threads\": 1, \"latency_s\": [1]}", "{",
               "missing required key 'device'");
    bad_sample(dir, "{\"kind\": \"compute\", \"model\": \"r\", \"device\": \"cpu\", \"batch\": 0, \"threads\": 1, "
                    "\"latency_s\": [1]}",
               "0,", "batch: expected an integer >= 1, got '0'");
    bad_sample(dir, C "\"block\": \"b\", \"layer\": \"l\", \"latency_s\": [1]}", "\"l\"",
               "layer: a sample names a block or a layer, not both");
    bad_sample(dir, "{\"kind\": \"transport\", \"transport\": \"t\", \"bytes\": 1.5, \"latency_s\": [1]}", "1.5",
               "bytes: expected an integer >= 0, got '1.5'");
    bad_sample(dir, "{\"kind\": \"computer\", \"latency_s\": [1]}", "\"computer\"",
               "kind: unknown value 'computer' (did you mean 'compute'?); expected one of: compute, transport, "
               "memcpy, memory, coldstart, stacking, speed");
    bad_sample(dir, "{\"kind\": \"gpu\", \"latency_s\": [1]}", "\"gpu\"",
               "kind: unknown value 'gpu'; expected one of: compute, transport, memcpy, memory, coldstart, stacking, speed");
    bad_sample(dir, "{\"kind\": \"memcpy\", \"bytes\": 1, \"latency_s\": [1], \"latency_ms\": [2]}", "\"latency_ms\"",
               "latency_ms: mixed units: this file writes times in s (first at line 6, 'latency_s'); a profile uses "
               "one time unit");
    bad_sample(dir, "{\"kind\": \"memcpy\", \"bytes\": 1, \"latncy_s\": [1]}", "\"latncy_s\"",
               "unknown key 'latncy_s' in memcpy sample (did you mean 'latency_s'?)");
    bad_sample(dir, "{\"kind\": \"coldstart\", \"model\": \"r\", \"stage\": \"boot\", \"duration_s\": [1]}", "\"boot\"",
               "stage: unknown value 'boot'; expected one of: load, init, transfer");
    bad_sample(dir, C "\"micro_mode\": \"pipelined\", \"latency_s\": [1]}", "\"pipelined\"",
               "micro_mode: unknown value 'pipelined' (did you mean 'pipeline'?); expected one of: warm, pipeline");
    bad_sample(dir, "{\"kind\": \"memcpy\", \"bytes\": 1, \"micro_mode\": \"warm\", \"latency_s\": [1]}",
               "\"micro_mode\"", "unknown key 'micro_mode' in memcpy sample");
    ss_test_rmtree(dir);
}

static void test_file_rules(void)
{
    char *dir = ss_test_tmpdir();
    const char *msg;
    /* the second unit's first use, naming the first's line, across samples */
    bad_at(dir,
           profile("{\"kind\": \"memcpy\", \"bytes\": 1, \"latency_us\": [3]},\n"
                   "{\"kind\": \"memcpy\", \"bytes\": 2, \"latency_ms\": [1]}"),
           7, "\"latency_ms\"", "latency_ms: mixed units: this file writes times in us (first at line 6");
    msg = load_err(dir, "{\"servesim_profile\": 1, \"source\": \"x\",\n \"samples\": [}");
    CU_ASSERT_TRUE(msg && ss_test_has(msg, "p.json:2:"));
    msg = load_err(dir, "{\n\"servesim_profile\": 2, \"source\": \"x\"}");
    CU_ASSERT_TRUE(msg && ss_test_has(msg, "p.json:2:21: servesim_profile: expected 1 (the profile format this "
                                           "servesim reads), got '2'"));
    msg = load_err(dir, "{\n\"servesim_profile\": 1, \"source\": \"x\",\n" ENV "\"samples\": []}");
    CU_ASSERT_TRUE(msg && ss_test_has(msg, "p.json:4:12: a profile needs at least one entry in samples or runs"));
    msg = load_err(dir, "{\"servesim_profile\": 1, \"source\": \"x\", \"samples\": []}");
    CU_ASSERT_TRUE(msg && ss_test_has(msg, "p.json:1:1: missing required key 'environment'"));
    char *t = profile("{\"kind\": \"memcpy\", \"bytes\": 1, \"latency_s\": [1]}");
    char *cores0 = strstr(t, "\"cores\": 2");
    cores0[9] = '0';
    msg = load_err(dir, t);
    CU_ASSERT_TRUE(msg && ss_test_has(msg, "p.json:4:") && ss_test_has(msg, "cores: expected an integer >= 1, got '0'"));
    free(t);
    ss_test_rmtree(dir);
}

/* environment.kernel (tools/probe/kernel.py): read, a null constant as NAN, in a file whose times
 * are in ms (the environment's _s keys are not its unit); each bad value refused at line 4. */
static char *kernel_profile(const char *kernel)
{
    size_t n = strlen(kernel) + 1024;
    char *t = malloc(n);
    snprintf(t, n,
             "{\n\"servesim_profile\": 1,\n\"source\": \"test\",\n\"environment\": {\"machine\": \"m\", "
             "\"cpu_model\": \"c\", \"cores\": 2, \"memory_bytes\": 1024, \"os\": \"o\", \"libraries\": {}, "
             "\"date\": \"2026-11-27\", \"kernel\": %s},\n\"samples\": [{\"kind\": \"memcpy\", \"bytes\": 1, "
             "\"latency_ms\": [1]}]\n}\n",
             kernel);
    return t;
}

static void test_kernel_block(void)
{
    char *dir = ss_test_tmpdir();
    char *t = kernel_profile("{\"release\": \"6.18.44\", \"slice_s\": 0.0014, \"tick_s\": 0.004, "
                             "\"migration_cost_s\": null}");
    char *path = ss_test_write(dir, "k.json", t);
    ss_hwprofile p;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_hwprofile_load(path, &p, &err), 0);
    CU_ASSERT_STRING_EQUAL(p.kernel_release, "6.18.44");
    CU_ASSERT_DOUBLE_EQUAL(p.kernel_slice_s, 0.0014, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(p.kernel_tick_s, 0.004, 1e-15);
    CU_ASSERT_TRUE(isnan(p.kernel_migration_cost_s));
    CU_ASSERT_DOUBLE_EQUAL(p.samples[0].times_s[0], 0.001, 1e-15);
    ss_hwprofile_free(&p);
    free(path);
    free(t);
    t = profile("{\"kind\": \"memcpy\", \"bytes\": 1, \"latency_s\": [1]}");
    path = ss_test_write(dir, "n.json", t);
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL_FATAL(ss_hwprofile_load(path, &p, &err), 0);
    CU_ASSERT_PTR_NULL(p.kernel_release);
    CU_ASSERT_TRUE(isnan(p.kernel_slice_s));
    ss_hwprofile_free(&p);
    free(path);
    free(t);
    const struct {
        const char *kernel, *want;
    } bad[] = {
        {"{\"release\": \"6.18\", \"slice_s\": 0, \"tick_s\": 0.004, \"migration_cost_s\": null}",
         "slice_s: expected a number > 0"},
        {"{\"release\": \"6.18\", \"slice_s\": 0.0014, \"migration_cost_s\": null}",
         "kernel: missing key 'tick_s' (a number, or null where it was not read)"},
        {"{\"release\": \"6.18\", \"slice_s\": 0.0014, \"tick_s\": 0.004, \"migration_cost_s\": -1}",
         "migration_cost_s: expected a number >= 0"},
        {"{\"slice_s\": 0.0014, \"tick_s\": 0.004, \"migration_cost_s\": null}", "missing required key 'release'"},
        {"{\"release\": \"6.18\", \"slice\": 0.0014, \"tick_s\": 0.004, \"migration_cost_s\": null}",
         "did you mean 'slice_s'"},
        {"[1]", "kernel: expected a map"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        t = kernel_profile(bad[k].kernel);
        const char *msg = load_err(dir, t);
        if (!msg || !ss_test_has(msg, "p.json:4:") || !ss_test_has(msg, bad[k].want))
            fprintf(stderr, "\n  %s: %s\n", bad[k].kernel, msg ? msg : "(loaded)");
        CU_ASSERT_TRUE(msg && ss_test_has(msg, "p.json:4:") && ss_test_has(msg, bad[k].want));
        free(t);
    }
    ss_test_rmtree(dir);
}

#define RUN(cond) \
    "{\"kind\": \"memcpy\", \"bytes\": 1, \"latency_s\": [1]}\n], \"runs\": [\n{\"id\": \"a\", \"conditions\": " cond \
    ", \"results\": {\"requests\": 1, \"throughput_per_s\": 1, \"latency_mean_s\": 1, \"latency_p50_s\": 1, "        \
    "\"latency_p99_s\": 1}}"

static void test_run_rules(void)
{
    char *dir = ss_test_tmpdir();
    bad_at(dir,
           profile(RUN("{\"model\": \"r\", \"arrival\": \"poisson\", \"clients\": 2, \"rate_per_s\": 3, "
                       "\"duration_s\": 1}")),
           8, "2, \"rate", "clients: a poisson run has rate_per_s, not clients");
    char *t = profile(RUN("{\"model\": \"r\", \"arrival\": \"closed\", \"clients\": 2}"));
    const char *msg = load_err(dir, t);
    CU_ASSERT_TRUE(msg && ss_test_has(msg, "missing required key 'duration_s'"));
    free(t);
    ss_test_rmtree(dir);
}

/* docs/profile.schema.json agrees with the reader: both accept the example
 * of docs/profiles.md and the fuzz seed; the schema refuses the corpus's
 * format errors the reader refuses (mixed units and what calibrate cannot
 * fit are beyond a schema: docs/profiles.md).  Needs Python's jsonschema;
 * without it only the reader's half runs. */
static void test_schema_agrees(void)
{
    static const char *const good[] = {"docs/profile-example.json", "tests/fuzz/hwprofile/measured.json",
                                       "profiles/published/blockflow/table-4-2.json",
                                       "profiles/published/blockflow/table-4-3.json",
                                       "profiles/published/blockflow/pipeline-overhead.json",
                                       "profiles/published/masa/googlenet.json",
                                       "profiles/measured/h100/probe-gpu.json", NULL};
    for (int i = 0; good[i]; i++) {
        char *path = ss_xasprintf("%s/%s", SS_SRC_DIR, good[i]);
        ss_hwprofile p;
        ss_err err = {0};
        int rc = ss_hwprofile_load(path, &p, &err);
        if (rc) fprintf(stderr, "\n  %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc == 0) ss_hwprofile_free(&p);
        free(path);
    }
    char *out = NULL;
    int rc = ss_test_sh(
        &out,
        "cd '%s' && python3 -c '\n"
        "import json, sys\n"
        "try:\n    import jsonschema\nexcept ImportError:\n    print(\"no jsonschema: skipped\"); sys.exit(0)\n"
        "s = json.load(open(\"docs/profile.schema.json\"))\n"
        "jsonschema.Draft202012Validator.check_schema(s)\n"
        "v = jsonschema.Draft202012Validator(s)\n"
        "import glob\n"
        "for f in [\"docs/profile-example.json\", \"tests/fuzz/hwprofile/measured.json\"] + "
        "[p for p in sorted(glob.glob(\"profiles/published/*/*.json\")) if not p.endswith(\".base.json\")] + "
        "sorted(glob.glob(\"profiles/measured/*.json\") + glob.glob(\"profiles/measured/*/*.json\")):\n"
        "    for e in v.iter_errors(json.load(open(f))): print(\"refused\", f, e.message); sys.exit(1)\n"
        "for c in [\"kind-unknown\", \"latency-negative\", \"missing-field\", \"run-clients-and-rate\", "
        "\"version-two\", \"summary-no-mean\", \"summary-sd-negative\", \"summary-n-zero\", "
        "\"summary-dist-unknown\", \"summary-key-typo\", \"transport-term-unknown\", \"run-arrivals-closed\", \"resident-import-weights\", \"resident-forward-no-batch\", \"resident-stage-unknown\"]:\n"
        "    if v.is_valid(json.load(open(\"tests/bad/calibrate/\" + c + \".json\"))): print(\"accepted\", c); "
        "sys.exit(1)\n"
        "print(\"schema agrees\")'",
        SS_SRC_DIR);
    if (rc) fprintf(stderr, "\n%s", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(out && (strstr(out, "schema agrees") || strstr(out, "skipped")));
    free(out);
}

SS_TEST_SUITE("hwprofile", {"every sample kind and a run, in ms, read back in s", test_reads_every_kind},
              {"sample rules: times, counts, bytes, kinds, units, keys", test_sample_rules},
              {"environment.kernel: read, nulls as not read, bad values positioned", test_kernel_block},
              {"file rules: mixed units across samples, not JSON, version, nothing measured, environment",
               test_file_rules},
              {"run rules: arrival and its rate or clients, required duration", test_run_rules},
              {"docs/profile.schema.json accepts and refuses as the reader does", test_schema_agrees})
