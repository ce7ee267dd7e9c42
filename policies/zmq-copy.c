/* zmq-copy.c: BlockFlow's plain ZeroMQ transport.  Every hop moves the whole
 * pickled tensor: device-to-host copy, pickle and socket send on the sender,
 * receive, unpickle and host-to-device copy on the receiver, the bytes
 * buffered in the receiving host's RAM while they wait (seed §1.3).  Costs
 * are affine in the bytes (transport_affine.h); placement does not matter
 * because the tensor goes through host memory at every hop.  The dispatcher
 * forwards the message unchanged: it pays only the fixed per-message cost
 * (docs/blockflow-models.md §5.6). */
#include "transport_affine.h"

static const char *const zc_params[] = {"framing_bytes", "block_fixed_s", "block_in_s_per_byte",
                                        "block_out_s_per_byte", "delivery_fixed_s", "delivery_s_per_byte", NULL};

static int zc_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    return ta_init(state, args->params, (ta_affine)TA_ZMQ_DEFAULTS, "framing_bytes", 0, err, errlen);
}

static int zc_hop(void *state, const ss_hop *h, ss_hop_cost *out)
{
    const ta_state *s = state; /* extra: the framing bytes */
    double bytes = h->tensor_bytes + s->extra;
    ta_affine a = s->a;
    if (h->from_kind == SS_HOP_DISPATCHER) a.block_out_s_per_byte = 0; /* forwards the pickle as received */
    if (h->to_kind == SS_HOP_DISPATCHER) a.block_in_s_per_byte = 0;    /* unpickles only the path */
    ta_price(&a, h, bytes, out);
    out->wire_bytes = bytes;
    out->queued_bytes = bytes;
    out->queued_in = SS_QUEUED_HOST_RAM;
    return 0;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_TRANSPORT,
    .name = "zmq-copy",
    .summary = "ZeroMQ carrying the pickled tensor: GPU->host->socket->host->GPU at every hop, cost affine in bytes",
    .params = zc_params,
    .init = zc_init,
    .fini = ta_fini,
    .ops.transport = {.hop = zc_hop},
};
