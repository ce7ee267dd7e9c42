/* atl.c: Atoll's proactive rule (Flashpoint's ATL, seed flashpoint.md
 * §1.10): replicas = ceil(the 99th percentile arrival rate x the mean
 * execution time), the quantile taken over the per-period arrival rates of
 * a window (`window_s`: the scenario window closest to it, default the
 * longest; the quantile is autoscaling.rate_quantile), times `headroom`. */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct atl_state {
    double window_s, headroom;
} atl_state;

static const char *const atl_params[] = {"window_s", "headroom", NULL};

static int atl_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    atl_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "window_s", 0, 0, 1e7, &s->window_s, err, errlen) < 0 ||
        as_param(args, "headroom", 1.0, 1e-3, 1e3, &s->headroom, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void atl_fini(void *state) { free(state); }

static uint32_t atl_desired(void *state, const ss_autoscale_view *v)
{
    const atl_state *s = state;
    uint32_t k = as_window(v, s->window_s);
    double want = ceil(v->rate_q_rps[k] * v->mean_exec_s * s->headroom - 1e-9);
    if (want < 1 && v->queued) want = 1;
    return want > 4e9 ? 4000000000u : (uint32_t)want;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "atl",
    .summary = "Atoll: ceil(quantile arrival rate x mean execution time x headroom) (window_s, headroom 1)",
    .params = atl_params,
    .init = atl_init,
    .fini = atl_fini,
    .ops.autoscaler = {.desired = atl_desired},
};
