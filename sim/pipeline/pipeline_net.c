/* pipeline_net.c: cross-host hops of a block pipeline as flows on the
 * flow-level network (pipeline_net.h, docs/blockflow.md "Cross-host hops
 * over the network"): the flow network over the scenario's topology, the
 * set of directed links the deployment's cross-host hops can use (every
 * equal-cost route, found by two breadth-first searches per device pair),
 * the flows themselves with their completion callbacks, and the per-link
 * byte and utilisation columns of the results.
 *
 * Memory: the flow network's per-link arrays (the topology's size), and one
 * small callback record per flow in flight, pooled. */
#include "pipeline/pipeline_net.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/flow.h"
#include "net/topo.h"
#include "pipeline/pipe_req.h"

typedef struct net_ctx {
    ss_pipe_net *n;
    ss_request *r;
    struct net_ctx *next_free;
} net_ctx;

struct ss_pipe_net {
    ss_world *w;
    void (*delivered)(ss_world *w, ss_request *r); /* a hop's data arrived (pipeline.c) */
    const ss_topo *t;
    ss_flownet *net;
    uint32_t *dev_node;     /* per device: its topology node */
    uint32_t *links;        /* the links some possible hop can use, by id */
    size_t nlinks;
    double *base_bytes;     /* per such link: ss_link_bytes when the measured window began */
    double net_bytes;       /* payload sent across hosts in the measured window */
    uint32_t *route;        /* scratch for ss_topo_route */
    size_t route_cap;
    net_ctx *free_ctx;      /* pooled callback records */
    net_ctx **all;
    size_t nall;
};

/* ---- which links the deployment's hops can use ------------------------------- */

/* Nodes a route may pass through between hosts hs and hd (topo.h, Routing):
 * switches, and the NIC and inside of either end's host. */
static int passable(const ss_topo *t, uint32_t node, uint32_t hs, uint32_t hd)
{
    switch (ss_topo_node_kind_of(t, node)) {
    case SS_TN_SPINE:
    case SS_TN_LEAF:
    case SS_TN_SWITCH:
        return 1;
    case SS_TN_HOST:
    case SS_TN_SOCKET:
    case SS_TN_PCIE_SWITCH: {
        uint32_t h = ss_topo_node_host(t, node);
        return h == hs || h == hd;
    }
    default:
        return 0;
    }
}

/* Hop counts from `start` over passable nodes (the graph is symmetric: every
 * directed link has its reverse, so this is also the distance *to* start). */
static void bfs(const ss_topo *t, const size_t *first, const uint32_t *out, uint32_t start, uint32_t hs, uint32_t hd,
                uint32_t *dist, uint32_t *queue)
{
    size_t nn = ss_topo_nnodes(t), head = 0, tail = 0;
    for (size_t i = 0; i < nn; i++) dist[i] = UINT32_MAX;
    dist[start] = 0;
    queue[tail++] = start;
    while (head < tail) {
        uint32_t u = queue[head++];
        if (u != start && !passable(t, u, hs, hd)) continue; /* an end, not a way through */
        for (size_t e = first[u]; e < first[u + 1]; e++) {
            uint32_t v = ss_topo_link_to(t, out[e]);
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
}

/* Mark every directed link on a shortest route from node a to node b (all
 * ECMP choices): l = u -> v is on one iff d(a,u) + 1 + d(v,b) = d(a,b). */
static int mark_links(const ss_topo *t, const size_t *first, const uint32_t *out, uint32_t a, uint32_t b,
                      uint8_t *mark, uint32_t *da, uint32_t *db, uint32_t *queue)
{
    uint32_t ha = ss_topo_node_host(t, a), hb = ss_topo_node_host(t, b);
    bfs(t, first, out, a, ha, hb, da, queue);
    bfs(t, first, out, b, ha, hb, db, queue);
    uint32_t d = da[b];
    if (d == UINT32_MAX) return -1;
    for (size_t l = 0; l < ss_topo_nlinks(t); l++) {
        uint32_t u = ss_topo_link_from(t, (uint32_t)l), v = ss_topo_link_to(t, (uint32_t)l);
        if (u != a && !passable(t, u, ha, hb)) continue;
        if (v != b && !passable(t, v, ha, hb)) continue;
        if (da[u] != UINT32_MAX && db[v] != UINT32_MAX && da[u] + 1 + db[v] == d) mark[l] = 1;
    }
    /* Belt and braces: the routes the router itself gives are marked too. */
    for (uint64_t key = 0; key < 8; key++) {
        uint32_t buf[256];
        size_t n = ss_topo_route(t, a, b, key, buf, 256, NULL);
        if (n == SS_TOPO_NO_ROUTE) return -1;
        for (size_t i = 0; i < n && i < 256; i++) mark[buf[i]] = 1;
    }
    return 0;
}

static void warmup_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    (void)arg;
    ss_pipe_net_warmup_over(ctx);
}

int ss_pipe_net_new(ss_world *w, const uint8_t *hop_pairs, size_t ndev, const char *file, int line, int col,
                    void (*delivered)(ss_world *w, ss_request *r), ss_pipe_net **out, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_topo *t = sc->topo;
    *out = NULL;
    if (!t) return 0;
    size_t any = 0;
    for (size_t i = 0; i < ndev * ndev; i++) any += hop_pairs[i] != 0;
    if (!any) return 0;
    uint32_t *dev_node = ss_xcalloc(ndev, sizeof *dev_node);
    for (size_t d = 0; d < ndev; d++) dev_node[d] = ss_topo_find(t, sc->devices[d].name);
    /* Outgoing links per node (CSR). */
    size_t nn = ss_topo_nnodes(t), nl = ss_topo_nlinks(t);
    size_t *first = ss_xcalloc(nn + 1, sizeof *first);
    uint32_t *adj = ss_xcalloc(nl ? nl : 1, sizeof *adj);
    for (size_t l = 0; l < nl; l++) first[ss_topo_link_from(t, (uint32_t)l) + 1]++;
    for (size_t i = 0; i < nn; i++) first[i + 1] += first[i];
    size_t *fill = ss_xcalloc(nn, sizeof *fill);
    for (size_t l = 0; l < nl; l++) {
        uint32_t u = ss_topo_link_from(t, (uint32_t)l);
        adj[first[u] + fill[u]++] = (uint32_t)l;
    }
    free(fill);
    uint8_t *mark = ss_xcalloc(nl ? nl : 1, 1);
    uint32_t *da = ss_xcalloc(nn, sizeof *da), *db = ss_xcalloc(nn, sizeof *db), *queue = ss_xcalloc(nn, sizeof *queue);
    size_t route_cap = 1;
    int rc = 0;
    for (size_t a = 0; a < ndev && rc == 0; a++)
        for (size_t b = 0; b < ndev && rc == 0; b++) {
            if (!hop_pairs[a * ndev + b]) continue;
            const char *bad = dev_node[a] == SS_TOPO_NONE ? sc->devices[a].name
                              : dev_node[b] == SS_TOPO_NONE ? sc->devices[b].name : NULL;
            if (bad) {
                rc = ss_err_at(err, file, line, col,
                               "pipeline: a hop from %s to %s crosses hosts, but device '%s' is not a node of the "
                               "topology, so the network cannot carry it", sc->devices[a].name, sc->devices[b].name,
                               bad);
                break;
            }
            size_t len = ss_topo_route(t, dev_node[a], dev_node[b], 0, NULL, 0, NULL);
            if (len == SS_TOPO_NO_ROUTE || mark_links(t, first, adj, dev_node[a], dev_node[b], mark, da, db, queue) < 0) {
                rc = ss_err_at(err, file, line, col, "pipeline: a hop from %s to %s crosses hosts, but the topology "
                               "has no route between them", sc->devices[a].name, sc->devices[b].name);
                break;
            }
            if (len > route_cap) route_cap = len;
        }
    free(first);
    free(adj);
    free(da);
    free(db);
    free(queue);
    if (rc < 0) {
        free(mark);
        free(dev_node);
        return -1;
    }
    ss_pipe_net *n = ss_xcalloc(1, sizeof *n);
    n->w = w;
    n->delivered = delivered;
    n->t = t;
    n->dev_node = dev_node;
    n->net = ss_flownet_new(w->eng, nl, ss_topo_capacities_bps(t));
    for (size_t l = 0; l < nl; l++) n->nlinks += mark[l];
    n->links = ss_xcalloc(n->nlinks ? n->nlinks : 1, sizeof *n->links);
    n->nlinks = 0;
    for (size_t l = 0; l < nl; l++)
        if (mark[l]) n->links[n->nlinks++] = (uint32_t)l;
    free(mark);
    n->base_bytes = ss_xcalloc(n->nlinks ? n->nlinks : 1, sizeof *n->base_bytes);
    n->route_cap = route_cap;
    n->route = ss_xcalloc(route_cap, sizeof *n->route);
    /* A warm-up by time: the window's counters start then (by count: ss_pipe_net_warmup_over). */
    if (sc->warmup_s > 0) ss_schedule(w->eng, sc->warmup_s, warmup_ev, n, 0);
    *out = n;
    return 0;
}

/* ---- columns ---------------------------------------------------------------------- */

/* A node name as a column-name part: letters, digits and '_' only. */
static char *col_part(const char *s)
{
    char *c = ss_xstrdup(s);
    for (char *t = c; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9'))) *t = '_';
    return c;
}

static char *link_col(const ss_topo *t, const char *what, uint32_t l)
{
    char *a = col_part(ss_topo_node_name(t, ss_topo_link_from(t, l)));
    char *b = col_part(ss_topo_node_name(t, ss_topo_link_to(t, l)));
    char *c = ss_xasprintf("%s_%s-%s", what, a, b);
    free(a);
    free(b);
    return c;
}

void ss_pipe_net_declare(const ss_pipe_net *n, ss_world *w)
{
    ss_world_declare_extra(w, "net_bytes");
    for (size_t i = 0; i < n->nlinks; i++)
        for (int k = 0; k < 2; k++) {
            char *c = link_col(n->t, k ? "link_util" : "link_bytes", n->links[i]);
            ss_world_declare_extra(w, c);
            free(c);
        }
}

/* ---- flows ---------------------------------------------------------------------- */

/* A stable 64-bit mix of (request id, hop): the flow's ECMP key (splitmix64). */
static uint64_t ecmp_key(uint64_t id, uint32_t hop)
{
    uint64_t z = id * 0x9e3779b97f4a7c15ull + hop + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void flow_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    (void)now_s;
    net_ctx *c = ctx;
    ss_pipe_net *n = c->n;
    ss_request *r = c->r;
    c->next_free = n->free_ctx;
    n->free_ctx = c;
    n->delivered(n->w, r);
}

void ss_pipe_net_send(ss_pipe_net *n, ss_request *r, double fixed_s)
{
    uint32_t a = n->dev_node[ss_preq(r)->net_src_dev], b = n->dev_node[ss_preq(r)->net_dst_dev];
    uint64_t key = ecmp_key(r->id, ss_preq(r)->hops);
    double lat = 0;
    size_t len = ss_topo_route(n->t, a, b, key, n->route, n->route_cap, &lat);
    assert(len != SS_TOPO_NO_ROUTE); /* every pair was routed at build */
    if (len > n->route_cap) { /* not expected: equal-cost routes have one length */
        n->route_cap = len;
        n->route = ss_xrealloc(n->route, len * sizeof *n->route);
        len = ss_topo_route(n->t, a, b, key, n->route, n->route_cap, &lat);
    }
    net_ctx *c = n->free_ctx;
    if (c) {
        n->free_ctx = c->next_free;
    } else {
        c = ss_xcalloc(1, sizeof *c);
        n->all = ss_xrealloc(n->all, (n->nall + 1) * sizeof *n->all);
        n->all[n->nall++] = c;
    }
    c->n = n;
    c->r = r;
    double cap = ss_topo_flow_cap_bps(n->t, a, b);
    ss_flow_opts o = {.cap_bps = cap < 1e300 ? cap : 0, .latency_s = lat + fixed_s};
    n->net_bytes += ss_preq(r)->net_bytes;
    ss_flow_start(n->net, n->route, len, ss_preq(r)->net_bytes, &o, flow_done, c);
}

void ss_pipe_net_warmup_over(ss_pipe_net *n)
{
    n->net_bytes = 0;
    for (size_t i = 0; i < n->nlinks; i++) n->base_bytes[i] = ss_link_bytes(n->net, n->links[i]);
}

size_t ss_pipe_net_result(const ss_pipe_net *n, ss_run_result *r, const char *const *cols, size_t k)
{
    const ss_world *w = n->w;
    /* The window of the devices' utilisation: end of warm-up to the last request done. */
    double span = w->last_done_s - w->warmup_end_s;
    ss_run_result_extra(r, cols[k++], n->net_bytes);
    for (size_t i = 0; i < n->nlinks; i++) {
        uint32_t l = n->links[i];
        double bytes = ss_link_bytes(n->net, l) - n->base_bytes[i];
        ss_run_result_extra(r, cols[k++], bytes);
        ss_run_result_extra(r, cols[k++], span > 0 ? bytes * 8 / (ss_topo_link_capacity_bps(n->t, l) * span) : 0);
    }
    return k;
}

void ss_pipe_net_free(ss_pipe_net *n)
{
    if (!n) return;
    ss_flownet_free(n->net);
    for (size_t i = 0; i < n->nall; i++) free(n->all[i]);
    free(n->all);
    free(n->dev_node);
    free(n->links);
    free(n->base_bytes);
    free(n->route);
    free(n);
}
