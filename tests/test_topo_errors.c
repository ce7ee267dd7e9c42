/* test_topo_errors.c: the topology schema's refusals (sim/net/topo_read.c,
 * sim/net/topo_host.c) with their exact file:line:col messages: links to
 * unknown nodes, zero or negative bandwidths, disconnected hosts, bad names,
 * generator and host-type mistakes. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_topo.h"
#include "net/topo.h"

/* ---- refusals --------------------------------------------------------------------- */

#define HOSTS2 \
    "nodes:\n" \
    "  - {name: tor, kind: leaf}\n" \
    "  - {name: h1, kind: host}\n" \
    "  - {name: h2, kind: host}\n" \
    "links:\n" \
    "  - {a: h1, b: tor, bandwidth_gbps: 10}\n"

static void test_err_links(void)
{
    static const char unknown[] = HOSTS2 "  - {a: h2, b: torr, bandwidth_gbps: 10}\n";
    expect_refused(unknown, 7, ss_test_col_of(unknown, 7, "torr"), "unknown node 'torr' (did you mean 'tor'?)");
    static const char zero[] = HOSTS2 "  - {a: h2, b: tor, bandwidth_gbps: 0}\n";
    expect_refused(zero, 7, ss_test_col_of(zero, 7, "0}"), "bandwidth_gbps: expected a number > 0, got '0'");
    static const char neg[] = HOSTS2 "  - {a: h2, b: tor, up_bandwidth_mbps: -5, down_bandwidth_mbps: 5}\n";
    expect_refused(neg, 7, ss_test_col_of(neg, 7, "-5"), "up_bandwidth_mbps: expected a number > 0, got '-5'");
    static const char two[] = HOSTS2 "  - {a: h2, b: tor, bandwidth_gbps: 10, bandwidth_bps: 1e10}\n";
    expect_refused(two, 7, ss_test_col_of(two, 7, "bandwidth_bps"),
                   "bandwidth_bps: give one of bandwidth_gbps, bandwidth_mbps or bandwidth_bps, not several");
    static const char none[] = HOSTS2 "  - {a: h2, b: tor, up_bandwidth_gbps: 10}\n";
    expect_refused(none, 7, ss_test_col_of(none, 7, "{"),
                   "link: missing bandwidth: give bandwidth_gbps, bandwidth_mbps or bandwidth_bps "
                   "(or both up_bandwidth_* and down_bandwidth_*)");
    static const char self[] = HOSTS2 "  - {a: h2, b: h2, bandwidth_gbps: 10}\n";
    expect_refused(self, 7, ss_test_col_of(self, 7, "h2, band"), "link: a and b are the same node");
    static const char key[] = HOSTS2 "  - {a: h2, b: tor, bandwidth_gbps: 10, latency: 1}\n";
    expect_refused(key, 7, ss_test_col_of(key, 7, "latency"),
                   "unknown key 'latency' in link (did you mean 'latency_s'?)");
    static const char tier[] = HOSTS2 "  - {a: h2, b: tor, bandwidth_gbps: 10, tier: hostleaf}\n";
    expect_refused(tier, 7, ss_test_col_of(tier, 7, "hostleaf"),
                   "tier: unknown value 'hostleaf' (did you mean 'host-leaf'?); expected one of: host-leaf, "
                   "leaf-spine, storage, link, nic, pcie, nvlink, socket, memory");
}

static void test_err_disconnected(void)
{
    /* h2 has no link at all */
    expect_refused(HOSTS2, 4, ss_test_col_of(HOSTS2, 4, "{"),
                   "host 'h2' cannot be reached from host 'h1' (the topology is disconnected)");
    /* two racks without a link between them */
    static const char racks[] = "nodes:\n"
                                "  - {name: t1, kind: leaf}\n"
                                "  - {name: t2, kind: leaf}\n"
                                "  - {name: h1, kind: host}\n"
                                "  - {name: h2, kind: host}\n"
                                "  - {name: h3, kind: host}\n"
                                "links:\n"
                                "  - {a: h1, b: t1, bandwidth_gbps: 1}\n"
                                "  - {a: h2, b: t2, bandwidth_gbps: 1}\n";
    expect_refused(racks, 5, 5, "host 'h2' cannot be reached from host 'h1' (the topology is disconnected)");
    /* joined only through a host with two NICs' worth of links: routes never
     * cross a third host */
    static const char via[] = "nodes:\n"
                              "  - {name: t1, kind: leaf}\n"
                              "  - {name: t2, kind: leaf}\n"
                              "  - {name: h1, kind: host}\n"
                              "  - {name: h2, kind: host}\n"
                              "  - {name: h3, kind: host}\n"
                              "links:\n"
                              "  - {a: h1, b: t1, bandwidth_gbps: 1}\n"
                              "  - {a: h2, b: t2, bandwidth_gbps: 1}\n"
                              "  - {a: h3, b: t1, bandwidth_gbps: 1}\n"
                              "  - {a: h3, b: t2, bandwidth_gbps: 1}\n";
    expect_refused(via, 5, 5,
                   "host 'h2' cannot be reached from host 'h1' (only through a GPU, an endpoint or another "
                   "host, which routes never cross)");
    /* a generator with two leaves and no spine: at the generator */
    static const char gen[] = "name: g\n"
                              "spine_leaf:\n"
                              "  spines: 0\n"
                              "  leaves: 2\n"
                              "  hosts_per_leaf: 2\n"
                              "  host_links: {bandwidth_gbps: 1}\n";
    expect_refused(gen, 3, 3, "host 'h2' cannot be reached from host 'h0' (the topology is disconnected)");
    /* storage behind storage: routes never pass a storage endpoint */
    static const char lone[] = HOSTS2 "  - {a: h2, b: tor, bandwidth_gbps: 10}\n"
                                      "storage:\n"
                                      "  - {name: s3, attach: tor, bandwidth_gbps: 1}\n"
                                      "  - {name: s4, attach: s3, bandwidth_gbps: 1}\n";
    expect_refused(lone, 10, 5,
                   "storage 's4' cannot be reached from host 'h1' (only through a GPU, an endpoint or another host, "
                   "which routes never cross)");
}

static void test_err_names(void)
{
    static const char dup[] = HOSTS2 "nodes2: 1\n";
    expect_refused(dup, 7, 1, "unknown key 'nodes2' in topology (did you mean 'nodes'?)");
    static const char dn[] = "nodes:\n"
                             "  - {name: tor, kind: leaf}\n"
                             "  - {name: tor, kind: switch}\n";
    expect_refused(dn, 3, ss_test_col_of(dn, 3, "tor"), "duplicate node name 'tor'");
    static const char dg[] = "spine_leaf: {spines: 1, leaves: 1, hosts_per_leaf: 2, host_links: {bandwidth_gbps: 1},\n"
                             "             spine_links: {bandwidth_gbps: 1}}\n"
                             "nodes:\n"
                             "  - {name: h1, kind: host}\n";
    expect_refused(dg, 4, ss_test_col_of(dg, 4, "h1"), "duplicate node name 'h1'");
    static const char slash[] = "nodes:\n"
                                "  - {name: a/b, kind: switch}\n";
    expect_refused(slash, 2, ss_test_col_of(slash, 2, "a/b"),
                   "name: expected a name, got one with '/' (it separates a host from its device)");
    static const char pre[] = "spine_leaf:\n"
                              "  spines: 2\n"
                              "  leaves: 2\n"
                              "  hosts_per_leaf: 1\n"
                              "  host_links: {bandwidth_gbps: 1}\n"
                              "  spine_links: {bandwidth_gbps: 1}\n"
                              "  prefixes: {spine: x, leaf: x}\n";
    expect_refused(pre, 7, ss_test_col_of(pre, 7, "{"),
                   "spine_leaf: the name 'x0' would be made twice (give distinct prefixes)");
    static const char kind[] = "nodes:\n"
                               "  - {name: t, kind: tor}\n";
    expect_refused(kind, 2, ss_test_col_of(kind, 2, "tor"),
                   "kind: unknown value 'tor'; expected one of: switch, leaf, spine, host, endpoint");
    static const char st[] = "nodes:\n"
                             "  - {name: tor, kind: leaf}\n"
                             "storage:\n"
                             "  - {name: s3, attach: torr, bandwidth_mbps: 2000}\n";
    expect_refused(st, 4, ss_test_col_of(st, 4, "torr"), "unknown node 'torr' (did you mean 'tor'?)");
    static const char cap[] = "nodes:\n"
                              "  - {name: tor, kind: leaf, per_connection_mbps: 1}\n";
    expect_refused(cap, 2, ss_test_col_of(cap, 2, "per_"),
                   "per_connection_mbps: only storage and endpoints have a per-connection cap");
    static const char empty[] = "name: nothing\n";
    expect_refused(empty, 1, 1, "topology: no nodes (give spine_leaf, nodes or storage)");
}

static void test_err_generator(void)
{
    static const char miss[] = "spine_leaf:\n"
                               "  spines: 2\n"
                               "  leaves: 2\n"
                               "  hosts_per_leaf: 1\n"
                               "  host_links: {bandwidth_gbps: 1}\n";
    expect_refused(miss, 2, 3, "missing required key 'spine_links'");
    static const char neg[] = "spine_leaf:\n"
                              "  spines: -1\n"
                              "  leaves: 2\n";
    expect_refused(neg, 2, ss_test_col_of(neg, 2, "-1"), "spines: expected an integer >= 0, got '-1'");
    static const char lz[] = "spine_leaf:\n"
                             "  spines: 1\n"
                             "  leaves: 0\n";
    expect_refused(lz, 3, ss_test_col_of(lz, 3, "0"), "leaves: expected 1 to 10000000, got 0");
    static const char typ[] = "host_types:\n"
                              "  - {name: dgx1, gpus: 1, gpu_link: {bandwidth_gbps: 1}, nic: {bandwidth_gbps: 1}}\n"
                              "spine_leaf:\n"
                              "  spines: 1\n"
                              "  leaves: 1\n"
                              "  hosts_per_leaf: 1\n"
                              "  host_links: {bandwidth_gbps: 1}\n"
                              "  spine_links: {bandwidth_gbps: 1}\n"
                              "  host_type: dgx\n";
    expect_refused(typ, 9, ss_test_col_of(typ, 9, "dgx"), "unknown host type 'dgx' (did you mean 'dgx1'?)");
    static const char big[] = "spine_leaf:\n"
                              "  spines: 100\n"
                              "  leaves: 1000000\n"
                              "  hosts_per_leaf: 10\n"
                              "  host_links: {bandwidth_gbps: 1}\n"
                              "  spine_links: {bandwidth_gbps: 1}\n";
    expect_refused(big, 2, 3, "spine_leaf: 11000100 nodes and 100000000 leaf-spine links; at most 16777216 of each");
}

static void test_err_host_types(void)
{
#define HT(body) "host_types:\n  - name: x\n" body "nodes:\n  - {name: h, kind: host, type: x}\n"
    static const char att[] = HT("    gpus: 2\n"
                                 "    gpu_link: {bandwidth_gbps: 1}\n"
                                 "    gpu_attach: [cpu0, sw1]\n"
                                 "    nic: {bandwidth_gbps: 1}\n");
    expect_refused(att, 5, ss_test_col_of(att, 5, "sw1"), "gpu_attach: no PCIe switch 'sw1' (this host type has none)");
    static const char cnt[] = HT("    gpus: 2\n"
                                 "    gpu_link: {bandwidth_gbps: 1}\n"
                                 "    gpu_attach: [cpu0]\n"
                                 "    nic: {bandwidth_gbps: 1}\n");
    expect_refused(cnt, 5, ss_test_col_of(cnt, 5, "["), "gpu_attach: expected one attach point per GPU (2), got 1");
    static const char nv[] = HT("    gpus: 2\n"
                                "    gpu_link: {bandwidth_gbps: 1}\n"
                                "    nvlink: {bandwidth_gbps: 200, pairs: [[0, 2]]}\n"
                                "    nic: {bandwidth_gbps: 1}\n");
    expect_refused(nv, 5, ss_test_col_of(nv, 5, "2]]"), "nvlink pair: no gpu 2 (this host type has gpu0..gpu1)");
    static const char sock[] = HT("    sockets: 2\n"
                                  "    nic: {attach: cpu2, bandwidth_gbps: 1}\n");
    expect_refused(sock, 2, ss_test_col_of(sock, 2, "name"), "missing required key 'socket_link'");
    static const char nic[] = HT("    sockets: 2\n"
                                 "    socket_link: {bandwidth_gbps: 100}\n"
                                 "    nic: {attach: cpu2, bandwidth_gbps: 1}\n");
    expect_refused(nic, 5, ss_test_col_of(nic, 5, "cpu2"), "attach: no socket 'cpu2' (this host type has cpu0..cpu1)");
    static const char gl[] = HT("    gpus: 1\n"
                                "    gpu_link: {bandwidth_gbps: 1, bandwith_mbps: 3}\n"
                                "    nic: {bandwidth_gbps: 1}\n");
    expect_refused(gl, 4, ss_test_col_of(gl, 4, "bandwith"),
                   "unknown key 'bandwith_mbps' in gpu_link (did you mean 'bandwidth_mbps'?)");
    static const char file[] = "host_types: [hosts/none.yaml]\n";
    char *dir, *path;
    ss_err err = {0};
    ss_topo *t = load_text(file, &dir, &path, &err);
    CU_ASSERT_PTR_NULL(t);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:1:14: host type file 'hosts/none.yaml' not found or not readable: looked for '%s/hosts/none.yaml'"
             " (a path in a file is relative to that file's folder)", path, dir);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    free(path);
    ss_test_rmtree(dir);
#undef HT
}

SS_TEST_SUITE("topo-errors",
              {"err_links", test_err_links},
              {"err_disconnected", test_err_disconnected},
              {"err_names", test_err_names},
              {"err_generator", test_err_generator},
              {"err_host_types", test_err_host_types})
