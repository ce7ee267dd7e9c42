/* sm.c: SageMaker's target tracking on invocations per instance
 * (Flashpoint's SM*, seed flashpoint.md §1.10): replicas = ceil(the
 * invocations per minute over a window / target_per_min).  The thesis does
 * not give the target: the default 60 (one per second per replica) is a
 * placeholder to tune (docs/autoscaling.md, equal-resource tuning). */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct sm_state {
    double target_per_min, window_s;
} sm_state;

static const char *const sm_params[] = {"target_per_min", "window_s", NULL};

static int sm_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    sm_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "target_per_min", 60, 1e-6, 1e9, &s->target_per_min, err, errlen) < 0 ||
        as_param(args, "window_s", 60, 0, 1e7, &s->window_s, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void sm_fini(void *state) { free(state); }

static uint32_t sm_desired(void *state, const ss_autoscale_view *v)
{
    const sm_state *s = state;
    uint32_t k = as_window(v, s->window_s);
    double want = ceil(v->rate_rps[k] * 60 / s->target_per_min - 1e-9);
    if (want < 1 && v->queued) want = 1;
    return want > 4e9 ? 4000000000u : (uint32_t)want;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "sm",
    .summary = "SageMaker: invocations per replica per minute over a window (target_per_min 60, window_s 60)",
    .params = sm_params,
    .init = sm_init,
    .fini = sm_fini,
    .ops.autoscaler = {.desired = sm_desired},
};
