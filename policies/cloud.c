/* cloud.c: the baseline of Flashpoint's evaluation (seed flashpoint.md §5,
 * "Baseline: no optimisations; download from S3"): every replica
 * downloads the model from storage, loads it and sends it to its GPU, and
 * nothing is kept after it goes.  GPUs are taken first fit, host by host. */
#include <stdlib.h>

#include "placement_common.h"

static uint32_t cloud_place(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    uint32_t *taken = calloc(ctx->nhosts + 1, sizeof *taken);
    if (!taken) return 0;
    pl_acc a = {ctx, out, 0, taken};
    pl_pack(&a);
    free(taken);
    return a.n;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "cloud",
    .summary = "baseline: every replica from storage, nothing kept, GPUs first fit",
    .ops.placement = {.flags = 0, .place = cloud_place},
};
