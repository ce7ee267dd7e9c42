/* test_resident.c: the resident memory beside a model (sim/input/resident.c;
 * docs/memory.md): an ensemble's ledger with its resident terms, worked by
 * hand, and TensorFlow 1.x's system share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/ensemble_cfg.h"
#include "input/resident.h"
#include "input/scenario_load.h"
#include "test.h"

#define MIB 1048576.0

static void test_tf_min_system(void)
{
    /* TensorFlow 1.x's MinSystemMemory: 225 MiB below 2 GiB free, else max(300 MiB, 5%) */
    CU_ASSERT_DOUBLE_EQUAL(ss_resident_tf_min_system_bytes(1.0 * 1073741824), 225 * MIB, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(ss_resident_tf_min_system_bytes(4.0 * 1073741824), 300 * MIB, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(ss_resident_tf_min_system_bytes(16.0 * 1073741824), 0.05 * 16 * 1073741824, 1e-3);
}

/* An ensemble on tiny-a and tiny-b (TEST DATA: weights 0.1 and 0.5 GB; memory at batch 8/16/32
 * 0.2/0.4/0.8 GB and 0.3/0.6/1.2 GB) with `resident` (one flow-style map): the CPU holds tiny-a at
 * 8, gpu0 tiny-a at 16 and tiny-b at 8, gpu1 tiny-b at 32.  0 ok. */
static int load_ens(ss_scenario *sc, const char *resident)
{
    char src[4096], yaml[12288];
    if (!realpath(SS_SRC_DIR, src)) return -1;
    snprintf(yaml, sizeof yaml,
             "name: t\nhosts:\n  - name: n0\n    devices:\n"
             "      - {name: cpu, kind: cpu, type: host-cpu, ram_gib: 64}\n"
             "      - {name: gpu0, kind: gpu, type: V100, vram_gib: 16}\n"
             "      - {name: gpu1, kind: gpu, type: V100, vram_gib: 16}\n"
             "ensemble:\n  members: [{name: tiny-a, profile: %.4000s/models/ensemble/tiny-a.json}, "
             "{name: tiny-b, profile: %.4000s/models/ensemble/tiny-b.json}]\n  images: 300\n  resident: %.200s\n"
             "  matrix: [[8, 0], [16, 8], [0, 32]]\n", src, src, resident);
    char *dir = ss_test_tmpdir(), *path = ss_test_write(dir, "s.yaml", yaml);
    ss_err err = {0};
    int rc = ss_scenario_load(sc, path, NULL, NULL, 0, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    free(path);
    ss_test_rmtree(dir);
    return rc;
}

static void test_ensemble_ledger(void)
{
    const double gib = 1073741824.0;
    ss_scenario sc;
    /* no resident terms: the weights and activations alone, as before the terms */
    CU_ASSERT_FATAL(load_ens(&sc, "{}") == 0);
    ss_ensemble_cfg *e = sc.ensemble;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 1), 1.3e9, 1);
    ss_scenario_free(&sc);
    /* growth: each GPU worker's context beside its need; the host's CPU device holds its OS and the
     * framework of all four worker processes (on the CPU and on the GPUs) */
    CU_ASSERT_FATAL(load_ens(&sc, "{os_reserve_bytes: 1e9, framework_rss_bytes: 3e8, cuda_context_bytes: 5e8}") == 0);
    e = sc.ensemble;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 0), 0.3e9 + 1e9 + 4 * 0.3e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 1), (0.5e9 + 0.5e9) + (0.5e9 + 0.8e9), 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 2), 0.5e9 + 1.7e9, 1);
    /* fraction: each GPU worker reserves its share whatever it uses; a worker beyond it is out of memory */
    e->resident.gpu_allocator = SS_GPU_ALLOC_FRACTION;
    e->resident.gpu_memory_fraction = 0.25;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 1), 2 * (0.5e9 + 0.25 * 16 * gib), 1);
    e->resident.gpu_memory_fraction = 0.05;
    CU_ASSERT(isinf(ss_ens_device_bytes(e, e->matrix, 2)));
    /* all (TensorFlow 1.x's default): one worker takes what is free less max(300 MiB, 5%); a second
     * worker on the same GPU gets the rest less 225 MiB, too little for tiny-b */
    e->resident.gpu_allocator = SS_GPU_ALLOC_ALL;
    double free1 = 16 * gib - 0.5e9;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 2), 0.5e9 + free1 - 0.05 * free1, 1);
    CU_ASSERT(isinf(ss_ens_device_bytes(e, e->matrix, 1)));
    ss_scenario_free(&sc);
}

SS_TEST_SUITE("resident", {"ensemble ledger", test_ensemble_ledger}, {"tf min system", test_tf_min_system})
