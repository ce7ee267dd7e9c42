/* fit.c: the fits of calibration (fit.h): an affine law by ordinary least
 * squares with Student-t confidence intervals on both parameters, and
 * maximum-likelihood fits of a positive sample to the normal, lognormal and
 * gamma families, the empirical candidate, Kolmogorov-Smirnov distances and
 * the rule that picks one.
 *
 * Normal and lognormal have closed-form MLEs (the mean and the 1/n standard
 * deviation, of x or of log x).  The gamma shape solves
 *   log k - psi(k) = log(mean x) - mean(log x) = s  (> 0 by Jensen)
 * by Newton's method from Minka's closed-form start
 *   k0 = (3 - s + sqrt((s - 3)^2 + 24 s)) / (12 s),
 * on which it converges in a few steps (the function is convex and
 * decreasing in k); the scale is then mean / k. */
#include "core/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A sorted copy of x[0..n-1] (malloc'd). */
static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) abort();
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

/* ---- affine laws ---------------------------------------------------------- */

static size_t distinct(const double *x, size_t n)
{
    if (n == 0) return 0;
    double *s = sorted_copy(x, n);
    size_t k = 1;
    for (size_t i = 1; i < n; i++) k += s[i] != s[i - 1];
    free(s);
    return k;
}

/* An affine fit's fields from its coefficients, their covariances (already
 * in y's variance) and the residual and total sums of squares; intervals
 * with t(0.975, n - 2). */
static void put_fit(ss_affine_fit *f, size_t n, double c0, double c1, double cov00, double cov01, double cov11,
                    double ssr, double sst)
{
    f->intercept = c0;
    f->slope = c1;
    f->intercept_se = sqrt(cov00);
    f->slope_se = sqrt(cov11);
    f->cov = cov01;
    f->t975 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 2));
    f->intercept_ci95 = f->t975 * f->intercept_se;
    f->slope_ci95 = f->t975 * f->slope_se;
    f->rse = sqrt(ssr / (double)(n - 2));
    f->r2 = sst > 0 ? 1 - ssr / sst : 1;
}

int ss_fit_affine(const double *x, const double *y, size_t n, ss_affine_fit *f)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->ndistinct_x = distinct(x, n);
    if (n < 3 || f->ndistinct_x < 2) return -1;
    double c0, c1, cov00, cov01, cov11, ssr;
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &ssr);
    double mean_y = 0, sst = 0;
    for (size_t i = 0; i < n; i++) mean_y += y[i];
    mean_y /= (double)n;
    for (size_t i = 0; i < n; i++) sst += (y[i] - mean_y) * (y[i] - mean_y);
    /* gsl_fit_linear's covariances already carry the residual variance ssr / (n - 2). */
    put_fit(f, n, c0, c1, cov00, cov01, cov11, ssr, sst);
    return 0;
}

int ss_fit_affine_weighted(const double *x, const double *y, const double *w, size_t n, ss_affine_fit *f)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->ndistinct_x = distinct(x, n);
    if (n < 3 || f->ndistinct_x < 2) return -1;
    double c0, c1, cov00, cov01, cov11, chisq;
    gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
    /* gsl_fit_wlinear's covariances take the weights as 1 / variance exactly: scale by chi2 / (n - 2) */
    double scale = chisq / (double)(n - 2);
    double mean_y = 0, sst = 0, ssr = 0;
    for (size_t i = 0; i < n; i++) mean_y += y[i];
    mean_y /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (c0 + c1 * x[i]);
        sst += (y[i] - mean_y) * (y[i] - mean_y);
        ssr += r * r;
    }
    put_fit(f, n, c0, c1, cov00 * scale, cov01 * scale, cov11 * scale, ssr, sst);
    return 0;
}

int ss_fit_affine_points(const double *x, const double *y, const double *w, size_t n, int absolute,
                         ss_affine_fit *f)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->ndistinct_x = distinct(x, n);
    if (f->ndistinct_x < 2) return -1;
    if (n == 2) {
        f->slope = (y[1] - y[0]) / (x[1] - x[0]);
        f->intercept = y[0] - f->slope * x[0];
        f->intercept_se = f->slope_se = f->intercept_ci95 = f->slope_ci95 = f->t975 = NAN;
        f->rse = 0;
        f->r2 = 1;
        return 0;
    }
    double *ones = NULL;
    if (!w) {
        ones = malloc(n * sizeof *ones);
        if (!ones) abort();
        for (size_t i = 0; i < n; i++) ones[i] = 1;
        w = ones;
    }
    double c0, c1, cov00, cov01, cov11, chisq;
    gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
    double sw = 0, mean_y = 0, sst = 0;
    for (size_t i = 0; i < n; i++) {
        sw += w[i];
        mean_y += w[i] * y[i];
    }
    mean_y /= sw;
    for (size_t i = 0; i < n; i++) sst += w[i] * (y[i] - mean_y) * (y[i] - mean_y);
    free(ones);
    double scale = absolute ? 1 : chisq / (double)(n - 2);
    f->intercept = c0;
    f->slope = c1;
    f->intercept_se = sqrt(cov00 * scale);
    f->slope_se = sqrt(cov11 * scale);
    f->t975 = absolute ? 1.959963985 : gsl_cdf_tdist_Pinv(0.975, (double)(n - 2));
    f->intercept_ci95 = f->t975 * f->intercept_se;
    f->slope_ci95 = f->t975 * f->slope_se;
    f->rse = sqrt(chisq / (double)(n - 2));
    f->r2 = sst > 0 ? 1 - chisq / sst : 1;
    return 0;
}

/* ---- distributions ---------------------------------------------------------- */

static const char *const family_names[SS_FIT_NFAMILIES] = {"normal", "lognormal", "gamma", "empirical"};

const char *ss_fit_family_name(ss_fit_family f)
{
    return f < SS_FIT_NFAMILIES ? family_names[f] : "?";
}

double ss_ks_pvalue(double d, size_t n)
{
    double rn = sqrt((double)n), lambda = (rn + 0.12 + 0.11 / rn) * d;
    if (lambda < 0.2) return 1; /* the series converges slowly there; Q is 1 to 1e-12 */
    double q = 0, sign = 1;
    for (int j = 1; j <= 100; j++) {
        double term = sign * 2 * exp(-2 * (double)j * (double)j * lambda * lambda);
        q += term;
        if (fabs(term) < 1e-16) break;
        sign = -sign;
    }
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

static double cdf(ss_fit_family fam, const ss_dist_fit *f, double x)
{
    switch (fam) {
    case SS_FIT_NORMAL: return gsl_cdf_gaussian_P(x - f->p1, f->p2);
    case SS_FIT_LOGNORMAL: return gsl_cdf_lognormal_P(x, f->p1, f->p2);
    case SS_FIT_GAMMA: return gsl_cdf_gamma_P(x, f->p1, f->p2);
    default: return 0;
    }
}

/* sup |F_n - F| over the sorted sample; NAN where the CDF gives no
 * probability. */
static double ks_distance(ss_fit_family fam, const ss_dist_fit *f, const double *sorted, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n && !isnan(d); i++) {
        double F = cdf(fam, f, sorted[i]);
        if (!(F >= 0 && F <= 1)) d = NAN;
        double lo = F - (double)i / (double)n, hi = (double)(i + 1) / (double)n - F;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    return d;
}

/* The gamma shape's MLE: the root of log k - psi(k) - s. */
static double gamma_shape(double s, int *iterations)
{
    double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
    int it = 0;
    for (; it < 100; it++) {
        double g = log(k) - gsl_sf_psi(k) - s, dg = 1 / k - gsl_sf_psi_1(k);
        double next = k - g / dg;
        if (!(next > 0)) next = k / 2; /* never leave the domain */
        double step = fabs(next - k);
        k = next;
        if (step <= 1e-13 * k) break;
    }
    *iterations = it + 1;
    return k;
}

static int fit_dists(const double *x, size_t n, ss_dist_fits *out);

/* GSL's default error handler aborts the process.  A nearly constant sample
 * gives a gamma shape in the millions, where the trigamma function underflows
 * and the gamma CDF's large-x asymptotic fails (found by fuzz_profile); so
 * the handler is off while the fits run, and a family whose numbers come out
 * unusable is not evaluated (KS distance NAN, p 0) and never chosen. */
int ss_fit_dists(const double *x, size_t n, ss_dist_fits *out)
{
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = fit_dists(x, n, out);
    gsl_set_error_handler(old);
    return rc;
}

static int fit_dists(const double *x, size_t n, ss_dist_fits *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n < 3) return -1;
    double sum = 0, sum_log = 0, min = x[0], max = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        sum_log += log(x[i]);
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
    }
    if (!(max > min)) return -1;
    double dn = (double)n, mean = sum / dn, mean_log = sum_log / dn, var = 0, var_log = 0;
    for (size_t i = 0; i < n; i++) {
        var += (x[i] - mean) * (x[i] - mean);
        var_log += (log(x[i]) - mean_log) * (log(x[i]) - mean_log);
    }
    var /= dn;
    var_log /= dn;

    ss_dist_fit *nf = &out->fit[SS_FIT_NORMAL];
    nf->p1 = mean;
    nf->p2 = sqrt(var);
    nf->mean = mean;
    nf->sd = nf->p2;
    nf->loglik = -dn / 2 * (log(2 * M_PI * var) + 1);

    ss_dist_fit *lf = &out->fit[SS_FIT_LOGNORMAL];
    lf->p1 = mean_log;
    lf->p2 = sqrt(var_log);
    lf->mean = exp(mean_log + var_log / 2);
    lf->sd = lf->mean * sqrt(expm1(var_log));
    lf->loglik = -sum_log - dn / 2 * (log(2 * M_PI * var_log) + 1);

    ss_dist_fit *gf = &out->fit[SS_FIT_GAMMA];
    double s = log(mean) - mean_log;
    gf->p1 = gamma_shape(s, &gf->iterations);
    gf->p2 = mean / gf->p1;
    gf->mean = mean;
    gf->sd = sqrt(gf->p1) * gf->p2;
    gf->loglik = (gf->p1 - 1) * sum_log - sum / gf->p2 - dn * (gf->p1 * log(gf->p2) + gsl_sf_lngamma(gf->p1));

    ss_dist_fit *ef = &out->fit[SS_FIT_EMPIRICAL];
    ef->mean = mean;
    ef->sd = sqrt(var);
    ef->loglik = ef->aic = NAN;
    ef->ks_d = 0;
    ef->ks_p = 1;

    double *sorted = sorted_copy(x, n);
    ss_fit_family best = SS_FIT_NORMAL;
    for (int f = SS_FIT_NORMAL; f <= SS_FIT_GAMMA; f++) {
        ss_dist_fit *c = &out->fit[f];
        c->aic = 2 * 2 - 2 * c->loglik;
        c->ks_d = !isnan(c->p1) && c->p2 > 0 && isfinite(c->aic) ? ks_distance((ss_fit_family)f, c, sorted, n) : NAN;
        c->ks_p = !isnan(c->ks_d) ? ss_ks_pvalue(c->ks_d, n) : 0; /* not evaluated: never the best */
        if (!isnan(c->ks_d) && c->aic < out->fit[best].aic) best = (ss_fit_family)f;
    }
    free(sorted);
    out->best = out->fit[best].ks_p >= SS_FIT_KS_P_MIN ? best : SS_FIT_EMPIRICAL;
    return 0;
}
