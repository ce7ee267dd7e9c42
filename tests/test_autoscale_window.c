/* test_autoscale_window.c: the autoscaler's scale-down stabilisation window
 * (scenario `autoscaling.stabilization_s`, sim/elastic/autoscale.c; the
 * Kubernetes HPA's scaleDown.stabilizationWindowSeconds): a scale-down goes
 * no lower than the highest answer of the window, and in steps as older
 * answers leave it.  The answers are scripted by the test autoscaler
 * steps-as (tests/plugins): 4 replicas from 1 s, 2 from 100 s, 1 from
 * 120 s, with a 50 s window and without one; the replicas are read from
 * the timeseries CSV. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SCEN = "seed: 1\nduration_s: 300\nhosts:\n  - name: h\n"
                          "    devices: [{name: g0, kind: gpu}, {name: g1, kind: gpu}, {name: g2, kind: gpu},"
                          " {name: g3, kind: gpu}]\n"
                          "models:\n  - {name: b, service: {dist: deterministic, value_s: 0.01}}\n"
                          "deployment:\n  - {model: b, devices: \"h/g*\", queue: shared, instances: 0, startup_s: 2}\n"
                          "workloads:\n  - {name: wb, kind: deterministic, target: b, rate_rps: 1}\n"
                          "autoscaling:\n  policy: {name: steps-as, steps: \"4@1,2@100,1@120\"}\n  period_s: 1\n"
                          "  stabilization_s: %g\n";

/* Run the scenario with the window; the timeseries CSV, or NULL. */
static char *run(const char *dir, double window_s)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, SCEN, window_s);
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && SERVESIM_PLUGIN_PATH='%s/tests/plugins:%s/policies' '%s/servesim' run s.yaml "
                        "-o r.csv --timeseries-csv ts.csv --quiet && cat ts.csv",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR, SS_BUILD_DIR);
    if (rc != 0) {
        fprintf(stderr, "\nrun failed:\n%s\n", out ? out : "");
        free(out);
        return NULL;
    }
    return out;
}

/* The replicas up at t_s (the row "…,t_s,b,replicas,…"), or -1. */
static int replicas_at(const char *csv, int t_s)
{
    char key[64];
    snprintf(key, sizeof key, ",%d.000000,b,", t_s);
    const char *p = strstr(csv, key);
    return p ? atoi(p + strlen(key)) : -1;
}

static void held_to_the_windows_highest_answer(void)
{
    char *dir = ss_test_tmpdir();
    char *ts = run(dir, 50);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL(replicas_at(ts, 90), 4);
    /* The answer is 2 from 100 s and 1 from 120 s, but 4 is in the window until 150 s. */
    CU_ASSERT_EQUAL(replicas_at(ts, 110), 4);
    CU_ASSERT_EQUAL(replicas_at(ts, 148), 4);
    /* Then the highest answer left in it is 2, until 170 s; then 1. */
    CU_ASSERT_EQUAL(replicas_at(ts, 152), 2);
    CU_ASSERT_EQUAL(replicas_at(ts, 168), 2);
    CU_ASSERT_EQUAL(replicas_at(ts, 172), 1);
    free(ts);
    /* Without a window the answers take effect at once. */
    ts = run(dir, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL(replicas_at(ts, 90), 4);
    CU_ASSERT_EQUAL(replicas_at(ts, 110), 2);
    CU_ASSERT_EQUAL(replicas_at(ts, 125), 1);
    free(ts);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("autoscale-window",
              {"a scale-down goes no lower than the window's highest answer", held_to_the_windows_highest_answer})
