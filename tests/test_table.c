/* test_table.c: the printed table (issue 12 item 13): an edge scenario
 * shows its workers' utilisation (not 0.0%), columns stay aligned when a
 * half-width reaches 100, and variants with their own replication counts
 * are not summarised by the first one's.  With an autoscaler (issue 39) it
 * shows end-to-end latency in seconds, cold starts, their mean duration and
 * replica-seconds, the results CSV's numbers, the models' summed in "all". */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvread.h"

/* Display width of a line (UTF-8 continuation bytes do not count). */
static size_t width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static void table(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && t=$(mktemp -d) && '%s/servesim' run scenarios/masa/fig4.yaml -o \"$t/r.csv\" 2>&1 "
                               "| tail -1; rm -rf \"$t\"",
                               SS_SRC_DIR, SS_BUILD_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "62.5%"));
    free(out);
    char *dir = ss_test_tmpdir();
    ss_test_sh(NULL,
               "cd '%s' && cp '%s/scenarios/tour/load-balancers.yaml' s.yaml && mkdir models && cp '%s/models/resnet50.json' models/ && "
               "sed -i 's/  - {name: random, set: {policies.load_balancer: random}}/"
               "  - {name: random, set: {policies.load_balancer: random, replications: 2}}/' s.yaml",
               dir, SS_SRC_DIR, SS_SRC_DIR);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --set duration_s=10 --set warmup_s=1 "
                                     "--set workloads.images.rate_rps=335",
                               dir, SS_BUILD_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "3 variants with their own replications"));
    CU_ASSERT(ss_test_has(out, "(replications differ between variants;"));
    /* every row of the table as wide as the header, wide half-widths included */
    const char *hdr = strstr(out ? out : "", "variant ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
    size_t w = width(hdr, strcspn(hdr, "\n"));
    int rows = 0, wide = 0;
    for (const char *l = strchr(hdr, '\n') + 1; *l && *l != '('; l = strchr(l, '\n') + 1) {
        size_t len = strcspn(l, "\n");
        CU_ASSERT_EQUAL(width(l, len), w);
        rows++;
        for (const char *p = l; p < l + len && (p = strstr(p, "\xc2\xb1")); p += 2) wide |= p[2] != ' ' && atof(p + 2) >= 100;
        if (!l[len]) break;
    }
    CU_ASSERT_EQUAL(rows, 3);
    CU_ASSERT(wide); /* the case that used to shift the columns is there */
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* Field k (0-based, split on blanks) of the table row that starts with
 * "variant model ", as a number; NAN if there is no such row or field. */
static double cell(const char *out, const char *variant, const char *model, int k)
{
    char lead[64];
    snprintf(lead, sizeof lead, "\n%-16s %-16s ", variant, model);
    const char *p = out ? strstr(out, lead) : NULL;
    if (!p) return NAN;
    p++;
    size_t len = strcspn(p, "\n");
    char *line = strndup(p, len), *save = NULL;
    double v = NAN;
    int i = 0;
    for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save), i++)
        if (i == k) v = strcmp(t, "-") == 0 ? NAN : atof(t);
    free(line);
    return v;
}

/* CSV column `col` of the row of (variant, model), or NAN. */
static double csv_value(const ss_csv *csv, const char *variant, const char *model, const char *col)
{
    long cv = ss_csv_col(&csv->rows[0], "variant"), cm = ss_csv_col(&csv->rows[0], "model"),
         cc = ss_csv_col(&csv->rows[0], col);
    for (size_t r = 1; cc >= 0 && r < csv->nrows; r++)
        if (strcmp(csv->rows[r].f[cv], variant) == 0 && strcmp(csv->rows[r].f[cm], model) == 0)
            return atof(csv->rows[r].f[cc]);
    return NAN;
}

static void autoscaled(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run '%s/scenarios/default.yaml' -o r.csv "
                                     "--timeseries-csv ts.csv --set duration_s=600 --set replications=1",
                               dir, SS_BUILD_DIR, SS_SRC_DIR),
                    0);
    const char *hdr = strstr(out ? out : "", "variant ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
    size_t w = width(hdr, strcspn(hdr, "\n"));
    int rows = 0;
    for (const char *l = strchr(hdr, '\n') + 1; *l && *l != '('; l = strchr(l, '\n') + 1) {
        CU_ASSERT_EQUAL(width(l, strcspn(l, "\n")), w);
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 12); /* 4 variants x (2 models + all) */
    char path[1024];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    ss_csv csv;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(path, &csv, &err), 0);
    /* fields: variant model completed dropped tput/s e2e-mean e2e-p99 cold-starts cold-mean replica-s util */
    static const char *const variants[] = {"baseline", "locality", "multicast", "flashpoint"};
    static const char *const models[] = {"gpt2-xl", "t5-3b"};
    for (size_t v = 0; v < 4; v++) {
        double colds = 0, cold_s = 0, rs = 0;
        for (size_t m = 0; m < 2; m++) {
            const char *var = variants[v], *mod = models[m];
            char col[64];
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 5), csv_value(&csv, var, mod, "latency_mean_ms") / 1e3, 6e-4);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 6), csv_value(&csv, var, mod, "latency_p99_ms") / 1e3, 6e-4);
            snprintf(col, sizeof col, "coldstarts_%s", mod);
            double n = csv_value(&csv, var, mod, col);
            CU_ASSERT(n > 0);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 7), n, 1e-9);
            snprintf(col, sizeof col, "coldstart_mean_s_%s", mod);
            double mean = csv_value(&csv, var, mod, col);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 8), mean, 0.051);
            snprintf(col, sizeof col, "instance_s_%s", mod);
            double r = csv_value(&csv, var, mod, col);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 9), r, 0.51);
            colds += n, cold_s += n * mean, rs += r;
        }
        CU_ASSERT_DOUBLE_EQUAL(cell(out, variants[v], "all", 7), colds, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, variants[v], "all", 8), cold_s / colds, 0.051);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, variants[v], "all", 9), rs, 0.51);
    }
    /* locality and multicast cold-start faster than the baseline on the same arrivals */
    CU_ASSERT(cell(out, "locality", "all", 8) < cell(out, "baseline", "all", 8));
    CU_ASSERT(cell(out, "multicast", "all", 8) < cell(out, "baseline", "all", 8));
    ss_csv_free(&csv);
    free(out);
    /* an autoscaler without placement: its replicas start after startup_s, no cold-start columns: "-" */
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run '%s/scenarios/substrate/autoscale.yaml' -o a.csv "
                                     "--variant atl --set replications=1",
                               dir, SS_BUILD_DIR, SS_SRC_DIR),
                    0);
    CU_ASSERT(isnan(cell(out, "atl", "resnet50", 7)) && isnan(cell(out, "atl", "resnet50", 8)));
    CU_ASSERT(cell(out, "atl", "resnet50", 9) > 0);
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("table", {"edge utilisation, aligned columns, per-variant replications", table},
              {"autoscaled: e2e latency, cold starts and replica-seconds, as the CSV has them", autoscaled})
