/* ensemble.c: ensemble serving (docs/ensembles.md, seed E §1.3-1.7): the
 * segment broadcaster, one FIFO queue of segment ids per member, one worker
 * per non-zero entry of the allocation matrix (pull a segment, run its
 * batches, send its predictions), the accumulator's fork-join count, and
 * co-located workers sharing their device on a compute net (core/flow.h)
 * under the interference law.  Runs on the world's engine. */
#include "ensemble/ensemble.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/dist.h"
#include "core/engine.h"
#include "core/flow.h"
#include "core/ring.h"
#include "core/metrics.h"
#include "core/rng.h"
#include "input/ensemble_cfg.h"
#include "serve/serve.h"

typedef struct ens_req {
    uint64_t id;
    double arrival_s;
    double first_s;       /* its first batch started (NAN before) */
    uint64_t images;
    uint64_t left;        /* prediction messages still to come: M x segments at the start */
    int measured;
    struct ens_req *prev, *next; /* in the world's list of requests alive */
} ens_req;

typedef struct ens_item {
    ens_req *r;
    uint64_t seg;
} ens_item;

/* A ring of segment ids (a member's input queue). */
typedef struct ens_queue {
    ens_item *v;
    size_t head, n, cap;
} ens_queue;

/* A ring of worker indices (a member's idle workers, idle longest first). */
typedef struct ens_idle {
    uint32_t *v;
    uint32_t head, n, cap;
} ens_idle;

typedef struct ens_worker {
    struct ss_ens_world *e;
    uint32_t dev, member, batch;
    const ss_ens_curve *curve;
    double full_s;        /* latency of a full batch, the device to itself */
    int busy;
    ens_item cur;         /* the segment it holds */
    uint32_t len, done;   /* its images, those predicted so far */
    uint32_t running;     /* images of the batch on the device */
    uint64_t batches;
} ens_worker;

struct ss_ens_world {
    ss_world *w;
    const ss_scenario *sc;
    const ss_ensemble_cfg *cfg;
    ss_engine *eng;
    ens_worker *wk;
    uint32_t nwk;
    ens_queue *q;         /* per member */
    ens_idle *idle;       /* per member */
    ss_flownet *cnet;     /* one link per device */
    uint32_t *running;    /* per device: batches on it now */
    double *busy_since_s, *busy_s; /* per device: running > 0 since; seconds busy in the measured window */
    gsl_rng *arr_rng;     /* "ensemble/arrivals" (deploy) */
    ens_req *alive;       /* requests in flight (freed with the world if a run is cut short) */
    uint64_t next_id, in_flight, peak;
    uint64_t images_done, messages, batches; /* measured images; every message and batch */
    ss_task_stats stats;
    FILE *trace;
};

static const char *const extra_cols[] = {"throughput_img_s", "makespan_s", "images", "predictions", "batches", NULL};

/* ---- queues ------------------------------------------------------------------ */

static void q_push(ens_queue *q, ens_item it)
{
    ss_ring_grow((void **)&q->v, sizeof *q->v, &q->head, q->n, &q->cap, 64);
    q->v[(q->head + q->n++) % q->cap] = it;
}

static ens_item q_pop(ens_queue *q)
{
    ens_item it = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return it;
}

static void idle_push(ens_idle *q, uint32_t k)
{
    if (q->n == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 8;
        uint32_t *v = ss_xcalloc(cap, sizeof *v);
        for (uint32_t i = 0; i < q->n; i++) v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n++) % q->cap] = k;
}

static uint32_t idle_pop(ens_idle *q)
{
    uint32_t k = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return k;
}

/* ---- the interference law ------------------------------------------------- */

/* k batches on one device progress at 1 / (1 + alpha (k - 1)) each: the
 * device's capacity on the compute net is k / (1 + alpha (k - 1)) device-
 * seconds per second, shared equally by max-min (docs/ensembles.md). */
static void device_load(ss_ens_world *e, uint32_t d, int delta, double now)
{
    uint32_t k = e->running[d];
    uint32_t nk = delta > 0 ? k + 1 : k - 1;
    if (k == 0 && nk > 0) e->busy_since_s[d] = now;
    if (k > 0 && nk == 0) {
        double from = e->busy_since_s[d] > e->w->warmup_end_s ? e->busy_since_s[d] : e->w->warmup_end_s;
        if (now > from) e->busy_s[d] += now - from;
    }
    e->running[d] = nk;
    double alpha = e->cfg->interference;
    if (nk > 0 && alpha != 1) /* alpha = 1: one device-second per second whatever k */
        ss_flownet_set_capacity(e->cnet, d, 8.0 * nk / (1 + alpha * (nk - 1)));
}

/* ---- workers ------------------------------------------------------------------ */

static void batch_done(ss_engine *eng, void *ctx, ss_flow_id id, double now);

static void batch_start(ss_ens_world *e, uint32_t k)
{
    ens_worker *wk = &e->wk[k];
    uint32_t n = wk->len - wk->done;
    if (n > wk->batch) n = wk->batch;
    wk->running = n;
    double work_s = n == wk->batch ? wk->full_s : ss_ens_latency_s(wk->curve, n);
    device_load(e, wk->dev, +1, ss_now(e->eng));
    ss_flow_start(e->cnet, &wk->dev, 1, work_s, NULL, batch_done, &e->wk[k]);
}

/* Worker k takes segment it. */
static void take(ss_ens_world *e, uint32_t k, ens_item it)
{
    ens_worker *wk = &e->wk[k];
    wk->busy = 1;
    wk->cur = it;
    wk->len = ss_ens_segment_len(it.r->images, e->cfg->segment_images, it.seg);
    wk->done = 0;
    if (isnan(it.r->first_s)) it.r->first_s = ss_now(e->eng);
    batch_start(e, k);
}

static void request_done(ss_ens_world *e, ens_req *r, double now)
{
    ss_world *w = e->w;
    double lat = now - r->arrival_s;
    if (r->measured) {
        ss_task_stats *s = &e->stats;
        s->completed++;
        ss_stat_add(&s->latency, lat);
        ss_hist_add(s->lat_hist, lat);
        ss_stat_add(&s->queueing, r->first_s - r->arrival_s);
        ss_hist_add(s->queue_hist, r->first_s - r->arrival_s);
        if (r->first_s > r->arrival_s) s->waited++;
        e->images_done += r->images;
        w->last_completion_s = now;
    }
    ss_world_count_done(w, now);
    w->last_done_s = now;
    if (w->req_csv) {
        ss_csv_field(w->req_csv, w->sc->variant);
        fprintf(w->req_csv, ",%u,%llu,ensemble,ensemble,%.9f,%.9f,%.9f,%.9f,0,%d,\n", w->rep,
                (unsigned long long)r->id, r->arrival_s, now, lat * 1e3, (r->first_s - r->arrival_s) * 1e3,
                r->measured);
    }
    e->in_flight--;
    if (r->prev) r->prev->next = r->next;
    else e->alive = r->next;
    if (r->next) r->next->prev = r->prev;
    free(r);
}

static void trace(ss_ens_world *e, double now, const char *what, const ens_worker *wk, uint32_t images)
{
    fprintf(e->trace, "%.9f,%s,%u,%s,%s,%llu,%llu,%u\n", now, what, (unsigned)(wk - e->wk),
            e->cfg->members[wk->member].name, e->sc->devices[wk->dev].name, (unsigned long long)wk->cur.r->id,
            (unsigned long long)wk->cur.seg, images);
}

static void batch_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    ens_worker *wk = ctx;
    ss_ens_world *e = wk->e;
    uint32_t k = (uint32_t)(wk - e->wk);
    (void)eng;
    (void)id;
    device_load(e, wk->dev, -1, now);
    wk->done += wk->running;
    wk->batches++;
    e->batches++;
    if (e->trace) trace(e, now, "batch", wk, wk->running);
    if (wk->done < wk->len) {
        batch_start(e, k);
        return;
    }
    /* The segment's predictions go to the accumulator (E §1.5). */
    ens_req *r = wk->cur.r;
    e->messages++;
    if (e->trace) trace(e, now, "predictions", wk, wk->len);
    wk->busy = 0;
    wk->cur.r = NULL;
    if (--r->left == 0) request_done(e, r, now);
    ens_queue *q = &e->q[wk->member];
    if (q->n) take(e, k, q_pop(q));
    else idle_push(&e->idle[wk->member], k);
}

/* ---- requests ------------------------------------------------------------------ */

/* The broadcaster (E §1.3): every segment id into every member's queue, in
 * member order then segment order; a free worker takes one at once. */
static void arrive(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_ens_world *e = ctx;
    ss_world *w = e->w;
    const ss_ensemble_cfg *c = e->cfg;
    const ss_scenario *sc = e->sc;
    double now = ss_now(eng);
    (void)arg;
    if (c->mode == SS_ENS_DEPLOY && (now >= sc->duration_s || e->next_id >= sc->max_requests)) return;
    ens_req *r = ss_xcalloc(1, sizeof *r);
    r->id = e->next_id++;
    r->arrival_s = now;
    r->first_s = NAN;
    r->images = c->mode == SS_ENS_BENCHMARK ? c->images : c->images_per_request;
    uint64_t nseg = ss_ens_segments(r->images, c->segment_images);
    r->left = nseg * c->nmembers;
    r->measured = r->id >= sc->warmup_requests && now >= sc->warmup_s;
    if (r->measured) e->stats.arrived++;
    r->next = e->alive;
    if (e->alive) e->alive->prev = r;
    e->alive = r;
    if (++e->in_flight > e->peak) e->peak = e->in_flight;
    w->peak_in_flight = e->peak;
    if (c->mode == SS_ENS_DEPLOY) { /* the next arrival first, so the stream's draws follow arrivals only */
        double gap = ss_dist_sample(&c->interarrival, e->arr_rng);
        if (e->next_id < sc->max_requests && now + gap < sc->duration_s) ss_schedule(eng, now + gap, arrive, e, 0);
    }
    for (uint32_t m = 0; m < c->nmembers; m++)
        for (uint64_t s = 0; s < nseg; s++) {
            ens_item it = {.r = r, .seg = s};
            if (e->idle[m].n) take(e, idle_pop(&e->idle[m]), it);
            else q_push(&e->q[m], it);
        }
}

/* ---- the world ------------------------------------------------------------------ */

ss_ens_world *ss_ens_world_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_ensemble_cfg *c = sc->ensemble;
    (void)err;
    ss_ens_world *e = ss_xcalloc(1, sizeof *e);
    e->w = w;
    e->sc = sc;
    e->cfg = c;
    e->eng = w->eng;
    uint32_t d = c->ndevices, m = c->nmembers;
    double *cap = ss_xcalloc(d, sizeof *cap);
    for (uint32_t i = 0; i < d; i++) cap[i] = 8.0; /* one device-second per second; x8: a second of work is a byte */
    e->cnet = ss_flownet_new(e->eng, d, cap);
    free(cap);
    e->running = ss_xcalloc(d, sizeof *e->running);
    e->busy_since_s = ss_xcalloc(d, sizeof *e->busy_since_s);
    e->busy_s = ss_xcalloc(d, sizeof *e->busy_s);
    e->q = ss_xcalloc(m, sizeof *e->q);
    e->idle = ss_xcalloc(m, sizeof *e->idle);
    /* Workers in matrix order (device by device); each member's idle ring in that order. */
    for (uint32_t i = 0; i < d * m; i++) e->nwk += c->matrix[i] != 0;
    e->wk = ss_xcalloc(e->nwk, sizeof *e->wk);
    uint32_t k = 0;
    for (uint32_t i = 0; i < d; i++)
        for (uint32_t j = 0; j < m; j++) {
            uint32_t b = c->matrix[i * m + j];
            if (!b) continue;
            ens_worker *wk = &e->wk[k];
            *wk = (ens_worker){.e = e, .dev = i, .member = j, .batch = b, .curve = c->curve[i * m + j]};
            wk->full_s = ss_ens_latency_s(wk->curve, b);
            idle_push(&e->idle[j], k++);
        }
    ss_task_stats_init(&e->stats);
    if (c->mode == SS_ENS_DEPLOY) e->arr_rng = ss_rng_stream(sc->seed, w->rep, "ensemble/arrivals");
    for (size_t i = 0; extra_cols[i]; i++) ss_world_declare_extra(w, extra_cols[i]);
    if (c->mode == SS_ENS_BENCHMARK) ss_schedule(e->eng, 0, arrive, e, 0);
    else ss_schedule(e->eng, ss_dist_sample(&c->interarrival, e->arr_rng), arrive, e, 0);
    return e;
}

void ss_ens_world_trace(ss_world *w, FILE *fp)
{
    if (w->ens) w->ens->trace = fp;
}

void ss_ens_world_result(const ss_ens_world *e, ss_run_result *r)
{
    const ss_ensemble_cfg *c = e->cfg;
    r->tasks = ss_xcalloc(1, sizeof *r->tasks);
    ss_task_result_fill(&e->stats, "all", r->window_s, &r->tasks[r->ntasks++]);
    r->ndevices = c->ndevices;
    r->util = ss_xcalloc(c->ndevices, sizeof *r->util);
    double sum = 0;
    uint32_t held = 0;
    for (uint32_t d = 0; d < c->ndevices; d++) {
        r->util[d] = r->window_s > 0 ? e->busy_s[d] / r->window_s : 0;
        int has = 0;
        for (uint32_t m = 0; m < c->nmembers; m++) has |= c->matrix[d * c->nmembers + m] != 0;
        if (has) {
            sum += r->util[d];
            held++;
        }
    }
    r->util_mean = held ? sum / held : 0;
    ss_run_result_extra(r, "throughput_img_s", r->window_s > 0 ? (double)e->images_done / r->window_s : 0);
    ss_run_result_extra(r, "makespan_s", e->w->last_done_s);
    ss_run_result_extra(r, "images", (double)e->images_done);
    ss_run_result_extra(r, "predictions", (double)e->messages);
    ss_run_result_extra(r, "batches", (double)e->batches);
}

char *ss_ens_world_check(const ss_ens_world *e)
{
    if (e->in_flight) return ss_xasprintf("ensemble: %llu requests left after the run", (unsigned long long)e->in_flight);
    for (uint32_t m = 0; m < e->cfg->nmembers; m++)
        if (e->q[m].n)
            return ss_xasprintf("ensemble: the queue of member '%s' holds %zu segments after the run",
                                e->cfg->members[m].name, e->q[m].n);
    for (uint32_t k = 0; k < e->nwk; k++)
        if (e->wk[k].busy) return ss_xasprintf("ensemble: worker %u is busy after the run", k);
    for (uint32_t d = 0; d < e->cfg->ndevices; d++)
        if (e->running[d]) return ss_xasprintf("ensemble: %u batches on device %u after the run", e->running[d], d);
    if (ss_flownet_active(e->cnet)) return ss_xasprintf("ensemble: %zu batches still on the compute net", ss_flownet_active(e->cnet));
    return NULL;
}

void ss_ens_world_free(ss_ens_world *e)
{
    if (!e) return;
    while (e->alive) { /* a run cut short */
        ens_req *r = e->alive;
        e->alive = r->next;
        free(r);
    }
    for (uint32_t m = 0; m < e->cfg->nmembers; m++) {
        free(e->q[m].v);
        free(e->idle[m].v);
    }
    if (e->cnet) ss_flownet_free(e->cnet);
    free(e->q);
    free(e->idle);
    free(e->wk);
    free(e->running);
    free(e->busy_since_s);
    free(e->busy_s);
    free(e->stats.lat_hist);
    free(e->stats.queue_hist);
    if (e->arr_rng) gsl_rng_free(e->arr_rng);
    free(e);
}
