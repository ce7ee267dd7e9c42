/* layer_overhead.h: the state of a layer scheduler whose one parameter is
 * the per-DNN framework overhead `overhead_s` (docs/masa.md: 19.0 / 19.9 /
 * 22.0 ms for Bulk / DeepEye / MASA), header-only so each plugin stays one
 * self-contained shared object (masa.c, deepeye.c). */
#ifndef SS_LAYER_OVERHEAD_H
#define SS_LAYER_OVERHEAD_H

#include <servesim/policy.h>
#include <stdio.h>

typedef struct lo_state {
    double overhead_s;
} lo_state;

static const char *const lo_params[] = {"overhead_s", NULL};

/* init with `default_s` when the scenario gives no overhead_s. */
static inline int lo_init(void **state, const ss_policy_init *args, double default_s, char *err, size_t errlen)
{
    int bad = 0;
    double o = ss_param_double(args->params, "overhead_s", default_s, &bad);
    if (bad || o < 0) {
        if (errlen) snprintf(err, errlen, "overhead_s: expected a number >= 0");
        return -1;
    }
    lo_state *s = malloc(sizeof *s);
    if (!s) return -1;
    s->overhead_s = o;
    *state = s;
    return 0;
}

static inline void lo_fini(void *state)
{
    free(state);
}

static inline double lo_overhead(void *state)
{
    return ((const lo_state *)state)->overhead_s;
}

#endif
