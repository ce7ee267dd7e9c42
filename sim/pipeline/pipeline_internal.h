/* pipeline_internal.h: what the files of the block-pipeline module share
 * (pipeline.c, the serving path; pipeline_build.c, building, results and
 * freeing): a process, the pipeline, and the few functions one calls in the
 * other.  Private to sim/serve/pipeline*.c. */
#ifndef SS_PIPELINE_INTERNAL_H
#define SS_PIPELINE_INTERNAL_H

#include "input/blockmodel.h"
#include "input/pipeline_cfg.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_compute.h"
#include "pipeline/pipeline_net.h"
#include "pipeline/pipe_req.h"
#include "serve/serve.h"
#include "pipeline/vram.h"

#define CLIENT UINT32_MAX

typedef struct pproc {
    ss_world *w;
    ss_instance *in;        /* the block's instance; NULL for the dispatcher */
    uint32_t index;         /* in ss_pipe.procs */
    uint32_t kind;          /* SS_HOP_BLOCK or SS_HOP_DISPATCHER */
    uint32_t device, host;
    const ss_block_cfg *blk;
    char *name;             /* column suffix */
    uint32_t max_batch;
    double max_wait_s;
    /* FIFO queue (a ring) and the batch in service */
    ss_request **ring;
    size_t head, len, cap;
    uint64_t capacity;
    ss_request **batch;
    uint32_t nbatch, busy;
    double started_s;
    int timer_on;
    ss_event_id timer;
    uint8_t *ctx_opened;    /* per device: a cross-GPU context opened there */
    /* compute: shared (pipeline_compute.h): the process's other threads, and
     * its main thread's batch as pieces of work in a row */
    ss_pc_thread io, rx;    /* ZeroMQ's I/O thread, the receiver thread */
    ss_pc_place main;       /* the main thread, for wake-up stacking */
    double free_since_s;    /* its last batch ended (-1: none yet) */
    double last_in_s;       /* a message was last sent to it (`wake`: idle since the later of the two) */
    int waking;             /* the batch's first piece starts after a sleep */
    int stage;              /* the piece in progress: STAGE_* (pipeline.c) */
    double stage_start_s;
    double work_s[4];       /* per stage: receive (CPU), compute's host part (CPU), its kernels (GPU), send (CPU), alone */
    double copy_s[4];       /* ... the part of each that copies host memory (receive and send) */
    double wall_s[4];       /* per stage: as it ran, shared */
    ss_stat overhead, compute, wait, batch_size; /* measured requests */
    /* `slots` (pipeline_cfg.h): the messages sent to this process whose batch has not ended
     * (each holds a slot of its inbound ring), the senders waiting for one (a FIFO of process
     * indices), and, while this process's own main thread waits, the batch item it is at */
    uint32_t slots_used;
    uint32_t *waiters;
    size_t wait_head, wait_len, wait_cap;
    uint32_t blocked_at;    /* batch item whose send waits for a slot; UINT32_MAX: none */
} pproc;

typedef struct ss_pipe {
    const ss_pipeline_cfg *cfg;
    ss_plugin tp;
    void *tp_state;
    gsl_rng *tp_rng;
    pproc *procs;
    size_t nprocs;
    char **hosts;           /* host names, from "host/device" */
    size_t nhosts;
    uint32_t *dev_host;     /* per device */
    double *gpu_busy0_s;    /* compute: shared: per device, its kernel-busy time when the window began (gpu_util) */
    uint32_t *dev_occ;      /* requests at or heading to its processes, per device */
    double *dev_occ_since, *dev_occ_s;
    ss_ledger vram, ram;    /* per device, per host */
    double *vram_base_mib, *ram_base_mib; /* what the processes hold for the whole run (end-of-run check) */
    ss_stat pipeline, overhead, compute; /* per measured request */
    ss_pipe_net *net;       /* cross-host hops over the topology (pipeline_net.c), or NULL */
    ss_pcomp *comp;         /* compute: shared: the CPUs and GPUs (pipeline_compute.c), or NULL */
    double client_last_s;   /* `wake`: the client process last sent or received (0: the start) */
    double *usage;          /* run queues: per host, core-s busy and thread-s waiting at the window's start, then its end */
} ss_pipe;

/* pipeline.c: the GPU-to-GPU path kind between devices a and b (SS_GPU_PATH_*). */
uint32_t ss_pipe_gpu_path(const ss_world *w, uint32_t a, uint32_t b);
/* pipeline.c: the world's route hook (a new request leaves its client). */
void ss_pipe_route(ss_world *w, ss_request *r);
/* pipeline.c: the tensor of r's current hop has arrived over the network at r->pipe.at. */
void ss_pipe_delivered(ss_world *w, ss_request *r);
/* pipeline.c: under compute: shared, set up every process's I/O and receiver threads on p->comp. */
void ss_pipe_threads_init(ss_pipe *p);

#endif
