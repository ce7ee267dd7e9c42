/* coldstart_internal.h: the insides of the cold-start mechanism
 * (coldstart.c and its coldstart_*.c parts; docs/coldstart.md), shared by
 * those files and nothing else: what a host holds of each model, its RAM
 * and disk ledgers, its GPUs, a cold start in progress, and the functions
 * the parts lend each other. */
#ifndef SS_COLDSTART_INTERNAL_H
#define SS_COLDSTART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/flow.h"
#include "net/topo.h"
#include "serve/serve.h"
#include "elastic/elastic.h"

#define NONE UINT32_MAX /* no host, GPU, model or peer */

enum { NO_DATA = 0, DOWNLOADING = 1, HAS_DATA = 2 };        /* hm_entry.data */
enum { NO_PROC = 0, PENDING = 1, LOADING = 2, LOADED = 3 }; /* hm_entry.proc (PENDING: reserved, its data not there yet) */
enum { NO_DISK = 0, WRITING = 1, ON_DISK = 2 };             /* hm_entry.disk */
enum { ST_DATA, ST_LOAD, ST_PROC, ST_SEND };                /* ss_cold.stage: waiting for data, own load, shared load, send */

typedef struct ss_cold ss_cold;

/* What host h holds of model m. */
typedef struct hm_entry {
    struct ss_coldstart *cs;
    uint32_t host, model;
    uint8_t data, proc;
    uint8_t chained;         /* the download is a receiver's part of a multicast chain (not cancelled) */
    uint8_t disk;            /* NO_DISK, WRITING or ON_DISK: the host's disk copy (SS_PLACE_KEEP_DISK) */
    uint32_t disk_reads;     /* reads of the disk copy in flight */
    double disk_used_s;      /* last use of the disk copy, for LRU eviction */
    uint8_t source;          /* the download's SS_SOURCE_* (peer or storage) */
    uint32_t pins;           /* cold starts on the host that depend on it */
    uint32_t replicas;       /* instances of the model on the host's GPUs, not yet stopped */
    uint32_t uploads;        /* transfers from it to other hosts in flight */
    uint32_t peer;           /* the download's peer host, NONE from storage */
    double used_s;           /* last use, for LRU eviction */
    double dl_begun_s;       /* when its download (or chain part, or disk read) began */
    ss_flow_id dl, ld;       /* the shared download, the shared load */
    ss_cold *waiters;        /* cold starts waiting for either */
    double part_bytes;       /* RAM of the layers it holds or is fetching for partitioned replicas (held) */
    struct cs_held *held;    /* those layers, layer by layer (coldstart_parts.c), or NULL */
} hm_entry;

typedef struct cs_host {
    uint32_t nic, ram, rack; /* topology nodes; rack: the switch it hangs off */
    double cap_bytes;        /* RAM, 0 = unlimited */
    double used_bytes;       /* cached data, processes, sleepers' parked weights, cold starts' own copies */
    uint32_t disk;           /* its disk node, or NONE */
    double disk_cap_bytes, disk_used_bytes;
    uint32_t gpu0, ngpus;    /* its GPUs in cs->gpus */
    uint32_t uploads;
} cs_host;

typedef struct cs_gpu {
    uint32_t device, node, host;
    uint32_t live;           /* instances on it not yet stopped */
    uint32_t cached;         /* model whose weights it keeps (SS_PLACE_KEEP_GPU), or NONE */
    uint32_t sleeper;        /* model of the replica sleeping on it (SS_PLACE_SLEEP), or NONE */
    double slept_s;          /* since when, for LRU eviction */
    double vram_cap_bytes, vram_used_bytes;
} cs_gpu;

struct ss_cold {
    ss_instance *in;
    uint32_t host, gpu, model;
    uint8_t stage, source;
    uint32_t peer;           /* its own download's peer host, NONE if none */
    ss_flow_id flow;         /* its own flow in flight, 0 if none */
    double own_bytes;        /* host RAM it holds itself (its own copy of the data, its own process) */
    int own_data;            /* own_bytes include its own downloaded data */
    double born_s;
    double data_s, sent_s;   /* its data was on the host, its send began (the timeline's stages) */
    ss_cold *next;           /* in a waiter list */
    uint8_t part;            /* 0: a whole replica's; PART_START: a part's; PART_REST: a part's GPU
                              * loading the rest of the model (coldstart_parts.c) */
    uint32_t lo, hi;         /* a part's layers [lo, hi); PART_REST: every layer but those */
    double bytes;            /* what a part's cold start loads and sends */
    double fetch_bytes;      /* a part's fetch in flight into the host's held layers, 0 if none */
};
enum { PART_START = 1, PART_REST = 2 };

/* What host e->host holds of a partitioned model layer by layer, beside
 * (or instead of) the whole model's data: the layers parts and completions
 * fetched there.  A layer is absent, coming (a cold start fetches it: `by`)
 * or held.  Allocated when a part first fetches into the host's RAM, freed
 * when the layers are evicted or, with nothing kept, unpinned: memory
 * follows what hosts hold, not time. */
enum { LAYER_ABSENT = 0, LAYER_COMING = 1, LAYER_HELD = 2 };

typedef struct cs_held {
    uint32_t n;              /* the model's layers */
    uint32_t held;           /* of them, held */
    ss_cold *waiters;        /* parts waiting for layers other cold starts fetch */
    ss_cold **by;            /* per layer: who fetches it (coming) */
    uint8_t state[];         /* per layer: LAYER_* */
} cs_held;

typedef struct cs_model_stats {
    double *dur_s;           /* cold-start durations, in order */
    uint8_t *src;
    size_t n, cap;
    double bytes[SS_SOURCE_COUNT]; /* data moved to hosts, by source */
} cs_model_stats;

typedef struct ss_coldstart {
    ss_world *w;
    const ss_placement_cfg *cfg;
    const ss_topo *topo;
    ss_flownet *net;
    ss_plugin pl;
    void *state;
    gsl_rng *rng;
    uint32_t flags;
    cs_host *hosts;
    size_t nhosts;
    cs_gpu *gpus;
    size_t ngpus;
    uint32_t *gpu_of_device;  /* per scenario device: its index in gpus, or NONE */
    uint32_t *deploy;         /* [m * ndevices + d]: the deployment entry of model m on device d, or NONE */
    hm_entry *hm;             /* [h * nmodels + m] */
    cs_model_stats *stats;    /* per model */
    uint32_t *route;          /* scratch */
    size_t route_cap;
    ss_place_host_view *views;/* scratch */
    uint32_t *picks;          /* scratch */
    size_t live_colds;
    uint32_t *pending;        /* multicast: hosts of the scale-up being placed that wait for a chain */
    size_t npending;
    struct cs_chain *chains;  /* multicast chains in flight */
    FILE *csv;                /* one row per cold start, or NULL */
    struct cs_parts *parts;   /* partitioned replicas (coldstart_parts.c), or NULL */
    ss_cold **chain_parts;    /* multicast: parts' fetches that wait for the scale-up's chains */
    size_t nchain_parts, chain_parts_cap;
    int batching;             /* a scale-up of partitioned replicas is being placed */
} ss_coldstart;

static inline hm_entry *cs_hm_of(ss_coldstart *cs, uint32_t h, uint32_t m) { return &cs->hm[(size_t)h * cs->w->sc->nmodels + m]; }
static inline double cs_model_bytes(const ss_coldstart *cs, uint32_t m) { return cs->w->sc->models[m].weights_bytes; }
static inline double cs_hm_bytes(const ss_coldstart *cs, const hm_entry *e, uint32_t m)
{
    return ((e->data != NO_DATA) + (e->proc != NO_PROC)) * cs_model_bytes(cs, m) + e->part_bytes;
}
/* Does the policy keep or share a host's model data (so parts on a host share what it holds)? */
static inline int cs_tracks_data(const ss_coldstart *cs)
{
    return (cs->flags & (SS_PLACE_KEEP_DATA | SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST)) != 0;
}


/* coldstart_mem.c: host RAM and disk ledgers, LRU eviction. */
double cs_ram_free(ss_coldstart *cs, uint32_t h);
void cs_wake_none(ss_coldstart *cs, cs_gpu *g);
int cs_make_room(ss_coldstart *cs, uint32_t h, double need);
int cs_make_disk_room(ss_coldstart *cs, uint32_t h, double need);
void cs_reserve(ss_coldstart *cs, uint32_t h, double bytes);
void cs_release(ss_coldstart *cs, uint32_t h, double bytes);
double cs_need_bytes(ss_coldstart *cs, uint32_t h, uint32_t m);
void cs_held_drop(ss_coldstart *cs, hm_entry *e); /* e's held layers go (none coming: e is unpinned) */

/* coldstart_flows.c: routes and the flows of the stages. */
const uint32_t *cs_route(ss_coldstart *cs, uint32_t src, uint32_t dst, uint64_t key, size_t *n, double *lat_s);
ss_flow_id cs_transfer(ss_coldstart *cs, uint32_t h, uint32_t m, double bytes, uint32_t peer, ss_flow_done done,
                       void *ctx);
/* Where model data comes from (a peer host's RAM node, or storage for
 * NONE) and the rate cap of one transfer from there to node dst (the
 * storage's per-connection cap, or peer_mbps; 0 = none). */
/* `bytes` from node src to node dst on the route ss_topo_route picks for
 * key, with its latency and then extra_s more (a message's fixed cost; 0: none). */
ss_flow_id cs_route_flow(ss_coldstart *cs, uint32_t src, uint32_t dst, uint64_t key, double bytes, double extra_s,
                         ss_flow_done done, void *ctx);
uint32_t cs_source_node(const ss_coldstart *cs, uint32_t peer);
double cs_source_cap_bps(const ss_coldstart *cs, uint32_t peer, uint32_t dst);
/* A peer's transfer begins or ends (it cannot be evicted meanwhile); nothing for storage. */
void cs_upload_begin(ss_coldstart *cs, uint32_t peer, uint32_t m);
void cs_upload_over(ss_coldstart *cs, uint32_t peer, uint32_t m);
ss_flow_id cs_load_flow(ss_coldstart *cs, uint32_t h, uint32_t gpu, uint32_t m, double bytes, ss_flow_done done,
                        void *ctx);
/* `bytes` from host h's disk to its RAM. */
ss_flow_id cs_disk_read(ss_coldstart *cs, uint32_t h, double bytes, ss_flow_done done, void *ctx);

/* coldstart.c: the stages. */
void cs_delivered(hm_entry *e, double now);
int cs_begin(ss_coldstart *cs, ss_cold *c);
void cs_forget(ss_coldstart *cs, ss_cold *c);
/* A cold start no longer depends on what host e->host holds of the model;
 * with nothing kept and nobody else depending on it, it goes. */
void cs_unpin(ss_coldstart *cs, hm_entry *e);
void cs_record(ss_coldstart *cs, const ss_cold *c, double now);
/* A cold start's own download of `bytes` arrived: counted by source, its peer's upload over. */
void cs_own_download_over(ss_coldstart *cs, ss_cold *c, double bytes);
void cs_tl_mark(ss_coldstart *cs, const ss_cold *c, const char *what, int with_source);

/* coldstart.c: the autoscaler's side, shared with coldstart_parts.c.
 * The hosts the placement plugin picks for up to k replicas of m (newly
 * allocated in *hosts_out, NONE for a pick out of range); how many. */
uint32_t cs_place_hosts(ss_coldstart *cs, uint32_t m, uint32_t k, uint32_t **hosts_out);
uint32_t cs_best_gpu(const ss_coldstart *cs, uint32_t h, uint32_t m); /* its best free GPU for m, or NONE */
int cs_gpu_fits(ss_coldstart *cs, uint32_t h, uint32_t gpu, uint32_t m); /* host RAM for a whole cold start there */
ss_instance *cs_new_replica(ss_coldstart *cs, uint32_t m, uint32_t gpu); /* created, nothing begun */
uint32_t cs_start_whole(ss_coldstart *cs, uint32_t m, uint32_t h, uint32_t gpu); /* 1 if it started */

/* coldstart_parts.c: partitioned replicas. */
int cs_parts_build(ss_coldstart *cs, ss_err *err);
void cs_parts_free(ss_coldstart *cs);
uint32_t cs_grow_parts(ss_coldstart *cs, uint32_t m, uint32_t k);
void cs_part_abandon(ss_coldstart *cs, ss_cold *c);
void cs_part_warm(ss_coldstart *cs, ss_cold *c, double now); /* a part's (or its completion's) cold start is over */
const ss_part_model *cs_part_model(const ss_coldstart *cs, uint32_t m);

/* coldstart_partsrc.c: where a part's bytes come from. */
/* A cold start of layers [lo, hi) of in's model (PART_REST: all but those) on its GPU, `bytes` in all. */
void cs_part_cold(ss_coldstart *cs, ss_instance *in, uint32_t host, uint32_t gpu, uint8_t kind, double bytes,
                  uint32_t lo, uint32_t hi);
void cs_part_data(ss_coldstart *cs, ss_cold *c);   /* a part's next step to its bytes on the host (re-entrant) */
void cs_part_fetched(ss_coldstart *cs, ss_cold *c, double now); /* its fetch (own flow or chain) arrived */
/* Parts' fetches wait for a chain while a scale-up is placed (batch 1);
 * batch 0 sends what waits, grouped by the layers they need. */
void cs_part_batch(ss_coldstart *cs, int batch);

/* coldstart_mcast.c: TCP chains. */
void cs_multicast(ss_coldstart *cs, uint32_t m);
/* The hosts whose RAM holds m, in host order (out: room for nhosts); how many. */
uint32_t cs_chain_senders(const ss_coldstart *cs, uint32_t m, uint32_t *out);
/* The n parts' cold starts that fetch the same `bytes` of m (on distinct
 * hosts; sorted here by host) by chains from its holders, split as
 * cs_multicast splits; each receiver's arrival is cs_part_fetched. */
void cs_chain_parts(ss_coldstart *cs, uint32_t m, ss_cold **colds, uint32_t n, double bytes);
void cs_chain_forget(ss_coldstart *cs, const ss_cold *c); /* an abandoned part no longer receives */
void cs_free_chains(ss_coldstart *cs); /* those a run cut short left in flight */

/* coldstart_view.c: what the placement plugin sees, estimates, sources. */
void cs_view_of(ss_coldstart *cs, uint32_t h, uint32_t m, ss_place_host_view *v);
int cs_gpu_free(const ss_coldstart *cs, const cs_gpu *g, uint32_t m);
double cs_est_start_s(ss_coldstart *cs, uint32_t h, uint32_t m, const ss_place_host_view *v);
uint32_t cs_pick_source(ss_coldstart *cs, uint32_t h, uint32_t m);
double cs_transfer_est_s(ss_coldstart *cs, uint32_t src, uint32_t dst, double cap_bps, double bytes);
/* The same for model data from peer host `peer` (NONE: storage) to host h's RAM. */
double cs_fetch_est_s(ss_coldstart *cs, uint32_t peer, uint32_t h, double bytes);
/* Where host h gets `bytes` of model m that its RAM lacks, after a shared
 * download in progress: SS_SOURCE_DISK (its disk copy; with estimates,
 * unless a peer is faster now), CS_TIER_CHAIN (SS_PLACE_MULTICAST: a chain
 * from the hosts holding it), else SS_SOURCE_PEER or SS_SOURCE_STORAGE
 * with *peer the plugin's source (NONE: storage). */
enum { CS_TIER_CHAIN = SS_SOURCE_COUNT };
uint8_t cs_fetch_tier(ss_coldstart *cs, uint32_t h, uint32_t m, double bytes, uint32_t *peer);

#endif
