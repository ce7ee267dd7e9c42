/* owk.c: OpenWhisk on Kubernetes (Flashpoint's OWK, seed flashpoint.md
 * §1.10): the Kubernetes HPA rule on GPU utilisation, target 60%, scaling up
 * at most `max_ratio` (2) times the current count in one step; HPA's
 * tolerance of 10% holds the count. */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct owk_state {
    double target, tolerance, max_ratio;
} owk_state;

static const char *const owk_params[] = {"target", "tolerance", "max_ratio", NULL};

static int owk_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    owk_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "target", 0.6, 1e-3, 1, &s->target, err, errlen) < 0 ||
        as_param(args, "tolerance", 0.1, 0, 1, &s->tolerance, err, errlen) < 0 ||
        as_param(args, "max_ratio", 2.0, 1, 1e3, &s->max_ratio, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void owk_fini(void *state) { free(state); }

static uint32_t owk_desired(void *state, const ss_autoscale_view *v)
{
    const owk_state *s = state;
    uint32_t cur = v->starting + v->up;
    /* Replicas still starting count as fully busy: they will be. */
    double util = cur ? (v->util * v->up + v->starting) / cur : 0;
    uint32_t want = as_hpa(cur, util, s->target, s->tolerance, v->queued);
    double cap = ceil(s->max_ratio * cur);
    if (cur && want > cap) want = (uint32_t)cap;
    return want;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "owk",
    .summary = "OpenWhisk on Kubernetes: HPA on GPU utilisation (target 0.6, tolerance 0.1, max_ratio 2)",
    .params = owk_params,
    .init = owk_init,
    .fini = owk_fini,
    .ops.autoscaler = {.desired = owk_desired},
};
