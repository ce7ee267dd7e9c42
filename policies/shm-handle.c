/* shm-handle.c: tensors in shared memory, a handle over ZeroMQ - the CPU
 * analogue of BlockFlow's TensorMQ that tools/probe measures (issue 15;
 * tools/probe/transports.py).  Each hop has a ring of slots in a /dev/shm
 * file: the sender copies its output tensor into a slot and sends a small
 * pickled handle (slot, shape) over PUSH/PULL; the receiver computes on a
 * view of the slot, so its main thread does not copy the tensor.  Costs are
 * affine in the bytes (transport_affine.h): the defaults are the probe's
 * one-hop fit on this project's 2-core VM (profiles/measured/probe-micro.json
 * through `servesim calibrate`, split as measured: the sender's copy into the
 * slot and the receiver's decode on the main threads, the rest as delivery);
 * a scenario passes a calibrated model file's figures as parameters
 * (`profile:`).  Only the handle
 * crosses the socket (`handle_bytes`, 63 as the probe pickles it); the tensor
 * waits in host RAM.  A hop from the client (the dispatcher's input) copies
 * the tensor as zmq-copy does: the probe's client sends it pickled. */
#include "transport_affine.h"

static const char *const sh_params[] = {"handle_bytes", "block_fixed_s", "block_in_s_per_byte",
                                        "block_out_s_per_byte", "delivery_fixed_s", "delivery_s_per_byte", NULL};

static int sh_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    /* models/resnet50-cpu.json transports.shm-handle (servesim calibrate
     * profiles/measured/probe-micro.json, 2026-11-26) */
    ta_affine a = {6.82216764e-05, 2.000345408e-12, 5.725510224e-11, 9.690491865e-05, 5.303020915e-12};
    return ta_init(state, args->params, a, "handle_bytes", 63, err, errlen);
}

static int sh_hop(void *state, const ss_hop *h, ss_hop_cost *out)
{
    const ta_state *s = state; /* extra: the handle's bytes */
    ta_price(&s->a, h, h->tensor_bytes, out);
    int from_client = !ta_is_process(h->from_kind);
    out->wire_bytes = from_client ? h->tensor_bytes : s->extra;
    out->queued_bytes = h->tensor_bytes;
    out->queued_in = SS_QUEUED_HOST_RAM;
    return 0;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_TRANSPORT,
    .name = "shm-handle",
    .summary = "tensor copied into a shared-memory slot, a small handle over ZeroMQ (the CPU analogue of tensormq)",
    .params = sh_params,
    .init = sh_init,
    .fini = ta_fini,
    .ops.transport = {.hop = sh_hop},
};
