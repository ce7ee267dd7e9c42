/* autoscale.c: the autoscaler (scenario `autoscaling:`, docs/autoscaling.md).
 *
 * Every period_s, for each autoscaled model (one whose replicas pull from a
 * shared queue), the autoscaler plugin gets a view (policy.h,
 * ss_autoscale_view) and answers how many replicas the model should have.
 * With `cat:`, Flashpoint's categorisation gates the answer: a scale-up
 * only when the up replicas' service rate mu = up / mean execution time is
 * below lambda - rho_L (lambda: the arrival rate over the shortest
 * window), a scale-down only when mu is above lambda + rho_H, otherwise
 * the count stays (FP §2.7, eq. 4.12 as consistently read).
 * The answer is clamped to [min_replicas, max_replicas] and to the model's
 * own cap (per_model's max_replicas); a scale-down is
 * held back to the highest answer of the last stabilization_s (the
 * Kubernetes HPA's scale-down stabilisation); it takes effect
 * decision_delay_s later.  Then:
 *  - more replicas: start them on the model's deployment entries, first fit
 *    in entry order, on devices with a free slot (a GPU holds one replica, a
 *    CPU as many as its cores, counting every model's live instances);
 *    each is up after its entry's startup_s;
 *  - fewer: stop starting ones first (newest first), then drain idle ones
 *    (idle longest first), then busy ones (newest first).
 * The ticks keep going while anything else is pending or a request waits,
 * so a model scaled to zero with requests queued is scaled up again, and a
 * drained run ends.
 *
 * Measurements (per model): arrivals, queue waits (the oldest waiting, and
 * the mean of those that started service in the last period), the
 * time-integrals of queued and busy requests, completions; per window the
 * mean and a quantile of the per-period arrival rates and the mean number
 * of requests in flight. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "input/scenario_deploy.h"
#include "serve/serve.h"
#include "elastic/elastic.h"

typedef struct ss_as_model {
    uint32_t model;
    /* since the last tick */
    uint64_t arrived, started, done;
    double wait_sum_s;
    /* the queue's integral, and its oldest request (a ring of enqueue times by seq) */
    uint32_t queued;
    double qarea_s, qchanged_s;
    double *qt;               /* enqueue time by seq, NAN once dequeued */
    uint64_t qbase, qend;     /* seqs in [qbase, qend) are in the ring */
    size_t qcap;              /* a power of two */
    /* per-period history for the windows: arrivals, in-flight area */
    double *hist_arr, *hist_area;
    size_t nhist, hist_at;    /* ring of nhist periods, next slot */
    uint64_t periods;
    double busy_area_prev_s, up_area_prev_s;
    /* decisions */
    double *past_desired;     /* ring over the stabilisation window, one per tick */
    size_t npast, past_at;
    double *idle;             /* scratch for the view */
    uint32_t idle_cap;
    double last_rate_rps;     /* the shortest window's arrival rate at the last tick (partitioning's E(x)) */
    double apply_s;           /* when its last delayed decision applies (-inf: none yet) */
    uint64_t tokens_prev;     /* an LLM model's output tokens at the last tick */
    void *own_state;          /* the policy with the model's own parameters (per_model:), or NULL */
} ss_as_model;

typedef struct ss_autoscaler {
    ss_world *w;
    const ss_autoscale_cfg *cfg;
    ss_plugin pl;
    void *state;
    gsl_rng *rng;
    ss_as_model *m;           /* per autoscaled model */
    size_t nm;
    double last_tick_s;
    int changed;              /* this tick started or stopped a replica */
} ss_autoscaler;

/* ---- measurements, called from serve.c --------------------------------------- */

static void q_mark(ss_as_model *a, double now)
{
    a->qarea_s += (double)a->queued * (now - a->qchanged_s);
    a->qchanged_s = now;
}

void ss_as_arrive(ss_group *g) { g->as->arrived++; }

void ss_as_enqueue(ss_group *g, double now, uint64_t seq, double enqueued_s)
{
    ss_as_model *a = g->as;
    q_mark(a, now);
    a->queued++;
    if (a->qend == a->qbase) a->qbase = a->qend = seq;
    if (seq - a->qbase + 1 > a->qcap) { /* grow the ring, keeping positions by seq */
        size_t cap = a->qcap ? 2 * a->qcap : 64;
        while (seq - a->qbase + 1 > cap) cap *= 2;
        double *qt = ss_xmalloc(cap * sizeof *qt);
        for (uint64_t s = a->qbase; s < a->qend; s++) qt[s & (cap - 1)] = a->qt[s & (a->qcap - 1)];
        free(a->qt);
        a->qt = qt;
        a->qcap = cap;
    }
    for (uint64_t s = a->qend; s < seq; s++) a->qt[s & (a->qcap - 1)] = NAN; /* not ours: never waits */
    a->qt[seq & (a->qcap - 1)] = enqueued_s;
    a->qend = seq + 1;
}

void ss_as_dequeue(ss_group *g, double now, uint64_t seq)
{
    ss_as_model *a = g->as;
    q_mark(a, now);
    a->queued--;
    if (seq >= a->qbase && seq < a->qend) a->qt[seq & (a->qcap - 1)] = NAN;
    while (a->qbase < a->qend && isnan(a->qt[a->qbase & (a->qcap - 1)])) a->qbase++;
}

void ss_as_start(ss_group *g, double wait_s)
{
    g->as->started++;
    g->as->wait_sum_s += wait_s;
}

void ss_as_done(ss_group *g) { g->as->done++; }

/* ---- the view -------------------------------------------------------------------- */

static int by_longer(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

static void view_of(ss_autoscaler *as, ss_as_model *a, double now, ss_autoscale_view *v)
{
    ss_world *w = as->w;
    const ss_autoscale_cfg *c = as->cfg;
    const ss_group *g = &w->groups[a->model];
    memset(v, 0, sizeof *v);
    v->model = a->model;
    v->now_s = now;
    v->period_s = c->period_s;
    v->queued = a->queued;
    v->oldest_wait_s = a->qbase < a->qend ? now - a->qt[a->qbase & (a->qcap - 1)] : 0;
    v->mean_wait_s = a->started ? a->wait_sum_s / (double)a->started : 0;
    /* this period into the history */
    q_mark(a, now);
    double busy_s, up_s;
    ss_inst_areas(w, a->model, now, &busy_s, &up_s);
    double dbusy = busy_s - a->busy_area_prev_s, dup = up_s - a->up_area_prev_s;
    a->hist_arr[a->hist_at] = (double)a->arrived;
    a->hist_area[a->hist_at] = a->qarea_s + dbusy;
    a->hist_at = (a->hist_at + 1) % a->nhist;
    a->periods++;
    v->nwindows = c->nwindows;
    v->rate_quantile = c->rate_quantile;
    double *rates = ss_xmalloc(a->nhist * sizeof *rates);
    for (uint32_t k = 0; k < c->nwindows; k++) {
        size_t n = (size_t)ceil(c->windows_s[k] / c->period_s - 1e-9);
        if (n > a->periods) n = a->periods; /* the run is younger than the window */
        if (n > a->nhist) n = a->nhist;
        double arr = 0, area = 0;
        for (size_t i = 0; i < n; i++) {
            size_t at = (a->hist_at + a->nhist - 1 - i) % a->nhist;
            arr += a->hist_arr[at];
            area += a->hist_area[at];
            rates[i] = a->hist_arr[at] / c->period_s;
        }
        double span = (double)n * c->period_s;
        v->window_s[k] = c->windows_s[k];
        v->rate_rps[k] = n ? arr / span : 0;
        v->concurrency[k] = n ? area / span : 0;
        if (n) {
            qsort(rates, n, sizeof *rates, by_value);
            double pos = c->rate_quantile * (double)(n - 1);
            size_t lo = (size_t)pos;
            double f = pos - (double)lo;
            v->rate_q_rps[k] = lo + 1 < n ? rates[lo] * (1 - f) + rates[lo + 1] * f : rates[lo];
        }
    }
    free(rates);
    a->last_rate_rps = c->nwindows ? v->rate_rps[0] : 0;
    v->in_flight = a->queued;
    uint32_t nidle = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const ss_instance *in = g->members[i];
        v->in_flight += in->busy;
        switch (in->state) {
        case SS_INST_STARTING: v->starting++; break;
        case SS_INST_UP:
            v->up++;
            if (in->busy) v->busy++;
            else {
                if (nidle == a->idle_cap) {
                    a->idle_cap = a->idle_cap ? 2 * a->idle_cap : 16;
                    a->idle = ss_xrealloc(a->idle, a->idle_cap * sizeof *a->idle);
                }
                a->idle[nidle++] = now - in->idle_since_s;
            }
            break;
        case SS_INST_DRAINING: v->draining++; break;
        default: break;
        }
    }
    if (nidle) qsort(a->idle, nidle, sizeof *a->idle, by_longer);
    v->idle_s = a->idle;
    v->nidle = nidle;
    v->mean_exec_s = g->mean_s;
    /* Over the period; replicas that came up only now: what they do now. */
    v->util = dup > 1e-9 * c->period_s ? dbusy / dup : v->up ? (double)v->busy / v->up : 0;
    v->invocations_per_replica = dup > 0 ? (double)a->done / (dup / c->period_s) : 0;
    v->replica_s = ss_instance_seconds(w, a->model, 0, now);
    if (g->llm) {
        uint64_t tok = w->hooks.llm_tokens(w, a->model);
        v->tokens_per_s = (double)(tok - a->tokens_prev) / c->period_s;
        a->tokens_prev = tok;
        v->kv_use = w->hooks.llm_kv_use(w, a->model);
    }
    /* the next period starts */
    a->busy_area_prev_s = busy_s;
    a->up_area_prev_s = up_s;
    a->arrived = a->started = a->done = 0;
    a->wait_sum_s = a->qarea_s = 0;
}

/* ---- acting on a decision ------------------------------------------------------- */

/* Live instances of any model on device d. */
static uint32_t on_device(const ss_world *w, uint32_t d)
{
    uint32_t n = 0;
    for (size_t i = 0; i < w->ninst; i++)
        n += w->inst[i]->device == d && w->inst[i]->state != SS_INST_STOPPED && w->inst[i]->state != SS_INST_FAILED;
    return n;
}

/* Start up to k replicas of m; how many started. */
static uint32_t grow(ss_world *w, uint32_t m, uint32_t k)
{
    const ss_scenario *sc = w->sc;
    double now = ss_now(w->eng);
    if (w->cs && ss_cs_places(w, m)) return ss_cs_grow(w, m, k); /* cold starts where the placement plugin says */
    uint32_t started = 0;
    for (size_t d = 0; d < sc->ndeploys && k; d++) {
        const ss_deploy_cfg *dc = &sc->deploys[d];
        if (dc->model != m) continue;
        double slots = ss_device_capacity(&sc->devices[dc->device]);
        while (k && (double)on_device(w, dc->device) < slots) {
            ss_instance *in = ss_inst_create(w, (uint32_t)d, now);
            if (dc->startup_s > 0) ss_inst_up_at(w, in, now + dc->startup_s);
            else ss_inst_up(w, in);
            k--;
            started++;
        }
    }
    return started;
}

double ss_as_rate_rps(const ss_group *g) { return g->as ? g->as->last_rate_rps : 0; }

static void shrink(ss_world *w, uint32_t m, uint32_t k)
{
    ss_group *g = &w->groups[m];
    if (w->cs && ss_cs_parts(w, m)) k -= ss_pp_shrink(w, m, k); /* partitioned replicas first (FP §2.7) */
    /* starting ones, newest first */
    for (uint32_t i = g->n; i-- > 0 && k;)
        if (g->members[i]->state == SS_INST_STARTING && !g->members[i]->pp) {
            ss_inst_drain(w, g->members[i]);
            k--;
        }
    /* idle ones, idle longest first */
    while (k) {
        ss_instance *best = NULL;
        for (uint32_t i = 0; i < g->n; i++) {
            ss_instance *in = g->members[i];
            if (in->state == SS_INST_UP && !in->busy && !in->pp && (!best || in->idle_since_s < best->idle_since_s))
                best = in;
        }
        if (!best) break;
        ss_inst_drain(w, best);
        k--;
    }
    /* busy ones, newest first */
    for (uint32_t i = g->n; i-- > 0 && k;)
        if (g->members[i]->state == SS_INST_UP && !g->members[i]->pp) {
            ss_inst_drain(w, g->members[i]);
            k--;
        }
}

static void apply_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    ss_world *w = ctx;
    uint32_t m = (uint32_t)(arg >> 32), want = (uint32_t)arg;
    const ss_group *g = &w->groups[m];
    uint32_t have = 0;
    for (uint32_t i = 0; i < g->n; i++)
        have += g->members[i]->state == SS_INST_STARTING || g->members[i]->state == SS_INST_UP;
    if (w->tl && want != have) {
        char *msg = ss_xasprintf("scale %s %u -> %u", w->sc->models[m].name, have, want);
        ss_tl_note(w, msg);
        free(msg);
    }
    if (want > have) w->autoscaler->changed |= grow(w, m, want - have) > 0;
    else if (want < have) {
        shrink(w, m, have - want);
        w->autoscaler->changed = 1;
    }
}

/* ---- the tick ---------------------------------------------------------------------- */

static int waiting(const ss_autoscaler *as)
{
    for (size_t i = 0; i < as->nm; i++) {
        const ss_group *g = &as->w->groups[as->m[i].model];
        if (as->m[i].queued) return 1;
        for (uint32_t k = 0; k < g->n; k++)
            if (g->members[k]->busy || g->members[k]->state == SS_INST_STARTING) return 1;
    }
    return 0;
}

/* The first model with requests waiting and no replica starting, up or
 * draining, or NULL. */
static const ss_as_model *stalled(const ss_autoscaler *as)
{
    for (size_t i = 0; i < as->nm; i++) {
        const ss_group *g = &as->w->groups[as->m[i].model];
        if (!as->m[i].queued) continue;
        int alive = 0;
        for (uint32_t k = 0; k < g->n; k++)
            alive |= g->members[k]->state == SS_INST_STARTING || g->members[k]->state == SS_INST_UP ||
                     g->members[k]->state == SS_INST_DRAINING;
        if (!alive) return &as->m[i];
    }
    return NULL;
}

static void tick(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    ss_autoscaler *as = ctx;
    ss_world *w = as->w;
    const ss_autoscale_cfg *c = as->cfg;
    double now = ss_now(eng);
    as->changed = 0;
    for (size_t i = 0; i < as->nm; i++) {
        ss_as_model *a = &as->m[i];
        ss_autoscale_view v;
        ss_inst_retire(w, a->model);
        view_of(as, a, now, &v);
        uint32_t want = as->pl.pol->ops.autoscaler.desired(a->own_state ? a->own_state : as->state, &v);
        if (c->cat) { /* CAT (FP §2.7, the consistent reading of eq. 4.12) over the shortest window */
            double lambda = v.rate_rps[0], mu = v.mean_exec_s > 0 ? v.up / v.mean_exec_s : INFINITY;
            uint32_t cur = v.starting + v.up;
            int up = mu < lambda - c->cat_low_rps, down = mu > lambda + c->cat_high_rps;
            if ((want > cur && !up && !(cur == 0 && v.queued)) || (want < cur && !down)) want = cur;
        }
        if (want < c->min_replicas) want = c->min_replicas;
        if (want > c->max_replicas) want = c->max_replicas;
        if (c->max_replicas_m[a->model] && want > c->max_replicas_m[a->model]) want = c->max_replicas_m[a->model];
        /* Scale down no lower than the highest answer of the window. */
        uint32_t held = want;
        for (size_t k = 0; k < a->npast; k++)
            if (a->past_desired[k] > held) held = (uint32_t)a->past_desired[k];
        if (a->npast) {
            a->past_desired[a->past_at] = want;
            a->past_at = (a->past_at + 1) % a->npast;
        }
        uint32_t have = v.starting + v.up;
        if (want < have) want = held < have ? held : have;
        /* Nothing to change, and no earlier decision still to apply: nothing to
         * schedule (an apply each tick would keep a drained run alive). */
        if (want == have && !(a->apply_s >= now)) continue;
        uint64_t key = (uint64_t)a->model << 32 | want;
        if (c->decision_delay_s > 0) {
            a->apply_s = now + c->decision_delay_s;
            ss_schedule(eng, a->apply_s, apply_ev, w, key);
        } else {
            apply_ev(eng, w, key);
        }
    }
    as->last_tick_s = now;
    w->daemons--; /* this tick has fired */
    /* Stalled: requests wait for a model with no replica, and nothing else
     * will happen - not even GPUs freed by this tick's scale-downs, which the
     * next tick could give it. */
    const ss_as_model *stuck = ss_world_active(w) || as->changed ? NULL : stalled(as);
    if (stuck) { /* nothing will ever serve what waits */
        free(w->failed);
        w->failed = ss_xasprintf("autoscaler '%s' keeps model '%s' at 0 replicas with %u requests waiting at "
                                  "%g s and nothing else to happen: the run could not end",
                                  c->policy.name, w->sc->models[stuck->model].name, stuck->queued, now);
        return;
    }
    if (ss_world_active(w) || waiting(as)) {
        ss_schedule(eng, now + c->period_s, tick, as, 0);
        w->daemons++;
    }
}

/* ---- building ----------------------------------------------------------------------- */

int ss_autoscaler_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_autoscale_cfg *c = sc->autoscale;
    ss_autoscaler *as = ss_xcalloc(1, sizeof *as);
    as->w = w;
    as->cfg = c;
    w->autoscaler = as;
    w->hooks.as_arrive = ss_as_arrive;
    w->hooks.as_enqueue = ss_as_enqueue;
    w->hooks.as_dequeue = ss_as_dequeue;
    w->hooks.as_start = ss_as_start;
    w->hooks.as_done = ss_as_done;
    if (ss_world_load_policy(w, &c->policy, SS_KIND_AUTOSCALER, &as->pl, &as->state, &as->rng, "policy/autoscaler",
                             err) < 0)
        return -1;
    as->m = ss_xcalloc(sc->nmodels, sizeof *as->m);
    size_t nhist = (size_t)ceil(c->windows_s[c->nwindows - 1] / c->period_s - 1e-9);
    if (nhist < 1) nhist = 1;
    size_t npast = (size_t)ceil(c->stabilization_s / c->period_s - 1e-9);
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        if (!c->models[m]) continue;
        ss_as_model *a = &as->m[as->nm++];
        a->model = m;
        a->apply_s = -INFINITY;
        a->nhist = nhist;
        a->hist_arr = ss_xcalloc(nhist, sizeof *a->hist_arr);
        a->hist_area = ss_xcalloc(nhist, sizeof *a->hist_area);
        a->npast = npast;
        a->past_desired = ss_xcalloc(npast + 1, sizeof *a->past_desired);
        w->groups[m].as = a;
        if (c->per_model[m].name && ss_world_policy_init(w, &as->pl, &c->per_model[m], as->rng, &a->own_state, err) < 0)
            return -1;
    }
    ss_schedule(w->eng, c->period_s, tick, as, 0);
    w->daemons++;
    return 0;
}

void ss_autoscaler_free(ss_world *w)
{
    ss_autoscaler *as = w->autoscaler;
    if (!as) return;
    for (size_t i = 0; i < as->nm; i++) {
        ss_as_model *a = &as->m[i];
        free(a->qt);
        free(a->hist_arr);
        free(a->hist_area);
        free(a->past_desired);
        free(a->idle);
        if (a->own_state && as->pl.pol->fini) as->pl.pol->fini(a->own_state);
    }
    free(as->m);
    if (as->pl.pol && as->pl.pol->fini && as->state) as->pl.pol->fini(as->state);
    if (as->pl.handle) ss_plugin_unload(&as->pl);
    if (as->rng) gsl_rng_free(as->rng);
    free(as);
    w->autoscaler = NULL;
}
