/* scenario_workload.h: the `workloads:` section of a scenario
 * (scenario_workload.c), read after the tasks it aims at. */
#ifndef SS_SCENARIO_WORKLOAD_H
#define SS_SCENARIO_WORKLOAD_H

#include "core/cfg.h"
#include "input/scenario.h"

int ss_sc_read_workloads(ss_scenario *sc, const ss_node *seq, ss_err *err);

#endif
