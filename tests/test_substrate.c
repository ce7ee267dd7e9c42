/* test_substrate.c: the serving substrate's new parts through the CLI -
 * shared queues, processor sharing on the compute net (hand-computed
 * finish times), preemptive-resume priority, scripted events (fail with
 * losses or re-queues, add) - and their bad input, each refused with
 * file:line:col, exit 2 and no output file. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/plugin.h"

static const char *HEAD = "seed: 3\nrequests: %d\n"
                          "hosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}, {name: g1, kind: gpu},"
                          " {name: c, kind: cpu, cores: 2}]\n"
                          "models:\n  - {name: m, service: {dist: deterministic, value_s: %s}}\n";

/* Write trace.csv (n arrivals at the given times) and s.yaml (HEAD +
 * body), run it, return the requests CSV (NULL if the run failed). */
static char *run(const char *dir, int n, const char *svc, const char *times, const char *body, char **csv)
{
    char *trace = ss_test_write(dir, "t.csv", times);
    free(trace);
    char head[1024], yaml[4096];
    snprintf(head, sizeof head, HEAD, n, svc);
    snprintf(yaml, sizeof yaml, "%s%s", head, body);
    char *path = ss_test_write(dir, "s.yaml", yaml);
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --requests-csv q.csv >/dev/null && "
                              "cat q.csv && echo ==== && cat r.csv",
                        dir, SS_BUILD_DIR);
    free(path);
    if (rc != 0) {
        fprintf(stderr, "\nrun failed:\n%s\n", out ? out : "");
        free(out);
        return NULL;
    }
    if (csv) *csv = out;
    return out;
}

/* The finish_s of request id in a requests CSV. */
static double finish_of(const char *req, int id)
{
    char key[64];
    snprintf(key, sizeof key, "\n,0,%d,", id);
    const char *p = strstr(req, key);
    if (!p) return -1;
    p += strlen(key);
    for (int f = 0; f < 3; f++) p = strchr(p, ',') + 1; /* workload, model, arrival_s */
    return strtod(p, NULL);
}

static void shared_queue_two_gpus(void)
{
    char *dir = ss_test_tmpdir();
    /* Three requests at t = 0 on two GPUs behind one queue, 1 s each: two
     * start at once, the third waits for the first free one. */
    char *out = run(dir, 3, "1.0", "timestamp_s\n0\n0\n0\n",
                    "deployment:\n  - {model: m, device: g0, queue: shared}\n  - {model: m, device: g1, queue: shared}\n"
                    "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n",
                    NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 2), 2.0, 1e-9);
    CU_ASSERT(ss_test_has(out, ",wait_prob,")); /* one of three waited */
    CU_ASSERT(ss_test_has(out, ",0.333333,"));
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void ps_three_jobs_two_cores(void)
{
    char *dir = ss_test_tmpdir();
    /* Three 1-core-second jobs at t = 0 on a 2-core CPU, each capped at one
     * core: max-min gives each 2/3 core, so all finish at 1.5 s. */
    char *out = run(dir, 3, "1.0", "timestamp_s\n0\n0\n0\n",
                    "deployment:\n  - {model: m, device: c, discipline: ps}\n"
                    "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n",
                    NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int i = 0; i < 3; i++) CU_ASSERT_DOUBLE_EQUAL(finish_of(out, i), 1.5, 1e-9);
    free(out);
    /* Arrivals at 0, 0.5 and 1: one job alone on a core runs at 1 core
     * (its cap); the first two finish at 1 and 1.5 (each had a core), the
     * third starts at 1 and ends at 2. */
    out = run(dir, 3, "1.0", "timestamp_s\n0\n0.5\n1\n",
              "deployment:\n  - {model: m, device: c, discipline: ps}\n"
              "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n",
              NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), 1.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 2), 2.0, 1e-9);
    free(out);
    /* Two ps instances on the 2-core CPU, caps 0.5 and 2 (container
     * quotas): one job each at t = 0 of 1 core-second.  Max-min: the first
     * gets its quota 0.5 (done at 2 s), the second its thread cap 1 (done at
     * 1 s). */
    out = run(dir, 2, "1.0", "timestamp_s\n0\n0\n",
              "deployment:\n  - {model: m, device: c, discipline: ps, cap: 0.5}\n"
              "  - {model: m, device: c, discipline: ps, cap: 2}\n"
              "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n",
              NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 2.0, 1e-9); /* round-robin: request 0 to the capped one */
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), 1.0, 1e-9);
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void preemptive_resume(void)
{
    char *dir = ss_test_tmpdir();
    /* A low-priority 1 s job at 0, a high-priority one at 0.25: the second
     * preempts, ends at 1.25; the first resumes its 0.75 s, ends at 2. */
    char *trace = ss_test_write(dir, "u.csv", "timestamp_s\n0.25\n");
    free(trace);
    char *out = run(dir, 2, "1.0", "timestamp_s\n0\n",
                    "deployment:\n  - {model: m, device: g0, discipline: preemptive-priority}\n"
                    "workloads:\n  - {name: lo, kind: trace, target: m, file: t.csv, priority: 1}\n"
                    "  - {name: hi, kind: trace, target: m, file: u.csv, priority: 0, start_s: 0.25}\n",
                    NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 2.0, 1e-9);
    CU_ASSERT(ss_test_has(out, ",m/lo,")); /* a row per workload: two aim at one task */
    CU_ASSERT(ss_test_has(out, ",m/hi,"));
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* A column's value in the first data row of the results CSV part. */
static double column(const char *out, const char *col)
{
    const char *res = strstr(out, "====\n");
    if (!res) return -1;
    res += 5;
    const char *nl = strchr(res, '\n');
    int idx = -1, k = 0;
    for (const char *p = res; p && p < nl; k++) {
        size_t n = strcspn(p, ",\n");
        if (strlen(col) == n && strncmp(p, col, n) == 0) idx = k;
        p = p[n] == ',' ? p + n + 1 : NULL;
    }
    if (idx < 0) return -1;
    const char *p = nl + 1;
    for (int i = 0; i < idx; i++) p = strchr(p, ',') + 1;
    return strtod(p, NULL);
}

static void fail_lose_and_requeue(void)
{
    char *dir = ss_test_tmpdir();
    /* Two GPUs, per-instance queues, round-robin; eight 1 s jobs at t = 0:
     * four queue at each.  g0 fails at 1.5 s, holding one in service and
     * two queued: lost (3), or re-queued to g1 (all 8 complete, the last at
     * 4 + 3 = 7 s). */
    const char *times = "timestamp_s\n0\n0\n0\n0\n0\n0\n0\n0\n";
    const char *dep = "deployment:\n  - {model: m, device: g0}\n  - {model: m, device: g1}\n"
                      "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n";
    char body[2048];
    snprintf(body, sizeof body, "%sevents:\n  - {at_s: 1.5, action: fail, instance: m@g0, requests: lose}\n", dep);
    char *out = run(dir, 8, "1.0", times, body, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "lost_requests"), 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "completed"), 5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "instance_s_m"), 1.5 + 4.0, 1e-9);
    free(out);
    snprintf(body, sizeof body, "%sevents:\n  - {at_s: 1.5, action: fail, instance: m@g0, requests: requeue}\n", dep);
    out = run(dir, 8, "1.0", times, body, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "lost_requests"), 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "completed"), 8, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "latency_max_ms"), 7000, 1e-6);
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void add_instance_doubles_throughput(void)
{
    char *dir = ss_test_tmpdir();
    /* Ten 1 s jobs at t = 0 on one GPU behind a shared queue; a second GPU
     * added at 2 s takes half of the rest: the last ends at 2 + 8/2 = 6 s
     * instead of 10 s. */
    const char *times = "timestamp_s\n0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n";
    char *out = run(dir, 10, "1.0", times,
                    "deployment:\n  - {model: m, device: g0, queue: shared}\n"
                    "  - {model: m, device: g1, queue: shared, instances: 0}\n"
                    "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                    "events:\n  - {at_s: 2, action: add, model: m, device: g1}\n",
                    NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "latency_max_ms"), 6000, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(column(out, "instance_s_m"), 6 + 4, 1e-9);
    /* Throughput: 1 request/s before the add (completions in (0, 2]), 2/s after. */
    int before = 0, after = 0;
    for (int i = 0; i < 10; i++) {
        double f = finish_of(out, i);
        before += f > 0 && f <= 2 + 1e-9;
        after += f > 2 + 1e-9 && f <= 6 + 1e-9;
    }
    CU_ASSERT_EQUAL(before, 2);
    CU_ASSERT_EQUAL(after, 8);
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void capacity_in_flight(void)
{
    char *dir = ss_test_tmpdir();
    /* One 2 GPU-second job on a ps GPU; the GPU's capacity halves at 1 s
     * (1 s of work left, now at 0.5) and comes back at 2 s (0.5 left, at
     * 1): done at 2.5 s. */
    char *out = run(dir, 1, "2.0", "timestamp_s\n0\n",
                    "deployment:\n  - {model: m, device: g0, discipline: ps}\n"
                    "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                    "events:\n  - {at_s: 1, action: capacity, device: g0, capacity: 0.5}\n"
                    "  - {at_s: 2, action: capacity, device: g0, capacity: 1}\n",
                    NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 2.5, 1e-9);
    free(out);
    /* A container's quota raised mid-job: 1 core-second at a 0.5-core
     * quota, raised to 1 core at 1 s (0.5 left): done at 1.5 s. */
    out = run(dir, 1, "1.0", "timestamp_s\n0\n",
              "deployment:\n  - {model: m, device: c, discipline: ps, cap: 0.5}\n"
              "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
              "events:\n  - {at_s: 1, action: capacity, instance: m@c, capacity: 1}\n",
              NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 1.5, 1e-9);
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* ---- autoscaling ---------------------------------------------------------- */

static void keepalive_by_hand(void)
{
    char *dir = ss_test_tmpdir();
    /* Requests at 0 and 6 s, no replica at first, start-up 2 s, ticks every
     * 1 s.  The tick at 1 s starts a replica (up at 3 s), which serves the
     * first request from 3 to 4 s.  Keep-alive 5 s: still there at 6 s, so
     * the second is served at once (1 s).  Keep-alive 1 s: removed at the
     * 5 s tick; the second arrives at 6 s just before that tick (it was
     * scheduled first), which starts a replica: up at 8 s, done at 9 s. */
    const char *dep = "deployment:\n  - {model: m, device: g0, queue: shared, instances: 0, startup_s: 2}\n"
                      "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                      "autoscaling:\n  policy: {name: keepalive, timeout_s: %s}\n  period_s: 1\n";
    for (int k = 0; k < 2; k++) {
        char body[1024];
        snprintf(body, sizeof body, dep, k ? "1" : "5");
        char *out = run(dir, 2, "1.0", "timestamp_s\n0\n6\n", body, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 4.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), k ? 9.0 : 7.0, 1e-9);
        free(out);
    }
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* The same with keep-alive 5 s and decisions that take 0.25 s: the 1 s
 * tick's replica starts at 1.25 s (up at 3.25 s, the first request done at
 * 4.25 s); the second is served at once (6 to 7 s).  Then the run ends:
 * once drained, a decision that changes nothing is not scheduled (each
 * one was, and kept the run alive for ever). */
static void decision_delay_by_hand(void)
{
    char *dir = ss_test_tmpdir();
    const char *body = "deployment:\n  - {model: m, device: g0, queue: shared, instances: 0, startup_s: 2}\n"
                       "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                       "autoscaling:\n  policy: {name: keepalive, timeout_s: 5}\n  period_s: 1\n"
                       "  decision_delay_s: 0.25\n";
    char *out = run(dir, 2, "1.0", "timestamp_s\n0\n6\n", body, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 4.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), 7.0, 1e-9);
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* A Poisson load of 3 requests/s of 1 s each for 600 s on 16 GPUs behind
 * one queue, every replica started by the autoscaler (start-up 1 s). */
static char *loaded(const char *dir, const char *policy)
{
    char yaml[4096];
    int n = snprintf(yaml, sizeof yaml,
                     "seed: 9\nduration_s: 600\nhosts:\n  - name: h\n    devices: [");
    for (int g = 0; g < 16; g++) n += snprintf(yaml + n, sizeof yaml - (size_t)n, "%s{name: g%d, kind: gpu}", g ? ", " : "", g);
    n += snprintf(yaml + n, sizeof yaml - (size_t)n, "]\nmodels:\n  - {name: m, service: {dist: deterministic, value_s: 1.0}}\n"
                                                        "deployment:\n");
    for (int g = 0; g < 16; g++)
        n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                      "  - {model: m, device: g%d, queue: shared, instances: 0, startup_s: 1}\n", g);
    snprintf(yaml + n, sizeof yaml - (size_t)n,
             "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 3}\n"
             "autoscaling:\n  policy: %s\n  period_s: 1\n",
             policy);
    free(ss_test_write(dir, "l.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' run l.yaml -o r.csv >/dev/null && echo ==== && cat r.csv", dir,
                        SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    return out;
}

static void policies_follow_load(void)
{
    /* Each keeps the queue served (throughput near 3/s) with a replica count
     * its rule explains: atl ceil(p99 rate x 1 s) = 7 or 8 (the p99 of
     * Poisson(3) counts per second); knative ceil(3 / 0.7) = 5 in the mean;
     * tsk grows only once waits pass its 7 s target, so it runs nearer the
     * 3 replicas the load needs.  Average replicas = instance-seconds over the
     * window. */
    static const struct {
        const char *policy;
        double lo, hi;
    } cases[] = {{"atl", 6, 9}, {"knative", 4, 7}, {"{name: tsk, target_s: 7}", 3, 6}, {"owk", 3, 8}, {"sm", 2.5, 6}};
    char *dir = ss_test_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out = loaded(dir, cases[i].policy);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        double tput = column(out, "throughput_rps"), avg = column(out, "instance_s_m") / 600;
        if (!(tput > 2.8 && tput < 3.2 && avg > cases[i].lo && avg < cases[i].hi))
            fprintf(stderr, "\n%s: throughput %g, average replicas %g (expected %g to %g)\n", cases[i].policy, tput, avg,
                    cases[i].lo, cases[i].hi);
        CU_ASSERT(tput > 2.8 && tput < 3.2);
        CU_ASSERT(avg > cases[i].lo && avg < cases[i].hi);
        free(out);
    }
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void cat_gates(void)
{
    /* Flashpoint's CAT rule on top of atl: it scales up only while the up
     * replicas' service rate is below the arrival rate (less rho_L), so it
     * holds fewer replicas than atl's 99th-percentile provisioning (7.48 on
     * average here; 5.00 with rho_L 0 and no scale-down, 6.17 with rho_L 0.5
     * and rho_H 1) and still serves the load. */
    char *dir = ss_test_tmpdir();
    double avg[3], tput[3];
    const char *const pol[] = {"atl", "atl\n  cat: {low_rps: 0, high_rps: 1000}", "atl\n  cat: {low_rps: 0.5, high_rps: 1}"};
    for (int k = 0; k < 3; k++) {
        char *out = loaded(dir, pol[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        avg[k] = column(out, "instance_s_m") / 600;
        tput[k] = column(out, "throughput_rps");
        free(out);
    }
    CU_ASSERT(avg[1] < avg[0]); /* 7.48 alone: no scale-up while mu >= lambda */
    CU_ASSERT(avg[2] < avg[0]);
    for (int k = 0; k < 3; k++) CU_ASSERT(tput[k] > 2.8 && tput[k] < 3.2);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void stalled_run_ends(void)
{
    /* An autoscaler that never starts a replica while requests wait: the run
     * ends, failed (exit 1), with the reason, instead of ticking forever. */
    char *dir = ss_test_tmpdir();
    char head[1024], yaml[4096];
    snprintf(head, sizeof head, HEAD, 3, "1.0");
    snprintf(yaml, sizeof yaml,
             "%sdeployment:\n  - {model: m, device: g0, queue: shared, instances: 0}\n"
             "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 1}\nautoscaling:\n  policy: zero-as\n",
             head);
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && SERVESIM_PLUGIN_PATH='%s/tests/plugins' timeout 20 '%s/servesim' run s.yaml -o r.csv",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT(ss_test_has(out, "autoscaler 'zero-as' keeps model 'm' at 0 replicas with"));
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void vram_refused(void)
{
    /* A replica is its model's weights plus its run-time memory: 20 + 6 GiB
     * cannot run on a 24 GiB GPU; two of 10 + 2 GiB fill it exactly (fine),
     * but not a 23.5 GiB one. */
    static const struct {
        const char *model, *deploy;
        double gib;
        int rc;
        const char *msg;
    } cases[] = {{"{name: big, service: {dist: deterministic, value_s: 1}, weights_bytes: 21474836480, "
                  "runtime_vram_bytes: 6442450944}",
                  "{model: big, device: a10}", 24, 2,
                  "s.yaml:9:5: model 'big' needs 26.000 GiB of VRAM (weights + run-time memory) and device 'h/a10' has "
                  "24.000 GiB: it cannot run there"},
                 {"{name: big, service: {dist: deterministic, value_s: 1}, weights_bytes: 10737418240, "
                  "runtime_vram_bytes: 2147483648}",
                  "{model: big, device: a10, instances: 2}", 24, 0, ": ok: scenario"},
                 {"{name: big, service: {dist: deterministic, value_s: 1}, weights_bytes: 10737418240, "
                  "runtime_vram_bytes: 2147483648}",
                  "{model: big, device: a10, instances: 2}", 23.5, 2,
                  "s.yaml:9:5: instances: the replicas deployed on device 'h/a10' need 24.000 GiB of VRAM, it has 23.500 "
                  "GiB"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *dir = ss_test_tmpdir();
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 "seed: 1\nrequests: 5\nhosts:\n  - name: h\n    devices: [{name: a10, kind: gpu, vram_gib: %g}]\n"
                 "models:\n  - %s\ndeployment:\n  - %s\nworkloads:\n  - {name: w, kind: poisson, target: big, rate_rps: 1}\n",
                 cases[i].gib, cases[i].model, cases[i].deploy);
        free(ss_test_write(dir, "s.yaml", yaml));
        char *out = NULL;
        CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' check s.yaml", dir, SS_BUILD_DIR), cases[i].rc);
        CU_ASSERT(ss_test_has(out, cases[i].msg));
        free(out);
        ss_test_sh(NULL, "rm -rf '%s'", dir);
        free(dir);
    }
}

static void devices_pattern(void)
{
    char *dir = ss_test_tmpdir();
    char head[1024], yaml[4096];
    snprintf(head, sizeof head, HEAD, 10, "1.0");
    snprintf(yaml, sizeof yaml, "%sdeployment:\n  - {model: m, devices: \"h/g*\", queue: shared}\n%s", head,
             "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 1}\n");
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' check s.yaml", dir, SS_BUILD_DIR), 0);
    CU_ASSERT(ss_test_has(out, "3 devices, 1 model, 2 instances")); /* g0 and g1, not the CPU c */
    free(out);
    snprintf(yaml, sizeof yaml, "%sdeployment:\n  - {model: m, devices: \"x*\"}\n%s", head,
             "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 1}\n");
    free(ss_test_write(dir, "s.yaml", yaml));
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' check s.yaml", dir, SS_BUILD_DIR), 2);
    CU_ASSERT(ss_test_has(out, "s.yaml:9:25: devices: no device matches 'x*'"));
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void check_describes(void)
{
    char *dir = ss_test_tmpdir();
    char head[1024], yaml[4096];
    snprintf(head, sizeof head, HEAD, 10, "1.0");
    snprintf(yaml, sizeof yaml,
             "%sdeployment:\n  - {model: m, device: g0, queue: shared}\n  - {model: m, device: c, queue: shared}\n"
             "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 1}\n"
             "events:\n  - {at_s: 2, action: remove, instance: m@c}\n  - {at_s: 5, action: fail, instance: m@g0}\n",
             head);
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' check s.yaml", dir, SS_BUILD_DIR), 0);
    CU_ASSERT(ss_test_has(out, ", model m: one shared queue, 2 scripted events from 2 s to 5 s\n"));
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* Bad input: exit 2, the message at file:line:col, no output file. */
static void refused(const char *body, const char *msg)
{
    char head[1024], yaml[8192];
    snprintf(head, sizeof head, HEAD, 10, "1.0");
    snprintf(yaml, sizeof yaml, "%s%s", head, body);
    ss_test_refused(yaml, msg);
}

static const char *WL = "workloads:\n  - {name: w, target: m, kind: poisson, rate_rps: 1}\n";

/* An autoscaler plugin of policies/, loaded into *pl and initialised with
 * the params kv[0..n-1] for ngroups models: its state, or NULL. */
static void *autoscaler_state(ss_plugin *pl, const char *name, const ss_param *kv, size_t n, uint32_t ngroups)
{
    ss_err err = {0};
    setenv("SERVESIM_PLUGIN_PATH", SS_BUILD_DIR "/policies", 1);
    if (ss_plugin_load(pl, name, SS_KIND_AUTOSCALER, NULL, "t.yaml", 1, 1, &err) != 0) return NULL;
    ss_params params = {kv, n};
    ss_policy_init init = {.params = &params, .ngroups = ngroups};
    char msg[256];
    void *st = NULL;
    if (pl->pol->init(&st, &init, msg, sizeof msg) != 0) {
        ss_plugin_unload(pl);
        return NULL;
    }
    return st;
}

/* owk is Kubernetes' HPA on GPU utilisation: starting replicas are HPA's
 * not-yet-ready pods.  Worked by hand with target 0.6, tolerance 0.1,
 * max_ratio 2: */
static void owk_not_ready(void)
{
    ss_plugin pl;
    void *st = autoscaler_state(&pl, "owk", NULL, 0, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    uint32_t (*desired)(void *, const ss_autoscale_view *) = pl.pol->ops.autoscaler.desired;
    ss_autoscale_view v = {.up = 2, .util = 0.9};
    CU_ASSERT_EQUAL(desired(st, &v), 3); /* ceil(2 x 0.9 / 0.6) */
    v.starting = 1;                      /* 1.8 / (0.6 x 3) = 1: the recount holds */
    CU_ASSERT_EQUAL(desired(st, &v), 3);
    v = (ss_autoscale_view){.up = 4, .starting = 1, .util = 1.0};
    CU_ASSERT_EQUAL(desired(st, &v), 7); /* 4 / (0.6 x 5) = 1.33 > 1.1: ceil(4 / 0.6) */
    v = (ss_autoscale_view){.up = 2, .starting = 3, .util = 0.3};
    CU_ASSERT_EQUAL(desired(st, &v), 1); /* a scale-down sizes from the 2 ready: ceil(2 x 0.5) */
    v = (ss_autoscale_view){.up = 0, .starting = 2, .queued = 9};
    CU_ASSERT_EQUAL(desired(st, &v), 2); /* no ready replica, no metric: hold */
    v = (ss_autoscale_view){.up = 1, .util = 1.0};
    CU_ASSERT_EQUAL(desired(st, &v), 2); /* ceil(1 / 0.6) = 2, within max_ratio 2 */
    pl.pol->fini(st);
    ss_plugin_unload(&pl);
}

/* sm behind SageMaker's target-tracking alarms (3 datapoints above the
 * target to scale out, 15 below 90% of it to scale in), target 60 a
 * minute, one replica, a tick a datapoint: */
static void sm_alarms(void)
{
    ss_plugin pl;
    ss_param kv[] = {{"target_per_min", "60"}, {"out_datapoints", "3"}, {"in_datapoints", "15"}, {"in_ratio", "0.9"}};
    void *st = autoscaler_state(&pl, "sm", kv, 4, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    uint32_t (*desired)(void *, const ss_autoscale_view *) = pl.pol->ops.autoscaler.desired;
    ss_autoscale_view v = {.model = 1, .up = 1, .nwindows = 1, .window_s = {60}, .rate_rps = {2.5}};
    CU_ASSERT_EQUAL(desired(st, &v), 1); /* 150 a minute: 3 wanted, 1st datapoint above */
    CU_ASSERT_EQUAL(desired(st, &v), 1); /* 2nd */
    v.model = 0;                         /* another model's alarms are its own */
    CU_ASSERT_EQUAL(desired(st, &v), 1);
    v.model = 1;
    CU_ASSERT_EQUAL(desired(st, &v), 3); /* 3rd in a row: ceil(150 / 60) */
    v = (ss_autoscale_view){.model = 1, .up = 3, .nwindows = 1, .window_s = {60}, .rate_rps = {2.6}};
    int held = 1;                        /* 156 a minute: 2.6 x 60 < 0.9 x 60 x 3 = 162, below */
    for (int i = 0; i < 14; i++) held &= desired(st, &v) == 3;
    CU_ASSERT(held);
    CU_ASSERT_EQUAL(desired(st, &v), 3); /* 15th below, but ceil(156 / 60) = 3: nothing to do */
    v.rate_rps[0] = 1;                   /* 60 a minute: 1 wanted, and 16 datapoints below */
    CU_ASSERT_EQUAL(desired(st, &v), 1);
    v.rate_rps[0] = 3;                   /* 180 a minute, not below 162: the run of datapoints restarts */
    CU_ASSERT_EQUAL(desired(st, &v), 3);
    v.rate_rps[0] = 1;                   /* below again, 1 wanted: the 1st datapoint of 15, held */
    CU_ASSERT_EQUAL(desired(st, &v), 3);
    pl.pol->fini(st);
    ss_plugin_unload(&pl);
    ss_param half[] = {{"out_datapoints", "1.5"}}; /* a count of datapoints is whole */
    CU_ASSERT_PTR_NULL(autoscaler_state(&pl, "sm", half, 1, 1));
}

static void bad_input(void)
{
    char b[2048];
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0, queue: shared, instances: 0}\n%s", WL);
    refused(b, "s.yaml:9:5: queue: model 'm' has a shared queue but no instance");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: c, discipline: ps, cap: 3}\n%s", WL);
    refused(b, "s.yaml:9:48: cap: 3 is above the capacity of device 'h/c' (2 cores)");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0, discipline: ps, servers: 2}\n%s", WL);
    refused(b, "s.yaml:9:44: servers: a ps instance serves every request it holds at once");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0}\n%sevents:\n  - {at_s: -1, action: remove, instance: m@g0}\n",
             WL);
    refused(b, "s.yaml:13:12: at_s: expected a number >= 0");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0}\n%sevents:\n  - {at_s: 1, action: remove, instance: m@g1}\n",
             WL);
    refused(b, "s.yaml:13:41: instance: model 'm' has no deployment entry on device 'h/g1'");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0}\n%sevents:\n  - {at_s: 1, action: fail, instance: m@g0#1}\n",
             WL);
    refused(b, "s.yaml:13:39: instance: 'm@g0#1' names instance #1, but model 'm' has 1 on device 'h/g0' by then");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0}\n%sevents:\n  - {at_s: 1, action: fail, instance: mm@g0}\n",
             WL);
    refused(b, "s.yaml:13:39: unknown model 'mm'");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: m, device: c, discipline: ps}\n%sevents:\n"
             "  - {at_s: 1, action: capacity, instance: m@c, capacity: 4}\n",
             WL);
    refused(b, "s.yaml:13:58: capacity: 4 is above the capacity of device 'h/c' (2)");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: m, device: g0}\n%sevents:\n  - {at_s: 1, action: capacity, instance: m@g0, capacity: 1}\n",
             WL);
    refused(b, "s.yaml:13:43: instance: a capacity event changes the cap of a ps instance");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0}\n%sautoscaling:\n  policy: atl\n  models: [m]\n", WL);
    refused(b, "s.yaml:14:12: models: 'm' has no shared queue");
    snprintf(b, sizeof b, "deployment:\n  - {model: m, device: g0, queue: shared}\n%sautoscaling:\n  policy: fifo\n", WL);
    refused(b, "s.yaml:13:11: policy 'fifo' (");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: m, device: g0, queue: shared}\n%sautoscaling:\n  policy: atl\n  windows_s: [60, 6]\n",
             WL);
    refused(b, "s.yaml:14:19: windows_s: expected windows from shortest to longest");
}

/* A model's request_overhead_s (FP §1.4's network request overhead): two
 * requests at t = 0 reach the queue 0.25 s later, so one GPU of 1 s
 * requests finishes them at 1.25 and 2.25 s; queue time starts at the
 * queue. */
static void request_overhead(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.csv", "timestamp_s\n0\n0\n"));
    free(ss_test_write(dir, "s.yaml",
                       "seed: 1\nrequests: 2\nhosts:\n  - {name: h, devices: [{name: g0, kind: gpu}]}\n"
                       "models:\n  - {name: m, service: {dist: deterministic, value_s: 1}, request_overhead_s: 0.25}\n"
                       "deployment:\n  - {model: m, device: g0}\n"
                       "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --requests-csv q.csv >/dev/null && cat q.csv",
                        dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 0), 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(finish_of(out, 1), 2.25, 1e-9);
    CU_ASSERT(ss_test_has(out, ",2250.000000000,1000.000000000,")); /* latency 2.25 s, of which 1 s queued */
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("substrate", {"shared queue: two GPUs, one queue", shared_queue_two_gpus},
              {"ps: hand-computed max-min finish times", ps_three_jobs_two_cores},
              {"preemptive-resume priority, per-workload rows", preemptive_resume},
              {"fail: lost or re-queued", fail_lose_and_requeue}, {"add: a second instance halves the backlog", add_instance_doubles_throughput},
              {"capacity and cap changed mid-job", capacity_in_flight}, {"check describes it", check_describes},
              {"VRAM: replicas that do not fit are refused", vram_refused},
              {"devices: a pattern deploys on every device it matches", devices_pattern},
              {"autoscaling: keepalive by hand", keepalive_by_hand}, {"autoscaling: a stalled run ends", stalled_run_ends},
              {"autoscaling: the CAT rule gates scaling", cat_gates},
              {"autoscaling: tsk, atl, owk, sm, knative follow a load", policies_follow_load},
              {"autoscaling: owk treats starting replicas as HPA's not-ready pods", owk_not_ready},
              {"autoscaling: sm behind SageMaker's target-tracking alarms", sm_alarms},
              {"autoscaling: decisions that take time, and a run that still ends", decision_delay_by_hand},
              {"a model's request overhead delays its queue", request_overhead},
              {"bad input: file:line:col, exit 2, no output", bad_input})
