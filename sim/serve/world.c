/* world.c: builds a runnable world from a scenario, runs one replication
 * and collects its results.  The top of sim/serve/: it wires the serving
 * path (serve.c), the sources (workload.c) and, for their scenarios, a
 * block pipeline (pipeline.c) or an edge device (edge_world.c). */
#include "serve/world.h"

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/afile.h"
#include "core/engine.h"
#include "core/metrics.h"
#include "core/rng.h"
#include "serve/edge_world.h"
#include "serve/pipeline.h"
#include "serve/plugin.h"
#include "serve/workload.h"
#include "serve/serve.h"

/* ---- building ---------------------------------------------------------------- */

ss_world *ss_world_build(const ss_scenario *sc, uint32_t rep, FILE *req_csv, ss_err *err)
{
    ss_world *w = ss_xcalloc(1, sizeof *w);
    w->sc = sc;
    w->rep = rep;
    w->req_csv = req_csv;
    w->eng = ss_engine_new();
    w->warmup_end_s = sc->warmup_s;
    if (sc->edge) { /* an edge-device scenario: edge_world.c runs it on this engine */
        w->edge = ss_edge_world_build(w, err);
        if (!w->edge) {
            ss_world_free(w);
            return NULL;
        }
        return w;
    }
    if (ss_world_load_policy(w, &sc->load_balancer, SS_KIND_LOAD_BALANCER, &w->lb, &w->lb_state, &w->lb_rng,
                    "policy/load_balancer", err) < 0 ||
        ss_world_load_policy(w, &sc->scheduler, SS_KIND_SCHEDULER, &w->sched, &w->sched_state, &w->sched_rng,
                    "policy/scheduler", err) < 0) {
        ss_world_free(w);
        return NULL;
    }
    /* Instances grouped by model, so a group's views are contiguous. */
    w->groups = ss_xcalloc(sc->nmodels, sizeof *w->groups);
    for (size_t d = 0; d < sc->ndeploys; d++) w->ninst += sc->deploys[d].instances;
    w->inst = ss_xcalloc(w->ninst, sizeof *w->inst);
    size_t k = 0;
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        ss_group *g = &w->groups[m];
        g->first = (uint32_t)k;
        for (size_t d = 0; d < sc->ndeploys; d++) {
            const ss_deploy_cfg *dc = &sc->deploys[d];
            if (dc->model != m) continue;
            for (uint32_t i = 0; i < dc->instances; i++, k++) {
                ss_instance *in = &w->inst[k];
                in->world = w;
                in->model = m;
                in->device = dc->device;
                in->index = (uint32_t)(k - g->first);
                in->capacity = dc->queue_capacity;
                in->servers = dc->servers;
                in->queue = w->sched.pol->ops.scheduler.queue_new(w->sched_state);
                if (!in->queue) {
                    fputs("servesim: out of memory in the scheduler plugin\n", stderr);
                    abort();
                }
            }
        }
        g->n = (uint32_t)(k - g->first);
        g->views = ss_xcalloc(g->n ? g->n : 1, sizeof *g->views);
        for (uint32_t i = 0; i < g->n; i++)
            g->views[i] = (ss_instance_view){.device = w->inst[g->first + i].device, .up = 1};
        g->service = &sc->models[m].service;
        g->mean_s = ss_dist_mean(g->service);
        char *stream = ss_xasprintf("model/%s/service", sc->models[m].name);
        g->rng = ss_rng_stream(sc->seed, rep, stream);
        free(stream);
    }
    w->stats = ss_xcalloc(sc->ntasks, sizeof *w->stats);
    for (size_t t = 0; t < sc->ntasks; t++) ss_task_stats_init(&w->stats[t]);
    if (sc->pipeline && ss_pipe_build(w, err) < 0) {
        ss_world_free(w);
        return NULL;
    }
    ss_sources_start(w);
    return w;
}

void ss_world_run(ss_world *w)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    ss_engine_run(w->eng, INFINITY);
    clock_gettime(CLOCK_MONOTONIC, &b);
    w->wall_s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}

void ss_world_result(const ss_world *w, ss_run_result *r)
{
    const ss_scenario *sc = w->sc;
    memset(r, 0, sizeof *r);
    r->replication = w->rep;
    r->seed = sc->seed;
    r->end_s = ss_now(w->eng);
    double start = w->warmup_end_s;
    r->window_s = w->last_completion_s > start ? w->last_completion_s - start : 0;
    r->events = ss_engine_fired(w->eng);
    r->wall_s = w->wall_s;
    r->peak_in_flight = w->peak_in_flight;
    if (w->edge) {
        ss_edge_world_result(w->edge, r);
        return;
    }
    /* Rows for the tasks some workload targets, then the overall row. */
    r->tasks = ss_xcalloc(sc->ntasks + 1, sizeof *r->tasks);
    for (size_t t = 0; t < sc->ntasks; t++) {
        int used = 0;
        for (size_t i = 0; i < sc->nworkloads; i++) used |= sc->workloads[i].task == t;
        if (used) ss_task_result_fill(&w->stats[t], sc->tasks[t].name, r->window_s, &r->tasks[r->ntasks++]);
    }
    ss_task_stats all = {0};
    ss_task_stats_init(&all);
    for (size_t t = 0; t < sc->ntasks; t++) {
        const ss_task_stats *s = &w->stats[t];
        all.arrived += s->arrived;
        all.completed += s->completed;
        all.dropped += s->dropped;
        ss_stat_merge(&all.latency, &s->latency);
        ss_stat_merge(&all.queueing, &s->queueing);
        ss_hist_merge(all.lat_hist, s->lat_hist);
        ss_hist_merge(all.queue_hist, s->queue_hist);
    }
    ss_task_result_fill(&all, "all", r->window_s, &r->tasks[r->ntasks++]);
    free(all.lat_hist);
    free(all.queue_hist);
    r->ndevices = sc->ndevices;
    r->util = ss_xcalloc(sc->ndevices ? sc->ndevices : 1, sizeof *r->util);
    size_t *count = ss_xcalloc(sc->ndevices ? sc->ndevices : 1, sizeof *count);
    /* Utilisation over [end of warm-up, last request done]: not up to the
     * last event, which may be a time-series sample after the end. */
    double span = w->last_done_s - start;
    for (size_t i = 0; i < w->ninst; i++) {
        r->util[w->inst[i].device] += w->inst[i].busy_s;
        count[w->inst[i].device] += w->inst[i].servers;
    }
    for (size_t d = 0; d < sc->ndevices; d++)
        r->util[d] = count[d] && span > 0 ? r->util[d] / ((double)count[d] * span) : 0;
    free(count);
    if (w->pipe) ss_pipe_result(w, r);
}

size_t ss_world_extra_columns(const ss_world *w, const char *const **names)
{
    *names = (const char *const *)w->extra_cols;
    return w->nextra_cols;
}

void ss_world_requests_header(FILE *fp)
{
    fputs("variant,replication,request,workload,model,arrival_s,finish_s,latency_ms,queue_ms,dropped,measured\n", fp);
}

void ss_world_free(ss_world *w)
{
    if (!w) return;
    ss_edge_world_free(w->edge);
    for (size_t i = 0; i < w->nextra_cols; i++) free(w->extra_cols[i]);
    free(w->extra_cols);
    for (size_t i = 0; i < w->ninst; i++)
        if (w->inst[i].queue) w->sched.pol->ops.scheduler.queue_free(w->inst[i].queue);
    free(w->inst);
    if (w->groups) {
        for (size_t m = 0; m < w->sc->nmodels; m++) {
            free(w->groups[m].views);
            if (w->groups[m].rng) gsl_rng_free(w->groups[m].rng);
        }
        free(w->groups);
    }
    if (w->stats) {
        for (size_t t = 0; t < w->sc->ntasks; t++) {
            free(w->stats[t].lat_hist);
            free(w->stats[t].queue_hist);
        }
        free(w->stats);
    }
    ss_sources_free(w);
    ss_pipe_free(w);
    if (w->lb.pol && w->lb.pol->fini && w->lb_state) w->lb.pol->fini(w->lb_state);
    if (w->sched.pol && w->sched.pol->fini && w->sched_state) w->sched.pol->fini(w->sched_state);
    if (w->lb.handle) ss_plugin_unload(&w->lb);
    if (w->sched.handle) ss_plugin_unload(&w->sched);
    if (w->lb_rng) gsl_rng_free(w->lb_rng);
    if (w->sched_rng) gsl_rng_free(w->sched_rng);
    for (size_t i = 0; i < w->nchunks; i++) free(w->chunks[i]);
    free(w->chunks);
    free(w->ts_area_prev);
    ss_engine_free(w->eng);
    free(w);
}
