/* pipe_req.h: what a request carries through a block pipeline (pipeline.c):
 * where it is, what its next hop costs, the memory its data holds, and the
 * sums its result columns need.  Kept in every request's cb[] (serve.h),
 * which the substrate clears only in pipeline runs: ss_preq(r) is r's. */
#ifndef SS_PIPE_REQ_H
#define SS_PIPE_REQ_H

#include <stdint.h>

#include "serve/serve.h"

typedef struct ss_pipe_req {
    uint32_t batch;       /* samples in its tensor */
    uint32_t at;          /* process it is at or heading to (UINT32_MAX: the client) */
    uint32_t next;        /* where it goes after this process */
    int at_dispatcher;
    double sent_s;        /* the hop into `at` was sent */
    double arrived_s;     /* it joined `at`'s queue */
    double recv_s;        /* receiver cost of that hop, paid when service starts */
    double delivery_s;    /* delivery of the next hop */
    double delivery_wire_s; /* its per-byte part, the bytes through the socket (0 over the network) */
    double rx_s;          /* compute: shared: the receiver thread's part of the hop into `at` */
    double next_recv_s;   /* receiver cost of the next hop */
    double held_bytes;    /* memory its data holds at `at` until service ends */
    uint32_t held_in;     /* SS_QUEUED_* */
    float deliv_copy_frac; /* the priced hop's: the part of its I/O-thread work (delivery_wire_s) that copies
                           * host memory (ss_hop_cost.delivery_copy_s; in what was padding) */
    double next_held_bytes;
    uint32_t next_held_in;
    float recv_copy_frac; /* the priced hop's: the part of its receiver cost that copies host memory (read by
                           * the receiving process's batch before it prices the next hop) */
    double cur_o_s, cur_m_s; /* o_b and m_b at the process serving it now */
    double cur_send_s;    /* its sender cost there (compute: shared stretches it apart from the receive) */
    double overhead_s, compute_s, pipeline_s; /* sums over the blocks passed */
    double net_bytes;     /* the priced hop's wire bytes if it goes over the network, else 0 */
    uint32_t net_src_dev, net_dst_dev; /* its two ends' devices (pipeline_net.c) */
    uint32_t hops;        /* hops departed so far (the ECMP key's second half) */
    uint32_t in_slot;     /* `slots`: its message holds a slot of `at`'s inbound ring (pipeline.c) */
} ss_pipe_req;

_Static_assert(sizeof(ss_pipe_req) <= SS_REQ_CB_BYTES, "ss_pipe_req must fit a request's cb[]");
_Static_assert(_Alignof(ss_pipe_req) <= _Alignof(double), "ss_pipe_req must align as a request's cb[]");

/* r's pipeline state (const for a const r). */
#define ss_preq(r)                                                                                      \
    _Generic((r), const ss_request *: (const ss_pipe_req *)(const void *)(r)->cb,                      \
             default: (ss_pipe_req *)(void *)(r)->cb)

#endif
