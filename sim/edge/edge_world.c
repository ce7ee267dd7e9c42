/* edge_world.c: one replication of an edge-device scenario (edge.h): images
 * arrive, each requests a set of networks; every layer is a load task L and
 * an execute task E on a pool of workers that share one memory budget; a
 * layer_scheduler plugin picks which ready task an idle worker runs; the
 * memory in use slows running tasks down when it exceeds the budget.
 *
 * The model, step by step (docs/masa.md §2, after seed §1.4):
 *  - graph: L_j -> E_j, E_{j-1} -> E_j, and L_{j-1} -> L_j when loads are
 *    chained (the scheduler's flags or edge.load_chain);
 *  - memory (the ledger of docs/masa-models.md §2.3): L_j reserves m^L(j),
 *    E_j reserves m^E(j); E_j's end releases m^L(j) and m^E(j-1); the last
 *    E releases the rest.  `release: network` holds everything to the end;
 *    a scheduler with SS_LAYER_NET_FOOTPRINT holds the network's peak from
 *    its first task to its end instead.  Two ledgers are kept: the true use
 *    (paging) and the scheduler's estimate (true x edge.mem_estimate);
 *  - speed: a running task progresses at 1/s_k(x), x = max(0, U/C - 1) for
 *    its class k (conv exec, fc exec, load); n concurrent loads share the
 *    disk, each at 1/(n (1 + kappa)).  Both run on the max-min solver
 *    (core/flow.h, docs/compute-sharing.md), on the device's own compute
 *    net of two links: the CPU (capacity `cores`) and the disk (capacity
 *    1, or 1/(1 + kappa) while two or more loads read).  An execute task is
 *    a flow over the CPU capped at 1/s_k(x) cores: a thread stalled on
 *    paging holds no core, so with cores >= busy workers it runs at
 *    1/s_k(x) exactly, and with fewer cores the busy workers share them.
 *    A load is a flow over the disk with weight s_load(x) (each second of
 *    progress reads s_load(x) seconds' worth of disk: its data and the
 *    swap traffic), so n equal loads get 1/(n s (1 + kappa)) each, as
 *    before.  Whenever U or the set of running tasks changes, tasks whose
 *    slowdown changed restart their flow with the work they have left;
 *  - overhead: each network passes a serial dispatcher that costs the
 *    scheduler's net_overhead_s before its tasks become ready;
 *  - response time = the job's last network done - image generation.
 * Memory is proportional to jobs in flight: networks and jobs are freed when
 * they finish and every statistic is streaming. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/edge_cfg.h"
#include "edge/edge_world.h"
#include "core/afile.h"
#include "core/flow.h"
#include "core/rng.h"
#include "serve/serve.h"

enum { T_WAIT, T_READY, T_RUN, T_DONE };

struct enet;

typedef struct etask {
    struct enet *net;
    uint32_t layer;
    uint8_t kind;     /* SS_LAYER_LOAD / SS_LAYER_EXEC */
    uint8_t cls;      /* paging class SS_EDGE_CONV / _FC / _LOADC */
    uint8_t state;
    uint8_t deps;     /* unmet dependencies */
    uint32_t worker;
    uint32_t ready_pos;
    double work_s;    /* seconds of work at full speed (its flow's size) */
    double slow;      /* the slowdown its flow runs under (0: no flow yet) */
    ss_flow_id flow;  /* on the device's compute net */
    double start_s;
    double true_bytes, est_bytes; /* what it reserved and has not released */
} etask;

typedef struct ejob {
    uint64_t seq;
    double gen_s;
    uint32_t left;   /* networks not finished */
    int measured;
} ejob;

typedef struct enet {
    struct ss_edge_world *e;
    const ss_edge_net *cfg;
    uint32_t type;
    uint64_t seq;
    ejob *job;
    uint32_t index_in_job;
    uint32_t pos;           /* index in the active arrays while released */
    int charged;            /* footprint reserved (SS_LAYER_NET_FOOTPRINT) */
    double held_true, held_est;
    double first_start_s;
    etask *t;               /* L_j = t[2j], E_j = t[2j + 1] */
} enet;

typedef struct tstats {
    ss_task_stats s;
} tstats;

struct ss_edge_world {
    ss_world *w;
    const ss_edge_cfg *cfg;
    ss_engine *eng;
    ss_plugin pl;
    void *state;
    gsl_rng *pol_rng, *iat_rng, *mix_rng;
    const ss_layer_sched_ops *ops;
    uint32_t flags;
    int chain, chain_part, footprint, hold_all;
    double overhead_s, disp_free_s;
    /* workers, and the device's compute net: link 0 the CPU, link 1 the disk */
    ss_flownet *cnet;
    double disk_cap;        /* the disk link's capacity now */
    etask **run;            /* per worker, NULL if idle */
    uint32_t busy, running_loads;
    /* ready tasks and released networks */
    etask **ready;
    uint32_t nready, cap_ready;
    ss_layer_task_view *rview;
    enet **act;
    ss_layer_net_view *netv;
    uint32_t nact, cap_act;
    /* ledger */
    double used_true, used_est, peak_true;
    /* arrivals */
    uint64_t jobs, nets_seq, jobs_in_flight;
    uint32_t *pickbuf;
    /* statistics */
    ss_task_stats *types;   /* per network type */
    ss_task_stats jobstat;
    uint64_t misses, measured_jobs, forced;
    double energy_j, over_s, mark_s, busy_cls_s[3], busy_worker_s, first_gen_s;
    FILE *trace;
};

/* ---- small helpers ---------------------------------------------------------- */

static double over_x(const ss_edge_world *e)
{
    double x = (e->used_true + e->cfg->reserved_bytes) / e->cfg->capacity_bytes - 1.0;
    return x > 0 ? x : 0;
}

/* Bring the energy and over-commit integrals up to now (before busy or U change). */
static void mark(ss_edge_world *e)
{
    double now = ss_now(e->eng), dt = now - e->mark_s;
    if (dt <= 0) return;
    int over = over_x(e) > 0;
    const ss_edge_power *p = &e->cfg->power;
    e->energy_j += dt * (p->idle_w + p->worker_w * e->busy + (over ? p->swap_w : 0));
    if (over) e->over_s += dt;
    e->busy_worker_s += dt * e->busy;
    e->mark_s = now;
}

static void reserve(ss_edge_world *e, enet *n, etask *t, double bytes)
{
    double est = bytes * e->cfg->mem_estimate;
    e->used_true += bytes;
    e->used_est += est;
    n->held_true += bytes;
    n->held_est += est;
    if (t) {
        t->true_bytes += bytes;
        t->est_bytes += est;
    }
    if (e->used_true > e->peak_true) e->peak_true = e->used_true;
}

static void release_task(ss_edge_world *e, etask *t)
{
    e->used_true -= t->true_bytes;
    e->used_est -= t->est_bytes;
    t->net->held_true -= t->true_bytes;
    t->net->held_est -= t->est_bytes;
    t->true_bytes = t->est_bytes = 0;
}

static void trace(ss_edge_world *e, const char *what, const etask *t)
{
    if (!e->trace) return;
    fprintf(e->trace, "%.6f,%s,%llu,%u,%c,%u,%.3f\n", ss_now(e->eng), what, (unsigned long long)t->net->seq,
            t->layer + 1, t->kind == SS_LAYER_LOAD ? 'L' : 'E', t->worker, e->used_true / 1048576.0);
}

static void ready_add(ss_edge_world *e, etask *t)
{
    if (e->nready == e->cap_ready) {
        e->cap_ready = e->cap_ready ? 2 * e->cap_ready : 64;
        e->ready = ss_xrealloc(e->ready, e->cap_ready * sizeof *e->ready);
        e->rview = ss_xrealloc(e->rview, e->cap_ready * sizeof *e->rview);
    }
    t->state = T_READY;
    t->ready_pos = e->nready;
    e->ready[e->nready++] = t;
}

static void ready_remove(ss_edge_world *e, etask *t)
{
    etask *last = e->ready[--e->nready];
    e->ready[t->ready_pos] = last;
    last->ready_pos = t->ready_pos;
}

static void dep_done(ss_edge_world *e, etask *t)
{
    if (--t->deps == 0 && t->net->pos != UINT32_MAX) ready_add(e, t);
}

/* ---- speed: paging and disk sharing ------------------------------------------- */

static void task_done(ss_edge_world *e, etask *t);

static void flow_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    (void)now_s;
    etask *t = ctx;
    task_done(t->net->e, t);
}

enum { CPU_LINK = 0, DISK_LINK = 1 };

/* Re-evaluate every running task's slowdown; restart the flows of those
 * that changed with the work they have left. */
static void update_rates(ss_edge_world *e)
{
    double x = over_x(e);
    const ss_edge_paging *pg = &e->cfg->paging;
    double disk = e->running_loads > 1 ? 1.0 / (1 + pg->disk_contention) : 1.0;
    if (disk != e->disk_cap) {
        e->disk_cap = disk;
        ss_flownet_set_capacity(e->cnet, DISK_LINK, 8 * disk); /* x8: a second of work is a byte */
    }
    for (uint32_t k = 0; k < e->cfg->workers; k++) {
        etask *t = e->run[k];
        if (!t) continue;
        double s = ss_edge_slowdown(pg, t->cls, x);
        if (t->flow && s == t->slow) continue;
        if (t->flow) {
            t->work_s = ss_flow_remaining_bytes(e->cnet, t->flow);
            ss_flow_cancel(e->cnet, t->flow);
        }
        t->slow = s;
        if (t->kind == SS_LAYER_LOAD) {
            uint32_t link = DISK_LINK;
            t->flow = ss_flow_start_weighted(e->cnet, &link, &s, 1, t->work_s, NULL, flow_done, t);
        } else {
            uint32_t link = CPU_LINK;
            ss_flow_opts o = {.cap_bps = 8 / s};
            t->flow = ss_flow_start(e->cnet, &link, 1, t->work_s, &o, flow_done, t);
        }
    }
}

/* ---- starting tasks and the scheduler ------------------------------------------- */

static void start(ss_edge_world *e, etask *t, uint32_t worker)
{
    enet *n = t->net;
    const ss_edge_layer *y = &n->cfg->layers[t->layer];
    double now = ss_now(e->eng);
    mark(e);
    ready_remove(e, t);
    t->state = T_RUN;
    t->worker = worker;
    t->start_s = now;
    t->work_s = t->kind == SS_LAYER_LOAD ? y->load_s : y->exec_s;
    t->flow = 0;
    t->slow = 0;
    e->run[worker] = t;
    e->busy++;
    if (t->kind == SS_LAYER_LOAD) e->running_loads++;
    ss_layer_net_view *v = &e->netv[n->pos];
    if (!v->started) n->first_start_s = now;
    v->started = 1;
    v->running++;
    if (e->footprint) {
        if (!n->charged) reserve(e, n, NULL, n->cfg->peak_bytes);
        n->charged = 1;
    } else {
        reserve(e, n, t, t->kind == SS_LAYER_LOAD ? y->mem_load_bytes : y->mem_exec_bytes);
    }
    trace(e, "start", t);
    update_rates(e);
}

static double req_bytes(const ss_edge_world *e, const etask *t)
{
    if (e->footprint) return 0;
    const ss_edge_layer *y = &t->net->cfg->layers[t->layer];
    return (t->kind == SS_LAYER_LOAD ? y->mem_load_bytes : y->mem_exec_bytes) * e->cfg->mem_estimate;
}

static void dispatch(ss_edge_world *e)
{
    uint32_t nw = e->cfg->workers;
    for (uint32_t k = 0; k < nw && e->nready; k++) {
        if (e->run[k]) continue;
        for (uint32_t i = 0; i < e->nready; i++) {
            const etask *t = e->ready[i];
            e->rview[i] = (ss_layer_task_view){.kind = t->kind, .part = t->net->cfg->layers[t->layer].part,
                                               .layer = t->layer, .net = t->net->pos,
                                               .req_mem_bytes = req_bytes(e, t),
                                               .id = t->net->seq * 1048576u + 2u * t->layer + t->kind};
        }
        ss_layer_ctx ctx = {.worker = k, .nworkers = nw, .busy = e->busy,
                            .capacity_bytes = e->cfg->capacity_bytes - e->cfg->reserved_bytes,
                            .free_bytes = e->cfg->capacity_bytes - e->cfg->reserved_bytes - e->used_est,
                            .now_s = ss_now(e->eng), .nets = e->netv, .nnets = e->nact,
                            .ready = e->rview, .nready = e->nready};
        int32_t i = e->ops->pick(e->state, &ctx);
        if (i >= 0 && (uint32_t)i < e->nready) start(e, e->ready[i], k);
    }
    /* Progress: a scheduler that leaves every worker idle with work ready
     * would stall the device forever; start the oldest ready task. */
    if (e->busy == 0 && e->nready > 0) {
        uint32_t best = 0;
        for (uint32_t i = 1; i < e->nready; i++) {
            const etask *a = e->ready[i], *b = e->ready[best];
            if (a->net->seq < b->net->seq || (a->net->seq == b->net->seq && 2 * a->layer + a->kind < 2 * b->layer + b->kind))
                best = i;
        }
        e->forced++;
        start(e, e->ready[best], 0);
    }
}

/* ---- networks and jobs ----------------------------------------------------------- */

/* Make a network visible to the scheduler: its views and first ready tasks. */
static void net_release(ss_edge_world *e, enet *n)
{
    if (e->nact == e->cap_act) {
        e->cap_act = e->cap_act ? 2 * e->cap_act : 16;
        e->act = ss_xrealloc(e->act, e->cap_act * sizeof *e->act);
        e->netv = ss_xrealloc(e->netv, e->cap_act * sizeof *e->netv);
    }
    n->pos = e->nact;
    e->act[e->nact] = n;
    ss_layer_net_view *v = &e->netv[e->nact++];
    const ss_edge_net *c = n->cfg;
    double f = e->cfg->mem_estimate;
    *v = (ss_layer_net_view){.seq = n->seq, .job = n->job->seq, .index_in_job = n->index_in_job, .type = n->type,
                             .nlayers = c->nlayers, .peak_bytes = c->peak_bytes * f, .admit_bytes = c->admit_bytes * f,
                             .mean_exec_s = c->mean_exec_s};
    for (uint32_t j = 0; j < c->nlayers; j++) {
        v->loads_left[c->layers[j].part]++;
        v->execs_left[c->layers[j].part]++;
    }
    for (uint32_t j = 0; j < 2 * c->nlayers; j++)
        if (n->t[j].deps == 0) ready_add(e, &n->t[j]);
}

static void net_release_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_edge_world *e = ctx;
    net_release(e, (enet *)(uintptr_t)arg);
    dispatch(e);
}

static enet *net_new(ss_edge_world *e, ejob *job, uint32_t type, uint32_t index)
{
    const ss_edge_net *c = &e->cfg->nets[type];
    enet *n = ss_xcalloc(1, sizeof *n);
    n->e = e;
    n->cfg = c;
    n->type = type;
    n->seq = e->nets_seq++;
    n->job = job;
    n->index_in_job = index;
    n->pos = UINT32_MAX;
    n->t = ss_xcalloc(2 * (size_t)c->nlayers, sizeof *n->t);
    for (uint32_t j = 0; j < c->nlayers; j++) {
        etask *l = &n->t[2 * j], *x = &n->t[2 * j + 1];
        *l = (etask){.net = n, .layer = j, .kind = SS_LAYER_LOAD, .cls = SS_EDGE_LOADC};
        *x = (etask){.net = n, .layer = j, .kind = SS_LAYER_EXEC, .cls = c->layers[j].fc ? SS_EDGE_FC : SS_EDGE_CONV,
                     .deps = (uint8_t)(1 + (j > 0))};
        if (e->chain && j > 0 && (!e->chain_part || c->layers[j - 1].part == c->layers[j].part)) l->deps = 1;
    }
    if (e->types && job->measured) e->types[type].arrived++;
    return n;
}

static void net_finish(ss_edge_world *e, enet *n)
{
    double now = ss_now(e->eng);
    /* Out of the active arrays, keeping generation order. */
    for (uint32_t i = n->pos + 1; i < e->nact; i++) e->act[i]->pos = i - 1;
    memmove(&e->act[n->pos], &e->act[n->pos + 1], (e->nact - n->pos - 1) * sizeof *e->act);
    memmove(&e->netv[n->pos], &e->netv[n->pos + 1], (e->nact - n->pos - 1) * sizeof *e->netv);
    e->nact--;
    e->used_true -= n->held_true;
    e->used_est -= n->held_est;
    if (e->used_true < 1e-6 * e->cfg->capacity_bytes && e->nact == 0) e->used_true = e->used_est = 0;
    ejob *job = n->job;
    if (job->measured) {
        ss_task_stats *s = &e->types[n->type];
        s->completed++;
        ss_stat_add(&s->latency, now - job->gen_s);
        ss_hist_add(s->lat_hist, now - job->gen_s);
        ss_stat_add(&s->queueing, n->first_start_s - job->gen_s);
        s->waited += n->first_start_s > job->gen_s;
        ss_hist_add(s->queue_hist, n->first_start_s - job->gen_s);
    }
    free(n->t);
    free(n);
    if (--job->left) return;
    double resp = now - job->gen_s;
    ss_world *w = e->w;
    if (job->measured) {
        e->jobstat.completed++;
        ss_stat_add(&e->jobstat.latency, resp);
        ss_hist_add(e->jobstat.lat_hist, resp);
        if (resp > e->cfg->wl.deadline_s) e->misses++;
        w->last_completion_s = now;
    }
    ss_world_count_done(w, now);
    w->last_done_s = now;
    if (w->req_csv) {
        ss_csv_field(w->req_csv, w->sc->variant);
        fprintf(w->req_csv, ",%u,%llu,edge,job,%.9f,%.9f,%.9f,%.9f,0,%d,\n", w->rep, (unsigned long long)job->seq,
                job->gen_s, now, resp * 1e3, 0.0, job->measured);
    }
    e->jobs_in_flight--;
    free(job);
}

static void task_done(ss_edge_world *e, etask *t)
{
    enet *n = t->net;
    double now = ss_now(e->eng);
    mark(e);
    trace(e, "end", t);
    e->run[t->worker] = NULL;
    e->busy--;
    if (t->kind == SS_LAYER_LOAD) e->running_loads--;
    e->busy_cls_s[t->cls] += now - t->start_s;
    t->state = T_DONE;
    t->flow = 0;
    ss_layer_net_view *v = &e->netv[n->pos];
    uint32_t part = n->cfg->layers[t->layer].part, j = t->layer, k = n->cfg->nlayers;
    v->running--;
    if (t->kind == SS_LAYER_LOAD) {
        v->loads_left[part]--;
        dep_done(e, &n->t[2 * j + 1]);
        if (j + 1 < k && n->t[2 * (j + 1)].deps) dep_done(e, &n->t[2 * (j + 1)]);
    } else {
        v->execs_left[part]--;
        if (!e->hold_all) { /* E_j consumed its weights and its input */
            release_task(e, &n->t[2 * j]);
            if (j > 0) release_task(e, &n->t[2 * j - 1]);
        }
        if (j + 1 < k) dep_done(e, &n->t[2 * j + 3]);
        else net_finish(e, n);
    }
    update_rates(e);
    dispatch(e);
}

/* ---- arrivals ---------------------------------------------------------------- */

static double next_iat(ss_edge_world *e)
{
    const ss_edge_workload *wl = &e->cfg->wl;
    if (wl->kind != SS_EDGE_SCENARIO1 || wl->iat_sd_s <= 0) return wl->iat_mean_s;
    double x;
    do x = wl->iat_mean_s + gsl_ran_gaussian_ziggurat(e->iat_rng, wl->iat_sd_s);
    while (x <= 0); /* truncated at 0 */
    return x;
}

static void arrival(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_edge_world *e = ctx;
    ss_world *w = e->w;
    const ss_scenario *sc = w->sc;
    const ss_edge_workload *wl = &e->cfg->wl;
    double now = ss_now(eng);
    ejob *job = ss_xcalloc(1, sizeof *job);
    job->seq = e->jobs++;
    job->gen_s = now;
    job->measured = job->seq >= sc->warmup_requests && now >= sc->warmup_s;
    if (job->measured) e->jobstat.arrived++;
    if (++e->jobs_in_flight > w->peak_in_flight) w->peak_in_flight = e->jobs_in_flight;
    /* Which networks: all (periodic), one (scenario1) or k distinct (scenario2). */
    uint32_t k = wl->nnets;
    for (uint32_t i = 0; i < wl->nnets; i++) e->pickbuf[i] = wl->nets[i];
    if (wl->kind != SS_EDGE_PERIODIC) {
        k = wl->per_image_min;
        if (wl->per_image_max > k) k += (uint32_t)gsl_rng_uniform_int(e->mix_rng, wl->per_image_max - k + 1);
        for (uint32_t i = 0; i < k; i++) { /* partial Fisher-Yates */
            uint32_t r = i + (uint32_t)gsl_rng_uniform_int(e->mix_rng, wl->nnets - i), tmp = e->pickbuf[i];
            e->pickbuf[i] = e->pickbuf[r];
            e->pickbuf[r] = tmp;
        }
    }
    job->left = k;
    for (uint32_t i = 0; i < k; i++) {
        enet *n = net_new(e, job, e->pickbuf[i], i);
        if (e->overhead_s > 0) { /* the serial dispatcher */
            e->disp_free_s = (e->disp_free_s > now ? e->disp_free_s : now) + e->overhead_s;
            ss_schedule(eng, e->disp_free_s, net_release_ev, e, (uint64_t)(uintptr_t)n);
        } else {
            net_release(e, n);
        }
    }
    if (e->overhead_s <= 0) dispatch(e);
    if (e->jobs < sc->max_requests) {
        double t = now + next_iat(e);
        if (t < sc->duration_s) ss_schedule(eng, t, arrival, e, 0);
    }
}

/* ---- building, results ------------------------------------------------------- */

static const char *const extra_cols[] = {"deadline_miss_frac", "energy_j", "peak_mem_mib", "overcommit_frac",
                                         "util_workers", "busy_load_s", "busy_exec_conv_s", "busy_exec_fc_s",
                                         "makespan_s", "forced_starts", NULL};

ss_edge_world *ss_edge_world_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    ss_edge_world *e = ss_xcalloc(1, sizeof *e);
    e->w = w;
    e->cfg = sc->edge;
    e->eng = w->eng;
    double cap[2] = {8.0 * e->cfg->cores, 8.0}; /* x8: a second of work is a byte */
    e->cnet = ss_flownet_new(e->eng, 2, cap);
    e->disk_cap = 1;
    if (ss_world_load_policy(w, &e->cfg->scheduler, SS_KIND_LAYER_SCHEDULER, &e->pl, &e->state, &e->pol_rng,
                             "policy/layer_scheduler", err) < 0) {
        ss_edge_world_free(e);
        return NULL;
    }
    e->ops = &e->pl.pol->ops.layer_scheduler;
    e->flags = e->ops->flags;
    e->chain = e->cfg->load_chain < 0 ? (e->flags & SS_LAYER_CHAIN_LOADS) != 0 : e->cfg->load_chain;
    e->chain_part = (e->flags & SS_LAYER_CHAIN_PART) != 0;
    e->footprint = (e->flags & SS_LAYER_NET_FOOTPRINT) != 0;
    e->hold_all = e->cfg->release_network || e->footprint;
    e->overhead_s = e->ops->net_overhead_s ? e->ops->net_overhead_s(e->state) : 0;
    if (!(e->overhead_s >= 0)) e->overhead_s = 0;
    e->run = ss_xcalloc(e->cfg->workers, sizeof *e->run);
    e->iat_rng = ss_rng_stream(sc->seed, w->rep, "edge/arrivals");
    e->mix_rng = ss_rng_stream(sc->seed, w->rep, "edge/composition");
    e->pickbuf = ss_xcalloc(e->cfg->wl.nnets, sizeof *e->pickbuf);
    e->types = ss_xcalloc(e->cfg->nnets, sizeof *e->types);
    for (size_t i = 0; i < e->cfg->nnets; i++) ss_task_stats_init(&e->types[i]);
    ss_task_stats_init(&e->jobstat);
    for (size_t i = 0; extra_cols[i]; i++) ss_world_declare_extra(w, extra_cols[i]);
    ss_schedule(e->eng, 0, arrival, e, 0);
    return e;
}

void ss_edge_world_trace(ss_world *w, FILE *fp)
{
    if (w->edge) w->edge->trace = fp;
}

void ss_edge_world_result(const ss_edge_world *ce, ss_run_result *r)
{
    const ss_edge_world *e = ce;
    const ss_world *w = e->w;
    const ss_edge_workload *wl = &e->cfg->wl;
    double end = w->last_done_s; /* the integrals were last brought up to date there */
    r->tasks = ss_xcalloc((size_t)wl->nnets + 1, sizeof *r->tasks);
    for (size_t i = 0; i < e->cfg->nnets; i++) {
        int used = 0;
        for (uint32_t k = 0; k < wl->nnets; k++) used |= wl->nets[k] == i;
        if (used) ss_task_result_fill(&e->types[i], e->cfg->nets[i].name, r->window_s, &r->tasks[r->ntasks++]);
    }
    ss_task_stats all = e->jobstat;
    ss_task_result_fill(&all, "all", r->window_s, &r->tasks[r->ntasks++]);
    r->util = ss_xcalloc(1, sizeof *r->util);
    r->ndevices = 0;
    double span = end > 0 ? end : 0, nan = NAN;
    ss_run_result_extra(r, "deadline_miss_frac",
                        e->jobstat.completed ? (double)e->misses / (double)e->jobstat.completed : nan);
    ss_run_result_extra(r, "energy_j", e->energy_j);
    ss_run_result_extra(r, "peak_mem_mib", (e->peak_true + e->cfg->reserved_bytes) / 1048576.0);
    ss_run_result_extra(r, "overcommit_frac", span > 0 ? e->over_s / span : 0);
    ss_run_result_extra(r, "util_workers", span > 0 ? e->busy_worker_s / (span * e->cfg->workers) : 0);
    ss_run_result_extra(r, "busy_load_s", e->busy_cls_s[SS_EDGE_LOADC]);
    ss_run_result_extra(r, "busy_exec_conv_s", e->busy_cls_s[SS_EDGE_CONV]);
    ss_run_result_extra(r, "busy_exec_fc_s", e->busy_cls_s[SS_EDGE_FC]);
    ss_run_result_extra(r, "makespan_s", end);
    ss_run_result_extra(r, "forced_starts", (double)e->forced);
}

static void stats_free(ss_task_stats *t)
{
    free(t->lat_hist);
    free(t->queue_hist);
}

char *ss_edge_world_check(const ss_edge_world *e)
{
    if (e->jobs_in_flight || e->nact || e->busy || e->nready)
        return ss_xasprintf("edge device: %llu jobs, %u networks, %u busy workers, %u ready tasks left after the run",
                            (unsigned long long)e->jobs_in_flight, e->nact, e->busy, e->nready);
    if (e->used_true != 0 || e->used_est != 0)
        return ss_xasprintf("edge device: %.9g bytes (estimate %.9g) still reserved after the run", e->used_true,
                            e->used_est);
    if (ss_flownet_active(e->cnet)) return ss_xasprintf("edge device: %zu tasks still on the compute net", ss_flownet_active(e->cnet));
    return NULL;
}

void ss_edge_world_free(ss_edge_world *e)
{
    if (!e) return;
    /* Networks and jobs still in flight (a run cut short): free through the active list. */
    for (uint32_t i = 0; i < e->nact; i++) {
        free(e->act[i]->t);
        free(e->act[i]);
    }
    if (e->types)
        for (size_t i = 0; i < e->cfg->nnets; i++) stats_free(&e->types[i]);
    free(e->types);
    if (e->jobstat.lat_hist) stats_free(&e->jobstat);
    free(e->run);
    free(e->ready);
    free(e->rview);
    free(e->act);
    free(e->netv);
    free(e->pickbuf);
    if (e->cnet) ss_flownet_free(e->cnet);
    if (e->pl.pol && e->pl.pol->fini && e->state) e->pl.pol->fini(e->state);
    if (e->pl.handle) ss_plugin_unload(&e->pl);
    if (e->pol_rng) gsl_rng_free(e->pol_rng);
    if (e->iat_rng) gsl_rng_free(e->iat_rng);
    if (e->mix_rng) gsl_rng_free(e->mix_rng);
    free(e);
}
