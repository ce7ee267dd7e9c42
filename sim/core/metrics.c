/* metrics.c: the log-bucketed histogram (bucket index straight from the
 * IEEE-754 bits), shifted-sum running statistics with exact merging, and
 * Student-t confidence intervals over replications (see metrics.h). */
#include "core/metrics.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#define HIST_SHIFT SS_HIST_SHIFT

/* Bits of a double; with a constant argument the compiler folds it. */
static inline uint64_t dbits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static inline double bits_dbl(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* Top bits (exponent + SUB_BITS of mantissa) of SS_HIST_MIN: bucket 0. */
static inline uint64_t hist_base(void)
{
    return dbits(SS_HIST_MIN) >> HIST_SHIFT;
}

void ss_hist_reset(ss_hist *h)
{
    memset(h, 0, sizeof *h);
}

void ss_hist_merge(ss_hist *dst, const ss_hist *src)
{
    dst->count += src->count;
    for (size_t i = 0; i < SS_HIST_NBUCKETS; i++) dst->buckets[i] += src->buckets[i];
}

double ss_hist_rel_error(void)
{
    return ldexp(1.0, -(SS_HIST_SUB_BITS + 1));
}

/* Midpoint of bucket i: the mean of its lower bound and the next bucket's. */
static double bucket_mid(size_t i)
{
    uint64_t top = hist_base() + i;
    double lo = bits_dbl(top << HIST_SHIFT), hi = bits_dbl((top + 1) << HIST_SHIFT);
    return lo / 2 + hi / 2;
}

double ss_hist_quantile(const ss_hist *h, double q)
{
    if (h->count == 0) return 0;
    if (!(q > 0)) q = 0; /* NaN too */
    if (q > 1) q = 1;
    /* Nearest rank ceil(q*count).  q*count is rounded, so an exact product
     * such as 0.99*100 may come out one ulp above 99: shave a few ulps so
     * that it does not jump to the next rank. */
    double x = q * (double)h->count;
    double r = ceil(x - x * (4 * DBL_EPSILON));
    uint64_t rank = r < 1 ? 1 : (uint64_t)r;
    if (rank > h->count) rank = h->count;
    uint64_t cum = 0;
    for (size_t i = 0; i < SS_HIST_NBUCKETS; i++) {
        cum += h->buckets[i];
        if (cum >= rank) return bucket_mid(i);
    }
    return bucket_mid(SS_HIST_NBUCKETS - 1); /* counts inconsistent with count */
}

/* ---- running statistics -------------------------------------------- */

void ss_stat_reset(ss_stat *s)
{
    s->n = 0;
    s->shift = 0;
    s->s1 = 0;
    s->s2 = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
}

double ss_stat_mean(const ss_stat *s)
{
    return s->n ? s->shift + s->s1 / (double)s->n : 0;
}

double ss_stat_var(const ss_stat *s)
{
    if (s->n < 2) return 0;
    double n = (double)s->n, v = (s->s2 - s->s1 * s->s1 / n) / (n - 1);
    return v > 0 ? v : 0; /* rounding can leave a tiny negative for constant data */
}

void ss_stat_merge(ss_stat *dst, const ss_stat *src)
{
    if (src->n == 0) return;
    if (dst->n == 0) {
        *dst = *src;
        return;
    }
    /* Re-express src's sums around dst's shift, then add. */
    double k = src->shift - dst->shift, nb = (double)src->n;
    dst->s2 += src->s2 + 2 * k * src->s1 + nb * k * k;
    dst->s1 += src->s1 + nb * k;
    dst->n += src->n;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
}

/* ---- confidence intervals ------------------------------------------ */

double ss_ci(const double *x, size_t n, double level, double *mean)
{
    double m = NAN;
    if (n > 0) {
        double s = 0;
        for (size_t i = 0; i < n; i++) s += x[i];
        m = s / (double)n;
    }
    if (mean) *mean = m;
    if (n < 2 || !(level > 0 && level < 1)) return NAN;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    double sd = sqrt(ss / (double)(n - 1));
    double t = gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(n - 1));
    return t * sd / sqrt((double)n);
}

double ss_ci95(const double *x, size_t n, double *mean)
{
    return ss_ci(x, n, 0.95, mean);
}
