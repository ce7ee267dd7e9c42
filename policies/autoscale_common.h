/* autoscale_common.h: what the shipped autoscaler plugins share - reading
 * a numeric parameter with its bounds, picking a measurement window, the
 * Kubernetes HPA rule.  Header-only (a plugin links nothing of ours). */
#ifndef SS_AUTOSCALE_COMMON_H
#define SS_AUTOSCALE_COMMON_H

#include <math.h>
#include <servesim/policy.h>
#include <stdio.h>

/* Parameter `key` in [lo, hi] (def if absent) into *out; -1 with a message. */
static inline int as_param(const ss_policy_init *args, const char *key, double def, double lo, double hi, double *out,
                           char *err, size_t errlen)
{
    int bad = 0;
    double v = ss_param_double(args ? args->params : NULL, key, def, &bad);
    if (bad || !(v >= lo && v <= hi)) {
        snprintf(err, errlen, "%s: expected a number from %g to %g", key, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* The index of the view's window closest to want_s (0 = the longest). */
static inline uint32_t as_window(const ss_autoscale_view *v, double want_s)
{
    uint32_t best = v->nwindows ? v->nwindows - 1 : 0;
    if (want_s <= 0) return best;
    for (uint32_t k = 0; k < v->nwindows; k++)
        if (fabs(v->window_s[k] - want_s) < fabs(v->window_s[best] - want_s)) best = k;
    return best;
}

/* The HPA rule: ceil(current x metric / target), unchanged within the
 * tolerance; from zero replicas, one if anything waits. */
static inline uint32_t as_hpa(uint32_t current, double metric, double target, double tolerance, uint32_t queued)
{
    if (current == 0) return queued ? 1 : 0;
    double ratio = metric / target;
    if (fabs(ratio - 1) <= tolerance) return current;
    double want = ceil((double)current * ratio - 1e-9);
    return want < 0 ? 0 : want > 4e9 ? 4000000000u : (uint32_t)want;
}

/* The Kubernetes HPA's default scale-up policy (autoscaling/v2 behavior:
 * "Percent 100 or Pods 4 per 15 s, whichever allows more"): over a
 * period, at most max(base x (1 + percent/100), base + pods) replicas,
 * base being the count when the period began.  One per model. */
typedef struct as_uplimit {
    double since_s;  /* the period began; < 0: not yet */
    uint32_t base;
} as_uplimit;

static inline uint32_t as_limit_up(as_uplimit *u, double now_s, uint32_t current, uint32_t want, double period_s,
                                   double percent, double pods)
{
    if (u->since_s < 0 || now_s - u->since_s >= period_s - 1e-9) {
        u->since_s = now_s;
        u->base = current;
    }
    double cap = fmax(floor(u->base * (1 + percent / 100) + 1e-9), u->base + pods);
    return want > cap ? (uint32_t)cap : want;
}

#endif
