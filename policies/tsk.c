/* tsk.c: TorchServe on Kubernetes (Flashpoint's TSK, seed flashpoint.md
 * §1.10): the Kubernetes HPA rule on queue latency, target 7 s by default.
 * The queue latency is the mean wait of the requests that started service
 * in the last period, or, when none started, how long the oldest waiting
 * request has waited.  HPA's default tolerance of 10% holds the count, and
 * its default scale-up policy bounds growth: at most doubling, or 4 more
 * replicas, whichever is more, per 15 s (`up_period_s`, `up_percent`,
 * `up_pods`; without it, a queue latency far above the target during
 * minute-long cold starts asks for every GPU there is).  The HPA's own
 * maxReplicas, one per Deployment, is the autoscaler's per-model cap
 * (autoscaling.per_model.MODEL.max_replicas), for any policy. */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct tsk_state {
    double target_s, tolerance, up_period_s, up_percent, up_pods;
    as_uplimit *up; /* per model */
} tsk_state;

static const char *const tsk_params[] = {"target_s", "tolerance", "up_period_s", "up_percent", "up_pods", NULL};

static int tsk_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    tsk_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "target_s", 7.0, 1e-6, 1e6, &s->target_s, err, errlen) < 0 ||
        as_param(args, "tolerance", 0.1, 0, 1, &s->tolerance, err, errlen) < 0 ||
        as_param(args, "up_period_s", 15, 0, 1e6, &s->up_period_s, err, errlen) < 0 ||
        as_param(args, "up_percent", 100, 0, 1e9, &s->up_percent, err, errlen) < 0 ||
        as_param(args, "up_pods", 4, 0, 1e9, &s->up_pods, err, errlen) < 0 ||
        !(s->up = calloc(args->ngroups + 1, sizeof *s->up))) {
        if (s->up == NULL && !err[0]) snprintf(err, errlen, "out of memory");
        free(s);
        return -1;
    }
    for (uint32_t m = 0; m <= args->ngroups; m++) s->up[m].since_s = -1;
    *state = s;
    return 0;
}

static void tsk_fini(void *state)
{
    tsk_state *s = state;
    free(s->up);
    free(s);
}

static uint32_t tsk_desired(void *state, const ss_autoscale_view *v)
{
    const tsk_state *s = state;
    double latency = v->mean_wait_s > 0 ? v->mean_wait_s : v->oldest_wait_s;
    uint32_t cur = v->starting + v->up, want = as_hpa(cur, latency, s->target_s, s->tolerance, v->queued);
    return as_limit_up(&s->up[v->model], v->now_s, cur, want, s->up_period_s, s->up_percent, s->up_pods);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "tsk",
    .summary = "TorchServe on Kubernetes: HPA on queue latency (target_s 7, tolerance 0.1; up 100% or 4 per 15 s)",
    .params = tsk_params,
    .init = tsk_init,
    .fini = tsk_fini,
    .ops.autoscaler = {.desired = tsk_desired},
};
