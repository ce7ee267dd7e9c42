/* scenario_autoscale.c: the `autoscaling:` section (docs/autoscaling.md):
 * the autoscaler plugin and its parameters, the tick, the decision delay,
 * the replica bounds, the scale-down stabilisation window, the measurement
 * windows, the models it resizes (every model with a shared queue,
 * unless `models:` names some; each must have one) and, under `per_model:`,
 * a model's own parameters for the policy and its own replica cap (as
 * Kubernetes gives each Deployment its own HPA, with its maxReplicas). */
#include "input/scenario_autoscale.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/section.h"

#define TRY_(x)                  \
    do {                         \
        if ((x) < 0) return -1;  \
    } while (0)

static int shared(const ss_scenario *sc, size_t m)
{
    for (size_t d = 0; d < sc->ndeploys; d++)
        if (sc->deploys[d].model == m && sc->deploys[d].shared_queue) return 1;
    return 0;
}

/* A model named in autoscaling.models must have a shared queue. */
static int scalable(const ss_scenario *sc, uint32_t m, const ss_node *at, ss_err *err)
{
    if (shared(sc, m)) return 0;
    return ss_node_err(at, err, "models: '%s' has no shared queue: an autoscaled model's replicas pull from "
                                "one queue (give its deployment entries `queue: shared`)",
                       at->value);
}

static int read_models(ss_scenario *sc, ss_autoscale_cfg *a, const ss_node *as, ss_err *err)
{
    a->models = ss_xcalloc(sc->nmodels + 1, 1);
    int given = ss_sc_read_model_list(sc, as, a->models, scalable, err);
    if (given) return given < 0 ? -1 : 0;
    size_t n = 0;
    for (size_t m = 0; m < sc->nmodels; m++) n += a->models[m] = (uint8_t)shared(sc, m);
    if (n == 0)
        return ss_node_err(as, err, "autoscaling: no model has a shared queue to scale (give one `queue: shared`)");
    return 0;
}

static int read_windows(ss_autoscale_cfg *a, const ss_node *as, ss_err *err)
{
    ss_node *seq = NULL;
    TRY_(ss_cfg_seq(as, "windows_s", &seq, 0, err));
    if (!seq) { /* Knative's panic and stable windows (6 s and 60 s) */
        a->windows_s[0] = 6;
        a->windows_s[1] = 60;
        a->nwindows = 2;
        return 0;
    }
    if (seq->n == 0 || seq->n > SS_AS_WINDOWS)
        return ss_node_err(seq, err, "windows_s: expected 1 to %d windows, got %zu", SS_AS_WINDOWS, seq->n);
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *n = seq->items[i];
        char *end = NULL;
        double v = n->kind == SS_NODE_SCALAR ? ss_strtod(n->value, &end) : NAN;
        if (!end || *end || !(v > 0) || v > 1e7)
            return ss_node_err(n, err, "windows_s: expected a window in seconds (0 to 1e7), got '%s'",
                               n->kind == SS_NODE_SCALAR ? n->value : "(not a number)");
        if (i && !(v > a->windows_s[i - 1]))
            return ss_node_err(n, err, "windows_s: expected windows from shortest to longest");
        a->windows_s[i] = v;
    }
    a->nwindows = (uint32_t)seq->n;
    return 0;
}

/* Append parameter key = value, said at file:line:col, to p. */
static void push_param(ss_policy_cfg *p, const char *key, const char *value, const char *file, int line, int col)
{
    size_t j = p->nparams++;
    p->params[j] = (ss_param){ss_xstrdup(key), ss_xstrdup(value)};
    p->param_pos[j][0] = line;
    p->param_pos[j][1] = col;
    p->param_file[j] = ss_xstrdup(file);
}

/* `per_model: {MODEL: {param: value, ...}}`: the policy's parameters with
 * the model's own over them; the plugin checks the names when it loads.
 * `max_replicas` there is the model's own cap, under the section's (a number
 * >= 1, held at its whole part, so that `servesim tune` may move it as a
 * continuous value; its whole part no lower than min_replicas), for any
 * policy. */
static int read_per_model(ss_scenario *sc, ss_autoscale_cfg *a, const ss_node *as, ss_err *err)
{
    a->per_model = ss_xcalloc(sc->nmodels + 1, sizeof *a->per_model);
    a->max_replicas_m = ss_xcalloc(sc->nmodels + 1, sizeof *a->max_replicas_m);
    a->nper_model = sc->nmodels;
    ss_node *pm = NULL;
    TRY_(ss_cfg_map(as, "per_model", &pm, 0, err));
    for (size_t i = 0; pm && i < pm->n; i++) {
        const ss_node *e = pm->items[i];
        ss_node key = {.kind = SS_NODE_SCALAR, .value = e->key, .file = e->file, .line = e->key_line,
                       .col = e->key_col};
        uint32_t m;
        TRY_(ss_sc_model_ref(sc, &key, &m, err));
        if (!a->models[m])
            return ss_node_err(&key, err,
                               "per_model: model '%s' is not autoscaled (it has no shared queue, or "
                               "autoscaling.models leaves it out)",
                               e->key);
        if (e->kind != SS_NODE_MAP || e->n == 0)
            return ss_node_err(e, err, "per_model: %s: expected a map of the policy's parameters, e.g. {%s: ...}",
                               e->key, a->policy.nparams ? a->policy.params[0].key : "target");
        const ss_node *cap_at = ss_map_find(e, "max_replicas");
        double cap_n = 0;
        TRY_(ss_cfg_num(e, "max_replicas", &cap_n, SS_POS, err));
        if (cap_at && (cap_n < 1 || cap_n > 1000000))
            return ss_node_err(cap_at, err, "per_model: %s: max_replicas: expected 1 to 1000000, got %g", e->key,
                               cap_n);
        if (cap_at && (uint32_t)cap_n < a->min_replicas)
            return ss_node_err(cap_at, err, "per_model: %s: max_replicas (%u) is below autoscaling.min_replicas (%u)",
                               e->key, (uint32_t)cap_n, a->min_replicas);
        a->max_replicas_m[m] = (uint32_t)cap_n;
        if (e->n == (cap_at ? 1u : 0u)) continue; /* no parameter of the policy's */
        const ss_policy_cfg *base = &a->policy;
        ss_policy_cfg *p = &a->per_model[m];
        size_t cap = base->nparams + e->n;
        p->name = ss_xstrdup(base->name);
        p->params = ss_xcalloc(cap, sizeof *p->params);
        p->param_pos = ss_xcalloc(cap, sizeof *p->param_pos);
        p->param_file = ss_xcalloc(cap, sizeof *p->param_file);
        p->file = ss_xstrdup(e->file);
        p->line = e->key_line;
        p->col = e->key_col;
        for (size_t k = 0; k < base->nparams; k++) /* the policy's, where the model has none of its own */
            if (!ss_map_find(e, base->params[k].key))
                push_param(p, base->params[k].key, base->params[k].value, base->param_file[k],
                           base->param_pos[k][0], base->param_pos[k][1]);
        for (size_t k = 0; k < e->n; k++) {
            const ss_node *c = e->items[k];
            if (strcmp(c->key, "max_replicas") == 0) continue; /* the cap, read above */
            TRY_(ss_node_expect(c, SS_NODE_SCALAR, c->key, err));
            push_param(p, c->key, c->value, c->file, c->key_line, c->key_col);
        }
    }
    return 0;
}

static int read_section(ss_scenario *sc, ss_autoscale_cfg *a, const ss_node *as, ss_err *err)
{
    static const char *const keys[] = {"policy", "period_s", "decision_delay_s", "min_replicas", "max_replicas",
                                       "stabilization_s", "windows_s", "rate_quantile", "models", "cat", "per_model",
                                       NULL};
    TRY_(ss_cfg_check_keys(as, keys, "autoscaling", err));
    if (!ss_map_find(as, "policy")) return ss_node_err(as, err, "autoscaling: missing key 'policy' (an autoscaler plugin)");
    int rc = ss_policy_cfg_read(&a->policy, as, "policy", "", err);
    a->policy.file = ss_xstrdup(a->policy.file ? a->policy.file : as->file); /* the document goes away */
    TRY_(rc);
    a->period_s = 1;
    TRY_(ss_cfg_num(as, "period_s", &a->period_s, SS_POS, err));
    if (a->period_s < 1e-3 || a->period_s > 1e6)
        return ss_node_err(ss_map_find(as, "period_s"), err, "period_s: expected 0.001 to 1e6 s, got %g", a->period_s);
    TRY_(ss_cfg_num(as, "decision_delay_s", &a->decision_delay_s, SS_NONNEG, err));
    TRY_(ss_cfg_num(as, "stabilization_s", &a->stabilization_s, SS_NONNEG, err));
    unsigned long long lo = 0, hi = 100000;
    TRY_(ss_cfg_u64(as, "min_replicas", &lo, 0, err));
    TRY_(ss_cfg_u64(as, "max_replicas", &hi, 0, err));
    if (hi < 1 || hi > 1000000)
        return ss_node_err(ss_map_find(as, "max_replicas"), err, "max_replicas: expected 1 to 1000000, got %llu", hi);
    if (lo > hi)
        return ss_node_err(ss_map_find(as, "min_replicas"), err, "min_replicas (%llu) is above max_replicas (%llu)", lo,
                           hi);
    a->min_replicas = (uint32_t)lo;
    a->max_replicas = (uint32_t)hi;
    a->rate_quantile = 0.99;
    TRY_(ss_cfg_num(as, "rate_quantile", &a->rate_quantile, SS_NONNEG, err));
    if (a->rate_quantile > 1)
        return ss_node_err(ss_map_find(as, "rate_quantile"), err, "rate_quantile: expected 0 to 1, got %g",
                           a->rate_quantile);
    TRY_(read_windows(a, as, err));
    /* The autoscaler keeps one slot per period of its longest window and of
     * its stabilization (elastic/autoscale.c): their lengths in periods are
     * memory, bounded here rather than by the allocator. */
    if (a->windows_s[a->nwindows - 1] / a->period_s > SS_AS_MAX_PERIODS) {
        ss_node *wn = ss_map_find(as, "windows_s");
        return ss_node_err(wn ? wn : as, err,
                           "windows_s: the longest window, %g s, is %.3g periods of period_s %g; at most %.0e: "
                           "lengthen period_s or shorten the window",
                           a->windows_s[a->nwindows - 1], a->windows_s[a->nwindows - 1] / a->period_s, a->period_s,
                           SS_AS_MAX_PERIODS);
    }
    if (a->stabilization_s / a->period_s > SS_AS_MAX_PERIODS)
        return ss_node_err(ss_map_find(as, "stabilization_s"), err,
                           "stabilization_s: %g s is %.3g periods of period_s %g; at most %.0e: lengthen period_s or "
                           "shorten stabilization_s",
                           a->stabilization_s, a->stabilization_s / a->period_s, a->period_s, SS_AS_MAX_PERIODS);
    ss_node *cat = NULL;
    TRY_(ss_cfg_map(as, "cat", &cat, 0, err));
    if (cat) { /* `cat: {low_rps: ..., high_rps: ...}` */
        static const char *const ckeys[] = {"low_rps", "high_rps", NULL};
        TRY_(ss_cfg_check_keys(cat, ckeys, "cat", err));
        TRY_(ss_cfg_num(cat, "low_rps", &a->cat_low_rps, SS_NONNEG, err));
        TRY_(ss_cfg_num(cat, "high_rps", &a->cat_high_rps, SS_NONNEG, err));
        a->cat = 1;
    }
    TRY_(read_models(sc, a, as, err));
    return read_per_model(sc, a, as, err);
}

int ss_sc_read_autoscaling(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    ss_node *as = NULL;
    TRY_(ss_cfg_map(root, "autoscaling", &as, 0, err));
    if (!as) return 0;
    sc->autoscale = ss_xcalloc(1, sizeof *sc->autoscale);
    return read_section(sc, sc->autoscale, as, err);
}

void ss_autoscale_cfg_free(ss_autoscale_cfg *a)
{
    if (!a) return;
    ss_policy_cfg_free(&a->policy);
    for (size_t m = 0; m < a->nper_model; m++) ss_policy_cfg_free(&a->per_model[m]);
    free(a->per_model);
    free(a->max_replicas_m);
    free(a->models);
    free(a);
}
