/* serve.h: the substrate's inside - the world, its requests, instances and
 * groups - and the serving path's API (serve.c, lifecycle.c, timeline.c),
 * shared by the files of sim/serve/ and by the systems above them
 * (sim/elastic, sim/control, sim/pipeline, sim/edge, sim/ensemble) and the
 * assembly (sim/world).  Everything here sits below those rooms: what a
 * system plugs into the serving path it plugs in through ss_hooks, so no
 * include and no call points back up. */
#ifndef SS_WORLD_INTERNAL_H
#define SS_WORLD_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "core/engine.h"
#include "core/metrics.h"
#include "core/flow.h"
#include "input/scenario.h"
#include "serve/plugin.h"
#include "serve/result.h"

typedef struct ss_world ss_world;

/* The bytes of a request that a system above keeps for itself (a block
 * pipeline's hop state, pipe_req.h), as Linux's sk_buff keeps its cb[]:
 * the substrate never reads them, and clears them for a block pipeline's
 * world only (w->pipe). */
#define SS_REQ_CB_BYTES 176

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
    int resumed;          /* preempted: its next service resumes work_s instead of drawing anew */
    uint32_t prompt_tokens, output_tokens; /* an LLM request's lengths from its trace row, 0 0: none (llm_serve.c
                                            * draws them) */
    double service_s;     /* service demand drawn so far, over all stages (requests CSV) */
    double work_s;        /* demand of its current stage still to serve (preemption) */
    uint64_t ev;          /* its service-end event, or its flow on the compute net (ps) */
    uint64_t qseq;        /* its place in its queue's order, kept across preemptions */
    struct ss_instance *at; /* instance serving it (tracked: scenarios with fail events, ps, preemption) */
    struct ss_request *svc_prev, *svc_next; /* in `at`'s list of requests in service (tracked only) */
    struct ss_request *next_free;
    _Alignas(double) unsigned char cb[SS_REQ_CB_BYTES]; /* a system's own (above); last, so serving clears only the rest */
} ss_request;

/* An instance's life: starting -> up (idle or busy) -> draining -> stopped,
 * or failed from any state.  Only an up instance takes new requests. */
typedef enum { SS_INST_STARTING, SS_INST_UP, SS_INST_DRAINING, SS_INST_STOPPED, SS_INST_FAILED } ss_inst_state;

typedef struct ss_instance {
    /* What the serving path reads for every request, first (one cache line). */
    struct ss_world *world;
    uint32_t model, index;  /* its model, its position in the model's group */
    int plain;            /* up, FIFO, its own queue, nothing tracked: the fast path of serve.c */
    uint32_t servers;     /* parallel servers sharing the queue */
    uint32_t busy;        /* servers busy now */
    uint32_t device;
    uint64_t capacity;    /* waiting requests allowed (ps: requests held) */
    uint64_t seq;         /* queue arrival counter (FIFO tie-break) */
    void *queue;          /* the scheduler plugin's queue (the group's when shared) */
    double busy_s;        /* server-seconds busy inside the measured window */
    double area_s;        /* server-seconds busy since the start, up to changed_s (time series) */
    double changed_s;     /* when `busy` last changed */
    /* The life cycle and the other disciplines. */
    uint32_t id;          /* creation order in the world */
    uint32_t deploy;      /* its deployment entry */
    uint32_t ordinal;     /* among the instances of its model on its device, in creation order */
    ss_inst_state state;
    ss_discipline discipline;
    uint32_t gen;         /* bumped when it goes down: stale idle-ring entries are skipped */
    uint32_t link;        /* ps: its own link on the compute net (capacity: its cap), else UINT32_MAX */
    ss_request *serving;  /* requests in service, when tracked */
    double born_s;        /* created (instance-seconds count from here ...) */
    double gone_s;        /* ... to stopped or failed (INFINITY while alive) */
    double ps_since_s;    /* ps: busy (holding a request) since */
    double up_s;          /* came up (INFINITY while starting) */
    double idle_since_s;  /* its last request ended (or it came up) */
    struct ss_cold *cold; /* its cold start in progress (coldstart.c), or NULL */
    struct ss_parted *pp; /* the partitioned replica it is a part of (coldstart_parts.c), or NULL */
    uint32_t pp_k;        /* ... which part: 0 pulls from the queue, the last one ends requests */
    int retired;          /* stopped and folded into the world's sums: the record waits for reuse */
    struct ss_gate *gate; /* the time-shared device it is an executable of (control.c), or NULL */
    const ss_dist *service; /* its demand's distribution when not the model's (a CPU's cpu_service), or NULL */
    struct ss_instance *next_spare; /* in the world's list of records to reuse */
} ss_instance;

/* All instances of one model, in creation order. */
typedef struct ss_group {
    uint32_t n, cap;
    ss_instance **members;   /* index in the group -> instance */
    ss_instance_view *views; /* what the load balancer sees, kept current */
    /* A shared queue (deployment `queue: shared`): one queue that every
     * instance of the model pulls from; the load balancer is not asked. */
    int shared;
    void *queue;
    uint64_t seq, queued, capacity;
    uint32_t *idle;          /* ring of free servers, (instance id, gen) pairs: longest idle first */
    uint32_t idle_head, idle_n, idle_cap;
    uint32_t nup;            /* instances up now */
    struct ss_instance *solo; /* the group's only instance when it is up and plain (the fastest path), else NULL */
    struct ss_as_model *as;  /* the autoscaler's measurements of this model (autoscale.c), or NULL */
    int llm;                 /* served by LLM engines (sim/llm/llm_serve.c): a service is the engine's, never drawn */
    const ss_dist *service;
    double mean_s;
    gsl_rng *rng;            /* "model/<name>/service" */
} ss_group;

typedef struct ss_task_stats {
    uint64_t arrived, completed, dropped;
    uint64_t waited;         /* completed after waiting in a queue at all */
    ss_stat latency, queueing;
    ss_hist *lat_hist, *queue_hist;
} ss_task_stats;

typedef struct ss_source ss_source; /* workload.c */
typedef struct ss_gate ss_gate;     /* a time-shared device (sim/control) */

/* What the systems above the substrate plug into the serving path and the
 * life cycle.  The substrate never names a system: a system sets its hooks
 * when it is built, and serve.c and lifecycle.c call them only under the
 * condition given with each group (the system's state is then set). */
typedef struct ss_hooks {
    /* The autoscaler's measurements of a model's shared queue (sim/elastic/autoscale.c): when g->as. */
    void (*as_arrive)(ss_group *g);                                            /* a request arrives */
    void (*as_enqueue)(ss_group *g, double now, uint64_t seq, double enqueued_s); /* ... joins the queue */
    void (*as_dequeue)(ss_group *g, double now, uint64_t seq);                 /* ... and leaves it */
    void (*as_start)(ss_group *g, double wait_s);                              /* a service starts */
    void (*as_done)(ss_group *g);                                              /* a service ends */
    /* Cold starts (sim/elastic/coldstart.c): when w->cs. */
    void (*cs_born)(ss_world *w, ss_instance *in);             /* an instance was created */
    void (*cs_gone)(ss_world *w, ss_instance *in, int stopped); /* ... stopped or failed */
    /* Partitioned replicas (sim/elastic/coldstart_parts.c): for an instance with in->pp. */
    double (*pp_exec_s)(const ss_instance *in, const ss_request *r); /* the part's share of r's demand */
    void (*pp_started)(ss_world *w, ss_instance *in);                 /* the first part took a request */
    void (*pp_exec_done)(ss_world *w, ss_instance *in, ss_request *r); /* a part finished its share of r */
    int (*pp_pull)(ss_world *w, ss_instance *in);        /* a part is free: 1 if it took care of it */
    int (*pp_may_stop)(const ss_instance *in);           /* a draining part may stop */
    void (*pp_gone)(ss_world *w, ss_instance *in);       /* a part stopped */
    /* Time-shared devices and controlled containers (sim/control/control.c): when w->ctl
     * (ctl_gate_free: for an instance with in->gate). */
    ss_gate *(*ctl_free_gate)(ss_world *w, const ss_group *g);       /* a free time-shared device of g's model */
    void (*ctl_gate_free)(ss_world *w, ss_gate *gt, double now);     /* an executable of gt ended a service */
    void (*ctl_done)(ss_world *w, const ss_instance *in, const ss_request *r, double now); /* r's service ended */
    void (*ctl_enqueue)(ss_world *w, uint32_t m, double enqueued_s); /* a request joined m's shared queue */
    void (*ctl_dequeue)(ss_world *w, uint32_t m, double enqueued_s); /* ... and left it */
    int (*ctl_set_cores)(ss_world *w, const ss_instance *in, double cores); /* a scripted capacity event */
    double (*ctl_cores)(const ss_world *w, uint32_t m);               /* model m's containers' cores now */
    double (*ctl_rt_mean)(const ss_world *w, uint32_t m, double now, double span_s); /* its recent mean */
    /* LLM engines (sim/llm/llm_serve.c): for a group with g->llm.  llm_start hands r (a server of in
     * taken) to in's engine, which ends it by ss_serve_end; the figures an autoscaler and the time
     * series read of model m: output tokens so far, the mean fraction of KV blocks held over its up
     * engines now, the mean TTFT of the requests whose first token came since the last call (NAN: none). */
    void (*llm_start)(ss_world *w, ss_instance *in, ss_request *r);
    uint64_t (*llm_tokens)(const ss_world *w, uint32_t m);
    double (*llm_kv_use)(const ss_world *w, uint32_t m);
    double (*llm_ttft_recent)(ss_world *w, uint32_t m);
    /* ... the index in model m's group of the engine holding r's cached prefix, or UINT32_MAX */
    uint32_t (*llm_affinity)(ss_world *w, const ss_request *r, uint32_t m);
    /* ... instance in failed: its engine lets go of every request it held (the substrate re-routes or
     * loses them: they are on in->serving) */
    void (*llm_failed)(ss_world *w, ss_instance *in);
    /* ... the LLM columns of r's row in the per-request CSV (",prompt,output,ttft,tpot,preemptions,cached";
     * empty fields for a request no engine finished): when set (the world has LLM models) */
    void (*llm_req_cols)(const ss_world *w, const ss_request *r, FILE *fp);
    /* A system whose time-series rows are its own (sim/llm/llm_world.c: one per engine): when set,
     * a sample (timeseries.c) calls it at now instead of writing the models' rows. */
    void (*ts_rows)(ss_world *w, double now);
} ss_hooks;

struct ss_world {
    const ss_scenario *sc;
    uint32_t rep;
    ss_engine *eng;
    ss_plugin lb, sched;
    void *lb_state, *sched_state;
    gsl_rng *lb_rng, *sched_rng;
    ss_plugin adm;           /* the admission policy (`policies.admission`), adm.pol NULL: none */
    void *adm_state;
    gsl_rng *adm_rng;
    ss_group *groups;        /* per model */
    ss_instance **inst;      /* every instance record, by id (stable addresses; see retirement below) */
    size_t ninst, inst_cap;
    /* Retirement (lifecycle.c): an autoscaled run's stopped instances are
     * folded into these sums and their records reused, so memory follows
     * the replicas alive, not the replicas ever started. */
    ss_instance *spare;      /* retired records, to reuse (id and generation kept) */
    double *retired_life_s;  /* per model: instance-seconds of retired instances, birth to stop */
    double *retired_window_s;/* per model: ... inside the measured window */
    double *retired_area_s;  /* per model: their busy server-seconds since the start */
    double *retired_up_s;    /* per model: their seconds up */
    double *retired_busy_s;  /* per device: their busy server-seconds inside the measured window */
    /* Per device, the servers of its live instances now and the most at
     * the end of any instant so far (the utilisation denominator). */
    uint32_t *dev_servers, *dev_peak;
    double *dev_changed_s;
    ss_plugin prio;          /* the `priority` queue, for preemptive-priority instances (else unloaded) */
    void *prio_state;
    struct ss_flownet *fnet; /* the topology's links (sc->topo) as a max-min network, shared by every system
                              * that moves bytes over the fabric (cold starts, LLM KV transfers), or NULL */
    struct ss_flownet *cnet; /* the compute net: one link per device (its capacity), one per capped ps
                              * instance; ps requests are flows over it (core/flow.h), or NULL */
    int track;               /* keep each instance's list of requests in service (fail events, ps, preemption) */
    int clear_cb;            /* a system keeps state in requests' cb[] (a block pipeline, LLM engines): cleared
                              * when each is made */
    ss_task_stats *wstats;   /* per workload, when some task has two or more workloads, else NULL */
    uint64_t lost;           /* measured requests lost with a failed instance */
    uint64_t ended[3];       /* every request (measured or not) that finished, was dropped, was lost */
    char *broken;            /* what the end-of-run checks found wrong (ss_world_check), or NULL */
    char *failed;            /* why the run failed: it stalled with requests waiting (autoscale.c), or a
                              * plugin answered what it may not (coldstart_parts.c); NULL if neither */
    struct ss_timeline *tl;  /* the timeline being written (timeline.c), or NULL */
    struct ss_autoscaler *autoscaler; /* autoscale.c, or NULL */
    struct ss_coldstart *cs; /* cold starts on a topology's GPUs (coldstart.c, `placement:`), or NULL */
    struct ss_control *ctl;  /* time-shared devices and controlled containers (control.c), or NULL */
    ss_hooks hooks;          /* set by the systems above at their build */
    uint32_t daemons;        /* background events on the calendar (time-series samples, autoscaler
                              * ticks): they reschedule only while something else is pending */
    uint32_t *made;          /* per deployment entry: instances created from it so far */
    ss_source *sources;      /* per workload */
    ss_task_stats *stats;    /* per task ("all" is merged from them at the end) */
    uint64_t generated, next_id;
    int measuring;           /* warm-up over */
    double warmup_end_s, last_completion_s;
    double last_done_s;      /* the last request finished or dropped */
    uint64_t done_in_window; /* completions in [warmup_end_s, duration_s), measured or not */
    ss_request *free_reqs;
    ss_request **chunks;
    size_t nchunks, in_flight, peak_in_flight;
    FILE *req_csv;
    FILE *ts_csv;            /* time-series samples (timeseries.c), or NULL */
    double ts_interval_s;
    int ts_control;          /* the time series has the control columns */
    double *ts_area_prev;    /* per model: busy server-seconds at the previous sample */
    uint64_t *ts_arrivals;   /* per model: requests created for it since the previous sample (workload.c) */
    double wall_s;
    struct ss_pipe *pipe;    /* block pipeline (pipeline.c), or NULL */
    /* Hooks a kind-specific world or the sources set at build (NULL: none). */
    void (*route_hook)(struct ss_world *w, ss_request *r);        /* replaces plain routing (pipelines) */
    void (*warmup_hook)(struct ss_world *w);                      /* the warm-up ended (pipelines) */
    void (*client_done)(struct ss_world *w, const ss_request *r); /* a closed-loop client's request ended */
    struct ss_edge_world *edge; /* an edge-device world (edge_world.c), or NULL */
    struct ss_ens_world *ens;   /* an ensemble world (ensemble.c), or NULL */
    struct ss_llm_world *llm;   /* an LLM-serving world (llm_world.c), or NULL */
    struct ss_llm_serve *llms;  /* models served by LLM engines (llm_serve.c), or NULL */
    char **extra_cols;       /* ss_world_extra_columns: names subsystems declare at build (owned) */
    size_t nextra_cols;
};

/* serve.c */
ss_request *ss_req_new(ss_world *w);
/* Load, check and initialise the policy `pc` of `kind` with its own stream
 * `stream`; errors positioned at the scenario line that named it. */
int ss_world_load_policy(ss_world *w, const ss_policy_cfg *pc, ss_policy_kind kind, ss_plugin *pl, void **state,
                         gsl_rng **rng, const char *stream, ss_err *err);
/* Check pc's parameters against the loaded plugin pl and initialise one more
 * state of it (a model's own autoscaler parameters), drawing from rng. */
int ss_world_policy_init(ss_world *w, const ss_plugin *pl, const ss_policy_cfg *pc, gsl_rng *rng, void **state,
                         ss_err *err);
/* One result row from a task's statistics over a window of window_s. */
void ss_task_result_fill(const ss_task_stats *s, const char *name, double window_s, ss_task_result *t);
void ss_route(ss_world *w, ss_request *r);
/* Does the admission policy (w->adm.pol, set) let r, just made, in at its task's first model? */
int ss_world_admit(ss_world *w, ss_request *r);
/* Called when the warm-up ends by request count: restart busy-time accounting. */
void ss_world_warmup_over(ss_world *w);

/* serve.c: start (or resume) r's service at in; a free server of in takes
 * the next request it may. */
void ss_serve_start(ss_world *w, ss_instance *in, ss_request *r);
void ss_serve_pull(ss_world *w, ss_instance *in, double now);
/* serve.c, for partitioned replicas: run r's share at part `in` (not the
 * first: it continues the demand the first part drew); r is done. */
void ss_serve_exec(ss_world *w, ss_instance *in, ss_request *r);
/* serve.c, for LLM engines (g->llm): r's service at in ended now (its server freed, the next request
 * pulled, a draining instance stopped if empty, r on to its next stage or finished). */
void ss_serve_end(ss_world *w, ss_instance *in, ss_request *r);
void ss_serve_advance(ss_world *w, ss_request *r);

/* lifecycle.c: instances that come and go (starting, up, draining,
 * stopped, failed), the shared queues' ring of free servers, the scripted
 * events. */
ss_instance *ss_inst_create(ss_world *w, uint32_t deploy, double now);
void ss_inst_up(ss_world *w, ss_instance *in);
/* ... at at_s, unless it stopped before (its record may be reused meanwhile). */
void ss_inst_up_at(ss_world *w, ss_instance *in, double at_s);
/* Stop taking requests, serve what it holds, then stop (a starting one stops at once). */
void ss_inst_drain(ss_world *w, ss_instance *in);
/* A draining instance stops once it holds nothing. */
void ss_inst_drained(ss_world *w, ss_instance *in);
void ss_idle_push(ss_group *g, ss_instance *in);
/* Recompute g->solo after its instances or their states changed. */
void ss_group_refresh(ss_group *g);
ss_instance *ss_idle_pop(ss_world *w, ss_group *g);
/* Schedule the scenario's events (at build). */
void ss_events_start(ss_world *w);
/* Instance-seconds of model m from the start (measured = 0) or from the
 * end of the warm-up (measured = 1) to to_s; to_s is now or later than
 * every retired instance's stop. */
double ss_instance_seconds(const ss_world *w, uint32_t m, int measured, double to_s);
/* Fold the instances of model m that stopped by the last request's end
 * into the world's sums and keep their records for reuse (autoscaled runs
 * with a shared queue, no scripted events and no timeline; else nothing). */
void ss_inst_retire(ss_world *w, uint32_t m);
/* Busy and up seconds of model m's instances, retired ones included, up to now. */
void ss_inst_areas(const ss_world *w, uint32_t m, double now, double *busy_s, double *up_s);

/* A container's speed at c cores, in one-core work per second: linear up to
 * one core (a CPU quota below one core throttles), Amdahl above it with
 * serial fraction s (docs/control.md). */
static inline double ss_speedup(double s, double c)
{
    return c <= 1 ? c : 1 / (s + (1 - s) / c);
}

/* The capacity of a ps instance's link for a cap of `cap` device units:
 * on a CPU, cores become the model's speed (ss_speedup); a GPU's is as given. */
static inline double ss_cap_speed(const ss_scenario *sc, uint32_t model, uint32_t device, double cap)
{
    return sc->devices[device].kind == SS_DEV_CPU ? ss_speedup(sc->models[model].serial_fraction, cap) : cap;
}

/* timeline.c: hooks of the timeline (call only when w->tl is set). */
typedef struct ss_timeline ss_timeline;
int ss_tl_sampled(const ss_world *w, const ss_request *r);
void ss_tl_wait(ss_world *w, const ss_instance *in, const ss_request *r, double now);
void ss_tl_service(ss_world *w, const ss_instance *in, const ss_request *r, double now, const char *how);
void ss_tl_request(ss_world *w, const ss_request *r, const char *outcome);
void ss_tl_mark(ss_world *w, uint32_t device, const char *what);
/* A slice on a device's process (cold starts), if from_s is in the window;
 * an instant event on the world's requests process (decisions). */
void ss_tl_span(ss_world *w, uint32_t device, const char *cat, const char *name, uint64_t id, double from_s,
                double to_s, const char *args);
void ss_tl_note(ss_world *w, const char *what);
/* A slice of a sampled request's own (a pipeline hop, say). */
void ss_tl_request_span(ss_world *w, const ss_request *r, const char *name, double from_s, double to_s);
void ss_timeline_free(ss_world *w);

/* serve.c, for pipeline.c and edge_world.c: the end of a request and
 * empty task statistics. */
void ss_world_finish(ss_world *w, ss_request *r);
void ss_world_drop(ss_world *w, ss_request *r);
void ss_world_lose(ss_world *w, ss_request *r);
void ss_task_stats_init(ss_task_stats *t);

/* Anything on the calendar besides the background events?  A background
 * event (a time-series sample, an autoscaler tick) reschedules itself only
 * then, so that two of them never keep a finished run alive. */
static inline int ss_world_active(const ss_world *w) { return ss_engine_pending(w->eng) > w->daemons; }

/* A request (or an edge job, an ensemble request) completed now: counted for
 * ss_run_result.window_throughput_rps if now is inside [end of warm-up, end
 * of arrivals), whenever it was made - the count a load generator's window sees. */
static inline void ss_world_count_done(ss_world *w, double now)
{
    if (now >= w->warmup_end_s && now < w->sc->duration_s) w->done_in_window++;
}

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

/* Index in model m's group of the up instance the load balancer gives r
 * (the only instance without asking it), or UINT32_MAX if none is up.
 * Inline: the serving hot path. */
static inline uint32_t ss_world_pick(ss_world *w, ss_request *r, uint32_t m)
{
    ss_group *g = &w->groups[m];
    if (g->n == 1 && g->views[0].up) return 0;
    if (g->nup == 0) return UINT32_MAX; /* nothing takes requests now */
    ss_lb_ctx ctx = {.inst = g->views, .n = g->n, .group = m, .now_s = ss_now(w->eng),
                     .affinity = g->llm ? w->hooks.llm_affinity(w, r, m) : UINT32_MAX};
    ss_qitem probe = {.req = r, .enqueued_s = ctx.now_s, .priority = r->priority, .expected_s = g->mean_s};
    uint32_t pick = w->lb.pol->ops.load_balancer.pick(w->lb_state, &ctx, &probe);
    if (pick < g->n && g->views[pick].up) return pick;
    for (pick = 0; !g->views[pick].up; pick++) { /* a misbehaving plugin must not crash the run */
    }
    return pick;
}
/* Declare, while building w, an extra result column its results will carry
 * (ss_world_extra_columns); the name is copied. */
void ss_world_declare_extra(ss_world *w, const char *col);

#endif
