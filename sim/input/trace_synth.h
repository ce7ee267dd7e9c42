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
} ss_synth;

/* The steps of a synthetic shape from start_s (the stream is (seed, 0,
 * "workload/<name>/shape"): the same in every replication). */
void ss_synth_steps(const ss_synth *p, uint64_t seed, const char *name, double start_s, ss_rate_step **steps,
                    size_t *nsteps);
/* One step per minute from an Azure Functions 2019 per-minute file (minutes
 * 0: to the end); 0, or -1 with err set: positioned in the file, or at the
 * key of `wl` (the workload map) whose value does not fit the file. */
int ss_azure_fn_steps(const char *path, const ss_node *wl, const char *function, long from_minute, long minutes,
                      double scale, double start_s, ss_rate_step **steps, size_t *nsteps, ss_err *err);

#endif
