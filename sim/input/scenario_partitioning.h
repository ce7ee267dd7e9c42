/* scenario_partitioning.h: the `partitioning:` section of a scenario
 * (scenario_partitioning.c, docs/partitioning.md). */
#ifndef SS_SCENARIO_PARTITIONING_H
#define SS_SCENARIO_PARTITIONING_H

#include "core/cfg.h"
#include "input/scenario.h"

/* After `placement:` and `events:`; sc->partitioning stays NULL when the
 * section is absent. */
int ss_sc_read_partitioning(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_partitioning_cfg_free(ss_partitioning_cfg *p, size_t nmodels);

#endif
