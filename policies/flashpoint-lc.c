/* flashpoint-lc.c: Flashpoint's locality-aware autoscaling (seed
 * flashpoint.md §1.6, §2.8, §5.2): hosts keep the model loaded in one
 * process (a new GPU there takes the send to GPU only) and its data (LRU
 * under memory pressure, data before processes); one download per host and
 * model serves all its GPUs (the download manager); data comes from the
 * host itself, else a peer host's RAM (in the same rack first, then the one
 * sending the fewest transfers), else storage.  Beside its own
 * techniques it keeps GPU-enabled FaaS's (FP §8.2.2, seed §1.9a: "Flashpoint
 * provides these improvements"): a GPU keeps the weights of its last
 * replica until another model needs it, and those GPUs are taken first.
 *
 * Placement is then the Pareto-optimal greedy of §2.8, as its prose says (the
 * listing is buggy): first every free GPU of the hosts that hold the model
 * (or are downloading it), then one GPU per other host, which primes new
 * hosts for the next burst; beyond that, one more GPU per host, round
 * after round.  Host order breaks ties (the thesis does not say). */
#include "placement_common.h"

static uint32_t lc_source(void *state, const ss_source_ctx *ctx)
{
    (void)state;
    return pl_nearest_peer(ctx);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "flashpoint-lc",
    .summary = "Flashpoint LC: weights kept on GPUs, local RAM, then a peer's, then storage; Pareto-greedy; shared downloads",
    .ops.placement = {.flags = SS_PLACE_KEEP_DATA | SS_PLACE_KEEP_PROCESS | SS_PLACE_KEEP_GPU |
                               SS_PLACE_SHARE_DOWNLOAD,
                      .place = pl_place_locality,
                      .source = lc_source},
};
