/* pipeline_net.h: cross-host hops of a block pipeline over the flow-level
 * network (docs/blockflow.md, "Cross-host hops over the network").  Shared
 * by pipeline.c and pipeline_net.c only.
 *
 * With a `topology:`, a hop whose two ends sit on different hosts carries
 * the transport's wire bytes as a flow (sim/flow.h) over the topology's
 * route between the two ends' GPUs; the hop is delivered when the flow's
 * last byte has arrived, plus the route's latency, plus the transport's
 * delivery minus its per-byte term (ss_hop_cost.delivery_wire_s).  Same-host
 * hops never come here. */
#ifndef SS_PIPELINE_NET_H
#define SS_PIPELINE_NET_H

#include <stddef.h>
#include <stdint.h>

#include "serve/serve.h"

typedef struct ss_pipe_net ss_pipe_net;

/* The network for a pipeline world whose hops may go from device a to
 * device b where hop_pairs[a * ndev + b] is nonzero (cross-host pairs only).
 * *out = NULL (and 0) when the scenario has no topology or no such pair.
 * A device that is not a node of the topology, or a pair without a route,
 * is refused at (file, line, col): -1 with err set. */
int ss_pipe_net_new(ss_world *w, const uint8_t *hop_pairs, size_t ndev, const char *file, int line, int col,
                    void (*delivered)(ss_world *w, ss_request *r), ss_pipe_net **out, ss_err *err);
/* Declare the result columns: net_bytes, then link_bytes_<from>-<to> and
 * link_util_<from>-<to> for every directed link some possible hop can use. */
void ss_pipe_net_declare(const ss_pipe_net *n, ss_world *w);
/* Send r's priced hop (r->pipe.net_bytes from net_src_dev to net_dst_dev)
 * as a flow; fixed_s (the transport's delivery less its per-byte term) is
 * added after the last byte and the route's latency.  ss_pipe_delivered(w,
 * r) runs at the end. */
void ss_pipe_net_send(ss_pipe_net *n, ss_request *r, double fixed_s);
/* The measured window starts now: counters restart. */
void ss_pipe_net_warmup_over(ss_pipe_net *n);
/* Fill the declared columns from cols[k]; returns the next k. */
size_t ss_pipe_net_result(const ss_pipe_net *n, ss_run_result *r, const char *const *cols, size_t k);
void ss_pipe_net_free(ss_pipe_net *n);

/* pipeline.c: the tensor of r's current hop has arrived at r->pipe.at. */

#endif
