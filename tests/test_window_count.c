/* test_window_count.c: ss_run_result.window_throughput_rps (sim/world/world.c,
 * ss_world_count_done in serve.h), the throughput a load generator counts and
 * `servesim validate` compares with a profile's: every completion inside
 * [end of warm-up, duration_s), whichever request it answers, over that span.
 * Checked against the requests file the same world writes (one row per
 * finished request with its finish time):
 *   - a warm-up by time (warmup_s): the window [warmup_s, duration_s);
 *   - a warm-up by requests (warmup_requests): the window starts when the
 *     N-th request is made, and the completions before it are not counted;
 *   - it differs from the tasks' throughput_rps (the requests made in the
 *     window over the span to their last completion) when the queue holds
 *     work at the end, so the two are not one count under two names. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvread.h"
#include "core/util.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "serve/result.h"
#include "serve/serve.h"
#include "world/world.h"

/* M/M/1 at 90% load: at the window's end a queue is still in flight. */
#define SCEN_HEAD                                                                                                 \
    "seed: 11\nduration_s: 200\n"                                                                                 \
    "hosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}]\n"                                                 \
    "models:\n  - {name: m, service: {dist: exponential, mean_s: 0.1}}\n"                                         \
    "deployment:\n  - {model: m, device: g0}\n"                                                                   \
    "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 9}\n"

/* Runs replication 0 of `yaml`; *rr its result, *csv its requests file;
 * *warmup_end_s the world's window start. */
static void run_one(const char *yaml, ss_run_result *rr, ss_csv *csv, double *warmup_end_s)
{
    char *dir = ss_test_tmpdir(), *path = ss_test_write(dir, "s.yaml", yaml);
    char *qpath = ss_xasprintf("%s/q.csv", dir);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), 0);
    FILE *q = fopen(qpath, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    ss_world_requests_header(q, 0);
    ss_world *w = ss_world_build(&sc, 0, q, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    ss_world_run(w);
    CU_ASSERT_PTR_NULL(ss_world_broken(w));
    *warmup_end_s = w->warmup_end_s;
    ss_world_result(w, rr);
    ss_world_free(w);
    fclose(q);
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(qpath, csv, &err), 0);
    ss_scenario_free(&sc);
    free(qpath);
    free(path);
    ss_test_rmtree(dir);
}

static void by_time(void)
{
    ss_run_result rr;
    ss_csv csv;
    double start;
    run_one(SCEN_HEAD "warmup_s: 20\n", &rr, &csv, &start);
    CU_ASSERT_DOUBLE_EQUAL(start, 20, 1e-12);
    size_t n = ss_test_finished_in(&csv, 20, 200);
    CU_ASSERT(n > 1000); /* about 9/s over 180 s */
    CU_ASSERT_DOUBLE_EQUAL(rr.window_throughput_rps, (double)n / 180, 1e-9);
    /* the tasks' count runs to the last completion of a request made in the window: another number */
    const ss_task_result *all = &rr.tasks[rr.ntasks - 1];
    CU_ASSERT(rr.window_s > 180);
    CU_ASSERT(fabs(all->throughput_rps - rr.window_throughput_rps) > 1e-6);
    ss_csv_free(&csv);
    ss_run_result_free(&rr);
}

static void by_requests(void)
{
    ss_run_result rr;
    ss_csv csv;
    double start;
    run_one(SCEN_HEAD "warmup_requests: 300\n", &rr, &csv, &start);
    CU_ASSERT(start > 20 && start < 50); /* the 300th request of 9/s */
    size_t n = ss_test_finished_in(&csv, start, 200), before = ss_test_finished_in(&csv, 0, start);
    CU_ASSERT(before > 200); /* the warm-up's completions, which must not be counted */
    CU_ASSERT_DOUBLE_EQUAL(rr.window_throughput_rps, (double)n / (200 - start), 1e-9);
    ss_csv_free(&csv);
    ss_run_result_free(&rr);
}

SS_TEST_SUITE("window-count", {"a warm-up by time: completions in [warmup_s, duration_s) over it", by_time},
              {"a warm-up by requests: the window starts at the N-th request, earlier completions left out",
               by_requests})
