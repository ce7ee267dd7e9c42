/* test_control_world.c: time-shared devices and controlled containers in a
 * run (sim/control/control.c, docs/control.md), through the CLI with finish
 * times computed by hand: a container's quota changed mid-request under
 * the speed-up law, processor sharing inside a container, the gate of a
 * time-shared device and its scheduler, the GPU-first rule, core-seconds
 * of static allocations; and the sections' bad input. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Two models on one worker: a time-shared GPU and a 4-core CPU. */
static const char *HOST = "seed: 5\nrequests: %d\n"
                          "hosts:\n  - {name: w, devices: [{name: gpu, kind: gpu, time_shared: true},"
                          " {name: cpu, kind: cpu, cores: 4}]}\n"
                          "models:\n"
                          "  - {name: a, service: {dist: deterministic, value_s: 1}, sla_s: 1.5,"
                          " cpu_service: {dist: deterministic, value_s: 4}, serial_fraction: %s}\n"
                          "  - {name: b, service: {dist: deterministic, value_s: 1}, sla_s: 1.5}\n";

/* Run HOST + body (n requests) with the traces ta.csv and tb.csv written
 * from ta and tb.  Returns the requests CSV, "====", the results CSV; NULL
 * if the run failed. */
static char *go(const char *dir, int n, const char *sf, const char *ta, const char *tb, const char *body)
{
    free(ss_test_write(dir, "ta.csv", ta));
    free(ss_test_write(dir, "tb.csv", tb));
    char head[1024], yaml[8192];
    snprintf(head, sizeof head, HOST, n, sf);
    snprintf(yaml, sizeof yaml, "%s%s", head, body);
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --requests-csv q.csv --quiet && "
                              "cat q.csv && echo ==== && cat r.csv",
                        dir, SS_BUILD_DIR);
    if (rc != 0) {
        fprintf(stderr, "\nrun failed:\n%s\n", out ? out : "");
        free(out);
        return NULL;
    }
    return out;
}

/* Field k (0-based) of the CSV line that starts at p, as a number. */
static double field(const char *p, int k)
{
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    return p ? strtod(p, NULL) : NAN;
}

/* finish_s of the request whose id is `id` (requests CSV: variant,
 * replication, id, workload, task, arrival_s, finish_s, ...). */
static double done_at(const char *out, int id)
{
    for (const char *p = strchr(out, '\n'); p && strncmp(p + 1, "====", 4) != 0; p = strchr(p + 1, '\n'))
        if ((int)field(p + 1, 2) == id) return field(p + 1, 6);
    return NAN;
}

/* The results CSV's column `col` on its first data row. */
static double result(const char *out, const char *col)
{
    const char *h = strstr(out, "====\n");
    if (!h) return NAN;
    h += 5;
    const char *nl = strchr(h, '\n');
    int k = 0;
    for (const char *p = h; p < nl; k++) {
        size_t len = strcspn(p, ",\n");
        if (len == strlen(col) && strncmp(p, col, len) == 0) return field(nl + 1, k);
        p += len + 1;
    }
    return NAN;
}

static const char *CPU_ONLY = "deployment:\n"
                              "  - {model: a, device: cpu, queue: shared, discipline: ps, cap: 2, threads: 4%s}\n"
                              "  - {model: b, device: gpu, queue: shared}\n"
                              "workloads:\n  - {name: wa, kind: trace, target: a, file: ta.csv}\n";

/* One request of 4 core-seconds on a 2-core container; at 1 s the quota
 * drops to 0.5 core.  Linear (s = 0): 2 done by 1 s, 2 left at 0.5/s: done
 * at 5 s.  Amdahl s = 0.5: speed(2) = 1/(0.5 + 0.25) = 4/3, so 4/3 done
 * by 1 s, 8/3 left at speed(0.5) = 0.5: done at 1 + 16/3 s. */
static void quota_mid_request(void)
{
    char *dir = ss_test_tmpdir();
    char body[2048];
    snprintf(body, sizeof body, CPU_ONLY, "");
    strcat(body, "events:\n  - {at_s: 1, action: capacity, instance: a@cpu, capacity: 0.5}\n");
    char *out = go(dir, 1, "0", "timestamp_s\n0\n", "timestamp_s\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 0), 5.0, 1e-9);
    free(out);
    out = go(dir, 1, "0.5", "timestamp_s\n0\n", "timestamp_s\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 0), 1 + 16.0 / 3, 1e-9);
    free(out);
    /* Under control, the cores change twice mid-request: the event sets 0.5
     * at 1.1 s and the static controller, at its next tick (1.25 s),
     * restores the 2 it first saw.  2.2 done by 1.1 s, 0.075 by 1.25 s, the
     * 1.725 left at 2: done at 2.1125 s.  Core-seconds to then: 2 x 1.1 +
     * 0.5 x 0.15 + 2 x 0.8625 = 4. */
    snprintf(body, sizeof body, CPU_ONLY, "");
    strcat(body, "events:\n  - {at_s: 1.1, action: capacity, instance: a@cpu, capacity: 0.5}\n"
                 "control:\n  controller: static\n  period_s: 0.25\n");
    out = go(dir, 1, "0", "timestamp_s\n0\n", "timestamp_s\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 0), 2.1125, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(result(out, "core_s"), 4.0, 1e-9);
    free(out);
    ss_test_rmtree(dir);
}

/* A container holding two requests at once (servers: 2) shares its speed:
 * two 4 core-second requests at 0 on 2 cores run at 1 each; at 2 s (2
 * left each) the quota rises to 4 cores: 2 each, done at 3 s. */
static void sharing_inside(void)
{
    char *dir = ss_test_tmpdir();
    char body[2048];
    snprintf(body, sizeof body, CPU_ONLY, ", servers: 2");
    strcat(body, "events:\n  - {at_s: 2, action: capacity, instance: a@cpu, capacity: 4}\n");
    char *out = go(dir, 2, "0", "timestamp_s\n0\n0\n", "timestamp_s\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 0), 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 1), 3.0, 1e-9);
    free(out);
    ss_test_rmtree(dir);
}

static const char *GPU_ONLY = "deployment:\n"
                              "  - {model: a, device: gpu, queue: shared}\n"
                              "  - {model: b, device: gpu, queue: shared}\n"
                              "workloads:\n  - {name: wa, kind: trace, target: a, file: ta.csv}\n"
                              "  - {name: wb, kind: trace, target: b, file: tb.csv, start_s: 0.2}\n"
                              "dispatch:\n  scheduler: %s\n";

/* The gate: one request at a time over both models' executables.  a
 * arrives at 0 and 0.1, b at 0.2 (1 s each).  a0 runs [0, 1] (gpu-rr was
 * asked: its cursor is on a); at 1 both queues hold one: gpu-rr serves b
 * next, then a: b done at 2, a1 at 3.  Requests are numbered in creation
 * order: a0 = 0, a1 = 1, b = 2. */
static void gate_round_robin(void)
{
    char *dir = ss_test_tmpdir();
    char body[2048];
    snprintf(body, sizeof body, GPU_ONLY, "gpu-rr");
    char *out = go(dir, 3, "0", "timestamp_s\n0\n0.1\n", "timestamp_s\n0\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 0), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 2), 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 1), 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(result(out, "gpu_share_a"), 1.0, 1e-12);
    free(out);
    ss_test_rmtree(dir);
}

/* roma (Algorithm 1, alpha 0.8 so the set point is 1.2 s, beta 0.5) at 1 s:
 * a waited 0.9 s with a's one completion of 1 s: W_a = 0.5 x 0.9 + 0.5 x 1
 * = 0.95, below the set point: 0.  b waited 0.8 s, no completion yet: W_b
 * = E_b = 0.8: 0.  All zero: the longest queue, a tie, the first model: a
 * then b - the opposite order of gpu-rr.
 * With b at 0.2 and 0.3 instead (ids a0 0, a1 1, b0 2, b1 3), at 1 s: E_b
 * = mean(0.8 + 0, 0.7 + 1 x 1) = 1.25 > 1.2, eps_b = 0.042 > 0 = eps_a: b0.
 * At 2 s: a's completion at 1 left the 1-s window, so W_a = E_a = 1.9, eps
 * 0.583; b: 0.5 x 1.7 + 0.5 x 1.8 (b0's response) = 1.75, eps 0.458: a1,
 * then b1. */
static void gate_roma(void)
{
    char *dir = ss_test_tmpdir();
    char body[2048];
    snprintf(body, sizeof body, GPU_ONLY, "roma");
    char *out = go(dir, 3, "0", "timestamp_s\n0\n0.1\n", "timestamp_s\n0\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 1), 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 2), 3.0, 1e-9);
    free(out);
    out = go(dir, 4, "0", "timestamp_s\n0\n0.1\n", "timestamp_s\n0\n0.1\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 2), 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 1), 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 3), 4.0, 1e-9);
    free(out);
    ss_test_rmtree(dir);
}

/* A free time-shared device takes an arrival before a free container: a
 * at 0 goes to the GPU (done at 1), a at 0.5 to the container (4 core-s
 * at 2 cores: done at 2.5). */
static void gpu_first(void)
{
    char *dir = ss_test_tmpdir();
    const char *body = "deployment:\n"
                       "  - {model: a, device: gpu, queue: shared}\n"
                       "  - {model: a, device: cpu, queue: shared, discipline: ps, cap: 2, threads: 4}\n"
                       "  - {model: b, device: gpu, queue: shared}\n"
                       "workloads:\n  - {name: wa, kind: trace, target: a, file: ta.csv}\n"
                       "control:\n  controller: static\n";
    char *out = go(dir, 2, "0", "timestamp_s\n0\n0.5\n", "timestamp_s\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 0), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 1), 2.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(result(out, "gpu_share_a"), 0.5, 1e-12);
    /* one of two over the 1.5 s SLA (2.0 s), in one 1-s window (2 to 3) */
    CU_ASSERT_DOUBLE_EQUAL(result(out, "sla_viol_requests_a"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(result(out, "sla_viol_windows_a"), 1, 0);
    free(out);
    ss_test_rmtree(dir);
}

/* A time-shared device whose executable fails goes on with the other
 * models' queues: a0 (at 0) fails at 0.5 and is lost; b (at 0.2, queued
 * behind it) starts at once: done at 1.5. */
static void gate_after_fail(void)
{
    char *dir = ss_test_tmpdir();
    char body[2048];
    snprintf(body, sizeof body, GPU_ONLY, "gpu-rr");
    strcat(body, "events:\n  - {at_s: 0.5, action: fail, instance: a@gpu, requests: lose}\n");
    char *out = go(dir, 2, "0", "timestamp_s\n0\n", "timestamp_s\n0\n", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_DOUBLE_EQUAL(done_at(out, 1), 1.5, 1e-9);
    free(out);
    ss_test_rmtree(dir);
}

/* R §1.3 item 7's anchors on the shipped tests: RR+max allocates every core
 * of both workers for the 300 s, 2 x 6 x 300 = 3600 core-seconds, and
 * RR+min one core per worker, 600, in every test and repetition. */
static void static_anchors(void)
{
    static const char *const tests[] = {"pair-i", "pair-ii", "allapps"};
    for (size_t t = 0; t < 3; t++)
        for (int v = 0; v < 2; v++) {
            char *out = NULL;
            int rc = ss_test_sh(&out,
                                "cd '%s' && '%s/servesim' run scenarios/roma/%s.yaml --variant %s -o - "
                                "--quiet | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } "
                                "{ print $c[\"core_s\"] }' | sort -u",
                                SS_SRC_DIR, SS_BUILD_DIR, tests[t], v ? "rr-min" : "rr-max");
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_STRING_EQUAL(out ? out : "", v ? "600.000000\n" : "3600.000000\n");
            if (!out || strcmp(out, v ? "600.000000\n" : "3600.000000\n") != 0)
                fprintf(stderr, "\n%s %s: core_s %s\n", tests[t], v ? "rr-min" : "rr-max", out ? out : "");
            free(out);
        }
}

/* Bad input: exit 2, the message at file:line:col, no output file. */
static void refused(const char *body, const char *msg)
{
    char head[1024], yaml[8192];
    snprintf(head, sizeof head, HOST, 10, "0");
    snprintf(yaml, sizeof yaml, "%s%s", head, body);
    ss_test_refused(yaml, msg);
}

static void bad_input(void)
{
    const char *dep = "deployment:\n"
                      "  - {model: a, device: cpu, queue: shared, discipline: ps, cap: 2, threads: 4}\n"
                      "  - {model: b, device: gpu, queue: shared}\n"
                      "workloads:\n  - {name: wa, kind: poisson, target: a, rate_rps: 1}\n";
    char b[4096];
    snprintf(b, sizeof b, "%scontrol:\n  controller: static\n  period_s: -1\n", dep);
    refused(b, "s.yaml:15:13: period_s: the control period must be positive (seconds), got -1");
    snprintf(b, sizeof b, "%scontrol:\n  controller: static\n  gamma: 2\n", dep);
    refused(b, "s.yaml:15:10: gamma: expected 0 to 1, got 2");
    snprintf(b, sizeof b,
             "deployment:\n"
             "  - {model: a, device: cpu, queue: shared, discipline: ps, cap: 3, threads: 4}\n"
             "  - {model: b, device: cpu, queue: shared, discipline: ps, cap: 2}\n"
             "workloads:\n  - {name: wa, kind: poisson, target: a, rate_rps: 1}\n"
             "control:\n  controller: static\n");
    refused(b, "s.yaml:10:5: the containers on 'w/cpu' start with 5 cores in all, above its 4 cores");
    snprintf(b, sizeof b, "%scontrol:\n  controller: static\n  reserved_cores: 4\n", dep);
    refused(b, "s.yaml:15:19: device 'w/cpu': 4 cores less the 4 reserved leave no more than min_cores");
    snprintf(b, sizeof b, "%sdispatch:\n  scheduler: {name: roma, alpha: 1.5}\n", dep);
    refused(b, "s.yaml:14:14: policy 'roma': ");
    snprintf(b, sizeof b, "%sdispatch:\n  scheduler: {name: roma, beta: -0.1}\n", dep);
    refused(b, "s.yaml:14:14: policy 'roma': ");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: a, device: gpu, queue: shared, servers: 2}\n"
             "workloads:\n  - {name: wa, kind: poisson, target: a, rate_rps: 1}\n");
    refused(b, "s.yaml:9:5: device 'w/gpu' is time-shared: its executables are FIFO, one server");
    snprintf(b, sizeof b, "%scontrol:\n  period_s: 1\n", dep);
    refused(b, "s.yaml:14:3: control: missing key 'controller'");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: b, device: gpu, queue: shared}\n"
             "workloads:\n  - {name: wb, kind: poisson, target: b, rate_rps: 1}\n"
             "control:\n  controller: static\n");
    refused(b, "s.yaml:13:3: control: no container to control");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: b, device: gpu, queue: shared}\n"
             "workloads:\n  - {name: wb, kind: poisson, target: b, rate_rps: 1}\n"
             "autoscaling:\n  policy: atl\n");
    refused(b, "s.yaml:13:3: autoscaling: device 'w/gpu' is time-shared");
    snprintf(b, sizeof b,
             "deployment:\n  - {model: b, device: gpu, queue: shared}\n"
             "workloads:\n  - {name: wb, kind: steps, target: b, steps: []}\n");
    refused(b, "s.yaml:11:47: steps: expected at least one {until_s, rate_rps}");
}

SS_TEST_SUITE("control-world", {"a container's quota changed mid-request: exact finish", quota_mid_request},
              {"requests share a container's speed", sharing_inside},
              {"a time-shared device serves one request at a time (gpu-rr)", gate_round_robin},
              {"roma's choice at a freed GPU", gate_roma}, {"a free GPU before a free container", gpu_first},
              {"RR+max and RR+min use 3600 and 600 core-seconds in every test", static_anchors},
              {"a failed executable frees its time-shared device", gate_after_fail},
              {"bad input: file:line:col, exit 2, no output", bad_input})
