/* test_validate.c: `servesim validate` (sim/calib/validate.c, validate_cmd.c,
 * sim/input/validation_cfg.c) end to end, through the binary:
 *   - a profile whose runs are the simulator's own (`servesim run` of the
 *     same scenario at known conditions: poisson at three rates over one
 *     transport, closed loop with 1 and 3 clients over another): every
 *     error ~0, exit 0, the highest rate recognised as at saturation;
 *   - the same profile with one mean latency raised 30%: exit 1, that row
 *     and no other flagged; a tolerance of 50% for it: exit 0 again;
 *   - the CSV: one row per (run, metric), the same bytes twice;
 *   - saturation by the throughput gap: a replayed run judged against the
 *     arrivals inside its window, not its nominal rate;
 *   - conditions.background_cores: the host's cores less them, as `run`
 *     with pipeline.host_cores gives; a placement value's set: map applied;
 *   - validation.host_speed: each run's time factor from a model file, as
 *     `run` with pipeline.host_time_factor gives;
 *   - bad input: a run no scenario stands for, a profile without runs, a
 *     scenario without validation:, a transport the scenario cannot set,
 *     two scenarios for one run, -o over an input: each a positioned
 *     message, exit 2, nothing written. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/csvread.h"
#include "core/util.h"

/* lines 1-4; then `runs` (line 5) or `samples` */
#define ENV                                                                                                    \
    "{\n\"servesim_profile\": 1,\n\"source\": \"test_validate (the simulator)\",\n\"environment\": {\"machine\": " \
    "\"sim\", \"cpu_model\": \"none\", \"cores\": 2, \"memory_bytes\": 0, \"os\": \"none\", "                    \
    "\"libraries\": {\"servesim\": \"0\"}, \"date\": \"2026-11-26\"},\n"
#define HEAD ENV "\"runs\": [\n"

/* Two blocks of the shipped ResNet50 split on one GPU; zmq-copy and
 * "shm-handle" (tensormq stands for it) chosen by the runs' transport. */
static const char scenario[] =
    "name: vt\nseed: 3\nreplications: 2\nduration_s: 10\n"
    "hosts: [{name: h, devices: [{name: gpu0, kind: gpu, type: GV100, vram_gib: 32}]}]\n"
    "models:\n  - {name: block1, split: resnet50-split, block: block1}\n"
    "  - {name: block2, split: resnet50-split, block: block2}\n"
    "tasks: [{name: classify, path: [block1, block2]}]\n"
    "deployment: [{model: block1, device: gpu0}, {model: block2, device: gpu0}]\n"
    "workloads: [{name: client, kind: closed, target: classify, clients: 1}]\n"
    "pipeline: {transport: zmq-copy}\n"
    "validation:\n  model: net\n  transport:\n    zmq-copy: ~\n"
    "    shm-handle: {pipeline.transport: tensormq}\n";

typedef struct cond {
    const char *id, *transport, *plugin;
    double rate;        /* poisson, or 0 */
    unsigned clients;   /* closed, or 0 */
} cond;

static const cond conds[] = {{"zmq-poisson-20", "zmq-copy", "zmq-copy", 20, 0},
                             {"zmq-poisson-60", "zmq-copy", "zmq-copy", 60, 0},
                             {"zmq-poisson-100", "zmq-copy", "zmq-copy", 100, 0},
                             {"shm-closed-1", "shm-handle", "tensormq", 0, 1},
                             {"shm-closed-3", "shm-handle", "tensormq", 0, 3}};
#define NCONDS (sizeof conds / sizeof *conds)

/* The mean over replications of the `all` rows' metrics of `servesim run`
 * under condition c: throughput, mean, p50, p99 (s), completed.  The
 * throughput is counted as a load generator counts it, and as validate
 * simulates it (docs/profiles.md): every completion inside the window
 * [1, 10) s over its 9 s, from the run's --requests-csv. */
static int simulate(const char *dir, const cond *c, double m[5])
{
    char *out = NULL, wl[160];
    if (c->clients) snprintf(wl, sizeof wl, "{name: client, kind: closed, target: classify, clients: %u}", c->clients);
    else snprintf(wl, sizeof wl, "{name: client, kind: poisson, target: classify, rate_rps: %g}", c->rate);
    int rc = ss_test_sh(&out,
                        "cd '%s' && '%s/servesim' run s.yaml -o r.csv --requests-csv q.csv --quiet "
                        "--set 'workloads.client=%s' --set pipeline.transport=%s --set duration_s=10 --set warmup_s=1",
                        dir, SS_BUILD_DIR, wl, c->plugin);
    if (rc != 0) fprintf(stderr, "%s\n", out ? out : "");
    free(out);
    if (rc != 0) return -1;
    char *path = ss_xasprintf("%s/r.csv", dir);
    ss_csv csv;
    ss_err err = {0};
    rc = ss_csv_read(path, &csv, &err);
    free(path);
    if (rc < 0) return -1;
    const char *cols[] = {"throughput_rps", "latency_mean_ms", "latency_p50_ms", "latency_p99_ms", "completed"};
    long model = ss_csv_col(&csv.rows[0], "model"), k[5];
    for (int i = 0; i < 5; i++) k[i] = ss_csv_col(&csv.rows[0], cols[i]);
    int n = 0;
    memset(m, 0, 5 * sizeof *m);
    for (size_t r = 1; r < csv.nrows; r++) {
        if (strcmp(csv.rows[r].f[model], "all") != 0) continue;
        n++;
        for (int i = 0; i < 5; i++) m[i] += atof(csv.rows[r].f[k[i]]) * (i >= 1 && i <= 3 ? 1e-3 : 1);
    }
    for (int i = 0; i < 5; i++) m[i] /= n;
    ss_csv_free(&csv);
    path = ss_xasprintf("%s/q.csv", dir);
    rc = ss_csv_read(path, &csv, &err);
    free(path);
    if (rc < 0) return -1;
    m[0] = (double)ss_test_finished_in(&csv, 1, 10) / 9 / n;
    ss_csv_free(&csv);
    return n == 2 ? 0 : -1;
}

/* One run of the profile: condition c under id c->id + suffix, the
 * simulator's metrics m with the mean latency times lat_factor; a comma
 * after it unless it is the last. */
static void run_json(FILE *f, const cond *c, const char *suffix, const double m[5], double lat_factor, int comma)
{
    fprintf(f, "{\"id\": \"%s%s\", \"conditions\": {\"model\": \"net\", \"transport\": \"%s\", ", c->id, suffix,
            c->transport);
    if (c->clients) fprintf(f, "\"arrival\": \"closed\", \"clients\": %u, ", c->clients);
    else fprintf(f, "\"arrival\": \"poisson\", \"rate_per_s\": %g, ", c->rate);
    fprintf(f,
            "\"batch\": 1, \"duration_s\": 9, \"warmup_s\": 1}, \"results\": {\"requests\": %.0f, "
            "\"throughput_per_s\": %.17g, \"latency_mean_s\": %.17g, \"latency_p50_s\": %.17g, \"latency_p99_s\": "
            "%.17g}}%s\n",
            m[4], m[0], m[1] * lat_factor, m[2], m[3], comma ? "," : "");
}

/* The profile of the simulator's own runs, run `bump` (or none: -1) with
 * its mean latency times 1.3. */
static char *profile_text(const double (*m)[5], int bump)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    fputs(HEAD, f);
    for (size_t i = 0; i < NCONDS; i++)
        run_json(f, &conds[i], "", m[i], (int)i == bump ? 1.3 : 1, i + 1 < NCONDS);
    fputs("]\n}\n", f);
    fclose(f);
    return text;
}

static char *setup(double (*m)[5])
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", scenario));
    char *out = NULL;
    int rc = ss_test_sh(&out, "mkdir -p '%s/models' && cp '%s/models/resnet50-split.json' '%s/models/transports.json' '%s/models/'",
                        dir, SS_SRC_DIR, SS_SRC_DIR, dir);
    free(out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    for (size_t i = 0; i < NCONDS; i++) CU_ASSERT_EQUAL_FATAL(simulate(dir, &conds[i], m[i]), 0);
    return dir;
}

/* validate's CSV rows: *csv filled; returns the exit status. */
static int validate(const char *dir, const char *args, ss_csv *csv, char **out)
{
    int rc = ss_test_sh(out, "cd '%s' && rm -f v.csv && '%s/servesim' validate %s -o v.csv", dir, SS_BUILD_DIR, args);
    char *path = ss_xasprintf("%s/v.csv", dir);
    ss_err err = {0};
    if (ss_csv_read(path, csv, &err) < 0) memset(csv, 0, sizeof *csv);
    free(path);
    return rc;
}

static const char *field(const ss_csv *csv, size_t r, const char *col)
{
    long k = ss_csv_col(&csv->rows[0], col);
    return k >= 0 && r < csv->nrows && (size_t)k < csv->rows[r].n ? csv->rows[r].f[k] : "";
}

static void test_own_runs(void)
{
    double m[NCONDS][5];
    char *dir = setup(m), *text = profile_text((const double (*)[5])m, -1), *out = NULL;
    free(ss_test_write(dir, "p.json", text));
    ss_csv csv;
    int rc = validate(dir, "s.yaml p.json", &csv, &out);
    if (rc != 0) fprintf(stderr, "%s\n", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "validate: 5 runs of 1 profile against 1 scenario"));
    CU_ASSERT(ss_test_has(out, "validate: 0 of 10 judged errors beyond their tolerance"));
    CU_ASSERT_EQUAL(csv.nrows, 1 + NCONDS * 5);
    for (size_t r = 1; r < csv.nrows; r++) {
        double e = atof(field(&csv, r, "rel_error"));
        const char *metric = field(&csv, r, "metric"), *id = field(&csv, r, "run");
        /* the CSV of `run` prints ms with 6 decimals: the errors are that small (none is 0 by accident:
         * the perturbed test sees the same numbers move) */
        /* requests: the mean over two replications, rounded to a whole number in the profile */
        CU_ASSERT(fabs(e) < (strcmp(metric, "requests") != 0 ? 1e-4 : 1e-3));
        const char *regime = field(&csv, r, "regime"),
                   *want = strstr(id, "closed") ? "closed"
                           : strcmp(id, "zmq-poisson-100") == 0 ? "at_saturation" : "below_saturation";
        CU_ASSERT_STRING_EQUAL(regime, want);
        int judged = strcmp(metric, "throughput_per_s") == 0 || strcmp(metric, "latency_mean_s") == 0;
        CU_ASSERT_STRING_EQUAL(field(&csv, r, "pass"), judged ? "yes" : "");
    }
    /* the same bytes again */
    char *again = NULL;
    rc = ss_test_sh(&again, "cd '%s' && cp v.csv v1.csv && '%s/servesim' validate s.yaml p.json -o v.csv --quiet && "
                            "cmp v.csv v1.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    free(again);
    ss_csv_free(&csv);
    free(out);
    free(text);
    ss_test_rmtree(dir);
}

/* --means: every condition measured three times (ids -pass1..3), mean
 * latency 0.85, 1 and 1.15 times the simulator's (single errors +17.6%, 0,
 * -13%: two of three beyond 10%, one beyond the 15% at saturation), one
 * condition 1.2, 1.3, 1.4 times (all beyond, and its mean too): the means of
 * 5 conditions, 1 of 10 judged errors beyond (10 single runs), exit 1; per
 * condition the runs (3) and the measured spread; the other means' errors ~0. */
static void test_means(void)
{
    double m[NCONDS][5];
    char *dir = setup(m), *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    fputs(HEAD, f);
    const double usual[3] = {0.85, 1, 1.15}, bumped[3] = {1.2, 1.3, 1.4};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < NCONDS; i++) {
            char suffix[16];
            snprintf(suffix, sizeof suffix, "-pass%d", k + 1);
            run_json(f, &conds[i], suffix, m[i], (i == 1 ? bumped : usual)[k], !(k == 2 && i + 1 == NCONDS));
        }
    fputs("]\n}\n", f);
    fclose(f);
    free(ss_test_write(dir, "p.json", text));
    ss_csv csv;
    char *out = NULL;
    int rc = validate(dir, "s.yaml p.json --means", &csv, &out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT(ss_test_has(out, "validate: means of 5 conditions from 15 runs: 1 of 10 judged errors beyond their "
                               "tolerance (single runs: 10)"));
    CU_ASSERT_EQUAL(csv.nrows, 1 + NCONDS * 5);
    for (size_t r = 1; r < csv.nrows; r++) {
        const char *metric = field(&csv, r, "metric"), *id = field(&csv, r, "run");
        int bump = strncmp(id, conds[1].id, strlen(conds[1].id)) == 0, lat = strcmp(metric, "latency_mean_s") == 0;
        CU_ASSERT_STRING_EQUAL(field(&csv, r, "runs"), "3");
        CU_ASSERT(strstr(id, "-pass1") != NULL);
        double spread = atof(field(&csv, r, "measured_spread")), e = atof(field(&csv, r, "rel_error"));
        if (lat) {
            CU_ASSERT_DOUBLE_EQUAL(spread, bump ? 0.2 / 1.3 : 0.3, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(e, bump ? 1 / 1.3 - 1 : 0, 1e-4);
            CU_ASSERT_STRING_EQUAL(field(&csv, r, "pass"), bump ? "no" : "yes");
        } else if (strcmp(metric, "throughput_per_s") == 0) {
            CU_ASSERT_DOUBLE_EQUAL(spread, 0, 0);
            CU_ASSERT_STRING_EQUAL(field(&csv, r, "pass"), "yes");
        }
    }
    ss_csv_free(&csv);
    free(out);
    /* without --means the same runs are judged one by one */
    rc = validate(dir, "s.yaml p.json", &csv, &out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT(ss_test_has(out, "validate: 10 of 30 judged errors beyond their tolerance"));
    CU_ASSERT_EQUAL(csv.nrows, 1 + 3 * NCONDS * 5);
    ss_csv_free(&csv);
    free(out);
    free(text);
    ss_test_rmtree(dir);
}

static void test_perturbed(void)
{
    double m[NCONDS][5];
    char *dir = setup(m), *text = profile_text((const double (*)[5])m, 0), *out = NULL;
    free(ss_test_write(dir, "p.json", text));
    ss_csv csv;
    int rc = validate(dir, "s.yaml p.json", &csv, &out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT(ss_test_has(out, "FAIL"));
    CU_ASSERT(ss_test_has(out, "validate: 1 of 10 judged errors beyond their tolerance"));
    size_t fails = 0;
    for (size_t r = 1; r < csv.nrows; r++) {
        int flagged = strcmp(field(&csv, r, "pass"), "no") == 0;
        fails += flagged;
        if (flagged) {
            CU_ASSERT_STRING_EQUAL(field(&csv, r, "run"), "zmq-poisson-20");
            CU_ASSERT_STRING_EQUAL(field(&csv, r, "metric"), "latency_mean_s");
            /* simulated / (1.3 x simulated) - 1 */
            CU_ASSERT(fabs(atof(field(&csv, r, "rel_error")) - (1 / 1.3 - 1)) < 1e-4);
        }
    }
    CU_ASSERT_EQUAL(fails, 1);
    ss_csv_free(&csv);
    free(out);
    out = NULL;
    /* a tolerance of 50% on the mean below saturation lets it pass */
    char *more = ss_xasprintf("%s  tolerance: {below_saturation: {latency_mean: 0.5}}\n", scenario);
    free(ss_test_write(dir, "s.yaml", more));
    free(more);
    rc = validate(dir, "s.yaml p.json", &csv, &out);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "50%  ok"));
    ss_csv_free(&csv);
    free(out);
    free(text);
    ss_test_rmtree(dir);
}

/* Host h's 2-core CPU under compute: shared running two blocks of the shipped
 * ResNet50 split (its split and transports copied into dir/models), with
 * `clients` closed-loop clients and `validation` (a flow map) as its
 * validation: section, written to dir/file. */
static void write_cpu_scenario(const char *dir, const char *file, unsigned clients, const char *validation)
{
    char *text = ss_xasprintf("name: vc\nseed: 5\nduration_s: 10\n"
                              "hosts: [{name: h, devices: [{name: cpu, kind: cpu, cores: 2}]}]\n"
                              "models:\n  - {name: block1, split: resnet50-split, block: block1}\n"
                              "  - {name: block2, split: resnet50-split, block: block2}\n"
                              "tasks: [{name: classify, path: [block1, block2]}]\n"
                              "deployment: [{model: block1, device: cpu}, {model: block2, device: cpu}]\n"
                              "workloads: [{name: client, kind: closed, target: classify, clients: %u}]\n"
                              "pipeline: {transport: zmq-copy, compute: shared}\n"
                              "validation: %s\n",
                              clients, validation);
    free(ss_test_write(dir, file, text));
    free(text);
    ss_test_sh(NULL, "cd '%s' && mkdir -p models && cp '%s/models/resnet50-split.json' '%s/models/transports.json' models/",
               dir, SS_SRC_DIR, SS_SRC_DIR);
}

/* A profile of one closed-loop run `id` of model net over zmq-copy with
 * `clients` clients, 9 s after a 1 s warm-up, made-up results; `extra` more
 * conditions (", \"background_cores\": 1.5", or ""). */
static char *closed_run_profile(const char *id, unsigned clients, const char *extra)
{
    return ss_xasprintf("%s{\"id\": \"%s\", \"conditions\": {\"model\": \"net\", \"transport\": \"zmq-copy\", "
                        "\"arrival\": \"closed\", \"clients\": %u, \"duration_s\": 9, \"warmup_s\": 1%s}, "
                        "\"results\": {\"requests\": 100, \"throughput_per_s\": 10, \"latency_mean_s\": 0.1, "
                        "\"latency_p50_s\": 0.1, \"latency_p99_s\": 0.2}}\n]\n}\n",
                        HEAD, id, clients, extra);
}

/* validation.host_speed: {host: h, model: m.json}: each run simulated with h's
 * CPU work scaled by the run's time factor from the model file's
 * host_speed.runs, exactly as `servesim run --set pipeline.host_time_factor.h=f`
 * gives (and slower than without it); a run the file does not list, a file
 * without host_speed.runs, a factor not > 0 and a missing file are bad input. */
static void test_host_speed(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    write_cpu_scenario(dir, "c.yaml", 1, "{model: net, host_speed: {host: h, model: m.json}}");
    write_cpu_scenario(dir, "gone.yaml", 1, "{model: net, host_speed: {host: h, model: none.json}}");
    write_cpu_scenario(dir, "c0.yaml", 1, "{model: net, host_speed: {host: h, model: m0.json}}");
    free(ss_test_write(dir, "m.json", "{\"host_speed\": {\"runs\": [{\"run\": \"hs\", \"time_factor\": 1.5}]}}\n"));
    free(ss_test_write(dir, "m0.json", "{\"host_speed\": {\"ratio\": 1.1}}\n"));
    char *p1 = closed_run_profile("hs", 1, ""), *p2 = closed_run_profile("other", 1, "");
    free(ss_test_write(dir, "p.json", p1));
    free(ss_test_write(dir, "other.json", p2));
    int rc = ss_test_sh(&out,
                        "cd '%s' && '%s/servesim' run c.yaml -o r.csv --quiet --set pipeline.host_time_factor.h=1.5 "
                        "--set duration_s=10 --set warmup_s=1 && '%s/servesim' run c.yaml -o r1.csv --quiet "
                        "--set duration_s=10 --set warmup_s=1 && '%s/servesim' validate c.yaml p.json -o v.csv",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR, SS_BUILD_DIR);
    CU_ASSERT(rc == 0 || rc == 1); /* the made-up measurements may be far off */
    free(out);
    ss_csv r, r1, v;
    ss_err err = {0};
    char *rp = ss_xasprintf("%s/r.csv", dir), *r1p = ss_xasprintf("%s/r1.csv", dir), *vp = ss_xasprintf("%s/v.csv", dir);
    if (ss_csv_read(rp, &r, &err) == 0 && ss_csv_read(r1p, &r1, &err) == 0 && ss_csv_read(vp, &v, &err) == 0) {
        size_t all = r.nrows - 1;
        CU_ASSERT_STRING_EQUAL(field(&v, 2, "metric"), "latency_mean_s");
        double want = atof(field(&r, all, "latency_mean_ms")) / 1e3, got = atof(field(&v, 2, "simulated")),
               as_profiled = atof(field(&r1, all, "latency_mean_ms")) / 1e3;
        CU_ASSERT(fabs(got - want) < 1e-8);
        /* one client on 2 cores: its CPU work 1.5 times as long, its wake-ups and waits not */
        CU_ASSERT(got > 1.3 * as_profiled && got < 1.5 * as_profiled);
        ss_csv_free(&v);
        ss_csv_free(&r1);
        ss_csv_free(&r);
    } else CU_FAIL("no r.csv, r1.csv or v.csv");
    free(rp);
    free(r1p);
    free(vp);
    rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate c.yaml other.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "other.json:6:1: run 'other': no scenario can set its conditions (c.yaml: "
                               "validation.host_speed: "));
    CU_ASSERT(ss_test_has(out, "m.json has no host speed for run 'other' (host_speed.runs)"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate c0.yaml p.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "m0.json:1:16: host_speed: no per-run host speed (host_speed.runs)"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate gone.yaml p.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "gone.yaml:12:55: host_speed.model 'none.json' not found or not readable"));
    free(out);
    /* a directory where the model file should be: refused at the key, not when it is read */
    rc = ss_test_sh(&out, "cd '%s' && sed 's/model: none.json/model: models/' gone.yaml > dir.yaml && "
                          "'%s/servesim' validate dir.yaml p.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "dir.yaml:12:55: host_speed.model 'models' is a directory: expected a file"));
    free(out);
    free(ss_test_write(dir, "m0.json", "{\"host_speed\": {\"runs\": [{\"run\": \"\", \"time_factor\": 1}]}}\n"));
    rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate c0.yaml p.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "m0.json:1:34: run: expected a run's id, got an empty string"));
    free(out);
    free(ss_test_write(dir, "m0.json", "{\"host_speed\": {\"runs\": [{\"run\": \"hs\", \"time_factor\": 0}]}}\n"));
    rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate c0.yaml p.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "m0.json:1:") && ss_test_has(out, "time_factor: expected a number > 0"));
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "test -e '%s/out'", dir), 1); /* nothing written */
    free(out);
    free(p1);
    free(p2);
    ss_test_rmtree(dir);
}

/* conditions.background_cores b with validation.background_cores: {host: h}:
 * the run is simulated with h's 2 cores less b, exactly as `servesim run
 * --set pipeline.host_cores.h=2-b` gives; b >= 2 cores is bad input. */
static void test_background_cores(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    write_cpu_scenario(dir, "c.yaml", 4, "{model: net, background_cores: {host: h}}");
    char *p1 = closed_run_profile("bg", 4, ", \"background_cores\": 1.5"),
         *p2 = closed_run_profile("bg", 4, ", \"background_cores\": 2");
    free(ss_test_write(dir, "p.json", p1));
    free(ss_test_write(dir, "bad.json", p2));
    int rc = ss_test_sh(&out,
                        "cd '%s' && '%s/servesim' run c.yaml -o r.csv --quiet --set pipeline.host_cores.h=0.5 "
                        "--set duration_s=10 --set warmup_s=1 && '%s/servesim' validate c.yaml p.json -o v.csv",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR);
    CU_ASSERT(rc == 0 || rc == 1); /* the made-up measurements may be far off */
    free(out);
    ss_csv r, v;
    ss_err err = {0};
    char *rp = ss_xasprintf("%s/r.csv", dir), *vp = ss_xasprintf("%s/v.csv", dir);
    if (ss_csv_read(rp, &r, &err) == 0) {
        if (ss_csv_read(vp, &v, &err) == 0) {
            size_t all = r.nrows - 1; /* the last row is `all` */
            CU_ASSERT_STRING_EQUAL(field(&r, all, "model"), "all");
            /* row 2: latency_mean_s; `run` prints ms with 6 decimals */
            CU_ASSERT_STRING_EQUAL(field(&v, 2, "metric"), "latency_mean_s");
            double want = atof(field(&r, all, "latency_mean_ms")) / 1e3, got = atof(field(&v, 2, "simulated"));
            CU_ASSERT(fabs(got - want) < 1e-8);
            /* and the cut matters: 4 clients on half a core wait far longer than the 0.1 s "measured" */
            CU_ASSERT(got > 0.2);
            ss_csv_free(&v);
        } else CU_FAIL("no v.csv");
        ss_csv_free(&r);
    } else CU_FAIL("no r.csv");
    free(rp);
    free(vp);
    rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate c.yaml bad.json -o out/v.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "bad.json:6:1: run 'bg': no scenario can set its conditions (c.yaml: "
                               "background_cores 2 leaves none of host 'h''s 2 cores)"));
    free(out);
    free(p1);
    free(p2);
    ss_test_rmtree(dir);
}

/* A placement value's set: map is applied: two instances serve two closed
 * clients faster than one (round-robin: about 1.5 times); a plain scenario (no pipeline) with
 * runs that name no transport. */
static void test_placement(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "s.yaml",
                       "name: vp\nseed: 2\nreplications: 2\nduration_s: 30\n"
                       "hosts: [{name: h, devices: [{name: gpu0, kind: gpu}]}]\n"
                       "models: [{name: net, service: {dist: exponential, mean_s: 0.01}}]\n"
                       "deployment: [{model: net, device: gpu0}]\n"
                       "workloads: [{name: client, kind: closed, target: net, clients: 1}]\n"
                       "validation:\n  model: net\n  placement:\n    one: ~\n"
                       "    two: {deployment.0.instances: 2}\n"));
    const char *run = "{\"id\": \"%s\", \"conditions\": {\"model\": \"net\", \"placement\": \"%s\", \"arrival\": "
                      "\"closed\", \"clients\": 2, \"duration_s\": 20}, \"results\": {\"requests\": 2000, "
                      "\"throughput_per_s\": 100, \"latency_mean_s\": 0.02, \"latency_p50_s\": 0.014, "
                      "\"latency_p99_s\": 0.09}}%s\n";
    char *r1 = ss_xasprintf(run, "one", "one", ","), *r2 = ss_xasprintf(run, "two", "two", "");
    char *prof = ss_xasprintf("%s%s%s]\n}\n", HEAD, r1, r2);
    free(ss_test_write(dir, "p.json", prof));
    ss_csv csv;
    int rc = validate(dir, "p.json s.yaml", &csv, &out);
    CU_ASSERT(rc == 0 || rc == 1);
    CU_ASSERT_EQUAL(csv.nrows, 1 + 2 * 5);
    if (csv.nrows == 11) {
        CU_ASSERT_STRING_EQUAL(field(&csv, 1, "run"), "one");
        CU_ASSERT_STRING_EQUAL(field(&csv, 6, "run"), "two");
        CU_ASSERT_STRING_EQUAL(field(&csv, 1, "transport"), "");
        double one = atof(field(&csv, 1, "simulated")), two = atof(field(&csv, 6, "simulated"));
        CU_ASSERT(one > 80 && one < 120);   /* one server of 10 ms: ~100/s */
        CU_ASSERT(two > 1.3 * one);         /* two of them (round-robin: ~150/s), two clients */
    }
    ss_csv_free(&csv);
    free(out);
    free(r1);
    free(r2);
    free(prof);
    ss_test_rmtree(dir);
}

/* validate on files written into a fresh folder: exit 2, the message,
 * nothing written. */
static void bad(const char *scen, const char *prof, const char *args, const char *want)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "s.yaml", scen));
    free(ss_test_write(dir, "p.json", prof));
    ss_test_sh(&out, "mkdir -p '%s/models' && cp '%s/models/resnet50-split.json' '%s/models/transports.json' '%s/models/'",
               dir, SS_SRC_DIR, SS_SRC_DIR, dir);
    free(out);
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' validate %s", dir, SS_BUILD_DIR, args);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, want));
    char *csv = ss_xasprintf("%s/out/v.csv", dir);
    struct stat st;
    CU_ASSERT(stat(csv, &st) != 0);
    free(csv);
    free(out);
    ss_test_rmtree(dir);
}

#define RUN(model, transport)                                                                                   \
    "{\"id\": \"r1\", \"conditions\": {\"model\": \"" model "\", \"transport\": \"" transport "\", \"arrival\": " \
    "\"poisson\", \"rate_per_s\": 10, \"duration_s\": 5}, \"results\": {\"requests\": 50, \"throughput_per_s\": "  \
    "10, \"latency_mean_s\": 0.03, \"latency_p50_s\": 0.03, \"latency_p99_s\": 0.05}}\n"

static void test_bad_input(void)
{
    const char *ok_run = HEAD RUN("net", "zmq-copy") "]\n}\n";
    /* the run is on line 6, column 1 */
    bad(scenario, HEAD RUN("other", "zmq-copy") "]\n}\n", "s.yaml p.json -o out/v.csv",
        "p.json:6:1: run 'r1': no scenario stands for model 'other' (the scenarios stand for 'net' (s.yaml))");
    bad(scenario, HEAD RUN("net", "http") "]\n}\n", "s.yaml p.json -o out/v.csv",
        "p.json:6:1: run 'r1': no scenario can set its conditions (s.yaml: transport 'http' is not one "
        "validation.transport sets (zmq-copy, shm-handle))");
    bad(scenario, ENV "\"samples\": [{\"kind\": \"memcpy\", \"bytes\": 10, \"latency_s\": [0.001]}]\n}\n",
        "s.yaml p.json -o out/v.csv",
        "p.json:5:1: the profile has samples but no end-to-end runs (runs:): nothing to validate");
    char *plain = ss_xasprintf("%.*s", (int)(strstr(scenario, "validation:") - scenario), scenario);
    bad(plain, ok_run, "s.yaml p.json -o out/v.csv", "s.yaml:1:1: scenario has no validation: section");
    free(plain);
    bad(scenario, ok_run, "s.yaml p.json -o s.yaml", "s.yaml");
    bad(scenario, ok_run, "s.yaml s.yaml p.json -o out/v.csv", "p.json:6:1: run 'r1': both s.yaml and s.yaml stand for it");
    char *typo = ss_xasprintf("%s  tolerance: {below_saturaton: {throughput: 0.2}}\n", scenario);
    bad(typo, ok_run, "s.yaml p.json -o out/v.csv", "unknown key 'below_saturaton'");
    free(typo);
}

/* Saturation by the throughput gap (validation.saturation.highest_load:
 * false, so the gap alone decides): a replayed run is judged against the
 * arrivals inside its window, not its nominal rate_per_s.  Both runs send
 * 20/s (arrivals every 0.05 s, 180 in the window [1, 10) s): "thin" has a
 * nominal 40/s and measured 19.5/s, within 5% of what it offered: below
 * saturation (against its rate it would have been 51% short); "short"
 * measured 12/s, 72 requests short of its 180, far more than the one in
 * flight a stable queue leaves at the window's end (20/s x 0.05 s): at
 * saturation. */
static void test_saturation_offered(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "s.yaml", scenario));
    char *sat = ss_xasprintf("%s  saturation: {highest_load: false}\n", scenario);
    free(ss_test_write(dir, "s.yaml", sat));
    free(sat);
    char *arr = NULL;
    size_t len;
    FILE *a = open_memstream(&arr, &len);
    for (int k = 0; k < 200; k++) fprintf(a, "%s%.2f", k ? ", " : "", 0.05 * k);
    fclose(a);
    const char *run = "{\"id\": \"%s\", \"conditions\": {\"model\": \"net\", \"transport\": \"zmq-copy\", "
                      "\"arrival\": \"poisson\", \"rate_per_s\": %s, \"duration_s\": 9, \"warmup_s\": 1, "
                      "\"arrivals_s\": [%s]}, \"results\": {\"requests\": 180, \"throughput_per_s\": %s, "
                      "\"latency_mean_s\": 0.05, \"latency_p50_s\": 0.05, \"latency_p99_s\": 0.1}}";
    char *r1 = ss_xasprintf(run, "thin", "40", arr, "19.5"), *r2 = ss_xasprintf(run, "short", "20", arr, "12");
    char *text = ss_xasprintf("%s%s,\n%s\n]\n}\n", HEAD, r1, r2);
    free(ss_test_write(dir, "p.json", text));
    ss_csv csv;
    int rc = ss_test_sh(&out, "cd '%s' && mkdir -p models && cp '%s/models/resnet50-split.json' "
                              "'%s/models/transports.json' models/", dir, SS_SRC_DIR, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    rc = validate(dir, "s.yaml p.json", &csv, &out);
    CU_ASSERT(rc == 0 || rc == 1); /* made-up measurements: the regimes are what is checked */
    CU_ASSERT(csv.nrows == 11);
    for (size_t r = 1; r < csv.nrows; r++) {
        const char *id = field(&csv, r, "run");
        CU_ASSERT_STRING_EQUAL(field(&csv, r, "regime"), strcmp(id, "thin") == 0 ? "below_saturation" : "at_saturation");
    }
    int shown = ss_test_has(out, "poisson 40/s replayed ") && out && !strstr(out, "poisson 40/s replayed (sat.)") &&
                ss_test_has(out, "poisson 20/s replayed (sat.)");
    if (!shown) fprintf(stderr, "%s\n", out ? out : "");
    CU_ASSERT(shown);
    if (csv.nrows) ss_csv_free(&csv);
    free(out);
    free(text);
    free(r1);
    free(r2);
    free(arr);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("validate", {"the simulator's own runs: errors ~0, exit 0, saturation recognised", test_own_runs},
              {"--means: repeated runs judged by their means, with runs and spread", test_means},
              {"one mean latency 30% off: exit 1, that row flagged; a wider tolerance passes", test_perturbed},
              {"conditions.background_cores taken off the host's cores", test_background_cores},
              {"validation.host_speed: each run at its host's speed, from the model file", test_host_speed},
              {"saturation by the gap: a replayed run against the arrivals in its window", test_saturation_offered},
              {"a placement value's set: map is applied; a plain scenario", test_placement},
              {"bad input: positioned, exit 2, nothing written", test_bad_input})
