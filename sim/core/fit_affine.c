/* fit_affine.c: an affine law fitted by ordinary least squares, with Student-t
 * confidence intervals on both parameters (fit.h). */
#include "core/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static size_t distinct(const double *x, size_t n)
{
    if (n == 0) return 0;
    double *s = malloc(n * sizeof *s);
    if (!s) abort();
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    size_t k = 1;
    for (size_t i = 1; i < n; i++) k += s[i] != s[i - 1];
    free(s);
    return k;
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
    f->intercept = c0;
    f->slope = c1;
    f->intercept_se = sqrt(cov00);
    f->slope_se = sqrt(cov11);
    f->t975 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 2));
    f->intercept_ci95 = f->t975 * f->intercept_se;
    f->slope_ci95 = f->t975 * f->slope_se;
    f->rse = sqrt(ssr / (double)(n - 2));
    f->r2 = sst > 0 ? 1 - ssr / sst : 1;
    return 0;
}
