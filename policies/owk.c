/* owk.c: OpenWhisk on Kubernetes (Flashpoint's OWK, seed flashpoint.md
 * §1.10): the Kubernetes HPA rule on GPU utilisation, target 60%, scaling up
 * at most `max_ratio` (2) times the current count in one step; HPA's
 * tolerance of 10% holds the count.
 *
 * Replicas still starting are HPA's not-yet-ready pods (Kubernetes, "Horizontal
 * Pod Autoscaling", algorithm details; replica_calculator.go): the ratio is
 * taken over the ready (up) replicas; a scale-up then recounts the starting
 * ones as using 0% of the target, and holds the count if that recount is
 * within the tolerance or points down; a scale-down sets them aside, sizing
 * from the ready replicas alone.  With no ready replica there is no metric
 * and the count holds. */
#include <math.h>
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
    if (cur == 0) return v->queued ? 1 : 0;
    if (v->up == 0) return cur; /* every replica still starting: no metric yet */
    double ratio = v->util / s->target;
    if (fabs(ratio - 1) <= s->tolerance) return cur;
    double want;
    if (ratio > 1 && v->starting) { /* the starting replicas at 0%, over all of them */
        double damped = v->util * v->up / (s->target * cur);
        if (damped <= 1 || fabs(damped - 1) <= s->tolerance) return cur;
        want = ceil(damped * cur - 1e-9);
    } else
        want = ceil(ratio * v->up - 1e-9); /* a scale-down sizes from the ready replicas */
    double cap = ceil(s->max_ratio * cur);
    if (want > cap) want = cap;
    return want > 4e9 ? 4000000000u : (uint32_t)want;
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
