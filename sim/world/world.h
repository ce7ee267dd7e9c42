/* world.h: a scenario made runnable - devices, model instances with their
 * queues, workload sources and policy plugins wired to one engine, and the
 * systems the scenario asks for (world.c) - and the results of one run.
 *
 * One world runs one replication: ss_world_build loads and initialises the
 * policies and derives every random stream from (seed, replication, name);
 * ss_world_run drives the engine until the sources are exhausted and every
 * admitted request has finished (the run drains, so no request is cut off);
 * ss_world_result summarises it.  Memory is proportional to requests in
 * flight: requests come from a recycled pool and statistics are streaming.
 * What else a world offers while it runs (time series, timeline, ...) is
 * serve/world.h, included here. */
#ifndef SS_WORLD_WORLD_H
#define SS_WORLD_WORLD_H

#include <stdint.h>
#include <stdio.h>

#include "serve/world.h"

/* Build the world for replication `rep`.  Plugin errors (not found, wrong
 * ABI or kind, bad parameters) come back positioned at the scenario line
 * that named the policy.  `req_csv`, if not NULL, receives one line per
 * finished or dropped request (header written by ss_world_requests_header).
 * NULL on error, with err set. */
ss_world *ss_world_build(const ss_scenario *sc, uint32_t rep, FILE *req_csv, ss_err *err);
void ss_world_run(ss_world *w);
/* The checks of the end of a run (ss_world_run makes them): every request
 * created has finished, been dropped or been lost; no request is left in a
 * queue, in service or on the compute net; every memory ledger is back to
 * zero; no event is left.  NULL if they hold, else what broke (a bug of
 * the simulator, not of the scenario: the run must count as failed). */
const char *ss_world_broken(const ss_world *w);
/* Make the checks again (after ss_world_run). */
const char *ss_world_check(ss_world *w);
/* Fill *r (free with ss_run_result_free). */
void ss_world_result(const ss_world *w, ss_run_result *r);
void ss_world_free(ss_world *w);

#endif
