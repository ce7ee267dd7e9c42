/* scenario_load.h: reading a scenario (scenario_load.c): the YAML file,
 * one variant's settings, sweep assignments and --set overrides, into the
 * structs of scenario.h, or one file:line:col message.  Reading never
 * touches the engine. */
#ifndef SS_SCENARIO_LOAD_H
#define SS_SCENARIO_LOAD_H

#include <stddef.h>

#include "core/cfg.h"
#include "input/scenario.h"

/* Names of the variants a scenario declares (`variants:`), in order, in a
 * NULL-terminated array (*n of them; NULL if none).  *names is newly
 * allocated (free each, then the array). */
int ss_scenario_variants(const char *path, char ***names, size_t *n, ss_err *err);

/* Read and validate `path`, applying the variant named `variant` (NULL for
 * none) and then the command-line assignments sets[0..nsets-1] (so the
 * command line wins).  0 ok; -1 with err set to one file:line:col message. */
int ss_scenario_load(ss_scenario *sc, const char *path, const char *variant,
                     char *const *sets, size_t nsets, ss_err *err);
/* One assignment whose value is a node of another document (a sweep
 * file's axis value): `key` is the dotted path, and path errors are
 * positioned at (file, line, col). */
typedef struct ss_assign {
    const char *key;
    const ss_node *value;
    const char *file;
    int line, col;
} ss_assign;

/* ss_scenario_load with `assigns` applied after the variant and before the
 * command-line sets; each becomes a setting (a CSV column) whose value is
 * the node written as YAML flow text. */
int ss_scenario_load_with(ss_scenario *sc, const char *path, const char *variant, const ss_assign *assigns,
                          size_t nassigns, char *const *sets, size_t nsets, ss_err *err);
/* ss_scenario_load_with, then a horizon of horizon_s seconds (> 0; 0: as
 * written) over everything else: the run's duration_s and every workload's
 * length with it (`--duration`, scenario_horizon.h), a setting duration_s;
 * a trace that cannot reach it refused at its key. */
int ss_scenario_load_horizon(ss_scenario *sc, const char *path, const char *variant, const ss_assign *assigns,
                             size_t nassigns, char *const *sets, size_t nsets, double horizon_s, ss_err *err);
void ss_scenario_free(ss_scenario *sc);

#endif
