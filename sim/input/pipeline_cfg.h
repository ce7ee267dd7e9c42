/* pipeline_cfg.h: the `pipeline:` section of a scenario (block pipelines,
 * BlockFlow; docs/blockflow.md) as plain structs, read by pipeline_cfg.c.
 * The serving side is serve/pipeline.h; `compute: shared` and its host
 * cores, serve/pipeline_compute.h. */
#ifndef SS_PIPELINE_CFG_H
#define SS_PIPELINE_CFG_H

#include <stdint.h>

#include "core/cfg.h"
#include "input/scenario.h"

typedef struct ss_pipeline_cfg {
    ss_policy_cfg transport;   /* plugin and its parameters (profile figures first, then the scenario's) */
    uint32_t batch;            /* samples per client tensor (>= 1) */
    uint32_t slots;            /* `slots: N`: each hop between two processes is a ring of N slots (a shared-
                                * memory transport's): a message holds its slot from its send until its
                                * receiver's batch ends, and a sender whose next message finds the ring full
                                * waits, its main thread blocked (pipeline.c); 0 = no ring (the default) */
    int has_dispatcher;
    uint32_t dispatcher_device;
    int has_client_device;     /* else the client sits on the GPU of whatever it talks to */
    uint32_t client_device;
    int compute_shared;        /* `compute: shared`: CPUs and GPUs shared by max-min (serve/pipeline_compute.h);
                                * 0: `fixed`, independent per-block servers */
    char **host_core_names;    /* `host_cores: {host: cores}`, in the scenario's order */
    double *host_cores;
    size_t nhost_cores;
    char **host_time_names;    /* `host_time_factor: {host: f}` (compute: shared): every CPU second of work on */
    double *host_time_factor;  /* that host takes f seconds (the host slower, f > 1, or faster than the */
    size_t nhost_time_factor;  /* profiles were measured at; servesim validate's per-run host speed) */
    double stack_prob;         /* `stacking:` wake-up stacking (serve/pipeline_compute.c); 0 = off */
    double stack_mean_s;
    double *wake_idle_s;       /* `wake:` the extra delay of a hop into a process idle for wake_idle_s[k] is
                                * wake_extra_s[k] (linear between, 0 below the first, the last beyond); */
    double *wake_extra_s;      /* serve/pipeline.c.  nwake 0 = off */
    size_t nwake;
    double *gpu_wake_idle_s;   /* `gpu_wake:` a GPU's kernel after gpu_wake_idle_s[k] without one takes */
    double *gpu_wake_factor;   /* gpu_wake_factor[k] times its work (pipeline_compute.h); ngpu_wake 0 = off */
    size_t ngpu_wake;
    double mem_copy_bytes_per_s;       /* `memory_bandwidth:` one copy's rate alone and the rate every copy of a host */
    double mem_shared_bytes_per_s;     /* shares, bytes copied per second (pipeline_compute.h); 0, 0 = off */
    double corun_factor;       /* `interference:` the CPU time a piece of work costs while other work runs on the
                                * host's other cores, over alone (>= 1; 1 = off) (serve/pipeline_compute.c) */
    double slice_factor;       /* ... and while it is time-sliced with other work on its core, over co-running */
    int run_queues;            /* `run_queues: {slice_s, tick_s, migration_cost_s}` (compute: shared): the */
    double rq_slice_s;         /* hosts' cores as per-core run queues with the kernel's constants instead of */
    double rq_tick_s;          /* max-min sharing (serve/pipeline_runq.h) */
    double rq_migration_cost_s;
    unsigned rq_balance_ticks;
    double rq_stack_prob;      /* run_queues.stacking_probability (optional, 0 to 1; 0: none) */
    double rq_idle_scan_pct;   /* run_queues.idle_scan_pct (optional; 0: none, else 100 to 1000; SIS_UTIL) */
    double rq_util_halflife_s; /* run_queues.util_halflife_s (optional, > 0; 0.032, PELT's; 0 without the scan) */
    uint32_t *max_batch;       /* per model (>= 1) */
    double *max_wait_s;        /* per model (>= 0) */
} ss_pipeline_cfg;

/* Read the scenario's `pipeline:` section, if any, into sc->pipeline (after
 * models, tasks, deployment and workloads are read).  0 ok (also when
 * absent), -1 with a positioned error. */
int ss_pipeline_read(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_pipeline_free(ss_pipeline_cfg *p);
/* The cores of the host named `host` (the part of a device name before '/')
 * under `compute: shared`: pipeline.host_cores[host] if given, else the
 * summed `cores` of the host's `kind: cpu` devices, else 0 (not declared). */
double ss_pipeline_host_cores(const ss_scenario *sc, const char *host);
/* The host's time factor under `compute: shared`: pipeline.host_time_factor[host]
 * if given, else 1 (its CPU as profiled). */
double ss_pipeline_host_time_factor(const ss_scenario *sc, const char *host);

/* Per-request pipeline state, kept in ss_request (serve.h). */

#endif
