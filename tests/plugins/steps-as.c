/* steps-as.c: test plugin - an autoscaler that asks for a scripted number
 * of replicas: parameter `steps` is "[K:]N@T,..." (times increasing per
 * model), and the answer for model K at time t is the N of its last step
 * with T <= t (0 before the first); a step without "K:" is for every
 * model.  Cold-start tests drive scale-ups and scale-downs with it at
 * known instants. */
#include <stdio.h>
#include <stdlib.h>

#include <servesim/policy.h>

enum { MAX_STEPS = 64 };

typedef struct steps_state {
    double at_s[MAX_STEPS];
    uint32_t n[MAX_STEPS];
    long model[MAX_STEPS]; /* -1: every model */
    size_t count;
} steps_state;

static const char *const steps_params[] = {"steps", NULL};

static int steps_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    const char *p = ss_param_get(args->params, "steps");
    steps_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    while (p && *p && s->count < MAX_STEPS) {
        char *end;
        unsigned long a = strtoul(p, &end, 10);
        long model = -1;
        if (*end == ':') {
            model = (long)a;
            a = strtoul(end + 1, &end, 10);
        }
        if (*end != '@') break;
        s->model[s->count] = model;
        s->n[s->count] = (uint32_t)a;
        s->at_s[s->count++] = strtod(end + 1, &end);
        if (*end && *end != ',') break;
        p = *end ? end + 1 : end;
    }
    if (!p || *p) {
        free(s);
        return snprintf(err, errlen, "steps: expected [K:]N@T,..."), -1;
    }
    *state = s;
    return 0;
}

static void steps_fini(void *state) { free(state); }

static uint32_t steps_desired(void *state, const ss_autoscale_view *v)
{
    const steps_state *s = state;
    uint32_t want = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->at_s[i] <= v->now_s + 1e-9 && (s->model[i] < 0 || s->model[i] == (long)v->model)) want = s->n[i];
    return want;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "steps-as",
    .summary = "test: a scripted number of replicas (steps: [K:]N@T,...)",
    .params = steps_params,
    .init = steps_init,
    .fini = steps_fini,
    .ops.autoscaler = {.desired = steps_desired},
};
