/* metrics.h: streaming statistics whose memory does not grow with requests.
 *
 * ss_hist is a log-bucketed histogram in the manner of HdrHistogram: a
 * positive double's bucket is its exponent plus its top SS_HIST_SUB_BITS
 * mantissa bits, read straight from the IEEE-754 bits (monotone for positive
 * doubles).  Values in [SS_HIST_MIN, SS_HIST_MAX] seconds; smaller go to the
 * first bucket, larger to the last (and max is tracked exactly anyway).
 * A quantile is reported as the midpoint of its bucket, so its relative error
 * is at most 2^-(SUB_BITS+1) = 0.39% for SUB_BITS = 7.  Memory: a fixed
 * SS_HIST_NBUCKETS counters (about 54 KiB), whatever the number of samples.
 *
 * ss_stat keeps the count, min, max and the sums of (v - K) and (v - K)^2
 * with K the first value (the "shifted data" algorithm: no division per
 * sample, which matters on the per-request path, and no catastrophic
 * cancellation while K is a typical value).
 * ss_ci95 gives the Student-t 95% confidence half-width of a mean over
 * independent replications. */
#ifndef SS_METRICS_H
#define SS_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SS_HIST_SUB_BITS 7
#define SS_HIST_MIN 1e-9   /* seconds: 1 ns */
#define SS_HIST_MAX 1e7    /* seconds: 116 days */
#define SS_HIST_NBUCKETS 6912 /* covers [MIN, MAX] at SUB_BITS; checked by a test */

typedef struct ss_hist {
    uint64_t count;
    uint64_t buckets[SS_HIST_NBUCKETS];
} ss_hist;

void ss_hist_reset(ss_hist *h);
static inline void ss_hist_add(ss_hist *h, double v); /* inline, below */
/* q in [0,1]; 0 if empty.  The q-quantile is the smallest recorded value v
 * with at least ceil(q*count) values <= v (nearest-rank), up to bucket error. */
double ss_hist_quantile(const ss_hist *h, double q);
/* Add all counts of src into dst. */
void ss_hist_merge(ss_hist *dst, const ss_hist *src);
/* Relative error bound of ss_hist_quantile inside [MIN, MAX]. */
double ss_hist_rel_error(void);

typedef struct ss_stat {
    uint64_t n;
    double shift, s1, s2; /* K, sum(v - K), sum((v - K)^2) */
    double min, max;
} ss_stat;

void ss_stat_reset(ss_stat *s);
static inline void ss_stat_add(ss_stat *s, double v); /* inline, below */
double ss_stat_mean(const ss_stat *s); /* 0 if n = 0 */
double ss_stat_var(const ss_stat *s);  /* sample variance (n-1); 0 if n < 2 */
void ss_stat_merge(ss_stat *dst, const ss_stat *src); /* exact up to rounding */

/* Half-width of the 95% confidence interval of the mean of x[0..n-1]
 * (Student t with n-1 degrees of freedom); NAN if n < 2.  *mean receives the mean. */
double ss_ci95(const double *x, size_t n, double *mean);
/* Same at confidence level `level` (e.g. 0.99). */
double ss_ci(const double *x, size_t n, double level, double *mean);

/* ---- the per-sample updates, inline: two of each per finished request ---- */

#define SS_HIST_SHIFT (52 - SS_HIST_SUB_BITS)

/* Bucket of v: its exponent and top SUB_BITS mantissa bits, counted from
 * those of SS_HIST_MIN (a constant the compiler folds). */
static inline size_t ss_hist_index(double v)
{
    if (!(v > SS_HIST_MIN)) return 0; /* also 0, negatives and NaN */
    uint64_t b, base;
    const double lo = SS_HIST_MIN;
    memcpy(&b, &v, sizeof b);
    memcpy(&base, &lo, sizeof base);
    uint64_t i = (b >> SS_HIST_SHIFT) - (base >> SS_HIST_SHIFT);
    return i < SS_HIST_NBUCKETS ? (size_t)i : SS_HIST_NBUCKETS - 1; /* +inf too */
}

static inline void ss_hist_add(ss_hist *h, double v)
{
    h->count++;
    h->buckets[ss_hist_index(v)]++;
}

static inline void ss_stat_add(ss_stat *s, double v)
{
    if (s->n == 0) s->shift = v;
    s->n++;
    double d = v - s->shift;
    s->s1 += d;
    s->s2 += d * d;
    if (v < s->min) s->min = v;
    if (v > s->max) s->max = v;
}

#endif
