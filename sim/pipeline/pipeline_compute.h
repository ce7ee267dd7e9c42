/* pipeline_compute.h: the compute net of a block pipeline whose scenario
 * says `pipeline: {compute: shared}` (docs/blockflow.md, "Shared compute"):
 * every host's CPU and every GPU is a link of the max-min sharing solver
 * (core/flow.h), and a piece of work is a flow over its link, so the
 * processes of one host share its cores and the processes of one GPU share
 * the GPU, as SimGrid shares a host's cores among its activities.
 *
 * Units: work in seconds of one core (CPU) or of one GPU alone (a GPU
 * kernel stream); capacities in cores and GPUs.  The solver counts bits, so
 * a second of work is carried as one byte and a capacity of c as 8c bit/s
 * (as the substrate's compute net does, serve/substrate.c).
 *
 *  - A host's CPU: capacity = its cores (given by the caller; 0 = not
 *    declared: no link, every activity there runs at one core whatever
 *    else runs).
 *  - A GPU: capacity 1, time-sliced max-min fairly among the kernels of
 *    the processes on it (work given to it is kernel time only: a block's
 *    host-side time is CPU work, docs/blockflow.md "GPU-busy time vs host
 *    time").  A CPU device's compute is its host's CPU.
 *  - Every activity is single-threaded: capped at one core / one GPU.
 *
 * A thread (ss_pc_thread) is a FIFO single server of CPU work on one host:
 * the items pushed to it run one at a time, in order.
 *
 * It knows no requests: callers get their (ctx, arg) back when the work is
 * done, always from an engine event.  Memory: one small record per
 * activity in flight, pooled; a thread's ring grows to its longest queue. */
#ifndef SS_PIPELINE_COMPUTE_H
#define SS_PIPELINE_COMPUTE_H

#include <stddef.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "core/engine.h"
#include "pipeline/pipeline_runq.h"

typedef struct ss_pcomp ss_pcomp;

/* Work done: called from an engine event with the caller's ctx and arg. */
typedef void (*ss_pc_done)(void *ctx, uint64_t arg);

/* A compute net on eng: nhosts hosts with host_cores[h] cores (0: not
 * declared), ndev devices on host dev_host[d], dev_gpu[d] nonzero for a
 * GPU.  The arrays are copied. */
ss_pcomp *ss_pcomp_new(ss_engine *eng, size_t nhosts, const double *host_cores, size_t ndev,
                       const uint32_t *dev_host, const uint8_t *dev_gpu);
/* Seconds GPU dev has had a kernel running, up to now (its kernel-busy
 * time: gpu_util's numerator); -1 if dev is not a GPU. */
double ss_pcomp_gpu_busy_s(const ss_pcomp *c, uint32_t dev);
void ss_pcomp_free(ss_pcomp *c);
/* Wake-up stacking on the hosts' CPUs (pipeline_compute.c): prob in [0, 1],
 * mean_s > 0; takes rng (freed with c).  Off (prob 0) by default. */
void ss_pcomp_set_stacking(ss_pcomp *c, double prob, double mean_s, gsl_rng *rng);
/* CPU interference on the hosts' CPUs (pipeline_compute.c): the CPU time a
 * piece of work costs co-running with work on other cores (corun_factor) and
 * time-sliced with work on its own core (slice_factor, on top), over alone;
 * each >= 1, 1 and 1 (the default) for none. */
void ss_pcomp_set_interference(ss_pcomp *c, double corun_factor, double slice_factor);

/* Per-core run queues on every host's CPU (pipeline_runq.h) instead of
 * max-min sharing (and of wake-up stacking, which they replace): set after
 * the interference, whose factors they take; rng (freed with c) draws the
 * ticks' phase. */
void ss_pcomp_set_run_queues(ss_pcomp *c, const ss_runq_params *p, gsl_rng *rng);

/* Under run queues, host's CPU use up to now (ss_runq_usage): core-seconds
 * its threads ran and thread-seconds they waited for a core; -1 where the
 * host's CPU has no run queues (max-min sharing, or no cores declared). */
int ss_pcomp_host_usage(const ss_pcomp *c, uint32_t host, double *busy_core_s, double *waiting_thread_s);

/* Every CPU second of work on host takes `factor` seconds from now on (> 0;
 * 1 as created): the host slower or faster than its profiles were measured
 * at (pipeline.host_time_factor; servesim validate's per-run host speed,
 * docs/calibration.md).  A GPU's work and a host with no CPU link are not
 * scaled. */
void ss_pcomp_set_time_factor(ss_pcomp *c, uint32_t host, double factor);

/* Memory bandwidth (pipeline.memory_bandwidth; docs/blockflow.md, "Copies
 * sharing memory bandwidth"): on every host's CPU, one copy alone runs at
 * copy_bytes_per_s and all copies share shared_bytes_per_s (bytes copied per second; both
 * > 0, measured by tools/probe/memshare.py).  A piece whose copying part is
 * copy_s of its work_s loads the host's memory with copy_s / work_s per
 * unit of its rate, in units of one copy at full speed, against a capacity
 * of shared_bytes_per_s / copy_bytes_per_s: the max-min solver's weighted flows (the lmm
 * model's consumption weights), and the same allocation under run queues
 * (pipeline_runq.c).  So k pure copies on k cores run at min(1, shared_bytes_per_s /
 * (k copy_bytes_per_s)) of a core each, and work that copies nothing is not slowed.
 * [ASSUMPTION: a transport's per-byte work is memory copying at the
 * machine's one-copy rate; its fixed work copies nothing.]  Off by default. */
/* A GPU waking after idle (pipeline.gpu_wake; docs/blockflow.md, "A GPU
 * waking after idle"): a kernel that starts on a GPU with no kernel running,
 * idle_s since its last kernel ended (since time 0 if none has), takes
 * factor(idle_s) times its work (its clocks ramping up from idle): 1 below
 * idle_s[0], linear between the n >= 2 points (idle_s increasing, factor >
 * 0), factor[n-1] beyond.  The slower kernel counts as GPU-busy time.  Off by
 * default. */
void ss_pcomp_set_gpu_wake(ss_pcomp *c, size_t n, const double *idle_s, const double *factor);
void ss_pcomp_set_memory(ss_pcomp *c, double copy_bytes_per_s, double shared_bytes_per_s);
/* Start work_s (>= 0) seconds of single-threaded work on host's CPU, or on
 * device dev's compute (its GPU; a CPU device: its host's CPU). */
void ss_pcomp_cpu(ss_pcomp *c, uint32_t host, double work_s, ss_pc_done done, void *ctx, uint64_t arg);
/* ... of which copy_s (0 <= copy_s <= work_s) copies memory: under
 * ss_pcomp_set_memory that part also shares its host's memory bandwidth. */
void ss_pcomp_copy(ss_pcomp *c, uint32_t host, double work_s, double copy_s, ss_pc_done done, void *ctx,
                   uint64_t arg);
void ss_pcomp_dev(ss_pcomp *c, uint32_t dev, double work_s, ss_pc_done done, void *ctx, uint64_t arg);

/* A thread that wakes and sleeps (a block process's main thread), for
 * wake-up stacking (pipeline_compute.c): its pieces of work started with
 * ss_pcomp_*_on, `wake` nonzero when it starts after sleeping (not right
 * after its previous piece).  Owned by the caller; init before use. */
typedef struct ss_pc_place {
    ss_pcomp *c;
    struct ss_pc_place *partner; /* stacked with it on one core, or NULL */
    void *cur;                   /* its piece in progress, or NULL */
    uint64_t gen;                /* the stacking a migration is for */
    size_t slot;
    uint32_t link;
    int listed;                  /* has work on link now (or between pieces) */
    ss_rq_thread rq;             /* its place on the cores under run queues */
} ss_pc_place;

void ss_pc_place_init(ss_pc_place *pl, ss_pcomp *c);
void ss_pcomp_cpu_on(ss_pcomp *c, ss_pc_place *pl, int wake, uint32_t host, double work_s, ss_pc_done done,
                     void *ctx, uint64_t arg);
void ss_pcomp_copy_on(ss_pcomp *c, ss_pc_place *pl, int wake, uint32_t host, double work_s, double copy_s,
                      ss_pc_done done, void *ctx, uint64_t arg);
void ss_pcomp_dev_on(ss_pcomp *c, ss_pc_place *pl, int wake, uint32_t dev, double work_s, ss_pc_done done,
                     void *ctx, uint64_t arg);

/* A thread of one process: a FIFO single server of CPU work on its host. */
typedef struct ss_pc_item {
    double work_s;
    double copy_s; /* the part of work_s that copies memory */
    uint64_t arg;
} ss_pc_item;

typedef struct ss_pc_thread {
    ss_pcomp *c;
    uint32_t host;
    ss_pc_done done;    /* called with (ctx, arg) as each item ends */
    void *ctx;
    ss_pc_item *ring;   /* waiting items */
    size_t head, len, cap;
    int busy;
    uint64_t cur_arg;   /* the item in service */
    ss_rq_thread rq;    /* its place on the cores under run queues */
} ss_pc_thread;

void ss_pc_thread_init(ss_pc_thread *t, ss_pcomp *c, uint32_t host, ss_pc_done done, void *ctx);
/* Queue an item; it starts now if the thread is idle. */
void ss_pc_thread_push(ss_pc_thread *t, double work_s, uint64_t arg);
/* ... of which copy_s copies memory (ss_pcomp_copy). */
void ss_pc_thread_push_copy(ss_pc_thread *t, double work_s, double copy_s, uint64_t arg);
void ss_pc_thread_free(ss_pc_thread *t);

#endif
