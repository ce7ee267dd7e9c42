/* static.c: a fixed allocation, ROMA's RR+max and RR+min baselines (seed
 * roma.md §2.6), a controller: it always asks for `cores` when given (> 0),
 * else for the cores the container had the first time it was asked (the
 * deployment's initial cap) - remembered, so a period in which the
 * supervisor scaled the container down does not lower what it asks for
 * next.  Whether `cores` fits the worker is the simulator's check (it
 * knows the worker); here it only has to be a positive number. */
#include <stdlib.h>

#include "autoscale_common.h" /* as_param */

typedef struct static_state {
    double cores; /* 0 until known */
} static_state;

static const char *const static_params[] = {"cores", NULL};

static int static_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    static_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    int given = ss_param_get(args ? args->params : NULL, "cores") != NULL;
    if (as_param(args, "cores", 0, 0, 1e6, &s->cores, err, errlen) < 0) {
        free(s);
        return -1;
    }
    if (given && !(s->cores > 0)) {
        snprintf(err, errlen, "cores: expected a number above 0");
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void static_fini(void *state) { free(state); }

static double static_demand(void *state, const ss_control_view *v)
{
    static_state *s = state;
    if (!(s->cores > 0)) s->cores = v->cores;
    return s->cores;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_CONTROLLER,
    .name = "static",
    .summary = "a fixed allocation: `cores` if given, else the container's initial cores",
    .params = static_params,
    .init = static_init,
    .fini = static_fini,
    .ops.controller = {.demand = static_demand},
};
