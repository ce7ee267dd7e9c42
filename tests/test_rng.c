/* test_rng.c: named random streams are reproducible and independent of each
 * other's names, replications and seeds; the uniform adapters stay in range
 * and are unbiased (4-standard-error bounds, see each check). */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/rng.h"

#define NDRAW 64

static void draw(uint64_t seed, uint64_t rep, const char *name, unsigned long *out)
{
    gsl_rng *r = ss_rng_stream(seed, rep, name);
    for (int i = 0; i < NDRAW; i++) out[i] = gsl_rng_get(r);
    gsl_rng_free(r);
}

/* Number of positions where two sequences agree (independent 32-bit
 * sequences agree nowhere, with overwhelming probability). */
static int agree(const unsigned long *a, const unsigned long *b)
{
    int k = 0;
    for (int i = 0; i < NDRAW; i++) k += a[i] == b[i];
    return k;
}

static void test_same_triple_same_sequence(void)
{
    unsigned long a[NDRAW], b[NDRAW];
    draw(42, 0, "workload/chat/arrivals", a);
    draw(42, 0, "workload/chat/arrivals", b);
    CU_ASSERT_EQUAL(agree(a, b), NDRAW);
    /* Also reproducible after other streams were made in between. */
    gsl_rng *other = ss_rng_stream(42, 0, "model/llama/service");
    gsl_rng_get(other);
    draw(42, 0, "workload/chat/arrivals", b);
    CU_ASSERT_EQUAL(agree(a, b), NDRAW);
    gsl_rng_free(other);
}

static void test_streams_differ(void)
{
    unsigned long base[NDRAW], x[NDRAW];
    draw(42, 0, "workload/chat/arrivals", base);
    draw(42, 0, "workload/chat/arrivalz", x); /* name differs by one letter */
    CU_ASSERT_EQUAL(agree(base, x), 0);
    draw(42, 1, "workload/chat/arrivals", x); /* replication */
    CU_ASSERT_EQUAL(agree(base, x), 0);
    draw(43, 0, "workload/chat/arrivals", x); /* seed */
    CU_ASSERT_EQUAL(agree(base, x), 0);
    draw(42, 0, "", x); /* empty name is a valid, different stream */
    CU_ASSERT_EQUAL(agree(base, x), 0);
}

static void test_seed_and_rep_not_interchangeable(void)
{
    unsigned long a[NDRAW], b[NDRAW];
    draw(1, 2, "s", a);
    draw(2, 1, "s", b);
    CU_ASSERT_EQUAL(agree(a, b), 0);
    draw(0, 1, "s", a);
    draw(1, 0, "s", b);
    CU_ASSERT_EQUAL(agree(a, b), 0);
    /* seed+rep constant along a diagonal must not collide either */
    draw(5, 5, "s", a);
    draw(6, 4, "s", b);
    CU_ASSERT_EQUAL(agree(a, b), 0);
}

/* Many (seed, rep, name) triples: every stream's first output distinct.  A
 * 32-bit seed makes a chance collision among k streams have probability
 * about k^2/2^33 = 0.5% for k = 6000 first outputs; this fixed set has none,
 * and a systematic flaw (ignoring an input) would produce hundreds. */
static void test_many_streams_distinct(void)
{
    enum { NS = 20, NR = 10, NN = 30 };
    static unsigned long first[NS * NR * NN];
    size_t k = 0;
    for (int s = 0; s < NS; s++)
        for (int rep = 0; rep < NR; rep++)
            for (int nm = 0; nm < NN; nm++) {
                char name[32];
                snprintf(name, sizeof name, "workload/w%d", nm);
                gsl_rng *r = ss_rng_stream((uint64_t)s, (uint64_t)rep, name);
                first[k++] = gsl_rng_get(r);
                gsl_rng_free(r);
            }
    size_t dup = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++) dup += first[i] == first[j];
    CU_ASSERT(dup <= 1);
}

static void test_uniform_range_and_mean(void)
{
    gsl_rng *r = ss_rng_stream(7, 0, "u");
    const int n = 200000;
    double s = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        double u = ss_rng_uniform(r);
        bad += !(u >= 0 && u < 1);
        s += u;
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* Mean of U[0,1) has sd sqrt(1/12/n); 4 standard errors: false-failure
     * probability ~6e-5. */
    CU_ASSERT(fabs(s / n - 0.5) <= 4 * sqrt(1.0 / 12 / n));
    gsl_rng_free(r);
}

static void test_uniform_int_small(void)
{
    gsl_rng *r = ss_rng_stream(7, 0, "ui");
    CU_ASSERT_EQUAL(ss_rng_uniform_int(r, 1), 0);
    enum { K = 6 };
    const int n = 120000;
    int cnt[K] = {0}, bad = 0;
    for (int i = 0; i < n; i++) {
        uint64_t v = ss_rng_uniform_int(r, K);
        if (v >= K) bad++;
        else cnt[v]++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* Each count is Binomial(n, 1/K): within 4 standard deviations, false-
     * failure probability ~6e-5 per cell. */
    double p = 1.0 / K, sd = sqrt(n * p * (1 - p));
    for (int k = 0; k < K; k++) CU_ASSERT(fabs(cnt[k] - n * p) <= 4 * sd);
    gsl_rng_free(r);
}

/* n beyond gsl_rng_uniform_int's 2^32-1 limit: results below n, the top
 * 0.1% of the range is reached (missed with probability 0.999^50000 ~ e^-50),
 * and the scaled mean x/n is near 1/2 (4 standard errors of U[0,1), ~6e-5). */
static void check_big(gsl_rng *r, uint64_t n)
{
    const int draws = 50000;
    double s = 0;
    int bad = 0, high = 0;
    for (int i = 0; i < draws; i++) {
        uint64_t v = ss_rng_uniform_int(r, n);
        bad += v >= n;
        high += v >= n - n / 1000;
        s += (double)v / (double)n;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(high > 0);
    CU_ASSERT(fabs(s / draws - 0.5) <= 4 * sqrt(1.0 / 12 / draws));
}

static void test_uniform_int_large(void)
{
    gsl_rng *r = ss_rng_stream(9, 3, "big");
    check_big(r, 0x100000000ull);          /* 2^32: first value past GSL's limit */
    check_big(r, 0x100000001ull);
    check_big(r, (3ull << 62));            /* 3/4 of 2^64: rejection rate 1/4 */
    check_big(r, (1ull << 63) + 1);        /* worst case: rejection rate ~1/2 */
    check_big(r, UINT64_MAX);
    /* Just below the limit still goes through GSL and stays in range. */
    int bad = 0;
    for (int i = 0; i < 1000; i++) bad += ss_rng_uniform_int(r, 0xffffffffull) >= 0xffffffffull;
    CU_ASSERT_EQUAL(bad, 0);
    /* Reproducible: same stream, same big draws. */
    gsl_rng *a = ss_rng_stream(1, 1, "big"), *b = ss_rng_stream(1, 1, "big");
    int same = 1;
    for (int i = 0; i < 100; i++) same &= ss_rng_uniform_int(a, UINT64_MAX - 5) == ss_rng_uniform_int(b, UINT64_MAX - 5);
    CU_ASSERT(same);
    gsl_rng_free(a);
    gsl_rng_free(b);
    gsl_rng_free(r);
}

/* Bias check for n = 3*2^62, where a plain `x mod n` of 64 random bits
 * would be visibly biased: P(v >= 2^63) is 1/3 when uniform on [0, n) but
 * 1/4 for x mod n (the top quarter of x folds onto [0, 2^62)).  Binomial
 * count within 4 sd: false-failure probability ~6e-5; the biased rate is
 * more than 50 sd away. */
static void test_uniform_int_large_unbiased(void)
{
    gsl_rng *r = ss_rng_stream(11, 0, "bias");
    const uint64_t n = (1ull << 63) + (1ull << 62); /* 3*2^62 */
    const int draws = 100000;
    int upper = 0;
    for (int i = 0; i < draws; i++) upper += ss_rng_uniform_int(r, n) >= (1ull << 63);
    double p = 1.0 / 3, sd = sqrt(draws * p * (1 - p));
    CU_ASSERT(fabs(upper - draws * p) <= 4 * sd);
    gsl_rng_free(r);
}

/* servesim's MT19937 type is a copy of GSL's gsl_rng_mt19937: for the same
 * seed, every output (through gsl_rng_get, the inline ss_rng_u32, and the
 * uniforms) must be identical, across several regenerations of the state
 * (624 words each), so that results do not depend on which of the two a
 * stream uses.  Seed 0 maps to GSL's default 4357 in both. */
static void test_mt19937_matches_gsl(void)
{
    const unsigned long seeds[] = {0, 1, 4357, 0x9e3779b9ul, 0xfffffffful};
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        gsl_rng *ours = gsl_rng_alloc(&ss_rng_mt19937_type), *ref = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(ours, seeds[k]);
        gsl_rng_set(ref, seeds[k]);
        int diff = 0;
        for (int i = 0; i < 5000; i++) {
            switch (i % 4) {
            case 0: diff += gsl_rng_get(ours) != gsl_rng_get(ref); break;
            case 1: diff += ss_rng_u32(ours) != gsl_rng_get(ref); break;
            case 2: diff += ss_rng_u01(ours) != gsl_rng_uniform(ref); break;
            default: diff += ss_rng_u01_pos(ours) != gsl_rng_uniform_pos(ref); break;
            }
        }
        CU_ASSERT_EQUAL(diff, 0);
        gsl_rng_free(ours);
        gsl_rng_free(ref);
    }
    /* The inline draws fall back to GSL for any other generator type. */
    gsl_rng *a = gsl_rng_alloc(gsl_rng_taus2), *b = gsl_rng_alloc(gsl_rng_taus2);
    int diff = 0;
    for (int i = 0; i < 100; i++) diff += ss_rng_u32(a) != gsl_rng_get(b);
    for (int i = 0; i < 100; i++) diff += ss_rng_u01(a) != gsl_rng_uniform(b);
    CU_ASSERT_EQUAL(diff, 0);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

SS_TEST_SUITE("rng",
              {"servesim's MT19937 gives GSL's mt19937 numbers", test_mt19937_matches_gsl},
              {"same (seed, rep, name) gives the same sequence", test_same_triple_same_sequence},
              {"name, replication and seed each change the stream", test_streams_differ},
              {"(seed=1,rep=2) and (seed=2,rep=1) differ", test_seed_and_rep_not_interchangeable},
              {"6000 streams have distinct first outputs", test_many_streams_distinct},
              {"uniform in [0,1) with mean 1/2", test_uniform_range_and_mean},
              {"uniform_int small n: range and frequencies", test_uniform_int_small},
              {"uniform_int n >= 2^32: range, reach, mean", test_uniform_int_large},
              {"uniform_int large n is unbiased (rejection)", test_uniform_int_large_unbiased})
