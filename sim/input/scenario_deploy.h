/* scenario_deploy.h: the `deployment:` and `events:` sections of a
 * scenario (scenario_deploy.c): where instances run, how they serve
 * (discipline, shared queue, compute caps), and the scripted events that
 * add, remove, fail or resize them during a run. */
#ifndef SS_SCENARIO_DEPLOY_H
#define SS_SCENARIO_DEPLOY_H

#include "core/cfg.h"
#include "input/scenario.h"

/* After models and devices. */
int ss_sc_read_deployment(ss_scenario *sc, const ss_node *seq, ss_err *err);
/* After the deployment; seq may be NULL (no events).  `deploy` is the
 * deployment sequence, for positioning whole-model refusals. */
int ss_sc_read_events(ss_scenario *sc, const ss_node *seq, const ss_node *deploy, ss_err *err);
/* A device's compute capacity: cores for a CPU, 1 for a GPU. */
double ss_device_capacity(const ss_device_cfg *d);

#endif
