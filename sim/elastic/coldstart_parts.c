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

const ss_part_model *cs_part_model(const ss_coldstart *cs, uint32_t m) { return &cs->parts->models[m]; }

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

void cs_part_warm(ss_coldstart *cs, ss_cold *c, double now)
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
    if (rest > 0) cs_part_cold(cs, in, host, gpu, PART_REST, rest, pp->first[k], pp->first[k + 1]);
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
    cs_part_batch(cs, 1); /* parts' fetches by chain wait until every part has begun */
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
            cs_part_cold(cs, pp->part[j], host[q * p + j], gpu[q * p + j], PART_START, pp->bytes[j], pp->first[j],
                      pp->first[j + 1]);
    }
    cs_part_batch(cs, 0);
    for (uint32_t j = pipes * p; j < ng; j++) started += cs_start_whole(cs, m, host[j], gpu[j]);
    free(gpu);
    free(host);
    if (cs->npending) cs_multicast(cs, m);
    return started;
}
