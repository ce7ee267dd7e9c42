/* steps-as.c: test plugin - an autoscaler that asks for a scripted number
 * of replicas: parameter `steps` is "N@T,N@T,..." (times increasing), and
 * the answer at time t is the N of the last step with T <= t (0 before the
 * first).  Cold-start tests drive scale-ups and scale-downs with it at
 * known instants. */
#include <stdio.h>
#include <stdlib.h>

#include <servesim/policy.h>

typedef struct steps_state {
    double at_s[64];
    uint32_t n[64];
    size_t count;
} steps_state;

static const char *const steps_params[] = {"steps", NULL};

static int steps_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    const char *p = ss_param_get(args->params, "steps");
    steps_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    while (p && *p && s->count < 64) {
        char *end;
        unsigned long n = strtoul(p, &end, 10);
        if (*end != '@') break;
        double t = strtod(end + 1, &end);
        s->n[s->count] = (uint32_t)n;
        s->at_s[s->count++] = t;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') break;
    }
    if (!p || *p) {
        free(s);
        return snprintf(err, errlen, "steps: expected N@T,N@T,..."), -1;
    }
    *state = s;
    return 0;
}

static void steps_fini(void *state) { free(state); }

static uint32_t steps_desired(void *state, const ss_autoscale_view *v)
{
    const steps_state *s = state;
    uint32_t want = 0;
    for (size_t i = 0; i < s->count && s->at_s[i] <= v->now_s + 1e-9; i++) want = s->n[i];
    return want;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "steps-as",
    .summary = "test: a scripted number of replicas (steps: N@T,...)",
    .params = steps_params,
    .init = steps_init,
    .fini = steps_fini,
    .ops.autoscaler = {.desired = steps_desired},
};
