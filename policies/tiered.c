/* tiered.c: storage-aware placement with checkpoint tiers and sleeping
 * replicas, as today's LLM serving systems do beyond Flashpoint:
 *  - tiers (ServerlessLLM, OSDI'24): a host keeps a model's data in RAM
 *    (LRU) and on its local disk (the host type's `disk:`, written once
 *    the data arrives over the network), and a cold start reads from the
 *    fastest tier it has: the loaded process, RAM, disk, a peer's RAM,
 *    storage; one download per host serves its GPUs;
 *  - sleep (vLLM's sleep mode, level 1): a replica scaled down keeps its
 *    process and parks its weights in host RAM, so waking it is the copy
 *    to the GPU alone;
 *  - placement (ServerlessLLM's storage-aware scheduling): each candidate
 *    host's start-up time is estimated from the fastest tier holding the
 *    model and the load on the links it would use (the simulator's
 *    est_start_s); hosts are filled fastest first (host order breaks
 *    ties); a host downloads from the peer with the fastest estimated
 *    transfer. */
#include <stdlib.h>

#include "placement_common.h"

static const ss_place_ctx *sort_ctx; /* qsort has no context argument; placement is single-threaded */

static int by_estimate(const void *x, const void *y)
{
    const ss_place_host_view *a = &sort_ctx->hosts[*(const uint32_t *)x], *b = &sort_ctx->hosts[*(const uint32_t *)y];
    if (a->est_start_s != b->est_start_s) return a->est_start_s < b->est_start_s ? -1 : 1;
    return a->host < b->host ? -1 : a->host > b->host;
}

static uint32_t tiered_place(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    uint32_t *order = calloc(ctx->nhosts + 1, sizeof *order), n = 0;
    if (!order) return 0;
    for (uint32_t i = 0; i < ctx->nhosts; i++) order[i] = i;
    sort_ctx = ctx;
    qsort(order, ctx->nhosts, sizeof *order, by_estimate);
    for (uint32_t k = 0; k < ctx->nhosts && n < ctx->want; k++)
        for (uint32_t g = 0; g < ctx->hosts[order[k]].free_gpus && n < ctx->want; g++) out[n++] = order[k];
    free(order);
    return n;
}

static uint32_t tiered_source(void *state, const ss_source_ctx *ctx)
{
    (void)state;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < ctx->nholders; i++)
        if (best == UINT32_MAX || ctx->transfer_s[i] < ctx->transfer_s[best]) best = i;
    return best;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "tiered",
    .summary = "tiers (process, RAM, disk, peer, storage) and sleeping replicas; fastest estimated start first",
    .ops.placement = {.flags = SS_PLACE_KEEP_DATA | SS_PLACE_KEEP_PROCESS | SS_PLACE_SHARE_DOWNLOAD |
                               SS_PLACE_KEEP_DISK | SS_PLACE_SLEEP | SS_PLACE_ESTIMATE,
                      .place = tiered_place,
                      .source = tiered_source},
};
