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

#include "scenario.h"

/* Summary of one task (or of all tasks) over the measured window. */
typedef struct ss_task_result {
    char *name;
    uint64_t arrived, completed, dropped;
    double throughput_rps;
    double latency_mean_s, latency_p50_s, latency_p90_s, latency_p95_s, latency_p99_s, latency_p999_s,
        latency_max_s;
    double queue_mean_s, queue_p99_s;
} ss_task_result;

/* One run-level result beyond the per-task metrics (energy, peak memory,
 * per-block overhead, deadline misses, ...): a CSV column of its own,
 * written on every row of the run.  Subsystems add them with
 * ss_run_result_extra; the column names a world will report are known when
 * it is built (ss_world_extra_columns), so sweeps can declare them. */
typedef struct ss_extra {
    char *col;     /* CSV column name, units in the name (energy_j, vram_peak_mib_gpu0) */
    double value;  /* NaN: not measured in this run (an empty cell) */
} ss_extra;

typedef struct ss_run_result {
    uint32_t replication;
    uint64_t seed;
    ss_task_result *tasks;   /* the tasks some workload aims at, then "all" */
    size_t ntasks;
    double *util;            /* per device of the scenario, over the measured window */
    size_t ndevices;
    double end_s;            /* simulated time of the last event */
    double window_s;         /* measured window: end of warm-up to last completion */
    uint64_t events;         /* events fired */
    double wall_s;           /* wall-clock time of the event loop */
    size_t peak_in_flight;   /* most requests alive at once */
    ss_extra *extras;        /* run-level extra columns, in the order the world declares them */
    size_t nextras;
} ss_run_result;

typedef struct ss_world ss_world;

/* Build the world for replication `rep`.  Plugin errors (not found, wrong
 * ABI or kind, bad parameters) come back positioned at the scenario line
 * that named the policy.  `req_csv`, if not NULL, receives one line per
 * finished or dropped request (header written by ss_world_requests_header).
 * NULL on error, with err set. */
ss_world *ss_world_build(const ss_scenario *sc, uint32_t rep, FILE *req_csv, ss_err *err);
void ss_world_run(ss_world *w);
/* Fill *r (free with ss_run_result_free). */
void ss_world_result(const ss_world *w, ss_run_result *r);
void ss_world_free(ss_world *w);

void ss_run_result_free(ss_run_result *r);
/* Append extra column `col` (copied) with `value` to r. */
void ss_run_result_extra(ss_run_result *r, const char *col, double value);
/* The extra columns w's results will carry, in order: *names points into
 * the world (valid until ss_world_free).  Returns their number. */
size_t ss_world_extra_columns(const ss_world *w, const char *const **names);
void ss_world_requests_header(FILE *fp);

/* Sample every model's state into fp every interval_s of simulated time,
 * from interval_s on, while anything else is still to happen (timeseries.c).
 * Call between ss_world_build and ss_world_run.  Sampling does not change
 * the run's results. */
void ss_world_timeseries(ss_world *w, FILE *fp, double interval_s);
void ss_world_timeseries_header(FILE *fp);

#endif
