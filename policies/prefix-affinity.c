/* prefix-affinity.c: cache-aware routing of LLM requests, after the
 * cache_aware policy of the SGLang and vLLM routers (their defaults:
 * --balance-abs-threshold 64, --balance-rel-threshold 1.5): while the
 * engines' loads are balanced, a request goes to the engine whose cache
 * holds its prefix (ss_lb_ctx.affinity: the engine that served its
 * conversation's last turn), and without one to the engine holding the
 * fewest tokens; once the busiest engine holds more than balance_abs
 * requests over the idlest and more than balance_rel times as many, to the
 * least loaded (fewest requests queued + in service) instead.  [ASSUMPTION:
 * the routers match prefixes in a radix tree of every request they sent;
 * here the only prefix known is a conversation's, so their cache_threshold
 * (0.3 of the prompt matched) is taken as met by a conversation's next
 * turn.] */
#include <stdio.h>
#include <stdlib.h>

#include "autoscale_common.h"
#include "lb_common.h"

typedef struct pa_state {
    double balance_abs, balance_rel;
} pa_state;

static const char *const pa_params[] = {"balance_abs", "balance_rel", NULL};

static int pa_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    pa_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "balance_abs", 64, 0, 1e9, &s->balance_abs, err, errlen) < 0 ||
        as_param(args, "balance_rel", 1.5, 1, 1e9, &s->balance_rel, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void pa_fini(void *state) { free(state); }

static uint64_t load(const ss_instance_view *v) { return (uint64_t)v->queued + v->busy; }

static int lighter(const ss_instance_view *a, const ss_instance_view *b) { return load(a) < load(b); }

static int fewer_tokens(const ss_instance_view *a, const ss_instance_view *b)
{
    return a->tokens < b->tokens || (a->tokens == b->tokens && load(a) < load(b));
}

static uint32_t pa_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    (void)req;
    const pa_state *s = state;
    uint32_t lo = lb_best(ctx, lighter);
    uint64_t most = 0;
    for (uint32_t i = 0; i < ctx->n; i++)
        if (ctx->inst[i].up && load(&ctx->inst[i]) > most) most = load(&ctx->inst[i]);
    double least = (double)load(&ctx->inst[lo]);
    if ((double)most - least > s->balance_abs && (double)most > s->balance_rel * least) return lo;
    if (ctx->affinity < ctx->n && ctx->inst[ctx->affinity].up) return ctx->affinity;
    return lb_best(ctx, fewer_tokens);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "prefix-affinity",
    .summary = "cache-aware: the engine holding the request's prefix while loads are balanced (SGLang's defaults)",
    .params = pa_params,
    .init = pa_init,
    .fini = pa_fini,
    .ops.load_balancer = {.pick = pa_pick},
};
