/* test_retire.c: an autoscaled run keeps records only for the replicas
 * alive (lifecycle.c, retirement): stopped replicas are folded into sums
 * and their records reused, with the same instance-seconds and
 * utilisation as if every record were kept, and an event of a record's
 * earlier life (a start-up that was cancelled) cannot touch its next life. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "serve/serve.h"
#include "world/world.h"

/* Load dir/s.yaml (written from yaml), build and run it, requests CSV to dir/q.csv. */
static ss_world *ran(const char *dir, const char *yaml, ss_scenario *sc, FILE **req)
{
    char plugins[2048];
    snprintf(plugins, sizeof plugins, "%s/tests/plugins:%s/policies", SS_BUILD_DIR, SS_BUILD_DIR);
    setenv("SERVESIM_PLUGIN_PATH", plugins, 1);
    char *path = ss_test_write(dir, "s.yaml", yaml);
    ss_err err = {0};
    int rc = ss_scenario_load(sc, path, NULL, NULL, 0, &err);
    free(path);
    if (rc < 0) fprintf(stderr, "\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *qpath = ss_xasprintf("%s/q.csv", dir);
    *req = fopen(qpath, "w+");
    free(qpath);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*req);
    ss_world *w = ss_world_build(sc, 0, *req, &err);
    if (!w) fprintf(stderr, "\n%s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    ss_world_run(w);
    CU_ASSERT_PTR_NULL(ss_world_broken(w));
    return w;
}

static double extra(const ss_run_result *r, const char *col)
{
    for (size_t i = 0; i < r->nextras; i++)
        if (strcmp(r->extras[i].col, col) == 0) return r->extras[i].value;
    CU_FAIL("no such extra column");
    return -1;
}

static void records_follow_live_replicas(void)
{
    /* 200 requests of 1 s, at 0 s and then at 10k + 0.5 (k = 1..199; a
     * trace starts at 0, and no arrival ties with a tick); keep-alive 1 s,
     * start-up 2 s, ticks every second: each request gets its own replica,
     * started at the next tick (10k + 1), up at 10k + 3, done at 10k + 4,
     * stopped at the 10k + 5 tick: 4 s each.  The last one is alive at the
     * last request's end (1994 s): 3 s of it count.  A stopped replica is
     * retired once a later request has ended, so two records suffice. */
    char *dir = ss_test_tmpdir();
    char *trace = ss_xstrdup("timestamp_s\n0\n");
    for (int k = 1; k < 200; k++) {
        char *t = ss_xasprintf("%s%d.5\n", trace, 10 * k);
        free(trace);
        trace = t;
    }
    free(ss_test_write(dir, "t.csv", trace));
    free(trace);
    ss_scenario sc;
    FILE *req;
    ss_world *w = ran(dir,
                      "seed: 1\nduration_s: 2000\nhosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}]\n"
                      "models:\n  - {name: m, service: {dist: deterministic, value_s: 1.0}}\n"
                      "deployment:\n  - {model: m, device: g0, queue: shared, instances: 0, startup_s: 2}\n"
                      "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                      "autoscaling:\n  policy: {name: keepalive, timeout_s: 1}\n  period_s: 1\n",
                      &sc, &req);
    CU_ASSERT(w->ninst <= 2);
    ss_run_result r;
    ss_world_result(w, &r);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "instance_s_m"), 199 * 4.0 + 3.0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(r.util[0], 200.0 / 1994.0, 1e-9); /* busy 200 s; one server at a time */
    ss_run_result_free(&r);
    ss_world_free(w);
    fclose(req);
    ss_scenario_free(&sc);
    ss_test_rmtree(dir);
}

/* The finish time of the first request of model `model` in the requests CSV. */
static double finish_of_model(FILE *fp, const char *model)
{
    rewind(fp);
    char line[1024];
    while (fgets(line, sizeof line, fp)) { /* variant,replication,request,workload,model,arrival_s,finish_s */
        const char *p = line;
        for (int k = 0; k < 4 && p; k++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        if (p && strncmp(p, model, strlen(model)) == 0 && p[strlen(model)] == ',') {
            p = strchr(strchr(p, ',') + 1, ',');
            return p ? strtod(p + 1, NULL) : -1;
        }
    }
    return -1;
}

static void cancelled_startup_cannot_touch_next_life(void)
{
    /* Model b (start-up 5 s) is scaled 0 -> 1 at 1 s, 1 -> 0 at 2 s (the
     * starting replica stops at once: its up event at 6 s stays on the
     * calendar), 0 -> 1 at 3 s: the record, retired at that tick (model a's
     * requests have ended after 2 s), is reused.  The new replica is up at
     * 8 s, so b's one request (a trace starts at 0 s) ends at 9 s; coming
     * up at 6 s on the old event would end it at 7 s. */
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "b.csv", "timestamp_s\n0\n"));
    ss_scenario sc;
    FILE *req;
    ss_world *w = ran(dir,
                      "seed: 1\nduration_s: 20\nhosts:\n  - name: h\n"
                      "    devices: [{name: g0, kind: gpu}, {name: g1, kind: gpu}]\n"
                      "models:\n  - {name: a, service: {dist: deterministic, value_s: 0.01}}\n"
                      "  - {name: b, service: {dist: deterministic, value_s: 1.0}}\n"
                      "deployment:\n  - {model: a, device: g0}\n"
                      "  - {model: b, device: g1, queue: shared, instances: 0, startup_s: 5}\n"
                      "workloads:\n  - {name: wa, kind: deterministic, target: a, rate_rps: 10}\n"
                      "  - {name: wb, kind: trace, target: b, file: b.csv}\n"
                      "autoscaling:\n  policy: {name: steps-as, steps: \"1:1@1,1:0@2,1:1@3\"}\n  period_s: 1\n",
                      &sc, &req);
    CU_ASSERT_EQUAL(w->ninst, 2); /* a's instance, and one record for b's two lives */
    fflush(req);
    CU_ASSERT_DOUBLE_EQUAL(finish_of_model(req, "b"), 9.0, 1e-9);
    ss_world_free(w);
    fclose(req);
    ss_scenario_free(&sc);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("retire", {"stopped replicas are folded and their records reused", records_follow_live_replicas},
              {"a cancelled start-up cannot bring up the record's next life", cancelled_startup_cannot_touch_next_life})
