/* trace_synth.h: arrival-rate shapes as Poisson steps (trace_synth.c): a
 * synthetic shape with a given median and peak-to-median ratio, and the
 * Azure Functions 2019 per-minute invocation counts. */
#ifndef SS_TRACE_SYNTH_H
#define SS_TRACE_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "core/cfg.h"
#include "core/util.h"
#include "input/scenario.h"

typedef struct ss_synth {
    double median_rps, peak_to_median; /* of the shape before `scale` */
    double length_s, step_s, correlation_s, scale;
    double lead_s; /* before the shape, one step this long at its first step's rate (0: none) */
} ss_synth;

/* A synthetic shape from start_s (the stream is (seed, 0,
 * "workload/<name>/shape"): the same in every replication), normalised
 * but not held: its steps are drawn again, one after another, whenever
 * they are read, so memory does not grow with length_s.  Normalising takes
 * three passes over the draws (the extremes, a histogram, the median's
 * bin): exact, in fixed memory. */
typedef struct ss_synth_shape ss_synth_shape;
ss_synth_shape *ss_synth_shape_new(const ss_synth *p, uint64_t seed, const char *name, double start_s,
                                   size_t *nsteps);
void ss_synth_shape_free(ss_synth_shape *s);

/* The steps of a workload (`steps`, `synthetic`, `azure_functions`) in
 * order, whether held or generated. */
typedef struct ss_step_iter {
    const ss_workload_cfg *w;
    size_t i;
    void *gen; /* a synthetic shape's generator */
} ss_step_iter;
void ss_steps_begin(ss_step_iter *it, const ss_workload_cfg *w);
/* The next step into *out: 1, or 0 after the last. */
int ss_steps_next(ss_step_iter *it, ss_rate_step *out);
void ss_steps_end(ss_step_iter *it);
/* One step per minute from an Azure Functions 2019 per-minute file (minutes
 * 0: to the end); 0, or -1 with err set: positioned in the file, or at the
 * key of `wl` (the workload map) whose value does not fit the file. */
int ss_azure_fn_steps(const char *path, const ss_node *wl, const char *function, long from_minute, long minutes,
                      double scale, double start_s, ss_rate_step **steps, size_t *nsteps, ss_err *err);

#endif
