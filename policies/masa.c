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

#include "layer_overhead.h"

/* The paper's per-DNN overhead for MASA, when the scenario gives none. */
static int init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    return lo_init(state, args, 0.0220, err, errlen);
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
    .params = lo_params,
    .init = init,
    .fini = lo_fini,
    .ops.layer_scheduler = {.flags = SS_LAYER_CHAIN_LOADS, .pick = pick, .net_overhead_s = lo_overhead},
};
