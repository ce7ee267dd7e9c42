/* serve.h: the world's insides and the serving path's API
 * (serve.c), shared by the files of sim/serve/ and by nothing else: the
 * kind-specific worlds (pipeline.c, edge_world.c), the request sources
 * (workload.c), the time series, and world.c, which builds them all.
 * Everything here sits below those files: what a kind-specific world
 * plugs into the serving path it plugs in through the hooks below, so no
 * include points back up. */
#ifndef SS_WORLD_INTERNAL_H
#define SS_WORLD_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "core/engine.h"
#include "core/metrics.h"
#include "serve/pipe_req.h"
#include "input/scenario.h"
#include "serve/plugin.h"
#include "serve/result.h"

typedef struct ss_world ss_world;

typedef struct ss_request {
    uint64_t id;          /* creation order in this run, from 0 */
    double created_s;     /* entered the system */
    double enqueued_s;    /* joined its current queue */
    double started_s;     /* its current service began */
    double queue_s;       /* total time spent waiting, over all stages */
    double priority;
    uint32_t workload, task, stage;
    uint32_t client;      /* closed-loop client index, or UINT32_MAX */
    int measured;         /* created after the warm-up */
    struct ss_request *next_free;
    ss_pipe_req pipe;     /* block pipelines only (pipeline.c); last, so serving clears only the rest */
} ss_request;

typedef struct ss_instance {
    struct ss_world *world;
    uint32_t model, device;
    uint32_t index;       /* position in its model's group */
    uint64_t capacity;    /* waiting requests allowed */
    uint64_t seq;         /* queue arrival counter (FIFO tie-break) */
    void *queue;          /* the scheduler plugin's queue */
    uint32_t servers;     /* parallel servers sharing the queue */
    uint32_t busy;        /* servers busy now */
    double busy_s;        /* server-seconds busy inside the measured window */
    double area_s;        /* server-seconds busy since the start, up to changed_s (time series) */
    double changed_s;     /* when `busy` last changed */
} ss_instance;

/* All instances of one model, contiguous in ss_world.inst. */
typedef struct ss_group {
    uint32_t first, n;
    ss_instance_view *views; /* what the load balancer sees, kept current */
    const ss_dist *service;
    double mean_s;
    gsl_rng *rng;            /* "model/<name>/service" */
} ss_group;

typedef struct ss_task_stats {
    uint64_t arrived, completed, dropped;
    ss_stat latency, queueing;
    ss_hist *lat_hist, *queue_hist;
} ss_task_stats;

typedef struct ss_source ss_source; /* workload.c */

struct ss_world {
    const ss_scenario *sc;
    uint32_t rep;
    ss_engine *eng;
    ss_plugin lb, sched;
    void *lb_state, *sched_state;
    gsl_rng *lb_rng, *sched_rng;
    ss_group *groups;        /* per model */
    ss_instance *inst;
    size_t ninst;
    ss_source *sources;      /* per workload */
    ss_task_stats *stats;    /* per task ("all" is merged from them at the end) */
    uint64_t generated, next_id;
    int measuring;           /* warm-up over */
    double warmup_end_s, last_completion_s;
    double last_done_s;      /* the last request finished or dropped */
    ss_request *free_reqs;
    ss_request **chunks;
    size_t nchunks, in_flight, peak_in_flight;
    FILE *req_csv;
    FILE *ts_csv;            /* time-series samples (timeseries.c), or NULL */
    double ts_interval_s;
    double *ts_area_prev;    /* per model: busy server-seconds at the previous sample */
    double wall_s;
    struct ss_pipe *pipe;    /* block pipeline (pipeline.c), or NULL */
    /* Hooks a kind-specific world or the sources set at build (NULL: none). */
    void (*route_hook)(struct ss_world *w, ss_request *r);        /* replaces plain routing (pipelines) */
    void (*warmup_hook)(struct ss_world *w);                      /* the warm-up ended (pipelines) */
    void (*client_done)(struct ss_world *w, const ss_request *r); /* a closed-loop client's request ended */
    struct ss_edge_world *edge; /* an edge-device world (edge_world.c), or NULL */
    char **extra_cols;       /* ss_world_extra_columns: names subsystems declare at build (owned) */
    size_t nextra_cols;
};

/* serve.c */
ss_request *ss_req_new(ss_world *w);
/* Load, check and initialise the policy `pc` of `kind` with its own stream
 * `stream`; errors positioned at the scenario line that named it. */
int ss_world_load_policy(ss_world *w, const ss_policy_cfg *pc, ss_policy_kind kind, ss_plugin *pl, void **state,
                         gsl_rng **rng, const char *stream, ss_err *err);
/* One result row from a task's statistics over a window of window_s. */
void ss_task_result_fill(const ss_task_stats *s, const char *name, double window_s, ss_task_result *t);
void ss_route(ss_world *w, ss_request *r);
/* Called when the warm-up ends by request count: restart busy-time accounting. */
void ss_world_warmup_over(ss_world *w);

/* serve.c, for pipeline.c and edge_world.c: the end of a request and
 * empty task statistics. */
void ss_world_finish(ss_world *w, ss_request *r);
void ss_world_drop(ss_world *w, ss_request *r);
void ss_task_stats_init(ss_task_stats *t);

/* Busy time accrues only inside the measured window [warmup_end_s, end). */
static inline void ss_inst_busy_add(ss_world *w, ss_instance *in, double from_s, double to_s)
{
    if (from_s < w->warmup_end_s) from_s = w->warmup_end_s;
    if (to_s > from_s) in->busy_s += to_s - from_s;
}

/* The integral of busy servers over time, for the time series: brought up
 * to date just before `busy` changes. */
static inline void ss_inst_busy_mark(ss_instance *in, double now)
{
    in->area_s += (double)in->busy * (now - in->changed_s);
    in->changed_s = now;
}

/* Index in model m's group of the instance the load balancer gives r
 * (the only instance without asking it).  Inline: the serving hot path. */
static inline uint32_t ss_world_pick(ss_world *w, ss_request *r, uint32_t m)
{
    ss_group *g = &w->groups[m];
    if (g->n <= 1) return 0;
    ss_lb_ctx ctx = {.inst = g->views, .n = g->n, .group = m, .now_s = ss_now(w->eng)};
    ss_qitem probe = {.req = r, .enqueued_s = ctx.now_s, .priority = r->priority, .expected_s = g->mean_s};
    uint32_t pick = w->lb.pol->ops.load_balancer.pick(w->lb_state, &ctx, &probe);
    return pick < g->n ? pick : 0; /* a misbehaving plugin must not crash the run */
}

/* Declare, while building w, an extra result column its results will carry
 * (ss_world_extra_columns); the name is copied. */
void ss_world_declare_extra(ss_world *w, const char *col);

#endif
