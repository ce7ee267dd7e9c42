/* validate_cmd.c: `servesim validate SCENARIO|PROFILE... [-o FILE.csv]`:
 * the command line, the table and the CSV of validate.h's comparison.
 * Exit 0 when every judged error is within its tolerance, 1 when one is
 * not (or the CSV cannot be written), 2 on bad input (nothing run or
 * written). */
#include "calib/validate_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/validate.h"
#include "core/afile.h"

static const char usage[] =
    "usage: servesim validate SCENARIO.yaml|PROFILE.json... [options]\n"
    "\n"
    "  -o, --output PATH     also write one CSV row per (run, metric)\n"
    "  --set KEY.PATH=VALUE  override a key of every scenario (e.g. replications=3); repeatable\n"
    "  --quiet               print only the runs with an error beyond its tolerance\n"
    "  --transfer-law MODEL.json\n"
    "                        instead: predict the profiles' transfer runs kept for validation (kind\n"
    "                        transfer, use validate: tools/probe/transfer.py) with MODEL.json's transfer law\n"
    "                        (servesim calibrate's) and judge each condition's mean at 10%\n"
    "  --llm-perf PERF_DIR --llm-model CONFIG.json\n"
    "                        instead: replay the measured vLLM run in the one folder given (requests.jsonl,\n"
    "                        meta.json) on the simulated LLM engine of its settings, its steps timed by the\n"
    "                        per-operator profile in PERF_DIR for the model of CONFIG.json (a Hugging Face\n"
    "                        config); name the settings that differ, then judge the mean and p90 of TTFT, TPOT\n"
    "                        and E2E at 10% (docs/llm.md)\n"
    "  --llm-roofline GPU.json --llm-model CONFIG.json\n"
    "                        the same with the roofline step-time model: the model's shape and the GPU's\n"
    "                        datasheet throughput and bandwidth (models/llm/*.json), estimated\n"
    "  --llm-scenario S.yaml the same for the engine scenario S.yaml describes (its llm: section, or its first\n"
    "                        model with llm: on its first GPU): its model, step-time model and settings, each\n"
    "                        setting that differs from the run's named first\n"
    "  --intervals N         with a per-operator profile: a 95% interval beside each simulated figure, over N\n"
    "                        replays with the profile's times moved by its own interpolation error (leave-one-\n"
    "                        out residuals, docs/llm.md \"Intervals\"); default 100, 0 for none\n"
    "  --means               judge the mean of the runs that repeat one condition (the same scenario\n"
    "                        and conditions but background_cores: the probe's --passes) instead of\n"
    "                        each run; the table and the CSV give each condition's runs and spread\n"
    "\n"
    "For every end-to-end run of the profiles (docs/profiles.md), runs the scenario that stands\n"
    "for it (its validation: section names the model and what each condition sets) under the\n"
    "run's conditions, over every replication, and prints measured vs simulated throughput,\n"
    "mean, p50 and p99 latency and requests with the relative error (simulated - measured) /\n"
    "measured.  Tolerances (validation.tolerance): throughput and mean latency 10% below\n"
    "saturation, 15% at saturation, 10% closed loop; the rest reported, not judged.  A poisson\n"
    "run is at saturation when its throughput is more than 5% below its offered load (the\n"
    "arrivals inside its window, when it records them), or it is the highest of two or more\n"
    "rates of its transport (validation.saturation).  Throughput is counted as a load generator\n"
    "counts it: the completions inside the window over its length.  See\n"
    "docs/validation.md.\n"
    "Exit 0 all within tolerance, 1 an error beyond its tolerance, 2 bad input.\n";

static const char *const regime_names[] = {"below_saturation", "at_saturation", "closed"};

static char *describe(const ss_val_result *r)
{
    const ss_hwp_run *c = r->run;
    char *s;
    if (c->clients)
        s = ss_xasprintf("%s%sclosed %u client%s", c->transport ? c->transport : "", c->transport ? " " : "",
                         c->clients, c->clients == 1 ? "" : "s");
    else
        s = ss_xasprintf("%s%spoisson %g/s%s%s", c->transport ? c->transport : "", c->transport ? " " : "",
                         c->rate_per_s, c->narrivals ? " replayed" : "", r->saturated ? " (sat.)" : "");
    if (c->batch != 1) {
        char *t = ss_xasprintf("%s, batch %u", s, c->batch);
        free(s);
        s = t;
    }
    return s;
}

/* The table (with means: one row per condition, its runs and measured
 * spread after each judged metric); returns the number of judged errors
 * beyond their tolerance. */
static size_t table(const ss_val_result *res, const ss_val_mean *means, size_t n, int quiet, size_t *judged)
{
    int wid = 3, wc = 10;
    char **cond = ss_xcalloc(n + 1, sizeof *cond);
    size_t bad = 0;
    *judged = 0;
    for (size_t i = 0; i < n; i++) {
        cond[i] = describe(&res[i]);
        if ((int)strlen(res[i].run->id) > wid) wid = (int)strlen(res[i].run->id);
        if ((int)strlen(cond[i]) > wc) wc = (int)strlen(cond[i]);
    }
    if (!quiet)
        printf("%-*s  %-*s  %-16s %12s %12s %9s %5s\n", wid, "run", wc, "conditions", "metric", "measured", "simulated",
               "error", "tol");
    for (size_t i = 0; i < n; i++) {
        const ss_val_result *r = &res[i];
        int row_bad = 0;
        for (int m = 0; m < SS_VAL_NMETRICS; m++) {
            row_bad |= ss_val_failed(r, (ss_val_metric)m);
            *judged += !isnan(r->tol[m]);
        }
        for (int m = 0; m < SS_VAL_NMETRICS && (!quiet || row_bad); m++) {
            char tol[16] = "-";
            if (!isnan(r->tol[m])) snprintf(tol, sizeof tol, "%g%%", 100 * r->tol[m]);
            int fail = ss_val_failed(r, (ss_val_metric)m);
            bad += fail;
            printf("%-*s  %-*s  %-16s %12.6g %12.6g %+8.2f%% %5s%s", wid, m ? "" : r->run->id, wc, m ? "" : cond[i],
                   ss_val_metric_name((ss_val_metric)m), r->measured[m], r->simulated[m], 100 * r->rel_error[m], tol,
                   isnan(r->tol[m]) ? "" : fail ? "  FAIL" : "  ok");
            if (means && !isnan(r->tol[m]))
                printf("  (mean of %zu run%s, spread %.1f%%)", means[i].nruns, means[i].nruns == 1 ? "" : "s",
                       100 * means[i].spread[m]);
            putchar('\n');
        }
        free(cond[i]);
    }
    free(cond);
    return bad;
}

/* One row per (run, metric); with means, per (condition, metric), the run
 * its first, with two more columns: runs, measured_spread. */
static void csv(FILE *f, const ss_val_result *res, const ss_val_mean *means, size_t n)
{
    fputs("profile,run,scenario,model,transport,arrival,rate_per_s,clients,batch,placement,duration_s,warmup_s,"
          "regime,metric,measured,simulated,rel_error,tolerance,pass",
          f);
    fputs(means ? ",runs,measured_spread\n" : "\n", f);
    for (size_t i = 0; i < n; i++) {
        const ss_val_result *r = &res[i];
        const ss_hwp_run *c = r->run;
        for (int m = 0; m < SS_VAL_NMETRICS; m++) {
            const char *fields[] = {r->profile->path, c->id, r->scenario, c->model, c->transport ? c->transport : "",
                                    c->arrival};
            for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
                ss_csv_field(f, fields[k]);
                fputc(',', f);
            }
            if (c->clients) fprintf(f, ",%u,", c->clients);
            else fprintf(f, "%.9g,,", c->rate_per_s);
            fprintf(f, "%u,", c->batch);
            ss_csv_field(f, c->placement ? c->placement : "");
            fprintf(f, ",%.9g,%.9g,%s,%s,%.9g,%.9g,%.9g,", c->duration_s, c->warmup_s, regime_names[r->regime],
                    ss_val_metric_name((ss_val_metric)m), r->measured[m], r->simulated[m], r->rel_error[m]);
            if (isnan(r->tol[m])) fputs(",", f);
            else fprintf(f, "%.9g,%s", r->tol[m], ss_val_failed(r, (ss_val_metric)m) ? "no" : "yes");
            if (means) fprintf(f, ",%zu,%.9g", means[i].nruns, means[i].spread[m]);
            fputc('\n', f);
        }
    }
}

int ss_cmd_validate(int argc, char **argv)
{
    const char *output = NULL, *law = NULL, *llm_perf = NULL, *llm_model = NULL, *llm_roof = NULL, *llm_sc = NULL;
    unsigned long long reps = 100;
    const char **files = ss_xcalloc((size_t)argc + 1, sizeof *files);
    char **sets = ss_xcalloc((size_t)argc + 1, sizeof *sets);
    size_t nfiles = 0, nsets = 0;
    int quiet = 0, by_means = 0, rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            free(files);
            free(sets);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--set") == 0 ||
                   strcmp(a, "--transfer-law") == 0 || strcmp(a, "--llm-perf") == 0 || strcmp(a, "--llm-model") == 0 ||
                   strcmp(a, "--llm-roofline") == 0 || strcmp(a, "--llm-scenario") == 0 ||
                   strcmp(a, "--intervals") == 0) {
            int is_set = strcmp(a, "--set") == 0;
            if (!val || !val[0]) rc = ss_bad_usage("validate", "%s needs a value", a);
            else if (is_set) sets[nsets++] = argv[++i];
            else if (strcmp(a, "--transfer-law") == 0) law = argv[++i];
            else if (strcmp(a, "--llm-perf") == 0) llm_perf = argv[++i];
            else if (strcmp(a, "--llm-model") == 0) llm_model = argv[++i];
            else if (strcmp(a, "--llm-roofline") == 0) llm_roof = argv[++i];
            else if (strcmp(a, "--llm-scenario") == 0) llm_sc = argv[++i];
            else if (strcmp(a, "--intervals") == 0) {
                char *end;
                errno = 0;
                reps = strtoull(argv[++i], &end, 10);
                if (*end || end == argv[i] || errno || reps > 100000 || argv[i][0] == '-')
                    rc = ss_bad_usage("validate", "--intervals: expected a whole number from 0 to 100000, got '%s'",
                                      argv[i]);
            }
            else output = argv[++i];
        } else if (strncmp(a, "--set=", 6) == 0) {
            sets[nsets++] = argv[i] + 6;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--means") == 0) {
            by_means = 1;
        } else if (a[0] == '-' && a[1]) {
            rc = ss_bad_usage("validate", "unknown option '%s'", a);
        } else {
            files[nfiles++] = a;
        }
    }
    if (rc == 0 && nfiles == 0) rc = ss_bad_usage("validate", "%s", "missing SCENARIO.yaml and PROFILE.json");
    if (rc == 0 && law && (nsets || by_means))
        rc = ss_bad_usage("validate", "%s", "--transfer-law takes profiles only (no --set, no --means)");
    if (rc == 0 && llm_sc && (llm_perf || llm_roof || llm_model))
        rc = ss_bad_usage("validate", "%s", "--llm-scenario names the engine: no --llm-perf, --llm-roofline or "
                                            "--llm-model beside it");
    if (rc == 0 && llm_sc && (nsets || by_means || law || nfiles != 1))
        rc = ss_bad_usage("validate", "%s", "--llm-scenario takes one measured run's folder (no --set, --means or "
                                            "--transfer-law)");
    if (rc == 0 && llm_sc) {
        rc = ss_val_llm(files[0], NULL, NULL, NULL, llm_sc, (uint32_t)reps, output, quiet);
        free(files);
        free(sets);
        return rc;
    }
    if (rc == 0 && llm_perf && llm_roof)
        rc = ss_bad_usage("validate", "%s", "--llm-perf or --llm-roofline: one step-time model");
    if (rc == 0 && (llm_perf || llm_roof || llm_model) && (!(llm_perf || llm_roof) || !llm_model))
        rc = ss_bad_usage("validate", "%s", "--llm-model goes with --llm-perf or --llm-roofline");
    if (rc == 0 && llm_model && (nsets || by_means || law || nfiles != 1))
        rc = ss_bad_usage("validate", "%s", "--llm-perf and --llm-roofline take one measured run's folder (no "
                                            "--set, --means or --transfer-law)");
    if (rc == 0 && llm_model) {
        rc = ss_val_llm(files[0], llm_perf, llm_roof, llm_model, NULL, (uint32_t)reps, output, quiet);
        free(files);
        free(sets);
        return rc;
    }
    if (rc == 0 && law) {
        rc = ss_val_transfer(files, nfiles, law, output, quiet);
        free(files);
        free(sets);
        return rc;
    }
    if (rc) {
        free(files);
        free(sets);
        return rc;
    }
    ss_err err = {0};
    ss_val_session *s = ss_val_open(files, nfiles, sets, nsets, &err);
    const char *const *ins, *const *in_what;
    static const char *const out_what[] = {"validation CSV"};
    const ss_val_result *res = NULL;
    size_t n = 0;
    ss_afile f = {0};
    ss_val_mean *means = NULL; /* --means: the conditions, and their rows for the table and the CSV */
    ss_val_result *rows = NULL;
    int open = 0;
    rc = 2;
    if (!s) goto out;
    size_t nin = ss_val_inputs(s, &ins, &in_what);
    if (output && (ss_check_outputs(ins, in_what, nin, &output, out_what, 1, &err) < 0 ||
                   ss_afile_open(&f, output, &err) < 0))
        goto out;
    open = output != NULL;
    rc = 1;
    if (ss_val_run(s, &res, &n, &err) < 0) goto out;
    size_t np, ns, judged;
    ss_val_counts(s, &np, &ns);
    if (!quiet)
        printf("validate: %zu run%s of %zu profile%s against %zu scenario%s\n", n, n == 1 ? "" : "s", np,
               np == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
    size_t nrows = n, single_bad = 0;
    if (by_means) {
        for (size_t i = 0; i < n; i++)
            for (int m = 0; m < SS_VAL_NMETRICS; m++) single_bad += ss_val_failed(&res[i], (ss_val_metric)m);
        nrows = ss_val_means(res, n, &means);
        rows = ss_xcalloc(nrows + 1, sizeof *rows);
        for (size_t k = 0; k < nrows; k++) rows[k] = means[k].r;
    }
    size_t bad = table(by_means ? rows : res, means, nrows, quiet, &judged);
    if (open) {
        csv(f.fp, by_means ? rows : res, means, nrows);
        open = 0;
        if (ss_afile_commit(&f, &err) < 0) goto out;
    }
    if (by_means && (!quiet || bad))
        printf("validate: means of %zu condition%s from %zu runs: %zu of %zu judged errors beyond their tolerance "
               "(single runs: %zu)%s%s\n",
               nrows, nrows == 1 ? "" : "s", n, bad, judged, single_bad, output ? " -> " : "", output ? output : "");
    else if (!quiet || bad)
        printf("validate: %zu of %zu judged errors beyond their tolerance%s%s\n", bad, judged,
               output ? " -> " : "", output ? output : "");
    rc = bad ? 1 : 0;
out:
    free(rows);
    free(means);
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    if (open) ss_afile_abort(&f);
    ss_val_close(s);
    free(files);
    free(sets);
    return rc;
}
