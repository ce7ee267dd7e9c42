/* scenario.h: a validated scenario, read from YAML into plain structs.
 *
 * Reading never touches the engine: ss_scenario_load turns the file (plus
 * --set overrides and one variant's settings) into the structs below, or
 * into one file:line:col message.  world/world.c then builds a runnable
 * world from them.  docs/scenarios.md is the user-facing reference of the same schema. */
#ifndef SS_SCENARIO_H
#define SS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include <servesim/policy.h>
#include "core/cfg.h"
#include "core/nameidx.h"
#include "core/dist.h"

typedef enum { SS_DEV_GPU, SS_DEV_CPU } ss_device_kind;

/* What a scenario may ask for (docs/scenarios.md, "Bounds"): the requests a
 * time-bounded run is expected to create, and the finest time-series
 * sampling. */
#define SS_MAX_REQUESTS 1e9
#define SS_MAX_VARIANTS 1000
#define SS_MIN_SAMPLE_S 1e-6

typedef struct ss_device_cfg {
    char *name;       /* "host/device" */
    ss_device_kind kind;
    char *type;       /* free text, e.g. "GV100" */
    double vram_bytes;
    double ram_bytes;
    unsigned cores;
    double power_w;   /* average power while busy (energy = power x busy time); 0 = not given */
    int time_shared;  /* one request at a time over every model's executable on it, the next
                       * chosen by the device scheduler (`dispatch:`, docs/control.md) */
} ss_device_cfg;

typedef struct ss_model_cfg {
    char *name;
    char *profile;    /* path of the JSON profile it came from, or NULL if inline */
    char *source;     /* citation of the measurement it is calibrated from */
    ss_dist service;  /* service time of one request on one instance */
    double weights_bytes;    /* its static memory: the weights a replica holds in VRAM */
    double runtime_vram_bytes; /* what a replica needs on top while it runs (activations, workspace) */
    double load_bytes_per_s; /* cold start: loading its data into a process on the host, 0 = not given */
    double request_overhead_s; /* a request's network trip (input and output) between gateway and
                                * replica, added before it joins the model's queue (FP §1.4) */
    struct ss_block_cfg *block; /* a block of a split model (blockmodel.h), or NULL */
    double sla_s;            /* its response-time SLA (average, ROMA), 0 = none */
    /* On a CPU device: one request's work in core-seconds at one core (given:
     * has_cpu_service), and the speed-up law of a container with c cores:
     * speed(c) = c for c <= 1, 1 / (s + (1 - s) / c) above (Amdahl, serial
     * fraction s = serial_fraction; docs/control.md). */
    ss_dist cpu_service;
    int has_cpu_service;
    double serial_fraction;
    /* `llm:` (llm_cfg.h): served token by token by LLM engines, instances of
     * the substrate (docs/llm.md, "Serverless LLMs"), or NULL */
    struct ss_llm_scn *llm;
} ss_model_cfg;

typedef struct ss_task_cfg {
    char *name;
    uint32_t *stages; /* model indices, in order */
    uint32_t nstages;
} ss_task_cfg;

/* How an instance serves the requests it holds (docs/scenarios.md). */
typedef enum {
    SS_DISC_FIFO = 0,  /* `servers` at once, the rest wait in the scheduler plugin's order */
    SS_DISC_PS,        /* processor sharing: every request it holds runs, sharing the device's
                        * compute by max-min (core/flow.h) with the other ps instances there */
    SS_DISC_PREEMPT    /* one server, preemptive-resume priority: a more urgent arrival (smaller
                        * priority) interrupts the one in service, which resumes later */
} ss_discipline;

typedef struct ss_deploy_cfg {
    uint32_t model, device;
    uint32_t instances;
    uint32_t servers;        /* requests one instance serves at once, sharing its queue */
    uint64_t queue_capacity; /* waiting requests per instance (ps: requests held); UINT64_MAX = unbounded */
    ss_discipline discipline;
    int shared_queue;        /* the model's instances pull from one queue (all its entries agree) */
    double cap;              /* ps: the instance's most compute, in device units (cores, GPUs); 0 = none */
    double threads;          /* ps: one request's most compute (cores; a GPU request: 0 = none) */
    double startup_s;        /* an instance started during the run (autoscaler) is up this much later */
    uint32_t kv_blocks;      /* an LLM model's engine on this device: its KV blocks (ss_llm_deploy_fit), else 0 */
    int line, col;           /* where the entry was written (for run-time messages) */
} ss_deploy_cfg;

/* A scripted event (`events:`): at at_s, change the deployment. */
typedef enum {
    SS_EV_ADD,       /* start `count` new instances of model on device, up after startup_s */
    SS_EV_REMOVE,    /* the instance stops taking requests, finishes what it holds, stops */
    SS_EV_FAIL,      /* the instance fails at once; what it held is re-queued or lost */
    SS_EV_CAPACITY   /* a device's compute capacity (cores, GPUs) or a ps instance's cap changes */
} ss_event_kind;

typedef struct ss_event_cfg {
    double at_s;
    ss_event_kind kind;
    uint32_t deploy;         /* add: the deployment entry (of that model on that device) it copies;
                              * others: the entry of the instance named */
    uint32_t ordinal;        /* remove, fail, capacity of an instance: its number among the
                              * instances of that model on that device, in creation order */
    uint32_t count;          /* add */
    double startup_s;        /* add */
    int requeue;             /* fail: 1 re-queue what it held, 0 lose it (counted) */
    int on_device;           /* capacity: of the device (1) or of an instance's cap (0) */
    uint32_t device;         /* capacity of a device */
    double capacity;         /* capacity: new cores / GPUs, or the new cap */
} ss_event_cfg;

typedef enum {
    SS_WL_POISSON, SS_WL_DETERMINISTIC, SS_WL_NORMAL, SS_WL_GAMMA, SS_WL_INTERARRIVAL,
    SS_WL_STEPS, SS_WL_CLOSED, SS_WL_TRACE,
    SS_WL_SYNTHETIC, SS_WL_AZURE_FN /* read as shapes, then run as steps (trace_synth.c) */
} ss_workload_kind;

typedef struct ss_rate_step {
    double until_s;   /* this rate holds until here (from the previous step's end) */
    double rate_rps;  /* >= 0 */
} ss_rate_step;

typedef struct ss_workload_cfg {
    char *name;
    ss_workload_kind kind;
    uint32_t task;
    double priority;
    double start_s;         /* no arrivals before */
    ss_dist interarrival;   /* open-loop kinds except steps and trace */
    ss_rate_step *steps;    /* steps (NULL for a synthetic shape: its steps are generated, `shape`) */
    size_t nsteps;
    struct ss_synth_shape *shape; /* synthetic: the shape its steps are drawn from (trace_synth.h), or NULL */
    uint32_t clients;       /* closed */
    ss_dist think;          /* closed */
    double *times_s;        /* trace: arrival times, sorted, relative to start_s */
    size_t ntimes;
    uint32_t *prompt_tokens, *output_tokens; /* trace aimed at an LLM model, its file with token counts: each
                                              * arrival's (else NULL: the model's distributions) */
} ss_workload_cfg;

/* A policy choice as written: name plus parameters, and where it was said. */
typedef struct ss_policy_cfg {
    char *name;
    ss_param *params;
    int (*param_pos)[2]; /* line, col of each parameter's key */
    char **param_file;   /* and its file (a variant's set: or a --set may have put it there) */
    size_t nparams;
    const char *file;    /* where the policy was named (the scenario if defaulted) */
    int line, col;
} ss_policy_cfg;

/* `dispatch:` and `control:` (docs/control.md): time-shared devices' scheduler,
 * and the controllers that resize CPU containers (ps instances with a cap
 * that pull from their model's shared queue) every period under a
 * per-worker supervisor. */
typedef struct ss_control_cfg {
    ss_policy_cfg scheduler;  /* the device scheduler of time-shared devices */
    double window_s;          /* its measured response times: completions in the last window_s */
    int on;                   /* `control:` given */
    ss_policy_cfg controller; /* one state per controlled container */
    double period_s;          /* > 0 */
    double gamma;             /* the supervisor's fill of spare cores, in [0, 1] (ROMA's gamma) */
    double reserved_cores;    /* per worker, kept for GPU support (ROMA's GC) */
    double min_cores;         /* the least a container gets from its controller */
    double violation_window_s;/* SLA violations are counted over windows of this length */
} ss_control_cfg;

/* `autoscaling:` (docs/autoscaling.md): an autoscaler plugin resizing the
 * models behind shared queues every period_s.
 * Its longest window and its stabilization are each at most
 * SS_AS_MAX_PERIODS periods (one slot each in memory). */
#define SS_AS_MAX_PERIODS 1e6
typedef struct ss_autoscale_cfg {
    ss_policy_cfg policy;
    double period_s;          /* > 0 */
    double decision_delay_s;  /* a decision takes effect this much later */
    uint32_t min_replicas, max_replicas;
    double stabilization_s;   /* scale down to the highest desired count of this window */
    double windows_s[SS_AS_WINDOWS];
    uint32_t nwindows;
    double rate_quantile;     /* in [0, 1] */
    int cat;                  /* Flashpoint's CAT rule gates the answers (FP §2.7, eq. 4.12) */
    double cat_low_rps, cat_high_rps; /* its thresholds rho_L, rho_H */
    uint8_t *models;          /* per model: 1 if autoscaled */
    /* per model: the policy with that model's own parameters (`per_model:`,
     * over the policy's), or name NULL where the model has none */
    ss_policy_cfg *per_model;
    size_t nper_model;        /* its length: the scenario's models */
    uint32_t *max_replicas_m; /* per model (nper_model): its own cap (`per_model: {M: {max_replicas: N}}`,
                                 the HPA's maxReplicas per Deployment), 0 where none */
} ss_autoscale_cfg;

/* `placement:` (docs/coldstart.md): replicas started at run time on a
 * topology's GPUs cold-start - data to the host (from its own RAM, a peer
 * host's, or storage), load into a process, send to the GPU - and a
 * placement plugin picks their GPUs and sources. */
typedef struct ss_placement_cfg {
    ss_policy_cfg policy;
    uint32_t storage;         /* the topology's storage node models are downloaded from */
    double peer_cap_bps;      /* most rate of one host-to-host model transfer, 0 = none */
    double goodput;           /* payload share of a model transfer's wire rate, in (0, 1] */
    double chain_ttfb_s;      /* multicast: time to first byte added by each hop of a chain */
    double chain_lag_bytes;   /* multicast: bytes each relay holds before the next hop has them (its chunk and
                               * socket buffers): receiver i ends (i-1) lag / rate after receiver 1 */
    double relay_cap_bps;     /* multicast: most rate a relay forwards at (a chain of >= 2 receivers), 0 = none */
    double conn_setup_s;      /* every model transfer's connection set-up before its first byte (a chain's
                               * first hop's; core/xfer_law.h) */
    uint8_t *models;          /* per model: 1 if its replicas cold-start */
} ss_placement_cfg;

/* `partitioning:` (docs/partitioning.md): scale-ups of the listed models
 * may start partitioned replicas - parts of the model on several GPUs,
 * cold-starting in parallel and serving as one pipeline - where the
 * partitioner plugin's plan says. */
typedef struct ss_partitioning_cfg {
    ss_policy_cfg policy;     /* the partitioner */
    uint8_t *models;          /* per model: 1 if its scale-ups may partition */
    struct ss_layer_profile **layers; /* per model: its chain of layers (models/<model>-layers.json), or NULL */
    int completion;           /* a pipeline's GPUs go on to load the whole model, then serve whole (FP §4.2.5) */
    double cut_overhead_s;    /* each hand-off across a cut: its per-message cost beside the tensor's bytes */
} ss_partitioning_cfg;

/* cut_overhead_s's default: the intercept of latency = a + bytes / b fitted
 * over the committed probe's zmq-copy transport samples between two
 * processes (profiles/measured/probe-micro.json, 2026-11-27: 960
 * observations, 24 samples of 40, 8 sizes from 4,000 B to 12.8 MB; `servesim
 * calibrate profiles/measured/probe-micro.json`, transport_fits.zmq-copy,
 * 95% interval 1.393-1.794 ms): a CPU tensor's serialisation, send and
 * receive calls and synchronisation (docs/partitioning.md). */
#define SS_CUT_OVERHEAD_S 0.001593928954

/* One "key=value" that shaped this scenario (a --set or a variant's set):
 * they become columns of the results CSV. */
typedef struct ss_setting {
    char *key;
    char *value;
} ss_setting;

typedef struct ss_scenario {
    char *path, *dir;         /* scenario file and its directory */
    char *name;
    char *variant;            /* variant name, or "" */
    uint64_t seed;
    uint32_t replications;
    double duration_s;        /* INFINITY if not bounded by time */
    uint64_t max_requests;    /* UINT64_MAX if not bounded by count */
    double warmup_s;
    uint64_t warmup_requests;
    struct ss_topo *topo;     /* `topology:` (network, hosts' insides), or NULL */
    ss_device_cfg *devices;   size_t ndevices;
    ss_nameidx device_names;  /* "host/device" -> device (section.c, ss_sc_index_device) */
    ss_nameidx device_short;  /* "device" -> the one device of that name, or SS_SC_AMBIGUOUS */
    ss_model_cfg *models;     size_t nmodels;
    ss_nameidx model_names;   /* model name -> model */
    ss_task_cfg *tasks;       size_t ntasks;   /* one implicit task per model comes first */
    ss_nameidx task_names;    /* task name (a model's own included) -> task */
    ss_deploy_cfg *deploys;   size_t ndeploys;
    ss_event_cfg *events;     size_t nevents;  /* sorted by at_s (stable) */
    ss_workload_cfg *workloads; size_t nworkloads;
    ss_policy_cfg load_balancer;
    ss_policy_cfg scheduler;
    ss_policy_cfg admission;  /* `policies.admission` (name NULL: every request gets in) */
    char *csv_path;           /* results CSV (relative to the working directory) */
    char *requests_csv_path;  /* per-request CSV, or NULL */
    char *timeseries_csv_path;/* time-series CSV, or NULL */
    double timeseries_interval_s; /* its sampling interval (default 1 s) */
    ss_setting *settings;     size_t nsettings;
    struct ss_pipeline_cfg *pipeline; /* `pipeline:` (pipeline.h), or NULL */
    struct ss_edge_cfg *edge; /* `edge:` (an edge-device scenario, edge.h), or NULL */
    struct ss_ensemble_cfg *ensemble; /* `ensemble:` (an ensemble scenario, ensemble_cfg.h), or NULL */
    struct ss_llm_scn *llm;   /* `llm:` (an LLM-serving scenario, llm_cfg.h), or NULL */
    ss_autoscale_cfg *autoscale; /* `autoscaling:`, or NULL */
    ss_placement_cfg *placement; /* `placement:`, or NULL */
    ss_partitioning_cfg *partitioning; /* `partitioning:`, or NULL */
    ss_control_cfg *control;  /* `dispatch:` / `control:` (or a time-shared device), or NULL */
} ss_scenario;


#endif
