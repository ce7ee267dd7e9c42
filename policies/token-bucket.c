/* token-bucket.c: admission by a token bucket per model, as an API
 * gateway's rate limit (Envoy's and NGINX's local rate limiting; a request
 * refused is answered 429): tokens accrue at rate_rps up to burst, each
 * request admitted takes one, a request finding none is refused.  The
 * bucket starts full. */
#include <stdio.h>
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct tb_model {
    double tokens, at_s;
} tb_model;

typedef struct tb_state {
    double rate_rps, burst;
    uint32_t ngroups;
    tb_model m[];
} tb_state;

static const char *const tb_params[] = {"rate_rps", "burst", NULL};

static int tb_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    uint32_t n = args && args->ngroups ? args->ngroups : 1;
    tb_state *s = calloc(1, sizeof *s + n * sizeof s->m[0]);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    s->ngroups = n;
    if (as_param(args, "rate_rps", -1, 1e-9, 1e12, &s->rate_rps, err, errlen) < 0 ||
        as_param(args, "burst", 1, 1, 1e12, &s->burst, err, errlen) < 0) {
        free(s);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) s->m[i] = (tb_model){.tokens = s->burst, .at_s = 0};
    *state = s;
    return 0;
}

static void tb_fini(void *state) { free(state); }

static int tb_admit(void *state, const ss_admission_view *v, const ss_qitem *req)
{
    (void)req;
    tb_state *s = state;
    tb_model *m = &s->m[v->model < s->ngroups ? v->model : v->model % s->ngroups];
    m->tokens += (v->now_s - m->at_s) * s->rate_rps;
    if (m->tokens > s->burst) m->tokens = s->burst;
    m->at_s = v->now_s;
    if (m->tokens < 1 - 1e-12) return 0;
    m->tokens -= 1;
    return 1;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_ADMISSION,
    .name = "token-bucket",
    .summary = "admit while a per-model token bucket (rate_rps, burst) has a token, else refuse (429)",
    .params = tb_params,
    .init = tb_init,
    .fini = tb_fini,
    .ops.admission = {.admit = tb_admit},
};
