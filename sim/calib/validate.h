/* validate.h: `servesim validate` (docs/validation.md): every end-to-end
 * run of the profile files (input/hwprofile.h) matched to the one scenario
 * that stands for it (its `validation:` section, input/validation_cfg.h),
 * that scenario run in-process under the run's conditions (every
 * replication, deterministic), and the simulated metrics set beside the
 * measured ones with their relative errors and tolerances.
 *
 * Everything is read, matched, loaded and built (plugins included) before
 * the first event runs, so bad input costs no simulation. */
#ifndef SS_VALIDATE_H
#define SS_VALIDATE_H

#include <stddef.h>

#include "input/hwprofile.h"
#include "input/validation_cfg.h"

/* One run of a profile with its matched scenario, simulated. */
typedef struct ss_val_result {
    const ss_hwprofile *profile;
    const ss_hwp_run *run;
    const char *scenario;                 /* its path */
    ss_val_regime regime;                 /* which tolerances apply */
    int saturated;                        /* poisson runs: recognised as at saturation */
    double measured[SS_VAL_NMETRICS];
    double simulated[SS_VAL_NMETRICS];    /* the mean over the scenario's replications */
    double rel_error[SS_VAL_NMETRICS];    /* (simulated - measured) / measured */
    double tol[SS_VAL_NMETRICS];          /* NAN: reported, not judged */
} ss_val_result;

typedef struct ss_val_session ss_val_session;

/* Read files[0..n-1] (each a profile, recognised by its `servesim_profile`
 * key, or a scenario), with the command-line assignments sets[] applied
 * to every scenario; match every run and load and build its scenario under
 * its conditions.  NULL with a positioned err on bad input: a file that
 * does not read, no profile or no scenario, a profile without runs, a
 * scenario without `validation:`, a run no scenario stands for (at the
 * run), a condition value no scenario can set (at the run), a run two
 * scenarios stand for. */
ss_val_session *ss_val_open(const char *const *files, size_t n, char *const *sets, size_t nsets, ss_err *err);

/* The files read, with what each is ("profile" or "scenario"), for
 * refusing an output over one of them; returns their number. */
size_t ss_val_inputs(const ss_val_session *s, const char *const **paths, const char *const **what);
size_t ss_val_counts(const ss_val_session *s, size_t *nprofiles, size_t *nscenarios);

/* Simulate every run, in the order of the profiles and their runs.
 * 0 with *out set (owned by s), or -1 with err set if the simulator
 * broke its own end-of-run checks (a bug, not bad input). */
int ss_val_run(ss_val_session *s, const ss_val_result **out, size_t *nout, ss_err *err);
void ss_val_close(ss_val_session *s);

/* Runs that repeat one condition (validate_means.c, `--means`): the same
 * scenario and conditions, whatever their background_cores.  r: the first
 * run's result with the group's mean measured and simulated metrics and
 * the error of the means (the first run's tolerances); spread: the measured
 * (largest - smallest) / mean. */
typedef struct ss_val_mean {
    ss_val_result r;
    const ss_val_result *first;
    size_t nruns;
    double spread[SS_VAL_NMETRICS];
} ss_val_mean;

/* The groups of res[0..n-1], in the order of their first run, into *out
 * (the caller frees it); returns their number. */
size_t ss_val_means(const ss_val_result *res, size_t n, ss_val_mean **out);

/* 1 if metric m of r is judged and its error beyond the tolerance. */
int ss_val_failed(const ss_val_result *r, ss_val_metric m);

#endif
