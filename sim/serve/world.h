/* world.h: a scenario made runnable - devices, model instances with their
 * queues, workload sources and policy plugins wired to one engine - and the
 * results of one run.
 *
 * One world runs one replication: ss_world_build loads and initialises the
 * policies and derives every random stream from (seed, replication, name);
 * ss_world_run drives the engine until the sources are exhausted and every
 * admitted request has finished (the run drains, so no request is cut off);
 * ss_world_result summarises it.  Memory is proportional to requests in
 * flight: requests come from a recycled pool and statistics are streaming. */
#ifndef SS_WORLD_H
#define SS_WORLD_H

#include <stdint.h>
#include <stdio.h>

#include "input/scenario.h"

#include "serve/result.h"

typedef struct ss_world ss_world;

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

/* The extra columns w's results will carry, in order: *names points into
 * the world (valid until ss_world_free).  Returns their number. */
size_t ss_world_extra_columns(const ss_world *w, const char *const **names);
void ss_world_requests_header(FILE *fp);

/* Sample every model's state into fp every interval_s of simulated time,
 * from interval_s on, while anything else is still to happen (timeseries.c).
 * Call between ss_world_build and ss_world_run.  Sampling does not change
 * the run's results. */
void ss_world_timeseries(ss_world *w, FILE *fp, double interval_s, int control);
/* control: add the columns of `dispatch:`/`control:` scenarios (cores,
 * rt_mean_s); the runs that share the file must all be given the same. */
void ss_world_timeseries_header(FILE *fp, int control);

/* One row per cold start into fp (coldstart.c), for a scenario with
 * `placement:`; call between ss_world_build and ss_world_run. */
void ss_world_coldstarts(ss_world *w, FILE *fp);
void ss_world_coldstarts_header(FILE *fp);

/* A progress line on fp (a terminal) while w runs (progress.c); call
 * between ss_world_build and ss_world_run, and ss_world_progress_end after
 * the run, before freeing w.  Changes no result. */
void *ss_world_progress(ss_world *w, FILE *fp, const char *label);
void ss_world_progress_end(void *progress);

/* A timeline of the run as Chrome trace events (timeline.c): sampled
 * requests (created in [from_s, to_s], id a multiple of every) with their
 * queue and service slices, services per device, instance life-cycle and
 * capacity changes, at most max_events events.  Call between
 * ss_world_build and ss_world_run, with the file begun by
 * ss_timeline_begin; pids first_pid.. are this world's; returns the next
 * free pid.  After every world, ss_timeline_end closes the file. */
typedef struct ss_timeline_opts {
    double from_s, to_s;
    uint64_t every;
    uint64_t max_events;
} ss_timeline_opts;
void ss_timeline_begin(FILE *fp);
void ss_timeline_end(FILE *fp);
uint32_t ss_world_timeline(ss_world *w, FILE *fp, const ss_timeline_opts *o, uint32_t first_pid);

#endif
