/* keepalive.c: the OpenWhisk / AWS Lambda style: every waiting request gets
 * a replica of its own, and a replica left idle for timeout_s is removed
 * (scale to zero).  Default timeout 600 s (OpenWhisk's default container
 * idle time is 10 minutes; Lambda's is not published and varies). */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct ka_state {
    double timeout_s;
} ka_state;

static const char *const ka_params[] = {"timeout_s", NULL};

static int ka_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    ka_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "timeout_s", 600, 0, 1e9, &s->timeout_s, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void ka_fini(void *state) { free(state); }

static uint32_t ka_desired(void *state, const ss_autoscale_view *v)
{
    const ka_state *s = state;
    uint32_t kept = 0; /* idle replicas still inside their keep-alive */
    for (uint32_t i = 0; i < v->nidle; i++) kept += v->idle_s[i] < s->timeout_s;
    /* Starting replicas are already on their way to a waiting request. */
    uint32_t need = v->queued > v->starting ? v->queued - v->starting : 0;
    return v->busy + kept + v->starting + need;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "keepalive",
    .summary = "a replica per waiting request, removed after timeout_s idle (600): scale to zero",
    .params = ka_params,
    .init = ka_init,
    .fini = ka_fini,
    .ops.autoscaler = {.desired = ka_desired},
};
