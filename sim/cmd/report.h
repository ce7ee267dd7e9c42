/* report.h: run results -> the results CSV, the replication summary CSV and
 * the table the CLI prints.
 *
 * Results CSV: one row per (variant, replication, model), plus a row
 * "all" per run; columns: scenario, variant, replication, seed, one column
 * per setting that shaped the run (--set keys, variant keys), then the
 * metrics (times in ms), util_<device> per device, then the run-level
 * extra columns its subsystems report (ss_extra: energy, peak memory...).  Numbers are printed
 * with fixed formats, so one scenario and seed give byte-identical files.
 * With replications > 1 a second file, <csv stem>.summary.csv, holds per
 * (variant, model) the mean of each metric over replications and its 95%
 * confidence half-width (Student t). */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include <stdio.h>

#include "world/world.h"

typedef struct ss_report ss_report;

ss_report *ss_report_new(void);
/* Record one run of scenario sc; the report takes over r's contents. */
void ss_report_add(ss_report *rep, const ss_scenario *sc, ss_run_result *r);
/* Write the rows (header first) to fp. */
void ss_report_csv(const ss_report *rep, FILE *fp);
/* Make the columns of scenario sc known before any run is added, so that
 * reports of different runs declared with the same scenarios in the same
 * order share one header (sweeps append rows run by run). */
void ss_report_declare(ss_report *rep, const ss_scenario *sc);
/* Declare extra columns (ss_extra; from ss_world_extra_columns) so that
 * runs of a sweep share one header; runs also declare theirs when added. */
void ss_report_declare_extras(ss_report *rep, const char *const *cols, size_t n);
/* An empty report with the columns of `layout` (and no runs). */
ss_report *ss_report_new_like(const ss_report *layout);
/* The header line alone, and the rows alone. */
void ss_report_csv_header(const ss_report *rep, FILE *fp);
void ss_report_csv_rows(const ss_report *rep, FILE *fp);
/* Write the replication summary; returns 0 if there is nothing to summarise
 * (every point ran once), 1 if written. */
int ss_report_summary_csv(const ss_report *rep, FILE *fp);
/* The table for a person (cmd/table.h): per (variant, task), completed,
 * dropped and throughput, the latencies (ms, or s in a column whose largest
 * mean reaches 1 s), with an autoscaler cold starts, replicas and
 * replica-seconds, with LLM engines TTFT and TPOT, and the devices' mean
 * utilisation; means over replications with their 95% half-widths, and
 * notes on what the signs and columns mean (replications that replay the
 * same arrivals among them). */
void ss_report_print(const ss_report *rep, FILE *fp);
/* A warning line per variant whose completions by the end of arrivals fall
 * more than 5% short of the requests made after the warm-up (unstable or
 * overloaded), for stderr after the table; none where the run is not
 * bounded by duration_s, nor for an llm: scenario (its world does not count). */
void ss_report_warn(const ss_report *rep, FILE *fp);
void ss_report_free(ss_report *rep);

#endif
