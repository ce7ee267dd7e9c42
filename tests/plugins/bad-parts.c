/* bad-parts.c: test plugin - a partitioner that answers a plan it may not
 * make (more parts than the GPUs it was given), so that a run reports it
 * and fails instead of silently starting whole replicas. */
#include <servesim/policy.h>

static uint32_t bad_plan(void *state, const ss_part_model *m, double x, uint32_t gpus, uint32_t *cuts)
{
    (void)state;
    (void)m;
    (void)x;
    cuts[0] = 0;
    return gpus + 1;
}

static const char *const bad_params[] = {"max_parts", NULL}; /* taken, as flashpoint-mp's, and ignored */

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PARTITIONER,
    .name = "bad-parts",
    .summary = "test: answers more parts than GPUs",
    .params = bad_params,
    .ops.partitioner = {.plan = bad_plan},
};
