/* test_pipeline_kernel.c: GPU-busy time vs host time (issue 41 item 4;
 * docs/blockflow.md, "GPU-busy time vs host time"): under compute: shared a
 * block's compute on a GPU is host-side time on its host's CPU, then kernel
 * time on the GPU, split by the split profile's kernel_fraction; processes
 * sharing a GPU time-slice only the kernels, and gpu_util_<gpu> is the
 * fraction of the window a kernel ran.  Hand cases to 1e-9.
 *
 * Block b: compute 10 ms, kernel_fraction 0.4, so kernel k = 4 ms and host
 * h = 6 ms.  zmq-copy priced as in test_pipeline_compute.c: a hop into b
 * costs 3 ms on its I/O thread, 1 ms on its receiver thread, 4 ms of receive
 * on its main thread; its send 2 ms; the delivery to the client 4 ms (a pure
 * delay).  Alone: io 0-3, rx 3-4, receive 4-8, host 8-14, kernels 14-18,
 * send 18-20, at the client at 24 ms. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_blockflow.h"

/* The split profile; %s is block b's kernel_fraction. */
static const char *const split_fmt =
    "{\"name\": \"ks\", \"process\": {\"context_vram_mib\": 370, \"host_ram_mib\": 700},\n"
    " \"kernel_fraction\": 0.5, \"gpu_eff_flops_per_s\": 1e12,\n"
    " \"blocks\": [{\"name\": \"b\", \"in_bytes_per_sample\": 1000000, \"out_bytes_per_sample\": 1000000,\n"
    "   \"gflop_per_sample\": 8, \"kernel_fraction\": %s, \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.010},\n"
    "   \"vram\": {\"process_mib\": 400}},\n"
    "  {\"name\": \"c\", \"in_bytes_per_sample\": 1000000, \"out_bytes_per_sample\": 1000000,\n"
    "   \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.020}, \"vram\": {\"process_mib\": 400}}],\n"
    " \"pipeline\": {\"processes\": [{\"name\": \"bc\", \"blocks\": [\"b\", \"c\"],\n"
    "   \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.030}}]}}\n";

/* Host h: gpu0, gpu1 and a CPU of `cores` cores.  b1 on gpu0, b2 on `b2_gpu`
 * (both block b, of kernel fraction `kf`), bc (the fused process) on gpu1;
 * one request each at 0 to tasks p1 -> b1 and p2 -> b2.  `transport` is the
 * pipeline's transport. */
static char *scenario_kf(const char *dir, int cores, const char *b2_gpu, const char *transport, const char *kf)
{
    char split[2048];
    snprintf(split, sizeof split, split_fmt, kf);
    free(ss_test_write(dir, "models/ks.json", split));
    free(ss_test_write(dir, "one.csv", "timestamp_s\n0\n"));
    char text[4096];
    snprintf(text, sizeof text,
             "seed: 1\nduration_s: 1\n"
             "hosts: [{name: h, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu},\n"
             "                            {name: cpu, kind: cpu, cores: %d}]}]\n"
             "models:\n"
             "  - {name: b1, split: ks, block: b}\n"
             "  - {name: b2, split: ks, block: b}\n"
             "  - {name: bc, split: ks, block: bc}\n"
             "tasks: [{name: p1, path: [b1]}, {name: p2, path: [b2]}, {name: p3, path: [bc]}]\n"
             "deployment: [{model: b1, device: gpu0}, {model: b2, device: %s}, {model: bc, device: gpu1}]\n"
             "workloads:\n"
             "  - {name: w1, kind: trace, target: p1, file: one.csv}\n"
             "  - {name: w2, kind: trace, target: p2, file: one.csv}\n"
             "pipeline:\n"
             "  compute: shared\n"
             "  transport: %s\n",
             cores, b2_gpu, transport);
    return ss_test_write(dir, "k.yaml", text);
}

static char *scenario(const char *dir, int cores, const char *b2_gpu, const char *transport)
{
    return scenario_kf(dir, cores, b2_gpu, transport, "0.4");
}

static const char *const priced = "{name: zmq-copy, block_fixed_s: 0.004, block_in_s_per_byte: 0, "
                                  "block_out_s_per_byte: 2.0e-9, delivery_fixed_s: 0.001, delivery_s_per_byte: 3.0e-9}";
static const char *const free_hops = "{name: zmq-copy, block_fixed_s: 0, block_in_s_per_byte: 0, "
                                     "block_out_s_per_byte: 0, delivery_fixed_s: 0, delivery_s_per_byte: 0}";

static double col(const char *path, char *const *sets, size_t nsets, const char *name)
{
    return run_extra(path, NULL, sets, nsets, name, NULL);
}

/* Two processes on one GPU (8 cores: the CPU binds nothing), each a request
 * at 0 with h = 6, k = 4 ms.  New law: the host parts overlap (8-14), the
 * kernels share the GPU at half rate each (14-22), sends 22-24, client 28:
 * latency = 3 + 1 + 4 + h + 2k + 2 + 4 = 28, compute_ms = h + 2k = 14.  The
 * old law (the whole compute GPU time: kernel_fraction 1) time-slices all
 * of it: 3 + 1 + 4 + 2(h + k) + 2 + 4 = 34, compute_ms 20.  On two GPUs,
 * each as alone: 24 and 10. */
static void test_kernels_share_host_overlaps(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 8, "gpu0", priced);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "latency_mean_ms"), 28.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "compute_ms_b1"), 14.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "compute_ms_b2"), 14.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "overhead_ms_b1"), 6.0, 1e-9);
    free(path);
    /* The old law: the block's whole time as kernels. */
    path = scenario_kf(dir, 8, "gpu0", priced, "1");
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "latency_mean_ms"), 34.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "compute_ms_b1"), 20.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
    dir = ss_test_tmpdir();
    path = scenario(dir, 8, "gpu1", priced);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "latency_mean_ms"), 24.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "compute_ms_b2"), 10.0, 1e-9);
    /* Under fixed compute the processes are independent: as alone. */
    char *fixed[] = {"pipeline.compute=fixed", "deployment.1.device=gpu0"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, fixed, 2, "latency_mean_ms"), 24.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, fixed, 2, "compute_ms_b2"), 10.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* The host part is CPU work on the host.  Hops cost nothing: with 2 cores
 * the two host parts run 0-6 side by side, the kernels share the GPU 6-14
 * (latency h + 2k = 14); with 1 core the host parts share it, half a core
 * each, 0-12, then the kernels 12-20 (latency 2h + 2k = 20). */
static void test_host_part_on_the_cpu(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 2, "gpu0", free_hops);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "latency_mean_ms"), 14.0, 1e-9);
    char *one[] = {"hosts.0.devices.2.cores=1"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, one, 1, "latency_mean_ms"), 20.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, one, 1, "compute_ms_b1"), 20.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* A batch: the host part is once a batch, the kernels take the rest of the
 * batch rule's m(B).  pipeline.batch 2: m(2) = max(10, 2 x 8 GFLOP / 1
 * TFLOP/s) = 16 ms, host 6 ms (the batch-1 draw's 0.6), kernels 10 ms.
 * With free hops, one request alone (b2 on gpu1): 16 ms, gpu_util 10 / 16
 * (a split in proportion would give 6.4 / 16).  Two on gpu0: host 0-6 side
 * by side, kernels 6-26 at half the GPU each: 26 ms. */
static void test_batch_host_once(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 8, "gpu1", free_hops);
    char *two[] = {"pipeline.batch=2", NULL};
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "latency_mean_ms"), 16.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 1, "gpu_util_h_gpu0"), 10.0 / 16.0, 1e-9);
    two[1] = "deployment.1.device=gpu0";
    CU_ASSERT_DOUBLE_EQUAL(col(path, two, 2, "latency_mean_ms"), 26.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* gpu_util_<gpu> (here gpu_util_h_gpu0, ...): the fraction of the window
 * (0 to the last request done) a kernel ran.  Two on gpu0 (the first
 * case): kernels 14-22 of 28 ms, so 8 / 28; gpu1, with no request, 0.  On
 * two GPUs: 4 of 24 ms each.  The fused process bc (b 10 ms at 0.4, c 20 ms
 * at the profile's 0.5; its own 30 ms): kernel_fraction (0.4 x 10 + 0.5 x
 * 20) / 30 = 14 / 30, so alone with free hops host 0-16, kernels 16-30:
 * gpu_util_h_gpu1 = 14 / 30. */
static void test_gpu_util(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 8, "gpu0", priced);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "gpu_util_h_gpu0"), 8.0 / 28.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, NULL, 0, "gpu_util_h_gpu1"), 0.0, 1e-9);
    char *apart[] = {"deployment.1.device=gpu1"};
    CU_ASSERT_DOUBLE_EQUAL(col(path, apart, 1, "gpu_util_h_gpu0"), 4.0 / 24.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, apart, 1, "gpu_util_h_gpu1"), 4.0 / 24.0, 1e-9);
    /* Under fixed compute the GPU is no resource: no column. */
    char *fixed[] = {"pipeline.compute=fixed"};
    CU_ASSERT_TRUE(isnan(col(path, fixed, 1, "gpu_util_h_gpu0")));
    free(path);
    ss_test_rmtree(dir);
    dir = ss_test_tmpdir();
    path = scenario(dir, 8, "gpu0", free_hops);
    char wl[512]; /* a --set file is relative to the working directory */
    snprintf(wl, sizeof wl, "workloads=[{name: w3, kind: trace, target: p3, file: '%s/one.csv'}]", dir);
    char *fused[] = {wl};
    CU_ASSERT_DOUBLE_EQUAL(col(path, fused, 1, "latency_mean_ms"), 30.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(col(path, fused, 1, "gpu_util_h_gpu1"), 14.0 / 30.0, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* Bad input: positioned, exit status 2 (the cases of tests/bad/pipeline/
 * hold the exact messages). */
static void test_bad_input(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, 8, "gpu0", priced);
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set pipeline.contention=2", SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "contention: removed (issue 41)"));
    free(out);
    free(ss_test_write(dir, "models/ks.json",
                       "{\"name\": \"ks\", \"process\": {\"context_vram_mib\": 370, \"host_ram_mib\": 700},\n"
                       " \"kernel_fraction\": 1.5, \"blocks\": []}\n"));
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s'", SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "ks.json:2:21: kernel_fraction: expected a number in (0, 1]"));
    free(out);
    /* A GPU block under shared compute whose profile is silent: refused at compute:; under
     * fixed compute, or on a CPU, the split is not needed. */
    free(ss_test_write(dir, "models/ks.json",
                       "{\"name\": \"ks\", \"process\": {\"context_vram_mib\": 370, \"host_ram_mib\": 700},\n"
                       " \"blocks\": [{\"name\": \"b\", \"in_bytes_per_sample\": 1, \"out_bytes_per_sample\": 1,\n"
                       "   \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.010}}],\n"
                       " \"pipeline\": {\"processes\": [{\"name\": \"bc\", \"blocks\": [\"b\"]}]}}\n"));
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s'", SS_BIN, path), 2);
    CU_ASSERT_TRUE(ss_test_has(out, "k.yaml:15:12: compute: shared: block 'b1' computes on GPU 'h/gpu0' but its "
                                    "split profile 'ks' gives no kernel_fraction"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set pipeline.compute=fixed", SS_BIN, path), 0);
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' check '%s' --set deployment.0.device=h/cpu --set deployment.1.device=h/cpu "
                                     "--set deployment.2.device=h/cpu", SS_BIN, path), 0);
    free(out);
    free(path);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("pipeline-kernel",
              {"two processes' kernels share a GPU, host time overlaps", test_kernels_share_host_overlaps},
              {"the host part is CPU work on the host", test_host_part_on_the_cpu},
              {"a batch's host part is once a batch", test_batch_host_once},
              {"gpu_util is the kernel-busy fraction per GPU", test_gpu_util}, {"bad input", test_bad_input})
