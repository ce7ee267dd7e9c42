/* shm-handle.c: tensors in shared memory, a handle over ZeroMQ - the CPU
 * analogue of BlockFlow's TensorMQ that tools/probe measures (issue 15;
 * tools/probe/transports.py).  Each hop has a ring of slots in a /dev/shm
 * file: the sender copies its output tensor into a slot and sends a small
 * pickled handle (slot, shape) over PUSH/PULL; the receiver computes on a
 * view of the slot, so its main thread does not copy the tensor.  Costs are
 * affine in the bytes (transport_affine.h): the defaults are the probe's
 * one-hop fit on this project's 2-core VM (profiles/measured/committed-2026-11-26/probe-micro.json
 * through `servesim calibrate`, split as measured: the sender's copy into the
 * slot and the receiver's decode on the main threads, the rest as delivery);
 * a scenario passes a calibrated model file's figures as parameters
 * (`profile:`).  Only the handle
 * crosses the socket (`handle_bytes`, 63 as the probe pickles it); the tensor
 * waits in host RAM.
 *
 * A hop from the client (the dispatcher's input) is a zmq-copy hop: the
 * probe's client sends the tensor pickled under both transports, and the
 * dispatcher unpickles it (then copies it into a slot of the next hop).  It
 * is priced with zmq-copy's laws, the `client_hop.*` parameters (a scenario
 * imports them from the same profile with `client_hop: zmq-copy`; the
 * defaults are the probe's zmq-copy fit), all of them: the dispatcher
 * unpickles the whole tensor, unlike zmq-copy's own dispatcher, which
 * forwards the pickle.  [ASSUMPTION] The dispatcher's fixed cost is then
 * zmq-copy's block_fixed_s (its receive and its send's fixed parts), while
 * it sends by shm-handle: too much by the difference of the two senders'
 * fixed parts (0.15 ms per request in the 2026-11-26 pipeline-mode fit), since the model
 * file keeps the two sums, not the parts. */
#include "transport_affine.h"

static const char *const sh_params[] = {"handle_bytes",
                                        "block_fixed_s",
                                        "block_in_s_per_byte",
                                        "block_out_s_per_byte",
                                        "delivery_fixed_s",
                                        "delivery_s_per_byte",
                                        "client_hop.block_fixed_s",
                                        "client_hop.block_in_s_per_byte",
                                        "client_hop.block_out_s_per_byte",
                                        "client_hop.delivery_fixed_s",
                                        "client_hop.delivery_s_per_byte",
                                        NULL};

typedef struct sh_state {
    ta_state t;         /* this transport's laws; extra: the handle's bytes */
    ta_affine client;   /* the hop from the client: zmq-copy's laws */
} sh_state;

static int sh_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    /* models/resnet50-cpu.json transports.shm-handle (servesim calibrate
     * profiles/measured/committed-2026-11-26/probe-micro.json, 2026-11-26, pipeline mode) */
    sh_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    s->t.a = (ta_affine){0.000341355373, 0, 5.984909692e-11, 0.0004198443572, 0};
    s->t.extra = 63;
    /* the same file's transports.zmq-copy */
    s->client = (ta_affine){0.0007410870999, 1.339109709e-10, 1.32427056e-10, 0.001078304894, 2.044231593e-10};
    const ss_params *p = args->params;
    if (ta_read(p, "", &s->t.a, err, errlen) < 0 || ta_param(p, "handle_bytes", &s->t.extra, err, errlen) < 0 ||
        ta_read(p, "client_hop.", &s->client, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int sh_hop(void *state, const ss_hop *h, ss_hop_cost *out)
{
    const sh_state *s = state;
    int from_client = !ta_is_process(h->from_kind);
    ta_price(from_client ? &s->client : &s->t.a, h, h->tensor_bytes, out);
    out->wire_bytes = from_client ? h->tensor_bytes : s->t.extra;
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
