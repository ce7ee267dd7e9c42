/* masa-repo.c: MASA as the authors' released code runs it (EdgeCaffe
 * MasaScheduler; docs/masa-models.md §4.5, seed §2.4), not as Algorithm 1:
 * memory is admitted per network, at its profiled peak (max-memory-valgrind,
 * times the estimate factor), when the network's first task starts, and held
 * until it ends; loads and executions then need none.  Any ready execution
 * runs first; a load of a network not yet admitted runs if its admission
 * memory fits, or if no network is active (the override keyed on networks,
 * not workers).  Order: shortest network first (mean-execution-time), then
 * execution before load, then generation order.  Loads are not chained.
 * Parameters: overhead_s (22.0 ms); reserve_mib, EdgeCaffe's own lock (4.87). */
#include <servesim/policy.h>
#include <stdio.h>

typedef struct repo {
    double overhead_s, reserve_bytes;
} repo;

static const char *const params[] = {"overhead_s", "reserve_mib", NULL};

static int init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    int bad = 0;
    double o = ss_param_double(args->params, "overhead_s", 0.0220, &bad);
    double r = ss_param_double(args->params, "reserve_mib", 4.87, &bad);
    if (bad || o < 0 || r < 0) {
        if (errlen) snprintf(err, errlen, "expected overhead_s >= 0 and reserve_mib >= 0");
        return -1;
    }
    repo *p = malloc(sizeof *p);
    if (!p) return -1;
    p->overhead_s = o;
    p->reserve_bytes = r * 1048576.0;
    *state = p;
    return 0;
}

static void fini(void *state)
{
    free(state);
}

static double overhead(void *state)
{
    return ((const repo *)state)->overhead_s;
}

/* (mean_exec_s, kind: exec before load, id) */
static int before(const ss_layer_ctx *c, const ss_layer_task_view *a, const ss_layer_task_view *b)
{
    double ka = c->nets[a->net].mean_exec_s, kb = c->nets[b->net].mean_exec_s;
    if (ka != kb) return ka < kb;
    if (a->kind != b->kind) return a->kind == SS_LAYER_EXEC;
    return a->id < b->id;
}

static int32_t pick(void *state, const ss_layer_ctx *c)
{
    const repo *p = state;
    double admitted = 0;
    uint32_t active = 0;
    for (uint32_t i = 0; i < c->nnets; i++)
        if (c->nets[i].started) {
            admitted += c->nets[i].admit_bytes;
            active++;
        }
    double free_bytes = c->capacity_bytes - p->reserve_bytes - admitted;
    int32_t best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++) { /* executions, then loads */
        for (uint32_t i = 0; i < c->nready; i++) {
            const ss_layer_task_view *t = &c->ready[i];
            const ss_layer_net_view *n = &c->nets[t->net];
            if (pass == 0 && t->kind != SS_LAYER_EXEC) continue;
            if (pass == 1 && (t->kind != SS_LAYER_LOAD || !(n->started || active == 0 || n->admit_bytes <= free_bytes)))
                continue;
            if (best < 0 || before(c, t, &c->ready[best])) best = (int32_t)i;
        }
    }
    return best;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LAYER_SCHEDULER,
    .name = "masa-repo",
    .summary = "MASA as released: per-network admission at peak memory, shortest network first",
    .params = params,
    .init = init,
    .fini = fini,
    .ops.layer_scheduler = {.flags = 0, .pick = pick, .net_overhead_s = overhead},
};
