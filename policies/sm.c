/* sm.c: SageMaker's target tracking on invocations per instance
 * (Flashpoint's SM*, seed flashpoint.md §1.10): replicas = ceil(the
 * invocations per minute over a window / target_per_min).  The thesis does
 * not give the target: the default 60 (one per second per replica) is a
 * placeholder to tune (docs/autoscaling.md, equal-resource tuning).
 *
 * Target tracking acts through two CloudWatch alarms on the metric's
 * one-minute datapoints: a scale-out when `out_datapoints` datapoints in a
 * row are above the target, a scale-in when `in_datapoints` in a row are
 * below `in_ratio` x the target (AWS's target-tracking alarms: 3 of 3
 * minutes above, 15 of 15 below 90%; docs/autoscaling.md cites them).  A
 * datapoint here is one tick: with `period_s: 60` they are the minutes.
 * The defaults (1, 1, 1) act on every tick, as before the alarms. */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct sm_alarm {
    uint32_t above, below; /* datapoints in a row above the target, below in_ratio x it */
} sm_alarm;

typedef struct sm_state {
    double target_per_min, window_s, out_datapoints, in_datapoints, in_ratio;
    sm_alarm *alarm; /* per model */
} sm_state;

static const char *const sm_params[] = {"target_per_min", "window_s", "out_datapoints", "in_datapoints", "in_ratio",
                                        NULL};

static void sm_fini(void *state)
{
    sm_state *s = state;
    free(s->alarm);
    free(s);
}

static int sm_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    sm_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "target_per_min", 60, 1e-6, 1e9, &s->target_per_min, err, errlen) < 0 ||
        as_param(args, "window_s", 60, 0, 1e7, &s->window_s, err, errlen) < 0 ||
        as_param(args, "out_datapoints", 1, 1, 1e6, &s->out_datapoints, err, errlen) < 0 ||
        as_param(args, "in_datapoints", 1, 1, 1e6, &s->in_datapoints, err, errlen) < 0 ||
        as_param(args, "in_ratio", 1, 1e-6, 1, &s->in_ratio, err, errlen) < 0 ||
        !(s->alarm = calloc(args->ngroups + 1, sizeof *s->alarm))) {
        if (!err[0]) snprintf(err, errlen, "out of memory");
        free(s);
        return -1;
    }
    if (s->out_datapoints != floor(s->out_datapoints) || s->in_datapoints != floor(s->in_datapoints)) {
        snprintf(err, errlen, "%s: expected a whole number of datapoints",
                 s->out_datapoints != floor(s->out_datapoints) ? "out_datapoints" : "in_datapoints");
        sm_fini(s);
        return -1;
    }
    *state = s;
    return 0;
}

static uint32_t sm_desired(void *state, const ss_autoscale_view *v)
{
    const sm_state *s = state;
    uint32_t k = as_window(v, s->window_s);
    double per_min = v->rate_rps[k] * 60;
    double want = ceil(per_min / s->target_per_min - 1e-9);
    if (want < 1 && v->queued) want = 1;
    uint32_t w = want > 4e9 ? 4000000000u : (uint32_t)want, cur = v->starting + v->up;
    sm_alarm *a = &s->alarm[v->model];
    /* the metric per replica against the target, as the alarms see it */
    int above = cur ? per_min > s->target_per_min * cur : w > 0;
    int below = cur && per_min < s->in_ratio * s->target_per_min * cur;
    a->above = above ? a->above + 1 : 0;
    a->below = below ? a->below + 1 : 0;
    if (w > cur && a->above < s->out_datapoints) return cur;
    if (w < cur && a->below < s->in_datapoints) return cur;
    return w;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "sm",
    .summary = "SageMaker: invocations per replica per minute over a window, behind its alarms (target_per_min 60)",
    .params = sm_params,
    .init = sm_init,
    .fini = sm_fini,
    .ops.autoscaler = {.desired = sm_desired},
};
