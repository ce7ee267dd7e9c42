/* scenario_placement.h: the `placement:` section of a scenario
 * (scenario_placement.c, docs/coldstart.md). */
#ifndef SS_SCENARIO_PLACEMENT_H
#define SS_SCENARIO_PLACEMENT_H

#include "core/cfg.h"
#include "input/scenario.h"

/* After the deployment and `autoscaling:`; sc->placement stays NULL when
 * the section is absent. */
int ss_sc_read_placement(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_placement_cfg_free(ss_placement_cfg *p);

#endif
