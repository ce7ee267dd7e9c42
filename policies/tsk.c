/* tsk.c: TorchServe on Kubernetes (Flashpoint's TSK, seed flashpoint.md
 * §1.10): the Kubernetes HPA rule on queue latency, target 7 s by default.
 * The queue latency is the mean wait of the requests that started service
 * in the last period, or, when none started, how long the oldest waiting
 * request has waited.  HPA's default tolerance of 10% holds the count. */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct tsk_state {
    double target_s, tolerance;
} tsk_state;

static const char *const tsk_params[] = {"target_s", "tolerance", NULL};

static int tsk_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    tsk_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "target_s", 7.0, 1e-6, 1e6, &s->target_s, err, errlen) < 0 ||
        as_param(args, "tolerance", 0.1, 0, 1, &s->tolerance, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void tsk_fini(void *state) { free(state); }

static uint32_t tsk_desired(void *state, const ss_autoscale_view *v)
{
    const tsk_state *s = state;
    double latency = v->mean_wait_s > 0 ? v->mean_wait_s : v->oldest_wait_s;
    return as_hpa(v->starting + v->up, latency, s->target_s, s->tolerance, v->queued);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "tsk",
    .summary = "TorchServe on Kubernetes: HPA on queue latency (target_s 7, tolerance 0.1)",
    .params = tsk_params,
    .init = tsk_init,
    .fini = tsk_fini,
    .ops.autoscaler = {.desired = tsk_desired},
};
