/* transport_affine.h: the affine hop-cost model the three BlockFlow
 * transports share (docs/blockflow-models.md §5.2), header-only so each
 * plugin stays one self-contained shared object.
 *
 * For a hop carrying a tensor of B bytes from a process to a process:
 *   sender   (main thread, after compute) = B x block_out_s_per_byte
 *   receiver (main thread, before compute) = block_fixed_s + B x block_in_s_per_byte
 *   delivery (in flight)                   = delivery_fixed_s + B x delivery_s_per_byte
 * so a block's overhead is o_b = block_fixed + in x in_rate + out x out_rate.
 * Defaults are the calibrated constants of models/transports.json (C1-C4);
 * a scenario passes that file's figures as parameters (`profile:`). */
#ifndef SS_TRANSPORT_AFFINE_H
#define SS_TRANSPORT_AFFINE_H

#include <servesim/policy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ta_affine {
    double block_fixed_s, block_in_s_per_byte, block_out_s_per_byte;
    double delivery_fixed_s, delivery_s_per_byte;
} ta_affine;

/* ZeroMQ with pickled tensors, calibrated (models/transports.json "zmq-copy"):
 * C1 2.55 ms / 4 blocks; C2 (21.18 - 2.55) ms / 11,845,536 B; C3 hand-off;
 * C4 Table 4.3 (1.054 - 0.069) ms / 602,112 B. */
#define TA_ZMQ_DEFAULTS {0.0006375, 1.572743e-9, 1.572743e-9, 0.000445679, 1.635908e-9}

/* Read one non-negative number parameter; 0 ok, -1 with a message. */
static inline int ta_param(const ss_params *p, const char *key, double *v, char *err, size_t errlen)
{
    int bad = 0;
    double x = ss_param_double(p, key, *v, &bad);
    if (bad || x < 0 || x != x || x > 1e300) {
        snprintf(err, errlen, "parameter '%s': expected a number >= 0, got '%s'", key,
                 ss_param_get(p, key) ? ss_param_get(p, key) : "");
        return -1;
    }
    *v = x;
    return 0;
}

static inline int ta_read(const ss_params *p, const char *prefix, ta_affine *a, char *err, size_t errlen)
{
    const char *names[] = {"block_fixed_s", "block_in_s_per_byte", "block_out_s_per_byte", "delivery_fixed_s",
                           "delivery_s_per_byte"};
    double *vals[] = {&a->block_fixed_s, &a->block_in_s_per_byte, &a->block_out_s_per_byte, &a->delivery_fixed_s,
                      &a->delivery_s_per_byte};
    for (int i = 0; i < 5; i++) {
        char key[96];
        snprintf(key, sizeof key, "%s%s", prefix, names[i]);
        if (ta_param(p, key, vals[i], err, errlen) < 0) return -1;
    }
    return 0;
}

/* The state of a transport that is affine costs and one number of its own
 * (zmq-copy's framing bytes, http's request cost, shm-handle's handle
 * bytes): built from the defaults, then the scenario's parameters. */
typedef struct ta_state {
    ta_affine a;
    double extra;
} ta_state;

static inline int ta_init(void **state, const ss_params *p, ta_affine defaults, const char *extra_key,
                          double extra_default, char *err, size_t errlen)
{
    ta_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    s->a = defaults;
    s->extra = extra_default;
    if (ta_read(p, "", &s->a, err, errlen) < 0 || ta_param(p, extra_key, &s->extra, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static inline void ta_fini(void *state) { free(state); }

static inline int ta_is_process(uint32_t kind)
{
    return kind == SS_HOP_BLOCK || kind == SS_HOP_DISPATCHER;
}

/* The affine costs of a hop that carries `bytes` of tensor.  Every per-byte
 * term is the bytes copied through host memory (pickling and unpickling, the
 * socket's kernel copies, a shared-memory slot) [ASSUMPTION: docs/blockflow.md,
 * "Copies sharing memory bandwidth"]; the fixed terms copy nothing. */
static inline void ta_price(const ta_affine *a, const ss_hop *h, double bytes, ss_hop_cost *out)
{
    if (ta_is_process(h->from_kind)) {
        out->sender_s += bytes * a->block_out_s_per_byte;
        out->sender_copy_s += bytes * a->block_out_s_per_byte;
    }
    if (ta_is_process(h->to_kind)) {
        out->receiver_s += a->block_fixed_s + bytes * a->block_in_s_per_byte;
        out->receiver_copy_s += bytes * a->block_in_s_per_byte;
    }
    out->delivery_s += a->delivery_fixed_s + bytes * a->delivery_s_per_byte;
    out->delivery_wire_s += bytes * a->delivery_s_per_byte; /* what a network flow replaces */
    out->delivery_copy_s += bytes * a->delivery_s_per_byte;
}

#endif
