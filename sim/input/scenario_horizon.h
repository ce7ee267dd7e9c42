/* scenario_horizon.h: a scenario's horizon in one number (`run --duration`,
 * scenario_horizon.c; docs/running.md "A longer or shorter run").  The run's
 * duration_s and every workload's length move together, on the tree before
 * the readers look at it:
 *
 *   - duration_s becomes the horizon (its value positioned at "--duration");
 *   - a synthetic shape is drawn for the whole horizon: length_s = horizon -
 *     start_s - lead_s (a longer draw of the same process: median, peak and
 *     correlation kept, not a slower copy of the old hour);
 *   - a steps schedule is stretched: each until_s moves away from start_s by
 *     (horizon - start_s) / (old duration_s - start_s), so each rate keeps
 *     its share of the run (without a duration_s, the schedule's own end
 *     stands for the old one);
 *   - poisson, deterministic, normal, gamma, interarrival and closed
 *     workloads run until duration_s anyway: nothing to do;
 *   - a trace (a CSV, times_s, Azure Functions minutes, an llm: trace)
 *     cannot stretch: where the horizon grows past its last arrival, the
 *     load is refused at the trace's key (exit 2).
 *
 * Kept as written: warmup_s and warmup_requests, start_s, lead_s, events'
 * at_s, requests:, and every period and window. */
#ifndef SS_SCENARIO_HORIZON_H
#define SS_SCENARIO_HORIZON_H

#include "core/cfg.h"
#include "input/scenario.h"

/* The file name of the positions of the values --duration writes. */
#define SS_HORIZON_FILE "--duration"

/* Before the readers: edit doc (the variant and every assignment applied)
 * for a horizon of horizon_s seconds (> 0).  *old_s gets the duration_s it
 * replaced (INFINITY if none).  0, or -1 with a positioned error (a shape
 * that would start after the horizon). */
int ss_sc_horizon_edit(ss_doc *doc, double horizon_s, double *old_s, ss_err *err);

/* After the readers: refuse a trace that ends before the horizon where the
 * horizon grew past it (horizon_s > old_s): positioned at the trace's key in
 * doc, the tree sc was read from.  0 or -1. */
int ss_sc_horizon_check(const ss_scenario *sc, const ss_doc *doc, double horizon_s, double old_s, ss_err *err);

#endif
