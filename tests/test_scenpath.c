/* test_scenpath.c: a scenario named on the command line (sim/input/scenpath.c):
 * a file as given first; else by name, with or without .yaml, in
 * $SERVESIM_SCENARIO_PATH, then beside the binary (here the build folder in
 * the source tree: scenarios/); a name found nowhere is the usual error. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

static void by_name(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    /* from another folder: a shipped scenario by name, with and without its folder and .yaml */
    int rc = ss_test_sh(&out, "cd '%s' && '%s' check default && '%s' check substrate/autoscale-bursty.yaml && "
                              "'%s' check scenarios/tour/load-balancers.yaml",
                        dir, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "ok: scenario 'serverless'"));
    CU_ASSERT(ss_test_has(out, "ok: scenario 'autoscale-bursty'"));
    free(out);
    /* a file here comes first, then $SERVESIM_SCENARIO_PATH, before the shipped ones */
    free(ss_test_write(dir, "mine/default.yaml", "name: mine\nduration_s: 5\nhosts: [{name: h, devices: [{name: d, kind: gpu}]}]\n"
                                                  "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"
                                                  "deployment: [{model: m, device: d}]\n"
                                                  "workloads: [{name: w, kind: poisson, target: m, rate_rps: 5}]\n"));
    rc = ss_test_sh(&out, "cd '%s' && SERVESIM_SCENARIO_PATH=/nonexistent:'%s/mine' '%s' check default && "
                          "cd mine && '%s' check default.yaml",
                    dir, dir, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "default.yaml: ok: scenario 'mine'"));
    free(out);
    /* found nowhere: the file's own error, exit 2 */
    ss_test_cmd_refused(dir, "check no-such-scenario", "no-such-scenario");
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("scenpath", {"a scenario by name, in the search path's order", by_name})
