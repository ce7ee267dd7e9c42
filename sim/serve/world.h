/* world.h (the substrate's): what a running world offers those who run it -
 * its extra result columns, the requests CSV's header, time series,
 * progress line and timeline.  Building, running and freeing a world (the
 * substrate with the systems above it) is world/world.h. */
#ifndef SS_WORLD_H
#define SS_WORLD_H

#include <stdint.h>
#include <stdio.h>

#include "input/scenario.h"

#include "serve/result.h"

typedef struct ss_world ss_world;

/* The extra columns w's results will carry, in order: *names points into
 * the world (valid until ss_world_free).  Returns their number. */
size_t ss_world_extra_columns(const ss_world *w, const char *const **names);
/* llm: the scenario has LLM models in `models:` (their columns: prompt and output tokens, TTFT, TPOT,
 * preemptions, cached prompt tokens). */
void ss_world_requests_header(FILE *fp, int llm);

/* Sample every model's state into fp every interval_s of simulated time,
 * from interval_s on, while anything else is still to happen (timeseries.c).
 * Call between ss_world_build and ss_world_run.  Sampling does not change
 * the run's results. */
void ss_world_timeseries(ss_world *w, FILE *fp, double interval_s, int control);
/* control: add the columns of `dispatch:`/`control:` scenarios (cores,
 * rt_mean_s), or SS_TS_LLM those of `llm:` scenarios (kv_cache, one row per
 * engine); the runs that share the file must all be given the same. */
#define SS_TS_CONTROL 1
#define SS_TS_LLM 2
#define SS_TS_LLM_MODELS 4 /* LLM models in `models:`: kv_cache, ttft_mean_s */
void ss_world_timeseries_header(FILE *fp, int control);

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
