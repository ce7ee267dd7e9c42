/* pipeline_runq.h: one host's cores as per-core run queues, the way Linux's
 * fair scheduler (EEVDF, kernel 6.18) runs threads on them, for a block
 * pipeline under `compute: shared` with `pipeline.run_queues:`
 * (docs/blockflow.md, "Run queues"; docs/calibration.md).
 *
 * The max-min host (pipeline_compute.c) spreads the work in progress over
 * the cores as processor sharing: a core is never idle while work waits.
 * Here every piece of CPU work belongs to a thread, a thread sits on one
 * core, and a core runs one thread at a time:
 *
 *  - A thread that wakes goes to its previous core if idle, else to an idle
 *    core, else back to its previous core (select_idle_sibling).  On a busy
 *    core it preempts the running thread if that one has run its slice since
 *    it was picked (EEVDF's protected slice, RUN_TO_PARITY), else it waits.
 *    A thread ending its piece at that instant (its waker, or one whose end
 *    is due at the same time) is not preempted: if it sleeps, the woken one
 *    takes the core; if it goes on with a next piece, it keeps the core
 *    inside its slice and yields it past it.  With stack_prob, a stackable
 *    thread (a block's main thread) waking while a core is free is put, with
 *    that probability, on a core where another thread computes instead (the
 *    wake-affine placement beside its waker's work), and left to the rules
 *    here: it runs there past the running thread's slice, or is pulled by an
 *    idle core at a balance (docs/calibration.md, "Run queues").
 *    With idle_scan_pct (SIS_UTIL, Linux 6.0 on), the look for an idle core
 *    is skipped while the cores' recent utilisation is high: each core's
 *    busy fraction as a running average halving in util_halflife_s (PELT's
 *    util_avg), u their mean, and the scan allowed floor(n (1 - (u pct /
 *    100)^2)) cores, none on two cores above u = 0.604 - there the woken
 *    thread stays on its busy previous core beside an idle one
 *    (docs/calibration.md, "The idle-core scan").
 *  - At each scheduler tick of a core with threads waiting: every
 *    balance_ticks-th tick, an idle core pulls the first waiting thread that
 *    is not cache hot (the idle balance); then the running thread, past its
 *    slice, goes to the back of the queue (the tick-driven rotation: with
 *    HZ = 250 a 1.4 ms slice ends at the next 4 ms tick).  The kernel's own
 *    interval is a tick (msecs_to_jiffies of a 2-4 ms balance_interval):
 *    balance_ticks 1; servesim calibrate fits it to the probe's ring where an
 *    interval reproduces the ring (cmd/calibrate_runq.c; on this project's VM
 *    none does: docs/calibration.md, "Run queues").
 *  - A thread that sleeps leaves its core to the next waiting one; a core
 *    left idle pulls the first waiting thread of another core that is not
 *    cache hot (newidle balance).  Cache hot: it ran within the last
 *    migration cost (0.5 ms, task_hot and sysctl_sched_migration_cost) -
 *    a thread preempted a moment ago stays where it is, and the idle core
 *    idles (docs/calibration.md, "What is left": 1.66 of 3.66 idle-core
 *    episodes per request with two zmq-copy clients are such threads).
 *  - A running thread's speed is the core's (cores / ceil(cores): a host
 *    with background load has fractional cores) over the host's time factor,
 *    divided by the co-running factor while another core runs and by the
 *    time-slicing factor while threads wait on its core (CPU interference).
 *
 * [ASSUMPTION: equal weights and slices for every thread; no load balancing
 * between busy cores; a waiting thread that never ran on the core is cold
 * unless it ran within the migration cost before it slept.]
 *
 * Memory: a record per core; a thread's state lives in the caller's
 * ss_rq_thread. */
#ifndef SS_PIPELINE_RUNQ_H
#define SS_PIPELINE_RUNQ_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"

typedef struct ss_runq ss_runq;

/* The kernel's constants (docs/calibration.md gives where each was read). */
typedef struct ss_runq_params {
    double slice_s;          /* the base slice a picked thread is protected for (se.slice) */
    double tick_s;           /* the scheduler tick, 1 / HZ */
    double migration_cost_s; /* a thread that ran within this is cache hot to the balancer */
    unsigned balance_ticks;  /* an idle core pulls at every balance_ticks-th tick (>= 1; the kernel's: 1) */
    double tick_phase_s;     /* the cores' first tick, in [0, tick_s): they tick together; < 0: drawn (scenarios) */
    double stack_prob;       /* wake-affine placement: a stackable thread waking while a core is free goes to a
                              * core where another thread computes with this probability (0: never) */
    double idle_scan_pct;    /* SIS_UTIL: a waking thread whose previous core is busy looks for an idle core only
                              * while floor(n (1 - (u pct / 100)^2)) >= 1, u the cores' mean utilisation; the
                              * LLC domain's imbalance_pct (117); 0: it always looks */
    double util_halflife_s;  /* the utilisation's running average halves in this (PELT: 32 ms); > 0 with
                              * idle_scan_pct */
} ss_runq_params;

/* A thread's place on the cores.  Owned by the caller, zeroed by
 * ss_rq_thread_init before its first piece. */
typedef struct ss_rq_thread {
    int core;                 /* the core it is on (running or waiting), -1 asleep */
    int prev;                 /* the core it last ran on, -1 never */
    int running, in_done, has_work;
    int stackable;            /* a main thread: its wake-ups may be placed beside a computing one (stack_prob) */
    double work_left;         /* seconds of a full-speed core left in its piece */
    double copy_frac;         /* the part of its piece that copies memory (0 to 1; ss_runq_set_memory) */
    double last_ran_s;        /* when it last stopped running */
    void (*done)(void *ctx);
    void *ctx;
    void (*slept)(void *ctx); /* if set: called with ctx when it sleeps (its record may go) */
    struct ss_rq_thread *next; /* in its core's queue */
} ss_rq_thread;

void ss_rq_thread_init(ss_rq_thread *t);

/* A host of `cores` (> 0) cores; rng draws the ticks' phase (not freed). */
ss_runq *ss_runq_new(ss_engine *eng, double cores, const ss_runq_params *p, gsl_rng *rng);
void ss_runq_free(ss_runq *q);
void ss_runq_set_interference(ss_runq *q, double corun_factor, double slice_factor);
/* The host's memory bandwidth in copies at full speed (shared_bytes_per_s / copy_bytes_per_s;
 * 0: none, the default): the running threads' copying parts share it as the
 * max-min solver's weighted flows would (pipeline_compute.h,
 * ss_pcomp_set_memory): every rate that the memory holds back is the same
 * level L, sum over the running threads of copy_frac x min(rate, L) = units. */
void ss_runq_set_memory(ss_runq *q, double units);

/* Run work_s (>= 0, already in the host's time) on thread t; done(ctx) is
 * called from an engine event when it ends.  A thread that starts its next
 * piece from inside that call keeps running; one that does not sleeps. */
void ss_runq_run(ss_runq *q, ss_rq_thread *t, double work_s, void (*done)(void *ctx), void *ctx);

/* Counters for tests and diagnostics. */
typedef struct ss_runq_stats {
    uint64_t wakes, preemptions, rotations, pulls_newidle, pulls_tick, hot_refusals, stacked,
        scans_skipped; /* wake-ups that did not look for an idle core (SIS_UTIL) */
    double idle_while_waiting_s; /* seconds with a core idle while a thread waited on another (wall time, not
                                  * core-seconds; counted up to the last change before the run ended) */
    double busy_core_s;          /* core-seconds a thread ran (up to the last change) */
    double waiting_thread_s;     /* thread-seconds threads waited on a core, runnable but not running */
} ss_runq_stats;
ss_runq_stats ss_runq_stats_of(const ss_runq *q);
/* busy_core_s and waiting_thread_s up to now: their time averages over a window are the cores in
 * use and the threads waiting for a core (what the probe reads from /proc: docs/calibration.md). */
void ss_runq_usage(const ss_runq *q, double *busy_core_s, double *waiting_thread_s);

#endif
