/* servesim/policy.h: the one header a policy plugin includes.
 *
 * A policy is a shared object exporting one object, `servesim_policy`, of
 * type `const ss_policy`:
 *     const ss_policy servesim_policy = { .abi = SS_POLICY_ABI, ... };  The simulator dlopen()s it, checks `abi` against
 * SS_POLICY_ABI and `kind` against what the scenario asked for, then calls
 * `init` once per use in a scenario and the kind's ops during the run.
 *
 * What a policy may touch: only what the callbacks hand it (views and items
 * below) and its own state.  It never sees simulator internals, never parses
 * files, never calls back into the simulator except through `ss_env`, and
 * draws randomness only from the stream in `ss_env` (so runs stay
 * deterministic and policies compared on one seed see the same arrivals).
 *
 * Units: times in seconds (`_s`), sizes in bytes (`_bytes`).
 * ABI history: 1 = scheduler and load-balancer ops (servesim 0.1).
 *              2 = transport ops (block pipelines) and layer-scheduler ops (edge devices).
 *              3 = autoscaler ops (replicas of a model behind its shared queue).
 *              4 = placement ops (which GPUs get new replicas, where their data
 *                  comes from, what hosts and GPUs keep after a replica goes).
 *              5 = partitioner ops (where a model is cut into parts that cold-start
 *                  on several GPUs and serve pipelined; servesim/partition.h).
 *              6 = controller ops (the cores of a CPU container, every period) and
 *                  device-scheduler ops (which model's queue a freed time-shared
 *                  device serves next); docs/control.md.
 *              7 = a transport's hop cost says which of its parts copy memory
 *                  (ss_hop_cost.sender_copy_s, receiver_copy_s, delivery_copy_s:
 *                  the host's memory bandwidth, docs/blockflow.md); the struct grew.
 *              8 = an autoscaler sees an LLM model's tokens per second and KV-cache
 *                  use (ss_autoscale_view.tokens_per_s, kv_use), a load balancer an
 *                  LLM engine's tokens held and KV-cache use (ss_instance_view.tokens,
 *                  kv_use) and the instance holding a request's cached prefix
 *                  (ss_lb_ctx.affinity; docs/llm.md); the three structs grew; and
 *                  admission ops (whether an arriving request gets in).
 * Every field has a fixed-width type (no enum in the struct), so a plugin
 * built by another compiler agrees on the layout.
 */
#ifndef SERVESIM_POLICY_H
#define SERVESIM_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define SS_POLICY_ABI 8u
#define SS_POLICY_SYMBOL "servesim_policy"

typedef enum ss_policy_kind {
    SS_KIND_SCHEDULER = 1, /* queue discipline of one instance: which waiting request next */
    SS_KIND_LOAD_BALANCER, /* which instance of a model gets an arriving request */
    SS_KIND_AUTOSCALER,    /* how many replicas of a model (autoscaler ops) */
    SS_KIND_PLACEMENT,     /* which GPUs new replicas start on, where their data comes from */
    SS_KIND_TRANSPORT,     /* how tensors move between blocks (ops arrive with block pipelines) */
    SS_KIND_PARTITIONER,   /* where a model is cut into parts (partitioner ops) */
    SS_KIND_CONTROLLER,    /* the cores of a CPU container, every control period (controller ops) */
    SS_KIND_LAYER_SCHEDULER, /* which ready layer task an idle edge worker runs next (edge devices) */
    SS_KIND_DEVICE_SCHEDULER, /* which model's queue a freed time-shared device serves next */
    SS_KIND_ADMISSION        /* whether the gateway lets an arriving request in (admission ops) */
} ss_policy_kind;

/* One `key: value` from the scenario's policy section, as text.  The
 * simulator has already refused keys not listed in ss_policy.params. */
typedef struct ss_param {
    const char *key;
    const char *value;
} ss_param;

typedef struct ss_params {
    const ss_param *items;
    size_t n;
} ss_params;

/* Services the simulator lends a policy instance. */
typedef struct ss_env {
    void *rng;                                      /* this instance's own random stream */
    double (*uniform)(void *rng);                   /* uniform on [0,1) */
    uint64_t (*uniform_int)(void *rng, uint64_t n); /* uniform on {0..n-1}, n >= 1 */
} ss_env;

typedef struct ss_policy_init {
    const ss_params *params; /* this use's parameters */
    ss_env env;
    uint32_t ngroups; /* load balancers: number of instance groups (one per model) */
} ss_policy_init;

/* A waiting request as a policy sees it.  `req` is opaque: store it, hand it
 * back, never dereference it. */
typedef struct ss_qitem {
    void *req;
    double enqueued_s;  /* when it joined this queue */
    double priority;    /* finite; smaller is served first by `priority`; 0 by default */
    double expected_s;  /* the model's mean service time, for size-based policies */
    uint64_t seq;       /* strictly increasing per queue: ties break on it (FIFO) */
} ss_qitem;

/* ---- scheduler (queue discipline) ------------------------------------ */
typedef struct ss_scheduler_ops {
    /* A new empty queue for one instance.  NULL means out of memory. */
    void *(*queue_new)(void *state);
    void (*queue_free)(void *queue);
    /* Add an item (copied).  0 on success, -1 out of memory.  Capacity
     * limits are the simulator's business, not the queue's. */
    int (*push)(void *queue, const ss_qitem *item);
    /* Remove the next item into *out; 1 if one was removed, 0 if empty.
     * now_s is the current simulated time (for deadline or ageing policies). */
    int (*pop)(void *queue, double now_s, ss_qitem *out);
    size_t (*len)(const void *queue);
} ss_scheduler_ops;

/* ---- load balancer -------------------------------------------------- */
typedef struct ss_instance_view {
    uint32_t queued;  /* requests waiting in its queue */
    uint32_t busy;    /* requests in service */
    uint32_t device;  /* index of the device it runs on */
    uint32_t up;      /* 1 if it accepts requests */
    /* an LLM engine's (docs/llm.md, "Serverless LLMs"); 0 for other instances */
    uint64_t tokens;  /* prompt and output tokens of the requests it holds */
    double kv_use;    /* the fraction of its KV-cache blocks held, as of its last request in or out */
} ss_instance_view;

typedef struct ss_lb_ctx {
    const ss_instance_view *inst; /* the candidates; at least one is up */
    uint32_t n;
    uint32_t group; /* stable id of the model in [0, ngroups): keep per-group state */
    double now_s;
    uint32_t affinity; /* the candidate whose cache holds this request's prefix (an LLM conversation's
                        * earlier turns, docs/llm.md), or UINT32_MAX: none known */
} ss_lb_ctx;

typedef struct ss_lb_ops {
    /* Index in [0, n) of an instance with up = 1. */
    uint32_t (*pick)(void *state, const ss_lb_ctx *ctx, const ss_qitem *req);
} ss_lb_ops;

/* ---- transport (how a tensor moves between pipeline processes) -------- */
/* Where a hop goes, as the simulator knows it.  Endpoints are the client,
 * the dispatcher or a block process; only processes have a main thread, so
 * costs the plugin puts on a client endpoint are ignored. */
enum { SS_HOP_CLIENT = 0, SS_HOP_DISPATCHER = 1, SS_HOP_BLOCK = 2 };
/* GPU-to-GPU path kinds, named as `nvidia-smi topo -m` does (values match
 * the simulator's topology classes). */
enum { SS_GPU_PATH_SELF = 0, SS_GPU_PATH_NVLINK, SS_GPU_PATH_PCIE, SS_GPU_PATH_PIX, SS_GPU_PATH_PXB,
       SS_GPU_PATH_NODE, SS_GPU_PATH_SYS, SS_GPU_PATH_NET };
/* Where the item's data waits, at the receiving end, from the send until
 * the receiver's service ends: its GPU's VRAM (a tensor left in place or
 * copied there) or its host's RAM (a serialised message). */
enum { SS_QUEUED_NONE = 0, SS_QUEUED_VRAM = 1, SS_QUEUED_HOST_RAM = 2 };

typedef struct ss_hop {
    double tensor_bytes;  /* the tensor this hop carries, batch included (>= 0) */
    uint32_t batch;       /* samples in it (>= 1) */
    uint32_t from_kind, to_kind; /* SS_HOP_* */
    uint32_t same_gpu;    /* both ends on one GPU */
    uint32_t same_host;   /* both ends on one host */
    uint32_t gpu_path;    /* SS_GPU_PATH_* between the ends' GPUs (SELF if same_gpu) */
} ss_hop;

typedef struct ss_hop_cost {
    double sender_s;      /* on the sender's main thread, after its compute (serialise, copy, send) */
    double receiver_s;    /* on the receiver's main thread, before its compute (deserialise, rebuild) */
    double delivery_s;    /* in flight: occupies neither main thread */
    double wire_bytes;    /* bytes of the message itself */
    double queued_bytes;  /* memory the item holds while it waits (see queued_in) */
    uint32_t queued_in;   /* SS_QUEUED_* */
    double delivery_wire_s; /* the part of delivery_s that moves wire_bytes (the per-byte
                           * term: bytes / the transport's own throughput).  When the hop
                           * crosses hosts over a topology the simulator carries wire_bytes
                           * as a network flow instead and charges delivery_s -
                           * delivery_wire_s on top of it.  0 (the default) keeps all of
                           * delivery_s. */
    double sender_copy_s, receiver_copy_s, delivery_copy_s; /* the parts of sender_s, receiver_s
                           * and delivery_wire_s that copy the bytes through the host's memory
                           * (pickling, a socket's kernel copies, a shared-memory slot): they
                           * share the host's memory bandwidth under pipeline.memory_bandwidth
                           * (docs/blockflow.md).  0 (the default): none */
} ss_hop_cost;

typedef struct ss_transport_ops {
    /* Price one hop into *out (zeroed by the caller).  0 ok; -1 if this
     * transport cannot make the hop (a CUDA IPC handle across hosts, say). */
    int (*hop)(void *state, const ss_hop *hop, ss_hop_cost *out);
} ss_transport_ops;
/* ---- layer scheduler (edge devices, docs/masa.md) ------------------- */
/* An edge device runs DNN inferences layer by layer: every layer is a load
 * task (weights from storage) and an execute task, on a pool of workers
 * sharing one memory budget.  The simulator owns the task graph, the memory
 * ledger and the clock; the scheduler only picks, for one idle worker at a
 * time, which ready task (if any) it runs next. */
enum { SS_LAYER_LOAD = 0, SS_LAYER_EXEC = 1 };          /* ss_layer_task_view.kind */
enum { SS_PART_CONV = 0, SS_PART_FC = 1 };              /* .part: before / from the first fc layer */
/* ss_layer_sched_ops.flags: the task graph and footprint the policy assumes. */
enum {
    SS_LAYER_CHAIN_LOADS = 1u << 0,  /* L(j-1) -> L(j): a network loads its layers in order */
    SS_LAYER_CHAIN_PART = 1u << 1,   /* ... but only within a part (conv loads and fc loads are two chains) */
    SS_LAYER_NET_FOOTPRINT = 1u << 2 /* a network holds its whole peak memory from its first task to its end */
};

/* A network inference released to the scheduler and not finished. */
typedef struct ss_layer_net_view {
    uint64_t seq;          /* generation order of network inferences (job order, then listed order) */
    uint64_t job;          /* the job (image) it belongs to, in generation order */
    uint32_t index_in_job; /* its position in the job's list of networks */
    uint32_t type;         /* stable id of the network (model) */
    uint32_t nlayers;
    uint32_t started;      /* 1 once any of its tasks has started */
    uint32_t running;      /* its tasks in service now */
    uint32_t loads_left[2];/* per part (SS_PART_*): load tasks not yet completed */
    uint32_t execs_left[2];/* per part: execute tasks not yet completed */
    double peak_bytes;     /* estimated whole-network peak memory (Table I x the estimate factor) */
    double admit_bytes;    /* estimated admission memory of the released code (max-memory-valgrind x factor) */
    double mean_exec_s;    /* the released code's shortest-network-first key (mean-execution-time) */
} ss_layer_net_view;

/* A task whose dependencies are all met. */
typedef struct ss_layer_task_view {
    uint32_t kind;        /* SS_LAYER_LOAD or SS_LAYER_EXEC */
    uint32_t part;        /* SS_PART_CONV or SS_PART_FC */
    uint32_t layer;       /* index in its network, from 0 */
    uint32_t net;         /* index into ss_layer_ctx.nets */
    double req_mem_bytes; /* estimated memory it reserves when it starts (0 under SS_LAYER_NET_FOOTPRINT) */
    uint64_t id;          /* unique; increases with (network seq, layer, kind): generation order */
} ss_layer_task_view;

typedef struct ss_layer_ctx {
    uint32_t worker;          /* the idle worker to fill, in [0, nworkers); workers are offered in index order */
    uint32_t nworkers;
    uint32_t busy;            /* workers busy now */
    double capacity_bytes;    /* device memory available to inference */
    double free_bytes;        /* capacity minus the estimated memory reserved now (may be < 0) */
    double now_s;
    const ss_layer_net_view *nets;   /* in generation order */
    uint32_t nnets;
    const ss_layer_task_view *ready; /* in no particular order */
    uint32_t nready;
} ss_layer_ctx;

typedef struct ss_layer_sched_ops {
    uint32_t flags; /* SS_LAYER_* graph and footprint flags */
    /* Index in [0, nready) of the task worker ctx->worker starts now, or -1
     * to leave it idle.  Called at every arrival and completion for each
     * idle worker; nready >= 1. */
    int32_t (*pick)(void *state, const ss_layer_ctx *ctx);
    /* Optional: the framework's per-network dispatch overhead in seconds,
     * paid on a serial dispatcher before a network's tasks become ready. */
    double (*net_overhead_s)(void *state);
} ss_layer_sched_ops;

/* ---- autoscaler (how many replicas of a model, docs/autoscaling.md) --- */
/* What an autoscaler sees of one model at a tick (every period_s).  The
 * windowed figures are given for each of the scenario's windows
 * (autoscaling.windows_s, at most SS_AS_WINDOWS, shortest first). */
enum { SS_AS_WINDOWS = 4 };
typedef struct ss_autoscale_view {
    uint32_t model;           /* stable id in [0, ngroups): keep per-model state */
    double now_s, period_s;
    /* the queue */
    uint32_t queued;          /* requests waiting for a replica */
    double oldest_wait_s;     /* how long the oldest of them has waited (0: none) */
    double mean_wait_s;       /* mean queue wait of the requests that started service in the last period */
    uint32_t in_flight;       /* queued + in service */
    /* arrivals and load, per window */
    uint32_t nwindows;
    double window_s[SS_AS_WINDOWS];
    double rate_rps[SS_AS_WINDOWS];     /* mean arrival rate over the window */
    double rate_q_rps[SS_AS_WINDOWS];   /* the rate_quantile of the per-period arrival rates in it */
    double concurrency[SS_AS_WINDOWS];  /* time-averaged requests in flight over the window */
    double rate_quantile;               /* which quantile rate_q_rps is (autoscaling.rate_quantile) */
    /* replicas */
    uint32_t starting, up, busy, draining; /* by state (busy: up and serving) */
    const double *idle_s;     /* how long each idle up replica has been idle, longest first */
    uint32_t nidle;
    double mean_exec_s;       /* mean service time (the model's profile) */
    double util;              /* busy fraction of the up replicas over the last period */
    double invocations_per_replica; /* requests completed in the last period per up replica */
    double replica_s;         /* replica-seconds so far (starting, up and draining) */
    /* an LLM model's (docs/llm.md, "Serverless LLMs"); 0 for other models */
    double tokens_per_s;      /* output tokens of the requests finished in the last period, per second */
    double kv_use;            /* the mean fraction of KV-cache blocks held over its up engines now */
} ss_autoscale_view;

typedef struct ss_autoscaler_ops {
    /* The number of replicas the model should have (starting and up).  The
     * simulator clamps it to [min, max], holds scale-down back by its
     * stabilisation window, and applies it after the decision delay. */
    uint32_t (*desired)(void *state, const ss_autoscale_view *v);
} ss_autoscaler_ops;

/* ---- placement and sourcing (cold starts, docs/coldstart.md) -------- */
/* A replica starting on a topology's GPU goes through the cold-start
 * stages: its model's data reaches the host's RAM (from the host itself, a
 * peer host's RAM or storage), is loaded into a process on the host, and
 * is sent to the GPU.  The simulator owns the stages, the memory ledgers
 * and the flows; the policy says which hosts get the replicas, which peer
 * (if any) a host downloads from, and, through its flags, what hosts and
 * GPUs keep after a replica goes. */
enum {
    SS_PLACE_KEEP_DATA = 1u << 0,     /* lazy eviction: a host keeps a model's data in RAM after its
                                       * replicas go, until memory pressure evicts it (LRU) */
    SS_PLACE_KEEP_PROCESS = 1u << 1,  /* a host keeps the model loaded in one process shared by its GPUs:
                                       * a new GPU there takes the send-to-GPU step only */
    SS_PLACE_KEEP_GPU = 1u << 2,      /* a GPU keeps the weights of the replica it last held until another
                                       * model needs it: a replica of that model starts there warm */
    SS_PLACE_SHARE_DOWNLOAD = 1u << 3, /* one download per host and model, shared by every GPU of the host
                                        * that needs it (the download manager) */
    SS_PLACE_KEEP_DISK = 1u << 5,      /* a host writes a model's data to its disk (the host type's `disk:`)
                                        * once it has it, and reads it back from there before asking peers
                                        * or storage (ServerlessLLM's checkpoint tiers); LRU on the disk */
    SS_PLACE_SLEEP = 1u << 6,          /* a replica scaled down sleeps: its process stays, its weights park
                                        * in host RAM (vLLM's sleep mode, level 1); waking is the copy to
                                        * the GPU.  A sleeper yields its GPU to any other replica, and its
                                        * RAM to memory pressure (before loaded processes) */
    SS_PLACE_ESTIMATE = 1u << 7,       /* fill est_start_s and transfer_s (a route per source per candidate) */
    SS_PLACE_MULTICAST = 1u << 4       /* the hosts of one scale-up that need the data get it by TCP chains:
                                        * receivers split evenly over the hosts holding it (else storage),
                                        * each group one chain in host order (implies SHARE_DOWNLOAD; the
                                        * source op is not asked) */
};
/* What a host holds of the model being placed (ss_place_host_view.data). */
enum { SS_HOLDS_NOTHING = 0, SS_HOLDS_DOWNLOADING = 1, SS_HOLDS_DATA = 2, SS_HOLDS_PROCESS = 3 };
/* Where a cold start's data came from (metrics, docs). */
enum { SS_SOURCE_GPU = 0, SS_SOURCE_LOCAL = 1, SS_SOURCE_PEER = 2, SS_SOURCE_STORAGE = 3, SS_SOURCE_DISK = 4,
       SS_SOURCE_SLEEP = 5, SS_SOURCE_COUNT = 6 };

typedef struct ss_place_host_view {
    uint32_t host;          /* the host's index in the topology (stable) */
    uint32_t rack;          /* the index of the switch it hangs off (hosts of one leaf share it) */
    uint32_t free_gpus;     /* its GPUs that can take a replica of the model now */
    uint32_t gpu_cached;    /* of those, GPUs that still hold the model's weights (SS_PLACE_KEEP_GPU) */
    uint32_t sleeping;      /* of those, GPUs with a sleeping replica of the model (SS_PLACE_SLEEP) */
    uint32_t on_disk;       /* 1 if its disk holds the model's data (SS_PLACE_KEEP_DISK) */
    double est_start_s;     /* the simulator's estimate of a cold start there now: the fastest tier
                             * holding the model, at the rates the links it would use would give a
                             * new transfer (capacity / (flows + 1) on each, the smallest) */
    uint32_t replicas;      /* replicas of the model on it now (starting, up or draining) */
    uint32_t data;          /* SS_HOLDS_*: what of the model its RAM holds */
    uint32_t uploads;       /* model transfers it sends to peers now */
    double free_ram_bytes;  /* RAM free now, counting what could be evicted */
} ss_place_host_view;

typedef struct ss_place_ctx {
    uint32_t model;         /* stable id in [0, ngroups) */
    double model_bytes;     /* its data (weights) */
    double now_s;
    uint32_t want;          /* replicas to start */
    const ss_place_host_view *hosts; /* hosts with at least one free GPU for it, by host index */
    uint32_t nhosts;
} ss_place_ctx;

typedef struct ss_source_ctx {
    uint32_t model;
    double model_bytes;
    double now_s;
    const ss_place_host_view *to;       /* the host that needs the data */
    const ss_place_host_view *holders;  /* other hosts whose RAM holds it, by host index */
    const double *transfer_s;           /* per holder: estimated seconds of its transfer to `to` now */
    uint32_t nholders;
} ss_source_ctx;

typedef struct ss_placement_ops {
    uint32_t flags;         /* SS_PLACE_* */
    /* Where the replicas go: write up to ctx->want positions in ctx->hosts
     * to out, one per replica (a host at most its free_gpus times); return
     * how many.  Fewer than want starts fewer. */
    uint32_t (*place)(void *state, const ss_place_ctx *ctx, uint32_t *out);
    /* Optional: the peer a host downloads the model from, a position in
     * ctx->holders, or UINT32_MAX for storage.  NULL: always storage.  Not
     * asked when the host holds the data itself. */
    uint32_t (*source)(void *state, const ss_source_ctx *ctx);
} ss_placement_ops;

/* ---- partitioner (model partitioning, docs/partitioning.md) ---------- */
/* A model as a chain of layers (models/<model>-layers.json), with what the
 * partition latency model of FP §2.4 (servesim/partition.h) needs. */
typedef struct ss_part_layer {
    double weights_bytes;   /* its parameters' share of the model's file */
    double output_bytes;    /* what crosses a cut right after it */
    double exec_s;          /* its share of the model's execution time */
} ss_part_layer;

typedef struct ss_part_model {
    uint32_t model;         /* stable id in [0, ngroups): a cache key */
    const ss_part_layer *layers;
    uint32_t nlayers;
    /* A part's cold start: cold_fixed_s + cold_s_per_byte x its bytes (the
     * slowest source's path: FP §2.5 plans for the worst case). */
    double cold_s_per_byte, cold_fixed_s;
    /* A cut's transfer: net_fixed_s + net_s_per_byte x the bytes crossing it. */
    double net_s_per_byte, net_fixed_s;
} ss_part_model;

typedef struct ss_partitioner_ops {
    /* The plan for x requests expected to wait (FP eq. 4.14; x >= 1) when
     * `gpus` GPUs are being added: write the cut positions (a cut right
     * after layer k; increasing; at most min(gpus, nlayers) - 1 of them) to
     * cuts and return the number of parts (1: the whole model, no cut).
     * Asked at every scale-up: cache what depends on the model only. */
    uint32_t (*plan)(void *state, const ss_part_model *m, double x, uint32_t gpus, uint32_t *cuts);
} ss_partitioner_ops;

/* ---- controller (the cores of a CPU container, docs/control.md) ------ */
/* A container is a ps instance with a cap (its cores) that pulls from its
 * model's shared queue.  Every control period the simulator asks each
 * controlled container's controller (one state per container) for the
 * cores it wants, a per-worker supervisor scales the demands to fit the
 * worker's cores, and the controller is told what was granted. */
typedef struct ss_control_view {
    uint32_t model;        /* stable id in [0, ngroups) */
    uint32_t device;       /* the worker's CPU device */
    double now_s, period_s;
    double sla_s;          /* the model's response-time SLA (models: sla_s); 0 if none */
    /* The model's requests completed in the last period, on every device
     * (ROMA eq. 1): their mean response time (queue + service), NAN if none. */
    double rt_mean_s;
    uint32_t done_gpu;     /* of those, served on a time-shared device (a GPU) */
    uint32_t done_cpu;     /* ... on a container */
    uint32_t queued;       /* the model's shared queue now */
    uint32_t held;         /* requests in this container now */
    double cores;          /* its cores now (what was granted last) */
    double min_cores;      /* the least it may get (control.min_cores) */
    double avail_cores;    /* the worker's cores less the reserved ones (ROMA's AC = MC - GC) */
} ss_control_view;

typedef struct ss_controller_ops {
    /* The cores the container asks for in the next period (any value: the
     * simulator clamps it to [min_cores, avail_cores] before the supervisor). */
    double (*demand)(void *state, const ss_control_view *v);
    /* Optional: what the supervisor granted, which is what the container
     * gets; a controller with memory updates it from this (anti-windup). */
    void (*granted)(void *state, const ss_control_view *v, double cores);
} ss_controller_ops;

/* ---- device scheduler (time-shared devices, docs/control.md) --------- */
/* A time-shared device (a GPU that every model's executable shares, one
 * request at a time) asks its scheduler, each time it is free and some
 * queue of its models holds a request, which model it serves next; it then
 * takes the head of that model's shared queue. */
typedef struct ss_dqueue_view {
    uint32_t model;        /* stable id in [0, ngroups) */
    uint32_t queued;       /* requests waiting in its shared queue */
    double wait_sum_s;     /* the sum over them of the time waited so far */
    double head_wait_s;    /* ... the longest (the head's) */
    double exec_s;         /* its profiled service time on this device (the mean) */
    double rt_mean_s;      /* mean response time of its requests completed in the
                            * scheduler's window (dispatch.window_s), NAN if none */
    uint32_t completed;    /* how many those were */
    double sla_s;          /* its SLA, 0 if none */
} ss_dqueue_view;

typedef struct ss_dsched_ctx {
    uint32_t device;       /* index of the freed device */
    double now_s;
    const ss_dqueue_view *q; /* the models with an executable on the device, in model order */
    uint32_t n;
} ss_dsched_ctx;

typedef struct ss_device_sched_ops {
    /* Index in [0, n) of the model to serve; it must have queued > 0 (any
     * other answer: the simulator serves the longest queue). */
    uint32_t (*pick)(void *state, const ss_dsched_ctx *ctx);
} ss_device_sched_ops;

/* ---- admission (whether an arriving request gets in, docs/plugins.md) -- */
/* What an admission policy sees of a request arriving at its first model
 * (at the gateway: later stages are not asked). */
typedef struct ss_admission_view {
    uint32_t model;        /* stable id in [0, ngroups): keep per-model state */
    double now_s;
    uint32_t queued;       /* the model's requests waiting for an instance */
    uint32_t in_flight;    /* ... and those in service */
    uint32_t up;           /* its instances up */
} ss_admission_view;

typedef struct ss_admission_ops {
    /* 1: let it in; 0: refuse it (dropped, as an HTTP 429, and counted as dropped). */
    int (*admit)(void *state, const ss_admission_view *v, const ss_qitem *req);
} ss_admission_ops;

/* ---- the exported descriptor ---------------------------------------- */
typedef struct ss_policy {
    uint32_t abi;          /* SS_POLICY_ABI at build time */
    uint32_t kind;         /* an ss_policy_kind */
    const char *name;      /* as written in scenarios; equals the file name stem */
    const char *summary;   /* one line for `servesim plugins` */
    const char *const *params; /* NULL-terminated accepted parameter keys, or NULL for none */
    /* Optional.  Build per-use state into *state; return 0, or -1 with a
     * message in err (the simulator adds file:line:col). */
    int (*init)(void **state, const ss_policy_init *args, char *err, size_t errlen);
    void (*fini)(void *state); /* optional */
    union {
        ss_scheduler_ops scheduler;
        ss_lb_ops load_balancer;
        ss_transport_ops transport;
        ss_layer_sched_ops layer_scheduler;
        ss_autoscaler_ops autoscaler;
        ss_placement_ops placement;
        ss_partitioner_ops partitioner;
        ss_controller_ops controller;
        ss_device_sched_ops device_scheduler;
        ss_admission_ops admission;
    } ops;
} ss_policy;

/* Parameter helpers, header-only so plugins link nothing of ours. */
static inline const char *ss_param_get(const ss_params *p, const char *key)
{
    for (size_t i = 0; p && i < p->n; i++) {
        const char *a = p->items[i].key, *b = key;
        while (*a && *a == *b) { a++; b++; }
        if (*a == *b) return p->items[i].value;
    }
    return NULL;
}

/* The parameter as a finite number, or `def` if absent; -1 in *bad if the
 * text is not a number (the plugin then reports it from init). */
static inline double ss_param_double(const ss_params *p, const char *key, double def, int *bad)
{
    const char *v = ss_param_get(p, key);
    if (!v) return def;
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || x != x) { if (bad) *bad = -1; return def; }
    return x;
}

#endif /* SERVESIM_POLICY_H */
