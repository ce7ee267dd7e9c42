/* serve.c: the serving path of a world and what every kind of world shares.
 *
 * Request life: a workload source creates it -> the load balancer picks an
 * instance of the stage's model -> it waits in that instance's queue (the
 * scheduler plugin's discipline) -> one server serves it for a time drawn
 * from the model's profile -> the next stage of its task, or done.  Also
 * here: the request pool, the end of a request (finish, drop) and its
 * statistics, policy loading, and the warm-up's end - the parts that the
 * systems (sim/pipeline, sim/elastic, ...) take, so that they sit above
 * this file and world/world.c above them.  What a system adds to serving
 * it adds through the hooks it set (ss_hooks, serve.h). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/engine.h"
#include "core/metrics.h"
#include "core/rng.h"
#include "serve/plugin.h"
#include "serve/serve.h"

/* ---- request pool: recycled, grown in chunks, never shrunk during a run ---- */

enum { POOL_CHUNK = 1024 };

ss_request *ss_req_new(ss_world *w)
{
    if (!w->free_reqs) {
        ss_request *chunk = ss_xcalloc(POOL_CHUNK, sizeof *chunk);
        w->chunks = ss_xrealloc(w->chunks, (w->nchunks + 1) * sizeof *w->chunks);
        w->chunks[w->nchunks++] = chunk;
        for (size_t i = 0; i < POOL_CHUNK; i++) {
            chunk[i].next_free = w->free_reqs;
            w->free_reqs = &chunk[i];
        }
    }
    ss_request *r = w->free_reqs;
    w->free_reqs = r->next_free;
    /* Only what is read before it is written: the source sets the
     * workload, task, priority, client, creation time and `measured`, the
     * serving path the rest (a whole-struct memset here cost a fifth of the
     * M/M/1 benchmark). */
    r->enqueued_s = r->started_s = r->queue_s = r->service_s = 0;
    r->stage = 0;
    r->resumed = 0;
    if (w->clear_cb) memset(r->cb, 0, sizeof r->cb);
    r->id = w->next_id++;
    r->client = UINT32_MAX;
    if (++w->in_flight > w->peak_in_flight) w->peak_in_flight = w->in_flight;
    return r;
}

static void req_free(ss_world *w, ss_request *r)
{
    r->next_free = w->free_reqs;
    w->free_reqs = r;
    w->in_flight--;
}

/* ---- bookkeeping ----------------------------------------------------------- */

void ss_task_stats_init(ss_task_stats *t)
{
    ss_stat_reset(&t->latency);
    ss_stat_reset(&t->queueing);
    t->lat_hist = ss_xmalloc(sizeof *t->lat_hist);
    t->queue_hist = ss_xmalloc(sizeof *t->queue_hist);
    ss_hist_reset(t->lat_hist);
    ss_hist_reset(t->queue_hist);
}

static void request_line(ss_world *w, const ss_request *r, int dropped)
{
    double now = ss_now(w->eng);
    /* Names are quoted like every other CSV field (ss_csv_field), as report.c does. */
    ss_csv_field(w->req_csv, w->sc->variant);
    fprintf(w->req_csv, ",%u,%llu,", w->rep, (unsigned long long)r->id);
    ss_csv_field(w->req_csv, w->sc->workloads[r->workload].name);
    fputc(',', w->req_csv);
    ss_csv_field(w->req_csv, w->sc->tasks[r->task].name);
    fprintf(w->req_csv, ",%.9f,%.9f,%.9f,%.9f,%d,%d,%.9f", r->created_s, now, (now - r->created_s) * 1e3,
            r->queue_s * 1e3, dropped, r->measured, r->service_s * 1e3);
    if (w->hooks.llm_req_cols) w->hooks.llm_req_cols(w, r, w->req_csv);
    fputc('\n', w->req_csv);
}


static inline void stats_add(ss_task_stats *ts, const ss_request *r, double lat)
{
    ts->completed++;
    ts->waited += r->queue_s > 0;
    ss_stat_add(&ts->latency, lat);
    ss_hist_add(ts->lat_hist, lat);
    ss_stat_add(&ts->queueing, r->queue_s);
    ss_hist_add(ts->queue_hist, r->queue_s);
}

static void finish(ss_world *w, ss_request *r)
{
    double now = ss_now(w->eng);
    if (r->measured) {
        /* Per task (and per workload where a task has several): the overall
         * row is merged from these at the end. */
        double lat = now - r->created_s;
        stats_add(&w->stats[r->task], r, lat);
        if (__builtin_expect(w->wstats != NULL, 0)) stats_add(&w->wstats[r->workload], r, lat);
        w->last_completion_s = now;
    }
    ss_world_count_done(w, now);
    w->last_done_s = now;
    w->ended[0]++;
    if (__builtin_expect(w->tl != NULL || w->req_csv != NULL, 0)) {
        if (w->tl) ss_tl_request(w, r, "finished");
        if (w->req_csv) request_line(w, r, 0);
    }
    if (r->client != UINT32_MAX) w->client_done(w, r);
    req_free(w, r);
}

static void drop(ss_world *w, ss_request *r)
{
    if (r->measured) {
        w->stats[r->task].dropped++;
        if (w->wstats) w->wstats[r->workload].dropped++;
    }
    w->last_done_s = ss_now(w->eng);
    w->ended[1]++;
    if (w->tl) ss_tl_request(w, r, "dropped");
    if (w->req_csv) request_line(w, r, 1);
    if (r->client != UINT32_MAX) w->client_done(w, r);
    req_free(w, r);
}

/* A request lost with a failed instance: ended like a drop, counted apart
 * (w->lost, by lifecycle.c); `dropped` is 2 in the requests CSV. */
void ss_world_lose(ss_world *w, ss_request *r)
{
    w->last_done_s = ss_now(w->eng);
    w->ended[2]++;
    if (w->tl) ss_tl_request(w, r, "lost");
    if (w->req_csv) request_line(w, r, 2);
    if (r->client != UINT32_MAX) w->client_done(w, r);
    req_free(w, r);
}

/* ---- the serving path ---------------------------------------------------------- */

static void service_done(ss_engine *eng, void *ctx, uint64_t arg);
static void ps_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s);

/* Requests in service at an instance, kept only when something may need
 * to reach them (w->track: failures, ps, preemption). */
static inline void svc_link(ss_instance *in, ss_request *r)
{
    r->at = in;
    r->svc_prev = NULL;
    r->svc_next = in->serving;
    if (in->serving) in->serving->svc_prev = r;
    in->serving = r;
}

static inline void svc_unlink(ss_instance *in, ss_request *r)
{
    if (r->svc_prev) r->svc_prev->svc_next = r->svc_next;
    else in->serving = r->svc_next;
    if (r->svc_next) r->svc_next->svc_prev = r->svc_prev;
    r->svc_prev = r->svc_next = NULL;
}

/* A server of in becomes busy at now (the busy-time integral first). */
static inline void take_server(ss_group *g, ss_instance *in, double now)
{
    ss_inst_busy_mark(in, now);
    g->views[in->index].busy = ++in->busy;
}

/* r's timed service at in ends dur_s from now (a ps request runs as a flow instead). */
static inline void exec_for(ss_world *w, ss_instance *in, ss_request *r, double now, double dur_s)
{
    ss_event_id ev = ss_schedule(w->eng, now + dur_s, service_done, in, (uint64_t)(uintptr_t)r);
    if (w->track) {
        r->ev = ev;
        svc_link(in, r);
    }
}

/* The plain path (in->plain: a FIFO instance with its own queue, up, in
 * a world that tracks nothing): what serving did before instances could
 * come and go, kept apart so that plain serving pays for none of it. */
static inline void plain_start(ss_world *w, ss_instance *in, ss_request *r)
{
    double now = ss_now(w->eng);
    ss_group *g = &w->groups[in->model];
    r->queue_s += now - r->enqueued_s;
    r->started_s = now;
    take_server(g, in, now);
    double service_s = ss_dist_sample(g->service, g->rng);
    r->service_s += service_s;
    ss_schedule(w->eng, now + service_s, service_done, in, (uint64_t)(uintptr_t)r);
}

/* Start (or resume, after a preemption) r's service at in.  A fresh stage
 * draws its demand from the model's stream; a ps request runs as a flow
 * of that many seconds of work over the compute net. */
static inline void serve_start(ss_world *w, ss_instance *in, ss_request *r)
{
    double now = ss_now(w->eng);
    ss_group *g = &w->groups[in->model];
    if (w->tl) ss_tl_wait(w, in, r, now);
    if (g->as) w->hooks.as_start(g, now - r->enqueued_s);
    r->queue_s += now - r->enqueued_s;
    r->started_s = now;
    take_server(g, in, now);
    if (__builtin_expect(g->llm, 0)) { /* an LLM engine's: its steps time it (llm_serve.c) */
        if (w->track) svc_link(in, r);
        w->hooks.llm_start(w, in, r);
        return;
    }
    if (!r->resumed) {
        r->work_s = ss_dist_sample(in->service ? in->service : g->service, g->rng);
        r->service_s += r->work_s;
    }
    r->resumed = 0;
    if (in->pp) { /* the first part of a partitioned replica: its share of the demand */
        w->hooks.pp_started(w, in);
        exec_for(w, in, r, now, w->hooks.pp_exec_s(in, r));
        return;
    }
    if (in->discipline == SS_DISC_PS) {
        if (in->busy == 1) in->ps_since_s = now;
        uint32_t route[2];
        size_t n = 0;
        if (in->link != UINT32_MAX) route[n++] = in->link;
        route[n++] = in->device;
        ss_flow_opts o = {.cap_bps = 8 * w->sc->deploys[in->deploy].threads}; /* bytes/bits: see serve/substrate.c */
        svc_link(in, r);
        r->ev = ss_flow_start(w->cnet, route, n, r->work_s, &o, ps_done, r);
        return;
    }
    exec_for(w, in, r, now, r->work_s);
}

void ss_serve_start(ss_world *w, ss_instance *in, ss_request *r) { serve_start(w, in, r); }

void ss_serve_exec(ss_world *w, ss_instance *in, ss_request *r)
{
    double now = ss_now(w->eng);
    r->started_s = now;
    take_server(&w->groups[in->model], in, now);
    exec_for(w, in, r, now, w->hooks.pp_exec_s(in, r));
}

/* The queue an instance takes its next request from, and its ops. */
static inline const ss_scheduler_ops *qops_of(const ss_world *w, const ss_instance *in)
{
    return in->discipline == SS_DISC_PREEMPT ? &w->prio.pol->ops.scheduler : &w->sched.pol->ops.scheduler;
}

/* A server of in is free: take the next request it may take, if any. */
void ss_serve_pull(ss_world *w, ss_instance *in, double now)
{
    ss_group *g = &w->groups[in->model];
    ss_qitem next;
    if (in->pp && w->hooks.pp_pull(w, in)) return;
    if (in->gate) { /* a time-shared device: its scheduler picks whose queue */
        w->hooks.ctl_gate_free(w, in->gate, now);
        return;
    }
    if (g->shared) {
        if (in->state != SS_INST_UP) return;
        if (w->sched.pol->ops.scheduler.pop(g->queue, now, &next)) {
            g->queued--;
            if (g->as) w->hooks.as_dequeue(g, now, next.seq);
            if (w->ctl) w->hooks.ctl_dequeue(w, in->model, next.enqueued_s);
            serve_start(w, in, next.req);
        } else if (!g->llm) { /* an LLM engine's free servers are not in the ring: the load balancer picks */
            ss_idle_push(g, in);
        }
        return;
    }
    if (qops_of(w, in)->pop(in->queue, now, &next)) {
        g->views[in->index].queued--;
        serve_start(w, in, next.req);
    }
}

/* r's stage is done: on to the next stage, or finished. */
static inline void advance(ss_world *w, ss_request *r)
{
    if (++r->stage < w->sc->tasks[r->task].nstages)
        ss_route(w, r);
    else
        finish(w, r);
}

void ss_serve_advance(ss_world *w, ss_request *r) { advance(w, r); }

/* r's service at in ended (its server freed): the measurements, the next request, a drain's end. */
static inline void ended(ss_world *w, ss_group *g, ss_instance *in, ss_request *r, double now)
{
    if (w->tl) ss_tl_service(w, in, r, now, "done");
    if (g->as) w->hooks.as_done(g);
    if (w->ctl) w->hooks.ctl_done(w, in, r, now);
    if (in->busy == 0) in->idle_since_s = now;
    if (w->track) svc_unlink(in, r);
    ss_serve_pull(w, in, now);
    if (in->state == SS_INST_DRAINING) ss_inst_drained(w, in);
}

static void service_done(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_instance *in = ctx;
    ss_world *w = in->world;
    ss_group *g = &w->groups[in->model];
    ss_request *r = (ss_request *)(uintptr_t)arg;
    double now = ss_now(eng);
    ss_inst_busy_add(w, in, r->started_s, now);
    ss_inst_busy_mark(in, now);
    g->views[in->index].busy = --in->busy;
    if (in->plain) {
        ss_qitem next;
        if (w->sched.pol->ops.scheduler.pop(in->queue, now, &next)) {
            g->views[in->index].queued--;
            plain_start(w, in, next.req);
        }
    } else if (in->pp) { /* a part of a partitioned replica: on to the next part, or done */
        if (w->tl) ss_tl_service(w, in, r, now, "done");
        if (w->track) svc_unlink(in, r);
        w->hooks.pp_exec_done(w, in, r);
        return;
    } else {
        ended(w, g, in, r, now);
    }
    advance(w, r);
}

void ss_serve_end(ss_world *w, ss_instance *in, ss_request *r)
{
    ss_group *g = &w->groups[in->model];
    double now = ss_now(w->eng);
    ss_inst_busy_add(w, in, r->started_s, now);
    ss_inst_busy_mark(in, now);
    g->views[in->index].busy = --in->busy;
    ended(w, g, in, r, now);
    advance(w, r);
}

static void ps_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    ss_request *r = ctx;
    ss_instance *in = r->at;
    ss_world *w = in->world;
    ss_inst_busy_mark(in, now_s);
    w->groups[in->model].views[in->index].busy = --in->busy;
    svc_unlink(in, r);
    if (w->tl) ss_tl_service(w, in, r, now_s, "done");
    if (in->busy == 0) ss_inst_busy_add(w, in, in->ps_since_s, now_s);
    if (w->ctl) w->hooks.ctl_done(w, in, r, now_s);
    if (w->groups[in->model].shared) ss_serve_pull(w, in, now_s); /* a container behind a shared queue */
    if (in->state == SS_INST_DRAINING) ss_inst_drained(w, in);
    advance(w, r);
}

/* Preemptive-resume: r, more urgent than the request in service at in,
 * takes the server; that one goes back to the queue with the work it has
 * left, in its old place.  1 if r preempted. */
static int preempt(ss_world *w, ss_instance *in, ss_request *r)
{
    ss_request *cur = in->serving;
    if (!cur || !(r->priority < cur->priority)) return 0;
    double now = ss_now(w->eng);
    ss_group *g = &w->groups[in->model];
    ss_cancel(w->eng, cur->ev);
    if (w->tl) ss_tl_service(w, in, cur, now, "preempted");
    cur->work_s -= now - cur->started_s;
    if (cur->work_s < 0) cur->work_s = 0;
    cur->resumed = 1;
    ss_inst_busy_add(w, in, cur->started_s, now);
    ss_inst_busy_mark(in, now);
    g->views[in->index].busy = --in->busy;
    svc_unlink(in, cur);
    cur->enqueued_s = now;
    ss_qitem item = {.req = cur, .enqueued_s = now, .priority = cur->priority, .expected_s = g->mean_s,
                     .seq = cur->qseq};
    if (w->prio.pol->ops.scheduler.push(in->queue, &item) != 0) {
        fputs("servesim: out of memory in the scheduler plugin\n", stderr);
        abort();
    }
    g->views[in->index].queued++;
    serve_start(w, in, r);
    return 1;
}

/* The plain path: r waits in in's own queue (index pick in its group), or
 * is dropped when the queue is full. */
static inline void plain_queue(ss_world *w, ss_group *g, ss_instance *in, uint32_t pick, ss_request *r)
{
    ss_instance_view *v = &g->views[pick];
    if (v->queued >= in->capacity) {
        drop(w, r);
        return;
    }
    ss_qitem item = {.req = r, .enqueued_s = r->enqueued_s, .priority = r->priority, .expected_s = g->mean_s,
                     .seq = in->seq++};
    if (w->sched.pol->ops.scheduler.push(in->queue, &item) != 0) {
        fputs("servesim: out of memory in the scheduler plugin\n", stderr);
        abort();
    }
    v->queued++;
}

/* Behind an LLM model's shared queue: the up engine the load balancer
 * picks, if it holds fewer requests than its servers (max_num_seqs), else
 * NULL (r waits in the queue for the first engine to free a server). */
static ss_instance *llm_pick(ss_world *w, ss_group *g, ss_request *r)
{
    uint32_t pick = ss_world_pick(w, r, (uint32_t)(g - w->groups));
    if (pick == UINT32_MAX) return NULL;
    ss_instance *in = g->members[pick];
    return in->busy < in->servers ? in : NULL;
}

static void shared_route(ss_world *w, ss_group *g, ss_request *r)
{
    if (g->as) w->hooks.as_arrive(g);
    /* A free time-shared device of the model first (then its queue holds
     * only r, and its scheduler is asked, as at every pick). */
    ss_gate *gate = w->ctl ? w->hooks.ctl_free_gate(w, g) : NULL;
    ss_instance *in = gate ? NULL : g->llm ? llm_pick(w, g, r) : ss_idle_pop(w, g);
    if (in) {
        serve_start(w, in, r);
        return;
    }
    if (g->queued >= g->capacity) {
        drop(w, r);
        return;
    }
    ss_qitem item = {.req = r, .enqueued_s = r->enqueued_s, .priority = r->priority, .expected_s = g->mean_s,
                     .seq = g->seq++};
    if (w->sched.pol->ops.scheduler.push(g->queue, &item) != 0) {
        fputs("servesim: out of memory in the scheduler plugin\n", stderr);
        abort();
    }
    g->queued++;
    if (g->as) w->hooks.as_enqueue(g, r->enqueued_s, item.seq, r->enqueued_s);
    if (w->ctl) w->hooks.ctl_enqueue(w, (uint32_t)(g - w->groups), r->enqueued_s);
    if (gate) w->hooks.ctl_gate_free(w, gate, r->enqueued_s);
}

int ss_world_admit(ss_world *w, ss_request *r)
{
    uint32_t m = w->sc->tasks[r->task].stages[0];
    const ss_group *g = &w->groups[m];
    ss_admission_view v = {.model = m, .now_s = ss_now(w->eng), .queued = (uint32_t)g->queued};
    for (uint32_t i = 0; i < g->n; i++) {
        v.queued += g->views[i].queued;
        v.in_flight += g->views[i].busy;
        v.up += g->views[i].up != 0;
    }
    v.in_flight += v.queued;
    ss_qitem probe = {.req = r, .enqueued_s = v.now_s, .priority = r->priority, .expected_s = g->mean_s};
    return w->adm.pol->ops.admission.admit(w->adm_state, &v, &probe) != 0;
}

/* Send r to an instance of its current stage's model. */
void ss_route(ss_world *w, ss_request *r)
{
    if (w->route_hook) {
        w->route_hook(w, r);
        return;
    }
    const ss_task_cfg *t = &w->sc->tasks[r->task];
    uint32_t m = t->stages[r->stage];
    ss_group *g = &w->groups[m];
    r->enqueued_s = ss_now(w->eng);
    if (g->solo) { /* one instance, up and plain: no load balancer, no checks */
        ss_instance *in = g->solo;
        if (in->busy < in->servers) {
            plain_start(w, in, r);
            return;
        }
        plain_queue(w, g, in, 0, r);
        return;
    }
    if (g->shared) {
        shared_route(w, g, r);
        return;
    }
    uint32_t pick = ss_world_pick(w, r, m);
    if (pick == UINT32_MAX) { /* no instance of the model is up */
        drop(w, r);
        return;
    }
    ss_instance *in = g->members[pick];
    if (in->plain) {
        if (in->busy < in->servers) {
            plain_start(w, in, r);
            return;
        }
        plain_queue(w, g, in, pick, r);
        return;
    }
    if (in->discipline == SS_DISC_PREEMPT) r->qseq = in->seq++;
    if (in->busy < in->servers) {
        serve_start(w, in, r);
        return;
    }
    if (in->discipline == SS_DISC_PREEMPT && preempt(w, in, r)) return;
    ss_instance_view *v = &g->views[pick];
    if (v->queued >= in->capacity) {
        drop(w, r);
        return;
    }
    ss_qitem item = {.req = r, .enqueued_s = r->enqueued_s, .priority = r->priority, .expected_s = g->mean_s,
                     .seq = in->discipline == SS_DISC_PREEMPT ? r->qseq : in->seq++};
    if (qops_of(w, in)->push(in->queue, &item) != 0) {
        fputs("servesim: out of memory in the scheduler plugin\n", stderr);
        abort();
    }
    v->queued++;
}

/* The same, for pipeline.c (kept apart so that the serving path inlines them). */
void ss_world_finish(ss_world *w, ss_request *r) { finish(w, r); }
void ss_world_drop(ss_world *w, ss_request *r) { drop(w, r); }

int ss_world_policy_init(ss_world *w, const ss_plugin *pl, const ss_policy_cfg *pc, gsl_rng *rng, void **state,
                         ss_err *err)
{
    const char *const *ok = pl->pol->params;
    for (size_t i = 0; i < pc->nparams; i++) {
        int known = 0;
        for (size_t k = 0; ok && ok[k]; k++) known |= strcmp(ok[k], pc->params[i].key) == 0;
        if (!known) {
            const char *near = ss_suggest(pc->params[i].key, ok);
            const char *file = pc->param_file ? pc->param_file[i] : pc->file;
            return ss_err_at(err, file, pc->param_pos[i][0], pc->param_pos[i][1],
                             "policy '%s' has no parameter '%s'%s%s%s", pc->name, pc->params[i].key,
                             near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
    }
    ss_params params = {pc->params, pc->nparams};
    ss_policy_init args = {.params = &params,
                           .env = {.rng = rng, .uniform = ss_rng_uniform, .uniform_int = ss_rng_uniform_int},
                           .ngroups = (uint32_t)w->sc->nmodels};
    *state = NULL;
    if (pl->pol->init) {
        char msg[512] = "";
        if (pl->pol->init(state, &args, msg, sizeof msg) != 0)
            return ss_err_at(err, pc->file, pc->line, pc->col, "policy '%s': %s", pc->name,
                             msg[0] ? msg : "initialisation failed");
    }
    return 0;
}

int ss_world_load_policy(ss_world *w, const ss_policy_cfg *pc, ss_policy_kind kind, ss_plugin *pl, void **state,
                         gsl_rng **rng, const char *stream, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    *state = NULL;
    if (ss_plugin_load(pl, pc->name, kind, sc->dir, pc->file, pc->line, pc->col, err) < 0) return -1;
    *rng = ss_rng_stream(sc->seed, w->rep, stream);
    return ss_world_policy_init(w, pl, pc, *rng, state, err);
}

/* A histogram quantile clamped to the exact range seen: the bucket
 * midpoint may lie just outside it (a p99.9 above the max, or 1 ns for a
 * queue where nobody waited). */
static double quantile(const ss_hist *h, const ss_stat *s, double q)
{
    if (s->n == 0) return 0;
    double v = ss_hist_quantile(h, q);
    return v < s->min ? s->min : v > s->max ? s->max : v;
}

void ss_task_result_fill(const ss_task_stats *s, const char *name, double window_s, ss_task_result *t)
{
    t->name = ss_xstrdup(name);
    t->arrived = s->arrived;
    t->completed = s->completed;
    t->dropped = s->dropped;
    t->throughput_rps = window_s > 0 ? (double)s->completed / window_s : 0;
    t->latency_mean_s = ss_stat_mean(&s->latency);
    t->latency_p50_s = quantile(s->lat_hist, &s->latency, 0.50);
    t->latency_p90_s = quantile(s->lat_hist, &s->latency, 0.90);
    t->latency_p95_s = quantile(s->lat_hist, &s->latency, 0.95);
    t->latency_p99_s = quantile(s->lat_hist, &s->latency, 0.99);
    t->latency_p999_s = quantile(s->lat_hist, &s->latency, 0.999);
    t->latency_max_s = s->latency.n ? s->latency.max : 0;
    t->queue_mean_s = ss_stat_mean(&s->queueing);
    t->queue_p99_s = quantile(s->queue_hist, &s->queueing, 0.99);
    t->wait_prob = s->completed ? (double)s->waited / (double)s->completed : 0;
}

void ss_world_declare_extra(ss_world *w, const char *col)
{
    w->extra_cols = ss_xrealloc(w->extra_cols, (w->nextra_cols + 1) * sizeof *w->extra_cols);
    w->extra_cols[w->nextra_cols++] = ss_xstrdup(col);
}

void ss_world_warmup_over(ss_world *w)
{
    double now = ss_now(w->eng);
    if (now > w->warmup_end_s) {
        w->warmup_end_s = now;
        w->done_in_window = 0; /* the window starts here: completions before it are warm-up's */
    }
    for (size_t i = 0; i < w->ninst; i++) w->inst[i]->busy_s = 0;
    if (w->warmup_hook) w->warmup_hook(w);
}
