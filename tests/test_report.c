/* test_report.c: the results CSV's run-level extra columns (ss_extra):
 * union of names across runs in first-seen order, empty cells where a run
 * has no value, declared columns present before any run, and their mean
 * and 95% half-width in the replication summary. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/report.h"

static ss_scenario scenario(void)
{
    ss_scenario sc = {0};
    sc.name = "s";
    sc.variant = "";
    return sc;
}

static ss_run_result result(uint32_t rep, double energy_j, int with_vram)
{
    ss_run_result r = {0};
    r.replication = rep;
    r.seed = 7;
    r.ntasks = 1;
    r.tasks = calloc(1, sizeof *r.tasks);
    r.tasks[0].name = strdup("all");
    r.tasks[0].completed = 10;
    ss_run_result_extra(&r, "energy_j", energy_j);
    if (with_vram) ss_run_result_extra(&r, "vram_peak_mib", 512.5);
    return r;
}

static char *text_of(const ss_report *rep, int summary)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (summary) ss_report_summary_csv(rep, fp);
    else ss_report_csv(rep, fp);
    fclose(fp);
    return buf;
}

static void test_extra_columns_rows(void)
{
    ss_scenario sc = scenario();
    ss_report *rep = ss_report_new();
    ss_run_result a = result(0, 2.0, 0), b = result(1, 4.0, 1);
    ss_report_add(rep, &sc, &a);
    ss_report_add(rep, &sc, &b);
    char *csv = text_of(rep, 0);
    /* Header ends with the union, in first-seen order; run 0 has no vram cell. */
    CU_ASSERT(ss_test_has(csv, ",latency_max_ms,queue_mean_ms,queue_p99_ms,wait_prob,energy_j,vram_peak_mib\n"));
    CU_ASSERT(ss_test_has(csv, ",2.000000,\n"));
    CU_ASSERT(ss_test_has(csv, ",4.000000,512.500000\n"));
    free(csv);
    /* Summary: mean 3 of (2, 4), half-width t(0.975, 1) * sd / sqrt 2 = 12.7062 * 1.41421 / 1.41421. */
    char *sum = text_of(rep, 1);
    CU_ASSERT(ss_test_has(sum, ",energy_j,energy_j_ci95,vram_peak_mib,vram_peak_mib_ci95\n"));
    CU_ASSERT(ss_test_has(sum, ",3.000000,12.706205,512.500000,\n"));
    free(sum);
    ss_report_free(rep);
}

static void test_extra_columns_declared(void)
{
    ss_report *layout = ss_report_new();
    const char *cols[] = {"energy_j", "overhead_ms_block1"};
    ss_report_declare_extras(layout, cols, 2);
    ss_report *rep = ss_report_new_like(layout);
    char *csv = text_of(rep, 0);
    CU_ASSERT(ss_test_has(csv, ",queue_p99_ms,wait_prob,energy_j,overhead_ms_block1\n"));
    free(csv);
    ss_report_free(rep);
    ss_report_free(layout);
}

SS_TEST_SUITE("report", {"extra columns: union, empty cells, summary", test_extra_columns_rows},
              {"extra columns declared before any run", test_extra_columns_declared})
