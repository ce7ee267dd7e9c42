/* zero-as.c: test plugin - an autoscaler that always asks for zero
 * replicas, so that a run whose requests can never be served must end
 * (failed, with a message) instead of ticking forever. */
#include <servesim/policy.h>

static uint32_t zero_desired(void *state, const ss_autoscale_view *v)
{
    (void)state;
    (void)v;
    return 0;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "zero-as",
    .summary = "test: always zero replicas",
    .ops.autoscaler = {.desired = zero_desired},
};
