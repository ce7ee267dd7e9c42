/* test_metrics.c: histogram coverage, nearest-rank quantiles within the
 * stated relative error, merging, out-of-range values; running statistics
 * and their merge; Student-t confidence half-widths. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/rng.h"

#include <gsl/gsl_randist.h>

static ss_hist *hist_new(void)
{
    ss_hist *h = malloc(sizeof *h);
    ss_hist_reset(h);
    return h;
}

/* The bucket formula of metrics.h, recomputed here independently. */
static long bucket_of(double v)
{
    uint64_t b, bmin;
    double mn = SS_HIST_MIN;
    memcpy(&b, &v, sizeof b);
    memcpy(&bmin, &mn, sizeof bmin);
    return (long)(b >> (52 - SS_HIST_SUB_BITS)) - (long)(bmin >> (52 - SS_HIST_SUB_BITS));
}

static int within(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

static void test_buckets_cover_range(void)
{
    /* SS_HIST_MAX must not be clamped: its bucket lies inside the array. */
    CU_ASSERT(bucket_of(SS_HIST_MAX) < SS_HIST_NBUCKETS);
    CU_ASSERT(bucket_of(SS_HIST_MAX) >= 0);
    CU_ASSERT_EQUAL(bucket_of(SS_HIST_MIN), 0);
    /* The error bound the header promises. */
    CU_ASSERT_DOUBLE_EQUAL(ss_hist_rel_error(), 1.0 / 256, 1e-15);
    /* Behaviourally: a single value anywhere in [MIN, MAX], including both
     * ends, comes back within the relative error. */
    ss_hist *h = malloc(sizeof *h);
    int bad = 0;
    for (double v = SS_HIST_MIN;; v *= 1.37) {
        double x = v < SS_HIST_MAX ? v : SS_HIST_MAX;
        ss_hist_reset(h);
        ss_hist_add(h, x);
        if (!within(ss_hist_quantile(h, 0.5), x, ss_hist_rel_error())) bad++;
        if (x == SS_HIST_MAX) break;
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(h);
}

static void test_quantile_nearest_rank(void)
{
    ss_hist *h = hist_new();
    CU_ASSERT_EQUAL(ss_hist_quantile(h, 0.5), 0); /* empty */
    for (int i = 1; i <= 10; i++) ss_hist_add(h, i); /* 1..10 s: all in different buckets */
    CU_ASSERT_EQUAL(h->count, 10);
    double e = ss_hist_rel_error();
    CU_ASSERT(within(ss_hist_quantile(h, 0), 1, e));    /* q=0: smallest */
    CU_ASSERT(within(ss_hist_quantile(h, 0.1), 1, e));  /* ceil(1) = rank 1 */
    CU_ASSERT(within(ss_hist_quantile(h, 0.11), 2, e)); /* ceil(1.1) = rank 2 */
    CU_ASSERT(within(ss_hist_quantile(h, 0.5), 5, e));
    CU_ASSERT(within(ss_hist_quantile(h, 0.51), 6, e));
    CU_ASSERT(within(ss_hist_quantile(h, 0.9), 9, e));
    CU_ASSERT(within(ss_hist_quantile(h, 1), 10, e));   /* q=1: largest */
    free(h);

    /* 1..1000 ms: p99 is rank 990 (0.99*1000 must not round up to 991). */
    h = hist_new();
    for (int i = 1; i <= 1000; i++) ss_hist_add(h, i * 1e-3);
    CU_ASSERT(within(ss_hist_quantile(h, 0.99), 0.990, e));
    CU_ASSERT(within(ss_hist_quantile(h, 0.999), 0.999, e));
    CU_ASSERT(within(ss_hist_quantile(h, 0.5), 0.500, e));
    free(h);

    /* 0.07*100 rounds to 7.000000000000001 in doubles: still rank 7 */
    h = hist_new();
    for (int i = 1; i <= 100; i++) ss_hist_add(h, i * 1e-3);
    CU_ASSERT(within(ss_hist_quantile(h, 0.07), 0.007, e));
    CU_ASSERT(within(ss_hist_quantile(h, 0.29), 0.029, e)); /* 28.999999999999996 -> rank 29 */
    free(h);

    /* The midpoint is reported: the value sits within half a bucket. */
    h = hist_new();
    ss_hist_add(h, 1.0); /* 1.0 is a bucket's lower bound: midpoint 1 + 2^-8 */
    CU_ASSERT_DOUBLE_EQUAL(ss_hist_quantile(h, 0.5), 1.0 + 1.0 / 256, 1e-15);
    free(h);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Against exact nearest-rank quantiles of a sorted sample spread over many
 * decades (lognormal, sigma 3). */
static void test_quantile_vs_sorted(void)
{
    enum { N = 100001 };
    double *x = malloc(N * sizeof *x);
    gsl_rng *r = ss_rng_stream(3, 0, "hist");
    ss_hist *h = hist_new();
    for (int i = 0; i < N; i++) {
        x[i] = gsl_ran_lognormal(r, -4, 3);
        ss_hist_add(h, x[i]);
    }
    qsort(x, N, sizeof *x, cmp_dbl);
    const double qs[] = {0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        size_t rank = (size_t)ceil(qs[i] * N);
        if (rank < 1) rank = 1;
        double want = x[rank - 1];
        if (want < SS_HIST_MIN || want > SS_HIST_MAX) continue; /* outside the promise */
        CU_ASSERT(within(ss_hist_quantile(h, qs[i]), want, ss_hist_rel_error()));
    }
    gsl_rng_free(r);
    free(h);
    free(x);
}

static void test_merge(void)
{
    ss_hist *a = hist_new(), *b = hist_new(), *all = hist_new();
    for (int i = 1; i <= 500; i++) {
        ss_hist_add(a, i * 1e-3);
        ss_hist_add(all, i * 1e-3);
    }
    for (int i = 501; i <= 2000; i++) {
        ss_hist_add(b, i * 1e-3);
        ss_hist_add(all, i * 1e-3);
    }
    ss_hist_merge(a, b);
    CU_ASSERT_EQUAL(a->count, 2000);
    CU_ASSERT(memcmp(a, all, sizeof *a) == 0);
    CU_ASSERT(within(ss_hist_quantile(a, 0.5), 1.0, ss_hist_rel_error()));
    CU_ASSERT(within(ss_hist_quantile(a, 0.1), 0.2, ss_hist_rel_error()));
    /* merging an empty histogram changes nothing */
    ss_hist_reset(b);
    ss_hist_merge(a, b);
    CU_ASSERT(memcmp(a, all, sizeof *a) == 0);
    free(a);
    free(b);
    free(all);
}

static void test_out_of_range(void)
{
    ss_hist *h = hist_new();
    double e = ss_hist_rel_error();
    /* below MIN, zero, negative: the first bucket, reported near MIN */
    ss_hist_add(h, 0.0);
    ss_hist_add(h, -0.0);
    ss_hist_add(h, 1e-15);
    ss_hist_add(h, -3.0);
    CU_ASSERT_EQUAL(h->count, 4);
    CU_ASSERT_EQUAL(h->buckets[0], 4);
    double q = ss_hist_quantile(h, 1);
    CU_ASSERT(q > 0 && q <= SS_HIST_MIN * (1 + 2 * e));
    /* above MAX (and +inf): the last bucket, reported at or above MAX */
    ss_hist_reset(h);
    ss_hist_add(h, 1e9);
    ss_hist_add(h, 1e300);
    ss_hist_add(h, INFINITY);
    CU_ASSERT_EQUAL(h->buckets[SS_HIST_NBUCKETS - 1], 3);
    CU_ASSERT(ss_hist_quantile(h, 0) >= SS_HIST_MAX);
    CU_ASSERT(isfinite(ss_hist_quantile(h, 1)));
    /* MAX itself is not in the last (overflow) bucket */
    ss_hist_reset(h);
    ss_hist_add(h, SS_HIST_MAX);
    CU_ASSERT_EQUAL(h->buckets[SS_HIST_NBUCKETS - 1], 0);
    free(h);
}

static void test_stat_welford(void)
{
    ss_stat s;
    ss_stat_reset(&s);
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT_EQUAL(ss_stat_var(&s), 0);
    ss_stat_add(&s, 5);
    CU_ASSERT_EQUAL(ss_stat_var(&s), 0); /* n < 2 */
    CU_ASSERT_EQUAL(s.min, 5);
    CU_ASSERT_EQUAL(s.max, 5);
    /* large offset: naive sum of squares would lose all digits */
    ss_stat_reset(&s);
    const double xs[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
    for (int i = 0; i < 4; i++) ss_stat_add(&s, xs[i]);
    CU_ASSERT_EQUAL(s.n, 4);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&s), 1e9 + 10, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_var(&s), 30, 1e-6); /* (36+9+9+36)/3 */
    CU_ASSERT_EQUAL(s.min, 1e9 + 4);
    CU_ASSERT_EQUAL(s.max, 1e9 + 16);
}

static void test_stat_merge(void)
{
    ss_stat a, b, all, empty;
    ss_stat_reset(&a);
    ss_stat_reset(&b);
    ss_stat_reset(&all);
    ss_stat_reset(&empty);
    for (int i = 0; i < 1000; i++) {
        double v = sin(i) * 10 + i * 0.01;
        ss_stat_add(i < 300 ? &a : &b, v);
        ss_stat_add(&all, v);
    }
    ss_stat_merge(&a, &b);
    CU_ASSERT_EQUAL(a.n, all.n);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&a), ss_stat_mean(&all), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_var(&a), ss_stat_var(&all), 1e-9);
    CU_ASSERT_EQUAL(a.min, all.min);
    CU_ASSERT_EQUAL(a.max, all.max);
    /* identity both ways */
    ss_stat c = all;
    ss_stat_merge(&c, &empty);
    CU_ASSERT(memcmp(&c, &all, sizeof c) == 0);
    ss_stat d = empty;
    ss_stat_merge(&d, &all);
    CU_ASSERT(memcmp(&d, &all, sizeof d) == 0);
}

static void test_ci(void)
{
    const double x[] = {1, 2, 3, 4, 5};
    double m = 0;
    /* t(0.975, 4) = 2.7764451051977987, sd = sqrt(2.5) */
    double hw = ss_ci95(x, 5, &m);
    CU_ASSERT_DOUBLE_EQUAL(m, 3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(hw, 2.7764451051977987 * sqrt(2.5) / sqrt(5), 1e-9);
    /* t(0.995, 4) = 4.604094871415897 */
    hw = ss_ci(x, 5, 0.99, &m);
    CU_ASSERT_DOUBLE_EQUAL(hw, 4.604094871415897 * sqrt(2.5) / sqrt(5), 1e-9);
    /* n < 2: NAN, mean still given for n = 1 */
    CU_ASSERT(isnan(ss_ci95(x, 1, &m)));
    CU_ASSERT_DOUBLE_EQUAL(m, 1, 0);
    CU_ASSERT(isnan(ss_ci95(x, 0, NULL)));
    /* identical replications: zero width */
    const double same[] = {2, 2, 2};
    CU_ASSERT_DOUBLE_EQUAL(ss_ci95(same, 3, &m), 0, 0);
}

SS_TEST_SUITE("metrics",
              {"buckets cover [MIN, MAX] (bucket of MAX < NBUCKETS)", test_buckets_cover_range},
              {"quantiles are nearest-rank bucket midpoints", test_quantile_nearest_rank},
              {"quantiles match a sorted sample within rel_error", test_quantile_vs_sorted},
              {"merge equals adding everything to one", test_merge},
              {"values below MIN and above MAX", test_out_of_range},
              {"running mean, variance, min, max", test_stat_welford},
              {"Chan merge equals one pass", test_stat_merge},
              {"Student-t confidence half-widths", test_ci})
