/* test_topo.c: topologies (sim/net/topo.h): the spine-leaf generator's counts,
 * oversubscription and bisection worked out by hand, routes (same leaf,
 * across spines, ECMP spread and stability, the kinds of GPU-to-GPU paths
 * inside hosts, RAM to GPU, storage) and the shipped topologies/ files.
 * The schema's refusals are in test_topo_errors.c. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_topo.h"
#include "net/topo.h"

#define TOPO_DIR SS_SRC_DIR "/topologies"

/* ---- helpers ------------------------------------------------------------- */

static ss_topo *load_shipped(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TOPO_DIR, name);
    ss_err err = {0};
    ss_topo *t = ss_topo_load(path, &err);
    if (!t) fprintf(stderr, "\n  %s: %s\n", name, err.msg);
    CU_ASSERT_PTR_NOT_NULL(t);
    return t;
}

/* Write `text` as DIR/t.yaml and load it; *dirp gets the folder. */
ss_topo *load_text(const char *text, char **dirp, char **pathp, ss_err *err)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = ss_test_write(dir, "t.yaml", text);
    ss_topo *t = ss_topo_load(path, err);
    *dirp = dir;
    *pathp = path;
    return t;
}

static ss_topo *load_ok(const char *text)
{
    char *dir, *path;
    ss_err err = {0};
    ss_topo *t = load_text(text, &dir, &path, &err);
    if (!t) fprintf(stderr, "\n  load failed: %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL(t);
    free(path);
    ss_test_rmtree(dir);
    return t;
}

/* Loading `text` fails with exactly "<its path>:line:col: rest". */
void expect_refused(const char *text, int line, int col, const char *rest)
{
    char *dir, *path;
    ss_err err = {0};
    ss_topo *t = load_text(text, &dir, &path, &err);
    CU_ASSERT_PTR_NULL(t);
    ss_topo_free(t);
    char want[1400];
    snprintf(want, sizeof want, "%s:%d:%d: %s", path, line, col, rest);
    CU_ASSERT_EQUAL(err.set, 1);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    if (strcmp(err.msg, want) != 0) fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
    free(path);
    ss_test_rmtree(dir);
}

static uint32_t node(const ss_topo *t, const char *name)
{
    uint32_t v = ss_topo_find(t, name);
    if (v == SS_TOPO_NONE) fprintf(stderr, "\n  no node '%s'\n", name);
    CU_ASSERT_NOT_EQUAL_FATAL(v, SS_TOPO_NONE);
    return v;
}

/* The route between two named nodes; its length, the links in l[]. */
static size_t route(const ss_topo *t, const char *a, const char *b, uint64_t key, uint32_t *l, double *lat)
{
    size_t n = ss_topo_route(t, node(t, a), node(t, b), key, l, 32, lat);
    CU_ASSERT_NOT_EQUAL(n, SS_TOPO_NO_ROUTE);
    CU_ASSERT(n <= 32);
    return n;
}

/* Route links join up from src to dst. */
static void check_chain(const ss_topo *t, uint32_t src, uint32_t dst, const uint32_t *l, size_t n)
{
    uint32_t at = src;
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(ss_topo_link_from(t, l[i]), at);
        at = ss_topo_link_to(t, l[i]);
    }
    CU_ASSERT_EQUAL(at, dst);
}

/* ---- the flashpoint data centre ---------------------------------------------- */

static void test_flashpoint_counts(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    CU_ASSERT_STRING_EQUAL(ss_topo_name(t), "flashpoint-dc");
    /* 4 spines + 10 leaves + border + s3, and 200 hosts of (NIC, 2 sockets,
     * 8 GPUs, RAM, disk) */
    CU_ASSERT_EQUAL(ss_topo_nnodes(t), 4 + 10 + 1 + 1 + 200 * (1 + 2 + 8 + 1 + 1));
    /* duplex: 10 x 4 leaf-spine, 200 host-leaf, 4 border-spine, 1 storage,
     * and per host 1 socket-socket + 8 GPU + 2 RAM + 1 NIC + 1 disk */
    CU_ASSERT_EQUAL(ss_topo_nlinks(t), 2 * (40 + 200 + 4 + 1 + 200 * (1 + 8 + 2 + 1 + 1)));
    CU_ASSERT_EQUAL(ss_topo_nhosts(t), 200);
    CU_ASSERT_STRING_EQUAL(ss_topo_node_name(t, ss_topo_host(t, 57)), "h57");
    CU_ASSERT_EQUAL(ss_topo_host(t, 200), SS_TOPO_NONE);
    CU_ASSERT_EQUAL(ss_topo_host_ngpus(t, 57), 8);
    CU_ASSERT_EQUAL(ss_topo_host_gpu(t, 57, 3), node(t, "h57/gpu3"));
    CU_ASSERT_EQUAL(ss_topo_host_gpu(t, 57, 8), SS_TOPO_NONE);
    CU_ASSERT_EQUAL(ss_topo_host_ram(t, 57), node(t, "h57/ram"));
    CU_ASSERT_EQUAL(ss_topo_node_host(t, node(t, "h57/gpu3")), 57);
    CU_ASSERT_EQUAL(ss_topo_node_host(t, node(t, "h57")), 57);
    CU_ASSERT_EQUAL(ss_topo_node_host(t, node(t, "leaf2")), SS_TOPO_NONE);
    CU_ASSERT_EQUAL(ss_topo_node_kind_of(t, node(t, "spine3")), SS_TN_SPINE);
    CU_ASSERT_EQUAL(ss_topo_node_kind_of(t, node(t, "leaf9")), SS_TN_LEAF);
    CU_ASSERT_EQUAL(ss_topo_node_kind_of(t, node(t, "h199/cpu1")), SS_TN_SOCKET);
    CU_ASSERT_EQUAL(ss_topo_node_kind_of(t, node(t, "s3")), SS_TN_STORAGE);
    CU_ASSERT_EQUAL(ss_topo_find(t, "spine4"), SS_TOPO_NONE);
    CU_ASSERT_EQUAL(ss_topo_find(t, "h200"), SS_TOPO_NONE);
    /* h57 is leaf 2's 18th host (hosts go leaf by leaf, 20 each) */
    uint32_t l[32];
    CU_ASSERT_EQUAL(route(t, "h57", "leaf2", 0, l, NULL), 1);
    /* directed links pair up; the capacity array is the accessor's */
    const double *cap = ss_topo_capacities_bps(t);
    size_t n50 = 0, n100 = 0;
    for (uint32_t e = 0; e < ss_topo_nlinks(t); e++) {
        uint32_t r = ss_topo_link_reverse(e);
        CU_ASSERT_EQUAL(ss_topo_link_from(t, e), ss_topo_link_to(t, r));
        CU_ASSERT_EQUAL(ss_topo_link_tier(t, e), ss_topo_link_tier(t, r));
        CU_ASSERT_EQUAL(cap[e], ss_topo_link_capacity_bps(t, e));
        n50 += ss_topo_link_tier(t, e) == SS_TL_HOST_LEAF && cap[e] == 50e9;
        n100 += ss_topo_link_tier(t, e) == SS_TL_LEAF_SPINE && cap[e] == 100e9;
    }
    CU_ASSERT_EQUAL(n50, 400);
    CU_ASSERT_EQUAL(n100, 80);
    ss_topo_free(t);
}

static void test_oversubscription(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    /* 20 hosts x 50 Gbit/s = 1000 Gbit/s towards hosts, 4 spines x 1 link x
     * 100 Gbit/s = 400 Gbit/s up: 2.5 */
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "leaf%d", i);
        CU_ASSERT_DOUBLE_EQUAL(ss_topo_leaf_oversubscription(t, node(t, name)), 1000.0 / 400.0, 1e-12);
    }
    CU_ASSERT(isnan(ss_topo_leaf_oversubscription(t, node(t, "spine0"))));
    CU_ASSERT(isnan(ss_topo_leaf_oversubscription(t, node(t, "h3"))));
    /* bisection: 5 of 10 leaves, each crossing min(400, 1000) Gbit/s */
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_bisection_bps(t), 5 * 400e9, 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ss_topo_describe(t, f);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "2616 nodes, 5690 directed links"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "leaf7        20 host links 1000 Gbit/s / 4 uplinks 400 Gbit/s = 2.50:1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "bisection bandwidth: 2000 Gbit/s per direction (5 of 10 leaves"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(buf, "storage s3 on border: 2 Gbit/s from storage, 2 Gbit/s to storage; per connection 2.203 Gbit/s"));
    free(buf);
    ss_topo_free(t);

    /* parallel links: 3 leaves x 2 spines x 3 links of 10 Gbit/s up; 4 hosts
     * at 25 Gbit/s: 100 / 60; bisection floor(3/2) = 1 leaf x 60 */
    t = load_ok("spine_leaf:\n"
                "  spines: 2\n"
                "  leaves: 3\n"
                "  hosts_per_leaf: 4\n"
                "  links_per_spine: 3\n"
                "  host_links: {bandwidth_gbps: 25}\n"
                "  spine_links: {bandwidth_mbps: 10000}\n");
    if (!t) return;
    CU_ASSERT_EQUAL(ss_topo_nnodes(t), 2 + 3 + 12);
    CU_ASSERT_EQUAL(ss_topo_nlinks(t), 2 * (3 * 2 * 3 + 12));
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_leaf_oversubscription(t, node(t, "leaf1")), 100.0 / 60.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_bisection_bps(t), 60e9, 1);
    /* ECMP spreads over the 6 parallel uplinks of leaf0 */
    int used[64] = {0};
    uint32_t l[32];
    for (uint64_t k = 0; k < 600; k++) {
        CU_ASSERT_EQUAL_FATAL(route(t, "h0", "h5", k, l, NULL), 4);
        used[l[1] % 64]++;
    }
    int distinct = 0;
    for (int i = 0; i < 64; i++) distinct += used[i] > 0;
    CU_ASSERT_EQUAL(distinct, 6);
    ss_topo_free(t);
}

static void test_routes_hosts(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    uint32_t l[32];
    double lat = -1;
    /* same leaf: host -> leaf -> host */
    CU_ASSERT_EQUAL_FATAL(route(t, "h0", "h1", 1, l, &lat), 2);
    check_chain(t, node(t, "h0"), node(t, "h1"), l, 2);
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[0]), SS_TL_HOST_LEAF);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[0]), node(t, "leaf0"));
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[1]), 50e9);
    CU_ASSERT_DOUBLE_EQUAL(lat, 2e-6, 1e-15);
    /* across leaves: host -> leaf0 -> spine -> leaf1 -> host */
    CU_ASSERT_EQUAL_FATAL(route(t, "h0", "h25", 1, l, &lat), 4);
    check_chain(t, node(t, "h0"), node(t, "h25"), l, 4);
    ss_topo_tier want[4] = {SS_TL_HOST_LEAF, SS_TL_LEAF_SPINE, SS_TL_LEAF_SPINE, SS_TL_HOST_LEAF};
    for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[i]), want[i]);
    CU_ASSERT_EQUAL(ss_topo_node_kind_of(t, ss_topo_link_to(t, l[1])), SS_TN_SPINE);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[1]), 100e9);
    CU_ASSERT_DOUBLE_EQUAL(lat, 4e-6, 1e-15);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, 4), SS_PATH_NET);
    /* GPU to GPU across hosts: out through each NIC (on cpu0) */
    size_t n = route(t, "h3/gpu2", "h77/gpu7", 5, l, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 2 + 4 + 3);
    check_chain(t, node(t, "h3/gpu2"), node(t, "h77/gpu7"), l, n);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[1]), node(t, "h3"));
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[5]), node(t, "h77"));
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[7]), SS_TL_SOCKET);
    /* the buffer: a first call with no room says how long the route is */
    CU_ASSERT_EQUAL(ss_topo_route(t, node(t, "h3/gpu2"), node(t, "h77/gpu7"), 5, NULL, 0, NULL), n);
    uint32_t two[2];
    CU_ASSERT_EQUAL(ss_topo_route(t, node(t, "h3/gpu2"), node(t, "h77/gpu7"), 5, two, 2, NULL), n);
    CU_ASSERT_EQUAL(two[0], l[0]);
    CU_ASSERT_EQUAL(two[1], l[1]);
    /* self, bad ids */
    lat = -1;
    CU_ASSERT_EQUAL(ss_topo_route(t, 7, 7, 0, l, 32, &lat), 0);
    CU_ASSERT_EQUAL(lat, 0.0);
    CU_ASSERT_EQUAL(ss_topo_route(t, 0, (uint32_t)ss_topo_nnodes(t), 0, l, 32, NULL), SS_TOPO_NO_ROUTE);
    CU_ASSERT_EQUAL(ss_topo_route(t, SS_TOPO_NONE, 0, 0, l, 32, NULL), SS_TOPO_NO_ROUTE);
    ss_topo_free(t);
}

static void test_ecmp(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    enum { KEYS = 4000 };
    int per_spine[4] = {0};
    uint32_t l[32], again[32];
    for (uint64_t k = 0; k < KEYS; k++) {
        uint64_t key = ss_mix64(k * 977 + 3); /* as a caller would hash (src, dst, flow) */
        CU_ASSERT_EQUAL_FATAL(route(t, "h0", "h25", key, l, NULL), 4);
        const char *spine = ss_topo_node_name(t, ss_topo_link_to(t, l[1]));
        CU_ASSERT_EQUAL_FATAL(strncmp(spine, "spine", 5), 0);
        per_spine[spine[5] - '0']++;
        /* stable: the same key, the same route */
        CU_ASSERT_EQUAL(route(t, "h0", "h25", key, again, NULL), 4);
        CU_ASSERT_EQUAL(memcmp(l, again, sizeof(uint32_t) * 4), 0);
    }
    /* 1000 each expected; binomial sd = 27, allow 5.5 sd */
    for (int s = 0; s < 4; s++) {
        CU_ASSERT(abs(per_spine[s] - KEYS / 4) < 150);
        if (abs(per_spine[s] - KEYS / 4) >= 150) fprintf(stderr, "\n  spine%d: %d of %d\n", s, per_spine[s], KEYS);
    }
    /* plain counter keys spread too (the hash mixes them) */
    int seq[4] = {0};
    for (uint64_t k = 0; k < KEYS; k++) {
        route(t, "h10", "h150", k, l, NULL);
        seq[ss_topo_node_name(t, ss_topo_link_to(t, l[1]))[5] - '0']++;
    }
    for (int s = 0; s < 4; s++) CU_ASSERT(abs(seq[s] - KEYS / 4) < 150);
    /* the same keys after ss_topo_precompute: the same routes */
    ss_topo *u = load_shipped("flashpoint-dc.yaml");
    ss_topo_precompute(u);
    for (uint64_t k = 0; k < 200; k++) {
        size_t n = route(t, "h3/gpu1", "h140/gpu6", k, l, NULL);
        CU_ASSERT_EQUAL(route(u, "h3/gpu1", "h140/gpu6", k, again, NULL), n);
        CU_ASSERT_EQUAL(memcmp(l, again, sizeof(uint32_t) * n), 0);
    }
    ss_topo_free(u);
    ss_topo_free(t);
}

/* 100,000 random host pairs and GPU pairs of the data centre: every route
 * exists, joins its ends, and has the length the tiers give (0 to itself,
 * 2 links within a leaf, 4 across a spine; a GPU adds its PCIe hops at both
 * ends).  How fast routing is belongs to `make bench` (bench/flows.sh
 * routes every transfer), not to a unit test. */
static void test_route_many(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    uint32_t l[32];
    size_t wrong = 0, broken = 0;
    for (uint64_t k = 0; k < 100000; k++) {
        uint64_t x = ss_mix64(k);
        size_t a = x % 200, b = (x >> 20) % 200;
        size_t n = ss_topo_route(t, ss_topo_host(t, a), ss_topo_host(t, b), x, l, 32, NULL);
        size_t want = a == b ? 0 : a / 20 == b / 20 ? 2 : 4; /* 20 hosts per leaf */
        wrong += n != want;
        uint32_t ga = ss_topo_host_gpu(t, a, (x >> 40) % 8), gb = ss_topo_host_gpu(t, b, (x >> 50) % 8);
        size_t m = ss_topo_route(t, ga, gb, x, l, 32, NULL);
        if (m == SS_TOPO_NO_ROUTE || m > 32) {
            broken++;
            continue;
        }
        uint32_t at = ga;
        for (size_t i = 0; i < m; i++) {
            broken += ss_topo_link_from(t, l[i]) != at;
            at = ss_topo_link_to(t, l[i]);
        }
        broken += at != gb;
        wrong += a != b && m <= n; /* leaving a GPU costs hops inside the host */
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(broken, 0);
    ss_topo_free(t);
}

/* ---- inside hosts --------------------------------------------------------------- */

/* 2 sockets, 4 PCIe switches, 8 GPUs, NVLink between gpu0 and gpu1 only. */
static const char PCIE_HOST[] =
    "host_types:\n"
    "  - name: box\n"
    "    sockets: 2\n"
    "    socket_link: {bandwidth_gbps: 300, latency_s: 1.0e-7}\n"
    "    pcie_switches: 4\n"
    "    switch_link: {bandwidth_gbps: 126}\n"
    "    gpus: 8\n"
    "    gpu_link: {up_bandwidth_gbps: 100, down_bandwidth_gbps: 120, latency_s: 1.0e-6}\n"
    "    nvlink: {bandwidth_gbps: 200, pairs: [[0, 1, 2]]}\n"
    "    ram: {bandwidth_gbps: 600}\n"
    "    nic: {attach: sw3, bandwidth_gbps: 100}\n"
    "nodes:\n"
    "  - {name: b, kind: host, type: box}\n";

static void test_gpu_paths(void)
{
    ss_topo *t = load_ok(PCIE_HOST);
    if (!t) return;
    CU_ASSERT_EQUAL(ss_topo_nnodes(t), 1 + 2 + 4 + 8 + 1);
    uint32_t l[32];
    double lat;
    /* nvlink: one hop, 2 bricks */
    CU_ASSERT_EQUAL_FATAL(route(t, "b/gpu0", "b/gpu1", 0, l, &lat), 1);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, 1), SS_PATH_NVLINK);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 400e9);
    /* pix: gpu2 and gpu3 share sw1 */
    CU_ASSERT_EQUAL_FATAL(route(t, "b/gpu2", "b/gpu3", 0, l, &lat), 2);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[0]), node(t, "b/sw1"));
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, 2), SS_PATH_PIX);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 100e9); /* up: GPU to host */
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[1]), 120e9); /* down: host to GPU */
    CU_ASSERT_DOUBLE_EQUAL(lat, 2e-6, 1e-15);
    /* node: gpu0 (sw0) to gpu2 (sw1), both under cpu0 */
    size_t n = route(t, "b/gpu0", "b/gpu2", 0, l, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    check_chain(t, node(t, "b/gpu0"), node(t, "b/gpu2"), l, n);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[1]), node(t, "b/cpu0"));
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, n), SS_PATH_NODE);
    /* sys: gpu0 to gpu5 crosses sockets, and not through gpu1's NVLink */
    n = route(t, "b/gpu0", "b/gpu5", 0, l, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, n), SS_PATH_SYS);
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[2]), SS_TL_SOCKET);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[2]), 300e9);
    n = route(t, "b/gpu1", "b/gpu4", 0, l, NULL);
    CU_ASSERT_EQUAL(n, 5);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, n), SS_PATH_SYS);
    /* a socket to its GPU: one PCIe hop */
    n = route(t, "b/cpu1", "b/sw2", 0, l, NULL);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, n), SS_PATH_PCIE);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, 0), SS_PATH_SELF);
    ss_topo_free(t);

    /* the BlockFlow L40S host: NODE within a NUMA node, SYS across
     * (blockflow.md Table A.1), and no NVLink */
    t = load_shipped("l40s-host.yaml");
    if (!t) return;
    CU_ASSERT_EQUAL(ss_topo_nhosts(t), 1);
    CU_ASSERT_EQUAL(ss_topo_host_ngpus(t, 0), 8);
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) {
            n = ss_topo_route(t, ss_topo_host_gpu(t, 0, a), ss_topo_host_gpu(t, 0, b), 0, l, 32, NULL);
            ss_path_kind k = ss_topo_path_kind(t, l, n);
            ss_path_kind want = a == b ? SS_PATH_SELF : a / 4 == b / 4 ? SS_PATH_NODE : SS_PATH_SYS;
            CU_ASSERT_EQUAL(k, want);
            CU_ASSERT_EQUAL(n, a == b ? 0u : a / 4 == b / 4 ? 2u : 3u);
        }
    ss_topo_free(t);

    /* the DGX-1V host type: NV1 / NV2 pairs, SYS elsewhere */
    t = load_shipped("explicit-links.yaml");
    if (!t) return;
    CU_ASSERT_EQUAL(route(t, "dgx/gpu0", "dgx/gpu1", 0, l, NULL), 1);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 200e9);
    CU_ASSERT_EQUAL(route(t, "dgx/gpu0", "dgx/gpu3", 0, l, NULL), 1);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 400e9);
    n = route(t, "dgx/gpu0", "dgx/gpu5", 0, l, NULL);
    CU_ASSERT_EQUAL(ss_topo_path_kind(t, l, n), SS_PATH_SYS);
    CU_ASSERT_EQUAL(n, 5);
    ss_topo_free(t);
}

static void test_ram_to_gpu(void)
{
    ss_topo *t = load_shipped("l40s-host.yaml");
    if (!t) return;
    uint32_t l[32];
    /* RAM links every socket, so a copy uses the GPU's own socket */
    CU_ASSERT_EQUAL_FATAL(route(t, "awenode/ram", "awenode/gpu5", 0, l, NULL), 2);
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[0]), SS_TL_MEMORY);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[0]), node(t, "awenode/cpu1"));
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[1]), SS_TL_PCIE);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[1]), 256e9);
    CU_ASSERT_EQUAL(route(t, "awenode/gpu2", "awenode/ram", 0, l, NULL), 2);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[0]), node(t, "awenode/cpu0"));
    CU_ASSERT_EQUAL(ss_topo_host_ram(t, 0), node(t, "awenode/ram"));
    ss_topo_free(t);

    /* a remote host's RAM to a GPU (Flashpoint's host-to-host cold start) */
    t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    size_t n = route(t, "h4/ram", "h150/gpu6", 9, l, NULL);
    CU_ASSERT_EQUAL(n, 2 + 4 + 3); /* ram-cpu0-nic, 4 network, nic-cpu0-cpu1-gpu6 */
    check_chain(t, node(t, "h4/ram"), node(t, "h150/gpu6"), l, n);
    /* a host's own RAM to each of its GPUs: the A10's measured 75.68 Gbit/s */
    n = route(t, "h4/ram", "h4/gpu6", 9, l, NULL);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_link_capacity_bps(t, l[1]), 75.68e9, 1);
    ss_topo_free(t);
}

static void test_storage(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    uint32_t s3 = node(t, "s3"), l[32];
    double lat;
    size_t n = route(t, "s3", "h5/gpu3", 4, l, &lat);
    /* s3 -> border -> spine -> leaf0 -> h5 -> cpu0 -> gpu3 */
    CU_ASSERT_EQUAL_FATAL(n, 6);
    check_chain(t, s3, node(t, "h5/gpu3"), l, n);
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[0]), SS_TL_STORAGE);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 2000e6);
    CU_ASSERT_EQUAL(ss_topo_link_to(t, l[0]), node(t, "border"));
    CU_ASSERT_DOUBLE_EQUAL(lat, 0.005 + 3e-6 + 2 * 5e-7, 1e-12); /* storage, 3 switch hops, NIC + PCIe */
    /* every host's download shares that one link */
    uint32_t first = l[0];
    for (size_t h = 0; h < 200; h += 13) {
        n = ss_topo_route(t, s3, ss_topo_host(t, h), h, l, 32, NULL);
        CU_ASSERT_EQUAL(n, 4);
        CU_ASSERT_EQUAL(l[0], first);
    }
    /* uploads end on its other direction */
    n = route(t, "h5/gpu3", "s3", 4, l, NULL);
    CU_ASSERT_EQUAL(l[n - 1], ss_topo_link_reverse(first));
    /* the per-connection cap is a property of the endpoint */
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_conn_cap_bps(t, s3), 2203e6, 1e-3);
    CU_ASSERT(isinf(ss_topo_conn_cap_bps(t, node(t, "h5"))));
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_flow_cap_bps(t, s3, node(t, "h5/gpu3")), 2203e6, 1e-3);
    CU_ASSERT(isinf(ss_topo_flow_cap_bps(t, node(t, "h0"), node(t, "h1"))));
    ss_topo_free(t);

    /* asymmetric: down is from storage, up is to it */
    t = load_ok("nodes: [{name: gw, kind: switch}, {name: h, kind: host}]\n"
                "links: [{a: h, b: gw, bandwidth_gbps: 10}]\n"
                "storage:\n"
                "  - {name: obj, attach: gw, down_bandwidth_mbps: 2000, up_bandwidth_mbps: 100,\n"
                "     per_connection_bps: 5e8}\n");
    if (!t) return;
    CU_ASSERT_EQUAL_FATAL(route(t, "obj", "h", 0, l, NULL), 2);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 2000e6);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, ss_topo_link_reverse(l[0])), 100e6);
    CU_ASSERT_EQUAL(ss_topo_conn_cap_bps(t, node(t, "obj")), 5e8);
    ss_topo_free(t);
}

/* ---- explicit links, embedding ------------------------------------------------------ */

static void test_explicit(void)
{
    ss_topo *t = load_shipped("three-hosts-one-tor.yaml");
    if (!t) return;
    /* tor, storage, and per host its NIC, socket, GPU and RAM */
    CU_ASSERT_EQUAL(ss_topo_nnodes(t), 2 + 3 * 4);
    /* 3 host-leaf and 1 storage duplex links, and per host NIC, PCIe, memory */
    CU_ASSERT_EQUAL(ss_topo_nlinks(t), 2 * (3 + 1 + 3 * 3));
    CU_ASSERT_EQUAL(ss_topo_nhosts(t), 3);
    CU_ASSERT_STRING_EQUAL(ss_topo_node_name(t, ss_topo_host(t, 2)), "host3");
    uint32_t l[32], m[32];
    CU_ASSERT_EQUAL_FATAL(route(t, "host1", "host2", 0, l, NULL), 2);
    CU_ASSERT_EQUAL_FATAL(route(t, "host1", "host3", 0, m, NULL), 2);
    /* two unicast flows from host1 share its uplink; the chain does not */
    CU_ASSERT_EQUAL(l[0], m[0]);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 10e9);
    CU_ASSERT_EQUAL_FATAL(route(t, "host2", "host3", 0, m, NULL), 2);
    CU_ASSERT(m[0] != l[0] && m[0] != l[1] && m[1] != l[1]);
    CU_ASSERT(isinf(ss_topo_leaf_oversubscription(t, node(t, "tor"))));
    ss_topo_free(t);

    t = load_shipped("explicit-links.yaml");
    if (!t) return;
    /* the asymmetric access link: 100 Mbit/s up, 1 Gbit/s down */
    CU_ASSERT_EQUAL_FATAL(route(t, "client", "store", 0, l, NULL), 2);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, l[0]), 100e6);
    CU_ASSERT_EQUAL(ss_topo_link_capacity_bps(t, ss_topo_link_reverse(l[0])), 1e9);
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[0]), SS_TL_LINK);
    CU_ASSERT_EQUAL(ss_topo_link_tier(t, l[1]), SS_TL_STORAGE);
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_flow_cap_bps(t, node(t, "client"), node(t, "store")), 500e6, 1e-3);
    /* tiers inferred from kinds, the leaf written first still counts */
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_leaf_oversubscription(t, node(t, "tor2")), 100.0 / 40.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_topo_leaf_oversubscription(t, node(t, "tor1")), 50.0 / 40.0, 1e-12);
    /* a route never crosses a third host's inside: a1 to a2 is via tor1 */
    CU_ASSERT_EQUAL(route(t, "a1/gpu0", "a2/gpu1", 0, l, NULL), 2 + 2 + 2);
    ss_topo_free(t);
}

static void test_embedded(void)
{
    /* a topology under a key of a bigger file, with a host type file beside it */
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    ss_test_sh(NULL, "mkdir '%s/hosts'", dir);
    free(ss_test_write(dir, "hosts/one.yaml",
                       "name: one\ngpus: 1\ngpu_link: {bandwidth_gbps: 64}\nnic: {bandwidth_gbps: 10}\n"));
    char *path = ss_test_write(dir, "s.yaml",
                               "name: scenario\n"
                               "network:\n"
                               "  host_types: [hosts/one.yaml]\n"
                               "  spine_leaf: {spines: 1, leaves: 2, hosts_per_leaf: 1, host_type: one,\n"
                               "               host_links: {bandwidth_gbps: 10}, spine_links: {bandwidth_gbps: 40},\n"
                               "               prefixes: {spine: core, leaf: tor, host: node}}\n"
                               "  bogus: 1\n");
    ss_err err = {0};
    ss_doc *doc = ss_doc_load(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    ss_node *net = ss_map_find(doc->root, "network");
    ss_topo *t = ss_topo_from_node(net, &err);
    char want[700];
    snprintf(want, sizeof want,
             "%s:7:3: unknown key 'bogus' in topology; valid keys: name, description, host_types, spine_leaf, "
             "nodes, storage, links",
             path);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    /* without the bad key it loads, names from the prefixes */
    ss_node *bogus = net->items[net->n - 1];
    net->n--;
    memset(&err, 0, sizeof err);
    t = ss_topo_from_node(net, &err);
    if (!t) fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    net->items[net->n++] = bogus;
    ss_doc_free(doc);
    CU_ASSERT_STRING_EQUAL(ss_topo_name(t), "");
    CU_ASSERT_EQUAL(ss_topo_nhosts(t), 2);
    CU_ASSERT_STRING_EQUAL(ss_topo_node_name(t, ss_topo_host(t, 1)), "node1");
    CU_ASSERT_NOT_EQUAL(ss_topo_find(t, "node1/gpu0"), SS_TOPO_NONE);
    CU_ASSERT_NOT_EQUAL(ss_topo_find(t, "core0"), SS_TOPO_NONE);
    uint32_t l[32];
    CU_ASSERT_EQUAL(route(t, "node0/gpu0", "node1/gpu0", 0, l, NULL), 2 + 4 + 2);
    ss_topo_free(t);
    free(path);

    /* JSON works the same, positions included */
    static const char json[] =
        "{\"nodes\": [{\"name\": \"tor\", \"kind\": \"leaf\"},\n"
        "           {\"name\": \"a\", \"kind\": \"host\"}, {\"name\": \"b\", \"kind\": \"host\"}],\n"
        " \"links\": [{\"a\": \"a\", \"b\": \"tor\", \"bandwidth_gbps\": 10},\n"
        "           {\"a\": \"b\", \"b\": \"torr\", \"bandwidth_gbps\": 10}]}\n";
    path = ss_test_write(dir, "t.json", json);
    memset(&err, 0, sizeof err);
    t = ss_topo_load(path, &err);
    CU_ASSERT_PTR_NULL(t);
    snprintf(want, sizeof want, "%s:4:%d: unknown node 'torr' (did you mean 'tor'?)", path,
             ss_test_col_of(json, 4, "\"torr"));
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    free(path);
    ss_test_rmtree(dir);
}

static void test_resolve(void)
{
    ss_topo *t = load_shipped("flashpoint-dc.yaml");
    if (!t) return;
    ss_err err = {0};
    static const char text[] = "src: h7/gpu2\ndst: leaf11\n";
    ss_doc *doc = ss_doc_parse_yaml(text, strlen(text), "ref.yaml", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    uint32_t v = 0;
    CU_ASSERT_EQUAL(ss_topo_resolve(t, ss_map_find(doc->root, "src"), "source", &v, &err), 0);
    CU_ASSERT_EQUAL(v, ss_topo_host_gpu(t, 7, 2));
    CU_ASSERT_EQUAL(ss_topo_resolve(t, ss_map_find(doc->root, "dst"), "destination", &v, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "ref.yaml:2:6: unknown destination 'leaf11' (did you mean 'leaf1'?)");
    ss_doc_free(doc);
    ss_topo_free(t);
}

static void test_shipped(void)
{
    static const char *const files[] = {"flashpoint-dc.yaml", "three-hosts-one-tor.yaml", "l40s-host.yaml",
                                        "explicit-links.yaml", NULL};
    for (int i = 0; files[i]; i++) {
        ss_topo *t = load_shipped(files[i]);
        if (!t) continue;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ss_topo_describe(t, f);
        fclose(f);
        CU_ASSERT(len > 0);
        free(buf);
        /* every node reaches every host's NIC; what the load-time check
         * found reachable from the first host, the router does reach */
        size_t fails = 0;
        for (uint32_t v = 0; v < ss_topo_nnodes(t); v += 7)
            for (size_t h = 0; h < ss_topo_nhosts(t); h += 11)
                fails += ss_topo_route(t, v, ss_topo_host(t, h), v, NULL, 0, NULL) == SS_TOPO_NO_ROUTE;
        uint32_t from = ss_topo_nhosts(t) ? ss_topo_host(t, 0) : 0;
        for (uint32_t v = 0; v < ss_topo_nnodes(t); v++) {
            ss_topo_node_kind k = ss_topo_node_kind_of(t, v);
            if (k != SS_TN_SWITCH && k != SS_TN_LEAF && k != SS_TN_SPINE && k != SS_TN_SOCKET && k != SS_TN_PCIE_SWITCH)
                fails += ss_topo_route(t, from, v, 0, NULL, 0, NULL) == SS_TOPO_NO_ROUTE;
        }
        CU_ASSERT_EQUAL(fails, 0);
        ss_topo_free(t);
    }
    /* host type files load as part of a topology only */
    ss_err err = {0};
    ss_topo *t = ss_topo_load(TOPO_DIR "/hosts/dgx1-v100.yaml", &err);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown key 'sockets' in topology"));
}

SS_TEST_SUITE("topo",
              {"flashpoint_counts", test_flashpoint_counts},
              {"oversubscription", test_oversubscription},
              {"routes_hosts", test_routes_hosts},
              {"ecmp", test_ecmp},
              {"route_many", test_route_many},
              {"gpu_paths", test_gpu_paths},
              {"ram_to_gpu", test_ram_to_gpu},
              {"storage", test_storage},
              {"explicit", test_explicit},
              {"embedded", test_embedded},
              {"resolve", test_resolve},
              {"shipped", test_shipped})
