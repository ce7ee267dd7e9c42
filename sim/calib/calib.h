/* calib.h: the calibration room's API (calibrate.c, calibrate_model.c):
 * fit the simulator's parameters to profile files of real runs (servesim
 * calibrate; format and output in docs/profiles.md).
 *
 * From the samples of every profile (hwprofile.h), pooled across files:
 *   - compute latency vs batch per (model, piece, device, threads) and a
 *     transport hop's cost vs bytes per transport, memcpy time vs bytes:
 *     affine laws by least squares with 95% intervals (core/fit.h);
 *   - each compute sample's latency distribution by maximum likelihood
 *     (normal, lognormal, gamma, empirical), the best by SS_FIT_RULE.
 * The result is one JSON model file a block-pipeline scenario can name both
 * as its split profile (`split:`, blocks with `service` and `batch_law`) and
 * as its transport profile (`transport: {profile:}`, affine `transports`),
 * with where every number came from: file, sample, line, fit, statistics.
 * End-to-end runs are never fitted. */
#ifndef SS_CALIB_H
#define SS_CALIB_H

#include <stddef.h>

#include "core/util.h"
#include "input/hwprofile.h"

typedef struct ss_calib_opts {
    const char *name;     /* the model file's "name" (a scenario's split: names the file) */
    const char *model;    /* the model whose blocks become "blocks" (NULL: the only one measured) */
    const char *device;   /* the device whose block timings feed "blocks" (NULL: see docs/profiles.md) */
    unsigned threads;     /* likewise the threads (0: the fewest measured) */
    int no_batch_law;     /* a compute piece measured at one batch size gets no law instead of an error */
    /* --at-run-speed: with speed samples of both phases, the compute, transport and memcpy
     * observations are scaled by host_speed's ratio before the fits (calibrate_speed.c) */
    int at_run_speed;
    /* --base: a model file whose fixed parts are kept.  Without --model-profile:
     * a shipped profile's format (architecture, notes, citations) written with
     * the numbers calibrate fits put in it, instead of calibrate's own format
     * (docs/calibration.md, "Published tables").  With --model-profile: a model
     * profile whose unmeasured keys (and service, if no GPU was measured) are kept. */
    const char *base;
    const char *fill_keys[8], *fill_models[8]; /* --fill KEY=MODEL: blocks[].KEY from MODEL's blocks */
    size_t nfill;
    /* --model-profile: write a servesim model profile (models/NAME.json) of the whole model `model` instead */
    int model_profile;
    const char *gpu;      /* the device whose batch-1 samples give "service" (NULL: the only one not "cpu") */
    const char *cpu;      /* the device whose batch-1 samples over threads give the Amdahl law (NULL: "cpu") */
} ss_calib_opts;

/* The model file's text (JSON, deterministic: same inputs and options give
 * the same bytes) in *json (malloc'd) and a short human summary in
 * *summary.  0 ok; -1 with err positioned at the sample concerned: a law
 * with fewer observations than its parameters (one batch size or one
 * message size, or n <= 2), a distribution from fewer than 3 observations
 * or without spread, several models and no choice, a choice not measured. */
int ss_calibrate(ss_hwprofile *const *profs, size_t nprofs, const ss_calib_opts *o, char **json, char **summary,
                 ss_err *err);

/* With o->model_profile: a model profile (the file `models: [{name, profile:}]`
 * reads) of the whole model o->model (NULL: the only one measured whole):
 *   - service: the distribution fitted to its batch-1 samples on the GPU
 *     device (o->gpu), at the fewest threads measured there;
 *   - serial_fraction: Amdahl's law latency(c) = T1 (s + (1 - s)/c) fitted
 *     over its batch-1 samples on o->cpu at c threads, as the affine law
 *     latency = A + B / c by least squares (A = T1 s, B = T1 (1 - s)):
 *     T1 = A + B, s = A / (A + B), 95% intervals by the delta method;
 *   - cpu_service: the distribution fitted to the 1-thread samples, or, with
 *     none, to every sample scaled to one core by the fitted law;
 *   - the other keys (weights_bytes, ...) from o->base, and service too
 *     when no GPU is measured;
 * and a "calibration" record the reader ignores.  Same contract as
 * ss_calibrate; bad input also: fewer than two thread counts, no CPU
 * sample, no GPU sample and no base, T1 <= 0. */
int ss_calibrate_model(ss_hwprofile *const *profs, size_t nprofs, const ss_calib_opts *o, char **json,
                       char **summary, ss_err *err);

#endif
