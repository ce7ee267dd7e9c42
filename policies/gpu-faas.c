/* gpu-faas.c: GPU-enabled FaaS, the state of the art Flashpoint compares
 * against (seed flashpoint.md §5: "lazy eviction, plus caching the DL model
 * data from the host machine to the GPU as well as prioritizing the
 * selection of GPUs where the DL model data is present in the host
 * machine"): hosts keep model data (LRU), a GPU keeps the weights of its
 * last replica until another model needs it; new replicas take those GPUs
 * first (warm at once), then the hosts holding the data, then first fit
 * from storage.  [ASSUMPTION] as in Atoll, a host keeps data, not a loaded
 * process: a replica there loads it again. */
#include "placement_common.h"

static void gpufaas_fill(pl_acc *a)
{
    pl_fill_cached(a);
    pl_fill_holding(a, SS_HOLDS_DATA);
    pl_pack(a);
}

static uint32_t gpufaas_place(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    return pl_run(ctx, out, gpufaas_fill);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "gpu-faas",
    .summary = "GPU-enabled FaaS: lazy eviction, weights kept on GPUs, GPUs and hosts holding the model first",
    .ops.placement = {.flags = SS_PLACE_KEEP_DATA | SS_PLACE_KEEP_GPU, .place = gpufaas_place},
};
