/* topo_read.c: the topology schema (docs/topologies.md).  Reads a cfg tree
 * into an ss_topo: host types, the spine-leaf generator, explicit nodes,
 * storage endpoints and explicit links, in that order, then checks that
 * everything is connected.  Every refusal is one file:line:col message. */
#include "net/topo_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

enum {
    MAX_GEN = 10000000,   /* generated spines, leaves or hosts */
    MAX_TOTAL = 1 << 24   /* generated nodes, and leaf-spine links: a typo should not eat the memory */
};

/* ---- the builder -------------------------------------------------------------- */

typedef struct builder {
    ss_topo *t;
    ss_tpos *pos;   /* per node: where it was defined */
    size_t npos, cap;
    ss_host_type **types;
    size_t ntypes;
} builder;

/* Nodes added since the last mark were defined at `def`. */
static void mark(builder *b, const ss_node *def)
{
    if (b->t->nnodes > b->cap) {
        b->cap = 2 * b->t->nnodes;
        b->pos = ss_xrealloc(b->pos, b->cap * sizeof *b->pos);
    }
    for (; b->npos < b->t->nnodes; b->npos++) b->pos[b->npos] = (ss_tpos){def->file, def->line, def->col};
}

/* The per_connection_{gbps,mbps,bps} cap of a storage or endpoint entry. */
static int read_conn_cap(builder *b, const ss_node *m, uint32_t node, ss_err *err)
{
    double cap;
    int r;
    TRY(r = ss_topo_read_rate(m, "per_connection", &cap, err));
    if (r) b->t->nodes[node].conn_cap_bps = cap;
    return 0;
}

/* ---- the spine-leaf generator ----------------------------------------------------- */

static int read_gen_count(const ss_node *m, const char *key, unsigned long long lo, unsigned long long def,
                          unsigned long long *out, ss_err *err)
{
    *out = def;
    TRY(ss_cfg_u64(m, key, out, def == ~0ull ? SS_REQ : 0, err));
    if (*out < lo || *out > MAX_GEN)
        return ss_node_err(ss_map_find(m, key), err, "%s: expected %llu to %d, got %llu", key, lo, MAX_GEN, *out);
    return 0;
}

/* A generated name, unless the prefixes make it collide. */
static int gen_node(builder *b, const ss_node *m, const char *prefix, unsigned long long i, ss_topo_node_kind kind,
                    const ss_host_type *ht, ss_err *err)
{
    char *name = ss_xasprintf("%s%llu", prefix, i);
    if (ss_topo_find(b->t, name) != SS_TOPO_NONE) {
        int rc = ss_node_err(ss_map_find(m, "prefixes") ? ss_map_find(m, "prefixes") : m, err,
                             "spine_leaf: the name '%s' would be made twice (give distinct prefixes)", name);
        free(name);
        return rc;
    }
    if (kind == SS_TN_HOST) ss_host_instantiate(b->t, name, ht);
    else ss_topo_add_node(b->t, name, kind, SS_TOPO_NONE);
    free(name);
    return 0;
}

static int read_generator(builder *b, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"spines",     "leaves",     "hosts_per_leaf", "links_per_spine", "host_type",
                                       "host_links", "spine_links", "prefixes",      NULL};
    static const char *const prefix_keys[] = {"spine", "leaf", "host", NULL};
    TRY(ss_cfg_check_keys(m, keys, "spine_leaf", err));
    unsigned long long spines, leaves, hpl, lps;
    TRY(read_gen_count(m, "spines", 0, ~0ull, &spines, err));
    TRY(read_gen_count(m, "leaves", 1, ~0ull, &leaves, err));
    TRY(read_gen_count(m, "hosts_per_leaf", 1, ~0ull, &hpl, err));
    TRY(read_gen_count(m, "links_per_spine", 1, 1, &lps, err));
    ss_linkspec hl, sl = {0};
    TRY(ss_linkspec_key(m, "host_links", &hl, SS_REQ, err));
    TRY(ss_linkspec_key(m, "spine_links", &sl, spines ? SS_REQ : 0, err));
    const ss_host_type *ht = NULL;
    const ss_node *tn = ss_map_find(m, "host_type");
    if (tn && !(tn->kind == SS_NODE_SCALAR && tn->is_null)) TRY(ss_host_type_find(b->types, b->ntypes, tn, &ht, err));
    double nodes = spines + leaves + (double)leaves * hpl * ss_host_type_nodes(ht);
    double uplinks = (double)leaves * spines * lps;
    if (nodes > MAX_TOTAL || uplinks > MAX_TOTAL)
        return ss_node_err(m, err, "spine_leaf: %.0f nodes and %.0f leaf-spine links; at most %d of each", nodes,
                           uplinks, MAX_TOTAL);
    const char *pre[3] = {"spine", "leaf", "h"};
    ss_node *pm = NULL;
    TRY(ss_cfg_map(m, "prefixes", &pm, 0, err));
    if (pm) {
        TRY(ss_cfg_check_keys(pm, prefix_keys, "prefixes", err));
        for (int i = 0; i < 3; i++) {
            TRY(ss_cfg_str(pm, prefix_keys[i], &pre[i], 0, err));
            if (strchr(pre[i], '/'))
                return ss_node_err(ss_map_find(pm, prefix_keys[i]), err, "%s: a prefix may not contain '/'",
                                   prefix_keys[i]);
        }
    }

    ss_topo *t = b->t;
    uint32_t spine0 = (uint32_t)t->nnodes;
    for (unsigned long long s = 0; s < spines; s++) TRY(gen_node(b, m, pre[0], s, SS_TN_SPINE, NULL, err));
    uint32_t leaf0 = (uint32_t)t->nnodes;
    for (unsigned long long l = 0; l < leaves; l++) TRY(gen_node(b, m, pre[1], l, SS_TN_LEAF, NULL, err));
    for (unsigned long long l = 0; l < leaves; l++)
        for (unsigned long long s = 0; s < spines; s++)
            for (unsigned long long k = 0; k < lps; k++)
                ss_topo_add_link(t, leaf0 + (uint32_t)l, spine0 + (uint32_t)s, sl.up_bps, sl.down_bps, sl.latency_s,
                                 SS_TL_LEAF_SPINE);
    for (unsigned long long l = 0; l < leaves; l++)
        for (unsigned long long j = 0; j < hpl; j++) {
            uint32_t nic = (uint32_t)t->nnodes;
            TRY(gen_node(b, m, pre[2], l * hpl + j, SS_TN_HOST, ht, err));
            ss_topo_add_link(t, nic, leaf0 + (uint32_t)l, hl.up_bps, hl.down_bps, hl.latency_s, SS_TL_HOST_LEAF);
        }
    mark(b, m);
    return 0;
}

/* ---- explicit nodes, storage, links ------------------------------------------------ */

static int read_nodes(builder *b, const ss_node *seq, ss_err *err)
{
    static const char *const kinds[] = {"switch", "leaf", "spine", "host", "endpoint", NULL};
    static const ss_topo_node_kind kind_of[] = {SS_TN_SWITCH, SS_TN_LEAF, SS_TN_SPINE, SS_TN_HOST, SS_TN_ENDPOINT};
    static const char *const keys[] = {"name", "kind", "type", "per_connection_gbps", "per_connection_mbps",
                                       "per_connection_bps", NULL};
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        TRY(ss_node_expect(it, SS_NODE_MAP, "node", err));
        TRY(ss_cfg_check_keys(it, keys, "node", err));
        const char *name;
        int k;
        TRY(ss_cfg_name(it, "name", &name, SS_REQ, err));
        const ss_node *nn = ss_map_find(it, "name");
        TRY(ss_cfg_enum(it, "kind", kinds, &k, SS_REQ, err));
        if (ss_topo_find(b->t, name) != SS_TOPO_NONE) return ss_node_err(nn, err, "duplicate node name '%s'", name);
        const ss_node *type = ss_map_find(it, "type");
        if (type && kind_of[k] != SS_TN_HOST)
            return ss_node_err(type, err, "type: only a node of kind host has a host type");
        for (int u = 0; u < 3; u++) {
            const ss_node *c = ss_map_find(it, keys[3 + u]);
            if (c && kind_of[k] != SS_TN_ENDPOINT)
                return ss_err_at(err, c->file, c->key_line, c->key_col,
                                 "%s: only storage and endpoints have a per-connection cap", keys[3 + u]);
        }
        uint32_t id;
        if (kind_of[k] == SS_TN_HOST) {
            const ss_host_type *ht = NULL;
            if (type && !(type->kind == SS_NODE_SCALAR && type->is_null))
                TRY(ss_host_type_find(b->types, b->ntypes, type, &ht, err));
            id = ss_host_instantiate(b->t, name, ht);
        } else {
            id = ss_topo_add_node(b->t, name, kind_of[k], SS_TOPO_NONE);
        }
        mark(b, it);
        TRY(read_conn_cap(b, it, id, err));
    }
    return 0;
}

static int read_storage(builder *b, const ss_node *seq, ss_err *err)
{
    const char *keys[20];
    size_t k = 0;
    for (; ss_linkspec_keys[k]; k++) keys[k] = ss_linkspec_keys[k];
    static const char *const more[] = {"name", "attach", "per_connection_gbps", "per_connection_mbps",
                                       "per_connection_bps", NULL};
    for (size_t j = 0; more[j]; j++) keys[k++] = more[j];
    keys[k] = NULL;
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        TRY(ss_node_expect(it, SS_NODE_MAP, "storage", err));
        TRY(ss_cfg_check_keys(it, keys, "storage", err));
        const char *name;
        TRY(ss_cfg_name(it, "name", &name, SS_REQ, err));
        const ss_node *nn = ss_map_find(it, "name");
        if (ss_topo_find(b->t, name) != SS_TOPO_NONE) return ss_node_err(nn, err, "duplicate node name '%s'", name);
        const ss_node *at = ss_map_find(it, "attach");
        if (!at) return ss_node_err(it, err, "storage '%s': missing key 'attach' (the switch it hangs off)", name);
        uint32_t sw;
        TRY(ss_topo_resolve(b->t, at, "node", &sw, err));
        ss_linkspec ls;
        TRY(ss_linkspec_read(it, "storage", &ls, err));
        uint32_t id = ss_topo_add_node(b->t, name, SS_TN_STORAGE, SS_TOPO_NONE);
        mark(b, it);
        ss_topo_add_link(b->t, sw, id, ls.up_bps, ls.down_bps, ls.latency_s, SS_TL_STORAGE); /* down = from storage */
        TRY(read_conn_cap(b, it, id, err));
    }
    return 0;
}

/* The tier of an explicit link from its ends' kinds; *swap when b is the
 * lower end (the host of host-leaf, the leaf of leaf-spine) or a is storage
 * (storage is above the network: down is from storage). */
static ss_topo_tier infer_tier(const ss_topo *t, uint32_t a, uint32_t b, int *swap)
{
    ss_topo_node_kind ka = t->nodes[a].kind, kb = t->nodes[b].kind;
    *swap = 0;
    if ((ka == SS_TN_HOST && kb == SS_TN_LEAF) || (ka == SS_TN_LEAF && kb == SS_TN_HOST)) {
        *swap = kb == SS_TN_HOST;
        return SS_TL_HOST_LEAF;
    }
    if ((ka == SS_TN_LEAF && kb == SS_TN_SPINE) || (ka == SS_TN_SPINE && kb == SS_TN_LEAF)) {
        *swap = kb == SS_TN_LEAF;
        return SS_TL_LEAF_SPINE;
    }
    if (ka == SS_TN_STORAGE || kb == SS_TN_STORAGE) {
        *swap = ka == SS_TN_STORAGE;
        return SS_TL_STORAGE;
    }
    return SS_TL_LINK;
}

static int read_links(builder *b, const ss_node *seq, ss_err *err)
{
    static const char *const tiers[] = {"host-leaf", "leaf-spine", "storage", "link", "nic",
                                        "pcie",      "nvlink",     "socket",  "memory", NULL};
    const char *keys[20];
    size_t k = 0;
    for (; ss_linkspec_keys[k]; k++) keys[k] = ss_linkspec_keys[k];
    keys[k++] = "a";
    keys[k++] = "b";
    keys[k++] = "tier";
    keys[k] = NULL;
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        TRY(ss_node_expect(it, SS_NODE_MAP, "link", err));
        TRY(ss_cfg_check_keys(it, keys, "link", err));
        uint32_t ends[2];
        for (int e = 0; e < 2; e++) {
            const char *key = e ? "b" : "a";
            const ss_node *n = ss_map_find(it, key);
            if (!n) return ss_node_err(it, err, "link: missing key '%s' (a node name)", key);
            TRY(ss_topo_resolve(b->t, n, "node", &ends[e], err));
        }
        if (ends[0] == ends[1]) return ss_node_err(ss_map_find(it, "b"), err, "link: a and b are the same node");
        ss_linkspec ls;
        TRY(ss_linkspec_read(it, "link", &ls, err));
        int tier, swap = 0, given;
        TRY(given = ss_cfg_enum(it, "tier", tiers, &tier, 0, err));
        if (!given) tier = (int)infer_tier(b->t, ends[0], ends[1], &swap);
        if (swap) ss_topo_add_link(b->t, ends[1], ends[0], ls.down_bps, ls.up_bps, ls.latency_s, (ss_topo_tier)tier);
        else ss_topo_add_link(b->t, ends[0], ends[1], ls.up_bps, ls.down_bps, ls.latency_s, (ss_topo_tier)tier);
    }
    return 0;
}

/* ---- the whole topology ---------------------------------------------------------------- */

static int read_topo(builder *b, const ss_node *root, ss_err *err)
{
    static const char *const top[] = {"name", "description", "host_types", "spine_leaf", "nodes", "storage",
                                      "links", NULL};
    TRY(ss_node_expect(root, SS_NODE_MAP, "topology", err));
    TRY(ss_cfg_check_keys(root, top, "topology", err));
    const char *name = NULL, *desc;
    TRY(ss_cfg_name(root, "name", &name, 0, err));
    TRY(ss_cfg_str(root, "description", &desc, 0, err));
    if (name) {
        free(b->t->name);
        b->t->name = ss_xstrdup(name);
    }
    ss_node *types = NULL, *gen = NULL, *nodes = NULL, *storage = NULL, *links = NULL;
    TRY(ss_cfg_seq(root, "host_types", &types, 0, err));
    TRY(ss_cfg_map(root, "spine_leaf", &gen, 0, err));
    TRY(ss_cfg_seq(root, "nodes", &nodes, 0, err));
    TRY(ss_cfg_seq(root, "storage", &storage, 0, err));
    TRY(ss_cfg_seq(root, "links", &links, 0, err));
    if (types) TRY(ss_host_types_read(types, &b->types, &b->ntypes, err));
    if (gen) TRY(read_generator(b, gen, err));
    if (nodes) TRY(read_nodes(b, nodes, err));
    if (storage) TRY(read_storage(b, storage, err));
    if (links) TRY(read_links(b, links, err));
    if (b->t->nnodes == 0)
        return ss_node_err(root, err, "topology: no nodes (give spine_leaf, nodes or storage)");
    ss_topo_finish(b->t);
    return ss_topo_check_connected(b->t, b->pos, err);
}

ss_topo *ss_topo_from_node(const ss_node *map, ss_err *err)
{
    builder b = {.t = ss_topo_new()};
    int rc = read_topo(&b, map, err);
    ss_host_types_free(b.types, b.ntypes);
    free(b.pos);
    if (rc < 0) {
        ss_topo_free(b.t);
        return NULL;
    }
    return b.t;
}

ss_topo *ss_topo_load(const char *path, ss_err *err)
{
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return NULL;
    ss_topo *t = ss_topo_from_node(doc->root, err);
    if (t && !t->name[0]) { /* default name: the file's, without folder and extension */
        const char *base = strrchr(path, '/');
        free(t->name);
        t->name = ss_xstrdup(base ? base + 1 : path);
        char *dot = strrchr(t->name, '.');
        if (dot && dot != t->name) *dot = '\0';
    }
    ss_doc_free(doc);
    return t;
}
