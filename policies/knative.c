/* knative.c: the Knative Pod Autoscaler (KPA), after Knative Serving's
 * documented defaults (config-autoscaler): a replica serves one request at
 * a time (containerConcurrency 1) at a target utilisation of 70%, so the
 * target concurrency per replica is 0.7; the desired count is the mean
 * concurrency over the stable window (60 s) over the target; a burst seen
 * over the panic window (10% of it: 6 s) asking for at least twice the
 * ready replicas (panic threshold 200%) enters panic mode, where the count
 * follows the panic window and never goes down, until a stable window has
 * passed without another burst; one step scales up at most 1000x and down
 * at most 2x; the last replica goes only after 30 s (the scale-to-zero
 * grace period) with nothing in flight.  The windows are the scenario's
 * closest to stable_window_s and panic_window_s (autoscaling.windows_s,
 * by default exactly [6, 60]). */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct kpa_model {
    double panic_since_s; /* < 0: not in panic */
    double active_s;      /* the last tick with anything in flight */
    uint32_t last;        /* the last count it asked for */
} kpa_model;

typedef struct kpa_state {
    double target, stable_s, panic_s, threshold, up_rate, down_rate, grace_s;
    uint32_t ngroups;
    kpa_model m[];
} kpa_state;

static const char *const kpa_params[] = {"target", "stable_window_s", "panic_window_s", "panic_threshold",
                                         "max_scale_up_rate", "max_scale_down_rate", "scale_to_zero_grace_s", NULL};

static int kpa_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    uint32_t n = args && args->ngroups ? args->ngroups : 1;
    kpa_state *s = calloc(1, sizeof *s + n * sizeof s->m[0]);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    s->ngroups = n;
    if (as_param(args, "target", 0.7, 1e-6, 1e6, &s->target, err, errlen) < 0 ||
        as_param(args, "stable_window_s", 60, 1e-3, 3600, &s->stable_s, err, errlen) < 0 ||
        as_param(args, "panic_window_s", 6, 1e-3, 3600, &s->panic_s, err, errlen) < 0 ||
        as_param(args, "panic_threshold", 2.0, 1, 1e3, &s->threshold, err, errlen) < 0 ||
        as_param(args, "max_scale_up_rate", 1000, 1, 1e9, &s->up_rate, err, errlen) < 0 ||
        as_param(args, "max_scale_down_rate", 2, 1, 1e9, &s->down_rate, err, errlen) < 0 ||
        as_param(args, "scale_to_zero_grace_s", 30, 0, 1e9, &s->grace_s, err, errlen) < 0) {
        free(s);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) s->m[i].panic_since_s = -1;
    *state = s;
    return 0;
}

static void kpa_fini(void *state) { free(state); }

static uint32_t kpa_desired(void *state, const ss_autoscale_view *v)
{
    kpa_state *s = state;
    kpa_model *m = &s->m[v->model < s->ngroups ? v->model : v->model % s->ngroups];
    double stable = v->concurrency[as_window(v, s->stable_s)], panic = v->concurrency[as_window(v, s->panic_s)];
    double ready = v->up;
    double want_stable = ceil(stable / s->target - 1e-9), want_panic = ceil(panic / s->target - 1e-9);
    /* one step's bounds */
    double hi = ready > 0 ? ceil(s->up_rate * ready) : INFINITY, lo = floor(ready / s->down_rate);
    if (want_stable > hi) want_stable = hi;
    if (want_panic > hi) want_panic = hi;
    if (want_stable < lo) want_stable = lo;
    if (want_panic < lo) want_panic = lo;
    /* panic mode */
    int burst = ready > 0 ? want_panic / ready >= s->threshold : want_panic > 0;
    if (burst) m->panic_since_s = v->now_s;
    else if (m->panic_since_s >= 0 && v->now_s - m->panic_since_s >= s->stable_s) m->panic_since_s = -1;
    double want = want_stable;
    if (m->panic_since_s >= 0) {
        want = want_panic > m->last ? want_panic : m->last; /* never down in panic */
    }
    /* scale to zero only after the grace period with nothing in flight */
    if (v->in_flight > 0 || v->queued > 0) m->active_s = v->now_s;
    if (want < 1 && (v->queued > 0 || v->now_s - m->active_s < s->grace_s) && (v->up + v->starting > 0 || v->queued))
        want = 1;
    m->last = want > 4e9 ? 4000000000u : (uint32_t)want;
    return m->last;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "knative",
    .summary = "Knative KPA: concurrency target 0.7, stable 60 s / panic 6 s windows, panic at 200%, to zero after 30 s",
    .params = kpa_params,
    .init = kpa_init,
    .fini = kpa_fini,
    .ops.autoscaler = {.desired = kpa_desired},
};
