/* pipeline.h: block pipelines (BlockFlow, issue 4) - the `pipeline:`
 * serving path of a world whose scenario has a `pipeline:` section
 * (input/pipeline_cfg.h), and the per-request state it keeps.
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
 * device has a request at one of its processes.
 *
 * Under `compute: shared` (pipeline_compute.h) the same costs become work
 * on shared resources: the main thread's receive and send parts are CPU
 * work on its host's cores and its compute is work on its GPU, one after
 * the other; a hop's delivery is CPU work of the receiving process's ZeroMQ
 * I/O thread (the per-byte part) and then of its receiver thread (the rest),
 * each a FIFO single server beside the main thread.  docs/blockflow.md
 * states the assumptions and their sources. */
#ifndef SS_PIPELINE_H
#define SS_PIPELINE_H

#include "core/util.h"
#include "serve/serve.h"

/* Build the pipeline of w's scenario onto w: processes, transport plugin,
 * ledgers, network; sets w's routing and warm-up hooks and declares the
 * extra result columns.  0 ok, -1 with err set. */
int ss_pipe_build(ss_world *w, ss_err *err);
void ss_pipe_result(const ss_world *w, ss_run_result *r);
void ss_pipe_free(ss_world *w);
/* The end-of-run check (world.h): the VRAM and host-RAM ledgers back to
 * what the processes hold for the whole run.  NULL, or a message to free. */
char *ss_pipe_check(const ss_world *w);

#endif
