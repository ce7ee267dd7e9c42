/* least-tokens.c: the LLM engine holding the fewest tokens (the prompt and
 * output tokens of the requests it holds: its outstanding work), as the
 * BLIS inference-sim and llm-d route by queued work; ties to the lowest
 * index.  On instances that are not LLM engines (tokens 0) it picks the
 * one with the fewest requests queued + in service. */
#include "lb_common.h"

static int fewer(const ss_instance_view *a, const ss_instance_view *b)
{
    return a->tokens < b->tokens ||
           (a->tokens == b->tokens && (uint64_t)a->queued + a->busy < (uint64_t)b->queued + b->busy);
}

static uint32_t lt_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    (void)state;
    (void)req;
    return lb_best(ctx, fewer);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "least-tokens",
    .summary = "the LLM engine holding the fewest prompt + output tokens (then the fewest requests)",
    .ops.load_balancer = {.pick = lt_pick},
};
