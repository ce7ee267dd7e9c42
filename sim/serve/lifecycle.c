/* lifecycle.c: instances that come and go.
 *
 * An instance is created starting, comes up after its start-up time, takes
 * requests while up, and leaves by draining (it takes nothing new, finishes
 * what it holds - its own queue included - then stops) or by failing (at
 * once).  What a failed instance held is, as the event says, re-queued -
 * routed again to its model from the start of the stage, its service
 * drawn anew - or lost: counted in `lost_requests` and ended like a drop
 * (a closed-loop client thinks again).  The world's `events:` drive these
 * during a run; the autoscalers to come call the same functions.
 *
 * Shared queues keep a ring of free servers, (instance id, generation)
 * pairs in the order they became free: an arriving request goes to the
 * server free the longest.  An instance that goes down bumps its
 * generation, which turns its entries stale; they are skipped.
 *
 * Retirement keeps an autoscaled run's memory to the replicas alive: an
 * instance that stopped before the last request's end (so inside every
 * window a result is taken over) has its instance-seconds, busy time and
 * up time added to per-model and per-device sums, leaves its group (the
 * others keep their creation order) and its record goes to a spare list;
 * the next instance created takes it, keeping its id and generation, so
 * the idle ring's old entries for that id stay stale. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/flow.h"
#include "input/scenario_deploy.h"
#include "serve/serve.h"

/* ---- the ring of free servers ---------------------------------------------- */

void ss_idle_push(ss_group *g, ss_instance *in)
{
    if (g->idle_n == g->idle_cap) {
        uint32_t cap = g->idle_cap ? 2 * g->idle_cap : 16, *ring = ss_xcalloc(2 * (size_t)cap, sizeof *ring);
        for (uint32_t k = 0; k < g->idle_n; k++) {
            uint32_t at = (g->idle_head + k) % g->idle_cap;
            ring[2 * k] = g->idle[2 * at];
            ring[2 * k + 1] = g->idle[2 * at + 1];
        }
        free(g->idle);
        g->idle = ring;
        g->idle_cap = cap;
        g->idle_head = 0;
    }
    uint32_t at = (g->idle_head + g->idle_n++) % g->idle_cap;
    g->idle[2 * at] = in->id;
    g->idle[2 * at + 1] = in->gen;
}

ss_instance *ss_idle_pop(ss_world *w, ss_group *g)
{
    while (g->idle_n) {
        uint32_t id = g->idle[2 * g->idle_head], gen = g->idle[2 * g->idle_head + 1];
        g->idle_head = (g->idle_head + 1) % g->idle_cap;
        g->idle_n--;
        ss_instance *in = w->inst[id];
        if (in->gen == gen && in->state == SS_INST_UP && in->busy < in->servers) return in;
    }
    return NULL;
}

/* ---- creation and states ------------------------------------------------------ */

void ss_group_refresh(ss_group *g)
{
    g->solo = g->n == 1 && g->members[0]->plain && g->members[0]->state == SS_INST_UP ? g->members[0] : NULL;
}

/* Servers an instance counts for on its device (a ps instance: one). */
static uint32_t dev_servers_of(const ss_instance *in) { return in->discipline == SS_DISC_PS ? 1 : in->servers; }

/* Device d's live servers change by delta at now: the value it held at the
 * end of the last instant counts towards its peak first. */
static void dev_change(ss_world *w, uint32_t d, int64_t delta, double now)
{
    if (now > w->dev_changed_s[d]) {
        if (w->dev_servers[d] > w->dev_peak[d]) w->dev_peak[d] = w->dev_servers[d];
        w->dev_changed_s[d] = now;
    }
    w->dev_servers[d] = (uint32_t)((int64_t)w->dev_servers[d] + delta);
}

ss_instance *ss_inst_create(ss_world *w, uint32_t deploy, double now)
{
    const ss_scenario *sc = w->sc;
    const ss_deploy_cfg *dc = &sc->deploys[deploy];
    ss_group *g = &w->groups[dc->model];
    if (!w->dev_servers) {
        size_t nd = sc->ndevices + 1, nm = sc->nmodels + 1;
        w->dev_servers = ss_xcalloc(nd, sizeof *w->dev_servers);
        w->dev_peak = ss_xcalloc(nd, sizeof *w->dev_peak);
        w->dev_changed_s = ss_xcalloc(nd, sizeof *w->dev_changed_s);
        w->retired_busy_s = ss_xcalloc(nd, sizeof *w->retired_busy_s);
        w->retired_life_s = ss_xcalloc(nm, sizeof *w->retired_life_s);
        w->retired_window_s = ss_xcalloc(nm, sizeof *w->retired_window_s);
        w->retired_area_s = ss_xcalloc(nm, sizeof *w->retired_area_s);
        w->retired_up_s = ss_xcalloc(nm, sizeof *w->retired_up_s);
    }
    ss_instance *in = w->spare;
    if (in) { /* a retired record: its id and generation stay */
        uint32_t id = in->id, gen = in->gen;
        w->spare = in->next_spare;
        memset(in, 0, sizeof *in);
        in->id = id;
        in->gen = gen;
    } else {
        in = ss_xcalloc(1, sizeof *in);
        in->id = (uint32_t)w->ninst;
        if (w->ninst == w->inst_cap) {
            w->inst_cap = w->inst_cap ? 2 * w->inst_cap : 16;
            w->inst = ss_xrealloc(w->inst, w->inst_cap * sizeof *w->inst);
        }
        w->inst[w->ninst++] = in;
    }
    in->world = w;
    in->model = dc->model;
    in->device = dc->device;
    in->deploy = deploy;
    in->discipline = dc->discipline;
    in->state = SS_INST_STARTING;
    in->born_s = now;
    in->gone_s = INFINITY;
    in->up_s = INFINITY;
    in->link = UINT32_MAX;
    const ss_model_cfg *mc = &sc->models[dc->model];
    if (mc->has_cpu_service && sc->devices[dc->device].kind == SS_DEV_CPU) in->service = &mc->cpu_service;
    if (!w->made) w->made = ss_xcalloc(sc->ndeploys + 1, sizeof *w->made);
    for (size_t d = 0; d < sc->ndeploys; d++) /* entries of this model on this device, in entry order */
        if (sc->deploys[d].model == dc->model && sc->deploys[d].device == dc->device) in->ordinal += w->made[d];
    w->made[deploy]++;
    in->capacity = dc->queue_capacity;
    in->servers = dc->servers;
    if (dc->discipline == SS_DISC_PS) { /* holds up to queue_capacity requests, all in service */
        in->servers = dc->queue_capacity > UINT32_MAX ? UINT32_MAX : (uint32_t)dc->queue_capacity;
        if (dc->shared_queue) in->servers = dc->servers; /* behind a shared queue: it pulls this many */
        in->capacity = 0;
        in->link = (uint32_t)(sc->ndevices + in->id); /* its own link (its cap): see serve/substrate.c */
    }
    if (g->shared) {
        in->queue = g->queue;
    } else {
        const ss_plugin *q = dc->discipline == SS_DISC_PREEMPT ? &w->prio : &w->sched;
        in->queue = q->pol->ops.scheduler.queue_new(dc->discipline == SS_DISC_PREEMPT ? w->prio_state : w->sched_state);
        if (!in->queue) {
            fputs("servesim: out of memory in the scheduler plugin\n", stderr);
            abort();
        }
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4;
        g->members = ss_xrealloc(g->members, g->cap * sizeof *g->members);
        g->views = ss_xrealloc(g->views, g->cap * sizeof *g->views);
    }
    in->index = g->n;
    g->members[g->n] = in;
    g->views[g->n++] = (ss_instance_view){.device = in->device, .up = 0};
    ss_group_refresh(g);
    dev_change(w, in->device, dev_servers_of(in), now);
    if (w->cs) w->hooks.cs_born(w, in);
    return in;
}

/* A life-cycle change on the timeline. */
static void mark(ss_world *w, const ss_instance *in, const char *what)
{
    if (!w->tl) return;
    char *m = ss_xasprintf("%s %s #%u", what, w->sc->models[in->model].name, in->ordinal);
    ss_tl_mark(w, in->device, m);
    free(m);
}

void ss_inst_up(ss_world *w, ss_instance *in)
{
    if (in->state != SS_INST_STARTING) return;
    ss_group *g = &w->groups[in->model];
    in->state = SS_INST_UP;
    in->up_s = in->idle_since_s = ss_now(w->eng);
    in->plain = in->discipline == SS_DISC_FIFO && !g->shared && !w->track && !w->tl && !in->service && !g->llm;
    ss_group_refresh(g);
    mark(w, in, "up");
    g->views[in->index].up = 1;
    g->nup++;
    if (g->shared) /* each free server pulls, or waits in the ring */
        for (uint32_t k = in->busy; k < in->servers; k++) ss_serve_pull(w, in, ss_now(w->eng));
}

static void went_down(ss_world *w, ss_instance *in)
{
    ss_group *g = &w->groups[in->model];
    in->plain = 0;
    g->solo = NULL;
    if (in->state == SS_INST_UP) {
        g->views[in->index].up = 0;
        g->nup--;
    }
    in->gen++;
}

static void stop(ss_world *w, ss_instance *in, ss_inst_state st)
{
    if (w->cs) w->hooks.cs_gone(w, in, st == SS_INST_STOPPED); /* while it still has its old state */
    in->state = st;
    in->gone_s = ss_now(w->eng);
    dev_change(w, in->device, -(int64_t)dev_servers_of(in), in->gone_s);
    mark(w, in, st == SS_INST_FAILED ? "failed" : "stopped");
    if (in->pp) w->hooks.pp_gone(w, in);
}

void ss_inst_drained(ss_world *w, ss_instance *in)
{
    if (in->state != SS_INST_DRAINING || in->busy) return;
    if (!w->groups[in->model].shared && w->groups[in->model].views[in->index].queued) return;
    if (in->pp && !w->hooks.pp_may_stop(in)) return; /* requests still pass through its pipeline */
    stop(w, in, SS_INST_STOPPED);
}

void ss_inst_drain(ss_world *w, ss_instance *in)
{
    if (in->state == SS_INST_STARTING) {
        in->gen++;
        stop(w, in, SS_INST_STOPPED);
        return;
    }
    if (in->state != SS_INST_UP) return;
    went_down(w, in);
    in->state = SS_INST_DRAINING;
    mark(w, in, "draining");
    ss_inst_drained(w, in);
}

static void lose(ss_world *w, ss_request *r)
{
    if (r->measured) w->lost++;
    ss_world_lose(w, r);
}

static void fail(ss_world *w, ss_instance *in, int requeue)
{
    if (in->state == SS_INST_STOPPED || in->state == SS_INST_FAILED) return;
    double now = ss_now(w->eng);
    ss_group *g = &w->groups[in->model];
    went_down(w, in);
    stop(w, in, SS_INST_FAILED);
    if (g->llm) w->hooks.llm_failed(w, in); /* its engine lets go of them: no event of theirs is left */
    /* What it held: in service (newest first in the list: take it in
     * start order), then its own queue in queue order. */
    size_t n = 0, cap = 16;
    ss_request **held = ss_xcalloc(cap, sizeof *held);
    ss_request *last = in->serving;
    while (last && last->svc_next) last = last->svc_next;
    for (ss_request *r = last; r; r = r->svc_prev) {
        if (w->tl) ss_tl_service(w, in, r, now, "failed");
        if (in->discipline == SS_DISC_PS) ss_flow_cancel(w->cnet, r->ev);
        else if (!g->llm) ss_cancel(w->eng, r->ev);
        if (in->discipline != SS_DISC_PS) ss_inst_busy_add(w, in, r->started_s, now);
        if (n == cap) held = ss_xrealloc(held, (cap *= 2) * sizeof *held);
        held[n++] = r;
    }
    if (in->discipline == SS_DISC_PS && in->busy) ss_inst_busy_add(w, in, in->ps_since_s, now);
    ss_inst_busy_mark(in, now);
    in->serving = NULL;
    in->busy = 0;
    g->views[in->index].busy = 0;
    if (!g->shared) {
        const ss_scheduler_ops *q =
            in->discipline == SS_DISC_PREEMPT ? &w->prio.pol->ops.scheduler : &w->sched.pol->ops.scheduler;
        ss_qitem it;
        while (q->pop(in->queue, now, &it)) {
            if (n == cap) held = ss_xrealloc(held, (cap *= 2) * sizeof *held);
            held[n++] = it.req;
        }
        g->views[in->index].queued = 0;
    }
    for (size_t i = 0; i < n; i++) {
        ss_request *r = held[i];
        r->svc_prev = r->svc_next = NULL;
        r->at = NULL;
        r->resumed = 0;
        if (requeue) ss_route(w, r);
        else lose(w, r);
    }
    free(held);
    if (in->gate) w->hooks.ctl_gate_free(w, in->gate, now); /* the device is free for its other models' queues */
}

/* ---- scripted events ---------------------------------------------------------- */

static ss_instance *named(ss_world *w, const ss_event_cfg *e)
{
    const ss_deploy_cfg *dc = &w->sc->deploys[e->deploy];
    for (size_t i = 0; i < w->ninst; i++) {
        ss_instance *in = w->inst[i];
        if (in->model == dc->model && in->device == dc->device && in->ordinal == e->ordinal) return in;
    }
    return NULL; /* validated when read: unreachable */
}

/* arg: the instance's id, and its generation in the high half (a record
 * stopped while starting may be reused before this fires). */
static void up_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    ss_world *w = ctx;
    ss_instance *in = w->inst[(uint32_t)arg];
    if (in->gen == (uint32_t)(arg >> 32)) ss_inst_up(w, in);
}

void ss_inst_up_at(ss_world *w, ss_instance *in, double at_s)
{
    ss_schedule(w->eng, at_s, up_ev, w, (uint64_t)in->gen << 32 | in->id);
}

static void event_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_world *w = ctx;
    const ss_event_cfg *e = &w->sc->events[arg];
    double now = ss_now(eng);
    switch (e->kind) {
    case SS_EV_ADD:
        for (uint32_t k = 0; k < e->count; k++) {
            ss_instance *in = ss_inst_create(w, e->deploy, now);
            if (e->startup_s > 0) ss_inst_up_at(w, in, now + e->startup_s);
            else ss_inst_up(w, in);
        }
        break;
    case SS_EV_REMOVE:
        ss_inst_drain(w, named(w, e));
        break;
    case SS_EV_FAIL:
        fail(w, named(w, e), e->requeue);
        break;
    case SS_EV_CAPACITY: /* requests in service speed up or slow down at once (core/flow.h) */
        if (!w->cnet) break; /* no ps instance: nothing runs on the compute net */
        if (e->on_device) {
            ss_flownet_set_capacity(w->cnet, e->device, 8 * e->capacity); /* x8: see serve/substrate.c */
        } else if (!(w->ctl && w->hooks.ctl_set_cores(w, named(w, e), e->capacity))) { /* a container's cores: counted */
            const ss_instance *in = named(w, e);
            ss_flownet_set_capacity(w->cnet, in->link, 8 * ss_cap_speed(w->sc, in->model, in->device, e->capacity));
        }
        if (w->tl) {
            char *m = e->on_device ? ss_xasprintf("capacity %g", e->capacity)
                                   : ss_xasprintf("cap of %s #%u: %g", w->sc->models[named(w, e)->model].name,
                                                  e->ordinal, e->capacity);
            ss_tl_mark(w, e->on_device ? e->device : named(w, e)->device, m);
            free(m);
        }
        break;
    }
}

void ss_events_start(ss_world *w)
{
    for (size_t i = 0; i < w->sc->nevents; i++) ss_schedule(w->eng, w->sc->events[i].at_s, event_ev, w, i);
}

/* ---- retirement and the sums over a model's instances ------------------------------ */

void ss_inst_retire(ss_world *w, uint32_t m)
{
    ss_group *g = &w->groups[m];
    if (!w->autoscaler || w->sc->nevents || w->tl || w->pipe || !g->shared || !w->measuring) return;
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        ss_instance *in = g->members[i];
        if ((in->state == SS_INST_STOPPED || in->state == SS_INST_FAILED) && in->gone_s <= w->last_done_s &&
            !in->busy && !in->cold && !in->pp) { /* a part waits until its whole pipeline has stopped */
            double from = in->born_s > w->warmup_end_s ? in->born_s : w->warmup_end_s;
            w->retired_life_s[m] += in->gone_s - in->born_s;
            if (in->gone_s > from) w->retired_window_s[m] += in->gone_s - from;
            w->retired_area_s[m] += in->area_s;
            if (in->gone_s > in->up_s) w->retired_up_s[m] += in->gone_s - in->up_s;
            w->retired_busy_s[in->device] += in->busy_s;
            in->retired = 1;
            in->next_spare = w->spare;
            w->spare = in;
            continue;
        }
        in->index = k;
        g->views[k] = g->views[i];
        g->members[k++] = in;
    }
    g->n = k;
    ss_group_refresh(g);
}

double ss_instance_seconds(const ss_world *w, uint32_t m, int measured, double to_s)
{
    const ss_group *g = &w->groups[m];
    double from_s = measured ? w->warmup_end_s : 0, sum = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const ss_instance *in = g->members[i];
        double a = in->born_s > from_s ? in->born_s : from_s, b = in->gone_s < to_s ? in->gone_s : to_s;
        if (b > a) sum += b - a;
    }
    if (w->retired_life_s) sum += measured ? w->retired_window_s[m] : w->retired_life_s[m];
    return sum;
}

void ss_inst_areas(const ss_world *w, uint32_t m, double now, double *busy_s, double *up_s)
{
    *busy_s = *up_s = 0;
    const ss_group *g = &w->groups[m];
    for (uint32_t i = 0; i < g->n; i++) {
        const ss_instance *in = g->members[i];
        *busy_s += in->area_s + (double)in->busy * (now - in->changed_s);
        double end = in->gone_s < now ? in->gone_s : now;
        if (end > in->up_s) *up_s += end - in->up_s;
    }
    if (w->retired_area_s) {
        *busy_s += w->retired_area_s[m];
        *up_s += w->retired_up_s[m];
    }
}
