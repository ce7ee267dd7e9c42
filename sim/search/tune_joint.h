/* tune_joint.h: the joint solver of `servesim tune --per-model --joint`
 * (tune_joint.c): every model's threshold at once, for models whose
 * replica-seconds depend on each other's thresholds. */
#ifndef SS_TUNE_JOINT_H
#define SS_TUNE_JOINT_H

#include <stddef.h>

#include "core/util.h"

typedef struct ss_tune_problem {
    size_t n;                 /* models tuned */
    char *const *names;       /* their names, for the output */
    const char *key;          /* the parameter, for the output */
    const double *ref_s;      /* the reference's replica-seconds per model (> 0) */
    double lo, hi;            /* every value within [lo, hi]; in logs when lo > 0 */
    const double *lo_m, *hi_m; /* or, where not NULL, model i's own [lo_m[i], hi_m[i]] (in logs: every
                                  bound > 0, as the caller checks) */
    const double *start;      /* each model's first value; NAN: the middle of [lo, hi] */
    double tol;               /* relative, per model */
    int max_runs;             /* runs of the variant, Jacobian columns included */
    int quiet;                /* print nothing but the MODEL=value lines */
    /* One run of every replication with these values (n of them): each
     * model's mean replica-seconds into rs_s; -1 with err set on bad input. */
    int (*eval)(void *ctx, const double *value, double *rs_s, ss_err *err);
    void *ctx;
} ss_tune_problem;

/* Solve; the values into value (n).  0 found (every model within the
 * tolerance in one run; MODEL=value lines printed), 1 not within max_runs
 * (the closest run said on stderr; value holds it), 2 bad input (err). */
int ss_tune_joint(const ss_tune_problem *p, double *value, ss_err *err);

#endif
