/* atoll.c: Atoll's sourcing (seed flashpoint.md §5: "lazy eviction to keep
 * DL model data in the memory of host machines.  It selects machines from
 * the pool of workers with the DL model data first, but does not keep the
 * process running"): hosts keep a model's data after its replicas go (LRU
 * under memory pressure), new replicas fill the hosts holding it first and
 * load it again there; the rest go first fit and download from storage. */
#include "placement_common.h"

static void atoll_fill(pl_acc *a)
{
    pl_fill_holding(a, SS_HOLDS_DATA);
    pl_pack(a);
}

static uint32_t atoll_place(void *state, const ss_place_ctx *ctx, uint32_t *out)
{
    (void)state;
    return pl_run(ctx, out, atoll_fill);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "atoll",
    .summary = "Atoll: lazy eviction of model data, hosts holding it first, the process loaded again",
    .ops.placement = {.flags = SS_PLACE_KEEP_DATA, .place = atoll_place},
};
