/* topo.h: data-centre topologies as a graph of named nodes and directed
 * links, read from YAML (docs/topologies.md), with deterministic shortest-path
 * routing and ECMP.
 *
 * What a topology is:
 *   - nodes: switches (spine, leaf, other), hosts, and the inside of a typed
 *     host (sockets, PCIe switches, GPUs, one RAM node); storage endpoints and
 *     plain endpoints.  Every node has a unique name ("spine0", "leaf3", "h57",
 *     "h57/gpu3", "h57/ram") and an id 0..nnodes-1.  The node named after a
 *     host ("h57") is the host's NIC: its network endpoint.
 *   - links: every duplex link is two directed links with their own capacity
 *     (bits per second) and latency (seconds).  Directed link 2k and 2k+1 are
 *     the two directions of one duplex link: ss_topo_link_reverse(id) = id ^ 1.
 *     These ids and ss_topo_capacities_bps() are what the flow model takes.
 *
 * Routing: shortest path by hop count.  Among equal-cost next hops (several
 * spines, parallel links) each hop picks by a stable hash of (flow key, node),
 * so one flow key always takes one path and many keys spread evenly (ECMP).
 * Routes never pass through a GPU, RAM, storage or plain endpoint (they are
 * only ends), nor through the inside or NIC of a host that is neither end's
 * host.  Distances are computed per destination on first use and cached in
 * the topology (so ss_topo_route is not safe to call from several threads at
 * once unless ss_topo_precompute ran first).
 *
 * Errors: loading reports one "file:line:col: message" through ss_err and
 * returns NULL.  Accessors take valid ids (asserted). */
#ifndef SS_TOPO_H
#define SS_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cfg.h"
#include "core/util.h"

typedef struct ss_topo ss_topo;

#define SS_TOPO_NONE UINT32_MAX     /* no such node / host */
#define SS_TOPO_NO_ROUTE SIZE_MAX   /* ss_topo_route: disconnected or bad id */

typedef enum ss_topo_node_kind {
    SS_TN_SPINE,
    SS_TN_LEAF,
    SS_TN_SWITCH,      /* any other switch or router (a border node, say) */
    SS_TN_HOST,        /* a host's NIC: the host on the network */
    SS_TN_SOCKET,      /* a CPU socket with its root complex (host bridges) */
    SS_TN_PCIE_SWITCH,
    SS_TN_GPU,
    SS_TN_RAM,
    SS_TN_STORAGE,     /* external storage (S3-like), behind a shared link */
    SS_TN_ENDPOINT,    /* anything else that only sends or receives */
    SS_TN_DISK,        /* a host's local disk (NVMe): model checkpoints, behind its link */
    SS_TN_COUNT
} ss_topo_node_kind;

/* What a link is, for reports and for classifying paths. */
typedef enum ss_topo_tier {
    SS_TL_HOST_LEAF,   /* host NIC <-> leaf (ToR) */
    SS_TL_LEAF_SPINE,
    SS_TL_STORAGE,     /* storage endpoint <-> the switch it attaches to */
    SS_TL_LINK,        /* an explicit link without a tier */
    SS_TL_NIC,         /* NIC <-> its socket or PCIe switch, inside a host */
    SS_TL_PCIE,        /* GPU <-> PCIe switch or socket; PCIe switch <-> socket */
    SS_TL_NVLINK,      /* GPU <-> GPU */
    SS_TL_SOCKET,      /* socket <-> socket (QPI/UPI/xGMI) */
    SS_TL_MEMORY,      /* RAM <-> socket */
    SS_TL_DISK,        /* a host's disk <-> its socket */
    SS_TL_COUNT
} ss_topo_tier;

/* The kind of a path inside a host, named as `nvidia-smi topo -m` does. */
typedef enum ss_path_kind {
    SS_PATH_SELF,      /* no link: source == destination */
    SS_PATH_NVLINK,    /* NVLink only */
    SS_PATH_PCIE,      /* one direct PCIe hop (GPU <-> its socket, say) */
    SS_PATH_PIX,       /* through one PCIe switch */
    SS_PATH_PXB,       /* through several PCIe switches, no host bridge */
    SS_PATH_NODE,      /* through a socket's host bridges, one socket */
    SS_PATH_SYS,       /* across sockets */
    SS_PATH_NET,       /* leaves the host (or was never in one) */
    SS_PATH_COUNT
} ss_path_kind;

/* ---- loading ------------------------------------------------------------ */

/* A topology file (YAML, or JSON by extension).  NULL with err set on bad
 * input: unknown keys, unknown names (with "did you mean"), duplicate names,
 * bandwidths <= 0, a node that cannot be reached. */
ss_topo *ss_topo_load(const char *path, ss_err *err);
/* The same from a map already loaded (a scenario's `network:` subtree, say).
 * Host type files are resolved against the file the node came from.  The
 * topology keeps no pointer into the tree. */
ss_topo *ss_topo_from_node(const ss_node *map, ss_err *err);
void ss_topo_free(ss_topo *t);

/* The `name:` of the topology ("" if none). */
const char *ss_topo_name(const ss_topo *t);

/* ---- nodes -------------------------------------------------------------- */

size_t ss_topo_nnodes(const ss_topo *t);
const char *ss_topo_node_name(const ss_topo *t, uint32_t node);
ss_topo_node_kind ss_topo_node_kind_of(const ss_topo *t, uint32_t node);
const char *ss_topo_node_kind_name(ss_topo_node_kind kind);
/* The node called `name`, or SS_TOPO_NONE.  O(1) (hashed). */
uint32_t ss_topo_find(const ss_topo *t, const char *name);
/* The node a scalar config value names, or a positioned error at it:
 * "unknown node 'leaf11' (did you mean 'leaf1'?)".  `what` names the
 * reference in the message ("node" if NULL).  0 ok, -1 error. */
int ss_topo_resolve(const ss_topo *t, const ss_node *value, const char *what, uint32_t *out, ss_err *err);

/* Per-connection rate cap of a node (a storage endpoint's per_connection_*),
 * INFINITY if it has none. */
double ss_topo_conn_cap_bps(const ss_topo *t, uint32_t node);
/* The cap a flow from src to dst gets: the smaller of the two ends' caps. */
double ss_topo_flow_cap_bps(const ss_topo *t, uint32_t src, uint32_t dst);

/* ---- hosts -------------------------------------------------------------- */

/* Hosts are indexed 0..nhosts-1: the spine_leaf generator's hosts first
 * (leaf by leaf), then explicit hosts in file order. */
size_t ss_topo_nhosts(const ss_topo *t);
/* The host's node (its NIC), SS_TOPO_NONE if index is out of range. */
uint32_t ss_topo_host(const ss_topo *t, size_t index);
/* The index of the host a node belongs to (its NIC or its inside), or
 * SS_TOPO_NONE for switches, storage and endpoints. */
uint32_t ss_topo_node_host(const ss_topo *t, uint32_t node);
uint32_t ss_topo_host_ngpus(const ss_topo *t, size_t index);
/* GPU `gpu` of host `index` ("h57/gpu3"), SS_TOPO_NONE if out of range. */
uint32_t ss_topo_host_gpu(const ss_topo *t, size_t index, uint32_t gpu);
/* The host's RAM node ("h57/ram"), SS_TOPO_NONE for a host without a type. */
uint32_t ss_topo_host_ram(const ss_topo *t, size_t index);
/* Memory of each of the host's GPUs and of the host (its type's
 * gpu_memory_gib and ram_gib, in bytes); 0 when the type does not say. */
double ss_topo_host_gpu_vram_bytes(const ss_topo *t, size_t index);
double ss_topo_host_ram_bytes(const ss_topo *t, size_t index);
/* The host's disk node ("h57/disk") and its size in bytes (the type's
 * `disk:`), SS_TOPO_NONE and 0 for a host without one. */
uint32_t ss_topo_host_disk(const ss_topo *t, size_t index);
double ss_topo_host_disk_bytes(const ss_topo *t, size_t index);

/* ---- links (directed) ----------------------------------------------------- */

size_t ss_topo_nlinks(const ss_topo *t);
uint32_t ss_topo_link_from(const ss_topo *t, uint32_t link);
uint32_t ss_topo_link_to(const ss_topo *t, uint32_t link);
double ss_topo_link_capacity_bps(const ss_topo *t, uint32_t link);
double ss_topo_link_latency_s(const ss_topo *t, uint32_t link);
ss_topo_tier ss_topo_link_tier(const ss_topo *t, uint32_t link);
const char *ss_topo_tier_name(ss_topo_tier tier);
/* The other direction of the same duplex link. */
static inline uint32_t ss_topo_link_reverse(uint32_t link) { return link ^ 1u; }
/* Capacities of all directed links, indexed by link id (nlinks entries):
 * the array the flow model takes.  Owned by the topology. */
const double *ss_topo_capacities_bps(const ss_topo *t);

/* ---- routing -------------------------------------------------------------- */

/* The route from src to dst as directed link ids, in order.  Returns the
 * number of links n (0 when src == dst) and writes the first min(n,
 * max_links) of them to links_out, so a caller can size its buffer from a
 * first call with max_links 0; *latency_s_out (if not NULL) gets the sum of
 * the links' latencies.  SS_TOPO_NO_ROUTE if either id is invalid or dst
 * cannot be reached.  The same (src, dst, flow_key) always gives the same
 * route; different keys spread over equal-cost paths.  Cost: one BFS per
 * destination on first use (over that host's nodes for a GPU inside a host,
 * over the network without hosts' insides otherwise), then O(hops x degree). */
size_t ss_topo_route(const ss_topo *t, uint32_t src, uint32_t dst, uint64_t flow_key, uint32_t *links_out,
                     size_t max_links, double *latency_s_out);
/* The kind of a route (from ss_topo_route), from the links and the nodes it
 * passes: e.g. GPU to GPU over NVLink, through a PCIe switch (pix), a socket
 * (node) or two sockets (sys). */
ss_path_kind ss_topo_path_kind(const ss_topo *t, const uint32_t *links, size_t n);
const char *ss_path_kind_name(ss_path_kind kind);
/* Fill the route cache for every destination now, after which ss_topo_route
 * only reads the topology (and may run from several threads). */
void ss_topo_precompute(ss_topo *t);

/* ---- reports -------------------------------------------------------------- */

/* A leaf's oversubscription: its host-facing capacity (host -> leaf, summed
 * over its host-leaf links) over its uplink capacity (leaf -> spine, summed
 * over its leaf-spine links).  NAN if the node has no host-leaf links,
 * INFINITY if it has hosts but no uplinks. */
double ss_topo_leaf_oversubscription(const ss_topo *t, uint32_t leaf);
/* Bisection bandwidth, per direction, of the leaf layer: the leaves split in
 * two halves, the smaller half's capacity to cross, where each leaf crosses
 * at most min(its uplink, its host-facing capacity), taking the floor(L/2)
 * leaves that can cross least (so the spines are assumed non-blocking).  0
 * with fewer than two leaves. */
double ss_topo_bisection_bps(const ss_topo *t);
/* Counts of nodes and links by kind, every leaf's oversubscription, the
 * bisection bandwidth, and storage endpoints with their links and caps. */
void ss_topo_describe(const ss_topo *t, FILE *out);

#endif
