/* test_columns.c: the table of CSV columns (sim/core/columns.c): labels and
 * units as an axis prints them, families, the fallback on unit suffixes,
 * and that every column the shipped scenarios' runs write - results, time
 * series, requests and cold starts - has its own entry, so a new column
 * cannot reach a plot unlabelled. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "core/columns.h"
#include "core/csvread.h"

static void label_is(ss_csv_kind k, const char *name, const char *want)
{
    char *l = ss_column_label(k, name);
    CU_ASSERT_STRING_EQUAL(l, want);
    if (strcmp(l, want) != 0) fprintf(stderr, "\n  %s: '%s', want '%s'\n", name, l, want);
    free(l);
}

static void labels(void)
{
    label_is(SS_CSV_RESULTS, "latency_p99_ms", "p99 latency (ms)");
    label_is(SS_CSV_RESULTS, "throughput_rps", "throughput (requests/s)");
    label_is(SS_CSV_RESULTS, "wait_prob", "share of requests that waited");
    label_is(SS_CSV_RESULTS, "instance_s_resnet50", "replica-seconds of resnet50 (replica-s)");
    label_is(SS_CSV_RESULTS, "coldstarts_gpu_t5-3b", "cold starts of t5-3b on a GPU that held it");
    label_is(SS_CSV_RESULTS, "coldstarts_t5-3b", "cold starts of t5-3b");
    label_is(SS_CSV_RESULTS, "util_gpu-host/gpu0", "utilisation of gpu-host/gpu0");
    label_is(SS_CSV_RESULTS, "workloads.images.rate_rps", "offered load of images (requests/s)");
    label_is(SS_CSV_RESULTS, "policies.load_balancer", "load balancer");
    /* no entry: words from the name, the unit from its suffix, the path after */
    label_is(SS_CSV_RESULTS, "autoscaling.policy.headroom", "headroom, autoscaling.policy");
    label_is(SS_CSV_RESULTS, "workloads.w.think_ms", "think, workloads.w (ms)");
    label_is(SS_CSV_RESULTS, "gpu_busy_mib", "gpu busy (MiB)");
    /* the same name means what its file says */
    label_is(SS_CSV_TIMESERIES, "starting", "replicas cold-starting");
    label_is(SS_CSV_TIMESERIES, "t_s", "simulated time (s)");
    label_is(SS_CSV_COLDSTARTS, "duration_s", "cold-start duration (s)");
    label_is(SS_CSV_RESULTS, "duration_s", "run length (s)");
    CU_ASSERT_STRING_EQUAL(ss_column_unit(SS_CSV_REQUESTS, "latency_ms"), "ms");
    char *star = NULL;
    const ss_column *c = ss_column_find(SS_CSV_RESULTS, "coldstart_mean_s_gpt2-xl", &star);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->name, "coldstart_mean_s_*");
    CU_ASSERT_STRING_EQUAL(star, "gpt2-xl");
    free(star);
    CU_ASSERT_PTR_NULL(ss_column_find(SS_CSV_RESULTS, "instance_s_", NULL)); /* a family's '*' matches something */
    CU_ASSERT_PTR_NULL(ss_column_find(SS_CSV_TIMESERIES, "latency_mean_ms", NULL));
}

/* Every family has one %s in its label, and no exact name comes twice in a
 * file with the same groups. */
static void table_sound(void)
{
    for (int k = 0; k < SS_CSV_NKINDS; k++) {
        size_t n;
        const ss_column *c = ss_columns((ss_csv_kind)k, &n);
        for (size_t i = 0; i < n; i++) {
            const char *s = strstr(c[i].label, "%s");
            CU_ASSERT_EQUAL(strchr(c[i].name, '*') != NULL, s != NULL);
            if (s) CU_ASSERT_PTR_NULL(strstr(s + 2, "%"));
            for (size_t j = 0; j < i; j++)
                CU_ASSERT(strcmp(c[i].name, c[j].name) != 0 || !(c[i].groups & c[j].groups));
        }
    }
}

/* Each column of a CSV's header has an entry of its own in the table (but a
 * results CSV's settings, which are any key a variant or --set names: those
 * are labelled from their unit suffix). */
static void all_known(const char *path, ss_csv_kind kind)
{
    ss_csv csv;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(path, &csv, &err), 0);
    CU_ASSERT_FATAL(csv.nrows > 0);
    long seed = ss_csv_col(&csv.rows[0], "seed"), model = ss_csv_col(&csv.rows[0], "model");
    for (size_t i = 0; i < csv.rows[0].n; i++) {
        const char *col = csv.rows[0].f[i];
        if (kind == SS_CSV_RESULTS && (long)i > seed && (long)i < model) continue; /* the settings: any key path */
        const char *ci = strstr(col, "_ci95");
        char *base = ci && ci[5] == '\0' ? strndup(col, (size_t)(ci - col)) : strdup(col); /* a summary's */
        int known = ss_column_find(kind, base, NULL) != NULL;
        CU_ASSERT(known);
        if (!known) fprintf(stderr, "\n  %s: column '%s' has no entry in sim/core/columns.c (%s)\n", path, col,
                            ss_csv_kind_name(kind));
        free(base);
    }
    ss_csv_free(&csv);
}

static void runs_write_known_columns(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && S='%s/scenarios' && "
                        "'%s' run $S/substrate/autoscale.yaml --set replications=2 --set duration_s=30 --quiet "
                        "-o as.csv --timeseries-csv as-ts.csv --requests-csv as-req.csv && "
                        "'%s' run $S/flashpoint/t5-atl.yaml --variant lc-mc --set replications=1 --set duration_s=120 --set warmup_s=10 "
                        "--quiet -o fp.csv --coldstarts-csv fp-cold.csv && "
                        "'%s' run $S/roma/pair-i.yaml --set replications=1 --quiet -o roma.csv --timeseries-csv roma-ts.csv",
                        dir, SS_SRC_DIR, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    static const struct {
        const char *file;
        ss_csv_kind kind;
    } files[] = {{"as.csv", SS_CSV_RESULTS},       {"as.summary.csv", SS_CSV_RESULTS}, {"as-ts.csv", SS_CSV_TIMESERIES},
                 {"as-req.csv", SS_CSV_REQUESTS},  {"fp.csv", SS_CSV_RESULTS},         {"fp-cold.csv", SS_CSV_COLDSTARTS},
                 {"roma.csv", SS_CSV_RESULTS},     {"roma-ts.csv", SS_CSV_TIMESERIES}};
    for (size_t i = 0; rc == 0 && i < sizeof files / sizeof *files; i++) {
        char *p = ss_xasprintf("%s/%s", dir, files[i].file);
        all_known(p, files[i].kind);
        free(p);
    }
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("columns", {"labels and units, families, suffixes", labels}, {"the table is sound", table_sound},
              {"every column the runs write has an entry", runs_write_known_columns})
