/* calibrate_cmd.c: `servesim calibrate PROFILE... -o MODEL.json`: reads and
 * validates every profile first, fits (calibrate.h: a split-profile model
 * file, or with --model-profile a model profile), then writes the file
 * atomically; on bad input nothing is written. */
#include "calib/calibrate_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "core/afile.h"

static const char usage[] =
    "usage: servesim calibrate PROFILE.json... -o MODEL.json [options]\n"
    "\n"
    "  -o, --output PATH   the model file to write (required)\n"
    "  --name NAME         its \"name\" (default: the output's file name without .json)\n"
    "  --model M           the model whose blocks become \"blocks\" (default: the only one measured)\n"
    "  --device D          the device whose block timings feed \"blocks\" (default: see below)\n"
    "  --threads N         likewise the threads (default: the fewest measured)\n"
    "  --no-batch-law      a piece measured at one batch size gets no batch law instead of an error\n"
    "  --at-run-speed      with the host's speed checked in both phases (kind speed), fit the compute,\n"
    "                      transport and memcpy times as the host ran during the end-to-end runs: each\n"
    "                      observation times host_speed's ratio (docs/calibration.md, \"The host's speed\")\n"
    "  --base MODEL.json   without --model-profile: write this model file with the fitted numbers put in it\n"
    "                      (blocks[].service, fused processes, the offline floor, a whole model's service), not\n"
    "                      calibrate's own format: how the shipped profiles are rebuilt from published tables;\n"
    "                      with --model-profile: a model profile whose weights_bytes, runtime_vram_bytes,\n"
    "                      load_bytes_per_s, request_overhead_s and sla_s are kept, and its service where no\n"
    "                      GPU is measured\n"
    "  --fill KEY=MODEL    with --base, also blocks[].KEY from MODEL's blocks (repeatable, 8 at most)\n"
    "  --model-profile     write a model profile (models/*.json: service, cpu_service, serial_fraction)\n"
    "                      of the whole model --model instead (default: the only one measured whole)\n"
    "  --gpu D             with --model-profile: the device of service's batch-1 samples\n"
    "                      (default: the only device other than the CPU's)\n"
    "  --cpu D             with --model-profile: the device of the batch-1 samples over threads (default: cpu)\n"
    "  --quiet             print no summary\n"
    "  --llm-perf PERF_DIR --llm-model CONFIG.json [--llm-budget N]\n"
    "                      instead: fit an LLM engine's per-operator profile (PERF_DIR: dense.csv,\n"
    "                      per_sequence.csv, attention.csv) for the model of CONFIG.json into a step-time\n"
    "                      model of five coefficients for step_time: {fit: FILE} (docs/llm.md, \"A fitted step\n"
    "                      time\"), over batches within N tokens a step (default 2048)\n"
    "\n"
    "Fits, over the samples of all the profiles (docs/profiles.md): latency vs batch per\n"
    "(model, piece, device, threads), hop cost vs bytes per transport and memcpy time vs bytes by\n"
    "least squares with 95% intervals; each compute sample's latency distribution by maximum\n"
    "likelihood (normal, lognormal, gamma, empirical), the lowest AIC if its Kolmogorov-Smirnov\n"
    "p-value is >= 0.01, else empirical.  A block's timings come from the fewest threads, then the\n"
    "first device in byte order, unless --device/--threads choose.  The model file names the file,\n"
    "sample and line of every number and the statistics of every fit; a block pipeline reads it as\n"
    "its split profile and its transport profile.  End-to-end runs are never fitted.\n"
    "With --model-profile: service is fitted to the GPU's batch-1 samples (fewest threads); Amdahl's\n"
    "law latency = T1 (s + (1 - s) / threads) to the CPU's batch-1 samples at two thread counts or\n"
    "more, as latency = A + B / threads by least squares (T1 = A + B, s = A / T1, 95% intervals by the\n"
    "delta method); cpu_service to the 1-thread samples, else to all of them scaled to one core.\n"
    "Exit 0, 1 if the file cannot be written, 2 on bad input (nothing written).\n";

/* The output's file name without folder and .json. */
static char *default_name(const char *out)
{
    const char *base = strrchr(out, '/');
    char *name = ss_xstrdup(base ? base + 1 : out);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) name[n - 5] = '\0';
    return name;
}

static int parse_threads(const char *v, unsigned *out)
{
    char *end;
    long t = v ? strtol(v, &end, 10) : 0;
    if (!v || !v[0] || *end || t < 1 || t > 1000000) return -1;
    *out = (unsigned)t;
    return 0;
}

/* `--llm-perf DIR --llm-model CONFIG [--llm-budget N] -o FILE [--quiet]`, if argv asks for it: its exit
 * status, else -1. */
static int llm_mode(int argc, char **argv)
{
    const char *perf = NULL, *model = NULL, *out = NULL;
    unsigned long budget = 2048;
    int quiet = 0, llm = 0;
    for (int i = 0; i < argc; i++) llm |= strcmp(argv[i], "--llm-perf") == 0 || strcmp(argv[i], "--llm-model") == 0;
    if (!llm) return -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        if (strcmp(a, "--llm-perf") && strcmp(a, "--llm-model") && strcmp(a, "-o") && strcmp(a, "--output") &&
            strcmp(a, "--llm-budget"))
            return ss_bad_usage("calibrate", "with --llm-perf: unknown option or file '%s'", a);
        if (!v || !v[0]) return ss_bad_usage("calibrate", "%s needs a value", a);
        i++;
        if (strcmp(a, "--llm-perf") == 0) perf = v;
        else if (strcmp(a, "--llm-model") == 0) model = v;
        else if (strcmp(a, "--llm-budget") == 0) {
            char *end;
            budget = strtoul(v, &end, 10);
            if (*end || v[0] == '-' || budget < 1 || budget > 1u << 24)
                return ss_bad_usage("calibrate", "--llm-budget: expected a whole number from 1 to 16777216, got '%s'",
                                    v);
        } else out = v;
    }
    if (!perf || !model || !out)
        return ss_bad_usage("calibrate", "%s", "--llm-perf PERF_DIR, --llm-model CONFIG.json and -o FILE go together");
    return ss_cal_llm(perf, model, (unsigned)budget, out, quiet);
}

int ss_cmd_calibrate(int argc, char **argv)
{
    int llm = llm_mode(argc, argv);
    if (llm >= 0) return llm;
    ss_calib_opts o = {0};
    const char *output = NULL;
    const char **files = ss_xcalloc((size_t)argc + 1, sizeof *files);
    size_t nfiles = 0;
    int quiet = 0, rc = 0;
    char *keys[8] = {0};
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            free(files);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            slot = &output;
        } else if (strcmp(a, "--name") == 0) {
            slot = &o.name;
        } else if (strcmp(a, "--model") == 0) {
            slot = &o.model;
        } else if (strcmp(a, "--device") == 0) {
            slot = &o.device;
        } else if (strcmp(a, "--threads") == 0) {
            if (parse_threads(val, &o.threads) < 0)
                rc = ss_bad_usage("calibrate", "--threads expects a number >= 1, got '%s'", val ? val : "");
            i++;
        } else if (strcmp(a, "--base") == 0) {
            slot = &o.base;
        } else if (strcmp(a, "--fill") == 0) {
            const char *eq = val ? strchr(val, '=') : NULL;
            if (!eq || eq == val || !eq[1] || o.nfill == 8)
                rc = ss_bad_usage("calibrate", "--fill expects KEY=MODEL (8 at most), got '%s'", val ? val : "");
            else {
                o.fill_keys[o.nfill] = keys[o.nfill] = ss_xasprintf("%.*s", (int)(eq - val), val);
                o.fill_models[o.nfill++] = eq + 1;
            }
            i++;
        } else if (strcmp(a, "--no-batch-law") == 0) {
            o.no_batch_law = 1;
        } else if (strcmp(a, "--at-run-speed") == 0) {
            o.at_run_speed = 1;
        } else if (strcmp(a, "--model-profile") == 0) {
            o.model_profile = 1;
        } else if (strcmp(a, "--gpu") == 0) {
            slot = &o.gpu;
        } else if (strcmp(a, "--cpu") == 0) {
            slot = &o.cpu;
        } else if (strcmp(a, "--base") == 0) {
            slot = &o.base;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            rc = ss_bad_usage("calibrate", "unknown option '%s'", a);
        } else {
            files[nfiles++] = a;
        }
        if (slot) {
            if (!val || !val[0]) rc = ss_bad_usage("calibrate", "%s needs a value", a);
            *slot = val;
            i++;
        }
    }
    if (rc == 0 && nfiles == 0) rc = ss_bad_usage("calibrate", "%s", "missing PROFILE.json");
    if (rc == 0 && !output) rc = ss_bad_usage("calibrate", "%s", "missing -o MODEL.json");
    if (rc == 0 && o.nfill && !o.base) rc = ss_bad_usage("calibrate", "%s", "--fill needs --base");
    if (rc == 0 && o.nfill && o.model_profile) rc = ss_bad_usage("calibrate", "%s", "--fill is not for --model-profile");
    if (rc == 0 && !o.model_profile && (o.gpu || o.cpu))
        rc = ss_bad_usage("calibrate", "%s", "--gpu and --cpu go with --model-profile");
    if (rc == 0 && o.model_profile && (o.device || o.threads || o.no_batch_law))
        rc = ss_bad_usage("calibrate", "%s",
                          "--device, --threads and --no-batch-law are for the split profile, not --model-profile "
                          "(it takes --gpu and --cpu)");
    if (rc) {
        for (size_t k = 0; k < 8; k++) free(keys[k]);
        free(files);
        return rc;
    }
    char *name = o.name ? NULL : default_name(output);
    if (!o.name) o.name = name;
    ss_err err = {0};
    ss_hwprofile *profs = ss_xcalloc(nfiles, sizeof *profs);
    ss_hwprofile **pp = ss_xcalloc(nfiles, sizeof *pp);
    const char **in_what = ss_xcalloc(nfiles + 1, sizeof *in_what);
    static const char *const out_what[] = {"model file"};
    size_t nread = 0;
    for (; nread < nfiles; nread++) {
        in_what[nread] = "profile";
        pp[nread] = &profs[nread];
        if (ss_hwprofile_load(files[nread], &profs[nread], &err) < 0) break;
    }
    char *json = NULL, *summary = NULL;
    size_t nin = nfiles;
    if (o.base) { /* the output may not overwrite the base either */
        files[nin] = o.base;
        in_what[nin++] = "base model profile";
    }
    if (nread < nfiles || ss_check_outputs(files, in_what, nin, &output, out_what, 1, &err) < 0 ||
        (o.model_profile ? ss_calibrate_model(pp, nfiles, &o, &json, &summary, &err)
                         : ss_calibrate(pp, nfiles, &o, &json, &summary, &err)) < 0) {
        rc = 2;
    } else {
        ss_afile f;
        if (ss_afile_open(&f, output, &err) < 0) {
            rc = 2; /* the path named: bad input (afile.h) */
        } else {
            fputs(json, f.fp);
            if (ss_afile_commit(&f, &err) < 0) rc = 1;
        }
        if (rc == 0 && !quiet) printf("%s-> %s\n", summary, output);
    }
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    for (size_t i = 0; i < nread; i++) ss_hwprofile_free(&profs[i]);
    free(profs);
    free(pp);
    free(in_what);
    free(json);
    free(summary);
    free(name);
    free(files);
    for (size_t k = 0; k < 8; k++) free(keys[k]);
    return rc;
}
