/* llm-hpa.c: the Kubernetes Horizontal Pod Autoscaler on an LLM engine's
 * own metrics, as vLLM exports them to Prometheus and a custom-metrics HPA
 * (or KEDA) scales on them (docs/llm.md, "Serverless LLMs"): the KV-cache
 * use (vllm:kv_cache_usage_perc, the mean over the model's up engines) and,
 * optionally, the output tokens per second per replica.  Each metric gives
 * the HPA's answer ceil(current x metric / target), unchanged within the
 * HPA's default tolerance of 10% (autoscaling/v2); the count is the larger
 * answer.  From zero replicas, one as soon as a request waits; down to zero
 * only after scale_to_zero_grace_s with nothing in flight (as KEDA's
 * cooldown, whose default is 300 s; 30 s here, Knative's grace, so that
 * the two compare).  [ASSUMPTION: kv_target 0.7 and no token target by
 * default - a deployment's choice, not a documented default.]  The
 * scenario's stabilization window holds scale-downs back, as the HPA's. */
#include <stdlib.h>

#include "autoscale_common.h"

typedef struct hpa_model {
    double active_s; /* the last tick with anything in flight */
} hpa_model;

typedef struct hpa_state {
    double kv_target, tokens_target, tolerance, grace_s;
    uint32_t ngroups;
    hpa_model m[];
} hpa_state;

static const char *const hpa_params[] = {"kv_target", "tokens_target", "tolerance", "scale_to_zero_grace_s", NULL};

static int hpa_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    uint32_t n = args && args->ngroups ? args->ngroups : 1;
    hpa_state *s = calloc(1, sizeof *s + n * sizeof s->m[0]);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    s->ngroups = n;
    if (as_param(args, "kv_target", 0.7, 1e-3, 1, &s->kv_target, err, errlen) < 0 ||
        as_param(args, "tokens_target", 0, 0, 1e9, &s->tokens_target, err, errlen) < 0 ||
        as_param(args, "tolerance", 0.1, 0, 1, &s->tolerance, err, errlen) < 0 ||
        as_param(args, "scale_to_zero_grace_s", 30, 0, 1e9, &s->grace_s, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void hpa_fini(void *state) { free(state); }

static uint32_t hpa_desired(void *state, const ss_autoscale_view *v)
{
    hpa_state *s = state;
    hpa_model *m = &s->m[v->model < s->ngroups ? v->model : v->model % s->ngroups];
    uint32_t cur = v->up;
    uint32_t want = as_hpa(cur, v->kv_use, s->kv_target, s->tolerance, v->queued);
    if (s->tokens_target > 0) {
        uint32_t by_tokens = as_hpa(cur, cur ? v->tokens_per_s / cur : 0, s->tokens_target, s->tolerance, v->queued);
        if (by_tokens > want) want = by_tokens;
    }
    if (cur == 0 && v->starting > 0) want = v->starting; /* what starts is what it asked for */
    if (v->in_flight > 0 || v->queued > 0) m->active_s = v->now_s;
    if (want < 1 && (v->queued > 0 || v->now_s - m->active_s < s->grace_s) && (v->up + v->starting > 0 || v->queued))
        want = 1;
    return want;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_AUTOSCALER,
    .name = "llm-hpa",
    .summary = "HPA on an LLM engine's KV-cache use (target 0.7) and optionally tokens/s per replica, tolerance 10%",
    .params = hpa_params,
    .init = hpa_init,
    .fini = hpa_fini,
    .ops.autoscaler = {.desired = hpa_desired},
};
