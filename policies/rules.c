/* rules.c: the rule-based baseline of ROMA's RR+rules (seed roma.md §2.6),
 * a controller: one more core (`step`, 1) when the period's mean response
 * time is at or above `up` x SLA (0.8), one fewer when it is at or below
 * `down` x SLA (0.2), else the cores it has.  The paper's 15 s period is
 * the scenario's control period, not this plugin's.  0 <= down <= up; when
 * they are equal, `up` is tested first.  No completions in the period
 * (rt_mean_s NAN) or no SLA (sla_s <= 0): it holds.  The seed leaves the
 * bounds open: the simulator clamps the demand to [control.min_cores, the
 * worker's cores] and the supervisor fits it to the worker. */
#include <math.h>
#include <stdlib.h>

#include "autoscale_common.h" /* as_param */

typedef struct rules_state {
    double up, down, step;
} rules_state;

static const char *const rules_params[] = {"up", "down", "step", NULL};

static int rules_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    rules_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "up", 0.8, 0, 1e6, &s->up, err, errlen) < 0 ||
        as_param(args, "down", 0.2, 0, 1e6, &s->down, err, errlen) < 0 ||
        as_param(args, "step", 1, 0, 1e6, &s->step, err, errlen) < 0) {
        free(s);
        return -1;
    }
    const char *why = s->down > s->up ? "down: expected at most up" : !(s->step > 0) ? "step: expected above 0" : NULL;
    if (why) {
        snprintf(err, errlen, "%s", why);
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void rules_fini(void *state) { free(state); }

static double rules_demand(void *state, const ss_control_view *v)
{
    const rules_state *s = state;
    if (isnan(v->rt_mean_s) || !(v->sla_s > 0)) return v->cores;
    if (v->rt_mean_s >= s->up * v->sla_s) return v->cores + s->step;
    if (v->rt_mean_s <= s->down * v->sla_s) return v->cores - s->step;
    return v->cores;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_CONTROLLER,
    .name = "rules",
    .summary = "RR+rules: +step cores at RT >= up x SLA, -step at RT <= down x SLA (up 0.8, down 0.2, step 1)",
    .params = rules_params,
    .init = rules_init,
    .fini = rules_fini,
    .ops.controller = {.demand = rules_demand},
};
