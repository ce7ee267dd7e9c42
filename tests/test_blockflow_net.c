/* test_blockflow_net.c: cross-host hops of block pipelines over the
 * flow-level network (sim/pipeline/pipeline_net.c, docs/blockflow.md "Cross-host hops
 * over the network"): hand-computed delivery over one bottleneck link,
 * two hops sharing it max-min fairly, the link byte counters, the columns
 * declared for every ECMP choice, same-host and topology-less scenarios
 * priced as before, and bad input.
 *
 * The hand case.  Two hosts h1, h2 (one socket, two GPUs each; PCIe and NIC
 * links of 1000 Gbit/s, latencies 1 us and 2 us) hang off one ToR by links of
 * 8 Gbit/s and 30 us.  Block b1 (on h1/gpu0) computes 10 ms and sends
 * N = 1,000,000 bytes to b2 (on h2/gpu0) with zmq-copy: sender 1 ns/B,
 * delivery 0.4 ms + 10 ns/B.  The route h1/gpu0 -> h1/cpu0 -> h1 -> tor ->
 * h2 -> h2/cpu0 -> h2/gpu0 has latency 2 x (1 + 2 + 30) us = 66 us and its
 * bottleneck is the 8 Gbit/s host link, so the delivery d_b2 (wait_ms_b2,
 * no queueing with one request) is
 *     N x 8 / 8e9 + 66e-6 + 0.4e-3 = 1 ms + 0.066 ms + 0.4 ms = 1.466 ms,
 * the 10 ns/B term (10 ms) replaced by the network.  Two such hops at once
 * (a second pipeline on the gpu1s) share h1 -> tor: 4 Gbit/s each, so
 * 2 ms + 0.466 ms = 2.466 ms each. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "world/world.h"
#include "test_blockflow.h"

static const char *const two_split =
    "{\"name\": \"two-split\", \"process\": {\"context_vram_mib\": 370, \"host_ram_mib\": 700},\n"
    " \"gpu_eff_flops_per_s\": 1e12, \"kernel_fraction\": 1,\n"
    " \"blocks\": [{\"name\": \"b1\", \"in_bytes_per_sample\": 0, \"out_bytes_per_sample\": 1000000,\n"
    "   \"gflop_per_sample\": 1, \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.010},\n"
    "   \"vram\": {\"process_mib\": 400}},\n"
    "  {\"name\": \"b2\", \"in_bytes_per_sample\": 1000000, \"out_bytes_per_sample\": 0,\n"
    "   \"gflop_per_sample\": 1, \"service\": {\"dist\": \"deterministic\", \"value_s\": 0.010},\n"
    "   \"vram\": {\"process_mib\": 400}}]}\n";

static const char *const two_hosts_topo =
    "topology:\n"
    "  host_types:\n"
    "    - {name: t, gpus: 2, gpu_link: {bandwidth_gbps: 1000, latency_s: 1.0e-6},\n"
    "       nic: {bandwidth_gbps: 1000, latency_s: 2.0e-6}}\n"
    "  nodes: [{name: tor, kind: leaf}, {name: h1, kind: host, type: t}, {name: h2, kind: host, type: t}]\n"
    "  links:\n"
    "    - {a: h1, b: tor, bandwidth_gbps: 8, latency_s: 3.0e-5}\n"
    "    - {a: h2, b: tor, bandwidth_gbps: 8, latency_s: 3.0e-5}\n";

static const char *const transport =
    "pipeline:\n"
    "  transport: {name: zmq-copy, block_fixed_s: 0, block_in_s_per_byte: 0, block_out_s_per_byte: 1.0e-9,\n"
    "              delivery_fixed_s: 0.0004, delivery_s_per_byte: 1.0e-8}\n"
    "  client_device: h1/gpu0\n";

/* A scenario in dir: `where` (topology or hosts), one or two pipelines
 * (b1 on h1, b2 on h2 or `b2dev`), one request each at t = 0. */
static char *scenario(const char *dir, const char *where, const char *b2dev, int two)
{
    free(ss_test_write(dir, "models/two-split.json", two_split));
    free(ss_test_write(dir, "one.csv", "timestamp_s\n0\n"));
    char text[8192];
    snprintf(text, sizeof text,
             "seed: 1\nduration_s: 1\n%s"
             "models:\n"
             "  - {name: b1, split: two-split, block: b1}\n"
             "  - {name: b2, split: two-split, block: b2}\n"
             "  - {name: b1b, split: two-split, block: b1}\n"
             "  - {name: b2b, split: two-split, block: b2}\n"
             "tasks: [{name: p1, path: [b1, b2]}, {name: p2, path: [b1b, b2b]}]\n"
             "deployment:\n"
             "  - {model: b1, device: h1/gpu0}\n"
             "  - {model: b2, device: %s}\n"
             "  - {model: b1b, device: h1/gpu1}\n"
             "  - {model: b2b, device: h2/gpu1}\n"
             "workloads:\n"
             "  - {name: c1, kind: trace, target: p1, file: one.csv}\n"
             "%s%s",
             where, b2dev, two ? "  - {name: c2, kind: trace, target: p2, file: one.csv}\n" : "", transport);
    return ss_test_write(dir, "net.yaml", text);
}

/* One run (replication 0): the extra column `col` (NAN if absent). */
static double extra(const char *path, const char *col)
{
    ss_scenario sc;
    ss_err err = {0};
    if (ss_scenario_load(&sc, path, NULL, NULL, 0, &err) != 0) {
        fprintf(stderr, "\n  %s\n", err.msg);
        CU_FAIL("scenario did not load");
        return NAN;
    }
    ss_world *w = ss_world_build(&sc, 0, NULL, &err);
    if (!w) fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    ss_world_run(w);
    ss_run_result r;
    ss_world_result(w, &r);
    double x = NAN;
    for (size_t i = 0; i < r.nextras; i++)
        if (strcmp(r.extras[i].col, col) == 0) x = r.extras[i].value;
    ss_run_result_free(&r);
    ss_world_free(w);
    ss_scenario_free(&sc);
    return x;
}

static void test_one_hop_hand_case(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, two_hosts_topo, "h2/gpu0", 0);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "wait_ms_b2"), 1.0 + 0.066 + 0.4, 1e-9);
    /* the sender's and receiver's main-thread costs stay: o_b1 = 1 ns/B x N = 1 ms */
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "overhead_ms_b1"), 1.0, 1e-9);
    /* counters: the bytes moved, on every link of the route, in that direction only */
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "net_bytes"), 1e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_h1-tor"), 1e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_tor-h2"), 1e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_h1_gpu0-h1_cpu0"), 1e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_h2_cpu0-h2_gpu0"), 1e6, 1e-6);
    /* b2 -> client (h2 -> h1) moves 0 bytes: its links are declared, and carry nothing */
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_h2-tor"), 0, 1e-12);
    /* only links some hop can use: not h1's gpu1 (no task of a workload runs there) */
    CU_ASSERT_TRUE(isnan(extra(path, "link_bytes_h1_gpu1-h1_cpu0")));
    /* utilisation: 8e6 bits over 8 Gbit/s during the window (request in at 0, done at
     * 0.4 + 10 + 1 + 1.466 + 10 + 0.4 ms = 23.266 ms) */
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_util_h1-tor"), 1e-3 / 23.266e-3, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

static void test_two_hops_share_the_link(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, two_hosts_topo, "h2/gpu0", 1);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "wait_ms_b2"), 2.0 + 0.066 + 0.4, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "wait_ms_b2b"), 2.0 + 0.066 + 0.4, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_h1-tor"), 2e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_h1_gpu1-h1_cpu0"), 1e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "net_bytes"), 2e6, 1e-6);
    free(path);
    ss_test_rmtree(dir);
}

/* Under compute: shared the flow carries the bytes and the hop's fixed term
 * runs after it on the receiver's receiver thread: the same 1.466 ms alone,
 * 2.466 ms for two hops at once (two receiving processes, h2's cores not
 * declared: no CPU contention). */
static void test_shared_compute_same_delivery(void)
{
    char *dir = ss_test_tmpdir();
    char *shared[] = {"pipeline.compute=shared"};
    char *path = scenario(dir, two_hosts_topo, "h2/gpu0", 0);
    CU_ASSERT_DOUBLE_EQUAL(run_extra(path, NULL, shared, 1, "wait_ms_b2", NULL), 1.466, 1e-9);
    free(path);
    path = scenario(dir, two_hosts_topo, "h2/gpu0", 1);
    CU_ASSERT_DOUBLE_EQUAL(run_extra(path, NULL, shared, 1, "wait_ms_b2", NULL), 2.466, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(run_extra(path, NULL, shared, 1, "wait_ms_b2b", NULL), 2.466, 1e-9);
    free(path);
    ss_test_rmtree(dir);
}

/* Hops that stay on a host, and scenarios without a topology, keep the
 * transport's own pricing: delivery 0.4 ms + 10 ns/B x N = 10.4 ms. */
static void test_same_host_and_no_topology_unchanged(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir, two_hosts_topo, "h1/gpu1", 0);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "wait_ms_b2"), 10.4, 1e-9);
    CU_ASSERT_TRUE(isnan(extra(path, "net_bytes"))); /* no column: no hop crosses hosts */
    free(path);
    path = scenario(dir,
                    "hosts:\n  - {name: h1, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu}]}\n"
                    "  - {name: h2, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu}]}\n",
                    "h2/gpu0", 0);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "wait_ms_b2"), 10.4, 1e-9);
    CU_ASSERT_TRUE(isnan(extra(path, "net_bytes")));
    free(path);
    /* the shipped scenarios with a topology but one host declare no network columns */
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' run '%s' --quiet --set duration_s=3 -o l.csv && head -1 l.csv", dir,
                        SS_BIN, SS_SRC_DIR "/scenarios/blockflow/l40s-pdi.yaml");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(out && !strstr(out, "net_bytes") && !strstr(out, "link_bytes"));
    free(out);
    ss_test_rmtree(dir);
}

/* With several spines, every equal-cost choice gets its columns, and the
 * flows spread over them by (request, hop). */
static void test_ecmp_columns(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir,
                          "topology:\n"
                          "  host_types: [{name: t, gpus: 2, gpu_link: {bandwidth_gbps: 1000}, nic: {bandwidth_gbps: 1000}}]\n"
                          "  nodes: [{name: l1, kind: leaf}, {name: l2, kind: leaf}, {name: s1, kind: spine},\n"
                          "          {name: s2, kind: spine}, {name: h1, kind: host, type: t},\n"
                          "          {name: h2, kind: host, type: t}]\n"
                          "  links:\n"
                          "    - {a: h1, b: l1, bandwidth_gbps: 8}\n"
                          "    - {a: h2, b: l2, bandwidth_gbps: 8}\n"
                          "    - {a: l1, b: s1, bandwidth_gbps: 100}\n"
                          "    - {a: l1, b: s2, bandwidth_gbps: 100}\n"
                          "    - {a: l2, b: s1, bandwidth_gbps: 100}\n"
                          "    - {a: l2, b: s2, bandwidth_gbps: 100}\n",
                          "h2/gpu0", 1);
    double via1 = extra(path, "link_bytes_l1-s1"), via2 = extra(path, "link_bytes_l1-s2");
    CU_ASSERT_FALSE(isnan(via1));
    CU_ASSERT_FALSE(isnan(via2));
    CU_ASSERT_DOUBLE_EQUAL(via1 + via2, 2e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_s1-l2") + extra(path, "link_bytes_s2-l2"), 2e6, 1e-6);
    /* b2 -> client goes back over either spine with no bytes: declared, zero */
    CU_ASSERT_DOUBLE_EQUAL(extra(path, "link_bytes_s1-l1") + extra(path, "link_bytes_s2-l1"), 0, 1e-12);
    free(path);
    ss_test_rmtree(dir);
}

/* A hop across hosts that the topology cannot carry: positioned, exit 2. */
static void test_bad_input(void)
{
    char *dir = ss_test_tmpdir();
    char *path = scenario(dir,
                          "topology:\n"
                          "  nodes: [{name: tor, kind: leaf}, {name: x1, kind: host}]\n"
                          "  links: [{a: x1, b: tor, bandwidth_gbps: 1}]\n"
                          "hosts:\n  - {name: h1, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu}]}\n"
                          "  - {name: h2, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu}]}\n",
                          "h2/gpu0", 0);
    char *out = NULL;
    int rc = ss_test_sh(&out, "'%s' check '%s'", SS_BIN, path);
    CU_ASSERT_EQUAL(rc, 2);
    /* at the transport (the map on the `transport:` line) */
    FILE *f = fopen(path, "r");
    char text[8192];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[len] = '\0';
    int line = 1;
    for (const char *c = text; c < strstr(text, "  transport:"); c++) line += *c == '\n';
    char want[256];
    snprintf(want, sizeof want, "net.yaml:%d:%d: pipeline: a hop from h1/gpu0 to h2/gpu0 crosses hosts", line,
             ss_test_col_of(text, line, "{name: zmq-copy"));
    CU_ASSERT_TRUE(ss_test_has(out, want));
    CU_ASSERT_TRUE(ss_test_has(out, "is not a node of the topology"));
    free(out);
    free(path);
    ss_test_rmtree(dir);
}

/* Same seed, same bytes, with flows in flight (the shipped two-host scenario). */
static void test_deterministic(void)
{
    char *dir = ss_test_tmpdir();
    int rc = ss_test_sh(NULL,
                        "cd '%s' && for i in 1 2; do '%s' run '%s' --quiet --set duration_s=4 -o $i.csv || exit 1; done"
                        " && cmp 1.csv 2.csv && grep -q link_bytes_hostA-tor 1.csv",
                        dir, SS_BIN, SS_SRC_DIR "/scenarios/blockflow/two-hosts.yaml");
    CU_ASSERT_EQUAL(rc, 0);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("blockflow_net", {"deterministic", test_deterministic}, {"one_hop_hand_case", test_one_hop_hand_case},
              {"two_hops_share_the_link", test_two_hops_share_the_link},
              {"shared_compute_same_delivery", test_shared_compute_same_delivery},
              {"same_host_and_no_topology_unchanged", test_same_host_and_no_topology_unchanged},
              {"ecmp_columns", test_ecmp_columns}, {"bad_input", test_bad_input})
