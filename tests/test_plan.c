/* test_plan.c: `servesim plan` (sim/cmd/plan.c) - the BlockFlow VRAM tables
 * (thesis Tables 4.5-4.6) reproduced by the shipped plan, cell by cell;
 * agreement with the independent Python reference (tools/blockflow_vram.py,
 * its output committed as results/reference/blockflow-vram-model.csv); a
 * hand-computed small plan (derived fused figure, traditional count, first
 * fit decreasing GPU count); bad input positioned at file:line:col. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvread.h"

#define PLAN SS_SRC_DIR "/scenarios/blockflow/plan-vram.yaml"

static ss_csv run_plan(const char *plan, const char *dir)
{
    ss_csv csv = {0};
    ss_err err = {0};
    char *out = NULL;
    int rc = ss_test_sh(&out, "%s plan %s -o %s/plan.csv --quiet", SS_BIN, plan, dir);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0) fprintf(stderr, "%s\n", out ? out : "");
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/plan.csv", dir);
    CU_ASSERT_EQUAL(ss_csv_read(path, &csv, &err), 0);
    return csv;
}

static const char *field(const ss_csv *c, size_t r, const char *col)
{
    long k = ss_csv_col(&c->rows[0], col);
    CU_ASSERT_FATAL(k >= 0);
    return c->rows[r].f[k];
}

/* The cells the thesis prints wrongly (docs/blockflow.md): a typo, a wrong
 * value, a typo.  Every other cell must agree to the table's rounding
 * (0.5 MiB), except scenario 5, which the thesis computed with 99 tasks
 * (1/4/94) instead of Table 4.4's 1/4/95: one class-C process short,
 * under 1% of the cell. */
static int thesis_error(const char *model, const char *sc, const char *col)
{
    return (!strcmp(model, "resnet50") && !strcmp(sc, "3") && !strcmp(col, "mod_mb")) ||
           (!strcmp(model, "resnet152") && !strcmp(sc, "2") && !strcmp(col, "mod_mb")) ||
           (!strcmp(model, "resnet152") && !strcmp(sc, "8") && !strcmp(col, "mod_b12_mb"));
}

static void test_thesis_tables(void)
{
    char *dir = ss_test_tmpdir();
    ss_csv got = run_plan(PLAN, dir), want = {0};
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(SS_SRC_DIR "/results/reference/blockflow-vram-thesis.csv", &want, &err), 0);
    CU_ASSERT_EQUAL_FATAL(got.nrows, 1 + 4 * (want.nrows - 1));
    static const char *const deps[] = {"mod", "mod_b12", "mod_b12_b34", "trad"};
    size_t cells = 0, exact = 0, wrong = 0;
    double worst = 0;
    for (size_t r = 1; r < want.nrows; r++) {
        const char *model = field(&want, r, "model"), *sc = field(&want, r, "scenario");
        for (size_t d = 0; d < 4; d++) {
            size_t g = 1 + 4 * (r - 1) + d;
            CU_ASSERT_STRING_EQUAL(field(&got, g, "model"), model);
            CU_ASSERT_STRING_EQUAL(field(&got, g, "scenario"), sc);
            CU_ASSERT_STRING_EQUAL(field(&got, g, "deployment"), deps[d]);
            char col[32];
            snprintf(col, sizeof col, "%s_mb", deps[d]);
            double tv = atof(field(&want, r, col)), mv = atof(field(&got, g, "vram_mib"));
            double rel = fabs(mv - tv) / tv;
            cells++;
            if (thesis_error(model, sc, col)) {
                wrong++;
                CU_ASSERT(fabs(mv - tv) > 5); /* the model does not reproduce the misprint */
                continue;
            }
            if (rel > worst) worst = rel;
            CU_ASSERT(rel <= 0.015); /* the bar: 1.5% per cell */
            if (strcmp(sc, "5") != 0 || d == 3) {
                CU_ASSERT(fabs(mv - tv) <= 0.5); /* the table's own rounding */
                exact += fabs(mv - tv) <= 0.5;
            } else {
                /* one class-C process (477 or 500 MiB) more than the thesis counted */
                double p4 = !strcmp(model, "resnet50") ? 477.0 : 500.0;
                CU_ASSERT(fabs(mv - tv - p4) <= 0.5);
            }
        }
    }
    fprintf(stderr, "[%zu cells: %zu to 0.5 MiB, %zu misprinted in the thesis, worst other %.2f%%] ", cells, exact,
            wrong, 100 * worst);
    CU_ASSERT_EQUAL(wrong, 3);
    ss_csv_free(&got);
    ss_csv_free(&want);
    ss_test_rmtree(dir);
}

/* The Python reference computes the same cells independently; the CSVs
 * must agree field for field (the C file has a GPUs column more). */
static void test_matches_python_reference(void)
{
    char *dir = ss_test_tmpdir();
    ss_csv got = run_plan(PLAN, dir), ref = {0};
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(SS_SRC_DIR "/results/reference/blockflow-vram-model.csv", &ref, &err), 0);
    CU_ASSERT_EQUAL_FATAL(got.nrows, ref.nrows);
    for (size_t r = 0; r < ref.nrows; r++) {
        CU_ASSERT_EQUAL(got.rows[r].n, ref.rows[r].n + 1);
        for (size_t k = 0; k < ref.rows[r].n && k < got.rows[r].n; k++)
            CU_ASSERT_STRING_EQUAL(got.rows[r].f[k], ref.rows[r].f[k]);
    }
    ss_csv_free(&got);
    ss_csv_free(&ref);
    ss_test_rmtree(dir);
}

static const char small_profile[] =
    "{\"process\": {\"context_vram_mib\": 300},\n"
    " \"vram_tables\": {\"process_vram_mib\": {\"b1\": 400, \"b2\": 500, \"b3\": 600, \"full_model\": 1000}}}\n";

static const char small_plan[] =
    "name: small\n"
    "models: [{name: m, profile: m.json}]\n"
    "blocks: [b1, b2, b3]\n"
    "classes: [{name: X, shared_blocks: 0}, {name: Y, shared_blocks: 1}]\n"
    "mixes: [{name: half, percent: {X: 50, Y: 50}}, {name: ys, tasks: {X: 0, Y: 3}}]\n"
    "tasks: 4\n"
    "gpu_vram_mib: 1500\n"
    "deployments:\n"
    "  - {name: split}\n"
    "  - {name: fused, fuse: [{blocks: [b2, b3]}]}\n"
    "  - {name: whole, traditional: true}\n";

static void test_small_plan_by_hand(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "m.json", small_profile));
    char *plan = ss_test_write(dir, "p.yaml", small_plan);
    ss_csv c = run_plan(plan, dir);
    CU_ASSERT_EQUAL_FATAL(c.nrows, 7);
    /* half: 2 X + 2 Y of 4 tasks.  split: shared b1 (400) + 2 x 1000 + 2 x (500 + 600) = 4600, 7 processes.
     * fused: b2+b3 derived as 500 + 600 - 300 = 800: 400 + 2000 + 1600 = 4000, 5 processes.
     * whole: 4 x 1000 = 4000 (the mix's total, no traditional_tasks).  Savings (4000 - 4600) / 4000 = -15%.
     * GPUs of 1500 MiB, first fit decreasing: split 1000,1000,600,600,500,500,400 -> [1000,500] [1000,500]
     * [600,600] [400] = 4; fused 1000,1000,800,800,400 -> [1000,400] [1000] [800] [800] = 4; whole 4.
     * ys: 3 Y.  split 400 + 3 x 1100 = 3700, GPUs [600,600] [600,500,400] [500,500] = 3; fused
     * 400 + 3 x 800 = 2800, [800,400] [800] [800] = 3; whole 3 x 1000, 3 GPUs. */
    static const char *const want[][6] = {
        {"half", "split", "7", "4600.0", "-15.00", "4"},  {"half", "fused", "5", "4000.0", "0.00", "4"},
        {"half", "whole", "4", "4000.0", "", "4"},        {"ys", "split", "7", "3700.0", "-23.33", "3"},
        {"ys", "fused", "4", "2800.0", "6.67", "3"},       {"ys", "whole", "3", "3000.0", "", "3"}};
    for (size_t r = 0; r < 6; r++) {
        CU_ASSERT_STRING_EQUAL(field(&c, r + 1, "scenario"), want[r][0]);
        CU_ASSERT_STRING_EQUAL(field(&c, r + 1, "deployment"), want[r][1]);
        CU_ASSERT_STRING_EQUAL(field(&c, r + 1, "processes"), want[r][2]);
        CU_ASSERT_STRING_EQUAL(field(&c, r + 1, "vram_mib"), want[r][3]);
        CU_ASSERT_STRING_EQUAL(field(&c, r + 1, "savings_pct"), want[r][4]);
        CU_ASSERT_STRING_EQUAL(field(&c, r + 1, "gpus"), want[r][5]);
    }
    CU_ASSERT_STRING_EQUAL(field(&c, 1, "host_ram_mib"), "4900"); /* 7 x 700 */
    ss_csv_free(&c);
    free(plan);
    ss_test_rmtree(dir);
}

/* Each bad plan: exit 2, the message at the right place, no CSV. */
static void bad(const char *dir, const char *text, const char *needle, int line, const char *at)
{
    char *plan = ss_test_write(dir, "bad.yaml", text), *out = NULL;
    int rc = ss_test_sh(&out, "%s plan %s -o %s/bad.csv", SS_BIN, plan, dir);
    CU_ASSERT_EQUAL(rc, 2);
    char pos[64];
    snprintf(pos, sizeof pos, "bad.yaml:%d:%d: ", line, ss_test_col_of(text, line, at));
    CU_ASSERT(out && ss_test_has(out, pos));
    CU_ASSERT(out && ss_test_has(out, needle));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "test -e %s/bad.csv", dir), 1);
    free(plan);
}

static void test_bad_plans(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "m.json", small_profile));
    char text[2048];
    const char *head = "models: [{name: m, profile: m.json}]\nblocks: [b1, b2, b3]\n"
                       "classes: [{name: X, shared_blocks: 0}, {name: Y, shared_blocks: 1}]\n";
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 50, Y: 50}}]\ndeployments:\n"
             "  - {name: f, fuse: [{blocks: [b2, b4]}]}\n  - {name: t, traditional: true}\n", head);
    bad(dir, text, "unknown block 'b4' (did you mean", 6, "b4");
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 50, Y: 50}}]\ndeployments:\n"
             "  - {name: f, fuse: [{blocks: [b1, b3]}]}\n  - {name: t, traditional: true}\n", head);
    bad(dir, text, "'b3' does not follow 'b1'", 6, "b3");
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 70, Y: 50}}]\ndeployments:\n"
             "  - {name: t, traditional: true}\n", head);
    bad(dir, text, "add up to 120, more than 100", 4, "{X");
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 50, Z: 50}}]\ndeployments:\n"
             "  - {name: t, traditional: true}\n", head);
    bad(dir, text, "unknown key 'Z'", 4, "Z:");
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 50, Y: 50}}]\ndeployments:\n"
             "  - {name: f, fuse: [{blocks: [b1, b2], figure: b12}]}\n  - {name: t, traditional: true}\n", head);
    bad(dir, text, "no VRAM figure 'b12'", 1, "m.json");
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 50, Y: 50}}]\ndeployments:\n"
             "  - {name: s}\n", head);
    bad(dir, text, "expected one with traditional: true", 6, "- {name: s}");
    snprintf(text, sizeof text, "%smixes: [{name: a, percent: {X: 50, Y: 50}}]\ndeploymets: []\n", head);
    bad(dir, text, "unknown key 'deploymets' in plan (did you mean 'deployments'?)", 5, "deploymets");
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("plan", {"thesis VRAM tables 4.5-4.6 cell by cell", test_thesis_tables},
              {"same cells as the Python reference", test_matches_python_reference},
              {"a small plan computed by hand", test_small_plan_by_hand}, {"bad plans: exit 2, positioned", test_bad_plans})
