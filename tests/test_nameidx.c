/* test_nameidx.c: names to indices (sim/core/nameidx.h) and what rests on
 * them (issue 40, input checks in linear time): a topology's node names, and
 * a scenario's device references, duplicates and per-device VRAM sums on a
 * topology of a few thousand GPUs, with the same answers and messages the
 * scans before them gave.  Nothing here is timed. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nameidx.h"
#include "input/section.h"
#include "test_scenario.h"

/* ---- the index itself ------------------------------------------------------ */

static void test_index(void)
{
    enum { N = 50000 };
    char **names = calloc(N, sizeof *names);
    ss_nameidx ix = SS_NAMEIDX_INIT;
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "n0"), SS_NAMEIDX_NONE); /* empty: never probed */
    for (uint32_t i = 0; i < N; i++) {
        names[i] = malloc(16);
        snprintf(names[i], 16, "n%u", i);
        CU_ASSERT_EQUAL(ss_nameidx_put(&ix, names[i], i), SS_NAMEIDX_NONE);
    }
    CU_ASSERT_EQUAL(ix.n, N);
    CU_ASSERT_TRUE(2 * ix.n <= ix.nslots); /* load under 1/2 */
    int all = 1;
    for (uint32_t i = 0; i < N; i++) all &= ss_nameidx_get(&ix, names[i]) == i;
    CU_ASSERT_TRUE(all);
    /* a name again: refused with the first index, nothing changed */
    char again[16];
    snprintf(again, sizeof again, "n%u", 123u); /* another copy of the same bytes */
    CU_ASSERT_EQUAL(ss_nameidx_put(&ix, again, 7), 123);
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "n123"), 123);
    CU_ASSERT_EQUAL(ix.n, N);
    /* set replaces, and adds a name that was not there */
    ss_nameidx_set(&ix, names[5], 99);
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "n5"), 99);
    ss_nameidx_set(&ix, "fresh", 3);
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "fresh"), 3);
    CU_ASSERT_EQUAL(ix.n, N + 1);
    /* names that are not there, near ones included */
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "n50000"), SS_NAMEIDX_NONE);
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "n"), SS_NAMEIDX_NONE);
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, ""), SS_NAMEIDX_NONE);
    ss_nameidx_free(&ix);
    CU_ASSERT_EQUAL(ix.n, 0);
    CU_ASSERT_EQUAL(ss_nameidx_get(&ix, "n1"), SS_NAMEIDX_NONE);
    for (uint32_t i = 0; i < N; i++) free(names[i]);
    free(names);
}

/* ---- a scenario on a few thousand GPUs --------------------------------------- */

/* 8 leaves x 50 hosts x 8 GPUs = 3,200 GPUs of 1 GiB, each a device. */
#define BIG_TOPO                                                                                    \
    "topology:\n"                                                                                   \
    "  host_types: [{name: g8, sockets: 1, gpus: 8, gpu_link: {bandwidth_gbps: 100},\n"             \
    "                gpu_memory_gib: 1, nic: {bandwidth_gbps: 50}}]\n"                              \
    "  spine_leaf: {spines: 2, leaves: 8, hosts_per_leaf: 50, host_type: g8,\n"                     \
    "               host_links: {bandwidth_gbps: 50}, spine_links: {bandwidth_gbps: 100}}\n"

#define BIG_MODELS                                                                                  \
    "models: [{name: a, service: 0.01, weights_bytes: 400000000},\n"                                \
    "         {name: b, service: 0.01, weights_bytes: 400000000}]\n"

#define BIG_WORK "workloads: [{name: w, kind: poisson, target: a, rate_rps: 1}]\n"

/* The scenario with this deployment section (malloc'd text). */
static char *big_text(const char *deploy)
{
    return ss_xasprintf("duration_s: 10\n" BIG_TOPO BIG_MODELS "%s" BIG_WORK, deploy);
}

static void refused(const char *deploy, int line, int col, const char *rest)
{
    char *text = big_text(deploy);
    scenario_refused(text, line, col, rest);
    free(text);
}

static void test_big_deployment(void)
{
    /* every GPU twice (two models, one shared queue each): 2 x 0.4 GB fits 1 GiB */
    char *dir = xdir();
    char *text = big_text("deployment:\n"
                          "  - {model: a, devices: 'h*/gpu*', queue: shared, instances: 1}\n"
                          "  - {model: b, devices: 'h*/gpu*', queue: shared, instances: 1}\n"
                          "  - {model: a, device: h399/gpu7, queue: shared, instances: 0}\n");
    char *path = put(dir, "s.yaml", text);
    free(text);
    ss_scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, NULL, 0), 0);
    CU_ASSERT_EQUAL(sc.ndevices, 3200);
    CU_ASSERT_EQUAL(sc.ndeploys, 6401);
    CU_ASSERT_STRING_EQUAL(sc.devices[8 * 123 + 4].name, "h123/gpu4");
    CU_ASSERT_EQUAL(sc.deploys[3200 + 17].device, 17);
    CU_ASSERT_EQUAL(sc.deploys[3200 + 17].model, 1);
    CU_ASSERT_EQUAL(sc.deploys[6400].device, 3199);
    /* references: full names anywhere, a short name only where it is unique */
    ss_node ref = {.kind = SS_NODE_SCALAR, .file = "r", .line = 1, .col = 1};
    uint32_t d = 0;
    ss_err err = {0};
    ref.value = "h250/gpu6";
    CU_ASSERT_EQUAL(ss_scenario_device(&sc, &ref, &d, &err), 0);
    CU_ASSERT_EQUAL(d, 8 * 250 + 6);
    ref.value = "gpu6";
    CU_ASSERT_EQUAL(ss_scenario_device(&sc, &ref, &d, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "r:1:1: device 'gpu6' is ambiguous: write it as host/device");
    memset(&err, 0, sizeof err);
    ref.value = "h400/gpu0";
    CU_ASSERT_EQUAL(ss_scenario_device(&sc, &ref, &d, &err), -1);
    CU_ASSERT_TRUE(ss_test_has(err.msg, "r:1:1: unknown device 'h400/gpu0'"));
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);

    /* the third replica on one GPU, found by the running sum of that GPU alone */
    refused("deployment:\n"
            "  - {model: a, devices: 'h*/gpu*'}\n"
            "  - {model: b, devices: 'h*/gpu*'}\n"
            "  - {model: a, device: h321/gpu5}\n",
            12, 5,
            "instances: the replicas deployed on device 'h321/gpu5' need 1.118 GiB of VRAM, it has 1.000 GiB");
    /* one model, two kinds of queue: the message names the model's first entry */
    refused("deployment:\n"
            "  - {model: a, devices: 'h1*/gpu*', queue: shared}\n"
            "  - {model: b, devices: 'h2*/gpu*'}\n"
            "  - {model: a, device: h399/gpu7}\n",
            12, 5,
            "queue: model 'a' has a shared queue in one entry and not in another (line 10): a shared queue is "
            "the model's, so say it in every entry");
}

SS_TEST_SUITE("nameidx",
              {"index", test_index},
              {"big_deployment", test_big_deployment})
