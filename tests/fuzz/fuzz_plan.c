/* fuzz_plan.c: libFuzzer harness for the deployment plan reader
 * (ss_plan_load, sim/cmd/plan.c): the input is a plan YAML file whose
 * models name split profiles from the repository's models/ (as
 * `profile: models/resnet50-split.json`).  A plan that loads is costed as
 * `servesim plan` costs it (ss_plan_csv, ss_plan_print), and its CSV must
 * keep its header's shape: every row as many fields as the header, and
 * vram_mib, host_ram_mib a finite number >= 0 (a process never holds less
 * than no memory).  Seeds: tests/fuzz/plan/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/plan.h"
#include "core/csvread.h"
#include "fuzz.h"

/* Abort unless every row of the CSV at `path` has the header's fields and
 * the named columns hold finite numbers >= 0. */
static void check_csv(const char *path, const char *const *nonneg, size_t nnonneg)
{
    ss_csv csv;
    ss_err err = {0};
    if (ss_csv_read_whole(path, &csv, &err) < 0 || csv.nrows < 2) {
        fprintf(stderr, "fuzz: the plan's CSV does not read back: %s\n", err.msg);
        abort();
    }
    const ss_csv_row *h = &csv.rows[0];
    for (size_t i = 1; i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        if (r->n != h->n) {
            fprintf(stderr, "fuzz: CSV line %d has %zu fields, the header %zu\n", r->line, r->n, h->n);
            abort();
        }
        for (size_t k = 0; k < nnonneg; k++) {
            long c = ss_csv_col(h, nonneg[k]);
            char *end;
            double v = c < 0 ? NAN : ss_strtod(r->f[c], &end);
            if (c < 0 || *end || !isfinite(v) || v < 0) {
                fprintf(stderr, "fuzz: CSV line %d: %s '%s' is not a finite number >= 0\n", r->line, nonneg[k],
                        c < 0 ? "(missing)" : r->f[c]);
                abort();
            }
        }
    }
    ss_csv_free(&csv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const nonneg[] = {"processes", "vram_mib", "host_ram_mib"};
    char *path = fuzz_write("plan.yaml", data, size);
    ss_err err = {0};
    ss_plan *p = ss_plan_load(path, NULL, 0, &err);
    fuzz_check(p ? 0 : -1, &err);
    if (p) {
        char *text = NULL;
        size_t len = 0;
        FILE *fp = ss_xmemstream(&text, &len);
        ss_plan_csv(p, fp);
        fclose(fp);
        char *csv = fuzz_write("plan.csv", (const uint8_t *)text, len);
        check_csv(csv, nonneg, sizeof nonneg / sizeof *nonneg);
        free(csv);
        free(text);
        fp = ss_xmemstream(&text, &len);
        ss_plan_print(p, fp);
        fclose(fp);
        free(text);
    }
    ss_plan_free(p);
    free(path);
    return 0;
}
