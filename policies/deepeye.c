/* deepeye.c: the DeepEye baseline (Mathur et al., MobiSys 2017) as the MASA
 * authors run it (EdgeCaffe createTasksConvFC + DeepEyeOrchestrator;
 * docs/masa-models.md §4.6, seed §2.3).  Two dedicated FCFS threads, no
 * memory check:
 *  - even workers, the "convolution-execution thread": the conv-part loads of
 *    all of a job's networks, one network after another, then the conv-part
 *    executions network by network (the first waits for the job's last conv
 *    load);
 *  - odd workers, the "data-loading thread": the fc-part loads one network
 *    after another, and each network's fc execution once its fc layers are
 *    loaded and its conv part has run.
 * Loads are chained within each part.  Order within a thread: generation
 * order (the released code's task ids).  Parameter: overhead_s (19.9 ms).
 * Built twice: with -DFRUGAL it is deepeye-frugal, where a network's fc
 * loads also wait until every earlier network has finished its fc part. */
#include <servesim/policy.h>
#include <stdio.h>

#include "layer_overhead.h"

/* The paper's per-DNN overhead for DeepEye, when the scenario gives none. */
static int init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    return lo_init(state, args, 0.0199, err, errlen);
}

/* Conv loads still to do in job `job` (networks are in generation order). */
static uint32_t job_conv_loads_left(const ss_layer_ctx *c, uint64_t job)
{
    uint32_t left = 0;
    for (uint32_t i = 0; i < c->nnets; i++)
        if (c->nets[i].job == job) left += c->nets[i].loads_left[SS_PART_CONV];
    return left;
}

static int eligible(const ss_layer_ctx *c, const ss_layer_task_view *t, int frugal)
{
    const ss_layer_net_view *n = &c->nets[t->net];
    if (t->part == SS_PART_CONV)
        return t->kind == SS_LAYER_LOAD || job_conv_loads_left(c, n->job) == 0;
    if (t->kind == SS_LAYER_EXEC) return n->loads_left[SS_PART_FC] == 0;
    if (frugal)
        for (uint32_t i = 0; i < t->net; i++)
            if (c->nets[i].execs_left[SS_PART_FC] > 0) return 0;
    return 1;
}

/* FCFS by the released code's task ids: job, then (conv thread) loads
 * before executions, then network and layer. */
static int before(const ss_layer_ctx *c, const ss_layer_task_view *a, const ss_layer_task_view *b)
{
    uint64_t ja = c->nets[a->net].job, jb = c->nets[b->net].job;
    if (ja != jb) return ja < jb;
    if (a->part == SS_PART_CONV && a->kind != b->kind) return a->kind == SS_LAYER_LOAD;
    return a->id < b->id;
}

static int32_t pick_part(const ss_layer_ctx *c, int frugal)
{
    uint32_t part = c->worker % 2 == 0 ? SS_PART_CONV : SS_PART_FC;
    int32_t best = -1;
    for (uint32_t i = 0; i < c->nready; i++) {
        const ss_layer_task_view *t = &c->ready[i];
        if (t->part != part || !eligible(c, t, frugal)) continue;
        if (best < 0 || before(c, t, &c->ready[best])) best = (int32_t)i;
    }
    return best;
}

#ifdef FRUGAL
#define NAME "deepeye-frugal"
#define SUMMARY "DeepEye, frugal: as deepeye, and fc loads wait for the previous network's fc part"
#else
#define NAME "deepeye"
#define SUMMARY "DeepEye: a conv thread and an fc-loading thread, interleaved by layer type, no memory check"
#endif

static int32_t pick(void *state, const ss_layer_ctx *c)
{
#ifdef FRUGAL
    return pick_part(c, 1);
#else
    return pick_part(c, 0);
#endif
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LAYER_SCHEDULER,
    .name = NAME,
    .summary = SUMMARY,
    .params = lo_params,
    .init = init,
    .fini = lo_fini,
    .ops.layer_scheduler = {.flags = SS_LAYER_CHAIN_LOADS | SS_LAYER_CHAIN_PART, .pick = pick,
                            .net_overhead_s = lo_overhead},
};
