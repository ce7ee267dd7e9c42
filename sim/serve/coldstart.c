/* coldstart.c: replicas that cold-start on a topology's GPUs (scenario
 * `placement:`, docs/coldstart.md; Flashpoint, seed flashpoint.md §1.5-1.7).
 *
 * A replica the autoscaler starts goes through the stages of FP §1.5:
 *   data  - the model's bytes reach its host's RAM: already there (local),
 *           from a peer host's RAM, or from storage: a flow on the topology;
 *   load  - they are loaded into a process on the host: a flow over the
 *           host's memory link at the profile's load_bytes_per_s;
 *   send  - the weights go to the GPU: a flow from the host's RAM to the GPU
 *           over its PCIe links;
 * and then it is up.  Every stage is a flow on one max-min network of the
 * whole topology (core/flow.h), so concurrent downloads share the storage
 * link and the fabric, and concurrent sends share PCIe: no stage has a
 * constant duration.
 *
 * The placement plugin picks the hosts (this file picks each host's free
 * GPUs in index order) and a host's peer source; its flags say what is
 * kept: a host's model data after its replicas go (lazy eviction, LRU under
 * memory pressure, data before processes), a loaded process shared by the
 * host's GPUs (a new GPU there only takes the send), a GPU's weights after
 * its replica goes, and whether one download per host and model serves
 * every GPU there (the download manager).
 *
 * Ledgers: per host, RAM used by cached data, loaded processes and cold
 * starts in flight (against the host type's ram_gib, unlimited when not
 * given); per GPU, VRAM of its replica and of cached weights.  What a cold
 * start needs is reserved when it starts; a host that cannot make room is
 * not offered to the plugin.  Instances deployed from the start are warm
 * at time 0 and hold no host memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "core/flow.h"
#include "input/scenario_deploy.h"
#include "net/topo.h"
#include "serve/serve.h"
#include "serve/world.h"

#define NONE UINT32_MAX

enum { NO_DATA = 0, DOWNLOADING = 1, HAS_DATA = 2 };  /* hm_entry.data */
enum { NO_PROC = 0, PENDING = 1, LOADING = 2, LOADED = 3 }; /* hm_entry.proc (PENDING: reserved, its data not there yet) */
enum { ST_DATA, ST_LOAD, ST_PROC, ST_SEND };
enum { NO_DISK = 0, WRITING = 1, ON_DISK = 2 };            /* hm_entry.disk */           /* cold.stage: waiting for data, own load, shared load, send */

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
    ss_flow_id dl, ld;       /* the shared download, the shared load */
    ss_cold *waiters;        /* cold starts waiting for either */
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
    ss_cold *next;           /* in a waiter list */
};

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
} ss_coldstart;

static hm_entry *hm_of(ss_coldstart *cs, uint32_t h, uint32_t m) { return &cs->hm[(size_t)h * cs->w->sc->nmodels + m]; }
static double model_bytes(const ss_coldstart *cs, uint32_t m) { return cs->w->sc->models[m].weights_bytes; }
static double hm_bytes(const ss_coldstart *cs, const hm_entry *e, uint32_t m)
{
    return ((e->data != NO_DATA) + (e->proc != NO_PROC)) * model_bytes(cs, m);
}

int ss_cs_places(const ss_world *w, uint32_t m) { return w->cs && w->sc->placement->models[m]; }

/* ---- host RAM: reservation and LRU eviction ---------------------------------------- */

/* May e's RAM be evicted?  Not while a cold start depends on it, a peer
 * reads it, or it is being written to disk or filled. */
static int unpinned(const hm_entry *e)
{
    return !e->pins && !e->uploads && e->disk != WRITING && e->data != DOWNLOADING && e->proc != LOADING &&
           e->proc != PENDING;
}

/* Bytes host h could free by eviction now. */
static double evictable(ss_coldstart *cs, uint32_t h)
{
    double sum = 0;
    for (uint32_t m = 0; m < cs->w->sc->nmodels; m++) {
        const hm_entry *e = hm_of(cs, h, m);
        if (unpinned(e)) sum += hm_bytes(cs, e, m);
    }
    const cs_host *ho = &cs->hosts[h];
    for (uint32_t k = 0; k < ho->ngpus; k++)
        if (cs->gpus[ho->gpu0 + k].sleeper != NONE) sum += model_bytes(cs, cs->gpus[ho->gpu0 + k].sleeper);
    return sum;
}

static double ram_free(ss_coldstart *cs, uint32_t h)
{
    const cs_host *ho = &cs->hosts[h];
    return ho->cap_bytes > 0 ? ho->cap_bytes - ho->used_bytes + evictable(cs, h) : INFINITY;
}

static void wake_none(ss_coldstart *cs, cs_gpu *g)
{
    if (g->sleeper == NONE) return;
    cs->hosts[g->host].used_bytes -= model_bytes(cs, g->sleeper);
    g->sleeper = NONE;
}

/* The least recently used thing pass `pass` may evict on host h: 0 data,
 * 1 a sleeper, 2 a loaded process.  1 if one was evicted. */
static int evict_one(ss_coldstart *cs, uint32_t h, int pass)
{
    cs_host *ho = &cs->hosts[h];
    if (pass == 1) {
        cs_gpu *lru = NULL;
        for (uint32_t k = 0; k < ho->ngpus; k++) {
            cs_gpu *g = &cs->gpus[ho->gpu0 + k];
            if (g->sleeper != NONE && (!lru || g->slept_s < lru->slept_s)) lru = g;
        }
        if (lru) wake_none(cs, lru);
        return lru != NULL;
    }
    hm_entry *lru = NULL;
    for (uint32_t m = 0; m < cs->w->sc->nmodels; m++) {
        hm_entry *e = hm_of(cs, h, m);
        int has = pass == 0 ? e->data == HAS_DATA : e->proc == LOADED;
        if (has && unpinned(e) && (!lru || e->used_s < lru->used_s)) lru = e;
    }
    if (!lru) return 0;
    if (pass == 0) lru->data = NO_DATA;
    else lru->proc = NO_PROC;
    ho->used_bytes -= model_bytes(cs, lru->model);
    return 1;
}

/* Evict least recently used data first, then sleepers, then processes,
 * until `need` more bytes fit.  0 if they fit, -1 if they cannot. */
static int make_room(ss_coldstart *cs, uint32_t h, double need)
{
    cs_host *ho = &cs->hosts[h];
    if (ho->cap_bytes <= 0) return 0;
    for (int pass = 0; pass < 3; pass++)
        while (ho->used_bytes + need > ho->cap_bytes * (1 + 1e-12) && evict_one(cs, h, pass)) {
        }
    return ho->used_bytes + need > ho->cap_bytes * (1 + 1e-12) ? -1 : 0;
}

/* The same on the host's disk: copies nobody reads, least recently used first. */
static int make_disk_room(ss_coldstart *cs, uint32_t h, double need)
{
    cs_host *ho = &cs->hosts[h];
    while (ho->disk_used_bytes + need > ho->disk_cap_bytes * (1 + 1e-12)) {
        hm_entry *lru = NULL;
        for (uint32_t m = 0; m < cs->w->sc->nmodels; m++) {
            hm_entry *e = hm_of(cs, h, m);
            if (e->disk == ON_DISK && !e->disk_reads && (!lru || e->disk_used_s < lru->disk_used_s)) lru = e;
        }
        if (!lru) return -1;
        lru->disk = NO_DISK;
        ho->disk_used_bytes -= model_bytes(cs, lru->model);
    }
    return 0;
}

static void reserve(ss_coldstart *cs, uint32_t h, double bytes)
{
    make_room(cs, h, bytes); /* the host was chosen because it fits */
    cs->hosts[h].used_bytes += bytes;
}

static void release(ss_coldstart *cs, uint32_t h, double bytes)
{
    cs->hosts[h].used_bytes -= bytes;
    if (cs->hosts[h].used_bytes < 1e-6) cs->hosts[h].used_bytes = 0;
}

/* RAM a new cold start of m on host h needs beyond what h holds. */
static double need_bytes(ss_coldstart *cs, uint32_t h, uint32_t m)
{
    const hm_entry *e = hm_of(cs, h, m);
    double w = model_bytes(cs, m);
    if (cs->flags & SS_PLACE_KEEP_PROCESS)
        return (e->proc != NO_PROC ? 0 : w) + (e->data != NO_DATA || e->proc >= LOADING ? 0 : w);
    return w + (e->data != NO_DATA ? 0 : w); /* its own process, and the data unless there */
}

/* ---- routes and flows --------------------------------------------------------------- */

static const uint32_t *route(ss_coldstart *cs, uint32_t src, uint32_t dst, uint64_t key, size_t *n, double *lat_s)
{
    size_t k = ss_topo_route(cs->topo, src, dst, key, cs->route, cs->route_cap, lat_s);
    if (k > cs->route_cap) {
        cs->route_cap = k;
        cs->route = ss_xrealloc(cs->route, k * sizeof *cs->route);
        k = ss_topo_route(cs->topo, src, dst, key, cs->route, cs->route_cap, lat_s);
    }
    *n = k;
    return cs->route;
}

/* A transfer of model m's data to host h's RAM, from peer host `peer` or
 * from storage (NONE). */
static ss_flow_id transfer(ss_coldstart *cs, uint32_t h, uint32_t m, uint32_t peer, ss_flow_done done, void *ctx)
{
    uint32_t src = peer == NONE ? cs->cfg->storage : cs->hosts[peer].ram, dst = cs->hosts[h].ram;
    size_t n;
    double lat = 0;
    const uint32_t *r = route(cs, src, dst, (uint64_t)h << 32 | m, &n, &lat);
    ss_flow_opts o = {.goodput = cs->cfg->goodput, .latency_s = lat};
    o.cap_bps = peer == NONE ? ss_topo_flow_cap_bps(cs->topo, src, dst) : cs->cfg->peer_cap_bps;
    if (!isfinite(o.cap_bps)) o.cap_bps = 0;
    if (peer != NONE) {
        cs->hosts[peer].uploads++;
        hm_of(cs, peer, m)->uploads++;
    }
    return ss_flow_start(cs->net, r, n, model_bytes(cs, m), &o, done, ctx);
}

static void upload_over(ss_coldstart *cs, uint32_t peer, uint32_t m)
{
    if (peer == NONE) return;
    cs->hosts[peer].uploads--;
    hm_of(cs, peer, m)->uploads--;
}

/* Loading on host h: over its memory link, at the profile's rate. */
static ss_flow_id load_flow(ss_coldstart *cs, uint32_t h, uint32_t gpu, uint32_t m, ss_flow_done done, void *ctx)
{
    size_t n;
    const uint32_t *r = route(cs, cs->hosts[h].ram, cs->gpus[gpu].node, 0, &n, NULL);
    ss_flow_opts o = {.cap_bps = 8 * cs->w->sc->models[m].load_bytes_per_s};
    return ss_flow_start(cs->net, r, n ? 1 : 0, model_bytes(cs, m), &o, done, ctx);
}

/* ---- a cold start's stages ------------------------------------------------------------ */

static const char *const source_names[] = {"gpu", "local", "peer", "storage", "disk", "sleep"};

static void record(ss_coldstart *cs, const ss_cold *c, double now)
{
    if (cs->csv) {
        const ss_scenario *sc = cs->w->sc;
        fprintf(cs->csv, "%s,%u,%s,%s,%s,%s,%.9f,%.9f,%.9f\n", sc->variant, cs->w->rep, sc->models[c->model].name,
                ss_topo_node_name(cs->topo, cs->hosts[c->host].nic), sc->devices[c->in->device].name,
                source_names[c->source], c->born_s, now, now - c->born_s);
    }
    cs_model_stats *s = &cs->stats[c->model];
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->dur_s = ss_xrealloc(s->dur_s, s->cap * sizeof *s->dur_s);
        s->src = ss_xrealloc(s->src, s->cap * sizeof *s->src);
    }
    s->dur_s[s->n] = now - c->born_s;
    s->src[s->n++] = c->source;
}

static void tl_mark(ss_coldstart *cs, const ss_cold *c, const char *what)
{
    ss_world *w = cs->w;
    if (!w->tl) return;
    char *msg = ss_xasprintf("%s %s (from %s)", what, w->sc->models[c->model].name, source_names[c->source]);
    ss_tl_mark(w, c->in->device, msg);
    free(msg);
}

static void forget(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = hm_of(cs, c->host, c->model);
    e->pins--;
    e->used_s = ss_now(cs->w->eng);
    if (!(cs->flags & SS_PLACE_KEEP_DATA) && !e->pins && e->data == HAS_DATA) { /* nothing is kept */
        e->data = NO_DATA;
        release(cs, c->host, model_bytes(cs, c->model));
    }
    c->in->cold = NULL;
    cs->live_colds--;
    free(c);
}

static void send_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    ss_world *w = cs->w;
    c->flow = 0;
    hm_entry *e = hm_of(cs, c->host, c->model);
    /* Its own copy of the data becomes the host's cache, if the policy keeps one. */
    if (c->own_data && (cs->flags & SS_PLACE_KEEP_DATA) && e->data == NO_DATA) {
        e->data = HAS_DATA;
        c->own_bytes -= model_bytes(cs, c->model);
    }
    release(cs, c->host, c->own_bytes);
    record(cs, c, now);
    tl_mark(cs, c, "warm");
    ss_instance *in = c->in;
    forget(cs, c);
    ss_inst_up(w, in);
}

static void send(ss_coldstart *cs, ss_cold *c)
{
    c->stage = ST_SEND;
    size_t n;
    double lat = 0;
    const uint32_t *r = route(cs, cs->hosts[c->host].ram, cs->gpus[c->gpu].node, 0, &n, &lat);
    ss_flow_opts o = {.latency_s = lat};
    c->flow = ss_flow_start(cs->net, r, n, model_bytes(cs, c->model), &o, send_done, c);
}

static void own_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    (void)now;
    ss_cold *c = ctx;
    c->flow = 0;
    send(c->in->world->cs, c);
}

static void shared_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now);

/* The data is on the host: load it (its own process, or the host's shared one). */
static void load(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = hm_of(cs, c->host, c->model);
    e->used_s = ss_now(cs->w->eng);
    if (!(cs->flags & SS_PLACE_KEEP_PROCESS)) {
        c->stage = ST_LOAD;
        c->flow = load_flow(cs, c->host, c->gpu, c->model, own_load_done, c);
        return;
    }
    if (e->proc == LOADED) {
        send(cs, c);
        return;
    }
    c->stage = ST_PROC;
    c->next = e->waiters;
    e->waiters = c;
    if (e->proc == LOADING) return;
    e->proc = LOADING; /* PENDING: its bytes were reserved by the cold start that asked first */
    e->ld = load_flow(cs, c->host, c->gpu, c->model, shared_load_done, e);
}

/* Wake the waiters of e that wait for `stage`, oldest first. */
static void wake(ss_coldstart *cs, hm_entry *e, uint8_t stage)
{
    ss_cold *mine = NULL, **pp = &e->waiters;
    while (*pp) {
        ss_cold *c = *pp;
        if (c->stage == stage) {
            *pp = c->next;
            c->next = mine;
            mine = c; /* the list was newest first: this reverses it */
        } else {
            pp = &c->next;
        }
    }
    while (mine) {
        ss_cold *c = mine;
        mine = c->next;
        c->next = NULL;
        if (stage == ST_DATA) load(cs, c);
        else send(cs, c);
    }
}

static void shared_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    e->ld = 0;
    e->proc = LOADED;
    e->used_s = now;
    wake(e->cs, e, ST_PROC);
}

static void own_download_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    (void)now;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    c->flow = 0;
    cs->stats[c->model].bytes[c->source] += model_bytes(cs, c->model);
    upload_over(cs, c->peer, c->model);
    c->peer = NONE;
    load(cs, c);
}

static void disk_write_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    e->disk = ON_DISK;
    e->disk_used_s = now;
}

/* Keep a copy of the data that just came over the network on the host's
 * disk, if the policy keeps one and the disk has room. */
static void persist(ss_coldstart *cs, hm_entry *e)
{
    const cs_host *ho = &cs->hosts[e->host];
    if (!(cs->flags & SS_PLACE_KEEP_DISK) || ho->disk == NONE || e->disk != NO_DISK ||
        make_disk_room(cs, e->host, model_bytes(cs, e->model)) < 0)
        return;
    cs->hosts[e->host].disk_used_bytes += model_bytes(cs, e->model);
    e->disk = WRITING;
    size_t n;
    const uint32_t *r = route(cs, ho->ram, ho->disk, 0, &n, NULL);
    ss_flow_start(cs->net, r, n, model_bytes(cs, e->model), NULL, disk_write_done, e);
}

/* A host's shared download (or its part of a chain, or its disk read) has arrived. */
static void delivered(hm_entry *e, double now)
{
    ss_coldstart *cs = e->cs;
    if (e->source == SS_SOURCE_PEER || e->source == SS_SOURCE_STORAGE) persist(cs, e);
    e->dl = 0;
    e->chained = 0;
    e->data = HAS_DATA;
    e->used_s = now;
    e->peer = NONE;
    cs->stats[e->model].bytes[e->source] += model_bytes(cs, e->model);
    if (!e->pins && !(cs->flags & SS_PLACE_KEEP_DATA)) { /* everyone who wanted it left */
        e->data = NO_DATA;
        release(cs, e->host, model_bytes(cs, e->model));
        return;
    }
    wake(cs, e, ST_DATA);
}

static void disk_read_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    e->disk_reads--;
    e->disk_used_s = now;
    delivered(e, now);
}

static void shared_download_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    upload_over(e->cs, e->peer, e->model);
    delivered(e, now);
}

/* The peer host h downloads model m from (NONE: storage), as the plugin says. */
static uint32_t pick_source(ss_coldstart *cs, uint32_t h, uint32_t m);
static double transfer_est_s(ss_coldstart *cs, uint32_t src, uint32_t dst, double cap_bps, double bytes);

/* Start c's stages; 1 if it is warm at once (its GPU kept the weights). */
static int begin(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = hm_of(cs, c->host, c->model);
    cs_gpu *g = &cs->gpus[c->gpu];
    double w = model_bytes(cs, c->model);
    e->pins++;
    e->used_s = c->born_s;
    if ((cs->flags & SS_PLACE_KEEP_GPU) && g->cached == c->model) { /* its weights never left the GPU */
        g->cached = NONE;
        g->vram_used_bytes -= w;
        c->source = SS_SOURCE_GPU;
        return 1;
    }
    if (g->sleeper == c->model) { /* a sleeping replica wakes: its parked weights go back to the GPU */
        g->sleeper = NONE;
        c->own_bytes += w; /* they stay reserved until it is up */
        c->source = SS_SOURCE_SLEEP;
        send(cs, c);
        return 0;
    }
    wake_none(cs, g); /* another model's sleeper yields the GPU */
    if (cs->flags & SS_PLACE_KEEP_PROCESS) { /* the host's shared process */
        if (e->proc == LOADING || e->proc == LOADED) {
            c->source = SS_SOURCE_LOCAL;
            load(cs, c);
            return 0;
        }
        if (e->proc == NO_PROC) { /* the process it will load; PENDING: another cold start reserved it */
            reserve(cs, c->host, w);
            e->proc = PENDING;
        }
    } else {
        reserve(cs, c->host, w); /* its own process */
        c->own_bytes += w;
    }
    if (e->data == HAS_DATA) {
        c->source = SS_SOURCE_LOCAL;
        load(cs, c);
        return 0;
    }
    c->stage = ST_DATA;
    if (e->data == DOWNLOADING && (cs->flags & (SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST))) { /* the download manager */
        c->source = e->source;
        c->next = e->waiters;
        e->waiters = c;
        return 0;
    }
    /* Its own disk comes before peers; with estimates, unless a peer is faster now. */
    int disk = e->disk == ON_DISK, asked = 0;
    uint32_t peer = NONE;
    if (disk && (cs->flags & SS_PLACE_ESTIMATE) && !(cs->flags & SS_PLACE_MULTICAST)) {
        peer = pick_source(cs, c->host, c->model);
        asked = 1;
        const cs_host *ho = &cs->hosts[c->host];
        disk = peer == NONE || transfer_est_s(cs, ho->disk, ho->ram, 0, w) <=
                                   transfer_est_s(cs, cs->hosts[peer].ram, ho->ram, cs->cfg->peer_cap_bps, w);
    }
    if (disk) { /* read back from the host's disk, shared by its GPUs */
        reserve(cs, c->host, w);
        e->data = DOWNLOADING;
        e->source = c->source = SS_SOURCE_DISK;
        c->next = e->waiters;
        e->waiters = c;
        e->disk_reads++;
        size_t n;
        const uint32_t *r = route(cs, cs->hosts[c->host].disk, cs->hosts[c->host].ram, 0, &n, NULL);
        e->dl = ss_flow_start(cs->net, r, n, w, NULL, disk_read_done, e);
        return 0;
    }
    if (cs->flags & SS_PLACE_MULTICAST) { /* a chain brings it once the whole scale-up is placed */
        reserve(cs, c->host, w);
        e->data = DOWNLOADING;
        e->chained = 1;
        c->next = e->waiters;
        e->waiters = c;
        cs->pending[cs->npending++] = c->host;
        return 0;
    }
    if (!asked) peer = pick_source(cs, c->host, c->model);
    c->source = peer == NONE ? SS_SOURCE_STORAGE : SS_SOURCE_PEER;
    reserve(cs, c->host, w); /* the data */
    if (cs->flags & SS_PLACE_SHARE_DOWNLOAD) {
        e->data = DOWNLOADING;
        e->source = c->source;
        e->peer = peer;
        c->next = e->waiters;
        e->waiters = c;
        e->dl = transfer(cs, c->host, c->model, peer, shared_download_done, e);
        return 0;
    }
    c->own_bytes += w;
    c->own_data = 1;
    c->peer = peer;
    c->flow = transfer(cs, c->host, c->model, peer, own_download_done, c);
    return 0;
}

/* ---- multicast: TCP chains (FP §1.8, §2.9) ------------------------------------------------- */

typedef struct cs_chain {
    ss_coldstart *cs;
    struct cs_chain *prev, *next;
    uint32_t model, sender, n;
    uint32_t hosts[];        /* the receivers, in chain order */
} cs_chain;

static void chain_done(ss_engine *eng, void *ctx, ss_flow_id id, size_t receiver, double now)
{
    (void)eng;
    (void)id;
    cs_chain *ch = ctx;
    ss_coldstart *cs = ch->cs;
    delivered(hm_of(cs, ch->hosts[receiver - 1], ch->model), now);
    if (receiver < ch->n) return;
    upload_over(cs, ch->sender, ch->model);
    if (ch->prev) ch->prev->next = ch->next;
    else cs->chains = ch->next;
    if (ch->next) ch->next->prev = ch->prev;
    free(ch);
}

/* One chain: sender (a host, or storage if NONE) -> hosts[0] -> ... */
static void chain(ss_coldstart *cs, uint32_t m, uint32_t sender, const uint32_t *hosts, uint32_t n)
{
    cs_chain *ch = ss_xcalloc(1, sizeof *ch + n * sizeof *ch->hosts);
    *ch = (cs_chain){.cs = cs, .model = m, .sender = sender, .n = n, .next = cs->chains};
    memcpy(ch->hosts, hosts, n * sizeof *hosts);
    if (cs->chains) cs->chains->prev = ch;
    cs->chains = ch;
    ss_chain_hop *hops = ss_xcalloc(n, sizeof *hops);
    uint32_t src = sender == NONE ? cs->cfg->storage : cs->hosts[sender].ram;
    uint8_t kind = sender == NONE ? SS_SOURCE_STORAGE : SS_SOURCE_PEER;
    for (uint32_t i = 0; i < n; i++) {
        size_t k;
        const uint32_t *r = route(cs, i ? cs->hosts[hosts[i - 1]].ram : src, cs->hosts[hosts[i]].ram,
                                  (uint64_t)hosts[i] << 32 | m, &k, &hops[i].latency_s);
        uint32_t *copy = ss_xmalloc((k ? k : 1) * sizeof *copy);
        memcpy(copy, r, k * sizeof *copy);
        hops[i] = (ss_chain_hop){.links = copy, .n_links = k, .latency_s = hops[i].latency_s};
        hm_entry *e = hm_of(cs, hosts[i], m);
        e->source = kind;
        e->peer = NONE;
        for (ss_cold *c = e->waiters; c; c = c->next) c->source = kind;
    }
    ss_flow_opts o = {.goodput = cs->cfg->goodput};
    o.cap_bps = sender == NONE ? ss_topo_flow_cap_bps(cs->topo, src, cs->hosts[hosts[0]].ram) : cs->cfg->peer_cap_bps;
    if (!isfinite(o.cap_bps)) o.cap_bps = 0;
    if (sender != NONE) {
        cs->hosts[sender].uploads++;
        hm_of(cs, sender, m)->uploads++;
    }
    ss_flow_id id = ss_flow_chain_start(cs->net, hops, n, model_bytes(cs, m), &o, cs->cfg->chain_ttfb_s, chain_done, ch);
    for (uint32_t i = 0; i < n; i++) {
        hm_of(cs, hosts[i], m)->dl = id;
        free((void *)hops[i].links);
    }
    free(hops);
}

static int by_index(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* The scale-up's hosts that need the data, split evenly (in host order)
 * over the hosts whose RAM holds it, else storage: a chain per sender. */
static void multicast(ss_coldstart *cs, uint32_t m)
{
    uint32_t *senders = ss_xmalloc((cs->nhosts + 1) * sizeof *senders), ns = 0, nr = (uint32_t)cs->npending;
    for (uint32_t p = 0; p < cs->nhosts; p++) {
        const hm_entry *e = hm_of(cs, p, m);
        if (e->data == HAS_DATA || e->proc == LOADED) senders[ns++] = p;
    }
    if (!ns) senders[ns++] = NONE;
    if (ns > nr) ns = nr;
    qsort(cs->pending, nr, sizeof *cs->pending, by_index);
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t lo = (uint32_t)((uint64_t)k * nr / ns), hi = (uint32_t)((uint64_t)(k + 1) * nr / ns);
        if (hi > lo) chain(cs, m, senders[k], cs->pending + lo, hi - lo);
    }
    cs->npending = 0;
    free(senders);
}

/* ---- what the plugin sees ---------------------------------------------------------------- */

static uint32_t holds(const hm_entry *e)
{
    if (e->proc == LOADED || e->proc == LOADING) return SS_HOLDS_PROCESS;
    if (e->data == HAS_DATA) return SS_HOLDS_DATA;
    return e->data == DOWNLOADING ? SS_HOLDS_DOWNLOADING : SS_HOLDS_NOTHING;
}

/* Can GPU g take a replica of m now? */
static int gpu_free(const ss_coldstart *cs, const cs_gpu *g, uint32_t m)
{
    return g->live == 0 && cs->deploy[(size_t)m * cs->w->sc->ndevices + g->device] != NONE;
}

static void view_of(ss_coldstart *cs, uint32_t h, uint32_t m, ss_place_host_view *v)
{
    const cs_host *ho = &cs->hosts[h];
    const hm_entry *e = hm_of(cs, h, m);
    memset(v, 0, sizeof *v);
    v->host = h;
    v->rack = ho->rack;
    v->data = holds(e);
    v->uploads = ho->uploads;
    v->free_ram_bytes = ram_free(cs, h);
    for (uint32_t k = 0; k < ho->ngpus; k++) {
        const cs_gpu *g = &cs->gpus[ho->gpu0 + k];
        if (gpu_free(cs, g, m)) {
            v->free_gpus++;
            v->gpu_cached += g->cached == m;
            v->sleeping += g->sleeper == m;
        }
    }
    v->replicas = e->replicas;
    v->on_disk = e->disk == ON_DISK;
}

/* ---- estimates (SS_PLACE_ESTIMATE) -------------------------------------------------------------- */

/* Seconds `bytes` from src to dst would take now: the route's smallest
 * capacity / (flows on it + 1), capped at cap_bps (0: none). */
static double transfer_est_s(ss_coldstart *cs, uint32_t src, uint32_t dst, double cap_bps, double bytes)
{
    size_t n;
    const uint32_t *r = route(cs, src, dst, 0, &n, NULL);
    double rate = cap_bps > 0 ? cap_bps : INFINITY;
    for (size_t i = 0; i < n; i++) {
        double s = ss_topo_link_capacity_bps(cs->topo, r[i]) / (double)(ss_link_flows(cs->net, r[i]) + 1);
        if (s < rate) rate = s;
    }
    return isfinite(rate) ? bytes * 8 / (rate * cs->cfg->goodput) : 0;
}

/* The fastest way a replica of m could start on host h now. */
static double est_start_s(ss_coldstart *cs, uint32_t h, uint32_t m, const ss_place_host_view *v)
{
    const cs_host *ho = &cs->hosts[h];
    const hm_entry *e = hm_of(cs, h, m);
    double w = model_bytes(cs, m);
    if (v->gpu_cached) return 0;
    uint32_t gpu = NONE;
    for (uint32_t k = 0; k < ho->ngpus && gpu == NONE; k++)
        if (gpu_free(cs, &cs->gpus[ho->gpu0 + k], m)) gpu = cs->gpus[ho->gpu0 + k].node;
    double send = gpu == NONE ? 0 : transfer_est_s(cs, ho->ram, gpu, 0, w);
    if (v->sleeping || ((cs->flags & SS_PLACE_KEEP_PROCESS) && e->proc >= LOADING)) return send;
    double after = w / cs->w->sc->models[m].load_bytes_per_s + send;
    if (e->data != NO_DATA) return after;
    double best = transfer_est_s(cs, cs->cfg->storage, ho->ram, ss_topo_flow_cap_bps(cs->topo, cs->cfg->storage, ho->ram),
                                 w);
    if (e->disk == ON_DISK) {
        double t = transfer_est_s(cs, ho->disk, ho->ram, 0, w);
        if (t < best) best = t;
    }
    for (uint32_t p = 0; p < cs->nhosts; p++) {
        const hm_entry *q = hm_of(cs, p, m);
        if (p == h || !(q->data == HAS_DATA || q->proc == LOADED)) continue;
        double t = transfer_est_s(cs, cs->hosts[p].ram, ho->ram, cs->cfg->peer_cap_bps, w);
        if (t < best) best = t;
    }
    return best + after;
}

static uint32_t pick_source(ss_coldstart *cs, uint32_t h, uint32_t m)
{
    const ss_placement_ops *ops = &cs->pl.pol->ops.placement;
    if (!ops->source) return NONE;
    ss_place_host_view to;
    view_of(cs, h, m, &to);
    uint32_t n = 0;
    for (uint32_t p = 0; p < cs->nhosts; p++) {
        const hm_entry *e = hm_of(cs, p, m);
        if (p == h || !(e->data == HAS_DATA || e->proc == LOADED)) continue;
        view_of(cs, p, m, &cs->views[n++]);
    }
    if (!n) return NONE;
    double *t = ss_xcalloc(n, sizeof *t);
    for (uint32_t k = 0; (cs->flags & SS_PLACE_ESTIMATE) && k < n; k++)
        t[k] = transfer_est_s(cs, cs->hosts[cs->views[k].host].ram, cs->hosts[h].ram, cs->cfg->peer_cap_bps,
                              model_bytes(cs, m));
    ss_source_ctx ctx = {.model = m, .model_bytes = model_bytes(cs, m), .now_s = ss_now(cs->w->eng), .to = &to,
                         .holders = cs->views, .transfer_s = t, .nholders = n};
    uint32_t k = ops->source(cs->state, &ctx);
    free(t);
    return k < n ? cs->views[k].host : NONE; /* anything else: storage */
}

/* ---- the autoscaler's side ------------------------------------------------------------------ */

/* Which free GPU of a host a replica of m takes: one that keeps its
 * weights (0), then one with its sleeper (1), then one with nobody's
 * sleeper (2), then any (3); the lowest index among equals. */
static int gpu_rank(const cs_gpu *g, uint32_t m)
{
    return g->cached == m ? 0 : g->sleeper == m ? 1 : g->sleeper == NONE ? 2 : 3;
}

uint32_t ss_cs_grow(ss_world *w, uint32_t m, uint32_t k)
{
    ss_coldstart *cs = w->cs;
    double now = ss_now(w->eng);
    uint32_t n = 0;
    for (uint32_t h = 0; h < cs->nhosts; h++) { /* hosts with a free GPU and room for the cold start */
        ss_place_host_view v;
        view_of(cs, h, m, &v);
        if (!v.free_gpus || (!v.gpu_cached && !v.sleeping && need_bytes(cs, h, m) > v.free_ram_bytes)) continue;
        if (cs->flags & SS_PLACE_ESTIMATE) v.est_start_s = est_start_s(cs, h, m, &v);
        cs->views[n++] = v;
    }
    if (!n || !k) return 0;
    ss_place_ctx ctx = {.model = m, .model_bytes = model_bytes(cs, m), .now_s = now, .want = k, .hosts = cs->views,
                        .nhosts = n};
    uint32_t got = cs->pl.pol->ops.placement.place(cs->state, &ctx, cs->picks);
    if (got > k) got = k;
    /* Views are consumed as replicas start: copy the picks' hosts first. */
    uint32_t *hosts = ss_xmalloc((got ? got : 1) * sizeof *hosts);
    for (uint32_t i = 0; i < got; i++) hosts[i] = cs->picks[i] < n ? cs->views[cs->picks[i]].host : NONE;
    uint32_t started = 0;
    for (uint32_t i = 0; i < got; i++) {
        uint32_t h = hosts[i];
        if (h == NONE) continue;
        /* its free GPU: one that keeps the model's weights first, then the lowest */
        const cs_host *ho = &cs->hosts[h];
        uint32_t pick = NONE;
        for (uint32_t q = 0; q < ho->ngpus; q++) {
            const cs_gpu *g = &cs->gpus[ho->gpu0 + q];
            if (!gpu_free(cs, g, m)) continue;
            if (pick == NONE || gpu_rank(g, m) < gpu_rank(&cs->gpus[pick], m)) pick = ho->gpu0 + q;
        }
        if (pick == NONE) continue; /* the plugin named a host more often than it has free GPUs */
        if (gpu_rank(&cs->gpus[pick], m) > 1 && need_bytes(cs, h, m) > ram_free(cs, h)) continue;
        cs_gpu *g = &cs->gpus[pick];
        if (g->cached != NONE && g->cached != m) { /* another model's weights make way */
            g->vram_used_bytes -= model_bytes(cs, g->cached);
            g->cached = NONE;
        }
        ss_instance *in = ss_inst_create(w, cs->deploy[(size_t)m * w->sc->ndevices + g->device], now);
        ss_cold *c = ss_xcalloc(1, sizeof *c);
        *c = (ss_cold){.in = in, .host = h, .gpu = pick, .model = m, .born_s = now, .peer = NONE};
        in->cold = c;
        cs->live_colds++;
        started++;
        int warm = begin(cs, c);
        tl_mark(cs, c, "cold start");
        if (warm) { /* from the GPU's own copy */
            record(cs, c, now);
            forget(cs, c);
            ss_inst_up(w, in);
        }
    }
    free(hosts);
    if (cs->npending) multicast(cs, m);
    return started;
}

void ss_cs_born(ss_world *w, ss_instance *in)
{
    ss_coldstart *cs = w->cs;
    uint32_t gi = cs->gpu_of_device[in->device];
    if (gi == NONE) return;
    cs->gpus[gi].live++;
    hm_of(cs, cs->gpus[gi].host, in->model)->replicas++;
    const ss_model_cfg *mc = &w->sc->models[in->model];
    cs->gpus[gi].vram_used_bytes += mc->weights_bytes + mc->runtime_vram_bytes;
}

/* A cold start that will not finish: undo what it holds. */
static void abandon(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = hm_of(cs, c->host, c->model);
    if (c->flow) ss_flow_cancel(cs->net, c->flow);
    if (c->flow && c->stage == ST_DATA) upload_over(cs, c->peer, c->model);
    for (ss_cold **pp = &e->waiters; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    release(cs, c->host, c->own_bytes);
    if (e->pins == 1) { /* the last one that wanted what the host was getting */
        if (e->proc == PENDING) {
            e->proc = NO_PROC;
            release(cs, c->host, model_bytes(cs, c->model));
        }
        if (e->data == DOWNLOADING && !e->chained && !(cs->flags & SS_PLACE_KEEP_DATA)) {
            ss_flow_cancel(cs->net, e->dl);
            if (e->source == SS_SOURCE_DISK) e->disk_reads--;
            e->dl = 0;
            upload_over(cs, e->peer, c->model);
            e->peer = NONE;
            e->data = NO_DATA;
            release(cs, c->host, model_bytes(cs, c->model));
        }
    }
    forget(cs, c);
}

void ss_cs_gone(ss_world *w, ss_instance *in, int stopped)
{
    ss_coldstart *cs = w->cs;
    uint32_t gi = cs->gpu_of_device[in->device];
    if (gi == NONE) return;
    cs_gpu *g = &cs->gpus[gi];
    const ss_model_cfg *mc = &w->sc->models[in->model];
    int was_warm = !in->cold;
    if (in->cold) abandon(cs, in->cold);
    g->live--;
    hm_of(cs, g->host, in->model)->replicas--;
    g->vram_used_bytes -= mc->weights_bytes + mc->runtime_vram_bytes;
    if (was_warm && (cs->flags & SS_PLACE_KEEP_GPU) && ss_cs_places(w, in->model)) { /* the weights stay */
        g->cached = in->model;
        g->vram_used_bytes += mc->weights_bytes;
    }
    /* Scaled down, it sleeps: the weights park in host RAM, if there is room. */
    if (was_warm && stopped && (cs->flags & SS_PLACE_SLEEP) && ss_cs_places(w, in->model) &&
        make_room(cs, g->host, mc->weights_bytes) == 0) {
        g->sleeper = in->model;
        g->slept_s = ss_now(w->eng);
        cs->hosts[g->host].used_bytes += mc->weights_bytes;
    }
    if (g->vram_used_bytes < 1e-6) g->vram_used_bytes = 0;
}

/* ---- building, checks, results ------------------------------------------------------------ */

/* The per-model columns, in the order of ss_cs_result's values. */
static const char *const cols[] = {"coldstarts_%s",         "coldstart_mean_s_%s", "coldstart_p99_s_%s",
                                   "coldstarts_gpu_%s",     "coldstarts_local_%s", "coldstarts_peer_%s",
                                   "coldstarts_storage_%s", "coldstarts_disk_%s",  "coldstarts_sleep_%s",
                                   "model_gb_peer_%s",      "model_gb_storage_%s", "model_gb_disk_%s"};

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

int ss_cs_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_placement_cfg *cfg = sc->placement;
    ss_coldstart *cs = ss_xcalloc(1, sizeof *cs);
    w->cs = cs;
    cs->w = w;
    cs->cfg = cfg;
    cs->topo = sc->topo;
    if (ss_world_load_policy(w, &cfg->policy, SS_KIND_PLACEMENT, &cs->pl, &cs->state, &cs->rng, "policy/placement",
                             err) < 0)
        return -1;
    cs->flags = cs->pl.pol->ops.placement.flags;
    cs->net = ss_flownet_new(w->eng, ss_topo_nlinks(sc->topo), ss_topo_capacities_bps(sc->topo));
    cs->nhosts = ss_topo_nhosts(sc->topo);
    cs->hosts = ss_xcalloc(cs->nhosts + 1, sizeof *cs->hosts);
    cs->gpu_of_device = ss_xmalloc((sc->ndevices + 1) * sizeof *cs->gpu_of_device);
    for (size_t d = 0; d < sc->ndevices; d++) cs->gpu_of_device[d] = NONE;
    cs->deploy = ss_xmalloc((sc->nmodels * sc->ndevices + 1) * sizeof *cs->deploy);
    for (size_t i = 0; i < sc->nmodels * sc->ndevices; i++) cs->deploy[i] = NONE;
    for (size_t d = sc->ndeploys; d-- > 0;) /* the first entry of a model on a device */
        if (cfg->models[sc->deploys[d].model])
            cs->deploy[(size_t)sc->deploys[d].model * sc->ndevices + sc->deploys[d].device] = (uint32_t)d;
    /* GPUs: the scenario's devices that are the topology's GPUs, host by host */
    cs->gpus = ss_xcalloc(sc->ndevices + 1, sizeof *cs->gpus);
    for (uint32_t h = 0; h < cs->nhosts; h++) {
        cs_host *ho = &cs->hosts[h];
        ho->nic = ss_topo_host(sc->topo, h);
        ho->ram = ss_topo_host_ram(sc->topo, h);
        ho->cap_bytes = ss_topo_host_ram_bytes(sc->topo, h);
        ho->disk = ss_topo_host_disk(sc->topo, h);
        ho->disk_cap_bytes = ss_topo_host_disk_bytes(sc->topo, h);
        ho->gpu0 = (uint32_t)cs->ngpus;
        uint32_t first;
        size_t n = ss_topo_route(sc->topo, ho->nic, cfg->storage, 0, &first, 1, NULL);
        ho->rack = n && n != SS_TOPO_NO_ROUTE ? ss_topo_link_to(sc->topo, first) : NONE;
    }
    for (size_t d = 0; d < sc->ndevices; d++) {
        uint32_t node = ss_topo_find(sc->topo, sc->devices[d].name);
        if (node == SS_TOPO_NONE || ss_topo_node_kind_of(sc->topo, node) != SS_TN_GPU) continue;
        uint32_t h = ss_topo_node_host(sc->topo, node);
        if (cs->hosts[h].ngpus && cs->hosts[h].gpu0 + cs->hosts[h].ngpus != cs->ngpus) continue; /* not in host order */
        if (!cs->hosts[h].ngpus) cs->hosts[h].gpu0 = (uint32_t)cs->ngpus;
        cs->hosts[h].ngpus++;
        cs->gpu_of_device[d] = (uint32_t)cs->ngpus;
        cs->gpus[cs->ngpus++] = (cs_gpu){.device = (uint32_t)d, .node = node, .host = h, .cached = NONE, .sleeper = NONE,
                                         .vram_cap_bytes = sc->devices[d].vram_bytes};
    }
    cs->hm = ss_xcalloc(cs->nhosts * sc->nmodels + 1, sizeof *cs->hm);
    for (uint32_t h = 0; h < cs->nhosts; h++)
        for (uint32_t m = 0; m < sc->nmodels; m++)
            *hm_of(cs, h, m) = (hm_entry){.cs = cs, .host = h, .model = m, .peer = NONE};
    cs->stats = ss_xcalloc(sc->nmodels, sizeof *cs->stats);
    cs->views = ss_xcalloc(cs->nhosts + 1, sizeof *cs->views);
    cs->picks = ss_xcalloc(sc->ndevices + 1, sizeof *cs->picks);
    cs->pending = ss_xcalloc(cs->nhosts + 1, sizeof *cs->pending);
    return 0;
}

void ss_world_coldstarts(ss_world *w, FILE *fp)
{
    if (w->cs) w->cs->csv = fp;
}

void ss_world_coldstarts_header(FILE *fp) { fputs("variant,replication,model,host,gpu,source,start_s,up_s,duration_s\n", fp); }

void ss_cs_declare(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    const ss_placement_cfg *cfg = sc->placement;
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        if (!cfg->models[m]) continue;
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
            char *col = ss_xasprintf(cols[i], sc->models[m].name);
            ss_world_declare_extra(w, col);
            free(col);
        }
    }
    for (int t = 0; t < SS_TL_COUNT; t++) {
        if (t != SS_TL_STORAGE && t != SS_TL_HOST_LEAF && t != SS_TL_LEAF_SPINE) continue;
        char *col = ss_xasprintf("net_gb_%s", ss_topo_tier_name((ss_topo_tier)t));
        ss_world_declare_extra(w, col);
        free(col);
    }
}

char *ss_cs_check(const ss_world *w)
{
    const ss_coldstart *cs = w->cs;
    if (cs->live_colds) return ss_xasprintf("%zu cold starts still in progress after the run", cs->live_colds);
    if (ss_flownet_active(cs->net))
        return ss_xasprintf("%zu model transfers still in flight after the run", ss_flownet_active(cs->net));
    for (uint32_t h = 0; h < cs->nhosts; h++) {
        double held = 0, disk = 0;
        for (uint32_t m = 0; m < w->sc->nmodels; m++) {
            const hm_entry *e = &cs->hm[(size_t)h * w->sc->nmodels + m];
            if (e->pins || e->uploads || e->waiters)
                return ss_xasprintf("host %u still pins model '%s' after the run", h, w->sc->models[m].name);
            held += ((e->data != NO_DATA) + (e->proc != NO_PROC)) * w->sc->models[m].weights_bytes;
            disk += (e->disk != NO_DISK) * w->sc->models[m].weights_bytes;
            if (e->disk_reads) return ss_xasprintf("host %u still reads model '%s' from disk after the run", h,
                                                   w->sc->models[m].name);
        }
        for (uint32_t k = 0; k < cs->hosts[h].ngpus; k++)
            if (cs->gpus[cs->hosts[h].gpu0 + k].sleeper != NONE)
                held += w->sc->models[cs->gpus[cs->hosts[h].gpu0 + k].sleeper].weights_bytes;
        if (fabs(disk - cs->hosts[h].disk_used_bytes) > 1 + 1e-9 * disk ||
            (cs->hosts[h].disk != NONE && disk > cs->hosts[h].disk_cap_bytes * (1 + 1e-9)))
            return ss_xasprintf("host %u's disk ledger holds %.0f bytes, its copies %.0f", h,
                                cs->hosts[h].disk_used_bytes, disk);
        if (fabs(held - cs->hosts[h].used_bytes) > 1 + 1e-9 * held)
            return ss_xasprintf("host %u's RAM ledger holds %.0f bytes, its cache %.0f", h, cs->hosts[h].used_bytes,
                                held);
        if (cs->hosts[h].cap_bytes > 0 && cs->hosts[h].used_bytes > cs->hosts[h].cap_bytes * (1 + 1e-9))
            return ss_xasprintf("host %u's RAM ledger is over its capacity", h);
    }
    for (size_t i = 0; i < cs->ngpus; i++) {
        const cs_gpu *g = &cs->gpus[i];
        double want = g->cached != NONE ? w->sc->models[g->cached].weights_bytes : 0;
        for (size_t k = 0; k < w->ninst; k++) {
            const ss_instance *in = w->inst[k];
            if (in->device == g->device && in->state != SS_INST_STOPPED && in->state != SS_INST_FAILED)
                want += w->sc->models[in->model].weights_bytes + w->sc->models[in->model].runtime_vram_bytes;
        }
        if (fabs(want - g->vram_used_bytes) > 1 + 1e-9 * want)
            return ss_xasprintf("GPU '%s' VRAM ledger holds %.0f bytes, its replicas and cache %.0f",
                                w->sc->devices[g->device].name, g->vram_used_bytes, want);
    }
    return NULL;
}

void ss_cs_result(const ss_world *w, ss_run_result *r)
{
    const ss_coldstart *cs = w->cs;
    const ss_scenario *sc = w->sc;
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        if (!sc->placement->models[m]) continue;
        const cs_model_stats *s = &cs->stats[m];
        double count[SS_SOURCE_COUNT] = {0}, mean = NAN, p99 = NAN;
        for (size_t i = 0; i < s->n; i++) count[s->src[i]]++;
        if (s->n) {
            double *sorted = ss_xmalloc(s->n * sizeof *sorted);
            memcpy(sorted, s->dur_s, s->n * sizeof *sorted);
            qsort(sorted, s->n, sizeof *sorted, by_value);
            mean = gsl_stats_mean(sorted, 1, s->n);
            p99 = gsl_stats_quantile_from_sorted_data(sorted, 1, s->n, 0.99);
            free(sorted);
        }
        double vals[] = {(double)s->n,
                         mean,
                         p99,
                         count[SS_SOURCE_GPU],
                         count[SS_SOURCE_LOCAL],
                         count[SS_SOURCE_PEER],
                         count[SS_SOURCE_STORAGE],
                         count[SS_SOURCE_DISK],
                         count[SS_SOURCE_SLEEP],
                         s->bytes[SS_SOURCE_PEER] / 1e9,
                         s->bytes[SS_SOURCE_STORAGE] / 1e9,
                         s->bytes[SS_SOURCE_DISK] / 1e9};
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
            char *col = ss_xasprintf(cols[i], sc->models[m].name);
            ss_run_result_extra(r, col, vals[i]);
            free(col);
        }
    }
    double gb[SS_TL_COUNT] = {0};
    for (uint32_t l = 0; l < ss_topo_nlinks(sc->topo); l++)
        gb[ss_topo_link_tier(sc->topo, l)] += ss_link_bytes(cs->net, l) / 1e9;
    for (int t = 0; t < SS_TL_COUNT; t++) {
        if (t != SS_TL_STORAGE && t != SS_TL_HOST_LEAF && t != SS_TL_LEAF_SPINE) continue;
        char *col = ss_xasprintf("net_gb_%s", ss_topo_tier_name((ss_topo_tier)t));
        ss_run_result_extra(r, col, gb[t]);
        free(col);
    }
}

void ss_cs_free(ss_world *w)
{
    ss_coldstart *cs = w->cs;
    if (!cs) return;
    for (size_t i = 0; i < w->ninst; i++) free(w->inst[i]->cold);
    if (cs->net) ss_flownet_free(cs->net);
    if (cs->pl.pol && cs->pl.pol->fini && cs->state) cs->pl.pol->fini(cs->state);
    if (cs->pl.handle) ss_plugin_unload(&cs->pl);
    if (cs->rng) gsl_rng_free(cs->rng);
    for (size_t m = 0; cs->stats && m < w->sc->nmodels; m++) {
        free(cs->stats[m].dur_s);
        free(cs->stats[m].src);
    }
    free(cs->stats);
    free(cs->hosts);
    free(cs->gpus);
    free(cs->gpu_of_device);
    free(cs->deploy);
    free(cs->hm);
    free(cs->route);
    free(cs->views);
    free(cs->picks);
    free(cs->pending);
    while (cs->chains) { /* a run cut short */
        struct cs_chain *ch = cs->chains;
        cs->chains = ch->next;
        free(ch);
    }
    free(cs);
    w->cs = NULL;
}
