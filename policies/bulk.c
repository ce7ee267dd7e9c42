/* bulk.c: the Bulk baseline of the MASA paper (seed §2.3, docs/masa-models.md
 * §4.6): one network at a time in generation order, all of its loads (in
 * layer order), then all of its executions; no memory check.  The network
 * holds its whole peak memory (Table I) from its first task to its end, as a
 * Caffe net loaded in bulk does.  Parameters: overhead_s (paper: 19.0 ms);
 * parallel, the number of networks run at once, each still one task at a
 * time (1 = Bulk; 2 = the "no coordination" runs of Fig. 2(c)). */
#include <servesim/policy.h>
#include <stdio.h>

typedef struct bulk {
    double overhead_s;
    uint32_t parallel;
} bulk;

static const char *const params[] = {"overhead_s", "parallel", NULL};

static int init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    int bad = 0;
    double o = ss_param_double(args->params, "overhead_s", 0.0190, &bad);
    double p = ss_param_double(args->params, "parallel", 1, &bad);
    if (bad || o < 0 || p < 1 || p != (double)(uint32_t)p) {
        if (errlen) snprintf(err, errlen, "expected overhead_s >= 0 and an integer parallel >= 1");
        return -1;
    }
    bulk *b = malloc(sizeof *b);
    if (!b) return -1;
    b->overhead_s = o;
    b->parallel = (uint32_t)p;
    *state = b;
    return 0;
}

static void fini(void *state)
{
    free(state);
}

static double overhead(void *state)
{
    return ((const bulk *)state)->overhead_s;
}

static int32_t pick(void *state, const ss_layer_ctx *c)
{
    const bulk *b = state;
    int32_t best = -1;
    for (uint32_t i = 0; i < c->nready; i++) {
        const ss_layer_task_view *t = &c->ready[i];
        const ss_layer_net_view *n = &c->nets[t->net];
        if (t->net >= b->parallel || n->running) continue; /* the oldest networks, one task each */
        if (t->kind == SS_LAYER_EXEC && n->loads_left[0] + n->loads_left[1] > 0) continue;
        if (best < 0 || t->id < c->ready[best].id) best = (int32_t)i;
    }
    return best;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LAYER_SCHEDULER,
    .name = "bulk",
    .summary = "Bulk: one network at a time, all loads then all executions, no memory check",
    .params = params,
    .init = init,
    .fini = fini,
    .ops.layer_scheduler = {.flags = SS_LAYER_CHAIN_LOADS | SS_LAYER_NET_FOOTPRINT, .pick = pick,
                            .net_overhead_s = overhead},
};
