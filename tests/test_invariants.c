/* test_invariants.c: the checks made at the end of every run (world.h,
 * ss_world_check): they hold on shipped scenarios of every kind, and they
 * catch a broken count, a request left in a queue and an event left on the
 * calendar (tampered with after the run, through the world's insides). */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "serve/serve.h"
#include "world/world.h"

/* Run every variant and replication of a shipped scenario; 0 if every
 * run's checks held. */
static int holds(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SS_SRC_DIR, rel);
    char **names = NULL;
    size_t nv = 0;
    ss_err err = {0};
    if (ss_scenario_variants(path, &names, &nv, &err) < 0) return -1;
    int bad = 0;
    for (size_t v = 0; v < (nv ? nv : 1); v++) {
        ss_scenario sc;
        if (ss_scenario_load(&sc, path, nv ? names[v] : NULL, NULL, 0, &err) < 0) {
            fprintf(stderr, "\n%s\n", err.msg);
            bad = 1;
            continue;
        }
        for (uint32_t r = 0; r < sc.replications && r < 2; r++) {
            ss_world *w = ss_world_build(&sc, r, NULL, &err);
            if (!w) {
                bad = 1;
                continue;
            }
            ss_world_run(w);
            if (ss_world_broken(w)) {
                fprintf(stderr, "\n%s: %s\n", rel, ss_world_broken(w));
                bad = 1;
            }
            ss_world_free(w);
        }
        ss_scenario_free(&sc);
    }
    for (size_t v = 0; v < nv; v++) free(names[v]);
    free(names);
    return bad ? -1 : 0;
}

static void shipped_hold(void)
{
    static const char *const all[] = {"scenarios/default.yaml", "scenarios/tour/load-balancers.yaml",
                                      "scenarios/blockflow/single-gv100.yaml",
                                      "scenarios/blockflow/two-hosts.yaml", "scenarios/blockflow/l40s-pdi.yaml",
                                      "scenarios/masa/fig4.yaml",
                                      "scenarios/masa/calib-memnet.yaml", NULL};
    for (size_t i = 0; all[i]; i++) CU_ASSERT_EQUAL(holds(all[i]), 0);
}

static const char *SCEN = "seed: 5\nrequests: 2000\nhosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}, {name: g1, kind: gpu}]\n"
                          "models:\n  - {name: m, service: {dist: exponential, mean_s: 1.0}}\n"
                          "deployment:\n  - {model: m, device: g0, queue: shared}\n  - {model: m, device: g1, queue: shared}\n"
                          "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 2.5}\n"
                          "events:\n  - {at_s: 100, action: fail, instance: m@g1, requests: lose}\n"
                          "  - {at_s: 200, action: add, model: m, device: g1}\n";

static ss_world *ran(ss_scenario *sc, char **dir)
{
    *dir = ss_test_tmpdir();
    char *path = ss_test_write(*dir, "s.yaml", SCEN);
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_scenario_load(sc, path, NULL, NULL, 0, &err), 0);
    free(path);
    ss_world *w = ss_world_build(sc, 0, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    ss_world_run(w);
    return w;
}

static void nothing(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    (void)ctx;
    (void)arg;
}

static void broken_caught(void)
{
    ss_scenario sc;
    char *dir;
    ss_world *w = ran(&sc, &dir);
    CU_ASSERT_PTR_NULL(ss_world_broken(w)); /* a failure and an add: the counts still add up */
    CU_ASSERT(w->ended[2] > 0);             /* something was lost */
    w->ended[0]--;                          /* one request forgotten */
    CU_ASSERT(ss_test_has(ss_world_check(w), "requests created"));
    w->ended[0]++;
    CU_ASSERT_PTR_NULL(ss_world_check(w));
    w->groups[0].queued = 1; /* one request left in the shared queue */
    CU_ASSERT(ss_test_has(ss_world_check(w), "the shared queue of model 'm' holds 1"));
    w->groups[0].queued = 0;
    w->inst[0]->busy = 1; /* one left in service */
    CU_ASSERT(ss_test_has(ss_world_check(w), "holds 1 in service"));
    w->inst[0]->busy = 0;
    ss_schedule(w->eng, 1e9, nothing, NULL, 0); /* an event left */
    CU_ASSERT(ss_test_has(ss_world_check(w), "1 events left on the calendar"));
    ss_world_free(w);
    ss_scenario_free(&sc);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

SS_TEST_SUITE("invariants", {"they hold on shipped scenarios of every kind", shipped_hold},
              {"a broken count, a queued or serving request, a left event are caught", broken_caught})
