/* test_dist.c: each kind's exact mean/SCV against closed forms and against
 * large samples (confidence-interval tolerances); ss_dist_read accepts the
 * documented forms and rejects bad ones with positioned messages. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist.h"
#include "core/zigexp.h"
#include "core/rng.h"

/* ---- helpers --------------------------------------------------------- */

static int rel_close(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

/* Draw n samples of d from a fixed stream and compare with the exact
 * moments.  Both checks use 4 standard errors, so a correct implementation
 * fails each with probability ~6e-5 (two-sided normal tail); with a fixed
 * seed the outcome is in any case reproducible.
 *   mean:     |xbar - mu| <= 4 sqrt(var/n)
 *   variance: |s^2 - var| <= 4 sqrt((m4 - s^4)/n), the asymptotic standard
 *             error of the sample variance, with the fourth central moment
 *             m4 estimated from the same sample (delta method).
 * Each sample must also be finite and >= 0. */
static void check_moments(const ss_dist *d, const char *stream, size_t n)
{
    double mu = ss_dist_mean(d), scv = ss_dist_scv(d), var = scv * mu * mu;
    CU_ASSERT_FATAL(isfinite(mu) && isfinite(scv));
    double *x = malloc(n * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    gsl_rng *r = ss_rng_stream(2024, 0, stream);
    double s = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = ss_dist_sample(d, r);
        bad += !(isfinite(x[i]) && x[i] >= 0);
        s += x[i];
    }
    gsl_rng_free(r);
    CU_ASSERT_EQUAL(bad, 0);
    double xbar = s / (double)n, m2 = 0, m4 = 0;
    for (size_t i = 0; i < n; i++) {
        double dv = x[i] - xbar, d2 = dv * dv;
        m2 += d2;
        m4 += d2 * d2;
    }
    free(x);
    m4 /= (double)n;
    double s2 = m2 / (double)(n - 1);
    if (var == 0) {
        CU_ASSERT(rel_close(xbar, mu, 1e-12));
        CU_ASSERT(s2 <= 1e-24 * (mu * mu + 1));
        return;
    }
    double se_mean = sqrt(var / (double)n);
    double se_var = sqrt(fmax(m4 - s2 * s2, 0) / (double)n);
    CU_ASSERT(fabs(xbar - mu) <= 4 * se_mean);
    CU_ASSERT(fabs(s2 - var) <= 4 * se_var);
    /* and the squared coefficient of variation built from both */
    if (fabs(xbar - mu) > 4 * se_mean || fabs(s2 - var) > 4 * se_var)
        fprintf(stderr, "\n  %s: mean %g vs %g (se %g), var %g vs %g (se %g)\n", stream, xbar, mu, se_mean, s2, var,
                se_var);
}

#define NSAMP 400000

static ss_dist mk(ss_dist_kind k, double p1, double p2)
{
    ss_dist d = {.kind = k, .p1 = p1, .p2 = p2, .samples = NULL, .nsamples = 0};
    return d;
}

/* ---- exact moments and sampling, per kind ---------------------------- */

static void test_deterministic(void)
{
    ss_dist d;
    ss_dist_deterministic(&d, 0.25);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_DETERMINISTIC);
    CU_ASSERT_EQUAL(ss_dist_mean(&d), 0.25);
    CU_ASSERT_EQUAL(ss_dist_scv(&d), 0);
    gsl_rng *r = ss_rng_stream(1, 0, "det");
    int bad = 0;
    for (int i = 0; i < 1000; i++) bad += ss_dist_sample(&d, r) != 0.25;
    CU_ASSERT_EQUAL(bad, 0);
    gsl_rng_free(r);
    ss_dist_deterministic(&d, 0);
    CU_ASSERT_EQUAL(ss_dist_mean(&d), 0);
    CU_ASSERT_EQUAL(ss_dist_scv(&d), 0);
    ss_dist_free(&d);
}

static void test_exponential(void)
{
    ss_dist d;
    ss_dist_exponential(&d, 0.01);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_EXPONENTIAL);
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_mean(&d), 0.01, 1e-18);
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_scv(&d), 1, 1e-15);
    check_moments(&d, "exponential", NSAMP);
    ss_dist_free(&d);
}

/* Normal(mu, sd) truncated at 0, with mu = sd so that 16% of the parent
 * mass is cut off.  Closed form with alpha = -1: lambda = phi(1)/Phi(1),
 * mean = mu + sd*lambda, var = sd^2 (1 - lambda - lambda^2); phi(1) and
 * Phi(1) are written out here rather than taken from GSL. */
static void test_normal_truncated(void)
{
    const double phi1 = 0.24197072451914337, Phi1 = 0.8413447460685429;
    const double lambda = phi1 / Phi1, mu = 0.01, sd = 0.01;
    const double mean = mu + sd * lambda, var = sd * sd * (1 - lambda - lambda * lambda);
    ss_dist d = mk(SS_DIST_NORMAL, mu, sd);
    CU_ASSERT(rel_close(ss_dist_mean(&d), mean, 1e-12));
    CU_ASSERT(rel_close(ss_dist_scv(&d), var / (mean * mean), 1e-12));
    CU_ASSERT(ss_dist_mean(&d) > mu * 1.2); /* truncation matters here */
    check_moments(&d, "normal/heavy-truncation", NSAMP);
    /* Mild truncation: mean ~ mu, scv ~ (sd/mu)^2. */
    d = mk(SS_DIST_NORMAL, 0.01, 0.002);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-6));
    CU_ASSERT(rel_close(ss_dist_scv(&d), 0.04, 1e-4));
    check_moments(&d, "normal/mild", NSAMP);
    /* sd 0: a point mass */
    d = mk(SS_DIST_NORMAL, 0.01, 0);
    CU_ASSERT_EQUAL(ss_dist_mean(&d), 0.01);
    CU_ASSERT_EQUAL(ss_dist_scv(&d), 0);
}

static void test_lognormal(void)
{
    /* log-space parameters: mean exp(mu + s^2/2), scv exp(s^2) - 1 */
    ss_dist d = mk(SS_DIST_LOGNORMAL, -4.6, 0.5);
    CU_ASSERT(rel_close(ss_dist_mean(&d), exp(-4.6 + 0.125), 1e-14));
    CU_ASSERT(rel_close(ss_dist_scv(&d), exp(0.25) - 1, 1e-14));
    check_moments(&d, "lognormal", NSAMP);
}

static void test_gamma(void)
{
    /* shape k, scale theta: mean k*theta, scv 1/k.  cv = 2 (k = 0.25) takes
     * GSL's small-shape path, k = 3 the ordinary one. */
    ss_dist d = mk(SS_DIST_GAMMA, 0.25, 0.04);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-14));
    CU_ASSERT(rel_close(ss_dist_scv(&d), 4, 1e-14));
    check_moments(&d, "gamma/cv2", NSAMP);
    d = mk(SS_DIST_GAMMA, 3, 0.01 / 3);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-14));
    CU_ASSERT(rel_close(ss_dist_scv(&d), 1.0 / 3, 1e-14));
    check_moments(&d, "gamma/k3", NSAMP);
}

static void test_uniform(void)
{
    /* [a, b]: mean (a+b)/2, var (b-a)^2/12 */
    ss_dist d = mk(SS_DIST_UNIFORM, 0.005, 0.015);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-14));
    CU_ASSERT(rel_close(ss_dist_scv(&d), 0.01 * 0.01 / 12 / (0.01 * 0.01), 1e-12));
    check_moments(&d, "uniform", NSAMP);
    gsl_rng *r = ss_rng_stream(1, 0, "uniform/range");
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        double x = ss_dist_sample(&d, r);
        bad += x < 0.005 || x > 0.015;
    }
    CU_ASSERT_EQUAL(bad, 0);
    gsl_rng_free(r);
    /* min == max: a point mass */
    d = mk(SS_DIST_UNIFORM, 0.02, 0.02);
    CU_ASSERT_EQUAL(ss_dist_scv(&d), 0);
    check_moments(&d, "uniform/point", 1000);
}

static void test_empirical(void)
{
    static const double vals[] = {1, 2, 3, 10};
    ss_dist d = mk(SS_DIST_EMPIRICAL, 0, 0);
    d.samples = malloc(sizeof vals);
    memcpy(d.samples, vals, sizeof vals);
    d.nsamples = 4;
    /* population moments of the list: mean 4, var (9+4+1+36)/4 = 12.5 */
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_mean(&d), 4, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_scv(&d), 12.5 / 16, 1e-14);
    check_moments(&d, "empirical", NSAMP);
    /* every value drawn with frequency 1/4: Binomial counts within 4 sd
     * (false-failure probability ~6e-5 per value); never anything else */
    gsl_rng *r = ss_rng_stream(5, 0, "empirical/freq");
    const int n = 100000;
    int cnt[4] = {0}, other = 0;
    for (int i = 0; i < n; i++) {
        double x = ss_dist_sample(&d, r);
        int k = x == 1 ? 0 : x == 2 ? 1 : x == 3 ? 2 : x == 10 ? 3 : -1;
        if (k < 0) other++;
        else cnt[k]++;
    }
    CU_ASSERT_EQUAL(other, 0);
    double sd = sqrt(n * 0.25 * 0.75);
    for (int k = 0; k < 4; k++) CU_ASSERT(fabs(cnt[k] - n * 0.25) <= 4 * sd);
    gsl_rng_free(r);
    ss_dist_free(&d);
    CU_ASSERT_PTR_NULL(d.samples);
}

static void test_names(void)
{
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_DETERMINISTIC), "deterministic");
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_EXPONENTIAL), "exponential");
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_NORMAL), "normal");
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_LOGNORMAL), "lognormal");
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_GAMMA), "gamma");
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_UNIFORM), "uniform");
    CU_ASSERT_STRING_EQUAL(ss_dist_name(SS_DIST_EMPIRICAL), "empirical");
}

/* ---- reading --------------------------------------------------------- */

/* Parse `yaml` as file "t.yaml" and read its root as "service".
 * 0 ok, -1 read error, -2 the YAML itself did not parse. */
static int rd(const char *yaml, ss_dist *d, ss_err *err)
{
    memset(err, 0, sizeof *err);
    ss_doc *doc = ss_doc_parse_yaml(yaml, strlen(yaml), "t.yaml", err);
    if (!doc) return -2;
    int rc = ss_dist_read(doc->root, "service", d, err);
    ss_doc_free(doc);
    return rc;
}

static void test_read_ok(void)
{
    ss_dist d;
    ss_err err;

    CU_ASSERT_EQUAL_FATAL(rd("0.25\n", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_DETERMINISTIC);
    CU_ASSERT_EQUAL(ss_dist_mean(&d), 0.25);
    ss_dist_free(&d);

    CU_ASSERT_EQUAL_FATAL(rd("{dist: deterministic, value_s: 0}", &d, &err), 0);
    CU_ASSERT_EQUAL(ss_dist_mean(&d), 0);
    CU_ASSERT_EQUAL_FATAL(rd("{dist: deterministic, mean_s: 0.5}", &d, &err), 0);
    CU_ASSERT_EQUAL(ss_dist_mean(&d), 0.5);

    CU_ASSERT_EQUAL_FATAL(rd("{dist: exponential, rate: 100}", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_EXPONENTIAL);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-15));
    CU_ASSERT_EQUAL_FATAL(rd("{dist: exponential, mean_s: 0.02}", &d, &err), 0);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.02, 1e-15));

    CU_ASSERT_EQUAL_FATAL(rd("{dist: normal, mean_s: 0.01, sd_s: 0.002}", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_NORMAL);
    CU_ASSERT_EQUAL(d.p1, 0.01);
    CU_ASSERT_EQUAL(d.p2, 0.002);

    /* lognormal from the variable's mean and sd: reproduced exactly */
    CU_ASSERT_EQUAL_FATAL(rd("{dist: lognormal, mean_s: 0.01, sd_s: 0.004}", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_LOGNORMAL);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-13));
    CU_ASSERT(rel_close(ss_dist_scv(&d), 0.16, 1e-12));
    CU_ASSERT(rel_close(d.p2 * d.p2, log(1.16), 1e-13));
    check_moments(&d, "lognormal/read", NSAMP);
    /* ... or from log-space mu and sigma */
    CU_ASSERT_EQUAL_FATAL(rd("{dist: lognormal, mu: -4, sigma: 0.5}", &d, &err), 0);
    CU_ASSERT_EQUAL(d.p1, -4);
    CU_ASSERT_EQUAL(d.p2, 0.5);

    CU_ASSERT_EQUAL_FATAL(rd("{dist: gamma, mean_s: 0.01, cv: 2}", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_GAMMA);
    CU_ASSERT(rel_close(d.p1, 0.25, 1e-15));  /* shape 1/cv^2 */
    CU_ASSERT(rel_close(d.p2, 0.04, 1e-15));  /* scale mean/shape */
    CU_ASSERT(rel_close(ss_dist_scv(&d), 4, 1e-14));
    CU_ASSERT_EQUAL_FATAL(rd("{dist: gamma, mean_s: 0.01, shape: 4}", &d, &err), 0);
    CU_ASSERT(rel_close(d.p2, 0.0025, 1e-15));
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-15));

    CU_ASSERT_EQUAL_FATAL(rd("{dist: uniform, min_s: 0.005, max_s: 0.015}", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_UNIFORM);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.01, 1e-15));
    CU_ASSERT_EQUAL_FATAL(rd("{dist: uniform, min_s: 0.01, max_s: 0.01}", &d, &err), 0);

    CU_ASSERT_EQUAL_FATAL(rd("dist: empirical\nsamples_s: [0.010, 0.012, 0.020, 0]\n", &d, &err), 0);
    CU_ASSERT_EQUAL(d.kind, SS_DIST_EMPIRICAL);
    CU_ASSERT_EQUAL(d.nsamples, 4);
    CU_ASSERT(rel_close(ss_dist_mean(&d), 0.0105, 1e-14));
    ss_dist_free(&d);
    CU_ASSERT_PTR_NULL(d.samples);
}

/* Expect a read error whose message starts with `prefix` and contains
 * `needle`. */
static void expect_err(const char *yaml, const char *prefix, const char *needle)
{
    ss_dist d;
    ss_err err;
    int rc = rd(yaml, &d, &err);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT(err.set);
    int ok = rc == -1 && strncmp(err.msg, prefix, strlen(prefix)) == 0 && strstr(err.msg, needle);
    CU_ASSERT(ok);
    if (!ok) fprintf(stderr, "\n  %s -> rc %d, '%s' (wanted '%s'...'%s')\n", yaml, rc, err.msg, prefix, needle);
    ss_dist_free(&d); /* harmless after an error */
    CU_ASSERT_PTR_NULL(d.samples);
}

static void test_read_errors(void)
{
    /* missing parameters name the distribution */
    expect_err("{dist: gamma, mean_s: 0.01}", "t.yaml:1:", "service: gamma needs cv or shape");
    expect_err("{dist: gamma, cv: 2}", "t.yaml:1:", "service: gamma needs mean_s");
    expect_err("{dist: gamma, mean_s: 1, cv: 2, shape: 3}", "t.yaml:1:", "not both");
    expect_err("{dist: exponential}", "t.yaml:1:", "service: exponential needs mean_s or rate");
    expect_err("{dist: exponential, mean_s: 0.01, rate: 100}", "t.yaml:1:", "not both");
    expect_err("{dist: normal, mean_s: 0.01}", "t.yaml:1:", "service: normal needs mean_s and sd_s");
    expect_err("{dist: lognormal, mean_s: 0.01}", "t.yaml:1:", "service: lognormal needs");
    expect_err("{dist: lognormal, mean_s: 0.01, sigma: 1}", "t.yaml:1:", "not a mix");
    expect_err("{dist: deterministic}", "t.yaml:1:", "service: deterministic needs value_s");
    expect_err("{dist: uniform, min_s: 0.01}", "t.yaml:1:", "service: uniform needs min_s and max_s");
    expect_err("{dist: uniform, min_s: 0.02, max_s: 0.01}", "t.yaml:1:", "min_s");
    expect_err("{dist: empirical}", "t.yaml:1:", "service: empirical needs samples_s");
    expect_err("{dist: empirical, samples_s: []}", "t.yaml:1:", "empty");
    expect_err("{dist: empirical, samples_s: [0, 0]}", "t.yaml:1:", "all 0");
    expect_err("{dist: empirical, samples_s: 3}", "t.yaml:1:", "samples_s");
    expect_err("{mean_s: 0.01}", "t.yaml:1:", "service: missing 'dist'");

    /* strict keys: a key of another kind is unknown, with a suggestion */
    expect_err("{dist: exponential, mean_s: 0.01, sd_s: 0.1}", "t.yaml:1:", "unknown key 'sd_s'");
    /* sd_s is too far from every exponential key for a suggestion
     * (ss_suggest's threshold), so the valid keys are listed instead */
    expect_err("{dist: exponential, mean_s: 0.01, sd_s: 0.1}", "t.yaml:1:35:", "valid keys: dist, mean_s, rate");
    expect_err("{dist: exponential, mean: 0.01}", "t.yaml:1:", "did you mean 'mean_s'");
    expect_err("{dist: uniform, min_s: 0, max_s: 1, mean_s: 0.5}", "t.yaml:1:", "unknown key 'mean_s'");
    expect_err("{dist: normal, mean_s: 1, sd_s: 1, cv: 1}", "t.yaml:1:", "unknown key 'cv'");
    expect_err("{dist: expnential, mean_s: 1}", "t.yaml:1:", "did you mean 'exponential'");
    expect_err("{dist: poisson, mean_s: 1}", "t.yaml:1:", "deterministic, exponential");

    /* values: sign, non-finite, wrong type; positions are those of the value */
    expect_err("dist: gamma\nmean_s: 0.01\ncv: -2\n", "t.yaml:3:", "cv");
    expect_err("dist: exponential\nrate: 0\n", "t.yaml:2:", "rate");
    expect_err("dist: empirical\nsamples_s: [0.1, 0.2,\n  -0.3]\n", "t.yaml:3:", "");
    expect_err("dist: empirical\nsamples_s: [0.1, .nan]\n", "t.yaml:2:", "");
    expect_err("dist: normal\nmean_s: .inf\nsd_s: 1\n", "t.yaml:2:", "mean_s");
    expect_err("dist: normal\nmean_s: inf\nsd_s: 1\n", "t.yaml:2:", "mean_s");
    expect_err("dist: uniform\nmin_s: -1\nmax_s: 1\n", "t.yaml:2:", "min_s");
    expect_err("-0.5\n", "t.yaml:1:", "service");
    expect_err("fast\n", "t.yaml:1:", "service");
    expect_err("[1, 2]\n", "t.yaml:1:", "service");
}

/* The ziggurat exponential against the exact CDF: Kolmogorov-Smirnov with
 * n = 10^6.  sqrt(n) D exceeds 1.949 with probability 0.001 when the
 * sample is Exp(1) (Kolmogorov distribution), so a correct sampler fails
 * this once in a thousand seeds; a 1% error in the rate gives
 * sqrt(n) D of about 3.7 and cannot pass.  The tail beyond r = 7.697 (the
 * ziggurat's separate branch) is checked by count: P(X > 8) = e^-8, the
 * count is Binomial(n, e^-8) with s.d. 18.3, bound 4 s.d. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_exp_ziggurat_ks(void)
{
    enum { N = 1000000 };
    double *x = malloc(N * sizeof *x);
    gsl_rng *r = ss_rng_stream(99, 0, "test/ziggurat");
    size_t tail = 0;
    for (size_t i = 0; i < N; i++) {
        x[i] = ss_ran_exp1(r);
        tail += x[i] > 8.0;
    }
    qsort(x, N, sizeof *x, cmp_double);
    double d = 0;
    for (size_t i = 0; i < N; i++) {
        double f = 1.0 - exp(-x[i]);
        double lo = f - (double)i / N, hi = (double)(i + 1) / N - f;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    double ks = sqrt((double)N) * d, expect_tail = N * exp(-8.0);
    CU_ASSERT(ks < 1.949);
    CU_ASSERT(fabs((double)tail - expect_tail) < 4 * sqrt(expect_tail * (1 - exp(-8.0))));
    CU_ASSERT(x[0] >= 0);
    gsl_rng_free(r);
    free(x);
}

SS_TEST_SUITE("dist",
              {"exponential ziggurat: Kolmogorov-Smirnov and tail", test_exp_ziggurat_ks},
              {"deterministic", test_deterministic},
              {"exponential: exact moments and sample", test_exponential},
              {"normal truncated at 0: exact moments and sample", test_normal_truncated},
              {"lognormal: exact moments and sample", test_lognormal},
              {"gamma (cv 2 and shape 3): exact moments and sample", test_gamma},
              {"uniform: exact moments, sample, range", test_uniform},
              {"empirical: population moments, resampling", test_empirical},
              {"kind names", test_names},
              {"ss_dist_read accepts every documented form", test_read_ok},
              {"ss_dist_read errors are positioned and strict", test_read_errors})
