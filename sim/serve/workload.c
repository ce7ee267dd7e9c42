/* workload.c: request sources - open-loop arrival processes, piecewise
 * rate steps, trace replay and closed-loop clients - each drawing from its
 * own random stream "workload/<name>/arrivals" (or ".../think"), so every
 * policy run on one seed sees the same arrivals. */
#include <math.h>
#include <stdlib.h>

#include "core/zigexp.h"

#include "core/rng.h"
#include "input/trace_synth.h"
#include "serve/workload.h"
#include "serve/serve.h"

struct ss_source {
    ss_world *w;
    uint32_t index;
    const ss_workload_cfg *cfg;
    gsl_rng *rng;
    size_t next;    /* trace: next arrival */
    ss_step_iter steps; /* steps: where it is ... */
    ss_rate_step step;  /* ... and its current step (until_s INFINITY: none left) */
    double trip_s;  /* its first model's request_overhead_s */
};

/* A request arrives at its model's queue after its network trip (the
 * model's request_overhead_s). */
static void route_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    ss_route(ctx, (ss_request *)(uintptr_t)arg);
}

/* May a request be created at time t? */
static int open_at(const ss_world *w, double t)
{
    return t < w->sc->duration_s && w->generated < w->sc->max_requests;
}

static void create(ss_source *s, uint32_t client)
{
    ss_world *w = s->w;
    const ss_scenario *sc = w->sc;
    ss_request *r = ss_req_new(w);
    r->workload = s->index;
    r->task = s->cfg->task;
    r->priority = s->cfg->priority;
    r->client = client;
    r->created_s = ss_now(w->eng);
    r->prompt_tokens = s->cfg->prompt_tokens ? s->cfg->prompt_tokens[s->next] : 0; /* a trace's (an LLM model's) */
    r->output_tokens = s->cfg->prompt_tokens ? s->cfg->output_tokens[s->next] : 0;
    r->measured = r->created_s >= sc->warmup_s && r->id >= sc->warmup_requests;
    if (r->measured) {
        if (!w->measuring) {
            w->measuring = 1;
            if (sc->warmup_requests > 0) ss_world_warmup_over(w);
        }
        w->stats[r->task].arrived++;
        if (w->wstats) w->wstats[r->workload].arrived++;
    }
    w->generated++;
    if (w->ts_arrivals && sc->tasks[r->task].nstages) w->ts_arrivals[sc->tasks[r->task].stages[0]]++; /* the time series' */
    if (__builtin_expect(w->adm.pol != NULL, 0) && !ss_world_admit(w, r)) { /* refused at the gateway (HTTP 429) */
        ss_world_drop(w, r);
        return;
    }
    if (s->trip_s > 0) ss_schedule(w->eng, r->created_s + s->trip_s, route_ev, w, (uint64_t)(uintptr_t)r);
    else ss_route(w, r);
}

/* Time of the next open-loop arrival after `now`, or INFINITY when done. */
static double next_time(ss_source *s, double now)
{
    const ss_workload_cfg *c = s->cfg;
    switch (c->kind) {
    case SS_WL_TRACE:
        return s->next < c->ntimes ? c->start_s + c->times_s[s->next] : INFINITY;
    case SS_WL_STEPS:
        /* Poisson within a step; the exponential is memoryless, so crossing a
         * step boundary restarts the draw at the boundary exactly. */
        while (isfinite(s->step.until_s)) {
            const ss_rate_step *st = &s->step;
            if (st->rate_rps > 0) {
                double t = now + ss_ran_exp1(s->rng) / st->rate_rps;
                if (t < st->until_s) return t;
            }
            now = st->until_s;
            if (!ss_steps_next(&s->steps, &s->step)) s->step.until_s = INFINITY;
        }
        return INFINITY;
    default:
        return now + ss_dist_sample(&c->interarrival, s->rng);
    }
}

static void arrival(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_source *s = ctx;
    if (!open_at(s->w, ss_now(eng))) return;
    create(s, UINT32_MAX);
    if (s->cfg->kind == SS_WL_TRACE) s->next++;
    double t = next_time(s, ss_now(eng));
    if (open_at(s->w, t)) ss_schedule(eng, t, arrival, s, 0);
}

static void client_issue(ss_engine *eng, void *ctx, uint64_t client)
{
    ss_source *s = ctx;
    if (open_at(s->w, ss_now(eng))) create(s, (uint32_t)client);
}

static void client_done(ss_world *w, const ss_request *r)
{
    ss_source *s = &w->sources[r->workload];
    double t = ss_now(w->eng) + ss_dist_sample(&s->cfg->think, s->rng);
    if (open_at(w, t)) ss_schedule(w->eng, t, client_issue, s, r->client);
}

void ss_sources_start(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    w->sources = ss_xcalloc(sc->nworkloads, sizeof *w->sources);
    w->client_done = client_done;
    for (uint32_t i = 0; i < sc->nworkloads; i++) {
        ss_source *s = &w->sources[i];
        const ss_workload_cfg *c = &sc->workloads[i];
        s->w = w;
        s->index = i;
        s->cfg = c;
        s->trip_s = sc->models[sc->tasks[c->task].stages[0]].request_overhead_s;
        char *name = ss_xasprintf("workload/%s/%s", c->name, c->kind == SS_WL_CLOSED ? "think" : "arrivals");
        s->rng = ss_rng_stream(sc->seed, w->rep, name);
        free(name);
        if (c->kind == SS_WL_CLOSED) {
            /* Each client starts after one think time, so clients do not move in lockstep. */
            for (uint32_t k = 0; k < c->clients; k++) {
                double t = c->start_s + ss_dist_sample(&c->think, s->rng);
                if (open_at(w, t)) ss_schedule(w->eng, t, client_issue, s, k);
            }
        } else {
            if (c->kind == SS_WL_STEPS) {
                ss_steps_begin(&s->steps, c);
                if (!ss_steps_next(&s->steps, &s->step)) s->step.until_s = INFINITY;
            }
            double t = next_time(s, c->start_s);
            if (c->kind == SS_WL_TRACE && c->ntimes == 0) continue;
            if (open_at(w, t)) ss_schedule(w->eng, t, arrival, s, 0);
        }
    }
}

void ss_sources_free(ss_world *w)
{
    if (!w->sources) return;
    for (size_t i = 0; i < w->sc->nworkloads; i++) {
        if (w->sources[i].rng) gsl_rng_free(w->sources[i].rng);
        ss_steps_end(&w->sources[i].steps);
    }
    free(w->sources);
}
