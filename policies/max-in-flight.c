/* max-in-flight.c: admission by a cap on a model's requests in flight
 * (queued and in service), as a gateway's concurrency limit (Envoy's
 * max_requests circuit breaker, Knative's queue-proxy with a bounded
 * queue): a request arriving when `limit` are in flight is refused. */
#include <stdio.h>
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct mf_state {
    double limit;
} mf_state;

static const char *const mf_params[] = {"limit", NULL};

static int mf_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    mf_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "limit", -1, 1, 1e12, &s->limit, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void mf_fini(void *state) { free(state); }

static int mf_admit(void *state, const ss_admission_view *v, const ss_qitem *req)
{
    (void)req;
    const mf_state *s = state;
    return (double)v->in_flight < s->limit;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_ADMISSION,
    .name = "max-in-flight",
    .summary = "admit while a model has fewer than `limit` requests queued and in service, else refuse",
    .params = mf_params,
    .init = mf_init,
    .fini = mf_fini,
    .ops.admission = {.admit = mf_admit},
};
