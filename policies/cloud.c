/* cloud.c: the baseline of Flashpoint's evaluation (seed flashpoint.md §5,
 * "Baseline: no optimisations; download from S3"): every replica
 * downloads the model from storage, loads it and sends it to its GPU, and
 * nothing is kept after it goes.  GPUs are taken first fit, host by host. */
#include "placement_common.h"

static uint32_t cloud_place(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    return pl_run(ctx, out, pl_pack);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "cloud",
    .summary = "baseline: every replica from storage, nothing kept, GPUs first fit",
    .ops.placement = {.flags = 0, .place = cloud_place},
};
