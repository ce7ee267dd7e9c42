/* kv-aware.c: the LLM engine whose KV cache is the least full (vLLM's
 * kv_cache_usage_perc, as AIBrix's least-kv-cache router and llm-d's
 * KV-cache utilisation scorer read it), ties to the fewest tokens held,
 * then the lowest index.  An engine's KV use is as of its last request in
 * or out (ss_instance_view.kv_use): the decode steps between fill it
 * without a word, as a scraped metric lags. */
#include "lb_common.h"

static int emptier(const ss_instance_view *a, const ss_instance_view *b)
{
    return a->kv_use < b->kv_use || (a->kv_use == b->kv_use && a->tokens < b->tokens);
}

static uint32_t kv_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    (void)state;
    (void)req;
    return lb_best(ctx, emptier);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "kv-aware",
    .summary = "the LLM engine with the least-full KV cache (then the fewest tokens held)",
    .ops.load_balancer = {.pick = kv_pick},
};
