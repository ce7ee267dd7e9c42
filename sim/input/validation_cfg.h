/* validation_cfg.h: a scenario's `validation:` section (docs/validation.md):
 * which end-to-end runs of a real system (the `runs` of profile files,
 * input/hwprofile.h) the scenario stands for, which scenario keys each
 * condition value sets, how a saturated run is recognised, and the
 * tolerances `servesim validate` judges the relative errors by.
 *
 * The structs point into the document they were read from (the `set:`
 * maps are applied to the scenario later with their own positions), so
 * the document must outlive them. */
#ifndef SS_VALIDATION_CFG_H
#define SS_VALIDATION_CFG_H

#include <stddef.h>

#include "core/cfg.h"

/* The metrics of an end-to-end run, in the order they are reported. */
typedef enum ss_val_metric {
    SS_VAL_THROUGHPUT,   /* throughput_per_s */
    SS_VAL_MEAN,         /* latency_mean_s */
    SS_VAL_P50,          /* latency_p50_s */
    SS_VAL_P99,          /* latency_p99_s */
    SS_VAL_REQUESTS,     /* requests */
    SS_VAL_NMETRICS
} ss_val_metric;

/* The profile's name of metric m ("throughput_per_s", ...). */
const char *ss_val_metric_name(ss_val_metric m);

/* One value a text condition may take, and the scenario keys it sets: a map
 * of dotted key -> value, exactly like a variant's `set:` (may be empty). */
typedef struct ss_val_choice {
    const char *value;
    const ss_node *set;
} ss_val_choice;

typedef struct ss_val_choices {
    const ss_node *node;     /* the map as written; NULL: not given */
    ss_val_choice *items;
    size_t n;
} ss_val_choices;

/* Which tolerance applies to a run. */
typedef enum ss_val_regime { SS_VAL_BELOW, SS_VAL_SATURATED, SS_VAL_CLOSED, SS_VAL_NREGIMES } ss_val_regime;

typedef struct ss_validation_cfg {
    const ss_node *node;             /* the section */
    const char *model;               /* conditions.model of the runs it stands for */
    const char *workload;            /* the workload the arrival replaces; NULL: the scenario's only one */
    ss_val_choices transport;        /* conditions.transport -> keys; none given: only the scenario's own */
    ss_val_choices placement;        /* conditions.placement -> keys; none given: placement not matched */
    /* `background_cores: {host: H}`: a run's conditions.background_cores b
     * leaves the pipeline H's cores less b (pipeline.host_cores.H); NULL:
     * background_cores not used */
    const char *background_host;
    const ss_node *background_node;
    /* `host_speed: {host: H, model: PATH}`: each run's host speed, from the
     * model file's host_speed.runs (servesim calibrate, from speed checks that
     * name their runs), sets pipeline.host_time_factor.H; NULL: not used */
    const char *speed_host;
    const ss_node *speed_node, *speed_model;
    /* relative tolerance per regime and metric; NAN: reported, not judged.
     * Defaults (issue 15): throughput and mean latency 0.10 below
     * saturation, 0.15 at saturation, 0.10 closed loop; the rest NAN. */
    double tol[SS_VAL_NREGIMES][SS_VAL_NMETRICS];
    double saturation_gap;           /* a poisson run is saturated if throughput < (1 - gap) rate (0.05) */
    int saturation_highest;          /* ... or it is the highest rate of its group (default 1) */
} ss_validation_cfg;

/* Read the `validation:` entry of a scenario's root map into *v.  0 if
 * absent (v->node NULL), 1 if read, -1 with a positioned error: an unknown
 * key (with "did you mean"), a model that is not a string, a choice whose
 * value is not a map, a tolerance that is not a number > 0, a gap outside
 * [0, 1).  Free with ss_validation_free. */
int ss_validation_read(const ss_node *root, ss_validation_cfg *v, ss_err *err);
void ss_validation_free(ss_validation_cfg *v);

/* The choice for `value` (NULL if c has none). */
const ss_val_choice *ss_val_choice_find(const ss_val_choices *c, const char *value);

#endif
