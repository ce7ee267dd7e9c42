/* dist.h: probability distributions for inter-arrival and service times.
 *
 * Written in scenarios and profiles as a map, or as a bare number meaning
 * deterministic:
 *   {dist: deterministic, value_s: 0.01}          (mean_s also accepted)
 *   {dist: exponential, mean_s: 0.01} or {dist: exponential, rate: 100}   (rate per second)
 *   {dist: normal, mean_s: 0.01, sd_s: 0.002}     truncated at 0 by rejection
 *   {dist: lognormal, mean_s: 0.01, sd_s: 0.004}  parameters of the variable, not of its log
 *   {dist: gamma, mean_s: 0.01, cv: 2}            or shape: k (scale = mean/k)
 *   {dist: uniform, min_s: 0.005, max_s: 0.015}
 *   {dist: empirical, samples_s: [0.010, 0.012, ...]}  resampled uniformly (bootstrap)
 * All values are seconds and must be finite; means > 0 unless deterministic
 * (>= 0).  docs/scenarios.md documents the same table. */
#ifndef SS_DIST_H
#define SS_DIST_H

#include <stddef.h>
#include <gsl/gsl_rng.h>
#include "core/cfg.h"
#include "core/zigexp.h"

typedef enum ss_dist_kind {
    SS_DIST_DETERMINISTIC,
    SS_DIST_EXPONENTIAL,
    SS_DIST_NORMAL,
    SS_DIST_LOGNORMAL,
    SS_DIST_GAMMA,
    SS_DIST_UNIFORM,
    SS_DIST_EMPIRICAL
} ss_dist_kind;

typedef struct ss_dist {
    ss_dist_kind kind;
    double p1, p2;    /* kind-specific: value; mean; (mu, sd); (mu_log, sigma_log); (shape, scale); (min, max) */
    double *samples;  /* empirical only, owned */
    size_t nsamples;
} ss_dist;

/* Read a distribution from node `n` (a map as above, or a number).  `what`
 * names it in messages ("service", "interarrival").  0 ok, -1 error. */
int ss_dist_read(const ss_node *n, const char *what, ss_dist *out, ss_err *err);

/* Deterministic / exponential with the given mean (for shorthands such as rate_rps). */
void ss_dist_deterministic(ss_dist *d, double value_s);
void ss_dist_exponential(ss_dist *d, double mean_s);

/* One draw (>= 0).  Inline for the kinds on the hot path of the shipped
 * benchmarks and of M/M/c models (exponential, deterministic); the other
 * kinds go to ss_dist_sample_other (dist.c). */
double ss_dist_sample_other(const ss_dist *d, gsl_rng *r);

static inline double ss_dist_sample(const ss_dist *d, gsl_rng *r)
{
    if (d->kind == SS_DIST_EXPONENTIAL) return d->p1 * ss_ran_exp1(r); /* ziggurat: no log per draw */
    if (d->kind == SS_DIST_DETERMINISTIC) return d->p1;
    return ss_dist_sample_other(d, r);
}
/* Exact mean and squared coefficient of variation of what ss_dist_sample
 * draws (truncation included), for analytical checks and expected_s. */
double ss_dist_mean(const ss_dist *d);
double ss_dist_scv(const ss_dist *d);
/* Name of the kind ("exponential", ...). */
const char *ss_dist_name(ss_dist_kind k);
void ss_dist_free(ss_dist *d);

#endif
