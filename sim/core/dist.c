/* dist.c: reading, sampling and exact moments of the time distributions of
 * dist.h.  Sampling is on the simulator's hot path: no allocation, no
 * per-call setup (all parameters are converted at read time); exponential
 * and deterministic draws are inline in dist.h, the other kinds here. */
#include "core/dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "core/zigexp.h"

static const char *const kind_names[] = {
    "deterministic", "exponential", "normal", "lognormal", "gamma", "uniform", "empirical", NULL,
};

const char *ss_dist_name(ss_dist_kind k)
{
    if ((unsigned)k >= sizeof kind_names / sizeof kind_names[0] - 1) return "unknown";
    return kind_names[k];
}

static void dist_init(ss_dist *d, ss_dist_kind kind, double p1, double p2)
{
    d->kind = kind;
    d->p1 = p1;
    d->p2 = p2;
    d->samples = NULL;
    d->nsamples = 0;
}

void ss_dist_deterministic(ss_dist *d, double value_s)
{
    dist_init(d, SS_DIST_DETERMINISTIC, value_s, 0);
}

void ss_dist_exponential(ss_dist *d, double mean_s)
{
    dist_init(d, SS_DIST_EXPONENTIAL, mean_s, 0);
}

void ss_dist_free(ss_dist *d)
{
    if (!d) return;
    free(d->samples);
    d->samples = NULL;
    d->nsamples = 0;
}

/* ---- sampling ------------------------------------------------------- */

/* The kinds ss_dist_sample (dist.h) does not draw inline; it handles
 * exponential and deterministic itself, repeated here for completeness. */
double ss_dist_sample_other(const ss_dist *d, gsl_rng *r)
{
    switch (d->kind) {
    case SS_DIST_DETERMINISTIC:
        return d->p1;
    case SS_DIST_EXPONENTIAL:
        return d->p1 * ss_ran_exp1(r); /* ziggurat: no log per draw (zigexp.h) */
    case SS_DIST_NORMAL: {
        /* mu > 0, so each try is accepted with probability >= 1/2.  GSL's
         * ziggurat draws the same N(0, sd) as gsl_ran_gaussian, about 3x
         * faster (one uniform and a table lookup instead of polar
         * Box-Muller's two uniforms, a log and a sqrt). */
        double x;
        do x = d->p1 + gsl_ran_gaussian_ziggurat(r, d->p2);
        while (x < 0);
        return x;
    }
    case SS_DIST_LOGNORMAL:
        /* exp(N(mu, sigma)): gsl_ran_lognormal's definition, with the
         * ziggurat normal for speed. */
        return exp(d->p1 + gsl_ran_gaussian_ziggurat(r, d->p2));
    case SS_DIST_GAMMA:
        return gsl_ran_gamma(r, d->p1, d->p2);
    case SS_DIST_UNIFORM:
        return gsl_ran_flat(r, d->p1, d->p2);
    case SS_DIST_EMPIRICAL:
        if (d->nsamples == 1) return d->samples[0];
        return d->samples[gsl_rng_uniform_int(r, (unsigned long)d->nsamples)];
    }
    return d->p1;
}

/* ---- exact moments -------------------------------------------------- */

/* Normal(mu, sd) truncated to [0, inf): with alpha = -mu/sd,
 * Z = 1 - Phi(alpha) = Phi(mu/sd) and lambda = phi(alpha)/Z,
 *   mean = mu + sd*lambda,  var = sd^2 * (1 + alpha*lambda - lambda^2). */
static void truncnorm_moments(double mu, double sd, double *mean, double *var)
{
    if (!(sd > 0)) {
        *mean = mu;
        *var = 0;
        return;
    }
    double alpha = -mu / sd;
    double z = gsl_cdf_ugaussian_P(mu / sd);
    double lambda = gsl_ran_ugaussian_pdf(alpha) / z;
    *mean = mu + sd * lambda;
    double v = sd * sd * (1 + alpha * lambda - lambda * lambda);
    *var = v > 0 ? v : 0;
}

/* Population mean and variance (two passes, for accuracy). */
static void empirical_moments(const ss_dist *d, double *mean, double *var)
{
    size_t n = d->nsamples;
    if (n == 0) {
        *mean = 0;
        *var = 0;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; i++) s += d->samples[i];
    double m = s / (double)n, ss = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        double dv = d->samples[i] - m;
        ss += dv * dv;
        c += dv;
    }
    *mean = m;
    *var = (ss - c * c / (double)n) / (double)n; /* corrected two-pass */
    if (*var < 0) *var = 0;
}

double ss_dist_mean(const ss_dist *d)
{
    double m, v;
    switch (d->kind) {
    case SS_DIST_DETERMINISTIC:
    case SS_DIST_EXPONENTIAL:
        return d->p1;
    case SS_DIST_NORMAL:
        truncnorm_moments(d->p1, d->p2, &m, &v);
        return m;
    case SS_DIST_LOGNORMAL:
        return exp(d->p1 + d->p2 * d->p2 / 2);
    case SS_DIST_GAMMA:
        return d->p1 * d->p2;
    case SS_DIST_UNIFORM:
        return (d->p1 + d->p2) / 2;
    case SS_DIST_EMPIRICAL:
        empirical_moments(d, &m, &v);
        return m;
    }
    return NAN;
}

double ss_dist_scv(const ss_dist *d)
{
    double m, v;
    switch (d->kind) {
    case SS_DIST_DETERMINISTIC:
        return 0;
    case SS_DIST_EXPONENTIAL:
        return 1;
    case SS_DIST_NORMAL:
        truncnorm_moments(d->p1, d->p2, &m, &v);
        return m > 0 ? v / (m * m) : 0;
    case SS_DIST_LOGNORMAL:
        return expm1(d->p2 * d->p2);
    case SS_DIST_GAMMA:
        return 1 / d->p1;
    case SS_DIST_UNIFORM: {
        double w = d->p2 - d->p1, mean = (d->p1 + d->p2) / 2;
        return mean > 0 ? w * w / 12 / (mean * mean) : 0;
    }
    case SS_DIST_EMPIRICAL:
        empirical_moments(d, &m, &v);
        return m > 0 ? v / (m * m) : 0;
    }
    return NAN;
}

/* ---- reading -------------------------------------------------------- */

/* Keys each kind allows (besides these, nothing: strict reading). */
static const char *const keys_deterministic[] = {"dist", "value_s", "mean_s", NULL};
static const char *const keys_exponential[] = {"dist", "mean_s", "rate", NULL};
static const char *const keys_normal[] = {"dist", "mean_s", "sd_s", NULL};
static const char *const keys_lognormal[] = {"dist", "mean_s", "sd_s", "mu", "sigma", NULL};
static const char *const keys_gamma[] = {"dist", "mean_s", "cv", "shape", NULL};
static const char *const keys_uniform[] = {"dist", "min_s", "max_s", NULL};
static const char *const keys_empirical[] = {"dist", "samples_s", NULL};

static const char *const *const kind_keys[] = {
    keys_deterministic, keys_exponential, keys_normal, keys_lognormal,
    keys_gamma,         keys_uniform,     keys_empirical,
};

/* Read an optional number `key` of map `m` with `flags`; 1 read, 0 absent,
 * -1 error.  Non-finite values (.inf, .nan) are refused here whatever the
 * generic reader accepts. */
static int get_num(const ss_node *m, const char *key, double *out, int flags, const char *what,
                   const char *kname, ss_err *err)
{
    int rc = ss_cfg_num(m, key, out, flags, err);
    if (rc == 1 && !isfinite(*out))
        return ss_node_err(ss_map_find(m, key), err, "%s: %s %s must be finite", what, kname, key);
    return rc;
}

static int read_empirical(const ss_node *m, const char *what, ss_dist *out, ss_err *err)
{
    ss_node *seq = NULL;
    int rc = ss_cfg_seq(m, "samples_s", &seq, 0, err);
    if (rc < 0) return -1;
    if (rc == 0 || !seq) return ss_node_err(m, err, "%s: empirical needs samples_s", what);
    if (seq->n == 0) return ss_node_err(seq, err, "%s: empirical samples_s is empty", what);
    double *xs = ss_xmalloc(seq->n * sizeof *xs);
    int any_pos = 0;
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        char what_i[48];
        snprintf(what_i, sizeof what_i, "samples_s[%zu]", i);
        if (ss_node_num(it, what_i, &xs[i], 0, err) < 0) goto fail;
        if (!isfinite(xs[i])) {
            ss_node_err(it, err, "%s: empirical samples_s[%zu] must be finite", what, i);
            goto fail;
        }
        if (xs[i] < 0) {
            ss_node_err(it, err, "%s: empirical samples_s[%zu] is negative (%g)", what, i, xs[i]);
            goto fail;
        }
        if (xs[i] > 0) any_pos = 1;
    }
    if (!any_pos) {
        ss_node_err(seq, err, "%s: empirical samples_s are all 0 (the mean must be > 0)", what);
        goto fail;
    }
    dist_init(out, SS_DIST_EMPIRICAL, 0, 0);
    out->samples = xs;
    out->nsamples = seq->n;
    return 0;
fail:
    free(xs);
    return -1;
}

static int read_map(const ss_node *m, const char *what, ss_dist *out, ss_err *err)
{
    if (!ss_map_find(m, "dist"))
        return ss_node_err(m, err,
                           "%s: missing 'dist' (one of deterministic, exponential, normal, "
                           "lognormal, gamma, uniform, empirical), or write a bare number",
                           what);
    int k = 0;
    if (ss_cfg_enum(m, "dist", kind_names, &k, SS_REQ, err) < 0) return -1;
    const char *kn = kind_names[k];
    char where[256];
    snprintf(where, sizeof where, "%s (%s)", what, kn);
    if (ss_cfg_check_keys(m, kind_keys[k], where, err) < 0) return -1;

    double a = 0, b = 0, c = 0, e = 0;
    int ha, hb, hc, hd;
    switch ((ss_dist_kind)k) {
    case SS_DIST_DETERMINISTIC:
        if ((ha = get_num(m, "value_s", &a, SS_NONNEG, what, kn, err)) < 0) return -1;
        if ((hb = get_num(m, "mean_s", &b, SS_NONNEG, what, kn, err)) < 0) return -1;
        if (ha && hb)
            return ss_node_err(ss_map_find(m, "mean_s"), err,
                               "%s: deterministic takes value_s or mean_s, not both", what);
        if (!ha && !hb) return ss_node_err(m, err, "%s: deterministic needs value_s", what);
        dist_init(out, SS_DIST_DETERMINISTIC, ha ? a : b, 0);
        return 0;
    case SS_DIST_EXPONENTIAL:
        if ((ha = get_num(m, "mean_s", &a, SS_POS, what, kn, err)) < 0) return -1;
        if ((hb = get_num(m, "rate", &b, SS_POS, what, kn, err)) < 0) return -1;
        if (ha && hb)
            return ss_node_err(ss_map_find(m, "rate"), err, "%s: exponential takes mean_s or rate, not both",
                               what);
        if (!ha && !hb) return ss_node_err(m, err, "%s: exponential needs mean_s or rate", what);
        if (hb) {
            a = 1 / b;
            if (!(a > 0) || !isfinite(a))
                return ss_node_err(ss_map_find(m, "rate"), err, "%s: exponential rate out of range", what);
        }
        dist_init(out, SS_DIST_EXPONENTIAL, a, 0);
        return 0;
    case SS_DIST_NORMAL:
        if ((ha = get_num(m, "mean_s", &a, SS_POS, what, kn, err)) < 0) return -1;
        if ((hb = get_num(m, "sd_s", &b, SS_NONNEG, what, kn, err)) < 0) return -1;
        if (!ha || !hb) return ss_node_err(m, err, "%s: normal needs mean_s and sd_s", what);
        dist_init(out, SS_DIST_NORMAL, a, b);
        return 0;
    case SS_DIST_LOGNORMAL:
        if ((ha = get_num(m, "mean_s", &a, SS_POS, what, kn, err)) < 0) return -1;
        if ((hb = get_num(m, "sd_s", &b, SS_NONNEG, what, kn, err)) < 0) return -1;
        if ((hc = get_num(m, "mu", &c, 0, what, kn, err)) < 0) return -1;
        if ((hd = get_num(m, "sigma", &e, SS_NONNEG, what, kn, err)) < 0) return -1;
        if ((ha || hb) && (hc || hd))
            return ss_node_err(ss_map_find(m, hc ? "mu" : "sigma"), err,
                               "%s: lognormal takes mean_s and sd_s, or mu and sigma (log space), "
                               "not a mix",
                               what);
        if (ha && hb) {
            double s2 = log1p((b / a) * (b / a));
            dist_init(out, SS_DIST_LOGNORMAL, log(a) - s2 / 2, sqrt(s2));
        } else if (hc && hd) {
            dist_init(out, SS_DIST_LOGNORMAL, c, e);
        } else {
            return ss_node_err(m, err, "%s: lognormal needs mean_s and sd_s, or mu and sigma", what);
        }
        if (!isfinite(ss_dist_mean(out)) || !isfinite(ss_dist_scv(out)))
            return ss_node_err(m, err, "%s: lognormal parameters give a non-finite mean or variance",
                               what);
        return 0;
    case SS_DIST_GAMMA:
        if ((ha = get_num(m, "mean_s", &a, SS_POS, what, kn, err)) < 0) return -1;
        if ((hb = get_num(m, "cv", &b, SS_POS, what, kn, err)) < 0) return -1;
        if ((hc = get_num(m, "shape", &c, SS_POS, what, kn, err)) < 0) return -1;
        if (!ha) return ss_node_err(m, err, "%s: gamma needs mean_s", what);
        if (hb && hc)
            return ss_node_err(ss_map_find(m, "shape"), err, "%s: gamma takes cv or shape, not both", what);
        if (!hb && !hc) return ss_node_err(m, err, "%s: gamma needs cv or shape", what);
        if (hb) c = 1 / (b * b);
        if (!(c > 0) || !isfinite(c))
            return ss_node_err(m, err, "%s: gamma shape out of range", what);
        dist_init(out, SS_DIST_GAMMA, c, a / c);
        return 0;
    case SS_DIST_UNIFORM:
        if ((ha = get_num(m, "min_s", &a, SS_NONNEG, what, kn, err)) < 0) return -1;
        if ((hb = get_num(m, "max_s", &b, SS_POS, what, kn, err)) < 0) return -1;
        if (!ha || !hb) return ss_node_err(m, err, "%s: uniform needs min_s and max_s", what);
        if (a > b)
            return ss_node_err(ss_map_find(m, "min_s"), err, "%s: uniform min_s (%g) is greater than max_s (%g)",
                               what, a, b);
        dist_init(out, SS_DIST_UNIFORM, a, b);
        return 0;
    case SS_DIST_EMPIRICAL:
        return read_empirical(m, what, out, err);
    }
    return ss_node_err(m, err, "%s: unknown distribution", what);
}

int ss_dist_read(const ss_node *n, const char *what, ss_dist *out, ss_err *err)
{
    dist_init(out, SS_DIST_DETERMINISTIC, 0, 0);
    if (!what) what = "distribution";
    if (!n) return ss_err_at(err, NULL, 0, 0, "%s: missing distribution", what);
    if (n->kind == SS_NODE_SCALAR) {
        double v = 0;
        if (ss_node_num(n, what, &v, SS_NONNEG, err) < 0) return -1;
        if (!isfinite(v)) return ss_node_err(n, err, "%s: value must be finite", what);
        dist_init(out, SS_DIST_DETERMINISTIC, v, 0);
        return 0;
    }
    if (n->kind != SS_NODE_MAP)
        return ss_node_err(n, err, "%s: expected a number or a map with 'dist:', got a sequence", what);
    return read_map(n, what, out, err);
}
