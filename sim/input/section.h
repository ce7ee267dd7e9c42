/* section.h: helpers that every reader of a scenario section shares
 * (section.c): names and references, device references, model profiles,
 * policy choices.  Included by scenario.c and the section readers
 * (scenario_workload.c, pipeline_cfg.c, edge_cfg.c); it includes only the
 * scenario's types, so the schema has no include circle. */
#ifndef SS_SECTION_H
#define SS_SECTION_H

#include "core/cfg.h"
#include "input/scenario.h"

#define TRY(x)                     \
    do {                           \
        if ((x) < 0) return -1;    \
    } while (0)

/* Required non-empty string naming something ("name" keys, references). */
int ss_sc_read_name(const ss_node *map, const char *key, char **out, ss_err *err);
/* The task names, NULL-terminated (free the array, not the names). */
char **ss_sc_task_names(const ss_scenario *sc);
/* "unknown <what> 'x' (did you mean 'y'?)" at n; frees names; returns -1. */
int ss_sc_unknown_ref(const ss_node *n, const char *what, char **names, ss_err *err);
/* The model n->value names: its index in *out, or "unknown model 'x' (did
 * you mean 'y'?)" at n and -1. */
int ss_sc_model_ref(const ss_scenario *sc, const ss_node *n, uint32_t *out, ss_err *err);
/* `models: [name, ...]` in map `sec`: flags[m] = 1 for each model named,
 * after `ok` (NULL: any model) accepted it or said why not at the item.
 * 1 if the list is there, 0 if it is not (flags untouched), -1 on error. */
typedef int (*ss_model_ok)(const ss_scenario *sc, uint32_t m, const ss_node *at, ss_err *err);
int ss_sc_read_model_list(const ss_scenario *sc, const ss_node *sec, uint8_t *flags, ss_model_ok ok, ss_err *err);
/* A device reference ("host/device" or a unique device name) with a
 * positioned error.  By the indices ss_sc_index_device keeps. */
int ss_scenario_device(const ss_scenario *sc, const ss_node *n, uint32_t *out, ss_err *err);
/* Device i, its name set, into sc->device_names and sc->device_short: 0,
 * or -1 if a device has its full name already (it is left out). */
#define SS_SC_AMBIGUOUS (SS_NAMEIDX_NONE - 1) /* device_short: several devices have this name */
int ss_sc_index_device(ss_scenario *sc, uint32_t i);
/* models/<name>.json in the scenario's folder or any folder above it, then
 * $SERVESIM_MODEL_PATH, then the install folder; NULL if none. */
char *ss_scenario_find_profile(const char *scenario_dir, const char *name);
/* A policy choice `key: name` or `key: {name: ..., param: value}` in map
 * `parent` (def if absent).  p->file points into the document until the
 * caller copies it.  0 ok, -1 with err set. */
int ss_policy_cfg_read(ss_policy_cfg *p, const ss_node *parent, const char *key, const char *def, ss_err *err);
void ss_policy_cfg_free(ss_policy_cfg *p);

#endif
