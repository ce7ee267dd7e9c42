/* pipeline.h: block pipelines (BlockFlow, issue 4) - the `pipeline:`
 * section of a scenario and the serving path of a world that has one.
 *
 * In a pipeline world every model on a task's path is a block (blockmodel.h),
 * every deployed instance is one OS process with one main thread (one server)
 * and its own FIFO queue, and every hop - client -> [dispatcher ->] block ->
 * ... -> block -> client - is priced by the transport plugin
 * (SS_KIND_TRANSPORT, policy.h): the sender's part runs on the sender's main
 * thread after its compute, the receiver's part on the receiver's main
 * thread before its compute, the delivery in flight occupying neither
 * (docs/blockflow-models.md §5.2).  A block's queue may batch (max batch,
 * max wait); compute time then follows the profile's batch rule.  Devices
 * carry a VRAM ledger, hosts a RAM ledger, and energy is power x the time a
 * device has a request at one of its processes.  docs/blockflow.md states
 * the assumptions and their sources. */
#ifndef SS_PIPELINE_H
#define SS_PIPELINE_H

#include <stdint.h>

#include "cfg.h"
#include "scenario.h"

typedef struct ss_pipeline_cfg {
    ss_policy_cfg transport;   /* plugin and its parameters (profile figures first, then the scenario's) */
    uint32_t batch;            /* samples per client tensor (>= 1) */
    int has_dispatcher;
    uint32_t dispatcher_device;
    int has_client_device;     /* else the client sits on the GPU of whatever it talks to */
    uint32_t client_device;
    double contention;         /* compute slowdown per other busy process on the GPU; 1 = none */
    uint32_t *max_batch;       /* per model (>= 1) */
    double *max_wait_s;        /* per model (>= 0) */
} ss_pipeline_cfg;

/* Read the scenario's `pipeline:` section, if any, into sc->pipeline (after
 * models, tasks, deployment and workloads are read).  0 ok (also when
 * absent), -1 with a positioned error. */
int ss_pipeline_read(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_pipeline_free(ss_pipeline_cfg *p);

/* Per-request pipeline state, kept in ss_request (world_internal.h). */
typedef struct ss_pipe_req {
    uint32_t batch;       /* samples in its tensor */
    uint32_t at;          /* process it is at or heading to (UINT32_MAX: the client) */
    uint32_t next;        /* where it goes after this process */
    int at_dispatcher;
    double sent_s;        /* the hop into `at` was sent */
    double arrived_s;     /* it joined `at`'s queue */
    double recv_s;        /* receiver cost of that hop, paid when service starts */
    double delivery_s;    /* delivery of the next hop */
    double next_recv_s;   /* receiver cost of the next hop */
    double held_bytes;    /* memory its data holds at `at` until service ends */
    uint32_t held_in;     /* SS_QUEUED_* */
    double next_held_bytes;
    uint32_t next_held_in;
    double cur_o_s, cur_m_s; /* o_b and m_b at the process serving it now */
    double overhead_s, compute_s, pipeline_s; /* sums over the blocks passed */
    double net_bytes;     /* the priced hop's wire bytes if it goes over the network, else 0 */
    uint32_t net_src_dev, net_dst_dev; /* its two ends' devices (pipeline_net.c) */
    uint32_t hops;        /* hops departed so far (the ECMP key's second half) */
} ss_pipe_req;

#endif
