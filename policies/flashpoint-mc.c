/* flashpoint-mc.c: Flashpoint's network-aware autoscaling alone (MC, seed
 * flashpoint.md §1.8, §2.9): the hosts of one scale-up that need a model
 * get it by TCP chaining - each receiver forwards the stream to the next
 * while it receives, so the source's uplink carries one stream, not one
 * per receiver.  Receivers are split evenly over the hosts whose RAM holds
 * the model (else storage is the one source), in host order; one download
 * per host serves its GPUs.  Nothing is kept after the replicas go (no
 * locality: that is flashpoint-lc, and both together `flashpoint`).
 * Placement is Flashpoint's Pareto-greedy (§2.8), as in flashpoint-lc. */
#include "placement_common.h"

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PLACEMENT,
    .name = "flashpoint-mc",
    .summary = "Flashpoint MC: TCP-chain multicast from holders or storage, shared downloads, nothing kept",
    .ops.placement = {.flags = SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST, .place = pl_place_pareto},
};
