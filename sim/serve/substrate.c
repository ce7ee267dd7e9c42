/* substrate.c: the substrate's share of a world - its serving policies,
 * compute net, model groups and instances, statistics, the checks of the
 * end of a run, the result rows and the life cycle's columns - in steps
 * that sim/world/world.c calls in order, with the systems' own (cold
 * starts, controllers, pipelines, ...) between them. */
#include "serve/substrate.h"

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/columns.h"
#include "core/engine.h"
#include "core/metrics.h"
#include "core/rng.h"
#include "input/scenario_deploy.h"
#include "net/topo.h"
#include "serve/plugin.h"
#include "serve/workload.h"
#include "serve/world.h"

/* The capacity of a ps instance's own link on the compute net: its cap,
 * or its device's whole capacity (no constraint) when it has none.  On a
 * CPU, a cap of c cores gives the model's speed at c (ss_speedup). */
static double link_cap(const ss_scenario *sc, size_t d)
{
    const ss_deploy_cfg *dc = &sc->deploys[d];
    return dc->cap > 0 ? ss_cap_speed(sc, dc->model, dc->device, dc->cap)
                       : ss_device_capacity(&sc->devices[dc->device]);
}

ss_world *ss_sub_new(const ss_scenario *sc, uint32_t rep, FILE *req_csv)
{
    ss_world *w = ss_xcalloc(1, sizeof *w);
    w->sc = sc;
    w->rep = rep;
    w->req_csv = req_csv;
    w->eng = ss_engine_new();
    w->warmup_end_s = sc->warmup_s;
    if (sc->topo) w->fnet = ss_flownet_new(w->eng, ss_topo_nlinks(sc->topo), ss_topo_capacities_bps(sc->topo));
    return w;
}

int ss_sub_policies(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    if (ss_world_load_policy(w, &sc->load_balancer, SS_KIND_LOAD_BALANCER, &w->lb, &w->lb_state, &w->lb_rng,
                    "policy/load_balancer", err) < 0 ||
        ss_world_load_policy(w, &sc->scheduler, SS_KIND_SCHEDULER, &w->sched, &w->sched_state, &w->sched_rng,
                    "policy/scheduler", err) < 0 ||
        (sc->admission.name && ss_world_load_policy(w, &sc->admission, SS_KIND_ADMISSION, &w->adm, &w->adm_state,
                                                    &w->adm_rng, "policy/admission", err) < 0)) {
        return -1;
    }
    /* What the deployment asks for beyond FIFO servers. */
    int preempt = 0, ps = 0;
    size_t most = 0; /* instances the run can ever have */
    for (size_t d = 0; d < sc->ndeploys; d++) {
        preempt |= sc->deploys[d].discipline == SS_DISC_PREEMPT;
        ps |= sc->deploys[d].discipline == SS_DISC_PS;
        most += sc->deploys[d].instances;
    }
    for (size_t e = 0; e < sc->nevents; e++) {
        if (sc->events[e].kind == SS_EV_ADD) most += sc->events[e].count;
        w->track |= sc->events[e].kind == SS_EV_FAIL;
    }
    w->track |= preempt | ps;
    if (preempt) { /* their queues are the `priority` discipline, whatever the scheduler */
        ss_policy_cfg pc = {.name = "priority", .file = sc->path, .line = 1, .col = 1};
        gsl_rng *unused = NULL;
        int rc = ss_world_load_policy(w, &pc, SS_KIND_SCHEDULER, &w->prio, &w->prio_state, &unused,
                                      "policy/preemptive-priority", err);
        if (unused) gsl_rng_free(unused);
        if (rc < 0) {
            return -1;
        }
    }
    if (ps) { /* the compute net: each device's capacity, then a link per possible instance (its cap) */
        double *cap = ss_xcalloc(sc->ndevices + most + 1, sizeof *cap);
        for (size_t d = 0; d < sc->ndevices; d++) cap[d] = ss_device_capacity(&sc->devices[d]);
        size_t k = sc->ndevices;
        for (uint32_t m = 0; m < sc->nmodels; m++)
            for (size_t d = 0; d < sc->ndeploys; d++)
                for (uint32_t i = 0; sc->deploys[d].model == m && i < sc->deploys[d].instances; i++)
                    cap[k++] = link_cap(sc, d);
        for (size_t e = 0; e < sc->nevents; e++)
            for (uint32_t i = 0; sc->events[e].kind == SS_EV_ADD && i < sc->events[e].count; i++)
                cap[k++] = link_cap(sc, sc->events[e].deploy);
        /* The solver carries bytes over links of bits per second: a second
         * of work is one byte, so a capacity of c units is 8c "bps". */
        for (size_t i = 0; i < k; i++) cap[i] *= 8;
        w->cnet = ss_flownet_new(w->eng, k, cap);
        free(cap);
    }
    return 0;
}

void ss_sub_instances(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    uint32_t rep = w->rep;
    /* Instances grouped by model, in deployment order within a model. */
    w->groups = ss_xcalloc(sc->nmodels, sizeof *w->groups);
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        ss_group *g = &w->groups[m];
        g->capacity = UINT64_MAX;
        for (size_t d = 0; d < sc->ndeploys; d++)
            if (sc->deploys[d].model == m && sc->deploys[d].shared_queue) {
                g->shared = 1;
                if (sc->deploys[d].queue_capacity < g->capacity) g->capacity = sc->deploys[d].queue_capacity;
            }
        if (g->shared) {
            g->queue = w->sched.pol->ops.scheduler.queue_new(w->sched_state);
            if (!g->queue) {
                fputs("servesim: out of memory in the scheduler plugin\n", stderr);
                abort();
            }
        }
        g->llm = sc->models[m].llm != NULL; /* its engines' hooks: llm_serve.c, built next */
        g->service = &sc->models[m].service;
        g->mean_s = ss_dist_mean(g->service);
        char *stream = ss_xasprintf("model/%s/service", sc->models[m].name);
        g->rng = ss_rng_stream(sc->seed, rep, stream);
        free(stream);
        for (size_t d = 0; d < sc->ndeploys; d++)
            for (uint32_t i = 0; sc->deploys[d].model == m && i < sc->deploys[d].instances; i++)
                ss_inst_create(w, (uint32_t)d, 0);
        if (!g->views) g->views = ss_xcalloc(1, sizeof *g->views);
    }
}

void ss_sub_up(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    for (size_t i = 0; i < w->ninst; i++) ss_inst_up(w, w->inst[i]);
    /* Rows per workload where some task has two or more workloads aimed at it. */
    for (size_t a = 0; a < sc->nworkloads && !w->wstats; a++)
        for (size_t b = a + 1; b < sc->nworkloads; b++)
            if (sc->workloads[a].task == sc->workloads[b].task) {
                w->wstats = ss_xcalloc(sc->nworkloads, sizeof *w->wstats);
                for (size_t k = 0; k < sc->nworkloads; k++) ss_task_stats_init(&w->wstats[k]);
                break;
            }
    w->stats = ss_xcalloc(sc->ntasks, sizeof *w->stats);
    for (size_t t = 0; t < sc->ntasks; t++) ss_task_stats_init(&w->stats[t]);
}

void ss_sub_declare(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    if (sc->nevents || sc->autoscale) { /* the columns ss_world_result adds */
        for (uint32_t m = 0; m < sc->nmodels; m++) {
            char *col = ss_xasprintf("instance_s_%s", sc->models[m].name);
            ss_world_declare_extra(w, col);
            free(col);
        }
        ss_world_declare_extra(w, "lost_requests");
    }
}

void ss_sub_start(ss_world *w)
{
    ss_sources_start(w);
    ss_events_start(w);
}

char *ss_sub_check_calendar(const ss_world *w)
{
    if (w->failed) return ss_xstrdup(w->failed);
    if (ss_engine_pending(w->eng))
        return ss_xasprintf("%zu events left on the calendar after the run", ss_engine_pending(w->eng));
    return NULL;
}

char *ss_sub_check_serving(const ss_world *w)
{
    uint64_t ended = w->ended[0] + w->ended[1] + w->ended[2];
    if (ended != w->next_id || w->in_flight)
        return (ss_xasprintf("%llu requests created, %llu finished + %llu dropped + %llu lost, %zu in flight",
                                     (unsigned long long)w->next_id, (unsigned long long)w->ended[0],
                                     (unsigned long long)w->ended[1], (unsigned long long)w->ended[2],
                                     w->in_flight));
    for (size_t i = 0; i < w->ninst; i++) {
        const ss_instance *in = w->inst[i];
        const ss_group *g = &w->groups[in->model];
        if (in->retired) continue;
        if (in->busy || g->views[in->index].queued || in->serving)
            return (ss_xasprintf("instance %u of model '%s' holds %u in service and %u queued after the run",
                                         in->index, w->sc->models[in->model].name, in->busy,
                                         g->views[in->index].queued));
    }
    for (size_t m = 0; m < w->sc->nmodels; m++)
        if (w->groups[m].queued)
            return (ss_xasprintf("the shared queue of model '%s' holds %llu after the run", w->sc->models[m].name,
                                         (unsigned long long)w->groups[m].queued));
    if (w->cnet && ss_flownet_active(w->cnet))
        return (ss_xasprintf("%zu requests still on the compute net after the run", ss_flownet_active(w->cnet)));
    return NULL;
}

void ss_sub_result_head(const ss_world *w, ss_run_result *r)
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
    if (sc->duration_s > start) r->window_throughput_rps = (double)w->done_in_window / (sc->duration_s - start);
}

void ss_sub_result_rows(const ss_world *w, ss_run_result *r)
{
    const ss_scenario *sc = w->sc;
    double start = w->warmup_end_s;
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
    /* Then one row per workload, "task/workload", where some task has several. */
    if (w->wstats) {
        r->tasks = ss_xrealloc(r->tasks, (sc->ntasks + sc->nworkloads + 1) * sizeof *r->tasks);
        size_t rows = r->ntasks;
        ss_task_result *tmp = ss_xcalloc(rows + sc->nworkloads, sizeof *tmp);
        size_t k = 0;
        for (size_t i = 0; i < rows; i++) {
            tmp[k++] = r->tasks[i];
            for (size_t wl = 0; wl < sc->nworkloads; wl++) {
                if (strcmp(sc->tasks[sc->workloads[wl].task].name, r->tasks[i].name) != 0) continue;
                size_t same = 0;
                for (size_t o = 0; o < sc->nworkloads; o++) same += sc->workloads[o].task == sc->workloads[wl].task;
                if (same < 2) continue;
                char *name = ss_xasprintf("%s/%s", r->tasks[i].name, sc->workloads[wl].name);
                ss_task_result_fill(&w->wstats[wl], name, r->window_s, &tmp[k++]);
                free(name);
            }
        }
        memcpy(r->tasks, tmp, k * sizeof *tmp);
        r->ntasks = k;
        free(tmp);
    }
    all.waited = 0;
    for (size_t t = 0; t < sc->ntasks; t++) all.waited += w->stats[t].waited;
    ss_task_result_fill(&all, "all", r->window_s, &r->tasks[r->ntasks++]);
    free(all.lat_hist);
    free(all.queue_hist);
    r->ndevices = sc->ndevices;
    r->util = ss_xcalloc(sc->ndevices ? sc->ndevices : 1, sizeof *r->util);
    /* Utilisation over [end of warm-up, last request done]: not up to the
     * last event, which may be a time-series sample after the end. */
    double span = w->last_done_s - start;
    for (size_t i = 0; i < w->ninst; i++)
        if (!w->inst[i]->retired) r->util[w->inst[i]->device] += w->inst[i]->busy_s;
    /* Per device, over the most servers its instances had at once at the end
     * of an instant (a ps instance counts one: busy while it holds a request).
     * With instances that come and go on one GPU in turn this stays 1, so
     * utilisation is the device's busy fraction; with fixed instances it is
     * their sum, as it always was. */
    size_t used = 0;
    for (size_t d = 0; d < sc->ndevices; d++) {
        uint32_t count = 0; /* no instance was ever created: nothing allocated */
        if (w->dev_servers) {
            r->util[d] += w->retired_busy_s[d];
            count = w->dev_peak[d] > w->dev_servers[d] ? w->dev_peak[d] : w->dev_servers[d];
        }
        r->util[d] = count && span > 0 ? r->util[d] / ((double)count * span) : 0;
        if (count) r->util_mean += r->util[d], used++;
    }
    if (used) r->util_mean /= (double)used;
}

void ss_sub_result_life(const ss_world *w, ss_run_result *r)
{
    const ss_scenario *sc = w->sc;
    if (sc->nevents || sc->autoscale) { /* instances came and went: what they cost, what was lost */
        for (uint32_t m = 0; m < sc->nmodels; m++) {
            char *col = ss_xasprintf("instance_s_%s", sc->models[m].name);
            ss_run_result_extra(r, col, ss_instance_seconds(w, m, 1, w->last_done_s));
            free(col);
        }
        ss_run_result_extra(r, "lost_requests", (double)w->lost);
    }
}

size_t ss_world_extra_columns(const ss_world *w, const char *const **names)
{
    *names = (const char *const *)w->extra_cols;
    return w->nextra_cols;
}

void ss_world_requests_header(FILE *fp, int llm)
{
    ss_columns_header(fp, SS_CSV_REQUESTS, SS_COLS_BASE | (llm ? SS_COLS_LLM_MODELS : 0));
}

void ss_sub_free_serving(ss_world *w)
{
    for (size_t i = 0; i < w->nextra_cols; i++) free(w->extra_cols[i]);
    free(w->extra_cols);
    for (size_t i = 0; i < w->ninst; i++) {
        ss_instance *in = w->inst[i];
        if (in->queue && !w->groups[in->model].shared)
            (in->discipline == SS_DISC_PREEMPT ? w->prio : w->sched).pol->ops.scheduler.queue_free(in->queue);
        free(in);
    }
    free(w->inst);
    if (w->groups) {
        for (size_t m = 0; m < w->sc->nmodels; m++) {
            ss_group *g = &w->groups[m];
            if (g->queue) w->sched.pol->ops.scheduler.queue_free(g->queue);
            free(g->views);
            free(g->members);
            free(g->idle);
            if (g->rng) gsl_rng_free(g->rng);
        }
        free(w->groups);
    }
    if (w->wstats) {
        for (size_t k = 0; k < w->sc->nworkloads; k++) {
            free(w->wstats[k].lat_hist);
            free(w->wstats[k].queue_hist);
        }
        free(w->wstats);
    }
    free(w->made);
    free(w->dev_servers);
    free(w->dev_peak);
    free(w->dev_changed_s);
    free(w->retired_busy_s);
    free(w->retired_life_s);
    free(w->retired_window_s);
    free(w->retired_area_s);
    free(w->retired_up_s);
    if (w->cnet) ss_flownet_free(w->cnet);
    if (w->prio.pol && w->prio.pol->fini && w->prio_state) w->prio.pol->fini(w->prio_state);
    if (w->prio.handle) ss_plugin_unload(&w->prio);
    if (w->stats) {
        for (size_t t = 0; t < w->sc->ntasks; t++) {
            free(w->stats[t].lat_hist);
            free(w->stats[t].queue_hist);
        }
        free(w->stats);
    }
    ss_sources_free(w);
}

void ss_sub_free_rest(ss_world *w)
{
    if (w->lb.pol && w->lb.pol->fini && w->lb_state) w->lb.pol->fini(w->lb_state);
    if (w->sched.pol && w->sched.pol->fini && w->sched_state) w->sched.pol->fini(w->sched_state);
    if (w->lb.handle) ss_plugin_unload(&w->lb);
    if (w->sched.handle) ss_plugin_unload(&w->sched);
    if (w->adm.pol && w->adm.pol->fini && w->adm_state) w->adm.pol->fini(w->adm_state);
    if (w->adm.handle) ss_plugin_unload(&w->adm);
    if (w->adm_rng) gsl_rng_free(w->adm_rng);
    if (w->lb_rng) gsl_rng_free(w->lb_rng);
    if (w->sched_rng) gsl_rng_free(w->sched_rng);
    for (size_t i = 0; i < w->nchunks; i++) free(w->chunks[i]);
    free(w->chunks);
    free(w->ts_area_prev);
    if (w->fnet) ss_flownet_free(w->fnet);
    free(w->ts_arrivals);
    ss_engine_free(w->eng);
    free(w->broken);
    free(w->failed);
    free(w);
}
