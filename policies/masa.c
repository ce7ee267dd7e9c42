/* masa.c: the MASA paper's Algorithm 1 (Cox et al., PerCom 2021; seed §2.1,
 * docs/masa-models.md §4.4) as a layer scheduler.  For the idle worker:
 * execute tasks before load tasks (they free memory when they finish); within
 * a type, smallest estimated memory first, then generation order; a task is
 * valid if it fits the free memory or no worker is busy (the progress
 * override, line 4, read with the busy count at call time).  Loads are
 * chained per network (the Fig. 4 graph; edge.load_chain overrides).
 * Parameter: overhead_s, the per-DNN framework overhead (paper: 22.0 ms). */
#include <servesim/policy.h>
#include <stdio.h>

typedef struct masa {
    double overhead_s;
} masa;

static const char *const params[] = {"overhead_s", NULL};

static int init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    int bad = 0;
    double o = ss_param_double(args->params, "overhead_s", 0.0220, &bad);
    if (bad || o < 0) {
        if (errlen) snprintf(err, errlen, "overhead_s: expected a number >= 0");
        return -1;
    }
    masa *m = malloc(sizeof *m);
    if (!m) return -1;
    m->overhead_s = o;
    *state = m;
    return 0;
}

static void fini(void *state)
{
    free(state);
}

static double overhead(void *state)
{
    return ((const masa *)state)->overhead_s;
}

/* The first valid task of `kind` in (req_mem_bytes, id) order, or -1. */
static int32_t first_valid(const ss_layer_ctx *c, uint32_t kind)
{
    int32_t best = -1;
    for (uint32_t i = 0; i < c->nready; i++) {
        const ss_layer_task_view *t = &c->ready[i];
        if (t->kind != kind || !(c->busy == 0 || t->req_mem_bytes <= c->free_bytes)) continue;
        if (best < 0) {
            best = (int32_t)i;
            continue;
        }
        const ss_layer_task_view *b = &c->ready[best];
        if (t->req_mem_bytes < b->req_mem_bytes || (t->req_mem_bytes == b->req_mem_bytes && t->id < b->id))
            best = (int32_t)i;
    }
    return best;
}

static int32_t pick(void *state, const ss_layer_ctx *c)
{
    int32_t i = first_valid(c, SS_LAYER_EXEC);
    return i >= 0 ? i : first_valid(c, SS_LAYER_LOAD);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LAYER_SCHEDULER,
    .name = "masa",
    .summary = "MASA (paper, Algorithm 1): execute before load, smallest memory first, progress override",
    .params = params,
    .init = init,
    .fini = fini,
    .ops.layer_scheduler = {.flags = SS_LAYER_CHAIN_LOADS, .pick = pick, .net_overhead_s = overhead},
};
