/* lb_common.h: what the shipped load balancers over LLM engines share -
 * the up instance a comparison ranks first (ties to the lowest index).
 * Header-only (a plugin links nothing of ours). */
#ifndef SS_LB_COMMON_H
#define SS_LB_COMMON_H

#include <servesim/policy.h>

/* The index of the up instance that no other up one is `better` than. */
static inline uint32_t lb_best(const ss_lb_ctx *ctx, int (*better)(const ss_instance_view *a,
                                                                   const ss_instance_view *b))
{
    const ss_instance_view *inst = ctx->inst;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < ctx->n; i++)
        if (inst[i].up && (best == UINT32_MAX || better(&inst[i], &inst[best]))) best = i;
    return best == UINT32_MAX ? 0 : best;
}

#endif
