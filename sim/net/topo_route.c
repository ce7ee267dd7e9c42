/* topo_route.c: shortest-path routing with ECMP, path kinds, and the
 * connectivity check run at load.
 *
 * Distances are hop counts to one destination, from a backwards BFS done on
 * first use and cached per destination.  A walk from the source takes, at
 * each node, one of the next hops that are one hop closer, picked by a hash
 * of (flow key, node): deterministic per key, spread over keys.
 *
 * Hosts whose inside connects to the rest only through their NIC ("gated",
 * the usual case) keep the tables small: a route into such a host is the
 * route to its NIC, then the route inside (a BFS over that host's few nodes);
 * a route out of one starts with the route to its NIC.  Every path in or out
 * passes the NIC, so the joined route is still a shortest one. */
#include "net/topo_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define INF UINT32_MAX

/* May a route pass through u?  GPUs, RAM, storage and endpoints only send
 * and receive. */
static int transit(const ss_topo *t, uint32_t u)
{
    ss_topo_node_kind k = t->nodes[u].kind;
    return k != SS_TN_GPU && k != SS_TN_RAM && k != SS_TN_STORAGE && k != SS_TN_ENDPOINT && k != SS_TN_DISK;
}

/* The routing rule: may a route to dst step from v to u?  Not through a
 * node that only sends and receives, nor into a third host. */
static int step_ok(const ss_topo *t, uint32_t v, uint32_t u, uint32_t dst)
{
    if (u == dst) return 1;
    if (!transit(t, u)) return 0;
    uint32_t hu = t->nodes[u].host;
    return hu == SS_TOPO_NONE || hu == t->nodes[dst].host || hu == t->nodes[v].host;
}

/* Is v a node of gated host h (its NIC or inside)? */
static int in_gated(const ss_topo *t, uint32_t v, uint32_t h)
{
    return h != SS_TOPO_NONE && t->hosts[h].gated && t->nodes[v].host == h;
}

static inline uint32_t slot(const ss_dist_table *tb, uint32_t v)
{
    return tb->index ? tb->index[v] : v - tb->lo; /* out of range wraps to >= n */
}

static inline uint32_t hops_of(const ss_dist_table *tb, uint32_t v)
{
    uint32_t i = slot(tb, v);
    return i < tb->n ? tb->hops[i] : INF;
}

/* The routing table to d, local (inside d's gated host) or fabric, built
 * by a backwards BFS on first use. */
static const ss_dist_table *build(ss_topo *t, uint32_t d, int local)
{
    ss_dist_table *tb = local ? &t->local[d] : &t->fabric[d];
    if (tb->hops) return tb;
    if (local) {
        const ss_thost *H = &t->hosts[t->nodes[d].host];
        *tb = (ss_dist_table){.index = NULL, .lo = H->nic, .n = H->count};
    } else {
        *tb = (ss_dist_table){.index = t->fab, .lo = 0, .n = (uint32_t)t->nfab};
    }
    tb->hops = ss_xmalloc(tb->n * sizeof *tb->hops);
    memset(tb->hops, 0xff, tb->n * sizeof *tb->hops);
    uint32_t *queue = ss_xmalloc(tb->n * sizeof *queue);
    size_t head = 0, tail = 0;
    tb->hops[slot(tb, d)] = 0;
    queue[tail++] = d;
    while (head < tail) {
        uint32_t u = queue[head++], hu = tb->hops[slot(tb, u)];
        for (uint32_t i = t->adj_off[u]; i < t->adj_off[u + 1]; i++) {
            uint32_t v = t->links[t->adj[i]].to, sv = slot(tb, v); /* links come in pairs: v -> u exists */
            if (sv >= tb->n || tb->hops[sv] != INF || !step_ok(t, v, u, d)) continue;
            tb->hops[sv] = hu + 1;
            queue[tail++] = v;
        }
    }
    free(queue);
    return tb;
}

/* The table for a walk from cur to d: the local one when both are in d's
 * gated host, else the fabric one (ss_topo_route split the route at NICs, so
 * both ends are then fabric nodes). */
static const ss_dist_table *table(const ss_topo *tc, uint32_t cur, uint32_t d)
{
    ss_topo *t = (ss_topo *)tc; /* the cache is not part of the topology's value */
    uint32_t hd = t->nodes[d].host;
    if (in_gated(t, d, hd) && t->nodes[cur].host == hd) return build(t, d, 1);
    assert(t->fab[d] != SS_TOPO_NONE && t->fab[cur] != SS_TOPO_NONE);
    return build(t, d, 0);
}

static uint64_t pick_hash(uint64_t key, uint32_t node)
{
    return ss_mix64(key ^ ss_mix64((uint64_t)node + 0x9e3779b97f4a7c15ull));
}

/* Extend the route in out[0..n) from cur to d; returns the new length. */
static size_t walk(const ss_topo *t, uint32_t cur, uint32_t d, uint64_t key, uint32_t *out, size_t max, size_t n,
                   double *lat)
{
    const ss_dist_table *tb = table(t, cur, d);
    while (cur != d) {
        uint32_t h = hops_of(tb, cur);
        if (h == INF) return SS_TOPO_NO_ROUTE;
        uint32_t nc = 0, e = INF;
        for (uint32_t i = t->adj_off[cur]; i < t->adj_off[cur + 1]; i++) {
            uint32_t l = t->adj[i];
            if (hops_of(tb, t->links[l].to) == h - 1 && step_ok(t, cur, t->links[l].to, d) && nc++ == 0) e = l;
        }
        if (nc > 1) { /* ECMP: the hash picks one of the equal next hops, in link id order */
            uint32_t pick = (uint32_t)(pick_hash(key, cur) % nc);
            for (uint32_t i = t->adj_off[cur]; i < t->adj_off[cur + 1]; i++) {
                uint32_t l = t->adj[i];
                if (hops_of(tb, t->links[l].to) == h - 1 && step_ok(t, cur, t->links[l].to, d) && pick-- == 0) {
                    e = l;
                    break;
                }
            }
        }
        assert(e != INF);
        if (n < max) out[n] = e;
        n++;
        *lat += t->links[e].latency_s;
        cur = t->links[e].to;
    }
    return n;
}

size_t ss_topo_route(const ss_topo *t, uint32_t src, uint32_t dst, uint64_t flow_key, uint32_t *links_out,
                     size_t max_links, double *latency_s_out)
{
    if (src >= t->nnodes || dst >= t->nnodes) return SS_TOPO_NO_ROUTE;
    double lat = 0;
    size_t n = 0;
    uint32_t cur = src, hs = t->nodes[src].host, hd = t->nodes[dst].host;
    if (hs != SS_TOPO_NONE && hs != hd && t->hosts[hs].gated && src != t->hosts[hs].nic) { /* out of the host */
        n = walk(t, cur, t->hosts[hs].nic, flow_key, links_out, max_links, n, &lat);
        if (n == SS_TOPO_NO_ROUTE) return n;
        cur = t->hosts[hs].nic;
    }
    if (hd != SS_TOPO_NONE && t->hosts[hd].gated && dst != t->hosts[hd].nic && t->nodes[cur].host != hd) {
        n = walk(t, cur, t->hosts[hd].nic, flow_key, links_out, max_links, n, &lat); /* to the host */
        if (n == SS_TOPO_NO_ROUTE) return n;
        cur = t->hosts[hd].nic;
    }
    n = walk(t, cur, dst, flow_key, links_out, max_links, n, &lat);
    if (n != SS_TOPO_NO_ROUTE && latency_s_out) *latency_s_out = lat;
    return n;
}

void ss_topo_precompute(ss_topo *t)
{
    for (uint32_t d = 0; d < t->nnodes; d++) {
        if (t->fab[d] != SS_TOPO_NONE) build(t, d, 0);
        if (in_gated(t, d, t->nodes[d].host)) build(t, d, 1);
    }
}

ss_path_kind ss_topo_path_kind(const ss_topo *t, const uint32_t *links, size_t n)
{
    if (n == 0) return SS_PATH_SELF;
    uint32_t h = t->nodes[t->links[links[0]].from].host;
    if (h == SS_TOPO_NONE) return SS_PATH_NET;
    int sys = 0, sockets = 0, switches = 0, all_nv = 1;
    for (size_t i = 0; i < n; i++) {
        const ss_tlink *l = &t->links[links[i]];
        if (t->nodes[l->from].host != h || t->nodes[l->to].host != h) return SS_PATH_NET;
        sys |= l->tier == SS_TL_SOCKET;
        all_nv &= l->tier == SS_TL_NVLINK;
        if (i > 0) { /* a node passed through */
            sockets += t->nodes[l->from].kind == SS_TN_SOCKET;
            switches += t->nodes[l->from].kind == SS_TN_PCIE_SWITCH;
        }
    }
    if (sys) return SS_PATH_SYS;
    if (sockets) return SS_PATH_NODE;
    if (switches > 1) return SS_PATH_PXB;
    if (switches == 1) return SS_PATH_PIX;
    return all_nv ? SS_PATH_NVLINK : SS_PATH_PCIE;
}

/* ---- the check at load ------------------------------------------------------------- */

static int unreachable(const ss_topo *t, const ss_tpos *pos, uint32_t v, uint32_t ref, const char *why, ss_err *err)
{
    return ss_err_at(err, pos[v].file, pos[v].line, pos[v].col, "%s '%s' cannot be reached from %s '%s'%s",
                     ss_topo_node_kind_name(t->nodes[v].kind), t->nodes[v].name,
                     ss_topo_node_kind_name(t->nodes[ref].kind), t->nodes[ref].name, why);
}

static int endpoint_like(ss_topo_node_kind k)
{
    return k == SS_TN_HOST || k == SS_TN_GPU || k == SS_TN_RAM || k == SS_TN_STORAGE || k == SS_TN_ENDPOINT ||
           k == SS_TN_DISK;
}

/* Which nodes a route from ref reaches, in O(nodes + links) rather than a
 * table per destination: a route's intermediate nodes are transit nodes
 * outside hosts or inside the host it already is in (ref's); at its end it
 * may enter the destination's host and move inside it.  (A route that
 * enters, leaves and re-enters its destination's host is not followed: no
 * shortest route does that unless the host's inside is split in two.) */
static char *reachable(const ss_topo *t, uint32_t ref)
{
    size_t n = t->nnodes, head = 0, tail = 0;
    char *reach = ss_xcalloc(n, 1), *core = ss_xcalloc(n, 1);
    uint32_t *queue = ss_xmalloc(n * sizeof *queue);
    reach[ref] = core[ref] = 1;
    queue[tail++] = ref;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t i = t->adj_off[v]; i < t->adj_off[v + 1]; i++) {
            uint32_t u = t->links[t->adj[i]].to, hu = t->nodes[u].host;
            reach[u] = 1;
            if (!core[u] && transit(t, u) && (hu == SS_TOPO_NONE || hu == t->nodes[v].host)) {
                core[u] = 1;
                queue[tail++] = u;
            }
        }
    }
    for (uint32_t h = 0; h < t->nhosts; h++) {
        const ss_thost *H = &t->hosts[h];
        head = tail = 0;
        for (uint32_t u = H->nic; u < H->nic + H->count; u++)
            if (reach[u] && transit(t, u)) queue[tail++] = u;
        while (head < tail) {
            uint32_t v = queue[head++];
            for (uint32_t i = t->adj_off[v]; i < t->adj_off[v + 1]; i++) {
                uint32_t u = t->links[t->adj[i]].to;
                if (t->nodes[u].host != h || reach[u]) continue;
                reach[u] = 1;
                if (transit(t, u)) queue[tail++] = u;
            }
        }
    }
    free(queue);
    free(core);
    return reach;
}

int ss_topo_check_connected(ss_topo *t, const ss_tpos *pos, ss_err *err)
{
    size_t n = t->nnodes;
    uint32_t ref = t->nhosts ? t->hosts[0].nic : 0;
    for (uint32_t v = 0; !t->nhosts && v < n; v++)
        if (endpoint_like(t->nodes[v].kind)) {
            ref = v;
            break;
        }
    /* 1. the graph is connected at all */
    char *seen = ss_xcalloc(n, 1);
    uint32_t *queue = ss_xmalloc(n * sizeof *queue);
    size_t head = 0, tail = 0;
    seen[ref] = 1;
    queue[tail++] = ref;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t i = t->adj_off[u]; i < t->adj_off[u + 1]; i++) {
            uint32_t v = t->links[t->adj[i]].to;
            if (!seen[v]) seen[v] = 1, queue[tail++] = v;
        }
    }
    free(queue);
    uint32_t bad = INF;
    for (size_t h = 0; h < t->nhosts && bad == INF; h++)
        if (!seen[t->hosts[h].nic]) bad = t->hosts[h].nic;
    for (uint32_t v = 0; v < n && bad == INF; v++)
        if (!seen[v]) bad = v;
    free(seen);
    if (bad != INF) return unreachable(t, pos, bad, ref, " (the topology is disconnected)", err);
    /* 2. routes exist where traffic may go (not through GPUs or third hosts) */
    char *reach = reachable(t, ref);
    for (size_t h = 0; h < t->nhosts && bad == INF; h++)
        if (!reach[t->hosts[h].nic]) bad = t->hosts[h].nic;
    for (uint32_t v = 0; v < n && bad == INF; v++)
        if (endpoint_like(t->nodes[v].kind) && !reach[v]) bad = v;
    free(reach);
    if (bad != INF)
        return unreachable(t, pos, bad, ref,
                           " (only through a GPU, an endpoint or another host, which routes never cross)", err);
    return 0;
}
