/* tensormq.c: BlockFlow's TensorMQ transport.  A hop sends a small message
 * (metadata plus a CUDA IPC handle, "around 180 Bytes", seed §1.3) and the
 * tensor stays in VRAM, so the cost does not depend on the tensor's size -
 * except when the next process is on another GPU: then the sender copies the
 * output there first (`.to(device)`, seed §1.3 Fig. 3.9), paying a fixed
 * cost plus bytes over the GPU-to-GPU path's rate (NODE, SYS, ...).
 *
 * A CUDA IPC handle is valid within one host only, so across hosts the hop
 * falls back to copying the pickled tensor as zmq-copy does (`fallback.*`
 * parameters, zmq-copy's calibrated constants by default).  The client ->
 * dispatcher hop also carries the pickled tensor, and the dispatcher uploads
 * it and makes the handle (docs/blockflow-models.md §5.6). */
#include "transport_affine.h"

enum { NPATHS = SS_GPU_PATH_NET + 1 };

typedef struct tm_state {
    ta_affine a, fallback;
    double message_bytes;
    double copy_fixed_s;
    double copy_bytes_per_s[NPATHS]; /* by SS_GPU_PATH_* */
} tm_state;

static const char *const tm_params[] = {
    "message_bytes", "block_fixed_s", "block_in_s_per_byte", "block_out_s_per_byte", "delivery_fixed_s",
    "delivery_s_per_byte", "cross_gpu_copy.fixed_s", "cross_gpu_copy.bytes_per_s.NVLINK",
    "cross_gpu_copy.bytes_per_s.PCIE", "cross_gpu_copy.bytes_per_s.PIX", "cross_gpu_copy.bytes_per_s.PXB",
    "cross_gpu_copy.bytes_per_s.NODE", "cross_gpu_copy.bytes_per_s.SYS", "fallback.block_fixed_s",
    "fallback.block_in_s_per_byte", "fallback.block_out_s_per_byte", "fallback.delivery_fixed_s",
    "fallback.delivery_s_per_byte", NULL};

static int tm_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    tm_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    /* models/transports.json "tensormq": C1 2.55 ms / 4 blocks, C3 hand-off;
     * no per-byte cost: only the handle moves. */
    s->a = (ta_affine){0.0006375, 0, 0, 0.000445679, 0};
    s->fallback = (ta_affine)TA_ZMQ_DEFAULTS;
    s->message_bytes = 180;
    s->copy_fixed_s = 0.00002; /* [ESTIMATE] transports.json cross_gpu_copy */
    double node = 2.0e10, sys = 1.2e10;
    const ss_params *p = args->params;
    if (ta_read(p, "", &s->a, err, errlen) < 0 || ta_read(p, "fallback.", &s->fallback, err, errlen) < 0 ||
        ta_param(p, "message_bytes", &s->message_bytes, err, errlen) < 0 ||
        ta_param(p, "cross_gpu_copy.fixed_s", &s->copy_fixed_s, err, errlen) < 0 ||
        ta_param(p, "cross_gpu_copy.bytes_per_s.NODE", &node, err, errlen) < 0 ||
        ta_param(p, "cross_gpu_copy.bytes_per_s.SYS", &sys, err, errlen) < 0)
        goto bad;
    /* Paths the profile does not price: PCIe-only kinds as NODE, NVLink too
     * (an underestimate of NVLink; Awenode has none), NET as SYS. */
    for (int k = 0; k < NPATHS; k++) s->copy_bytes_per_s[k] = k >= SS_GPU_PATH_SYS ? sys : node;
    const char *keys[] = {NULL, "cross_gpu_copy.bytes_per_s.NVLINK", "cross_gpu_copy.bytes_per_s.PCIE",
                          "cross_gpu_copy.bytes_per_s.PIX", "cross_gpu_copy.bytes_per_s.PXB"};
    for (int k = 1; k <= SS_GPU_PATH_PXB; k++)
        if (ta_param(p, keys[k], &s->copy_bytes_per_s[k], err, errlen) < 0) goto bad;
    for (int k = 1; k < NPATHS; k++)
        if (!(s->copy_bytes_per_s[k] > 0)) {
            snprintf(err, errlen, "cross_gpu_copy.bytes_per_s: rates must be > 0");
            goto bad;
        }
    *state = s;
    return 0;
bad:
    free(s);
    return -1;
}

static void tm_fini(void *state) { free(state); }

static int tm_hop(void *state, const ss_hop *h, ss_hop_cost *out)
{
    const tm_state *s = state;
    if (!h->same_host || (h->from_kind == SS_HOP_CLIENT && h->to_kind == SS_HOP_DISPATCHER)) {
        /* The pickled tensor itself travels (see the top of the file). */
        ta_price(&s->fallback, h, h->tensor_bytes, out);
        out->wire_bytes = h->tensor_bytes;
        out->queued_bytes = h->tensor_bytes;
        out->queued_in = SS_QUEUED_HOST_RAM;
        return 0;
    }
    ta_price(&s->a, h, s->message_bytes, out);
    if (!h->same_gpu && ta_is_process(h->from_kind)) {
        uint32_t k = h->gpu_path < NPATHS ? h->gpu_path : SS_GPU_PATH_SYS;
        out->sender_s += s->copy_fixed_s + h->tensor_bytes / s->copy_bytes_per_s[k];
    }
    out->wire_bytes = s->message_bytes;
    out->queued_bytes = h->tensor_bytes;
    out->queued_in = SS_QUEUED_VRAM;
    return 0;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_TRANSPORT,
    .name = "tensormq",
    .summary = "ZeroMQ carrying a CUDA IPC handle: the tensor stays in VRAM; cross-GPU copy at the sender",
    .params = tm_params,
    .init = tm_init,
    .fini = tm_fini,
    .ops.transport = {.hop = tm_hop},
};
