/* test_timeseries.c: the optional time-series output of `servesim run`
 * (sim/serve/timeseries.c) and the gnuplot scripts of plots/ on real outputs:
 * sampling leaves the results untouched, samples come at the interval,
 * their utilisation averages to the run's, and every script renders a PNG. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCEN                                                                                        \
    "name: ts\nseed: 3\nduration_s: 20\n"                                                           \
    "hosts: [{name: h, devices: [{name: d0, kind: gpu}, {name: d1, kind: gpu}]}]\n"                 \
    "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"                             \
    "deployment: [{model: m, device: d0}, {model: m, device: d1}]\n"                                \
    "workloads: [{name: w, kind: poisson, target: m, rate_rps: 150}]\n"                              \
    "variants: [{name: rr, set: {policies.load_balancer: round-robin}},\n"                           \
    "           {name: ll, set: {policies.load_balancer: least-loaded}}]\n"

static void test_samples(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", SCEN));
    int rc = ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o a.csv --quiet --requests-csv r.csv && "
                              "'%s' run s.yaml -o b.csv --quiet --timeseries-csv ts.csv --timeseries-interval 0.5",
                        dir, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    /* sampling changes no result */
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && cmp a.csv b.csv", dir), 0);
    char *out = NULL;
    ss_test_sh(&out, "cd '%s' && head -2 ts.csv", dir);
    const char *want =
        "variant,replication,t_s,model,replicas,queued,in_service,utilisation,starting,draining,arrivals\nrr,0,0.500000,m,2,";
    CU_ASSERT_NSTRING_EQUAL(out ? out : "", want, strlen(want));
    free(out);
    /* the arrivals of every interval add up to the run's (no warm-up: all measured), and
     * they are the offered load: 150/s over the 20 s */
    ss_test_sh(&out, "cd '%s' && awk -F, '$1 == \"rr\" { s += $11 } END { print s }' ts.csv && "
                     "awk -F, '$2 == \"rr\" && $6 == \"all\" { print $7 }' b.csv", dir);
    long ts_n = 0, run_n = -1;
    CU_ASSERT_EQUAL(out ? sscanf(out, "%ld %ld", &ts_n, &run_n) : 0, 2);
    CU_ASSERT_EQUAL(ts_n, run_n);
    CU_ASSERT_DOUBLE_EQUAL(ts_n / 20.0, 150, 10);
    free(out);
    /* 20 s at 0.5 s: samples at 0.5, 1, ..., 20 and at most one after the
     * last request, per variant */
    ss_test_sh(&out, "cd '%s' && awk -F, '$1 == \"rr\"' ts.csv | wc -l", dir);
    int n = out ? atoi(out) : 0;
    CU_ASSERT_TRUE(n >= 40 && n <= 41);
    free(out);
    /* mean utilisation over the samples after 0 matches the run's
     * (rho = 150 * 0.01 / 2 = 0.75); the run's figure is over the window */
    ss_test_sh(&out, "cd '%s' && awk -F, '$1 == \"rr\" && $3 <= 20 { s += $8; n++ } END { printf \"%%.3f\", s / n }' ts.csv",
               dir);
    double ts_util = out ? atof(out) : 0;
    free(out);
    /* results CSV: column 2 variant, 6 model */
    ss_test_sh(&out, "cd '%s' && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^util_/) c[i] = 1; next } "
                     "$2 == \"rr\" && $6 == \"all\" { for (i in c) { s += $i; n++ } } END { printf \"%%.3f\", s / n }' a.csv",
               dir);
    double run_util = out ? atof(out) : 0;
    free(out);
    CU_ASSERT_DOUBLE_EQUAL(ts_util, run_util, 0.01);
    CU_ASSERT_DOUBLE_EQUAL(run_util, 0.75, 0.05);
    ss_test_rmtree(dir);
}

static int png_ok(const char *dir, const char *name)
{
    /* a PNG starts with \x89PNG */
    return ss_test_sh(NULL, "cd '%s' && test -s '%s' && head -c 4 '%s' | tail -c 3 | grep -q PNG", dir, name, name) == 0;
}

static void test_plots_render(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", SCEN "replications: 2\n"));
    free(ss_test_write(dir, "sw.yaml", "scenario: s.yaml\nvariants: []\nset: {duration_s: 5}\naxes:\n"
                                       "  - {key: policies.load_balancer, values: [round-robin, least-loaded]}\n"
                                       "  - {key: workloads.w.rate_rps, values: [50, 100, 150]}\n"));
    int rc = ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o a.csv --quiet --requests-csv r.csv --timeseries-csv ts.csv &&"
                              " '%s' sweep sw.yaml -o sw.csv --quiet && "
                              " '%s' compare sw.csv --by load_balancer --baseline round-robin --csv -o c.csv",
                        dir, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    char *out = NULL;
    rc = ss_test_sh(&out,
                    "cd '%s' && gnuplot -e \"in='r.csv'; out='cdf.png'\" '%s/plots/latency-cdf.gp' && "
                    "gnuplot -e \"in='ts.csv'; out='ts.png'\" '%s/plots/timeseries.gp' && "
                    "gnuplot -e \"in='c.csv'; out='m.png'; axis='workloads.w.rate_rps'\" '%s/plots/metric-vs-axis.gp' 2>&1",
                    dir, SS_SRC_DIR, SS_SRC_DIR, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) fprintf(stderr, "\n  gnuplot: %s\n", out ? out : "");
    free(out);
    CU_ASSERT_TRUE(png_ok(dir, "cdf.png"));
    CU_ASSERT_TRUE(png_ok(dir, "ts.png"));
    CU_ASSERT_TRUE(png_ok(dir, "m.png"));
    /* a script without its inputs says how to call it */
    rc = ss_test_sh(&out, "gnuplot '%s/plots/latency-cdf.gp' 2>&1", SS_SRC_DIR);
    CU_ASSERT_NOT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "usage: gnuplot"));
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("timeseries", {"samples leave results alone and average to the run's utilisation", test_samples},
              {"plots/*.gp render PNG from real outputs", test_plots_render})
