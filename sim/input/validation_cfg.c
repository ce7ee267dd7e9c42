/* validation_cfg.c: reading a scenario's `validation:` section
 * (validation_cfg.h, docs/validation.md): the model it stands for, the
 * workload the runs' arrival replaces, what each transport and placement
 * value sets, the saturation rule and the tolerances. */
#include "input/validation_cfg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x)                     \
    do {                           \
        if ((x) < 0) return -1;    \
    } while (0)

static const char *const metric_names[] = {"throughput_per_s", "latency_mean_s", "latency_p50_s", "latency_p99_s",
                                           "requests", NULL};
/* the keys of `tolerance.<regime>`: the metric names without their unit */
static const char *const tol_keys[] = {"throughput", "latency_mean", "latency_p50", "latency_p99", "requests", NULL};
static const char *const regime_keys[] = {"below_saturation", "at_saturation", "closed", NULL};

const char *ss_val_metric_name(ss_val_metric m)
{
    return m < SS_VAL_NMETRICS ? metric_names[m] : "?";
}

static int read_choices(const ss_node *sec, const char *key, ss_val_choices *c, ss_err *err)
{
    ss_node *m = NULL;
    TRY(ss_cfg_map(sec, key, &m, 0, err));
    if (!m) return 0;
    c->node = m;
    c->items = ss_xcalloc(m->n + 1, sizeof *c->items);
    for (size_t i = 0; i < m->n; i++) {
        const ss_node *it = m->items[i];
        if (it->kind == SS_NODE_SCALAR && it->is_null) { /* `zmq-copy: ~`: the value sets nothing */
            c->items[c->n++] = (ss_val_choice){it->key, NULL};
            continue;
        }
        if (it->kind != SS_NODE_MAP)
            return ss_node_err(it, err,
                               "%s.%s: expected a map of scenario keys to values (like a variant's set:), or ~",
                               key, it->key);
        c->items[c->n++] = (ss_val_choice){it->key, it};
    }
    return 0;
}

static int read_tolerance(const ss_node *sec, ss_validation_cfg *v, ss_err *err)
{
    ss_node *t = NULL;
    TRY(ss_cfg_map(sec, "tolerance", &t, 0, err));
    if (!t) return 0;
    TRY(ss_cfg_check_keys(t, regime_keys, "validation.tolerance", err));
    for (int r = 0; r < SS_VAL_NREGIMES; r++) {
        ss_node *m = NULL;
        TRY(ss_cfg_map(t, regime_keys[r], &m, 0, err));
        if (!m) continue;
        TRY(ss_cfg_check_keys(m, tol_keys, "a tolerance", err));
        for (int k = 0; k < SS_VAL_NMETRICS; k++) TRY(ss_cfg_num(m, tol_keys[k], &v->tol[r][k], SS_POS, err));
    }
    return 0;
}

int ss_validation_read(const ss_node *root, ss_validation_cfg *v, ss_err *err)
{
    static const char *const keys[] = {"model",      "workload",   "transport", "placement", "background_cores",
                                       "host_speed", "saturation", "tolerance", NULL};
    static const char *const bg_keys[] = {"host", NULL};
    static const char *const speed_keys[] = {"host", "model", NULL};
    static const char *const sat_keys[] = {"throughput_gap", "highest_load", NULL};
    memset(v, 0, sizeof *v);
    for (int r = 0; r < SS_VAL_NREGIMES; r++)
        for (int k = 0; k < SS_VAL_NMETRICS; k++) v->tol[r][k] = NAN;
    v->tol[SS_VAL_BELOW][SS_VAL_THROUGHPUT] = v->tol[SS_VAL_BELOW][SS_VAL_MEAN] = 0.10;
    v->tol[SS_VAL_SATURATED][SS_VAL_THROUGHPUT] = v->tol[SS_VAL_SATURATED][SS_VAL_MEAN] = 0.15;
    v->tol[SS_VAL_CLOSED][SS_VAL_THROUGHPUT] = v->tol[SS_VAL_CLOSED][SS_VAL_MEAN] = 0.10;
    v->saturation_gap = 0.05;
    v->saturation_highest = 1;
    ss_node *sec = NULL;
    TRY(ss_cfg_map(root, "validation", &sec, 0, err));
    if (!sec) return 0;
    v->node = sec;
    TRY(ss_cfg_check_keys(sec, keys, "validation", err));
    TRY(ss_cfg_str(sec, "model", &v->model, SS_REQ, err));
    if (!v->model[0]) return ss_node_err(ss_map_find(sec, "model"), err, "model: expected the name runs give as conditions.model");
    TRY(ss_cfg_str(sec, "workload", &v->workload, 0, err));
    TRY(read_choices(sec, "transport", &v->transport, err));
    TRY(read_choices(sec, "placement", &v->placement, err));
    ss_node *bg = NULL;
    TRY(ss_cfg_map(sec, "background_cores", &bg, 0, err));
    if (bg) {
        v->background_node = bg;
        TRY(ss_cfg_check_keys(bg, bg_keys, "validation.background_cores", err));
        TRY(ss_cfg_str(bg, "host", &v->background_host, SS_REQ, err));
    }
    ss_node *hs = NULL;
    TRY(ss_cfg_map(sec, "host_speed", &hs, 0, err));
    if (hs) {
        v->speed_node = hs;
        TRY(ss_cfg_check_keys(hs, speed_keys, "validation.host_speed", err));
        TRY(ss_cfg_str(hs, "host", &v->speed_host, SS_REQ, err));
        const char *model = NULL;
        TRY(ss_cfg_str(hs, "model", &model, SS_REQ, err));
        v->speed_model = ss_map_find(hs, "model");
    }
    ss_node *sat = NULL;
    TRY(ss_cfg_map(sec, "saturation", &sat, 0, err));
    if (sat) {
        TRY(ss_cfg_check_keys(sat, sat_keys, "validation.saturation", err));
        if (ss_cfg_num(sat, "throughput_gap", &v->saturation_gap, SS_NONNEG, err) < 0) return -1;
        if (!(v->saturation_gap < 1))
            return ss_node_err(ss_map_find(sat, "throughput_gap"), err,
                               "throughput_gap: expected a share in [0, 1), got '%s'",
                               ss_map_find(sat, "throughput_gap")->value);
        TRY(ss_cfg_bool(sat, "highest_load", &v->saturation_highest, 0, err));
    }
    TRY(read_tolerance(sec, v, err));
    return 1;
}

void ss_validation_free(ss_validation_cfg *v)
{
    free(v->transport.items);
    free(v->placement.items);
    memset(v, 0, sizeof *v);
}

const ss_val_choice *ss_val_choice_find(const ss_val_choices *c, const char *value)
{
    for (size_t i = 0; value && i < c->n; i++)
        if (strcmp(c->items[i].value, value) == 0) return &c->items[i];
    return NULL;
}
