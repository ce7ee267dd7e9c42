/* test_pipeline_compute.c: block pipelines under `compute: shared`
 * (sim/pipeline/pipeline_compute.c, docs/blockflow.md "Shared compute"):
 * hand-computed cases to 1e-9 - CPU parts of hops sharing a host's cores,
 * block processes sharing a GPU, the receiver and
 * I/O threads working beside the main thread - then the thesis' single-client
 * figures unchanged, throughput bound by the host's cores under load, the
 * shared-compute reference sweeps byte for byte, and bad input.
 *
 * The hand cases.  A block `b` (in and out 1,000,000 B, compute 10 ms) with
 * zmq-copy priced so that a hop into it costs 3 ms on the receiver's I/O
 * thread (3 ns/B), 1 ms on its receiver thread (delivery_fixed_s) and 4 ms
 * on its main thread before compute (block_fixed_s); its send costs 2 ms on
 * its main thread (2 ns/B), and the result's delivery to the client 4 ms
 * (the client has no threads: a pure delay).  Alone:
 *     io 0-3, rx 3-4, receive 4-8, compute 8-18, send 18-20, client 24 ms;
 * wait_ms (sent -> service start) 4, overhead_ms 6, compute_ms 10. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/rng.h"
#include "pipeline/pipeline_compute.h"
#include "test_blockflow.h"

static const char *const split =
    "{\"name\": \"cpu-split\", \"process\": {\"context_vram_mib\": 370, \"host_ram_mib\": 700},\n"
    " \"gpu_eff_flops_per_s\": 1e12, \"kernel_fraction\": 1,\n"
    " \"blocks\": [{\"name\": \"b\", \"in_bytes_per_sample\": 1000000, \"out_bytes_per_sample\": 1000000,\n"
    "   \"gflop_per_sample\": 0.001, \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.010},\n"
    "   \"vram\": {\"process_mib\": 400}},\n"
    "  {\"name\": \"c\", \"in_bytes_per_sample\": 1000000, \"out_bytes_per_sample\": 1000000,\n"
    "   \"gflop_per_sample\": 0.001, \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.020},\n"
    "   \"vram\": {\"process_mib\": 400}}]}\n";

/* One host h with two GPUs and a CPU of `cores` cores; blocks b (gpu0), bb
 * (gpu1), c (gpu0; compute 20 ms) on tasks p1, p2, p3; workloads w1 -> p1
 * and w2 -> p2, one request each at t = 0.  `extra` is appended. */
static char *scenario(const char *dir, int cores, const char *extra)
{
    free(ss_test_write(dir, "models/cpu-split.json", split));
    free(ss_test_write(dir, "one.csv", "timestamp_s\n0\n"));
    free(ss_test_write(dir, "two.csv", "timestamp_s\n0\n0\n"));
    char text[4096];
    snprintf(text, sizeof text,
             "seed: 1\nduration_s: 1\n"
             "hosts: [{name: h, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu},\n"
             "                            {name: cpu, kind: cpu, cores: %d}]}]\n"
             "models:\n"
             "  - {name: b, split: cpu-split, block: b}\n"
             "  - {name: bb, split: cpu-split, block: b}\n"
             "  - {name: c, split: cpu-split, block: c}\n"
             "tasks: [{name: p1, path: [b]}, {name: p2, path: [bb]}, {name: p3, path: [c]}]\n"
             "deployment: [{model: b, device: gpu0}, {model: bb, device: gpu1}, {model: c, device: gpu0}]\n"
             "workloads:\n"
             "  - {name: w1, kind: trace, target: p1, file: one.csv}\n"
             "  - {name: w2, kind: trace, target: p2, file: one.csv}\n"
             "pipeline:\n"
             "  compute: shared\n"
             "  transport: {name: zmq-copy, block_fixed_s: 0.004, block_in_s_per_byte: 0, block_out_s_per_byte: 2.0e-9,\n"
             "              delivery_fixed_s: 0.001, delivery_s_per_byte: 3.0e-9}\n%s",
             cores, extra);
    return ss_test_write(dir, "pc.yaml", text);
}

static double col(const char *path, char *const *sets, size_t nsets, const char *name)
{
    return run_extra(path, NULL, sets, nsets, name, NULL);
}

/* Two hops' CPU parts on a 1-core host share the core.  b (gpu0) and bb
 * (gpu1) each get a request at 0: the two I/O threads share the core 0-6,
 * the receiver threads 6-8, the main threads' receive 8-16; compute on two
 * GPUs 16-26; the sends share the core 26-30; the client has it at 34.  With
 * 2 cores, or under fixed compute, each runs as alone (24 ms). */
static void test_cpu_parts_share_a_core(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 1, "");
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "latency_mean_ms"), 34.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "wait_ms_b"), 8.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "wait_ms_bb"), 8.0, 1e-9);
    /* o_b is the main thread's CPU time as it ran: 4 ms and 2 ms at half a core */
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "overhead_ms_b"), 12.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "compute_ms_b"), 10.0, 1e-9);
    char *two[] = {"hosts.0.devices.2.cores=2"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "latency_mean_ms"), 24.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "overhead_ms_bb"), 6.0, 1e-9);
    /* pipeline.host_cores overrides the devices' cores */
    char *hc[] = {"pipeline.host_cores={h: 2}"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, hc, 1, "latency_mean_ms"), 24.0, 1e-9);
    char *fixed[] = {"pipeline.compute=fixed"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, fixed, 1, "latency_mean_ms"), 24.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, fixed, 1, "wait_ms_b"), 4.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* pipeline.host_time_factor (a host slower than profiled, validate's per-run
 * host speed): every CPU part on h takes twice as long, the GPU's compute and
 * the client's delivery (a pure delay) do not.  Alone on 2 cores:
 *     io 0-6, rx 6-8, receive 8-16, compute 16-26, send 26-30, client 34 ms;
 * wait_ms 8, overhead_ms 12, compute_ms 10.  A factor of 1 is as without. */
static void test_host_time_factor(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 2, "");
    char *twice[] = {"pipeline.host_time_factor={h: 2}"}, *same[] = {"pipeline.host_time_factor={h: 1}"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, twice, 1, "latency_mean_ms"), 34.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, twice, 1, "wait_ms_b"), 8.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, twice, 1, "overhead_ms_bb"), 12.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, twice, 1, "compute_ms_b"), 10.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, same, 1, "latency_mean_ms"), 24.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "latency_mean_ms"), 24.0, 1e-9);
    /* bad input: a host no device is on, a factor not > 0, and under fixed compute (nothing to scale) */
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set 'pipeline.host_time_factor={hh: 2}'", SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "unknown host 'hh' (did you mean 'h'?)"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set 'pipeline.host_time_factor={h: 0}'", SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "host_time_factor: expected a number > 0"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set pipeline.compute=fixed --set 'pipeline.host_time_factor={h: 2}'",
                               SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "host_time_factor: only under compute: shared"));
    free(out);
    /* a host with no cores declared has no CPU link: nothing the factor could scale */
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set 'hosts.0.devices=[{name: gpu0, kind: gpu}, {name: gpu1, "
                                     "kind: gpu}]' --set 'pipeline.host_time_factor={h: 2}'",
                               SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "host_time_factor: host 'h' has no cores declared"));
    free(out);
    free(path);
    ss_test_rmtree(dir);
}

/* Two block processes on one GPU compute at the same time (8 cores: no CPU
 * contention).  The split profile's kernel_fraction is 1: the whole compute
 * is kernel time (test_pipeline_kernel.c splits it).  Equal work:
 * each at half the GPU, 8-28, so compute_ms 20 (twice alone) and latency 34.
 * Unequal (b 10 ms, c 20 ms): both at half until b is done at 28, then c
 * alone: its last 10 ms end at 38 (compute_ms 30, latency 44).  Under fixed
 * compute the processes are independent: 10 ms each. */
static void test_blocks_share_a_gpu(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 8, "");
    char *same[] = {"deployment.1.device=gpu0", NULL};
    CU_ASSERT_DOUBLE_EQUAL(col(path, same, 1, "compute_ms_b"), 20.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, same, 1, "compute_ms_bb"), 20.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, same, 1, "latency_mean_ms"), 34.0, 1e-9);
    char *unequal[] = {"workloads.1.target=p3"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, unequal, 1, "compute_ms_b"), 20.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, unequal, 1, "compute_ms_c"), 30.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, unequal, 1, "latency_mean_ms"), (34.0 + 44.0) / 2, 1e-9);
    char *fixed[] = {"deployment.1.device=gpu0", "pipeline.compute=fixed"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, fixed, 2, "compute_ms_b"), 10.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, fixed, 2, "compute_ms_bb"), 10.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* Work off the main thread overlaps its compute.  Two requests A, B reach b
 * at 0 on a 1-core host.  A: I/O 0-3 (B's waits behind it on the one I/O
 * thread).  At 3, A's receiver-thread work (1 ms) and B's I/O work (3 ms)
 * share the core: A's ends at 5.  A's main-thread receive (4 ms) then shares
 * with the rest of B's I/O (2 ms left): B's ends at 9, A's has 2 ms left.
 * B's receiver thread (1 ms) shares with A's receive: B's ends at 11, A's
 * last 1 ms at 12.  A computes on the GPU 12-22 (B waits for the main
 * thread), sends 22-24, reaches the client at 28.  B: receive 24-28, compute
 * 28-38, send 38-40, client 44.  B's 4 ms of I/O and receiver work ran
 * beside A's service, not after it: latencies 28 and 44 (mean 36); waits
 * (sent -> start) 5 and 24; o_b: A's receive ran 7 ms for 4 ms of work, so
 * 7 + 2 = 9, B's 4 + 2 = 6 (mean 7.5).  With cores to spare it is the fixed
 * model's 24 and 40. */
static void test_threads_overlap_compute(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 1, "");
    char wl[512]; /* a --set file is relative to the working directory */
    snprintf(wl, sizeof wl, "workloads=[{name: w1, kind: trace, target: p1, file: '%s/two.csv'}]", dir);
    char *two[] = {wl, NULL};
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "latency_mean_ms"), 36.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "wait_ms_b"), 14.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "overhead_ms_b"), 7.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "compute_ms_b"), 10.0, 1e-9);
    two[1] = "hosts.0.devices.2.cores=16";
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 2, "latency_mean_ms"), 32.0, 1e-9);
    two[1] = "pipeline.compute=fixed";
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 2, "latency_mean_ms"), 32.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* One synchronous client keeps one request in flight: nothing is shared, so
 * the thesis' figures (docs/blockflow.md, Acceptance) come out as under fixed
 * compute.  One replication of 30 s keeps the test short. */
static void test_single_client_unchanged(void)
{
    const char *p = SCN "single-gv100.yaml";
    const char *cols[] = {"pipeline_time_ms", "pipeline_overhead_ms", "pipeline_compute_ms", "energy_per_request_mj"};
    const char *variants[] = {"tensormq", "zmq-copy"};
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 4; i++) {
            char *fixed[] = {"replications=1", "duration_s=30"};
            char *shared[] = {"replications=1", "duration_s=30", "pipeline.compute=shared",
                              "pipeline.host_cores={fullsuper: 32}"};
            double a = run_extra(p, variants[v], fixed, 2, cols[i], NULL);
            double b = run_extra(p, variants[v], shared, 4, cols[i], NULL);
            CU_ASSERT_DOUBLE_EQUAL(b, a, 1e-9 * a);
        }
}

/* Under load the host's cores bound throughput.  zmq-copy, Poisson 100/s on
 * the GV100 (overloaded: the run drains, so throughput is the capacity).
 * With 1 core every request needs 21.18 ms of main-thread work (o_b),
 * 6,221,824 B x 1.6359 ns/B = 10.18 ms on I/O threads, 4 x 0.4457 ms on
 * receiver threads and the compute's host part, (1 - 0.161) x 11.703 ms =
 * 9.82 ms (models/resnet50-split.json's kernel_fraction): 42.96 ms of one
 * core, so at most 23.28/s; the core idles
 * only while every runnable process waits on the GPU, so a little less.
 * With 8 cores the CPU no longer binds: the GPU and block2's main thread do,
 * and 32 cores give the same. */
static void test_cores_bound_throughput(void)
{
    const char *p = SCN "single-gv100.yaml";
    char *sets[] = {"replications=1", "duration_s=20", "warmup_requests=0", "warmup_s=2",
                    "workloads.0={name: client, kind: poisson, target: classify, rate_rps: 100}",
                    "pipeline.compute=shared", NULL};
    double cpu_s = 21.18e-3 + 6221824 * 1.635908e-9 + 4 * 0.445679e-3 + (1 - 0.161) * 11.703e-3, bound = 1 / cpu_s;
    double th[3];
    const char *cores[] = {"pipeline.host_cores={fullsuper: 1}", "pipeline.host_cores={fullsuper: 8}",
                           "pipeline.host_cores={fullsuper: 32}"};
    for (int i = 0; i < 3; i++) {
        sets[6] = (char *)cores[i];
        th[i] = run_extra(p, "zmq-copy", sets, 7, "throughput_rps", NULL);
    }
    if (!(th[0] <= bound && th[0] >= 0.85 * bound))
        fprintf(stderr, "\n  1 core: %.3f/s, bound %.3f/s\n", th[0], bound);
    CU_ASSERT_TRUE(th[0] <= bound && th[0] >= 0.85 * bound);
    CU_ASSERT_TRUE(th[1] > 2 * th[0]);
    CU_ASSERT_DOUBLE_EQUAL(th[1], th[2], 1e-9 * th[2]);
}

/* The committed shared-compute sweeps (results/reference/blockflow-cores.csv
 * and blockflow-rate-shared.csv, `make reference`) come out byte for byte. */
static void test_reference_reproduces(void)
{
    CU_ASSERT_TRUE(ss_test_sweep_reproduces("scenarios/sweeps/blockflow-cores.yaml",
                                            "results/reference/blockflow-cores.csv"));
    CU_ASSERT_TRUE(ss_test_sweep_reproduces("scenarios/sweeps/blockflow-rate-shared.yaml",
                                            "results/reference/blockflow-rate-shared.csv"));
}

/* Bad input: positioned, exit status 2. */
static void test_bad_input(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 1, "");
    char *out = NULL;
    int rc = ss_test_sh(&out, "'%s' check '%s' --set pipeline.compute=shard", SS_BIN, path);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "compute: unknown value 'shard' (did you mean 'shared'?)"));
    free(out);
    rc = ss_test_sh(&out, "'%s' check '%s' --set 'pipeline.host_cores={hh: 4}'", SS_BIN, path);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "unknown host 'hh' (did you mean 'h'?)"));
    free(out);
    rc = ss_test_sh(&out, "'%s' check '%s' --set 'pipeline.host_cores={h: 0}'", SS_BIN, path);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "host_cores: expected a number > 0"));
    free(out);
    free(path);
    ss_test_rmtree(dir);
}

/* Wake-up stacking (pipeline_compute.c) by hand on one host of 2 cores, 1 s
 * of work each.  Probability 1, migration never (mean 1e9 s): B starts
 * beside A, is stacked on A's core, both run at half a core and end at 2 s,
 * while C, starting at 0.5 s, takes the free core and ends at 1.5 s.  A
 * migration after about 1e-9 s: all end as if unstacked - A and B on a core
 * each, C arriving to no free core (so not stacked) and the three sharing
 * the two cores by max-min: A and B at 1.25 s, C at 1.75 s.  Probability
 * 0: the same.  Alone, nothing is stacked (A at 1 s). */
static double stack_done_s[3];

static void stack_done(void *ctx, uint64_t arg)
{
    stack_done_s[arg] = ss_now(ctx);
}

static ss_pc_place stack_place[3];

static void stack_start(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_pcomp_cpu_on(ctx, &stack_place[arg], 1, 0, 1.0, stack_done, eng, arg);
}

static void stack_case(double prob, double mean_s, int n, double *out)
{
    ss_engine *eng = ss_engine_new();
    double cores = 2;
    ss_pcomp *c = ss_pcomp_new(eng, 1, &cores, 0, NULL, NULL);
    ss_pcomp_set_stacking(c, prob, mean_s, ss_rng_stream(1, 0, "test/stacking"));
    for (int i = 0; i < 3; i++) {
        stack_done_s[i] = NAN;
        ss_pc_place_init(&stack_place[i], c);
    }
    double at[3] = {0, 0, 0.5};
    for (int i = 0; i < n; i++) ss_schedule(eng, at[i], stack_start, c, (uint64_t)i);
    ss_engine_run(eng, 100);
    for (int i = 0; i < 3; i++) out[i] = stack_done_s[i];
    ss_pcomp_free(c);
    ss_engine_free(eng);
}

/* A thread's stacking lasts across its consecutive pieces: X wakes beside A
 * (10 s of work) and is stacked; its two pieces of 0.5 s run at half a core,
 * back to back, ending at 1 and 2 s (not 1 and 1.5). */
static ss_pcomp *chain_c;

static void chain_second(void *ctx, uint64_t arg)
{
    (void)arg;
    stack_done_s[2] = ss_now(ctx);
}

static void chain_first(void *ctx, uint64_t arg)
{
    (void)arg;
    stack_done_s[1] = ss_now(ctx);
    ss_pcomp_cpu_on(chain_c, &stack_place[1], 0, 0, 0.5, chain_second, ctx, 0);
}

static void chain_start(ss_engine *eng, void *ctx, uint64_t arg)
{
    if (arg == 0) ss_pcomp_cpu_on(ctx, &stack_place[0], 1, 0, 10.0, stack_done, eng, 0);
    else ss_pcomp_cpu_on(ctx, &stack_place[1], 1, 0, 0.5, chain_first, eng, 0);
}

static void test_stacking_lasts_across_pieces(void)
{
    ss_engine *eng = ss_engine_new();
    double cores = 2;
    chain_c = ss_pcomp_new(eng, 1, &cores, 0, NULL, NULL);
    ss_pcomp_set_stacking(chain_c, 1, 1e9, ss_rng_stream(1, 0, "test/stacking"));
    for (int i = 0; i < 3; i++) ss_pc_place_init(&stack_place[i], chain_c);
    ss_schedule(eng, 0, chain_start, chain_c, 0);
    ss_schedule(eng, 0, chain_start, chain_c, 1);
    ss_engine_run(eng, 100);
    CU_ASSERT_DOUBLE_EQUAL(stack_done_s[1], 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(stack_done_s[2], 2.0, 1e-9);
    /* A: half a core for 2 s, then alone: 1 + 9 s more */
    CU_ASSERT_DOUBLE_EQUAL(stack_done_s[0], 11.0, 1e-9);
    ss_pcomp_free(chain_c);
    ss_engine_free(eng);
}

static void test_wakeup_stacking(void)
{
    double t[3];
    stack_case(1, 1e9, 3, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 1.5, 1e-9);
    stack_case(1, 1e-9, 3, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 1.25, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 1.25, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 1.75, 1e-6);
    stack_case(0, 1, 3, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 1.75, 1e-9);
    stack_case(1, 1e9, 1, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 1.0, 1e-9);
    /* a stacked pair ends when the first of them does: A's partner runs at a full core again */
    stack_case(1, 1e9, 2, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 2.0, 1e-9);
}

/* CPU interference (pipeline_compute.c) by hand on one host of 2 cores, n
 * pieces of 1 s of work started together, corun_factor g = 1.25, slice_factor
 * f = 1.6: one alone ends at 1 s; two co-run, each at 1 / g of a core, 1.25 s;
 * four are two to a core, each at 1 / (2 g f), 4 s; three on (2 - 1 + 1 / f)
 * / g = 1.3 cores of capacity, 1 / 2.3077 each, until all three end together
 * at 3 / 1.3 = 2.3077 s.  Factors 1 and 1: max-min as before (three at 1.5 s).
 * A stacked pair is time-sliced: two stacked pieces end at 2 f = 3.2 s (2 f g = 4 s with g = 1.25). */
static void interference_case(double g, double f, int n, double prob, double *out)
{
    ss_engine *eng = ss_engine_new();
    double cores = 2;
    ss_pcomp *c = ss_pcomp_new(eng, 1, &cores, 0, NULL, NULL);
    ss_pcomp_set_interference(c, g, f);
    if (prob > 0) ss_pcomp_set_stacking(c, prob, 1e9, ss_rng_stream(1, 0, "test/interference"));
    for (int i = 0; i < 3; i++) {
        stack_done_s[i] = NAN;
        ss_pc_place_init(&stack_place[i], c);
    }
    for (int i = 0; i < n; i++) {
        if (i < 3) ss_schedule(eng, 0, stack_start, c, (uint64_t)i);
        else ss_pcomp_cpu(c, 0, 1.0, stack_done, eng, 0); /* a fourth, unplaced: its end is not looked at */
    }
    ss_engine_run(eng, 100);
    for (int i = 0; i < 3; i++) out[i] = stack_done_s[i];
    ss_pcomp_free(c);
    ss_engine_free(eng);
}

static void test_cpu_interference(void)
{
    double t[3];
    interference_case(1.25, 1.6, 1, 0, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 1.0, 1e-9);
    interference_case(1.25, 1.6, 2, 0, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 1.25, 1e-9);
    interference_case(1.25, 1.6, 3, 0, t);
    for (int i = 0; i < 3; i++) CU_ASSERT_DOUBLE_EQUAL(t[i], 3 / 1.3, 1e-9);
    interference_case(1.25, 1.6, 4, 0, t);
    for (int i = 0; i < 3; i++) CU_ASSERT_DOUBLE_EQUAL(t[i], 4.0, 1e-9);
    interference_case(1, 1, 3, 0, t);
    for (int i = 0; i < 3; i++) CU_ASSERT_DOUBLE_EQUAL(t[i], 1.5, 1e-9);
    /* stacked (probability 1, never migrated): the second start shares the first's core */
    interference_case(1, 1.6, 2, 1, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 3.2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 3.2, 1e-9);
    /* ... and beside the other core's work: 1 / (2 f g), 4 s, with g = 1.25 */
    interference_case(1.25, 1.6, 2, 1, t);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 4.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 4.0, 1e-9);
}

/* Unnamed work under run queues (ss_pcomp_cpu with no thread: each piece a
 * thread of its own, its record pooled again only when that thread sleeps):
 * 2 cores, three pieces of 1 s at 0 - A and B a core each, C waiting on core 0
 * (A inside its slice, no tick within) until A ends: 1, 1 and 2 s; a fourth at
 * 3 s, on a pooled record, alone: 4 s. */
static double anon_end_s[4];

static void anon_done(void *ctx, uint64_t arg)
{
    anon_end_s[arg] = ss_now(ctx);
}

static void anon_start(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_pcomp_cpu(ctx, 0, 1.0, anon_done, eng, arg);
}

static void test_run_queues_unnamed_work(void)
{
    ss_engine *eng = ss_engine_new();
    double cores = 2;
    ss_pcomp *c = ss_pcomp_new(eng, 1, &cores, 0, NULL, NULL);
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 50};
    ss_pcomp_set_run_queues(c, &p, ss_rng_stream(1, 0, "test/run_queues"));
    const double at[4] = {0, 0, 0, 3}, want[4] = {1, 1, 2, 4};
    for (uint64_t k = 0; k < 4; k++) {
        anon_end_s[k] = NAN;
        ss_schedule(eng, at[k], anon_start, c, k);
    }
    ss_engine_run(eng, 1000);
    for (int k = 0; k < 4; k++) CU_ASSERT_DOUBLE_EQUAL(anon_end_s[k], want[k], 1e-9);
    ss_pcomp_free(c);
    ss_engine_free(eng);
}

/* Memory bandwidth (ss_pcomp_set_memory): copy 12 GB/s alone, 18 GB/s
 * shared - 1.5 copies at full speed.  Pieces of 1 s of work start together on
 * `cores` cores, piece k copying copy_s[k] of it; under max-min (runq 0) or
 * run queues (1). */
static double mem_end_s[3];

static void mem_done(void *ctx, uint64_t arg)
{
    mem_end_s[arg] = ss_now(ctx);
}

static void memory_case(int runq, double cores, size_t n, const double *copy_s, double *out)
{
    ss_engine *eng = ss_engine_new();
    ss_pcomp *c = ss_pcomp_new(eng, 1, &cores, 0, NULL, NULL);
    if (runq) {
        ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                            .tick_phase_s = 50};
        ss_pcomp_set_run_queues(c, &p, ss_rng_stream(1, 0, "test/memory"));
    }
    ss_pcomp_set_memory(c, 12e9, 18e9);
    for (size_t k = 0; k < n; k++) ss_pcomp_copy(c, 0, 1.0, copy_s[k], mem_done, eng, k);
    ss_engine_run(eng, 100);
    for (size_t k = 0; k < n; k++) out[k] = mem_end_s[k];
    ss_pcomp_free(c);
    ss_engine_free(eng);
}

static void test_copies_share_memory(void)
{
    for (int runq = 0; runq < 2; runq++) {
        double t[3];
        /* one copy alone: its own rate, 1 s */
        memory_case(runq, 2, 1, (double[]){1}, t);
        CU_ASSERT_DOUBLE_EQUAL(t[0], 1.0, 1e-9);
        /* two copies on two cores: 1.5 / 2 = 0.75 of a core each, 4/3 s */
        memory_case(runq, 2, 2, (double[]){1, 1}, t);
        CU_ASSERT_DOUBLE_EQUAL(t[0], 4.0 / 3, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t[1], 4.0 / 3, 1e-9);
        /* a copy beside work that copies nothing: neither slowed */
        memory_case(runq, 2, 2, (double[]){1, 0}, t);
        CU_ASSERT_DOUBLE_EQUAL(t[0], 1.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t[1], 1.0, 1e-9);
        /* two half-copies: 0.5 + 0.5 of the 1.5: room for both */
        memory_case(runq, 2, 2, (double[]){0.5, 0.5}, t);
        CU_ASSERT_DOUBLE_EQUAL(t[0], 1.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t[1], 1.0, 1e-9);
        /* three cores: copies 1, 1 and 0.25 load 2.25 x the rate: every rate 1.5 / 2.25 = 2/3 until all
         * end together at 1.5 s (the weighted max-min: rates rise together) */
        memory_case(runq, 3, 3, (double[]){1, 1, 0.25}, t);
        for (int k = 0; k < 3; k++) CU_ASSERT_DOUBLE_EQUAL(t[k], 1.5, 1e-9);
        /* copies 1 and 1 beside work copying 0.1 of itself: rates x with 2.1 x = 1.5 -> x = 5/7 until
         * all end at 1.4 s */
        memory_case(runq, 3, 3, (double[]){1, 1, 0.1}, t);
        for (int k = 0; k < 3; k++) CU_ASSERT_DOUBLE_EQUAL(t[k], 1.4, 1e-9);
    }
}

/* A GPU waking after idle (ss_pcomp_set_gpu_wake): 1 below 10 ms idle, 1.5
 * from 100 ms, linear between.  Kernels of 1 s: A at 0 (idle since the
 * start, 0 s: factor 1) ends at 1; B at 1.055 (55 ms idle: 1.25) at 2.305;
 * C at 7.305 (5 s: 1.5) at 8.805; D at 10 (1.5: alone to 11.5) and E of
 * 0.25 s at 10.5, the GPU busy (factor 1): both at half the GPU, E ends at
 * 11.0, D's last 0.75 s alone ends at 11.75. */
static double gw_end_s[5];

static void gw_done(void *ctx, uint64_t arg)
{
    gw_end_s[arg] = ss_now(ctx);
}

static ss_pcomp *gw_c;

static void gw_start(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)ctx;
    ss_pcomp_dev(gw_c, 0, arg == 4 ? 0.25 : 1.0, gw_done, eng, arg);
}

static void test_gpu_wakes_after_idle(void)
{
    ss_engine *eng = ss_engine_new();
    double cores = 2;
    uint32_t dev_host = 0;
    uint8_t gpu = 1;
    gw_c = ss_pcomp_new(eng, 1, &cores, 1, &dev_host, &gpu);
    ss_pcomp_set_gpu_wake(gw_c, 2, (double[]){0.01, 0.1}, (double[]){1, 1.5});
    const double at[5] = {0, 1.055, 7.305, 10, 10.5}, want[5] = {1, 2.305, 8.805, 11.75, 11.0};
    for (uint64_t k = 0; k < 5; k++) {
        gw_end_s[k] = NAN;
        ss_schedule(eng, at[k], gw_start, NULL, k);
    }
    ss_engine_run(eng, 100);
    for (int k = 0; k < 5; k++) CU_ASSERT_DOUBLE_EQUAL(gw_end_s[k], want[k], 1e-9);
    /* the slower kernels count as busy: 1 + 1.25 + 1.5 + 1.75 (10 to 11.75) */
    CU_ASSERT_DOUBLE_EQUAL(ss_pcomp_gpu_busy_s(gw_c, 0), 5.5, 1e-9);
    ss_pcomp_free(gw_c);
    ss_engine_free(eng);
}

SS_TEST_SUITE("pipeline-compute",
              {"run queues: unnamed work, each piece a thread of its own", test_run_queues_unnamed_work},
              {"copies share the host's memory bandwidth (max-min and run queues)", test_copies_share_memory},
              {"a GPU waking after idle: its next kernel slower by the gap's factor", test_gpu_wakes_after_idle},
              {"CPU interference: co-running and time-sliced work costs more", test_cpu_interference},
              {"wake-up stacking: a start shares a busy core until migrated", test_wakeup_stacking},
              {"wake-up stacking lasts across a thread's consecutive pieces", test_stacking_lasts_across_pieces}, {"two hops' CPU parts share a 1-core host", test_cpu_parts_share_a_core},
              {"two blocks share a GPU", test_blocks_share_a_gpu},
              {"host_time_factor: a host's CPU parts slower, its GPUs not", test_host_time_factor},
              {"receiver and I/O threads overlap main-thread compute", test_threads_overlap_compute},
              {"single client: thesis figures as under fixed compute", test_single_client_unchanged},
              {"host cores bound throughput under load (1, 8, 32 cores)", test_cores_bound_throughput},
              {"the shared-compute reference sweeps reproduce", test_reference_reproduces},
              {"bad input", test_bad_input})
