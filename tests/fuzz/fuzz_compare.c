/* fuzz_compare.c: libFuzzer harness for `servesim compare` (sim/cmd/
 * compare.c: ss_compare_read, ss_compare_write): the input is a results CSV.
 * The options come from the input, as a person would pick them: --by the
 * first column whose name holds "polic" or is "variant" (else the first),
 * --baseline that column's value in the first row, --metric
 * latency_mean_ms (else the last column), --model all or '*' and the
 * statistic by the input's size.  What compare writes with --csv must be a
 * CSV whose rows all have its header's fields; a refusal must say why (in
 * err or on the diagnostics stream).  Seeds: tests/fuzz/compare/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/compare.h"
#include "core/csvread.h"
#include "fuzz.h"

/* The options a person would give for this file (pointing into `in`, or
 * the defaults where it has no header or row). */
static void pick(const ss_csv *in, const char **by, const char **baseline, const char **metric)
{
    *by = "policy";
    *baseline = "baseline";
    *metric = "latency_mean_ms";
    if (in->nrows == 0 || in->rows[0].n == 0) return;
    const ss_csv_row *h = &in->rows[0];
    size_t b = 0;
    for (size_t k = h->n; k-- > 0;)
        if (strstr(h->f[k], "polic") || strcmp(h->f[k], "variant") == 0) b = k;
    *by = h->f[b];
    if (in->nrows > 1 && in->rows[1].n > b) *baseline = in->rows[1].f[b];
    if (ss_csv_col(h, *metric) < 0) *metric = h->f[h->n - 1];
}

static void check_output(const char *text, size_t len)
{
    char *path = fuzz_write("compare.csv", (const uint8_t *)text, len);
    ss_csv out;
    ss_err err = {0};
    if (ss_csv_read_whole(path, &out, &err) < 0) {
        fprintf(stderr, "fuzz: compare's CSV does not read back: %s\n", err.msg);
        abort();
    }
    for (size_t i = 1; i < out.nrows; i++)
        if (out.rows[i].n != out.rows[0].n) {
            fprintf(stderr, "fuzz: compare's CSV line %d has %zu fields, its header %zu\n", out.rows[i].line,
                    out.rows[i].n, out.rows[0].n);
            abort();
        }
    ss_csv_free(&out);
    free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("results.csv", data, size);
    ss_csv in = {0};
    ss_err err = {0};
    int readable = ss_csv_read(path, &in, &err) == 0;
    const char *by, *baseline, *metric;
    pick(&in, &by, &baseline, &metric);
    /* copies: `in` goes before compare runs */
    char *by_c = ss_xstrdup(by), *base_c = ss_xstrdup(baseline), *metric_c = ss_xstrdup(metric);
    if (readable) ss_csv_free(&in);
    err = (ss_err){0};
    const char *metrics[] = {metric_c};
    ss_compare *c = ss_compare_read(path, by_c, metrics, 1, &err);
    fuzz_check(c ? 0 : -1, &err);
    if (c) {
        char *text = NULL, *diag = NULL;
        size_t len = 0, dlen = 0;
        FILE *fp = ss_xmemstream(&text, &len), *dp = ss_xmemstream(&diag, &dlen);
        int rc = ss_compare_write(c, base_c, size % 2 ? "*" : "all", (int)(size % 3), 1, fp, dp, &err);
        fclose(fp);
        fclose(dp);
        if (rc != 0 && !err.set && dlen == 0) {
            fputs("fuzz: compare refused the input without a message\n", stderr);
            abort();
        }
        if (rc == 0) check_output(text, len);
        free(text);
        free(diag);
        ss_compare_free(c);
    }
    free(by_c);
    free(base_c);
    free(metric_c);
    free(path);
    return 0;
}
