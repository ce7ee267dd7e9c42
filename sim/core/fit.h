/* fit.h: statistical fits for calibration (servesim calibrate, docs/profiles.md):
 * ordinary least squares of an affine law with 95% confidence intervals, and
 * maximum-likelihood fits of a positive sample to the normal, lognormal and
 * gamma families plus its empirical distribution, each with a goodness-of-fit
 * statistic, and the rule that picks one.
 *
 * Units are the caller's: x and y (or the sample) come in whatever unit the
 * caller converted them to at its edge, and the parameters come back in it.
 * Nothing here knows a profile or a model file; GSL does the arithmetic. */
#ifndef SS_FIT_H
#define SS_FIT_H

#include <stddef.h>

/* y = intercept + slope x, fitted by ordinary least squares (gsl_fit_linear)
 * over every observation.  The 95% half-widths are t(0.975, n - 2) times
 * the standard errors, so they assume independent errors of one variance. */
typedef struct ss_affine_fit {
    size_t n;                        /* observations */
    size_t ndistinct_x;              /* distinct x values */
    double intercept, slope;
    double intercept_se, slope_se;   /* standard errors */
    double cov;                      /* covariance of intercept and slope (for functions of both) */
    double intercept_ci95, slope_ci95; /* half-widths of the 95% intervals */
    double t975;                     /* the t quantile used, n - 2 degrees of freedom */
    double rse;                      /* residual standard error, sqrt(SSR / (n - 2)) */
    double r2;                       /* 1 - SSR / SST (1 when SST is 0 and the fit exact) */
} ss_affine_fit;

/* Fit x[0..n-1], y[0..n-1].  0 ok; -1 when the law cannot be identified
 * with a residual: n < 3 (no more observations than the two parameters) or
 * fewer than two distinct x.  f->n and f->ndistinct_x are set either way. */
int ss_fit_affine(const double *x, const double *y, size_t n, ss_affine_fit *f);

/* The same law through summary points (published tables: each y a mean),
 * weighted by w[i] (NULL: equal weights).  Exact through two points of
 * distinct x (no interval: se, ci95 and t975 NAN, rse 0, r2 1).  From three
 * points on, weighted least squares (gsl_fit_wlinear): with `absolute`
 * weights (w = n / sd^2, the points' own variances) the covariance is taken
 * as it is and the half-widths are 1.96 standard errors (t975 = 1.96);
 * otherwise the covariance is scaled by the weighted residual variance
 * chi^2 / (n - 2) and the half-widths use t(0.975, n - 2).  0 ok; -1 with
 * fewer than two distinct x. */
int ss_fit_affine_points(const double *x, const double *y, const double *w, size_t n, int absolute,
                         ss_affine_fit *f);
/* The same law by weighted least squares (gsl_fit_wlinear), weights w[i] > 0
 * known up to one factor (e.g. 1 / mean^2 where the noise is a constant
 * fraction of the mean): the covariances are scaled by the weighted residual
 * variance chi2 / (n - 2), so the intervals are t(0.975, n - 2) times those
 * standard errors.  rse and r2 are of the unweighted residuals (in y's unit),
 * to read beside an unweighted fit.  Same refusals as ss_fit_affine. */
int ss_fit_affine_weighted(const double *x, const double *y, const double *w, size_t n, ss_affine_fit *f);

typedef enum ss_fit_family {
    SS_FIT_NORMAL,
    SS_FIT_LOGNORMAL,
    SS_FIT_GAMMA,
    SS_FIT_EMPIRICAL,
    SS_FIT_NFAMILIES
} ss_fit_family;

/* One candidate.  Parameters: normal (mu, sigma); lognormal (mu and sigma
 * of the log); gamma (shape k, scale theta); empirical: none (the sample
 * itself, resampled).  mean and sd are those of the fitted variable.
 * loglik and aic are NAN for the empirical candidate (it has as many
 * parameters as observations); its KS distance is 0 by construction. */
typedef struct ss_dist_fit {
    double p1, p2;
    double mean, sd;
    double loglik, aic;
    double ks_d;       /* Kolmogorov-Smirnov distance, sup |F_n - F| */
    double ks_p;       /* its asymptotic p-value (Kolmogorov); with estimated
                        * parameters it is conservative (Lilliefors) */
    int iterations;    /* Newton steps (gamma), else 0 */
} ss_dist_fit;

typedef struct ss_dist_fits {
    size_t n;
    ss_dist_fit fit[SS_FIT_NFAMILIES];
    ss_fit_family best;
} ss_dist_fits;

/* The rule that picks `best`, in words for the model file and the docs. */
#define SS_FIT_RULE                                                                                    \
    "the parametric family (normal, lognormal, gamma; 2 parameters each) with the lowest AIC, ties in "  \
    "that order, if its Kolmogorov-Smirnov p-value is at least 0.01; otherwise the empirical distribution"
#define SS_FIT_KS_P_MIN 0.01

/* Fit every family to x[0..n-1] (all > 0 and finite) and pick the best.
 * 0 ok; -1 when n < 3 or the sample has no spread (every value equal). */
int ss_fit_dists(const double *x, size_t n, ss_dist_fits *out);

/* "normal", "lognormal", "gamma", "empirical". */
const char *ss_fit_family_name(ss_fit_family f);

/* Kolmogorov's asymptotic tail Q(lambda) at lambda = (sqrt(n) + 0.12 +
 * 0.11 / sqrt(n)) d: the p-value of a KS distance d over n observations. */
double ss_ks_pvalue(double d, size_t n);

#endif
