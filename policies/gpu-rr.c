/* gpu-rr.c: the round-robin GPU scheduler of ROMA's baselines (seed
 * roma.md §2.6: RR+CT, RR+rules, RR+max, RR+min), a device scheduler: a
 * freed time-shared device serves the next model, in model order, after
 * the one it served last, skipping models whose queue is empty (the seed
 * leaves open whether RR skips empty queues; serving nothing while a queue
 * waits would idle the device, so it skips).  One cursor per device (the
 * model id after the last one served, kept in an array indexed by
 * ctx->device and grown as devices appear), so devices do not disturb each
 * other's rotation.  The cursor is a model id, not a view index, so a
 * device whose list of models changes keeps its place.  No parameters. */
#include <servesim/policy.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct rr_state {
    uint32_t ndev;
    uint32_t *next_model; /* per device: the first model id eligible next */
} rr_state;

static int rr_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    rr_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    *state = s;
    return 0;
}

static void rr_fini(void *state)
{
    rr_state *s = state;
    if (!s) return;
    free(s->next_model);
    free(s);
}

/* The device's cursor, growing the array; NULL if out of memory. */
static uint32_t *rr_cursor(rr_state *s, uint32_t device)
{
    if (device >= s->ndev) {
        uint32_t n = device + 1 > 2 * s->ndev ? device + 1 : 2 * s->ndev;
        uint32_t *v = realloc(s->next_model, (size_t)n * sizeof *v);
        if (!v) return NULL;
        for (uint32_t i = s->ndev; i < n; i++) v[i] = 0;
        s->next_model = v;
        s->ndev = n;
    }
    return &s->next_model[device];
}

static uint32_t rr_pick(void *state, const ss_dsched_ctx *ctx)
{
    uint32_t *cur = rr_cursor(state, ctx->device);
    uint32_t from = cur ? *cur : 0; /* out of memory: no memory of the last turn */
    /* The first non-empty queue at or after the cursor, else the first
     * non-empty one (wrapping); the views are in model order. */
    uint32_t first = ctx->n, pick = ctx->n;
    for (uint32_t i = 0; i < ctx->n && pick == ctx->n; i++) {
        if (ctx->q[i].queued == 0) continue;
        if (first == ctx->n) first = i;
        if (ctx->q[i].model >= from) pick = i;
    }
    if (pick == ctx->n) pick = first;
    if (pick == ctx->n) return 0; /* nothing queued (the simulator never asks then) */
    if (cur) *cur = ctx->q[pick].model + 1;
    return pick;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_DEVICE_SCHEDULER,
    .name = "gpu-rr",
    .summary = "round robin over the models' non-empty queues, per device",
    .params = NULL,
    .init = rr_init,
    .fini = rr_fini,
    .ops.device_scheduler = {.pick = rr_pick},
};
