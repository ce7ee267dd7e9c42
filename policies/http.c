/* http.c: BlockFlow's REST baseline (CherryPy, POST): the blocks cost what
 * zmq-copy's cost, delivery follows the Table 4.3 HTTP fit, and every
 * request a served process receives pays a fixed request cost, calibrated so
 * that unsplit ResNet50 behind REST takes "around 200 ms" (C5,
 * models/transports.json "http"; the weakest of the three transports). */
#include "transport_affine.h"

static const char *const ht_params[] = {"block_fixed_s", "block_in_s_per_byte", "block_out_s_per_byte",
                                        "delivery_fixed_s", "delivery_s_per_byte", "request_fixed_s", NULL};

static int ht_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    ta_affine a = TA_ZMQ_DEFAULTS;
    /* Table 4.3 HTTP: 1.676 ms / 2 fixed; (10.885 - 1.676) ms / 602,112 B. */
    a.delivery_fixed_s = 0.000838;
    a.delivery_s_per_byte = 1.529449e-8;
    return ta_init(state, args->params, a, "request_fixed_s", 0.176659, err, errlen);
}

static int ht_hop(void *state, const ss_hop *h, ss_hop_cost *out)
{
    const ta_state *s = state; /* extra: the request cost */
    ta_price(&s->a, h, h->tensor_bytes, out);
    if (ta_is_process(h->to_kind)) out->receiver_s += s->extra;
    out->wire_bytes = h->tensor_bytes;
    out->queued_bytes = h->tensor_bytes;
    out->queued_in = SS_QUEUED_HOST_RAM;
    return 0;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_TRANSPORT,
    .name = "http",
    .summary = "REST (CherryPy POST) carrying the tensor: zmq-copy's block costs plus HTTP delivery and request cost",
    .params = ht_params,
    .init = ht_init,
    .fini = ta_fini,
    .ops.transport = {.hop = ht_hop},
};
