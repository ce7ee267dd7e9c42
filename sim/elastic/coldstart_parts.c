/* coldstart_parts.c: partitioned replicas (scenario `partitioning:`,
 * docs/partitioning.md; Flashpoint's model partitioning, seed
 * flashpoint.md §1.4-1.5, §2.4-2.7, cited FP §n).
 *
 * A scale-up of a partitioned model by k GPUs asks the partitioner for a
 * plan of at most k parts for the requests expected to wait, E(x) = q +
 * (λ - μ) C(1) (FP eq. 4.14: q the queue, λ the arrival rate over the
 * autoscaler's shortest window, μ the up replicas over the mean execution
 * time, C(1) the whole model's cold start by the plan's cost model).  With
 * p parts it starts floor(k / p) pipelines and gives the GPUs left over
 * whole replicas (FP §2.7's reading).
 *
 * A pipeline is p instances of the model, one per GPU, each with its part's
 * cold start, in parallel: the part's bytes come from the tiers a whole
 * replica's come from under the placement plugin in force (FP §1.5-1.6,
 * §5.2.4): the GPU's kept weights; the host's RAM (the model's data, its
 * loaded process, or the layers other parts and completions brought there);
 * the host's one shared download in progress (the download manager); then,
 * for the layers the host lacks only, its disk copy, a holder (multicast's
 * sender), the plugin's peer or storage.  When the policy keeps or shares
 * data, what a part fetches stays in the host's RAM layer by layer (struct
 * cs_held), shared with the other parts and completions there; once every
 * layer is there it is the host's copy of the model.  With nothing kept or
 * shared, a part fetches its own copy, as a whole replica does.  Each part
 * loads and sends its own bytes.  Its VRAM ledger holds the whole model from
 * the start, since model completion will need it.  The pipeline is up, and
 * counted as one cold start, once every part is warm.
 *
 * Serving (FP §1.4): the first part pulls from the model's shared queue;
 * a request runs each part's share of its demand (the part's layers' share
 * of the execution time), then crosses to the next part as a flow of the
 * cut's tensor from GPU to GPU on the topology, which arrives cut_overhead_s
 * after its last byte (the message's cost).  Each part has a one-request
 * inbox: a part hands a request on only once the next part's inbox is free
 * (it reserves it), and takes no new request until it has handed on the one
 * it holds; the transfer overlaps the next part's work.  So a pipeline holds
 * at most 2p - 1 requests and serves one per max(E, N) when busy - FP §2.4's
 * example gives completions every 2 s, as its model does.
 *
 * Model completion (FP §4.2.5): once its part is warm, each GPU loads the
 * rest of the model the same way (`completion: false` turns this off),
 * fetching only the layers its host does not hold or is not fetching
 * already; the host then holds the whole model's data, which it keeps in
 * RAM as after a whole cold start when the placement keeps data.
 * When every GPU of a pipeline holds the whole model, the pipeline takes no
 * more requests, and once empty it becomes p whole replicas.
 *
 * Scale-down (FP §2.7): pipelines drain first, most GPUs first, as long as
 * they fit in the GPUs to remove; a draining pipeline stops when empty. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <servesim/partition.h>

#include "input/layerprofile.h"
#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

enum { SLOT_FREE = 0, SLOT_COMING = 1, SLOT_HERE = 2 }; /* a part's inbox */

typedef struct ss_parted ss_parted;

struct ss_parted {
    uint32_t model, p;
    uint32_t warm;           /* parts warm */
    uint32_t whole;          /* GPUs holding the whole model (completion) */
    uint32_t stopped;        /* parts stopped */
    uint32_t inflight;       /* requests inside */
    uint64_t seq;            /* creation order (ties in scale-down) */
    int draining, completing;
    double born_s;
    ss_instance **part;      /* p: part[0] pulls from the queue */
    double *share;           /* per part: its share of a request's demand */
    double *bytes;           /* per part: its weights */
    uint32_t *first;         /* per part, and one past the last: its first layer */
    double *cut_bytes;       /* per cut k (between parts k and k + 1): the tensor */
    ss_request **held;       /* per part: done with it, waiting for the next part's inbox */
    ss_request **inbox;      /* per part: handed to it (crossing, or arrived) */
    uint8_t *inbox_state;
    ss_flow_id *inbox_flow;
    struct ss_parted *prev, *next;
};

typedef struct cs_parts {
    ss_plugin pl;
    void *state;
    gsl_rng *rng;
    ss_part_model *models;   /* per model (nlayers 0: not partitioned) */
    uint32_t *cuts;          /* scratch */
    ss_parted *live;         /* pipelines not yet stopped or dissolved */
    uint64_t made;           /* pipelines created */
} cs_parts;

/* ---- building --------------------------------------------------------------------------- */

/* The plan's cost coefficients (servesim/partition.h) on this topology: a
 * part's cold start along the slowest path (storage, one connection, then
 * the profile's load rate, then PCIe), measured on the first host; a cut
 * between GPUs of two hosts (or two GPUs of one, with one host), with its
 * per-message cost (cut_overhead_s) beside the route's latency. */
static void coefficients(ss_coldstart *cs, uint32_t m, ss_part_model *pm)
{
    const ss_model_cfg *mc = &cs->w->sc->models[m];
    if (!cs->ngpus) return;
    uint32_t g0 = 0, g1 = cs->ngpus > 1 ? 1 : 0; /* another host's GPU if there is one, else a neighbour */
    for (uint32_t g = 1; g < cs->ngpus; g++)
        if (cs->gpus[g].host != cs->gpus[g0].host) {
            g1 = g;
            break;
        }
    const double unit = 1e9;
    uint32_t ram = cs->hosts[cs->gpus[g0].host].ram;
    double dl = cs_transfer_est_s(cs, cs->cfg->storage, ram, cs_source_cap_bps(cs, NONE, ram), unit);
    double send = cs_transfer_est_s(cs, ram, cs->gpus[g0].node, 0, unit);
    pm->cold_s_per_byte = (dl + send) / unit + 1 / mc->load_bytes_per_s;
    size_t n;
    double lat = 0;
    cs_route(cs, cs->gpus[g0].node, cs->gpus[g1].node, 0, &n, &lat);
    pm->net_s_per_byte = cs_transfer_est_s(cs, cs->gpus[g0].node, cs->gpus[g1].node, 0, unit) / unit;
    pm->net_fixed_s = lat + cs->w->sc->partitioning->cut_overhead_s; /* the route's latency, the message's cost */
}

int cs_parts_build(ss_coldstart *cs, ss_err *err)
{
    ss_world *w = cs->w;
    const ss_partitioning_cfg *cfg = w->sc->partitioning;
    cs_parts *ps = ss_xcalloc(1, sizeof *ps);
    cs->parts = ps;
    if (ss_world_load_policy(w, &cfg->policy, SS_KIND_PARTITIONER, &ps->pl, &ps->state, &ps->rng,
                             "policy/partitioner", err) < 0)
        return -1;
    ps->models = ss_xcalloc(w->sc->nmodels + 1, sizeof *ps->models);
    uint32_t most = 1;
    for (uint32_t m = 0; m < w->sc->nmodels; m++) {
        const ss_layer_profile *lp = cfg->layers[m];
        if (!cfg->models[m] || !lp) continue;
        ps->models[m] = (ss_part_model){.model = m, .layers = lp->layers, .nlayers = lp->nlayers};
        coefficients(cs, m, &ps->models[m]);
        if (lp->nlayers > most) most = lp->nlayers;
    }
    ps->cuts = ss_xcalloc(most + 1, sizeof *ps->cuts);
    return 0;
}

static void pp_free(ss_parted *pp)
{
    free(pp->part);
    free(pp->share);
    free(pp->bytes);
    free(pp->first);
    free(pp->cut_bytes);
    free(pp->held);
    free(pp->inbox);
    free(pp->inbox_state);
    free(pp->inbox_flow);
    free(pp);
}

static void unlink_pp(cs_parts *ps, ss_parted *pp)
{
    if (pp->prev) pp->prev->next = pp->next;
    else ps->live = pp->next;
    if (pp->next) pp->next->prev = pp->prev;
    for (uint32_t k = 0; k < pp->p; k++) pp->part[k]->pp = NULL;
}

void cs_parts_free(ss_coldstart *cs)
{
    cs_parts *ps = cs->parts;
    if (!ps) return;
    while (ps->live) {
        ss_parted *pp = ps->live;
        unlink_pp(ps, pp);
        pp_free(pp);
    }
    if (ps->pl.pol && ps->pl.pol->fini && ps->state) ps->pl.pol->fini(ps->state);
    if (ps->pl.handle) ss_plugin_unload(&ps->pl);
    if (ps->rng) gsl_rng_free(ps->rng);
    free(ps->models);
    free(ps->cuts);
    free(ps);
    cs->parts = NULL;
}

/* ---- a part's cold start: its bytes from the tiers a whole replica's come from ------------ */

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

static int in_set(const ss_cold *c, uint32_t l)
{
    int in = l >= c->lo && l < c->hi;
    return c->part == PART_REST ? !in : in;
}

static cs_held *held_of(ss_coldstart *cs, hm_entry *e)
{
    if (e->held) return e->held;
    uint32_t n = cs->parts->models[e->model].nlayers;
    cs_held *hd = ss_xcalloc(1, sizeof *hd + n);
    hd->n = n;
    hd->by = ss_xcalloc(n + 1, sizeof *hd->by);
    e->held = hd;
    return hd;
}

void cs_held_drop(ss_coldstart *cs, hm_entry *e)
{
    cs_release(cs, e->host, e->part_bytes);
    e->part_bytes = 0;
    free(e->held->by);
    free(e->held);
    e->held = NULL;
}

static void part_send(ss_coldstart *cs, ss_cold *c);
static void part_warm(ss_coldstart *cs, ss_cold *c, double now);

static void part_send_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    ss_cold *c = ctx;
    c->flow = 0;
    part_warm(c->in->world->cs, c, now);
}

static void part_send(ss_coldstart *cs, ss_cold *c)
{
    c->stage = ST_SEND;
    c->sent_s = ss_now(cs->w->eng);
    c->flow = cs_route_flow(cs, cs->hosts[c->host].ram, cs->gpus[c->gpu].node, 0, c->bytes, 0, part_send_done, c);
}

/* A part that read the host's copy of the model no longer depends on it. */
static void unpin(ss_coldstart *cs, ss_cold *c)
{
    if (!c->own_data) return; /* own_data here: it pinned what the host holds */
    c->own_data = 0;
    cs_unpin(cs, cs_hm_of(cs, c->host, c->model));
}

static void pin(ss_coldstart *cs, ss_cold *c)
{
    if (c->own_data) return;
    c->own_data = 1;
    cs_hm_of(cs, c->host, c->model)->pins++;
}

static void part_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    (void)now;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    c->flow = 0;
    unpin(cs, c);
    part_send(cs, c);
}

/* Its bytes are in the host's RAM: its own process loads them. */
static void part_load(ss_coldstart *cs, ss_cold *c, int reserve)
{
    if (reserve) {
        cs_reserve(cs, c->host, c->bytes);
        c->own_bytes += c->bytes;
    }
    c->stage = ST_LOAD;
    c->data_s = ss_now(cs->w->eng);
    c->flow = cs_load_flow(cs, c->host, c->gpu, c->model, c->bytes, part_load_done, c);
}

static void wake_list(ss_coldstart *cs, ss_cold *list)
{
    while (list) {
        ss_cold *c = list;
        list = c->next;
        c->next = NULL;
        cs_part_data(cs, c);
    }
}

static void wake_held(ss_coldstart *cs, hm_entry *e)
{
    if (!e->held) return;
    ss_cold *list = e->held->waiters;
    e->held->waiters = NULL;
    wake_list(cs, list);
}

/* A part's fetch has arrived: its layers are held (all of them: the host
 * holds the whole model's data), and it and the parts waiting look again. */
static void part_fetch_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    c->flow = 0;
    if (c->source == SS_SOURCE_DISK) {
        e->disk_reads--;
        e->disk_used_s = now;
    }
    cs_own_download_over(cs, c, c->fetch_bytes);
    c->fetch_bytes = 0;
    cs_held *hd = e->held;
    if (!hd) { /* nothing is kept or shared: it fetched its own copy */
        part_load(cs, c, 1);
        return;
    }
    for (uint32_t l = 0; l < hd->n; l++)
        if (hd->state[l] == LAYER_COMING && hd->by[l] == c) {
            hd->state[l] = LAYER_HELD;
            hd->by[l] = NULL;
            hd->held++;
        }
    ss_cold *waiters = NULL;
    if (hd->held == hd->n && e->data == NO_DATA) { /* its layers make up the model: the host's data */
        e->data = HAS_DATA;
        e->used_s = now;
        cs->hosts[e->host].used_bytes += cs_model_bytes(cs, e->model) - e->part_bytes;
        e->part_bytes = 0;
        waiters = hd->waiters;
        free(hd->by);
        free(hd);
        e->held = NULL;
    }
    cs_part_data(cs, c);
    wake_list(cs, waiters);
    wake_held(cs, e);
}

/* Fetch `bytes` that host h lacks for c, from the tier a whole replica's
 * bytes would come from (its disk, a holder for a chain, the plugin's peer,
 * storage); into the host's held layers, or c's own copy with nothing kept
 * or shared. */
static void part_fetch(ss_coldstart *cs, ss_cold *c, double bytes)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    uint32_t peer;
    uint8_t tier = cs_fetch_tier(cs, c->host, c->model, bytes, &peer);
    if (tier == CS_TIER_CHAIN) { /* one receiver: from the first host holding it, else storage (cs_multicast) */
        uint32_t *senders = ss_xmalloc((cs->nhosts + 1) * sizeof *senders);
        peer = cs_chain_senders(cs, c->model, senders) ? senders[0] : NONE;
        free(senders);
        tier = peer == NONE ? SS_SOURCE_STORAGE : SS_SOURCE_PEER;
    }
    c->source = tier;
    c->stage = ST_DATA;
    c->fetch_bytes = bytes;
    cs_reserve(cs, c->host, bytes);
    if (e->held) e->part_bytes += bytes;
    else c->own_bytes += bytes;
    if (tier == SS_SOURCE_DISK) {
        e->disk_reads++;
        c->flow = cs_disk_read(cs, c->host, bytes, part_fetch_done, c);
        return;
    }
    c->peer = peer;
    c->flow = cs_transfer(cs, c->host, c->model, bytes, peer, part_fetch_done, c);
}

/* c->source, unless a tier was named already (SS_SOURCE_GPU: none yet). */
static void source_is(ss_cold *c, uint8_t source)
{
    if (c->source == SS_SOURCE_GPU) c->source = source;
}

void cs_part_data(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    if (c->flow) return; /* its own fetch is in flight: it looks again when that arrives */
    if (e->proc == LOADED) { /* the host's process holds the model: only the send */
        source_is(c, SS_SOURCE_LOCAL);
        unpin(cs, c);
        c->data_s = ss_now(cs->w->eng);
        part_send(cs, c);
        return;
    }
    if (e->data == HAS_DATA) { /* the host holds the model's data, or its download just came */
        source_is(c, SS_SOURCE_LOCAL);
        pin(cs, c);
        part_load(cs, c, 1);
        return;
    }
    if (e->data == DOWNLOADING && (cs->flags & (SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST))) {
        pin(cs, c); /* the download manager: the host's one download brings its bytes */
        source_is(c, e->source);
        c->stage = ST_DATA;
        c->next = e->waiters;
        e->waiters = c;
        return;
    }
    if (!cs_tracks_data(cs)) { /* nothing is kept or shared: its own copy */
        part_fetch(cs, c, c->bytes);
        return;
    }
    pin(cs, c);
    cs_held *hd = held_of(cs, e);
    const ss_part_model *pm = &cs->parts->models[c->model];
    double missing = 0;
    ss_cold *other = NULL;
    for (uint32_t l = 0; l < hd->n; l++) {
        if (!in_set(c, l)) continue;
        if (hd->state[l] == LAYER_ABSENT) {
            hd->state[l] = LAYER_COMING;
            hd->by[l] = c;
            missing += pm->layers[l].weights_bytes;
        } else if (hd->state[l] == LAYER_COMING && hd->by[l] != c) {
            other = hd->by[l];
        }
    }
    if (missing > 0) { /* only what the host lacks */
        part_fetch(cs, c, missing);
        return;
    }
    if (other) { /* another cold start on the host fetches some of its layers */
        source_is(c, other->source);
        c->stage = ST_DATA;
        c->next = hd->waiters;
        hd->waiters = c;
        return;
    }
    source_is(c, SS_SOURCE_LOCAL); /* every layer was there */
    part_load(cs, c, 1);
}

static void part_begin(ss_coldstart *cs, ss_cold *c)
{
    cs_gpu *g = &cs->gpus[c->gpu];
    if (g->cached == c->model) { /* the GPU kept the whole model's weights: its part, and the rest, are there */
        g->cached = NONE;
        g->vram_used_bytes -= cs_model_bytes(cs, c->model);
        c->source = SS_SOURCE_GPU;
        part_warm(cs, c, ss_now(cs->w->eng));
        return;
    }
    cs_wake_none(cs, g); /* a sleeper yields the GPU */
    cs_part_data(cs, c);
}

static void unlist(ss_cold **list, ss_cold *c)
{
    for (ss_cold **pp = list; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            return;
        }
}

void cs_part_abandon(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    if (c->flow) ss_flow_cancel(cs->net, c->flow);
    if (c->flow && c->stage == ST_DATA) {
        cs_upload_over(cs, c->peer, c->model);
        if (c->source == SS_SOURCE_DISK) e->disk_reads--;
    }
    unlist(&e->waiters, c);
    if (e->held) {
        unlist(&e->held->waiters, c);
        for (uint32_t l = 0; l < e->held->n; l++) /* what it was fetching is absent again */
            if (e->held->state[l] == LAYER_COMING && e->held->by[l] == c) {
                e->held->state[l] = LAYER_ABSENT;
                e->held->by[l] = NULL;
            }
        if (c->flow && c->stage == ST_DATA) {
            e->part_bytes -= c->fetch_bytes;
            cs_release(cs, c->host, c->fetch_bytes);
        }
    }
    unpin(cs, c);
    cs_release(cs, c->host, c->own_bytes);
    c->in->cold = NULL;
    cs->live_colds--;
    free(c);
    wake_held(cs, e); /* parts that waited for its layers fetch them */
}

/* A cold start of layers [lo, hi) of model m (PART_REST: all but those) on part `in`'s GPU. */
static void part_cold(ss_coldstart *cs, ss_instance *in, uint32_t host, uint32_t gpu, uint8_t kind, double bytes,
                      uint32_t lo, uint32_t hi)
{
    ss_cold *c = ss_xcalloc(1, sizeof *c);
    *c = (ss_cold){.in = in, .host = host, .gpu = gpu, .model = in->model, .born_s = ss_now(cs->w->eng),
                   .peer = NONE, .part = kind, .bytes = bytes, .lo = lo, .hi = hi};
    in->cold = c;
    cs->live_colds++;
    part_begin(cs, c);
}

/* ---- serving through the parts ------------------------------------------------------------- */

static void hand_on(ss_world *w, ss_parted *pp, uint32_t k);

/* Part k (not the first) is free: it takes the request in its inbox, if arrived. */
static void take_inbox(ss_world *w, ss_parted *pp, uint32_t k)
{
    ss_instance *in = pp->part[k];
    if (in->busy || pp->held[k] || pp->inbox_state[k] != SLOT_HERE) return;
    ss_request *r = pp->inbox[k];
    pp->inbox[k] = NULL;
    pp->inbox_state[k] = SLOT_FREE;
    ss_serve_exec(w, in, r);
    if (pp->held[k - 1]) hand_on(w, pp, k - 1); /* its inbox is free again */
}

/* Part k may take work: the queue for the first part, its inbox for the others. */
static void part_free(ss_world *w, ss_parted *pp, uint32_t k)
{
    if (k == 0) ss_serve_pull(w, pp->part[0], ss_now(w->eng));
    else take_inbox(w, pp, k);
}

static void cut_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)now;
    ss_parted *pp = ctx;
    for (uint32_t k = 1; k < pp->p; k++)
        if (pp->inbox_state[k] == SLOT_COMING && pp->inbox_flow[k] == id) {
            pp->inbox_state[k] = SLOT_HERE;
            pp->inbox_flow[k] = 0;
            take_inbox(pp->part[k]->world, pp, k);
            return;
        }
}

/* Part k holds a request it has run: send it to part k + 1 once its inbox is free. */
static void hand_on(ss_world *w, ss_parted *pp, uint32_t k)
{
    if (pp->inbox_state[k + 1] != SLOT_FREE) return;
    ss_request *r = pp->held[k];
    pp->held[k] = NULL;
    pp->inbox[k + 1] = r;
    pp->inbox_state[k + 1] = SLOT_COMING;
    ss_coldstart *cs = w->cs;
    uint32_t a = cs->gpu_of_device[pp->part[k]->device], b = cs->gpu_of_device[pp->part[k + 1]->device];
    pp->inbox_flow[k + 1] = cs_route_flow(cs, cs->gpus[a].node, cs->gpus[b].node, r->id, pp->cut_bytes[k],
                                          w->sc->partitioning->cut_overhead_s, cut_done, pp);
    part_free(w, pp, k);
}

/* f on every part of pp, from a copy of the list: the part that stops last frees pp. */
static void each_part(ss_world *w, ss_parted *pp, void (*f)(ss_world *, ss_instance *))
{
    uint32_t p = pp->p;
    ss_instance **parts = ss_xmalloc(p * sizeof *parts);
    memcpy(parts, pp->part, p * sizeof *parts);
    for (uint32_t k = 0; k < p; k++) f(w, parts[k]);
    free(parts);
}

/* Whole on every GPU and empty: the pipeline becomes p whole replicas. */
static void dissolve(ss_world *w, ss_parted *pp)
{
    if (!pp->completing || pp->inflight || pp->draining) return;
    ss_instance **parts = ss_xmalloc(pp->p * sizeof *parts);
    uint32_t p = pp->p;
    memcpy(parts, pp->part, p * sizeof *parts);
    if (w->tl) ss_tl_mark(w, parts[0]->device, "partitioned replica completes: whole replicas");
    unlink_pp(w->cs->parts, pp);
    pp_free(pp);
    double now = ss_now(w->eng);
    for (uint32_t k = 0; k < p; k++) {
        parts[k]->idle_since_s = now;
        ss_serve_pull(w, parts[k], now);
    }
    free(parts);
}

/* The last request left a draining pipeline: its parts stop. */
static void emptied(ss_world *w, ss_parted *pp)
{
    if (pp->inflight) return;
    if (pp->draining) {
        each_part(w, pp, ss_inst_drained);
        return;
    }
    dissolve(w, pp);
}

double ss_pp_exec_s(const ss_instance *in, const ss_request *r) { return r->work_s * in->pp->share[in->pp_k]; }

void ss_pp_started(ss_world *w, ss_instance *in)
{
    (void)w;
    in->pp->inflight++;
}

void ss_pp_exec_done(ss_world *w, ss_instance *in, ss_request *r)
{
    ss_parted *pp = in->pp;
    uint32_t k = in->pp_k;
    if (in->busy == 0) in->idle_since_s = ss_now(w->eng);
    if (k + 1 < pp->p) {
        pp->held[k] = r;
        hand_on(w, pp, k);
        return;
    }
    ss_group *g = &w->groups[in->model];
    if (g->as) ss_as_done(g);
    pp->inflight--;
    ss_serve_advance(w, r);
    take_inbox(w, pp, k);
    emptied(w, pp);
}

int ss_pp_pull(ss_world *w, ss_instance *in)
{
    ss_parted *pp = in->pp;
    if (in->pp_k > 0) {
        take_inbox(w, pp, in->pp_k);
        return 1;
    }
    return pp->warm < pp->p || pp->completing || pp->held[0] || in->busy; /* else: the queue, as usual */
}

int ss_pp_may_stop(const ss_instance *in) { return in->pp->inflight == 0; }

void ss_pp_gone(ss_world *w, ss_instance *in)
{
    ss_parted *pp = in->pp;
    if (++pp->stopped < pp->p) return;
    unlink_pp(w->cs->parts, pp);
    pp_free(pp);
}

/* Most parts first; among equals, the newest first. */
static int by_more_parts(const void *a, const void *b)
{
    const ss_parted *x = *(ss_parted *const *)a, *y = *(ss_parted *const *)b;
    if (x->p != y->p) return x->p > y->p ? -1 : 1;
    return x->seq > y->seq ? -1 : x->seq < y->seq ? 1 : 0;
}

uint32_t ss_pp_shrink(ss_world *w, uint32_t m, uint32_t k)
{
    cs_parts *ps = w->cs->parts;
    size_t n = 0;
    for (ss_parted *pp = ps->live; pp; pp = pp->next) n += pp->model == m && !pp->draining;
    if (!n) return 0;
    ss_parted **list = ss_xmalloc(n * sizeof *list);
    n = 0;
    for (ss_parted *pp = ps->live; pp; pp = pp->next)
        if (pp->model == m && !pp->draining) list[n++] = pp;
    qsort(list, n, sizeof *list, by_more_parts);
    uint32_t freed = 0;
    for (size_t i = 0; i < n; i++) {
        ss_parted *pp = list[i];
        if (pp->p > k - freed) continue;
        freed += pp->p;
        pp->draining = 1;
        each_part(w, pp, ss_inst_drain);
    }
    free(list);
    return freed;
}

/* ---- warm parts, completion ---------------------------------------------------------------- */

/* One more GPU of pp holds the whole model; with all of them, pp takes no
 * more requests and becomes whole replicas once empty. */
static void whole_on(ss_world *w, ss_parted *pp)
{
    if (++pp->whole < pp->p) return;
    pp->completing = 1;
    pp->part[0]->gen++; /* its place among the free servers is void: it takes no more requests */
    dissolve(w, pp);
}

static void part_warm(ss_coldstart *cs, ss_cold *c, double now)
{
    ss_world *w = cs->w;
    ss_instance *in = c->in;
    ss_parted *pp = in->pp;
    cs_release(cs, c->host, c->own_bytes);
    uint8_t kind = c->part;
    ss_cold done = *c;
    uint32_t host = c->host, gpu = c->gpu;
    in->cold = NULL;
    cs->live_colds--;
    free(c);
    if (kind == PART_REST) { /* this GPU holds the whole model (and its host's RAM what the policy keeps) */
        whole_on(w, pp);
        return;
    }
    ss_inst_up(w, in);
    if (++pp->warm == pp->p) { /* the pipeline is up: one cold start, from the first part's birth */
        done.born_s = pp->born_s;
        done.in = pp->part[0];
        done.gpu = cs->gpu_of_device[done.in->device];
        done.host = cs->gpus[done.gpu].host;
        cs_record(cs, &done, now);
        cs_tl_mark(cs, &done, "warm (partitioned)", 1);
        ss_serve_pull(w, pp->part[0], now);
    }
    double rest = cs_model_bytes(cs, in->model) - pp->bytes[in->pp_k];
    if (done.source == SS_SOURCE_GPU) rest = 0; /* the whole model is on the GPU already */
    if (!w->sc->partitioning->completion || pp->draining) return;
    uint32_t k = in->pp_k;
    if (rest > 0) part_cold(cs, in, host, gpu, PART_REST, rest, pp->first[k], pp->first[k + 1]);
    else whole_on(w, pp);
}

/* ---- scale-up ---------------------------------------------------------------------------- */

/* FP eq. 4.14: the requests the new replicas are expected to face. */
static double expected_queue(ss_coldstart *cs, uint32_t m)
{
    const ss_group *g = &cs->w->groups[m];
    const ss_part_model *pm = &cs->parts->models[m];
    double lambda = ss_as_rate_rps(g), mu = g->mean_s > 0 ? g->nup / g->mean_s : 0;
    return (double)g->queued + (lambda - mu) * ss_part_cold_s(pm, cs_model_bytes(cs, m));
}

static ss_parted *new_pipeline(ss_coldstart *cs, uint32_t m, uint32_t p, const uint32_t *cuts)
{
    const ss_part_model *pm = &cs->parts->models[m];
    ss_parted *pp = ss_xcalloc(1, sizeof *pp);
    pp->model = m;
    pp->p = p;
    pp->born_s = ss_now(cs->w->eng);
    pp->part = ss_xcalloc(p, sizeof *pp->part);
    pp->share = ss_xcalloc(p, sizeof *pp->share);
    pp->bytes = ss_xcalloc(p, sizeof *pp->bytes);
    pp->first = ss_xcalloc(p + 1, sizeof *pp->first);
    pp->cut_bytes = ss_xcalloc(p, sizeof *pp->cut_bytes);
    pp->held = ss_xcalloc(p, sizeof *pp->held);
    pp->inbox = ss_xcalloc(p, sizeof *pp->inbox);
    pp->inbox_state = ss_xcalloc(p, sizeof *pp->inbox_state);
    pp->inbox_flow = ss_xcalloc(p, sizeof *pp->inbox_flow);
    double total = 0;
    for (uint32_t l = 0; l < pm->nlayers; l++) total += pm->layers[l].exec_s;
    for (uint32_t k = 0, l = 0; k < p; k++) {
        uint32_t to = k + 1 < p ? cuts[k] + 1 : pm->nlayers;
        pp->first[k] = l;
        pp->first[k + 1] = to;
        for (; l < to; l++) {
            pp->share[k] += total > 0 ? pm->layers[l].exec_s / total : 1.0 / pm->nlayers;
            pp->bytes[k] += pm->layers[l].weights_bytes;
        }
        if (k + 1 < p) pp->cut_bytes[k] = pm->layers[cuts[k]].output_bytes;
    }
    cs_parts *ps = cs->parts;
    pp->seq = ps->made++;
    pp->next = ps->live;
    if (ps->live) ps->live->prev = pp;
    ps->live = pp;
    return pp;
}

uint32_t cs_grow_parts(ss_coldstart *cs, uint32_t m, uint32_t k)
{
    ss_world *w = cs->w;
    cs_parts *ps = cs->parts;
    uint32_t *hosts;
    uint32_t got = cs_place_hosts(cs, m, k, &hosts);
    /* The GPUs of the picks, each host's best free one in turn (marked taken meanwhile). */
    uint32_t *gpu = ss_xmalloc((got ? got : 1) * sizeof *gpu), *host = ss_xmalloc((got ? got : 1) * sizeof *host);
    uint32_t ng = 0;
    for (uint32_t i = 0; i < got; i++) {
        if (hosts[i] == NONE) continue;
        uint32_t g = cs_best_gpu(cs, hosts[i], m);
        if (g == NONE || !cs_gpu_fits(cs, hosts[i], g, m)) continue;
        cs->gpus[g].live++;
        host[ng] = hosts[i];
        gpu[ng++] = g;
    }
    for (uint32_t j = 0; j < ng; j++) cs->gpus[gpu[j]].live--;
    free(hosts);
    uint32_t p = 1;
    if (ng >= 2) {
        p = ps->pl.pol->ops.partitioner.plan(ps->state, &ps->models[m], expected_queue(cs, m), ng, ps->cuts);
        if (!ss_part_plan_ok(&ps->models[m], ps->cuts, p, ng)) { /* a plan it may not make: the run fails */
            if (!w->failed)
                w->failed = ss_xasprintf("partitioner '%s' answered an invalid plan for model '%s' at %g s (%u parts "
                                         "on %u GPUs; servesim partition checks a plan): its replicas started whole",
                                         ps->pl.pol->name, w->sc->models[m].name, ss_now(w->eng), p, ng);
            p = 1;
        }
    }
    uint32_t pipes = p > 1 ? ng / p : 0, started = 0;
    for (uint32_t q = 0; q < pipes; q++) {
        ss_parted *pp = new_pipeline(cs, m, p, ps->cuts);
        if (w->tl) {
            char *msg = ss_xasprintf("partitioned %s into %u parts", w->sc->models[m].name, p);
            ss_tl_note(w, msg);
            free(msg);
        }
        for (uint32_t j = 0; j < p; j++) {
            uint32_t at = q * p + j;
            ss_instance *in = cs_new_replica(cs, m, gpu[at]);
            in->pp = pp;
            in->pp_k = j;
            pp->part[j] = in;
            started++;
        }
        for (uint32_t j = 0; j < p; j++)
            part_cold(cs, pp->part[j], host[q * p + j], gpu[q * p + j], PART_START, pp->bytes[j], pp->first[j],
                      pp->first[j + 1]);
    }
    for (uint32_t j = pipes * p; j < ng; j++) started += cs_start_whole(cs, m, host[j], gpu[j]);
    free(gpu);
    free(host);
    if (cs->npending) cs_multicast(cs, m);
    return started;
}
