/* calibrate_stacking.c: the scheduler's wake-up stacking from the probe's
 * ring benchmark (tools/probe/stacking.py, kind "stacking" samples) - the
 * probability that a waking thread is queued on a busy core though another
 * is free, and the mean time until the scheduler migrates it, as
 * serve/pipeline_compute.c models them (`pipeline.stacking`).
 *
 * The model of a burn's stretch (wall minus CPU time) in the ring with one
 * token per core: a burn has two chances to be stacked - its own thread's
 * wake-up, and the wake-up of the other token's next thread while it runs -
 * each taken with probability q; a stacking lasts tau ~ Exp(mean m) and
 * costs each of the two threads tau / 2 of wall time (half a core each).
 * [ASSUMPTION: the burns (20 ms) outlast the stackings, so none is cut
 * short.]  So the stretch is s = B1 X1 + B2 X2 + e, Bi ~ Bernoulli(q),
 * Xi ~ Exp(theta = m / 2), e the baseline noise of the ring with one token
 * (timer ticks, interrupts), independent.  With mu = E[s], E[s^2]:
 *     mu = 2 q theta,   E[s^2] = 4 q theta^2 + 2 q^2 theta^2
 * so theta = (E[s^2] - mu^2 / 2) / (2 mu), q = mu / (2 theta), m = 2 theta:
 * the method of moments, with the baseline's mean and second moment taken
 * off.  The 95% intervals are percentile bootstrap intervals (2,000
 * resamples of both rings' burns, a fixed stream: the same file gives the
 * same numbers). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/rng.h"
#include "core/util.h"

#define BOOT 2000

typedef struct est {
    double q, m_s, mu_s;
} est;

/* The pooled stretches, or with `deliveries` the token deliveries, of a ring
 * group's samples with `runnable` tokens (allocated, never NULL). */
static double *ring_pool(const group *g, unsigned runnable, int deliveries, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->runnable == runnable) k += deliveries ? s->ndelivery : s->ntimes;
    }
    double *v = ss_xcalloc(k + 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->runnable != runnable) continue;
        size_t m = deliveries ? s->ndelivery : s->ntimes;
        const double *x = deliveries ? s->delivery_s : s->times_s;
        for (size_t j = 0; j < m; j++) v[(*n)++] = x[j];
    }
    return v;
}

double *ss_cal_ring_stretches(const group *g, unsigned runnable, size_t *n)
{
    return ring_pool(g, runnable, 0, n);
}

double *ss_cal_ring_deliveries(const group *g, unsigned runnable, size_t *n)
{
    return ring_pool(g, runnable, 1, n);
}

/* The moments of v (or of a resample of it when rng is given). */
static void moments2(const double *v, size_t n, gsl_rng *rng, double *m1, double *m2)
{
    double a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[rng ? gsl_rng_uniform_int(rng, (unsigned long)n) : i];
        a += x;
        b += x * x;
    }
    *m1 = a / (double)n;
    *m2 = b / (double)n;
}

/* 0 with the estimate; -1 no stacking above the baseline; -2 q above 1. */
static int estimate(double b1, double b2, double x1, double x2, est *e)
{
    double mu = x1 - b1, es2 = x2 - b2 - 2 * b1 * mu;
    double theta = (es2 - mu * mu / 2) / (2 * mu);
    if (!(mu > 0) || !(theta > 0)) return -1;
    *e = (est){.q = mu / (2 * theta), .m_s = 2 * theta, .mu_s = mu};
    return e->q <= 1 ? 0 : -2;
}

static int one(calib *c, const group *g, cJSON *sched, ss_err *err)
{
    unsigned cores = ss_cal_sample_of(&g->refs[0])->cores;
    if (cores < 2)
        return ss_cal_group_err(g, err, "stacking on %u core: a thread can only be stacked where another core is "
                                        "free; expected cores >= 2", cores);
    size_t nb, nx;
    double *base = ss_cal_ring_stretches(g, 1, &nb), *load = ss_cal_ring_stretches(g, cores, &nx);
    int rc = 0;
    if (nb < 2 || nx < 2) {
        rc = ss_cal_group_err(g, err, "stacking on %u cores: expected the ring with runnable 1 (the baseline) and "
                                      "with runnable %u (a thread per core), got %zu and %zu burns",
                              cores, cores, nb, nx);
        goto out;
    }
    double b1, b2, x1, x2;
    moments2(base, nb, NULL, &b1, &b2);
    moments2(load, nx, NULL, &x1, &x2);
    est e;
    int fit = estimate(b1, b2, x1, x2, &e);
    if (fit == -1) {
        rc = ss_cal_group_err(g, err, "stacking on %u cores: the stretches with a thread per core (mean %g s) do "
                                      "not fit stacking over the baseline (mean %g s): nothing to fit",
                              cores, x1, b1);
        goto out;
    }
    if (fit == -2) {
        rc = ss_cal_group_err(g, err, "stacking on %u cores: the stretches imply a stacking probability of %.3g, "
                                      "above 1: they are too uniform for stackings of exponential length",
                              cores, e.q);
        goto out;
    }
    gsl_rng *rng = ss_rng_stream(0, 0, "calibrate/stacking");
    double *qs = ss_xcalloc(BOOT, sizeof *qs), *ms = ss_xcalloc(BOOT, sizeof *ms);
    size_t nb_ok = 0;
    for (size_t k = 0; k < BOOT; k++) {
        double rb1, rb2, rx1, rx2;
        est r;
        moments2(base, nb, rng, &rb1, &rb2);
        moments2(load, nx, rng, &rx1, &rx2);
        if (estimate(rb1, rb2, rx1, rx2, &r) == 0) {
            qs[nb_ok] = r.q;
            ms[nb_ok++] = r.m_s;
        }
    }
    gsl_rng_free(rng);
    double qlo = NAN, qhi = NAN, mlo = NAN, mhi = NAN;
    if (nb_ok >= 2) {
        ss_cal_percentile95(qs, nb_ok, &qlo, &qhi);
        ss_cal_percentile95(ms, nb_ok, &mlo, &mhi);
    }
    free(qs);
    free(ms);
    cJSON *o = cJSON_CreateObject();
    ss_cal_put_num(o, "probability", e.q);
    if (nb_ok >= 2) ss_cal_put_range(o, "probability_ci95", qlo, qhi);
    ss_cal_put_num(o, "mean_s", e.m_s);
    if (nb_ok >= 2) ss_cal_put_range(o, "mean_s_ci95", mlo, mhi);
    cJSON_AddNumberToObject(o, "cores", cores);
    cJSON_AddStringToObject(o, "method",
                            "method of moments on the ring's burn stretches (wall - CPU), the baseline's "
                            "(runnable 1) moments taken off: two chances per burn, exponential stackings "
                            "costing each thread half their length (calibrate_stacking.c); 95% intervals: "
                            "percentile bootstrap, 2000 resamples");
    cJSON *bj = cJSON_AddObjectToObject(o, "baseline");
    cJSON_AddNumberToObject(bj, "burns", (double)nb);
    ss_cal_put_num(bj, "mean_stretch_s", b1);
    cJSON *lj = cJSON_AddObjectToObject(o, "loaded");
    cJSON_AddNumberToObject(lj, "burns", (double)nx);
    ss_cal_put_num(lj, "mean_stretch_s", x1);
    if (nb_ok < BOOT) cJSON_AddNumberToObject(o, "bootstrap_resamples_unfit", (double)(BOOT - nb_ok));
    cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
    cJSON_AddItemToObject(sched, "stacking", o);
    if (nb_ok >= 2)
        fprintf(c->sum,
                "  wake-up stacking on %u cores: probability %.3g [%.3g, %.3g], migration after %.3g ms [%.3g, %.3g] "
                "(%zu burns, %zu alone)\n",
                cores, e.q, qlo, qhi, 1e3 * e.m_s, 1e3 * mlo, 1e3 * mhi, nx, nb);
    else
        fprintf(c->sum,
                "  wake-up stacking on %u cores: probability %.3g, migration after %.3g ms, no interval (%zu of %d "
                "resamples fit) (%zu burns, %zu alone)\n",
                cores, e.q, 1e3 * e.m_s, nb_ok, BOOT, nx, nb);
out:
    free(base);
    free(load);
    return rc;
}

int ss_cal_stacking(calib *c, ss_err *err)
{
    if (c->stacks.n == 0) return 0;
    /* one machine's scheduler: a model file holds one stacking */
    if (c->stacks.n > 1) {
        const group *g = &c->stacks.g[1];
        return ss_err_at(err, g->refs[0].prof->path, ss_cal_sample_of(&g->refs[0])->line,
                         ss_cal_sample_of(&g->refs[0])->col,
                         "stacking on %u cores after stacking on %u cores: one calibration fits one machine's "
                         "scheduler (calibrate each machine's profiles apart)",
                         ss_cal_sample_of(&g->refs[0])->cores, ss_cal_sample_of(&c->stacks.g[0].refs[0])->cores);
    }
    for (size_t i = 0; i < c->stacks.g[0].nrefs; i++) { /* each ring is the baseline or one thread per core */
        const ss_hwp_sample *s = ss_cal_sample_of(&c->stacks.g[0].refs[i]);
        if (s->runnable != 1 && s->runnable != s->cores)
            return ss_err_at(err, c->stacks.g[0].refs[i].prof->path, s->line, s->col,
                             "runnable: expected 1 (the baseline) or the cores (%u), got %u: the fit reads those "
                             "two rings", s->cores, s->runnable);
    }
    return one(c, &c->stacks.g[0], ss_cal_scheduler(c), err);
}
