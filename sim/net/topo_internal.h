/* topo_internal.h: the topology's representation and its builder, shared by
 * topo.c (graph, names, accessors), topo_read.c (the YAML schema),
 * topo_host.c (the inside of typed hosts), topo_route.c (routing) and
 * topo_describe.c (reports), and by nothing else. */
#ifndef SS_TOPO_INTERNAL_H
#define SS_TOPO_INTERNAL_H

#include "core/nameidx.h"
#include "net/topo.h"

typedef struct ss_tnode {
    char *name;
    ss_topo_node_kind kind;
    uint32_t host;        /* host index, SS_TOPO_NONE outside hosts */
    double conn_cap_bps;  /* per-connection cap, INFINITY if none */
} ss_tnode;

typedef struct ss_tlink {
    uint32_t from, to;
    double latency_s;
    ss_topo_tier tier;
} ss_tlink;

/* A host's nodes are one block of ids: the NIC first, then its inside. */
typedef struct ss_thost {
    uint32_t nic;
    uint32_t count;       /* nodes in the block, NIC included */
    uint32_t gpu0, ngpus; /* GPUs are consecutive ids */
    double gpu_vram_bytes; /* each GPU's memory (host type `gpu_memory_gib`), 0 = not given */
    double ram_bytes;      /* host RAM (host type `ram_gib`), 0 = not given */
    uint32_t ram;         /* SS_TOPO_NONE without a host type */
    uint32_t disk;        /* SS_TOPO_NONE without a disk */
    double disk_bytes;
    int gated;            /* only the NIC has links leaving the block */
} ss_thost;

/* Distances (hops) to one destination.  Node v has slot index[v] (or v - lo
 * when index is NULL); slots >= n are not covered. */
typedef struct ss_dist_table {
    const uint32_t *index;
    uint32_t lo, n;
    uint32_t *hops;       /* UINT32_MAX: cannot reach; NULL until first use */
} ss_dist_table;

struct ss_topo {
    char *name;
    ss_tnode *nodes;
    size_t nnodes, cap_nodes;
    ss_tlink *links;      /* directed; 2k and 2k+1 are one duplex link */
    double *cap_bps;      /* capacity of each directed link */
    size_t nlinks, cap_links;
    ss_thost *hosts;
    size_t nhosts, cap_hosts;
    ss_nameidx names;     /* node name -> node id */
    uint32_t *adj_off;    /* outgoing links of node v: adj[adj_off[v] .. adj_off[v+1]) */
    uint32_t *adj;
    /* Routing tables, per destination.  "Fabric" nodes are all but the inside
     * of gated hosts; fabric tables cover them only (fab[v] is v's slot, NONE
     * inside gated hosts).  A node of a gated host (NIC included) also has a
     * local table covering its host's block. */
    uint32_t *fab;
    size_t nfab;
    ss_dist_table *fabric, *local;
};

/* Where a node was defined, for messages; kept while building only. */
typedef struct ss_tpos {
    const char *file;
    int line, col;
} ss_tpos;

/* ---- building (topo.c) ---------------------------------------------------- */

/* A new node; its name must not exist (ss_topo_find first).  Returns its id. */
uint32_t ss_topo_add_node(ss_topo *t, const char *name, ss_topo_node_kind kind, uint32_t host);
/* Two directed links a->b (up_bps) and b->a (down_bps); returns the id of
 * a->b.  Adjacency is built by ss_topo_finish. */
uint32_t ss_topo_add_link(ss_topo *t, uint32_t a, uint32_t b, double up_bps, double down_bps, double latency_s,
                          ss_topo_tier tier);
/* A new host index, its block starting at the next node id. */
uint32_t ss_topo_add_host(ss_topo *t);
/* Adjacency, gating, route tables. */
void ss_topo_finish(ss_topo *t);
ss_topo *ss_topo_new(void);

/* ---- link specs (topo_read.c) ----------------------------------------------- */

typedef struct ss_linkspec {
    double up_bps, down_bps; /* a->b and b->a */
    double latency_s;
} ss_linkspec;

/* One rate given in one of three units, <prefix>_gbps, _mbps or _bps, into
 * *bps: 1 read, 0 absent, -1 error (topo_linkspec.c). */
int ss_topo_read_rate(const ss_node *map, const char *prefix, double *bps, ss_err *err);

/* The bandwidth and latency keys of a link spec map (bandwidth_{gbps,mbps,bps},
 * up_/down_ variants, latency_s), for key lists. */
extern const char *const ss_linkspec_keys[];
/* Read a link spec from `map` (keys checked by the caller).  `what` names it
 * in messages. */
int ss_linkspec_read(const ss_node *map, const char *what, ss_linkspec *out, ss_err *err);
/* A map-valued key holding only a link spec: check keys and read.  1 read,
 * 0 absent (error if SS_REQ in flags), -1 error. */
int ss_linkspec_key(const ss_node *parent, const char *key, ss_linkspec *out, int flags, ss_err *err);

/* ---- host types (topo_host.c) ------------------------------------------------ */

typedef struct ss_host_type ss_host_type;

/* Read `host_types:` (inline maps, or file paths to one host type each). */
int ss_host_types_read(const ss_node *seq, ss_host_type ***out, size_t *n, ss_err *err);
void ss_host_types_free(ss_host_type **types, size_t n);
/* Nodes one host of this type makes, its NIC included (1 for NULL). */
uint32_t ss_host_type_nodes(const ss_host_type *type);
/* The type named by the scalar `ref`, or an error with a suggestion. */
int ss_host_type_find(ss_host_type *const *types, size_t n, const ss_node *ref, const ss_host_type **out,
                      ss_err *err);
/* Add one host named `name` (its NIC), with the inside `type` describes
 * (NULL: a bare host).  Returns the NIC's node id; the host's index is the
 * node's host. */
uint32_t ss_host_instantiate(ss_topo *t, const char *name, const ss_host_type *type);

/* ---- routing (topo_route.c) ---------------------------------------------------- */

/* Every host, GPU, RAM, storage and endpoint can be reached from the first
 * host (or first such node), every switch is connected.  Else an error at the
 * offending node's definition (pos[node]). */
int ss_topo_check_connected(ss_topo *t, const ss_tpos *pos, ss_err *err);

#endif
