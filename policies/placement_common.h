/* placement_common.h: what the placement plugins share (header-only, so a
 * plugin links nothing of ours): filling the hosts that hold a model,
 * first fit, one GPU per host, and the nearest peer as a source. */
#ifndef SS_PLACEMENT_COMMON_H
#define SS_PLACEMENT_COMMON_H

#include <stdlib.h>

#include <servesim/policy.h>

/* Replicas placed so far on each candidate (by position in ctx->hosts). */
typedef struct pl_acc {
    const ss_place_ctx *ctx;
    uint32_t *out, n;
    uint32_t *taken;
} pl_acc;

static inline int pl_full(const pl_acc *a) { return a->n >= a->ctx->want; }

static inline void pl_take(pl_acc *a, uint32_t i)
{
    a->out[a->n++] = i;
    a->taken[i]++;
}

/* Every free GPU of the hosts holding at least `holds` of the model
 * (SS_HOLDS_*), in host order. */
static inline void pl_fill_holding(pl_acc *a, uint32_t holds)
{
    for (uint32_t i = 0; i < a->ctx->nhosts && !pl_full(a); i++)
        if (a->ctx->hosts[i].data >= holds)
            while (a->taken[i] < a->ctx->hosts[i].free_gpus && !pl_full(a)) pl_take(a, i);
}

/* The GPUs that still hold the model's weights, in host order. */
static inline void pl_fill_cached(pl_acc *a)
{
    for (uint32_t i = 0; i < a->ctx->nhosts && !pl_full(a); i++)
        while (a->taken[i] < a->ctx->hosts[i].gpu_cached && !pl_full(a)) pl_take(a, i);
}

/* First fit: fill hosts in order. */
static inline void pl_pack(pl_acc *a)
{
    for (uint32_t i = 0; i < a->ctx->nhosts && !pl_full(a); i++)
        while (a->taken[i] < a->ctx->hosts[i].free_gpus && !pl_full(a)) pl_take(a, i);
}

/* One GPU per host at a time, in host order, round after round. */
static inline void pl_spread(pl_acc *a)
{
    for (int more = 1; more && !pl_full(a);) {
        more = 0;
        for (uint32_t i = 0; i < a->ctx->nhosts && !pl_full(a); i++)
            if (a->taken[i] < a->ctx->hosts[i].free_gpus) {
                pl_take(a, i);
                more = 1;
            }
    }
}

/* Flashpoint's Pareto-optimal greedy (seed flashpoint.md §2.8, as its
 * prose says): every free GPU of the hosts holding the model or
 * downloading it, then one GPU per other host, round after round. */
static inline void pl_pareto_greedy(pl_acc *a)
{
    pl_fill_holding(a, SS_HOLDS_DOWNLOADING);
    pl_spread(a);
}

/* Flashpoint's locality (LC, and LC+MC): what GPU-enabled FaaS does, then
 * the Pareto-optimal greedy.  "In comparison, Flashpoint provides these
 * improvements and enables the use of the remote host memory of other
 * machines" (FP §8.2.2, seed flashpoint.md §1.9a): GPU-enabled FaaS's lazy
 * eviction, its caching of model data from the host to the GPU and its
 * preference for GPUs whose host holds the data.  So the GPUs that still
 * hold the model's weights come first (warm at once), then the hosts
 * holding or downloading it, then one GPU per other host. */
static inline void pl_locality_greedy(pl_acc *a)
{
    pl_fill_cached(a);
    pl_pareto_greedy(a);
}

/* Run `fill` over a fresh accumulator: the place op of a policy that is
 * only an order of filling. */
static inline uint32_t pl_run(const ss_place_ctx *ctx, uint32_t *out, void (*fill)(pl_acc *a))
{
    uint32_t *taken = calloc(ctx->nhosts + 1, sizeof *taken);
    if (!taken) return 0;
    pl_acc a = {ctx, out, 0, taken};
    fill(&a);
    free(taken);
    return a.n;
}

/* The place op of Flashpoint's policies. */
static inline uint32_t pl_place_pareto(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    return pl_run(ctx, out, pl_pareto_greedy);
}

/* The place op of Flashpoint's policies with locality (flashpoint-lc,
 * flashpoint). */
static inline uint32_t pl_place_locality(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    return pl_run(ctx, out, pl_locality_greedy);
}

/* The holder in the receiver's rack with the fewest uploads in flight,
 * else the one with the fewest anywhere; ties go to the lower host index
 * (holders come in host order). */
static inline uint32_t pl_nearest_peer(const ss_source_ctx *ctx)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < ctx->nholders; i++) {
        const ss_place_host_view *h = &ctx->holders[i];
        if (best == UINT32_MAX) {
            best = i;
            continue;
        }
        const ss_place_host_view *b = &ctx->holders[best];
        int near = h->rack == ctx->to->rack, bnear = b->rack == ctx->to->rack;
        if (near > bnear || (near == bnear && h->uploads < b->uploads)) best = i;
    }
    return best;
}

#endif
