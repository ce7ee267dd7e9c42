/* scenario_autoscale.h: the `autoscaling:` section of a scenario
 * (scenario_autoscale.c, docs/autoscaling.md). */
#ifndef SS_SCENARIO_AUTOSCALE_H
#define SS_SCENARIO_AUTOSCALE_H

#include "core/cfg.h"
#include "input/scenario.h"

/* After the deployment; sc->autoscale stays NULL when the section is absent. */
int ss_sc_read_autoscaling(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_autoscale_cfg_free(ss_autoscale_cfg *a);

#endif
