/* flashpoint.c: Flashpoint's locality-aware and network-aware autoscaling
 * together (LC + MC, seed flashpoint.md §1.6-1.8, §2.8-2.9; model
 * partitioning, MP, is a scenario's `partitioning:`, docs/partitioning.md): hosts keep the loaded model and its data
 * (LRU under pressure), GPUs keep the weights of their last replica and
 * are taken first (GPU-enabled FaaS's, FP §8.2.2), a new GPU on a host
 * holding it takes the send only,
 * and the hosts of one scale-up that need it get it by TCP chains from the
 * hosts holding it (split evenly), else from storage.  Pareto-greedy
 * placement (§2.8). */
#include "placement_common.h"

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "flashpoint",
    .summary = "Flashpoint LC+MC: kept processes and data, TCP-chain multicast from holders, Pareto-greedy",
    .ops.placement = {.flags = SS_PLACE_KEEP_DATA | SS_PLACE_KEEP_PROCESS | SS_PLACE_KEEP_GPU |
                               SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST,
                      .place = pl_place_locality},
};
