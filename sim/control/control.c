/* control.c: time-shared devices and controlled containers (`dispatch:`
 * and `control:`, docs/control.md), ROMA's serving model (seed roma.md)
 * built on the substrate's shared queues and compute net.
 *
 * Time-shared device (R §1.2: one GPU container holding every model, one
 * request at a time).  Each model has one FIFO executable there behind its
 * shared queue.  The device is a gate: while one executable serves, the
 * others wait.  When it frees (and at start), and only if some queue of its
 * models holds a request, the device-scheduler plugin picks the model whose
 * head it serves next (R Algorithm 1 is `roma`).  A request that arrives
 * while a time-shared device of its model is free joins its queue and the
 * device picks at once (the idle-GPU re-trigger that R §1.3 leaves open;
 * every queue of the device's models was empty, so the pick is that
 * request, but the plugin sees every decision), before any free container.
 *
 * Controlled container (R §1.2: one CPU executable per model and worker,
 * its cores a Docker quota).  A ps instance with a cap on a CPU device
 * behind its model's shared queue; its `servers` requests at once share its
 * speed.  Its speed follows its cores c through the model's speed-up law
 * (ss_speedup: linear below one core, Amdahl above) as the capacity of its
 * link on the compute net, so a change of cores re-times the requests it
 * holds at once (core/flow.h).  Every control period each container's
 * controller (its own plugin state) is shown its model's last period (R eq.
 * 1 over every device) and asks for cores; they are clamped to [min_cores,
 * the worker's cores less the reserved], a per-worker supervisor (R §2.4,
 * supervisor.c) scales them to fit, and the controller is told the grant.
 *
 * Measurements: per model, a ring of recent completions (time, response
 * time, on a time-shared device or not) for the periods and the scheduler's
 * window; the sum of the queued requests' enqueue times (their waits);
 * response-time statistics, SLA violations in two readings (windows of
 * violation_window_s whose mean response time exceeds the SLA; requests
 * whose own does), served on time-shared devices; core-seconds per worker.
 * Requests count only after the warm-up, as everywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "input/scenario_control.h"
#include "serve/serve.h"
#include "control/supervisor.h"
#include "control/control.h"

/* A time-shared device. */
struct ss_gate {
    uint32_t device;
    uint32_t n;              /* models with an executable here */
    ss_instance **exec;      /* ... their executables, in model order */
    ss_dqueue_view *views;   /* scratch for the scheduler */
};

/* A controlled container. */
typedef struct ctl_box {
    ss_instance *in;
    void *state;             /* its controller's */
    double cores;            /* granted, now */
    double since_s;          /* cores held since */
    double core_s;           /* core-seconds up to since_s */
} ctl_box;

/* A model's completions, newest last, kept for the longest window asked. */
typedef struct ctl_model {
    double *t_s, *rt_s;
    uint8_t *gated;
    size_t head, n, cap;     /* ring */
    size_t win_n;            /* of the ring's newest entries, those in the scheduler's window ... */
    double win_sum_s;        /* ... and the sum of their response times */
    double wait_t_sum_s;     /* sum of the enqueue times of its queued requests */
    /* measured statistics */
    ss_stat rt;
    uint64_t viol_requests, viol_windows, on_gate; /* measured completions: rt.n */
    int64_t bin;             /* the violation window being filled, -1 none yet */
    double bin_sum_s;
    uint64_t bin_n;
} ctl_model;

struct ss_control {
    ss_world *w;
    const ss_control_cfg *cfg;
    ss_plugin dsched;
    void *dsched_state;
    gsl_rng *dsched_rng;
    ss_gate *gates;
    size_t ngates;
    ctl_model *m;            /* per model */
    double keep_s;           /* completions older than this are forgotten */
    ss_plugin ctlp;
    gsl_rng *ctl_rng;
    ctl_box *box;
    size_t nbox;
    double *demand, *grant;  /* scratch, per container */
    ss_control_view *views;  /* scratch, per container: what its controller was shown this tick */
};

static inline ss_control *C(ss_world *w) { return w->ctl; }

/* ---- measurements ----------------------------------------------------------- */

static void ring_push(ctl_model *cm, double t, double rt, int gated)
{
    if (cm->n == cm->cap) {
        size_t cap = cm->cap ? 2 * cm->cap : 64;
        double *t2 = ss_xmalloc(cap * sizeof *t2), *r2 = ss_xmalloc(cap * sizeof *r2);
        uint8_t *g2 = ss_xmalloc(cap);
        for (size_t i = 0; i < cm->n; i++) {
            size_t k = (cm->head + i) % (cm->cap ? cm->cap : 1);
            t2[i] = cm->t_s[k];
            r2[i] = cm->rt_s[k];
            g2[i] = cm->gated[k];
        }
        free(cm->t_s);
        free(cm->rt_s);
        free(cm->gated);
        cm->t_s = t2;
        cm->rt_s = r2;
        cm->gated = g2;
        cm->head = 0;
        cm->cap = cap;
    }
    size_t k = (cm->head + cm->n++) % cm->cap;
    cm->t_s[k] = t;
    cm->rt_s[k] = rt;
    cm->gated[k] = (uint8_t)gated;
    cm->win_n++;
    cm->win_sum_s += rt;
}

/* The i-th newest-but-(n-1-i) entry: index i from the oldest. */
static inline size_t at(const ctl_model *cm, size_t i) { return (cm->head + i) % cm->cap; }

/* Forget what is older than keep_s, and leave the scheduler's window. */
static void ring_trim(ss_control *c, ctl_model *cm, double now)
{
    while (cm->n && cm->t_s[cm->head] <= now - c->keep_s) {
        if (cm->win_n == cm->n) { /* it was still in the window */
            cm->win_n--;
            cm->win_sum_s -= cm->rt_s[cm->head];
        }
        cm->head = (cm->head + 1) % cm->cap;
        cm->n--;
    }
    while (cm->win_n && cm->t_s[at(cm, cm->n - cm->win_n)] <= now - c->cfg->window_s) {
        cm->win_sum_s -= cm->rt_s[at(cm, cm->n - cm->win_n)];
        cm->win_n--;
    }
    if (cm->win_n == 0) cm->win_sum_s = 0; /* no drift carried over */
}

/* Completions of the model in (now - span_s, now]: count, on gates, mean. */
static double period_mean(const ctl_model *cm, double now, double span_s, uint32_t *gated, uint32_t *other)
{
    double sum = 0;
    uint32_t ng = 0, no = 0;
    for (size_t i = cm->n; i-- > 0;) {
        size_t k = at(cm, i);
        if (cm->t_s[k] <= now - span_s) break;
        sum += cm->rt_s[k];
        if (cm->gated[k]) ng++;
        else no++;
    }
    if (gated) *gated = ng;
    if (other) *other = no;
    return ng + no ? sum / (ng + no) : NAN;
}

static void close_bin(const ss_world *w, ctl_model *cm, uint32_t m)
{
    double sla = w->sc->models[m].sla_s;
    if (cm->bin >= 0 && cm->bin_n && sla > 0 && cm->bin_sum_s / (double)cm->bin_n > sla) cm->viol_windows++;
    cm->bin_sum_s = 0;
    cm->bin_n = 0;
}

void ss_ctl_done(ss_world *w, const ss_instance *in, const ss_request *r, double now)
{
    ss_control *c = C(w);
    uint32_t m = in->model;
    ctl_model *cm = &c->m[m];
    double rt = now - r->created_s;
    ring_trim(c, cm, now);
    ring_push(cm, now, rt, in->gate != NULL);
    if (!r->measured) return;
    ss_stat_add(&cm->rt, rt);
    cm->on_gate += in->gate != NULL;
    double sla = w->sc->models[m].sla_s;
    cm->viol_requests += sla > 0 && rt > sla;
    int64_t b = (int64_t)floor(now / c->cfg->violation_window_s);
    if (b != cm->bin) {
        close_bin(w, cm, m);
        cm->bin = b;
    }
    cm->bin_sum_s += rt;
    cm->bin_n++;
}

void ss_ctl_enqueue(ss_world *w, uint32_t m, double enqueued_s) { C(w)->m[m].wait_t_sum_s += enqueued_s; }

void ss_ctl_dequeue(ss_world *w, uint32_t m, double enqueued_s)
{
    ctl_model *cm = &C(w)->m[m];
    cm->wait_t_sum_s -= enqueued_s;
    if (w->groups[m].queued == 0) cm->wait_t_sum_s = 0;
}

/* ---- time-shared devices ------------------------------------------------------------ */

/* Busy while one of its executables serves (no flag to go stale when one fails). */
static int gate_busy(const ss_gate *gt)
{
    for (uint32_t k = 0; k < gt->n; k++)
        if (gt->exec[k]->busy) return 1;
    return 0;
}

/* The gate's executable `in` serves the head of its model's queue. */
static void gate_serve(ss_world *w, ss_instance *in, double now)
{
    ss_group *g = &w->groups[in->model];
    ss_qitem next;
    if (!w->sched.pol->ops.scheduler.pop(g->queue, now, &next)) return;
    g->queued--;
    ss_ctl_dequeue(w, in->model, next.enqueued_s);
    ss_serve_start(w, in, next.req);
}

ss_gate *ss_ctl_free_gate(ss_world *w, const ss_group *g)
{
    ss_control *c = C(w);
    uint32_t m = (uint32_t)(g - w->groups);
    for (size_t i = 0; i < c->ngates; i++) {
        ss_gate *gt = &c->gates[i];
        if (gate_busy(gt)) continue;
        for (uint32_t k = 0; k < gt->n; k++)
            if (gt->exec[k]->model == m && gt->exec[k]->state == SS_INST_UP) return gt;
    }
    return NULL;
}

void ss_ctl_gate_free(ss_world *w, ss_gate *gt, double now)
{
    ss_control *c = C(w);
    if (gate_busy(gt)) return; /* still serving */
    uint32_t nq = 0, longest = 0;
    for (uint32_t k = 0; k < gt->n; k++) {
        const ss_instance *in = gt->exec[k];
        uint32_t m = in->model;
        ctl_model *cm = &c->m[m];
        const ss_group *g = &w->groups[m];
        uint32_t q = in->state == SS_INST_UP ? (uint32_t)g->queued : 0;
        ring_trim(c, cm, now);
        gt->views[k] = (ss_dqueue_view){
            .model = m,
            .queued = q,
            .wait_sum_s = q ? (double)q * now - cm->wait_t_sum_s : 0,
            .head_wait_s = 0,
            .exec_s = g->mean_s,
            .rt_mean_s = cm->win_n ? cm->win_sum_s / (double)cm->win_n : NAN,
            .completed = (uint32_t)cm->win_n,
            .sla_s = w->sc->models[m].sla_s,
        };
        if (q) {
            if (nq == 0 || q > gt->views[longest].queued) longest = k;
            nq++;
        }
    }
    if (nq == 0) return;
    ss_dsched_ctx ctx = {.device = gt->device, .now_s = now, .q = gt->views, .n = gt->n};
    uint32_t pick = c->dsched.pol->ops.device_scheduler.pick(c->dsched_state, &ctx);
    if (pick >= gt->n || gt->views[pick].queued == 0) pick = longest; /* a misbehaving plugin must not stall */
    gate_serve(w, gt->exec[pick], now);
}

/* ---- containers and the control loop ---------------------------------------------- */

/* A container gets `cores` now: its core-seconds so far counted, its link's
 * capacity its speed at those cores (x8: bytes over bits, see serve/substrate.c). */
static void set_cores(ss_world *w, ctl_box *b, double cores, double now)
{
    b->core_s += b->cores * (now - b->since_s);
    b->since_s = now;
    if (cores == b->cores) return;
    b->cores = cores;
    ss_flownet_set_capacity(w->cnet, b->in->link, 8 * ss_cap_speed(w->sc, b->in->model, b->in->device, cores));
}

static double avail_of(const ss_world *w, uint32_t device)
{
    return (double)w->sc->devices[device].cores - w->sc->control->reserved_cores;
}

static void view_of(ss_control *c, const ctl_box *b, double now, ss_control_view *v)
{
    ss_world *w = c->w;
    uint32_t m = b->in->model;
    *v = (ss_control_view){.model = m,
                           .device = b->in->device,
                           .now_s = now,
                           .period_s = c->cfg->period_s,
                           .sla_s = w->sc->models[m].sla_s,
                           .queued = (uint32_t)w->groups[m].queued,
                           .held = b->in->busy,
                           .cores = b->cores,
                           .min_cores = c->cfg->min_cores,
                           .avail_cores = avail_of(w, b->in->device)};
    v->rt_mean_s = period_mean(&c->m[m], now, c->cfg->period_s, &v->done_gpu, &v->done_cpu);
}

static void tick(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    ss_control *c = ctx;
    ss_world *w = c->w;
    double now = ss_now(eng);
    const ss_controller_ops *ops = &c->ctlp.pol->ops.controller;
    for (size_t i = 0; i < c->nbox; i++) {
        ss_control_view *v = &c->views[i];
        view_of(c, &c->box[i], now, v);
        double u = ops->demand(c->box[i].state, v);
        if (!(u >= v->min_cores)) u = v->min_cores; /* NAN too */
        if (u > v->avail_cores) u = v->avail_cores;
        c->demand[i] = u;
    }
    /* Per worker: the supervisor over its containers (boxes are grouped by device). */
    for (size_t i = 0; i < c->nbox;) {
        size_t j = i;
        while (j < c->nbox && c->box[j].in->device == c->box[i].in->device) j++;
        ss_supervise(c->demand + i, j - i, avail_of(w, c->box[i].in->device), c->cfg->gamma, c->grant + i);
        i = j;
    }
    for (size_t i = 0; i < c->nbox; i++) {
        ctl_box *b = &c->box[i];
        double g = c->grant[i] > 1e-6 ? c->grant[i] : 1e-6; /* a container never stops outright */
        set_cores(w, b, g, now);
        if (ops->granted) { /* the same view, with the cores it now has */
            c->views[i].cores = g;
            ops->granted(b->state, &c->views[i], g);
        }
    }
    w->daemons--;
    if (ss_world_active(w)) {
        ss_schedule(eng, now + c->cfg->period_s, tick, c, 0);
        w->daemons++;
    }
}

/* ---- building, results ---------------------------------------------------------------- */

static int cmp_box(const void *a, const void *b)
{
    const ctl_box *x = a, *y = b;
    if (x->in->device != y->in->device) return x->in->device < y->in->device ? -1 : 1;
    return x->in->id < y->in->id ? -1 : x->in->id > y->in->id;
}

int ss_control_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_control_cfg *cfg = sc->control;
    ss_control *c = ss_xcalloc(1, sizeof *c);
    w->ctl = c;
    w->hooks.ctl_free_gate = ss_ctl_free_gate;
    w->hooks.ctl_gate_free = ss_ctl_gate_free;
    w->hooks.ctl_done = ss_ctl_done;
    w->hooks.ctl_enqueue = ss_ctl_enqueue;
    w->hooks.ctl_dequeue = ss_ctl_dequeue;
    w->hooks.ctl_set_cores = ss_ctl_set_cores;
    w->hooks.ctl_cores = ss_ctl_cores;
    w->hooks.ctl_rt_mean = ss_ctl_rt_mean;
    c->w = w;
    c->cfg = cfg;
    c->m = ss_xcalloc(sc->nmodels, sizeof *c->m);
    for (size_t m = 0; m < sc->nmodels; m++) {
        ss_stat_reset(&c->m[m].rt);
        c->m[m].bin = -1;
    }
    c->keep_s = cfg->window_s;
    if (cfg->on && cfg->period_s > c->keep_s) c->keep_s = cfg->period_s;
    /* Gates: the time-shared devices with an executable. */
    c->gates = ss_xcalloc(sc->ndevices, sizeof *c->gates);
    for (uint32_t d = 0; d < sc->ndevices; d++) {
        if (!sc->devices[d].time_shared) continue;
        ss_gate *gt = &c->gates[c->ngates];
        gt->device = d;
        gt->exec = ss_xcalloc(sc->nmodels, sizeof *gt->exec);
        gt->views = ss_xcalloc(sc->nmodels, sizeof *gt->views);
        for (size_t i = 0; i < w->ninst; i++)
            if (w->inst[i]->device == d) {
                gt->exec[gt->n++] = w->inst[i];
                w->inst[i]->gate = gt;
            }
        if (gt->n) c->ngates++;
        else {
            free(gt->exec);
            free(gt->views);
        }
    }
    if (c->ngates &&
        ss_world_load_policy(w, &cfg->scheduler, SS_KIND_DEVICE_SCHEDULER, &c->dsched, &c->dsched_state,
                             &c->dsched_rng, "policy/device_scheduler", err) < 0)
        return -1;
    if (!cfg->on) return 0;
    /* Containers, grouped by worker. */
    c->box = ss_xcalloc(w->ninst + 1, sizeof *c->box);
    for (size_t i = 0; i < w->ninst; i++)
        if (ss_sc_is_container(sc, w->inst[i]->deploy))
            c->box[c->nbox++] = (ctl_box){.in = w->inst[i], .cores = sc->deploys[w->inst[i]->deploy].cap};
    qsort(c->box, c->nbox, sizeof *c->box, cmp_box);
    c->demand = ss_xcalloc(c->nbox + 1, sizeof *c->demand);
    c->grant = ss_xcalloc(c->nbox + 1, sizeof *c->grant);
    c->views = ss_xcalloc(c->nbox + 1, sizeof *c->views);
    if (ss_world_load_policy(w, &cfg->controller, SS_KIND_CONTROLLER, &c->ctlp, &c->box[0].state, &c->ctl_rng,
                             "policy/controller", err) < 0)
        return -1;
    for (size_t i = 1; i < c->nbox; i++)
        if (ss_world_policy_init(w, &c->ctlp, &cfg->controller, c->ctl_rng, &c->box[i].state, err) < 0) return -1;
    ss_schedule(w->eng, cfg->period_s, tick, c, 0);
    w->daemons++;
    return 0;
}

/* Gates serve what waits once every instance is up (at build). */
void ss_control_start(ss_world *w)
{
    ss_control *c = C(w);
    for (size_t i = 0; i < c->ngates; i++) ss_ctl_gate_free(w, &c->gates[i], ss_now(w->eng));
}

/* The per-model run columns, in the order ss_control_result fills them. */
static const char *const model_cols[] = {"rt_sd_s_%s", "sla_viol_windows_%s", "sla_viol_requests_%s", "gpu_share_%s"};

void ss_control_declare(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    ss_control *c = C(w);
    for (size_t m = 0; m < sc->nmodels; m++) {
        const char *n = sc->models[m].name;
        for (size_t k = 0; k < 4; k++) {
            if (k == 3 && !c->ngates) continue;
            char *col = ss_xasprintf(model_cols[k], n);
            ss_world_declare_extra(w, col);
            free(col);
        }
    }
    if (!c->nbox) return;
    for (size_t i = 0; i < c->nbox; i++)
        if (i == 0 || c->box[i].in->device != c->box[i - 1].in->device) {
            char *col = ss_xasprintf("core_s_%s", sc->devices[c->box[i].in->device].name);
            ss_world_declare_extra(w, col);
            free(col);
        }
    ss_world_declare_extra(w, "core_s");
}

void ss_control_result(const ss_world *w, ss_run_result *r)
{
    const ss_scenario *sc = w->sc;
    ss_control *c = w->ctl;
    for (size_t m = 0; m < sc->nmodels; m++) {
        ctl_model *cm = &c->m[m];
        close_bin(w, cm, (uint32_t)m);
        cm->bin = -1;
        const char *n = sc->models[m].name;
        double vals[4] = {sqrt(ss_stat_var(&cm->rt)), (double)cm->viol_windows, (double)cm->viol_requests,
                          cm->rt.n ? (double)cm->on_gate / (double)cm->rt.n : 0};
        for (size_t k = 0; k < 4; k++) {
            if (k == 3 && !c->ngates) continue;
            char *col = ss_xasprintf(model_cols[k], n);
            ss_run_result_extra(r, col, vals[k]);
            free(col);
        }
    }
    /* Core-seconds over the run: [0, duration] when it is bounded by time,
     * else up to the last request's end. */
    double end = isfinite(sc->duration_s) ? sc->duration_s : w->last_done_s;
    double total = 0;
    for (size_t i = 0; i < c->nbox;) {
        double sum = 0;
        size_t j = i;
        for (; j < c->nbox && c->box[j].in->device == c->box[i].in->device; j++)
            sum += c->box[j].core_s + c->box[j].cores * (end - c->box[j].since_s);
        char *col = ss_xasprintf("core_s_%s", sc->devices[c->box[i].in->device].name);
        ss_run_result_extra(r, col, sum);
        free(col);
        total += sum;
        i = j;
    }
    if (c->nbox) ss_run_result_extra(r, "core_s", total);
}

double ss_ctl_cores(const ss_world *w, uint32_t m)
{
    const ss_control *c = w->ctl;
    double sum = 0;
    for (size_t i = 0; c && i < c->nbox; i++)
        if (c->box[i].in->model == m) sum += c->box[i].cores;
    return sum;
}

int ss_ctl_set_cores(ss_world *w, const ss_instance *in, double cores)
{
    ss_control *c = C(w);
    for (size_t i = 0; i < c->nbox; i++)
        if (c->box[i].in == in) {
            set_cores(w, &c->box[i], cores, ss_now(w->eng));
            return 1;
        }
    return 0;
}

double ss_ctl_rt_mean(const ss_world *w, uint32_t m, double now, double span_s)
{
    return w->ctl ? period_mean(&w->ctl->m[m], now, span_s, NULL, NULL) : NAN;
}

void ss_control_free(ss_world *w)
{
    ss_control *c = w->ctl;
    if (!c) return;
    for (size_t i = 0; i < c->ngates; i++) {
        free(c->gates[i].exec);
        free(c->gates[i].views);
    }
    free(c->gates);
    for (size_t m = 0; m < w->sc->nmodels; m++) {
        free(c->m[m].t_s);
        free(c->m[m].rt_s);
        free(c->m[m].gated);
    }
    free(c->m);
    if (c->dsched.pol && c->dsched.pol->fini && c->dsched_state) c->dsched.pol->fini(c->dsched_state);
    if (c->dsched.handle) ss_plugin_unload(&c->dsched);
    if (c->dsched_rng) gsl_rng_free(c->dsched_rng);
    for (size_t i = 0; i < c->nbox; i++)
        if (c->box[i].state && c->ctlp.pol && c->ctlp.pol->fini) c->ctlp.pol->fini(c->box[i].state);
    if (c->ctlp.handle) ss_plugin_unload(&c->ctlp);
    if (c->ctl_rng) gsl_rng_free(c->ctl_rng);
    free(c->box);
    free(c->demand);
    free(c->grant);
    free(c->views);
    free(c);
    w->ctl = NULL;
}
