/* roma-pi.c: ROMA's CT Controller (seed roma.md §2.5), a controller: the
 * PI G_c(z) = K (z - a) / (z - 1) of eq. 11 as a difference equation on the
 * container's cores,
 *     e(k) = rt_mean_s(k) - alpha x sla_s       (measured minus set point)
 *     u(k) = u'(k-1) + K x (e(k) - a x e(k-1))
 * where u'(k-1) is the value actuated last period - what the supervisor
 * granted (granted()), so a demand the supervisor or the simulator's clamp
 * cut does not wind the integrator up.  The error's sign (measured minus
 * set point) makes K > 0 add cores when responses are too slow: the
 * plant's physical gain is negative (more cores, lower response time), and
 * the paper's eq. 12 K is for its unsigned plant, so K > 0 here is the
 * paper's K.  Parameters: K (0.15) > 0, a (0.11) any finite number (eq. 12
 * can put the zero anywhere), alpha (0.8) in [0, 1].
 *
 * Decisions where the seed is silent:
 *   - first period: u'(k-1) = v->cores (the deployment's cores), e(k-1) = 0
 *     (as if the loop had been at its set point);
 *   - no completions in the period (rt_mean_s NAN) or no SLA (sla_s <= 0):
 *     no measurement, so it holds (returns v->cores) and leaves e(k-1) as
 *     it was (the error of the last period that measured one);
 *   - asked twice in one period (the same now_s, before granted()), it
 *     answers from the same state: e(k) becomes e(k-1) only when a later
 *     period asks;
 *   - no granted() call: u'(k-1) = v->cores, which is what was granted.
 * Bounds (control.min_cores, the worker's cores) are the simulator's clamp. */
#include <math.h>
#include <stdlib.h>

#include "autoscale_common.h" /* as_param */

typedef struct pi_state {
    double k, a, alpha;
    double e_prev;     /* e(k-1) */
    double e_now;      /* e(k) of the period at now_s, committed by a later period */
    double now_s;      /* the period e_now belongs to */
    int have_now;
    double granted;    /* u'(k-1); valid if have_granted */
    int have_granted;
} pi_state;

static const char *const pi_params[] = {"K", "a", "alpha", NULL};

static int pi_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    pi_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "K", 0.15, 0, 1e9, &s->k, err, errlen) < 0 ||
        as_param(args, "a", 0.11, -1e9, 1e9, &s->a, err, errlen) < 0 ||
        as_param(args, "alpha", 0.8, 0, 1, &s->alpha, err, errlen) < 0) {
        free(s);
        return -1;
    }
    if (!(s->k > 0)) {
        snprintf(err, errlen, "K: expected a number above 0 (the error is measured minus set point, so K > 0 adds "
                              "cores when responses are slow)");
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void pi_fini(void *state) { free(state); }

static double pi_demand(void *state, const ss_control_view *v)
{
    pi_state *s = state;
    if (s->have_now && v->now_s > s->now_s) { /* a new period: last period's error becomes e(k-1) */
        s->e_prev = s->e_now;
        s->have_now = 0;
    }
    double base = s->have_granted ? s->granted : v->cores; /* u'(k-1) */
    if (isnan(v->rt_mean_s) || !(v->sla_s > 0)) return v->cores;
    double e = v->rt_mean_s - s->alpha * v->sla_s;
    s->e_now = e;
    s->now_s = v->now_s;
    s->have_now = 1;
    return base + s->k * (e - s->a * s->e_prev);
}

static void pi_granted(void *state, const ss_control_view *v, double cores)
{
    pi_state *s = state;
    s->granted = cores;
    s->have_granted = 1;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_CONTROLLER,
    .name = "roma-pi",
    .summary = "ROMA's PI: u = u'(k-1) + K (e - a e(k-1)), e = RT - alpha x SLA, u' the granted cores "
               "(K 0.15, a 0.11, alpha 0.8)",
    .params = pi_params,
    .init = pi_init,
    .fini = pi_fini,
    .ops.controller = {.demand = pi_demand, .granted = pi_granted},
};
