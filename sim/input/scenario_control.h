/* scenario_control.h: the `dispatch:` and `control:` sections of a
 * scenario (scenario_control.c, docs/control.md). */
#ifndef SS_SCENARIO_CONTROL_H
#define SS_SCENARIO_CONTROL_H

#include "core/cfg.h"
#include "input/scenario.h"

/* After the deployment; sc->control stays NULL when neither section is
 * given and no device is time-shared. */
int ss_sc_read_control(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_control_cfg_free(ss_control_cfg *c);
/* A controlled container: a ps instance on a CPU device with a cap, pulling
 * from its model's shared queue (deployment entry d). */
int ss_sc_is_container(const ss_scenario *sc, size_t d);

#endif
