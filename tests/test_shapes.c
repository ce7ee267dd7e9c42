/* test_shapes.c: the workload kinds that are rate shapes (trace_synth.c):
 * `synthetic` with Flashpoint's Twitter and Azure statistics (median and
 * peak-to-median exact, one hour of 1 s steps, the same shape in every
 * replication and a different one for another seed), `scale`, and
 * `azure_functions` reading per-minute counts (one function or all), with
 * its refusals positioned in the file. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "input/trace_synth.h"

static int load(const char *wl, ss_scenario *sc, ss_err *err, uint64_t seed)
{
    char *dir = ss_test_tmpdir();
    char *yaml = ss_xasprintf("seed: %llu\nduration_s: 3600\nhosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}]\n"
                              "models:\n  - {name: m, service: {dist: exponential, mean_s: 0.001}}\n"
                              "deployment:\n  - {model: m, device: g0}\nworkloads:\n  - %s\n",
                              (unsigned long long)seed, wl);
    char *cmd = ss_xasprintf("cp '%s/traces/azure-functions-sample.csv' '%s/az.csv'", SS_SRC_DIR, dir);
    ss_test_sh(NULL, "%s", cmd);
    free(cmd);
    char *path = ss_test_write(dir, "s.yaml", yaml);
    int rc = ss_scenario_load(sc, path, NULL, NULL, 0, err);
    free(path);
    free(yaml);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
    return rc;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A workload's steps, held or generated, into a new array. */
static ss_rate_step *steps_of(const ss_workload_cfg *w)
{
    ss_rate_step *st = calloc(w->nsteps + 1, sizeof *st);
    ss_step_iter it;
    ss_steps_begin(&it, w);
    for (size_t i = 0; i < w->nsteps; i++) CU_ASSERT(ss_steps_next(&it, &st[i]));
    CU_ASSERT(!ss_steps_next(&it, &st[w->nsteps]));
    ss_steps_end(&it);
    return st;
}

static void median_and_peak(const ss_workload_cfg *w, double *med, double *peak)
{
    ss_rate_step *st = steps_of(w);
    double *r = malloc(w->nsteps * sizeof *r);
    for (size_t i = 0; i < w->nsteps; i++) r[i] = st[i].rate_rps;
    free(st);
    qsort(r, w->nsteps, sizeof *r, cmp);
    *med = r[(w->nsteps - 1) / 2];
    *peak = r[w->nsteps - 1];
    free(r);
}

static void synthetic_statistics(void)
{
    static const struct {
        const char *wl;
        double median, ratio;
    } cases[] = {{"{name: t, kind: synthetic, target: m, shape: twitter}", 57, 4.68},
                 {"{name: a, kind: synthetic, target: m, shape: azure}", 18, 2.54},
                 {"{name: s, kind: synthetic, target: m, shape: twitter, scale: 2.5}", 57 * 2.5, 4.68}};
    for (size_t i = 0; i < 3; i++) {
        ss_scenario sc;
        ss_err err = {0};
        CU_ASSERT_EQUAL_FATAL(load(cases[i].wl, &sc, &err, 1), 0);
        const ss_workload_cfg *w = &sc.workloads[0];
        CU_ASSERT_EQUAL(w->kind, SS_WL_STEPS);
        CU_ASSERT_EQUAL(w->nsteps, 3600);
        ss_rate_step *st = steps_of(w);
        CU_ASSERT_DOUBLE_EQUAL(st[3599].until_s, 3600, 1e-9);
        free(st);
        double med, peak;
        median_and_peak(w, &med, &peak);
        CU_ASSERT_DOUBLE_EQUAL(med, cases[i].median, 1e-9 * cases[i].median);
        CU_ASSERT_DOUBLE_EQUAL(peak / med, cases[i].ratio, 1e-9);
        ss_scenario_free(&sc);
    }
    /* The same seed, the same shape; another seed, another. */
    ss_scenario a, b, c;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(load(cases[0].wl, &a, &err, 1), 0);
    CU_ASSERT_EQUAL_FATAL(load(cases[0].wl, &b, &err, 1), 0);
    CU_ASSERT_EQUAL_FATAL(load(cases[0].wl, &c, &err, 2), 0);
    ss_rate_step *sa = steps_of(&a.workloads[0]), *sb = steps_of(&b.workloads[0]), *sc2 = steps_of(&c.workloads[0]);
    CU_ASSERT_EQUAL(memcmp(sa, sb, 3600 * sizeof(ss_rate_step)), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(sa, sc2, 3600 * sizeof(ss_rate_step)), 0);
    /* Drawn again, the same steps: reading a shape twice gives one shape. */
    ss_rate_step *sa2 = steps_of(&a.workloads[0]);
    CU_ASSERT_EQUAL(memcmp(sa, sa2, 3600 * sizeof(ss_rate_step)), 0);
    free(sa);
    free(sb);
    free(sc2);
    free(sa2);
    ss_scenario_free(&a);
    ss_scenario_free(&b);
    ss_scenario_free(&c);
}

/* lead_s: one step of that length at the shape's first rate, then the
 * same shape shifted by it; scale 0: every rate 0 (no requests). */
static void synthetic_lead_and_off(void)
{
    ss_scenario a, b, z;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(load("{name: t, kind: synthetic, target: m, shape: twitter}", &a, &err, 1), 0);
    CU_ASSERT_EQUAL_FATAL(load("{name: t, kind: synthetic, target: m, shape: twitter, lead_s: 600}", &b, &err, 1), 0);
    CU_ASSERT_EQUAL_FATAL(load("{name: t, kind: synthetic, target: m, shape: twitter, scale: 0}", &z, &err, 1), 0);
    CU_ASSERT_EQUAL_FATAL(b.workloads[0].nsteps, a.workloads[0].nsteps + 1);
    ss_rate_step *sa = steps_of(&a.workloads[0]), *sb = steps_of(&b.workloads[0]), *sz = steps_of(&z.workloads[0]);
    CU_ASSERT_DOUBLE_EQUAL(sb[0].until_s, 600, 1e-12);
    CU_ASSERT_EQUAL(sb[0].rate_rps, sa[0].rate_rps);
    int same = 1;
    for (size_t i = 0; i < a.workloads[0].nsteps; i++)
        same &= sb[i + 1].rate_rps == sa[i].rate_rps && fabs(sb[i + 1].until_s - 600 - sa[i].until_s) < 1e-9;
    CU_ASSERT(same);
    double zmax = 0;
    for (size_t i = 0; i < z.workloads[0].nsteps; i++) zmax = sz[i].rate_rps > zmax ? sz[i].rate_rps : zmax;
    CU_ASSERT_EQUAL(zmax, 0);
    free(sa);
    free(sb);
    free(sz);
    ss_scenario_free(&a);
    ss_scenario_free(&b);
    ss_scenario_free(&z);
    CU_ASSERT_NOT_EQUAL(load("{name: t, kind: synthetic, target: m, lead_s: -1}", &a, &err, 1), 0);
    CU_ASSERT(strstr(err.msg, "lead_s") != NULL);
}

static void azure_functions(void)
{
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(load("{name: z, kind: azure_functions, target: m, file: az.csv, function: func02, minutes: 3}", &sc,
                               &err, 1),
                          0);
    const ss_workload_cfg *w = &sc.workloads[0];
    CU_ASSERT_EQUAL(w->nsteps, 3);
    CU_ASSERT_DOUBLE_EQUAL(w->steps[0].rate_rps, 9.0 / 60, 1e-12); /* func02's first minutes: 9, 7, 6 */
    CU_ASSERT_DOUBLE_EQUAL(w->steps[2].rate_rps, 6.0 / 60, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(w->steps[2].until_s, 180, 1e-12);
    ss_scenario_free(&sc);
    CU_ASSERT_EQUAL_FATAL(load("{name: z, kind: azure_functions, target: m, file: az.csv, from_minute: 2, minutes: 1, scale: 2}",
                               &sc, &err, 1),
                          0);
    CU_ASSERT_DOUBLE_EQUAL(sc.workloads[0].steps[0].rate_rps, 2 * (103 + 28 + 7) / 60.0, 1e-12); /* all rows, minute 2 */
    ss_scenario_free(&sc);
    CU_ASSERT_EQUAL(load("{name: z, kind: azure_functions, target: m, file: az.csv, function: nope}", &sc, &err, 1), -1);
    ss_scenario_free(&sc); /* a refused scenario is freed like any other */
    /* blamed on the scenario's function: (line 11), naming the file */
    CU_ASSERT(ss_test_has(err.msg, "s.yaml:11:"));
    CU_ASSERT(ss_test_has(err.msg, ": no function with HashFunction 'nope' in "));
    CU_ASSERT(ss_test_has(err.msg, "az.csv"));
    ss_err err2 = {0};
    CU_ASSERT_EQUAL(load("{name: z, kind: synthetic, target: m, peak_to_median: 0.5}", &sc, &err2, 1), -1);
    ss_scenario_free(&sc);
    CU_ASSERT(ss_test_has(err2.msg, "s.yaml:11:59: peak_to_median: expected at least 1, got 0.5"));
}

SS_TEST_SUITE("shapes", {"synthetic: Flashpoint's median and peak-to-median, reproducible", synthetic_statistics},
              {"synthetic: lead_s before the shape, scale 0 sends nothing", synthetic_lead_and_off},
              {"azure_functions: per-minute counts, refusals", azure_functions})
