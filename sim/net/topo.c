/* topo.c: the topology graph itself: nodes with unique names (hashed:
 * core/nameidx), directed links in duplex pairs, hosts as blocks of node
 * ids, and the accessors of topo.h.  Reading YAML is topo_read.c; routing topo_route.c. */
#include "net/topo_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const node_kind_names[SS_TN_COUNT] = {
    "spine", "leaf", "switch", "host", "socket", "pcie-switch", "gpu", "ram", "storage", "endpoint", "disk"};
static const char *const tier_names[SS_TL_COUNT] = {"host-leaf", "leaf-spine", "storage", "link", "nic",
                                                    "pcie",      "nvlink",     "socket",  "memory", "disk"};
static const char *const path_kind_names[SS_PATH_COUNT] = {"self", "nvlink", "pcie", "pix",
                                                           "pxb",  "node",   "sys",  "net"};

const char *ss_topo_node_kind_name(ss_topo_node_kind kind)
{
    return kind < SS_TN_COUNT ? node_kind_names[kind] : "?";
}

const char *ss_topo_tier_name(ss_topo_tier tier)
{
    return tier < SS_TL_COUNT ? tier_names[tier] : "?";
}

const char *ss_path_kind_name(ss_path_kind kind)
{
    return kind < SS_PATH_COUNT ? path_kind_names[kind] : "?";
}

/* ---- building ------------------------------------------------------------- */

ss_topo *ss_topo_new(void)
{
    ss_topo *t = ss_xcalloc(1, sizeof *t);
    t->name = ss_xstrdup("");
    return t;
}

uint32_t ss_topo_add_node(ss_topo *t, const char *name, ss_topo_node_kind kind, uint32_t host)
{
    if (t->nnodes == t->cap_nodes) {
        t->cap_nodes = t->cap_nodes ? 2 * t->cap_nodes : 64;
        t->nodes = ss_xrealloc(t->nodes, t->cap_nodes * sizeof *t->nodes);
    }
    uint32_t id = (uint32_t)t->nnodes++;
    t->nodes[id] = (ss_tnode){.name = ss_xstrdup(name), .kind = kind, .host = host, .conn_cap_bps = INFINITY};
    uint32_t had = ss_nameidx_put(&t->names, t->nodes[id].name, id);
    assert(had == SS_NAMEIDX_NONE);
    (void)had;
    return id;
}

uint32_t ss_topo_add_link(ss_topo *t, uint32_t a, uint32_t b, double up_bps, double down_bps, double latency_s,
                          ss_topo_tier tier)
{
    assert(a < t->nnodes && b < t->nnodes && a != b && up_bps > 0 && down_bps > 0);
    if (t->nlinks + 2 > t->cap_links) {
        t->cap_links = t->cap_links ? 2 * t->cap_links : 128;
        t->links = ss_xrealloc(t->links, t->cap_links * sizeof *t->links);
        t->cap_bps = ss_xrealloc(t->cap_bps, t->cap_links * sizeof *t->cap_bps);
    }
    uint32_t id = (uint32_t)t->nlinks;
    t->links[id] = (ss_tlink){.from = a, .to = b, .latency_s = latency_s, .tier = tier};
    t->links[id + 1] = (ss_tlink){.from = b, .to = a, .latency_s = latency_s, .tier = tier};
    t->cap_bps[id] = up_bps;
    t->cap_bps[id + 1] = down_bps;
    t->nlinks += 2;
    return id;
}

uint32_t ss_topo_add_host(ss_topo *t)
{
    if (t->nhosts == t->cap_hosts) {
        t->cap_hosts = t->cap_hosts ? 2 * t->cap_hosts : 16;
        t->hosts = ss_xrealloc(t->hosts, t->cap_hosts * sizeof *t->hosts);
    }
    uint32_t h = (uint32_t)t->nhosts++;
    t->hosts[h] = (ss_thost){.nic = (uint32_t)t->nnodes, .count = 0, .gpu0 = SS_TOPO_NONE, .ngpus = 0,
                             .ram = SS_TOPO_NONE, .disk = SS_TOPO_NONE, .gated = 0};
    return h;
}

void ss_topo_finish(ss_topo *t)
{
    size_t n = t->nnodes;
    t->adj_off = ss_xcalloc(n + 1, sizeof *t->adj_off);
    t->adj = ss_xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *t->adj);
    for (size_t e = 0; e < t->nlinks; e++) t->adj_off[t->links[e].from + 1]++;
    for (size_t v = 0; v < n; v++) t->adj_off[v + 1] += t->adj_off[v];
    uint32_t *fill = ss_xmalloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, t->adj_off, n * sizeof *fill);
    for (size_t e = 0; e < t->nlinks; e++) t->adj[fill[t->links[e].from]++] = (uint32_t)e; /* ascending ids */
    free(fill);
    /* A host is gated when nothing but its NIC links it to the rest: then
     * routes into or out of it split at the NIC (topo_route.c). */
    for (size_t h = 0; h < t->nhosts; h++) t->hosts[h].gated = 1;
    for (size_t e = 0; e < t->nlinks; e++) {
        uint32_t a = t->links[e].from, ha = t->nodes[a].host;
        if (ha != SS_TOPO_NONE && t->nodes[t->links[e].to].host != ha && a != t->hosts[ha].nic)
            t->hosts[ha].gated = 0;
    }
    t->fab = ss_xmalloc((n ? n : 1) * sizeof *t->fab);
    t->nfab = 0;
    for (size_t v = 0; v < n; v++) {
        uint32_t h = t->nodes[v].host;
        int inside = h != SS_TOPO_NONE && t->hosts[h].gated && v != t->hosts[h].nic;
        t->fab[v] = inside ? SS_TOPO_NONE : (uint32_t)t->nfab++;
    }
    t->fabric = ss_xcalloc(n ? n : 1, sizeof *t->fabric);
    t->local = ss_xcalloc(n ? n : 1, sizeof *t->local);
}

void ss_topo_free(ss_topo *t)
{
    if (!t) return;
    for (size_t v = 0; v < t->nnodes; v++) {
        free(t->nodes[v].name);
        if (t->fabric) free(t->fabric[v].hops);
        if (t->local) free(t->local[v].hops);
    }
    free(t->name);
    free(t->nodes);
    free(t->links);
    free(t->cap_bps);
    free(t->hosts);
    ss_nameidx_free(&t->names);
    free(t->adj_off);
    free(t->adj);
    free(t->fab);
    free(t->fabric);
    free(t->local);
    free(t);
}

/* ---- names ----------------------------------------------------------------- */

_Static_assert(SS_NAMEIDX_NONE == SS_TOPO_NONE, "a name not found is no node");

uint32_t ss_topo_find(const ss_topo *t, const char *name)
{
    return ss_nameidx_get(&t->names, name);
}

static int unknown_node(const ss_topo *t, const ss_node *n, const char *what, ss_err *err)
{
    const char **names = ss_xcalloc(t->nnodes + 1, sizeof *names);
    for (size_t v = 0; v < t->nnodes; v++) names[v] = t->nodes[v].name;
    int rc = ss_node_unknown(n, what, names, err);
    free(names);
    return rc;
}

int ss_topo_resolve(const ss_topo *t, const ss_node *value, const char *what, uint32_t *out, ss_err *err)
{
    if (!what) what = "node";
    if (ss_node_expect(value, SS_NODE_SCALAR, what, err) < 0) return -1;
    uint32_t id = ss_topo_find(t, value->value);
    if (id == SS_TOPO_NONE) return unknown_node(t, value, what, err);
    *out = id;
    return 0;
}

/* ---- accessors ---------------------------------------------------------------- */

const char *ss_topo_name(const ss_topo *t) { return t->name; }
size_t ss_topo_nnodes(const ss_topo *t) { return t->nnodes; }
size_t ss_topo_nlinks(const ss_topo *t) { return t->nlinks; }
size_t ss_topo_nhosts(const ss_topo *t) { return t->nhosts; }
const double *ss_topo_capacities_bps(const ss_topo *t) { return t->cap_bps; }

const char *ss_topo_node_name(const ss_topo *t, uint32_t node)
{
    assert(node < t->nnodes);
    return t->nodes[node].name;
}

ss_topo_node_kind ss_topo_node_kind_of(const ss_topo *t, uint32_t node)
{
    assert(node < t->nnodes);
    return t->nodes[node].kind;
}

double ss_topo_conn_cap_bps(const ss_topo *t, uint32_t node)
{
    assert(node < t->nnodes);
    return t->nodes[node].conn_cap_bps;
}

double ss_topo_flow_cap_bps(const ss_topo *t, uint32_t src, uint32_t dst)
{
    return fmin(ss_topo_conn_cap_bps(t, src), ss_topo_conn_cap_bps(t, dst));
}

uint32_t ss_topo_host(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].nic : SS_TOPO_NONE;
}

uint32_t ss_topo_node_host(const ss_topo *t, uint32_t node)
{
    assert(node < t->nnodes);
    return t->nodes[node].host;
}

uint32_t ss_topo_host_ngpus(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].ngpus : 0;
}

uint32_t ss_topo_host_gpu(const ss_topo *t, size_t index, uint32_t gpu)
{
    if (index >= t->nhosts || gpu >= t->hosts[index].ngpus) return SS_TOPO_NONE;
    return t->hosts[index].gpu0 + gpu;
}

uint32_t ss_topo_host_ram(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].ram : SS_TOPO_NONE;
}

double ss_topo_host_gpu_vram_bytes(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].gpu_vram_bytes : 0;
}

double ss_topo_host_ram_bytes(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].ram_bytes : 0;
}

uint32_t ss_topo_host_disk(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].disk : SS_TOPO_NONE;
}

double ss_topo_host_disk_bytes(const ss_topo *t, size_t index)
{
    return index < t->nhosts ? t->hosts[index].disk_bytes : 0;
}

uint32_t ss_topo_link_from(const ss_topo *t, uint32_t link)
{
    assert(link < t->nlinks);
    return t->links[link].from;
}

uint32_t ss_topo_link_to(const ss_topo *t, uint32_t link)
{
    assert(link < t->nlinks);
    return t->links[link].to;
}

double ss_topo_link_capacity_bps(const ss_topo *t, uint32_t link)
{
    assert(link < t->nlinks);
    return t->cap_bps[link];
}

double ss_topo_link_latency_s(const ss_topo *t, uint32_t link)
{
    assert(link < t->nlinks);
    return t->links[link].latency_s;
}

ss_topo_tier ss_topo_link_tier(const ss_topo *t, uint32_t link)
{
    assert(link < t->nlinks);
    return t->links[link].tier;
}
