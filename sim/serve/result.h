/* result.h: the results of one run (one replication): a row per task and
 * the overall row, per-device utilisation, run-level extra columns, and
 * the run's own statistics.  Filled by the substrate and the systems
 * (world/world.c calls each), read by the report and sweeps (sim/cmd/). */
#ifndef SS_RESULT_H
#define SS_RESULT_H

#include <stddef.h>
#include <stdint.h>

/* Summary of one task (or of all tasks) over the measured window. */
typedef struct ss_task_result {
    char *name;
    uint64_t arrived, completed, dropped;
    double throughput_rps;
    double latency_mean_s, latency_p50_s, latency_p90_s, latency_p95_s, latency_p99_s, latency_p999_s,
        latency_max_s;
    double queue_mean_s, queue_p99_s;
    double wait_prob;        /* share of the completed requests that waited in a queue at all */
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
    double util_mean;        /* the mean of util over the devices that held an instance (0 if none) */
    double end_s;            /* simulated time of the last event */
    double window_s;         /* measured window: end of warm-up to last completion */
    double window_throughput_rps; /* completions of any request inside [end of warm-up, end of
                              * arrivals) over that span: a load generator's count (the probe's,
                              * tools/probe/load.py); the tasks' throughput_rps count the requests
                              * made in the window, to their last completion.  Edge jobs and
                              * ensemble requests count as requests.  The window ends at
                              * duration_s: 0 when that is unbounded (a run ended by requests:
                              * alone), and diluted when requests: stops arrivals earlier */
    uint64_t events;         /* events fired */
    double wall_s;           /* wall-clock time of the event loop */
    size_t peak_in_flight;   /* most requests alive at once */
    ss_extra *extras;        /* run-level extra columns, in the order the world declares them */
    size_t nextras;
} ss_run_result;

void ss_run_result_free(ss_run_result *r);
/* Append extra column `col` (copied) with `value` to r. */
void ss_run_result_extra(ss_run_result *r, const char *col, double value);

#endif
