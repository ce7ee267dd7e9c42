/* calibrate_transfer.c: a machine's transfer law (core/xfer_law.h) from
 * the transfer probe's samples (tools/probe/transfer.py, kind "transfer",
 * use "fit"), as `transfer` in the model file; the samples of use
 * "validate" are never fitted (`servesim validate --transfer-law`).
 *
 * Each parameter comes from the runs that show it, in this order, by least
 * squares; "time" is a receiver's last byte, s from the sender's start,
 * and the law's times are ss_xfer_predict's (the flow model itself):
 *  1. setup_s: every run's first bytes.  The law sets connections up one
 *     after another, so the j-th first byte (a fan-out's in time order, a
 *     chain's in hop order) comes at j setup_s: a line through the origin
 *     in j (gsl_fit_mul).
 *  2. stream_bps: the single streams (unicast, k = 1): the median of
 *     8 bytes / (time - setup_s).
 *  3. shared_bps: the unicast runs with k >= 2, the sum of the absolute
 *     relative errors of the last receiver's time (absolute, not squared:
 *     on a shared machine one run in a few is slowed by other work, up to
 *     45% on the development VM), over a log grid (1,000 points, 1/16..16 x
 *     the first run's delivered rate), refined by golden section.
 *  4. hop_lag_bytes: the chains with k >= 2: receiver i ends (i - 1)
 *     hop_lag_bytes / r after receiver 1, r the chain's payload rate (its
 *     bytes over receiver 1's time less setup_s); through the
 *     origin, 0 if negative.
 *  5. relay_bps and relay_weight: the chains with k >= 2, absolute relative
 *     errors of the last hop's time over a 100 x 100 log grid (relay_bps
 *     1/16..4 x stream_bps, relay_weight 1/8..8), the best point refined by
 *     coordinate golden sections.
 * Without runs for a step its parameter cannot be fitted: an error naming
 * what is missing (a law needs all six). */
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/util.h"
#include "core/xfer_law.h"

typedef struct xset {
    const ss_hwp_sample **v;
    size_t n;
} xset;

static double last_s(const ss_hwp_sample *s) { return ss_xfer_time_s(s->xfer_chain, s->ntimes, s->times_s); }

static double sae(const ss_xfer_law *l, const xset *set)
{
    double e = 0;
    for (size_t i = 0; i < set->n; i++) {
        const ss_hwp_sample *s = set->v[i];
        double m = last_s(s);
        e += fabs(ss_xfer_predict_time_s(l, s->xfer_chain, s->receivers, s->bytes) - m) / m; /* absolute: one slowed run moves it little */
    }
    return e;
}

/* Golden section on log(*x) in [lo, hi] for the least sae (sum of absolute relative errors). */
static void golden(ss_xfer_law *l, double *x, double lo, double hi, const xset *set)
{
    double a = log(lo), b = log(hi), g = (sqrt(5) - 1) / 2;
    for (int it = 0; it < 80; it++) {
        double c = b - g * (b - a), d = a + g * (b - a);
        *x = exp(c);
        double fc = sae(l, set);
        *x = exp(d);
        double fd = sae(l, set);
        if (fc < fd) b = d;
        else a = c;
    }
    *x = exp((a + b) / 2);
}

static void pick(ss_hwprofile *const *profs, size_t nprofs, int chain, int kmin, int kmax, xset *out)
{
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->kind != SS_HWP_TRANSFER || s->xfer_use != 0 || s->xfer_chain != chain) continue;
            if ((int)s->receivers < kmin || (int)s->receivers > kmax) continue;
            out->v = ss_xrealloc(out->v, (out->n + 1) * sizeof *out->v);
            out->v[out->n++] = s;
        }
}

/* The first transfer sample of use fit, for the position of a message. */
static const ss_hwp_sample *first_fit(ss_hwprofile *const *profs, size_t nprofs, const char **path)
{
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++)
            if (profs[f]->samples[i].kind == SS_HWP_TRANSFER && profs[f]->samples[i].xfer_use == 0) {
                *path = profs[f]->path;
                return &profs[f]->samples[i];
            }
    return NULL;
}

/* at: the first transfer sample of use fit, in the profile at path. */
static int missing(ss_err *err, const char *path, const ss_hwp_sample *at, const char *what)
{
    return ss_err_at(err, path, at->line, at->col, "transfer samples without %s: the transfer law needs them (tools/probe/transfer.py "
                    "measures unicast and chain runs for k = 1, 2, 4, 8 with use: fit)", what);
}

/* Steps 1-5 (above); 0, or -1 with err set. */
static int fit_law(ss_hwprofile *const *profs, size_t nprofs, ss_xfer_law *l, size_t counts[3], ss_err *err)
{
    xset one = {0}, uni = {0}, ch = {0};
    const char *at_path = NULL;
    const ss_hwp_sample *first = first_fit(profs, nprofs, &at_path);
    pick(profs, nprofs, 0, 1, 1, &one);
    pick(profs, nprofs, 0, 2, 1 << 30, &uni);
    pick(profs, nprofs, 1, 2, 1 << 30, &ch);
    counts[0] = one.n, counts[1] = uni.n, counts[2] = ch.n;
    int rc = 0;
    if (one.n < 2) rc = missing(err, at_path, first, "two single streams (unicast, k = 1)");
    else if (uni.n < 1) rc = missing(err, at_path, first, "a unicast run to k >= 2 receivers");
    else if (ch.n < 1) rc = missing(err, at_path, first, "a chain to k >= 2 receivers");
    if (rc == 0) { /* 1 */
        xset all = {0};
        pick(profs, nprofs, 0, 1, 1 << 30, &all);
        pick(profs, nprofs, 1, 1, 1 << 30, &all);
        size_t n = 0;
        for (size_t i = 0; i < all.n; i++) n += all.v[i]->nfirst;
        double *x = ss_xcalloc(n, sizeof *x), *y = ss_xcalloc(n, sizeof *y);
        n = 0;
        for (size_t i = 0; i < all.n; i++) {
            const ss_hwp_sample *s = all.v[i];
            size_t at = n;
            for (size_t j = 0; j < s->nfirst; j++, n++) y[n] = s->first_s[j];
            if (!s->xfer_chain) gsl_sort(y + at, 1, s->nfirst); /* a fan-out's in time order */
            for (size_t j = 0; j < s->nfirst; j++) x[at + j] = (double)(j + 1);
        }
        double c1, v11, sumsq;
        gsl_fit_mul(x, 1, y, 1, n, &c1, &v11, &sumsq);
        free(x), free(y), free(all.v);
        l->setup_s = c1 > 0 ? c1 : 0;
    }
    if (rc == 0) { /* 2 */
        double *r = ss_xcalloc(one.n, sizeof *r);
        size_t n = 0;
        for (size_t i = 0; i < one.n; i++)
            if (last_s(one.v[i]) > l->setup_s) r[n++] = 8 * one.v[i]->bytes / (last_s(one.v[i]) - l->setup_s);
        if (n == 0) rc = missing(err, at_path, first, "single streams that take longer than their set-up");
        gsl_sort(r, 1, n);
        if (n) l->stream_bps = gsl_stats_median_from_sorted_data(r, 1, n);
        free(r);
    }
    if (rc == 0) { /* 3: relay terms neutral until step 5 */
        l->relay_bps = l->stream_bps, l->relay_weight = 1;
        const ss_hwp_sample *s = uni.v[0];
        double seen = 8 * s->bytes * s->receivers / last_s(s), best = INFINITY, at = seen;
        for (int i = 0; i <= 1000; i++) {
            l->shared_bps = seen * exp(log(16) * (2.0 * i / 1000 - 1));
            double e = sae(l, &uni);
            if (e < best) best = e, at = l->shared_bps;
        }
        l->shared_bps = at;
        golden(l, &l->shared_bps, at / 1.03, at * 1.03, &uni);
    }
    if (rc == 0) { /* 4 */
        size_t n = 0;
        for (size_t i = 0; i < ch.n; i++) n += ch.v[i]->ntimes - 1;
        double *x = ss_xcalloc(n, sizeof *x), *y = ss_xcalloc(n, sizeof *y);
        n = 0;
        for (size_t i = 0; i < ch.n; i++) {
            const ss_hwp_sample *s = ch.v[i];
            double r = s->bytes / fmax(s->times_s[0] - l->setup_s, 1e-9);
            for (size_t j = 1; j < s->ntimes; j++, n++) x[n] = (double)j / r, y[n] = s->times_s[j] - s->times_s[0];
        }
        double c1, v11, sumsq;
        gsl_fit_mul(x, 1, y, 1, n, &c1, &v11, &sumsq);
        free(x), free(y);
        l->hop_lag_bytes = c1 > 0 ? c1 : 0;
    }
    if (rc == 0) { /* 5 */
        double best = INFINITY, bw = 1, br = l->stream_bps;
        for (int i = 0; i <= 100; i++)
            for (int j = 0; j <= 100; j++) {
                l->relay_bps = l->stream_bps * exp(log(16) * (-1 + 1.5 * i / 100));
                l->relay_weight = exp(log(8) * (2.0 * j / 100 - 1));
                double e = sae(l, &ch);
                if (e < best) best = e, br = l->relay_bps, bw = l->relay_weight;
            }
        l->relay_bps = br, l->relay_weight = bw;
        for (int it = 0; it < 4; it++) {
            golden(l, &l->relay_bps, l->relay_bps / 1.05, l->relay_bps * 1.05, &ch);
            golden(l, &l->relay_weight, l->relay_weight / 1.05, l->relay_weight * 1.05, &ch);
        }
    }
    free(one.v), free(uni.v), free(ch.v);
    return rc;
}

int ss_cal_transfer(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    size_t nfit = 0, nval = 0;
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++)
            if (profs[f]->samples[i].kind == SS_HWP_TRANSFER) *(profs[f]->samples[i].xfer_use ? &nval : &nfit) += 1;
    if (nfit == 0) {
        if (nval) fprintf(c->sum, "transfer: %zu runs kept for validate, none to fit\n", nval);
        return 0;
    }
    ss_xfer_law l = {0};
    size_t counts[3];
    TRY(fit_law(profs, nprofs, &l, counts, err));
    cJSON *t = cJSON_AddObjectToObject(c->root, "transfer");
    ss_cal_put_num(t, "setup_s", l.setup_s);
    ss_cal_put_num(t, "stream_bps", l.stream_bps);
    ss_cal_put_num(t, "shared_bps", l.shared_bps);
    ss_cal_put_num(t, "relay_bps", l.relay_bps);
    ss_cal_put_num(t, "relay_weight", l.relay_weight);
    ss_cal_put_num(t, "hop_lag_bytes", l.hop_lag_bytes);
    cJSON_AddStringToObject(t, "method",
                            "least squares on the receivers' last bytes, step by step (calib/calibrate_transfer.c): "
                            "setup and one stream's rate from single streams, the shared rate from unicast fan-outs, "
                            "the hop lag from chains' receiver spreads, the relay's rate and weight from chains");
    char *from = ss_xasprintf("%zu single streams, %zu unicast fan-outs, %zu chains (use: fit); %zu runs kept for "
                              "validate",
                              counts[0], counts[1], counts[2], nval);
    cJSON_AddStringToObject(t, "from", from);
    fprintf(c->sum,
            "transfer law: setup %.3g ms, one stream %.3g Gbit/s, shared %.3g Gbit/s, relay %.3g Gbit/s, relay "
            "weight %.3g, hop lag %.3g MB (%s)\n",
            l.setup_s * 1e3, l.stream_bps / 1e9, l.shared_bps / 1e9, l.relay_bps / 1e9, l.relay_weight,
            l.hop_lag_bytes / 1e6, from);
    free(from);
    return 0;
}
