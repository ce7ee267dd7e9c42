/* calibrate.c: profile samples grouped, fitted (core/fit.h) and written as one
 * model file with the provenance of every number (calibrate.h).  Groups keep
 * the order in which their first sample appears (file by file, sample by
 * sample), so the output is the same bytes on every run. */
#include "cmd/calibrate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/cfg.h"
#include "core/fit.h"

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

/* ---- groups of samples --------------------------------------------------- */

typedef struct ref {
    const ss_hwprofile *prof;
    size_t sample;  /* index in prof->samples */
} ref;

typedef struct group {
    char *key;
    ref *refs;      /* the samples pooled here, in input order */
    size_t nrefs;
    double *x, *y;  /* one point per observation: x the batch or bytes (laws), y the time in s */
    size_t n;
    int summary;    /* the group's samples are summaries of published tables (one point each) */
} group;

typedef struct groups {
    group *g;
    size_t n;
} groups;

static const ss_hwp_sample *sample_of(const ref *r)
{
    return &r->prof->samples[r->sample];
}

static group *group_for(groups *gs, const char *key)
{
    for (size_t i = 0; i < gs->n; i++)
        if (strcmp(gs->g[i].key, key) == 0) return &gs->g[i];
    gs->g = ss_xrealloc(gs->g, (gs->n + 1) * sizeof *gs->g);
    group *g = &gs->g[gs->n++];
    memset(g, 0, sizeof *g);
    g->key = ss_xstrdup(key);
    return g;
}

/* Pool a sample's observations into the group keyed `key`, each at abscissa x. */
static group *add(groups *gs, const char *key, const ss_hwprofile *p, size_t i, double x)
{
    group *g = group_for(gs, key);
    const ss_hwp_sample *s = &p->samples[i];
    if (g->nrefs == 0) g->summary = s->summary;
    g->refs = ss_xrealloc(g->refs, (g->nrefs + 1) * sizeof *g->refs);
    g->refs[g->nrefs++] = (ref){p, i};
    g->x = ss_xrealloc(g->x, (g->n + s->ntimes + 1) * sizeof *g->x);
    g->y = ss_xrealloc(g->y, (g->n + s->ntimes + 1) * sizeof *g->y);
    for (size_t k = 0; k < s->ntimes; k++, g->n++) {
        g->x[g->n] = x;
        g->y[g->n] = s->times_s[k];
    }
    return g;
}

static void groups_free(groups *gs)
{
    for (size_t i = 0; i < gs->n; i++) {
        free(gs->g[i].key);
        free(gs->g[i].refs);
        free(gs->g[i].x);
        free(gs->g[i].y);
    }
    free(gs->g);
}

static const char *piece_word(ss_hwp_piece k)
{
    return k == SS_HWP_BLOCK ? "block" : k == SS_HWP_LAYER ? "layer" : "model";
}

/* The compute piece, device and threads of a sample, as one key ("\x1f" cannot
 * occur in a name a person writes). */
static char *piece_key(const ss_hwp_sample *s)
{
    return ss_xasprintf("%s\x1f%s\x1f%s\x1f%s\x1f%u", s->model, piece_word(s->piece_kind), s->piece ? s->piece : "",
                        s->device, s->threads);
}

/* "block 'block1' of resnet50-split on cpu, 2 threads" */
static char *piece_words(const ss_hwp_sample *s)
{
    char *what = s->piece ? ss_xasprintf("%s '%s' of %s", piece_word(s->piece_kind), s->piece, s->model)
                          : ss_xasprintf("model %s", s->model);
    char *all = ss_xasprintf("%s on %s, %u thread%s", what, s->device, s->threads, s->threads == 1 ? "" : "s");
    free(what);
    return all;
}

/* ---- JSON helpers ------------------------------------------------------------ */

/* Ten significant digits: enough for any measurement, and short to read. */
static double round10(double x)
{
    if (!isfinite(x) || x == 0) return x;
    char buf[64];
    snprintf(buf, sizeof buf, "%.10g", x);
    return strtod(buf, NULL);
}

static void put_num(cJSON *o, const char *key, double x)
{
    if (isfinite(x)) cJSON_AddNumberToObject(o, key, round10(x));
    else cJSON_AddNullToObject(o, key);
}

static void put_interval(cJSON *o, const char *key, double mid, double half)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    cJSON_AddItemToArray(a, cJSON_CreateNumber(round10(mid - half)));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(round10(mid + half)));
}

static cJSON *refs_json(const group *g)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < g->nrefs; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "file", g->refs[i].prof->path);
        cJSON_AddNumberToObject(r, "sample", (double)g->refs[i].sample);
        cJSON_AddNumberToObject(r, "line", sample_of(&g->refs[i])->line);
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        if (s->summary) {
            if (s->n_obs) cJSON_AddNumberToObject(r, "observations", s->n_obs);
            put_num(r, "mean_s", s->times_s[0]);
            if (!isnan(s->sd_s)) put_num(r, "sd_s", s->sd_s);
        } else {
            cJSON_AddNumberToObject(r, "observations", (double)s->ntimes);
        }
        if (s->source) cJSON_AddStringToObject(r, "source", s->source);
        cJSON_AddItemToArray(a, r);
    }
    return a;
}

/* "FILE:LINE:COL: " of a group's first sample, then the message. */
static int group_err(const group *g, ss_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int group_err(const group *g, ss_err *err, const char *fmt, ...)
{
    const ss_hwp_sample *s = sample_of(&g->refs[0]);
    va_list ap;
    va_start(ap, fmt);
    ss_err_vat(err, g->refs[0].prof->path, s->line, s->col, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- summaries of published tables ----------------------------------------- */

/* A group pools raw observations or summaries, not both: 0, or -1 at the
 * first sample of the other form. */
static int check_forms(const groups *gs, ss_err *err)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t k = 1; k < gs->g[i].nrefs; k++) {
            const ss_hwp_sample *s = sample_of(&gs->g[i].refs[k]);
            if (s->summary != gs->g[i].summary)
                return ss_err_at(err, gs->g[i].refs[k].prof->path, s->line, s->col,
                                 "this sample is %s, but the first of its group (line %d) is %s: a fit pools raw "
                                 "observations or published summaries, not both",
                                 s->summary ? "a summary" : "raw observations", sample_of(&gs->g[i].refs[0])->line,
                                 gs->g[i].summary ? "a summary" : "raw observations");
        }
    return 0;
}

/* A group pools the observations of one micro_mode (tools/probe/micro.py: warm
 * or pipeline timing of the same piece are different measurements, not one
 * sample): 0, or -1 at the first sample whose mode differs from the group's
 * first (a sample that does not say counts as its own mode). */
static int check_modes(const groups *gs, ss_err *err)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t k = 1; k < gs->g[i].nrefs; k++) {
            const ss_hwp_sample *s = sample_of(&gs->g[i].refs[k]), *s0 = sample_of(&gs->g[i].refs[0]);
            if (s->micro_mode != s0->micro_mode) {
                const char *m = ss_hwp_micro_mode_name(s->micro_mode), *m0 = ss_hwp_micro_mode_name(s0->micro_mode);
                return ss_err_at(err, gs->g[i].refs[k].prof->path, s->line, s->col,
                                 "micro_mode: this sample's is %s%s%s, but the first of its group's (%s line %d) is "
                                 "%s%s%s: a fit pools observations timed one way (calibrate the modes separately)",
                                 m ? "'" : "", m ? m : "not said", m ? "'" : "", gs->g[i].refs[0].prof->path, s0->line,
                                 m0 ? "'" : "", m0 ? m0 : "not said", m0 ? "'" : "");
            }
        }
    return 0;
}

/* The group's micro_mode into o as "micro_mode" (nothing when its samples do not say). */
static void put_mode(cJSON *o, const group *g)
{
    const char *m = ss_hwp_micro_mode_name(sample_of(&g->refs[0])->micro_mode);
    if (m) cJSON_AddStringToObject(o, "micro_mode", m);
}

/* The pooled moments of a summary group: N = sum of n (1 where not given),
 * the n-weighted mean, and the pooled sd sqrt((sum (n - 1) sd^2 + sum n (mean_i
 * - mean)^2) / (N - 1)) (one summary: its own sd); sd NAN if a summary gives
 * none.  *decimals: the most decimals written (-1 if any used an exponent). */
typedef struct moments {
    double n, mean, sd;
    int decimals;
    int dist; /* the family of the first summary (core/fit.h order) */
} moments;

static moments pooled(const group *g)
{
    moments m = {0, 0, 0, 0, sample_of(&g->refs[0])->dist};
    double ss = 0;
    int nosd = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        double n = s->n_obs ? s->n_obs : 1;
        m.n += n;
        m.mean += n * s->times_s[0];
        if (isnan(s->sd_s)) nosd = 1;
        else ss += (n - 1) * s->sd_s * s->sd_s;
        if (s->decimals < 0 || m.decimals < 0) m.decimals = -1;
        else if (s->decimals > m.decimals) m.decimals = s->decimals;
    }
    m.mean /= m.n;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        double n = s->n_obs ? s->n_obs : 1, d = s->times_s[0] - m.mean;
        ss += n * d * d;
    }
    if (nosd) m.sd = NAN;
    else if (g->nrefs == 1) m.sd = sample_of(&g->refs[0])->sd_s;
    else m.sd = m.n > 1 ? sqrt(ss / (m.n - 1)) : 0;
    return m;
}

/* The distribution of a summary group by moments: the summary's family with
 * its mean and sd (gamma: shape = (mean / sd)^2); *deterministic when no sd
 * or sd 0. */
static void dist_by_moments(const group *g, ss_dist_fits *d, int *deterministic)
{
    moments m = pooled(g);
    memset(d, 0, sizeof *d);
    d->n = g->nrefs;
    d->best = (ss_fit_family)m.dist;
    ss_dist_fit *f = &d->fit[d->best];
    for (int k = 0; k < SS_FIT_NFAMILIES; k++) d->fit[k].loglik = d->fit[k].aic = d->fit[k].ks_d = d->fit[k].ks_p = NAN;
    f->mean = m.mean;
    f->sd = m.sd;
    f->p1 = m.sd > 0 ? (m.mean / m.sd) * (m.mean / m.sd) : NAN;
    *deterministic = !(m.sd > 0);
}

#define MOMENTS_METHOD                                                                                     \
    "moments of a published summary: its mean and sd (several summaries of one piece pooled by n) matched " \
    "to the family it names (dist; lognormal when not named; gamma shape = (mean / sd)^2); deterministic at " \
    "the mean when it gives no sd or sd 0"

#define POINTS_METHOD                                                                                       \
    "through the published means: exact through two points (no interval); from three points weighted least " \
    "squares (gsl_fit_wlinear), weights n / sd^2 when every point gives an sd > 0 (intervals 1.96 standard "   \
    "errors), else n (covariance scaled by the weighted residual variance, intervals t(0.975, n - 2))"

/* The law through a summary group's points (ss_fit_affine_points). */
static int fit_points(const group *g, ss_affine_fit *f)
{
    double *w = ss_xcalloc(g->n + 1, sizeof *w);
    int absolute = 1;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        if (!(s->sd_s > 0)) absolute = 0;
    }
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        double n = s->n_obs ? s->n_obs : 1;
        w[i] = absolute ? n / (s->sd_s * s->sd_s) : n;
    }
    int rc = ss_fit_affine_points(g->x, g->y, w, g->n, absolute, f);
    free(w);
    return rc;
}

/* ---- affine laws ----------------------------------------------------------- */

#define LS_METHOD                                                                                      \
    "ordinary least squares over every observation (gsl_fit_linear); 95% intervals = t(0.975, n - 2) x " \
    "standard error (gsl_cdf_tdist_Pinv)"

/* The law's JSON: its two parameters named `p0` (intercept) and `p1` (slope). */
static cJSON *law_json(const char *law, const char *x, const char *p0, const char *p1, const ss_affine_fit *f,
                       const group *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "law", law);
    cJSON_AddStringToObject(o, "x", x);
    put_num(o, p0, f->intercept);
    char k[64];
    snprintf(k, sizeof k, "%s_ci95", p0);
    put_interval(o, k, f->intercept, f->intercept_ci95);
    snprintf(k, sizeof k, "%s_se", p0);
    put_num(o, k, f->intercept_se);
    put_num(o, p1, f->slope);
    snprintf(k, sizeof k, "%s_ci95", p1);
    put_interval(o, k, f->slope, f->slope_ci95);
    snprintf(k, sizeof k, "%s_se", p1);
    put_num(o, k, f->slope_se);
    put_num(o, "t975", f->t975);
    cJSON_AddNumberToObject(o, "n", (double)f->n);
    cJSON_AddNumberToObject(o, "distinct_x", (double)f->ndistinct_x);
    put_num(o, "residual_se_s", f->rse);
    put_num(o, "r2", f->r2);
    cJSON_AddStringToObject(o, "method", g->summary ? POINTS_METHOD : LS_METHOD);
    put_mode(o, g);
    cJSON_AddItemToObject(o, "from", refs_json(g));
    return o;
}

/* ---- distributions --------------------------------------------------------- */

/* The simulator's distribution map for the chosen candidate (core/dist.h). */
static cJSON *service_json(const ss_dist_fits *d, const group *g)
{
    cJSON *s = cJSON_CreateObject();
    const ss_dist_fit *f = &d->fit[d->best];
    if (g->summary && !(f->sd > 0)) { /* a published mean without spread */
        cJSON_AddStringToObject(s, "dist", "deterministic");
        put_num(s, "value_s", f->mean);
        return s;
    }
    cJSON_AddStringToObject(s, "dist", ss_fit_family_name(d->best));
    switch (d->best) {
    case SS_FIT_NORMAL:
    case SS_FIT_LOGNORMAL:
        put_num(s, "mean_s", f->mean);
        put_num(s, "sd_s", f->sd);
        break;
    case SS_FIT_GAMMA:
        put_num(s, "mean_s", f->mean);
        put_num(s, "shape", f->p1);
        break;
    default: {
        cJSON *a = cJSON_AddArrayToObject(s, "samples_s");
        for (size_t i = 0; i < g->n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(round10(g->y[i])));
    }
    }
    return s;
}

static cJSON *candidate_json(ss_fit_family fam, const ss_dist_fit *f)
{
    static const char *const p1[] = {"mu_s", "mu_log", "shape", NULL}, *const p2[] = {"sigma_s", "sigma_log",
                                                                                      "scale_s", NULL};
    cJSON *c = cJSON_CreateObject();
    if (fam != SS_FIT_EMPIRICAL) {
        put_num(c, p1[fam], f->p1);
        put_num(c, p2[fam], f->p2);
    }
    put_num(c, "mean_s", f->mean);
    put_num(c, "sd_s", f->sd);
    put_num(c, "loglik", f->loglik);
    put_num(c, "aic", f->aic);
    put_num(c, "ks_d", f->ks_d);
    put_num(c, "ks_p", f->ks_p);
    if (fam == SS_FIT_GAMMA) cJSON_AddNumberToObject(c, "newton_iterations", f->iterations);
    return c;
}

static int fit_dist(const group *g, ss_dist_fits *d, ss_err *err)
{
    if (g->summary) {
        int det;
        dist_by_moments(g, d, &det);
        return 0;
    }
    if (ss_fit_dists(g->y, g->n, d) == 0) return 0;
    const ss_hwp_sample *s = sample_of(&g->refs[0]);
    char *w = piece_words(s);
    int rc = group_err(g, err,
                       "latency of %s, batch %u: fewer samples than parameters: a 2-parameter distribution needs "
                       "at least 3 observations that are not all equal, got %zu%s",
                       w, s->batch, g->n, g->n >= 3 ? " all equal" : "");
    free(w);
    return rc;
}

static cJSON *dist_json(const group *g, const ss_dist_fits *d)
{
    const ss_hwp_sample *s = sample_of(&g->refs[0]);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", s->model);
    if (s->piece) cJSON_AddStringToObject(o, piece_word(s->piece_kind), s->piece);
    cJSON_AddStringToObject(o, "device", s->device);
    cJSON_AddNumberToObject(o, "threads", s->threads);
    cJSON_AddNumberToObject(o, "batch", s->batch);
    cJSON_AddNumberToObject(o, "n", (double)g->n);
    put_mode(o, g);
    cJSON *svc = service_json(d, g);
    cJSON_AddStringToObject(o, "chosen", cJSON_GetObjectItemCaseSensitive(svc, "dist")->valuestring);
    cJSON_AddItemToObject(o, "service", svc);
    if (g->summary) {
        cJSON_AddStringToObject(o, "method", MOMENTS_METHOD);
        cJSON_AddItemToObject(o, "from", refs_json(g));
        return o;
    }
    cJSON_AddStringToObject(o, "method",
                            "maximum likelihood: normal and lognormal in closed form, gamma shape by Newton on "
                            "log k - psi(k) = log(mean) - mean(log); Kolmogorov-Smirnov distance and its asymptotic "
                            "p-value (conservative with fitted parameters); AIC = 4 - 2 loglik");
    cJSON_AddStringToObject(o, "rule", SS_FIT_RULE);
    cJSON *c = cJSON_AddObjectToObject(o, "candidates");
    for (int f = 0; f < SS_FIT_NFAMILIES; f++)
        cJSON_AddItemToObject(c, ss_fit_family_name((ss_fit_family)f), candidate_json((ss_fit_family)f, &d->fit[f]));
    cJSON_AddItemToObject(o, "from", refs_json(g));
    return o;
}

/* ---- the whole calibration ------------------------------------------------- */

typedef struct tparam tparam;
static const char *const term_word[] = {"hop", "rtt", "block"};

typedef struct calib {
    const ss_calib_opts *o;
    groups dists;      /* compute samples by (piece, device, threads, batch) */
    groups laws;       /* compute samples by (piece, device, threads) */
    groups transports; /* transport samples by law (the transport's name unless `law` names one) and term */
    groups memcpys;    /* one group */
    groups colds;      /* coldstart samples by (model, stage) */
    groups memory;     /* memory readings by (what, device) */
    cJSON *root;
    FILE *sum;         /* the summary */
    tparam *tp;        /* per transport: its affine parameters from the laws */
    size_t ntp;
} calib;

static void collect(calib *c, ss_hwprofile *const *profs, size_t nprofs)
{
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            char *k = NULL, *k2 = NULL;
            switch (s->kind) {
            case SS_HWP_COMPUTE:
                k = piece_key(s);
                k2 = ss_xasprintf("%s\x1f%u", k, s->batch);
                add(&c->laws, k, profs[f], i, s->batch);
                add(&c->dists, k2, profs[f], i, s->batch);
                break;
            case SS_HWP_TRANSPORT: /* "zmq-copy", "http (rtt)", "overhead (block)" */
                k = ss_xasprintf("%s%s%s%s", s->law ? s->law : s->transport, s->term ? " (" : "",
                                 s->term ? term_word[s->term] : "", s->term ? ")" : "");
                add(&c->transports, k, profs[f], i, s->bytes);
                break;
            case SS_HWP_MEMCPY: add(&c->memcpys, s->path ? s->path : "memcpy", profs[f], i, s->bytes); break;
            case SS_HWP_MEMORY:
                k = ss_xasprintf("%s\x1f%s", s->what, s->device);
                add(&c->memory, k, profs[f], i, s->bytes);
                break;
            case SS_HWP_COLDSTART:
                k = ss_xasprintf("%s\x1f%s\x1f%s", s->model, s->stage, s->piece ? s->piece : "");
                add(&c->colds, k, profs[f], i, 0);
                break;
            }
            free(k);
            free(k2);
        }
}

/* Every compute piece's latency-vs-batch law (into compute_laws); *fits[i]
 * is law i's fit, or n = 0 where none was fitted (--no-batch-law). */
static int compute_laws(calib *c, ss_affine_fit *fits, ss_err *err)
{
    cJSON *arr = cJSON_AddArrayToObject(c->root, "compute_laws");
    for (size_t i = 0; i < c->laws.n; i++) {
        const group *g = &c->laws.g[i];
        const ss_hwp_sample *s = sample_of(&g->refs[0]);
        if ((g->summary ? fit_points(g, &fits[i]) : ss_fit_affine(g->x, g->y, g->n, &fits[i])) < 0) {
            if (fits[i].ndistinct_x < 2 && c->o->no_batch_law) {
                fits[i].n = 0;
                continue;
            }
            char *w = piece_words(s);
            int rc = group_err(g, err,
                               "latency of %s: fewer samples than parameters: the affine law fixed_s + "
                               "per_sample_s x batch needs at least two batch sizes and %s, got %zu "
                               "batch size%s and %zu %s%s (--no-batch-law skips pieces of one batch size)",
                               w, g->summary ? "two published means" : "three observations", fits[i].ndistinct_x,
                               fits[i].ndistinct_x == 1 ? "" : "s", g->n, g->summary ? "mean" : "observation",
                               g->n == 1 ? "" : "s");
            free(w);
            return rc;
        }
        cJSON *l = law_json("latency_s = fixed_s + per_sample_s x batch", "batch", "fixed_s", "per_sample_s",
                            &fits[i], g);
        cJSON *head = cJSON_CreateObject();
        cJSON_AddStringToObject(head, "model", s->model);
        if (s->piece) cJSON_AddStringToObject(head, piece_word(s->piece_kind), s->piece);
        cJSON_AddStringToObject(head, "device", s->device);
        cJSON_AddNumberToObject(head, "threads", s->threads);
        for (cJSON *it = l->child; it;) { /* the law's fields after the piece's */
            cJSON *next = it->next;
            cJSON_AddItemToObject(head, it->string, cJSON_DetachItemViaPointer(l, it));
            it = next;
        }
        cJSON_Delete(l);
        cJSON_AddItemToArray(arr, head);
        char *w = piece_words(s);
        fprintf(c->sum, "  %s: %.6g + %.6g x batch s (95%%: +-%.2g, +-%.2g), R2 %.4f, n %zu\n", w, fits[i].intercept,
                fits[i].slope, fits[i].intercept_ci95, fits[i].slope_ci95, fits[i].r2, fits[i].n);
        free(w);
    }
    return 0;
}

/* The affine parameters of one transport (policies/transport_affine.h), as
 * the laws that hold its samples give them. */
static const char *const tfield[5] = {"block_fixed_s", "block_in_s_per_byte", "block_out_s_per_byte",
                                      "delivery_fixed_s", "delivery_s_per_byte"};
struct tparam {
    const char *name;   /* the transport (owned by a sample) */
    double v[5];
    const char *law[5]; /* the transport_fits key each value came from; NULL: none */
    const char *how[5]; /* static words: which parameter of that law, and how */
};

static tparam *tparam_for(calib *c, const char *name)
{
    for (size_t i = 0; i < c->ntp; i++)
        if (strcmp(c->tp[i].name, name) == 0) return &c->tp[i];
    c->tp = ss_xrealloc(c->tp, (c->ntp + 1) * sizeof *c->tp);
    tparam *t = &c->tp[c->ntp++];
    memset(t, 0, sizeof *t);
    t->name = name;
    return t;
}


/* The law's values into the parameters of each transport sampled in it:
 * hop: delivery = fixed_s + s_per_byte x bytes; rtt: delivery fixed = fixed_s / 2
 * (the fixed part is paid both ways, the bytes one way); block: block_fixed_s =
 * fixed_s / blocks, block_in and block_out per byte = s_per_byte.  A transport
 * whose samples in the law are all at 0 bytes (it moves no tensor: a handle)
 * gets per-byte 0.  A value below 0 (noise about 0) is written as 0: the
 * plugins refuse negative costs. */
static int apply_law(calib *c, const group *g, const ss_affine_fit *f, ss_err *err)
{
    const ss_hwp_sample *s0 = sample_of(&g->refs[0]);
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        if (s->blocks != s0->blocks)
            return ss_err_at(err, g->refs[i].prof->path, s->line, s->col,
                             "blocks: %u, but the first sample of law '%s' (line %d) sums %u: one law, one count",
                             s->blocks, g->key, s0->line, s0->blocks);
        tparam *t = tparam_for(c, s->transport);
        int zero = 1;
        for (size_t k = 0; k < g->nrefs; k++) {
            const ss_hwp_sample *o = sample_of(&g->refs[k]);
            if (strcmp(o->transport, s->transport) == 0 && o->bytes > 0) zero = 0;
        }
        double fixed = s0->term == 1 ? f->intercept / 2 : s0->term == 2 ? f->intercept / s0->blocks : f->intercept;
        double per = zero ? 0 : f->slope;
        int lo = s0->term == 2 ? 0 : 3, hi = s0->term == 2 ? 3 : 5;
        for (int k = lo; k < hi; k++) {
            if (t->law[k] && strcmp(t->law[k], g->key) != 0)
                return ss_err_at(err, g->refs[i].prof->path, s->line, s->col,
                                 "transport '%s': its %s comes from two laws ('%s' and '%s')", s->transport,
                                 tfield[k], t->law[k], g->key);
            t->law[k] = g->key;
            t->v[k] = k == lo ? fixed : per;
            if (t->v[k] < 0) t->v[k] = 0;
            t->how[k] = k == lo ? (s0->term == 1   ? "fixed_s / 2 (a round trip: the fixed part both ways)"
                                   : s0->term == 2 ? "fixed_s / blocks (the time summed over that many blocks)"
                                                   : "fixed_s")
                                : zero ? "0 (measured only without a tensor)"
                                       : "s_per_byte";
        }
    }
    return 0;
}

/* A hop whose every observation also has the sender's and the receiver's
 * time (the probe's micro-benchmark: sender_s, receiver_s) is split three
 * ways, each affine in the bytes, each with its intervals, under
 * transport_fits.T.parts: the sender's main-thread work (its send call: the
 * pickle or the copy into the slot), the receiver's (its decode after ZeroMQ
 * handed it the message), and the delivery, fitted on what is left of each
 * observation (hop - sender - receiver, the same message).  The transport's
 * parameters become: block_out_s_per_byte and block_in_s_per_byte the two
 * slopes; block_fixed_s the two intercepts summed (the affine model has no
 * fixed sender term: one main thread receives a message and sends the next,
 * so the sender's fixed cost is paid with the receive, on the same thread);
 * delivery_* the remainder's law.  Each value below 0 is written as 0.
 * 0: split (t's parameters set); 1: not every observation has both parts
 * (the whole hop stays delivery). */
static const char *const split_how[5] = {
    "parts.receiver.fixed_s + parts.sender.fixed_s (one main thread receives a message and sends the next: the "
    "sender's fixed cost is paid with the receive)",
    "parts.receiver.s_per_byte", "parts.sender.s_per_byte",
    "parts.delivery.fixed_s (the hop less the sender's and the receiver's time, observation by observation)",
    "parts.delivery.s_per_byte"};

static int split_hop(calib *c, const group *g, cJSON *law)
{
    const ss_hwp_sample *s0 = sample_of(&g->refs[0]);
    if (g->summary || s0->term != 0 || s0->law) return 1;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        if (!s->sender_s || !s->receiver_s || s->nsender != s->ntimes || s->nreceiver != s->ntimes) return 1;
    }
    double *y[3];
    for (int k = 0; k < 3; k++) y[k] = ss_xcalloc(g->n + 1, sizeof *y[k]);
    size_t n = 0;
    for (size_t i = 0; i < g->nrefs; i++) { /* the same order as add() pooled them */
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        for (size_t k = 0; k < s->ntimes; k++, n++) {
            y[0][n] = s->sender_s[k];
            y[1][n] = s->receiver_s[k];
            y[2][n] = s->times_s[k] - s->sender_s[k] - s->receiver_s[k];
        }
    }
    static const char *const part[3] = {"sender", "receiver", "delivery"};
    static const char *const what[3] = {
        "sender_s = fixed_s + s_per_byte x bytes", "receiver_s = fixed_s + s_per_byte x bytes",
        "latency_s - sender_s - receiver_s = fixed_s + s_per_byte x bytes"};
    ss_affine_fit f[3];
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++)
        if (ss_fit_affine(g->x, y[k], n, &f[k]) < 0) rc = 1;
    for (int k = 0; k < 3; k++) free(y[k]);
    if (rc) return 1;
    cJSON *parts = cJSON_AddObjectToObject(law, "parts");
    cJSON_AddStringToObject(parts, "rule",
                            "each observation's hop split into the sender's time (main thread), the receiver's "
                            "(main thread) and the rest (delivery: hop - sender - receiver of the same message), "
                            "each fitted affine in the bytes");
    for (int k = 0; k < 3; k++) {
        cJSON *l = law_json(what[k], "bytes", "fixed_s", "s_per_byte", &f[k], g);
        cJSON_DeleteItemFromObjectCaseSensitive(l, "from"); /* the hop's, above */
        cJSON_AddItemToObject(parts, part[k], l);
        fprintf(c->sum, "    %s: %.6g s + %.6g s/B, R2 %.4f\n", part[k], f[k].intercept, f[k].slope, f[k].r2);
    }
    tparam *t = tparam_for(c, s0->transport);
    double v[5] = {fmax(f[1].intercept, 0) + fmax(f[0].intercept, 0), f[1].slope, f[0].slope, f[2].intercept,
                   f[2].slope};
    for (int k = 0; k < 5; k++) {
        t->v[k] = v[k] < 0 ? 0 : v[k];
        t->law[k] = g->key;
        t->how[k] = split_how[k];
    }
    return 0;
}

/* Hop cost vs bytes per law (transport_fits), and the affine parameters the
 * transport plugins read (transports; policies/transport_affine.h). */
static int transport_laws(calib *c, ss_err *err)
{
    cJSON *fits = cJSON_AddObjectToObject(c->root, "transport_fits");
    cJSON *ts = cJSON_AddObjectToObject(c->root, "transports");
    for (size_t i = 0; i < c->transports.n + c->memcpys.n; i++) {
        int is_t = i < c->transports.n;
        const group *g = is_t ? &c->transports.g[i] : &c->memcpys.g[i - c->transports.n];
        const char *name = g->key; /* a transport or law; "memcpy", or a GPU copy's path */
        const ss_hwp_sample *s0 = sample_of(&g->refs[0]);
        ss_affine_fit f;
        if ((g->summary ? fit_points(g, &f) : ss_fit_affine(g->x, g->y, g->n, &f)) < 0)
            return group_err(g, err,
                             "%s%s%s: fewer samples than parameters: the affine cost fixed_s + s_per_byte x bytes "
                             "needs at least two message sizes and %s, got %zu size%s and %zu %s%s",
                             is_t ? (s0->law ? "law '" : "transport '") : "", name, is_t ? "'" : "",
                             g->summary ? "two published means" : "three observations", f.ndistinct_x,
                             f.ndistinct_x == 1 ? "" : "s", g->n, g->summary ? "mean" : "observation",
                             g->n == 1 ? "" : "s");
        cJSON *l = law_json("latency_s = fixed_s + s_per_byte x bytes", "bytes", "fixed_s", "s_per_byte", &f, g);
        put_num(l, "bytes_per_s", f.slope > 0 ? 1 / f.slope : NAN);
        fprintf(c->sum, "  %s: %.6g s + %.6g s/B (%.4g MB/s), R2 %.4f, n %zu\n", name, f.intercept, f.slope,
                f.slope > 0 ? 1e-6 / f.slope : 0, f.r2, f.n);
        if (!is_t) { /* the host's memcpy at the top, GPU copies by path under memcpy_paths */
            if (strcmp(name, "memcpy") == 0) {
                cJSON_AddItemToObject(c->root, "memcpy", l);
            } else {
                cJSON *paths = cJSON_GetObjectItemCaseSensitive(c->root, "memcpy_paths");
                if (!paths) paths = cJSON_AddObjectToObject(c->root, "memcpy_paths");
                cJSON_AddItemToObject(paths, name, l);
            }
            continue;
        }
        if (s0->term || s0->law) {
            cJSON_AddStringToObject(l, "term", term_word[s0->term]);
            cJSON_AddNumberToObject(l, "blocks", s0->blocks);
        }
        cJSON_AddItemToObject(fits, name, l);
        TRY(apply_law(c, g, &f, err));
        split_hop(c, g, l);
    }
    for (size_t i = 0; i < c->ntp; i++) {
        const tparam *tp = &c->tp[i];
        cJSON *t = cJSON_AddObjectToObject(ts, tp->name);
        for (int k = 0; k < 5; k++) put_num(t, tfield[k], tp->law[k] ? tp->v[k] : 0);
        char *src;
        if (!tp->law[0] && tp->law[3] && strcmp(tp->law[3], tp->name) == 0 && strcmp(tp->how[4], "s_per_byte") == 0) {
            src = ss_xasprintf("servesim calibrate: the measured hop (send to tensor received) as delivery, "
                               "delivery_fixed_s = fixed_s and delivery_s_per_byte = s_per_byte of "
                               "transport_fits.%s (a negative fitted value written as 0); block_* = 0: the "
                               "measurement does not split main-thread work from time in flight",
                               tp->name);
        } else {
            char *buf = NULL;
            size_t len;
            FILE *fp = ss_xmemstream(&buf, &len);
            fputs("servesim calibrate (a negative fitted value written as 0):", fp);
            for (int k = 0; k < 5; k++) {
                if (tp->law[k]) fprintf(fp, " %s = %s of transport_fits.%s;", tfield[k], tp->how[k], tp->law[k]);
                else fprintf(fp, " %s = 0 (no law gives it);", tfield[k]);
            }
            fclose(fp);
            buf[strlen(buf) - 1] = '\0';
            src = buf;
        }
        cJSON_AddStringToObject(t, "source", src);
        free(src);
    }
    return 0;
}

/* ---- blocks: the split-profile view ---------------------------------------- */

/* Does law group g describe a block of the chosen model, device and threads? */
static int wanted_block(const calib *c, const ss_hwp_sample *s, const char *model)
{
    return s->piece_kind == SS_HWP_BLOCK && strcmp(s->model, model) == 0 &&
           (!c->o->device || strcmp(s->device, c->o->device) == 0) && (!c->o->threads || s->threads == c->o->threads);
}

/* The model whose blocks are written: --model, else the only one with blocks. */
static int pick_model(const calib *c, const char **model, ss_err *err)
{
    *model = c->o->model;
    for (size_t i = 0; i < c->laws.n; i++) {
        const ss_hwp_sample *s = sample_of(&c->laws.g[i].refs[0]);
        if (s->piece_kind != SS_HWP_BLOCK) continue;
        if (c->o->model) {
            if (strcmp(s->model, c->o->model) == 0) return 1;
        } else if (!*model) {
            *model = s->model;
        } else if (strcmp(s->model, *model) != 0) {
            return group_err(&c->laws.g[i], err,
                             "blocks of two models are measured ('%s' and '%s'): choose one with --model", *model,
                             s->model);
        }
    }
    if (c->o->model) return ss_err_at(err, "servesim calibrate", 0, 0, "--model %s: no block of it is measured",
                                      c->o->model);
    return *model ? 1 : 0;
}

/* The memory reading of `what` in MiB: on a GPU (gpu=1) or on the CPU (gpu=0); -1 if none. */
static double memory_mib(const calib *c, const char *what, int gpu)
{
    for (size_t i = 0; i < c->memory.n; i++) {
        const ss_hwp_sample *s = sample_of(&c->memory.g[i].refs[0]);
        if (strcmp(s->what, what) == 0 && (strcmp(s->device, "cpu") != 0) == gpu) return s->bytes / 1048576.0;
    }
    return -1;
}

/* For block name `blk`: the law group to use (fewest threads, then the first
 * device in byte order, among those the options allow); -1 if none. */
static long pick_config(const calib *c, const char *model, const char *blk)
{
    long best = -1;
    for (size_t i = 0; i < c->laws.n; i++) {
        const ss_hwp_sample *s = sample_of(&c->laws.g[i].refs[0]);
        if (!wanted_block(c, s, model) || strcmp(s->piece, blk) != 0) continue;
        if (best < 0) {
            best = (long)i;
            continue;
        }
        const ss_hwp_sample *b = sample_of(&c->laws.g[best].refs[0]);
        if (s->threads < b->threads || (s->threads == b->threads && strcmp(s->device, b->device) < 0)) best = (long)i;
    }
    return best;
}

/* The distribution group of law group `law` at its smallest batch. */
static size_t smallest_batch(const calib *c, size_t law)
{
    size_t best = 0;
    unsigned best_batch = 0;
    for (size_t i = 0; i < c->dists.n; i++) {
        const char *k = c->dists.g[i].key, *lk = c->laws.g[law].key;
        size_t n = strlen(lk);
        const ss_hwp_sample *s = sample_of(&c->dists.g[i].refs[0]);
        if (strncmp(k, lk, n) == 0 && k[n] == '\x1f' && (!best_batch || s->batch < best_batch)) {
            best = i;
            best_batch = s->batch;
        }
    }
    return best;
}

/* The tensor bytes per sample of a distribution group: the first of its
 * samples that gives them, divided by the batch; -1 if none does. */
static double bytes_per_sample(const group *g, int out)
{
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        double b = out ? s->out_bytes : s->in_bytes;
        if (b >= 0) return b / s->batch;
    }
    return -1;
}

static int blocks(calib *c, const ss_dist_fits *dfits, const ss_affine_fit *lfits, ss_err *err)
{
    const char *model = NULL;
    int has;
    TRY(has = pick_model(c, &model, err));
    cJSON *arr = cJSON_AddArrayToObject(c->root, "blocks");
    double host_ram_mib = 0;
    size_t nblocks = 0;
    for (size_t i = 0; has && i < c->laws.n; i++) {
        const ss_hwp_sample *s = sample_of(&c->laws.g[i].refs[0]);
        if (!wanted_block(c, s, model) || pick_config(c, model, s->piece) != (long)i) continue;
        size_t d = smallest_batch(c, i);
        const group *dg = &c->dists.g[d];
        const ss_hwp_sample *ds = sample_of(&dg->refs[0]);
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "name", s->piece);
        double in = bytes_per_sample(dg, 0), out = bytes_per_sample(dg, 1);
        put_num(b, "in_bytes_per_sample", in > 0 ? in : 0);
        put_num(b, "out_bytes_per_sample", out > 0 ? out : 0);
        cJSON_AddItemToObject(b, "service", service_json(&dfits[d], dg));
        if (lfits[i].n) {
            cJSON *law = cJSON_AddObjectToObject(b, "batch_law");
            put_num(law, "fixed_s", lfits[i].intercept);
            put_num(law, "per_sample_s", lfits[i].slope > 0 ? lfits[i].slope : 0);
        }
        double vram = memory_mib(c, s->piece, 1), ram = memory_mib(c, s->piece, 0);
        if (vram > 0) put_num(cJSON_AddObjectToObject(b, "vram"), "process_mib", vram);
        if (ram > host_ram_mib) host_ram_mib = ram;
        cJSON *prov = cJSON_AddObjectToObject(b, "calibration");
        cJSON_AddStringToObject(prov, "device", s->device);
        cJSON_AddNumberToObject(prov, "threads", s->threads);
        cJSON_AddNumberToObject(prov, "batch", ds->batch);
        put_mode(prov, dg);
        char *where = ss_xasprintf("distributions[%zu].service (%s, batch %u)", d,
                                   ss_fit_family_name(dfits[d].best), ds->batch);
        cJSON_AddStringToObject(prov, "service", where);
        free(where);
        if (lfits[i].n) {
            size_t li = 0;
            for (size_t k = 0; k < i; k++) li += lfits[k].n > 0;
            where = ss_xasprintf("compute_laws[%zu] (a negative per_sample_s written as 0)", li);
            cJSON_AddStringToObject(prov, "batch_law", where);
            free(where);
        } else {
            cJSON_AddStringToObject(prov, "batch_law", "none: one batch size measured (--no-batch-law)");
        }
        cJSON_AddStringToObject(prov, "bytes", in >= 0 && out >= 0 ? "in_bytes and out_bytes of the samples / batch"
                                                                   : "not measured (in_bytes/out_bytes absent): 0");
        if (ds->batch != 1) cJSON_AddStringToObject(prov, "note", "service measured at a batch above 1");
        cJSON_AddItemToArray(arr, b);
        nblocks++;
    }
    if (has && nblocks == 0)
        return ss_err_at(err, "servesim calibrate", 0, 0, "no block of %s is measured on %s%s with %s threads", model,
                         c->o->device ? "device " : "any device", c->o->device ? c->o->device : "",
                         c->o->threads ? "the chosen number of" : "any number of");
    cJSON *proc = cJSON_CreateObject();
    put_num(proc, "context_vram_mib", 0);
    put_num(proc, "host_ram_mib", host_ram_mib);
    cJSON_AddStringToObject(proc, "source",
                            "servesim calibrate: host_ram_mib = the largest memory reading of a block on device cpu "
                            "(0 if none); context_vram_mib = 0 (not measured)");
    cJSON_AddItemToObject(c->root, "process", proc);
    if (has) fprintf(c->sum, "blocks: %zu of %s\n", nblocks, model);
    return 0;
}

/* ---- --base: a shipped profile's format ------------------------------------- */

/* x (s) rounded to `decimals` in the file unit `unit`; as it is for -1. */
static double round_dec(double x, int decimals, const char *unit)
{
    if (decimals < 0) return x;
    double scale = strcmp(unit, "ms") == 0 ? 1e-3 : strcmp(unit, "us") == 0 ? 1e-6 : 1, p = pow(10, decimals);
    return round(x / scale * p) / p * scale;
}

typedef struct based {
    calib *c;
    const ss_dist_fits *dfits;
    cJSON *values;   /* where each number put in came from */
    const ss_doc *doc; /* the base as positioned nodes, for messages */
    const ss_node *at; /* the node a message is about (set by the caller) */
} based;

/* The node of the base at key `k1`, item `i` (if k1 names a sequence), key `k2` (if not NULL). */
static const ss_node *base_node(const based *b, const char *k1, long i, const char *k2)
{
    const ss_node *n = ss_map_find(b->doc->root, k1);
    if (n && i >= 0) n = n->kind == SS_NODE_SEQ && (size_t)i < n->n ? n->items[i] : NULL;
    if (n && k2) n = n->kind == SS_NODE_MAP ? ss_map_find(n, k2) : NULL;
    return n ? n : b->doc->root;
}

static int base_err(const based *b, ss_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int base_err(const based *b, ss_err *err, const char *fmt, ...)
{
    const ss_node *n = b->at ? b->at : b->doc->root;
    va_list ap;
    va_start(ap, fmt);
    ss_err_vat(err, b->c->o->base, n->line, n->col, fmt, ap);
    va_end(ap);
    return -1;
}

/* The distribution group of block `blk` of `model` (pick_config, smallest
 * batch); -1 with a message if the profiles have none. */
static long block_dist(const based *b, const char *model, const char *blk, const char *where, ss_err *err)
{
    long law = pick_config(b->c, model, blk);
    if (law < 0)
        return base_err(b, err, "%s: no sample of block '%s' of %s in the profiles (--base: every number the file "
                        "takes from calibrate must be measured or transcribed)", where, blk, model);
    return (long)smallest_batch(b->c, (size_t)law);
}

/* "FILE sample I (line L): SOURCE" for every sample of a group, "; "-joined. */
static char *cite(const group *g)
{
    char *out = NULL;
    size_t len;
    FILE *fp = ss_xmemstream(&out, &len);
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = sample_of(&g->refs[i]);
        fprintf(fp, "%s%s sample %zu (line %d)", i ? "; " : "", g->refs[i].prof->path, g->refs[i].sample, s->line);
        if (s->source) fprintf(fp, ": %s", s->source);
    }
    fclose(fp);
    return out;
}

static void put_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key)) cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else cJSON_AddItemToObject(o, key, v);
}

static void note(based *b, const char *path, const char *text)
{
    cJSON_AddStringToObject(b->values, path, text);
}

/* The pieces `names` of `model` in series as one service: means add, variances
 * add (independent pieces), the family of the first when all share it (else
 * an error), rounded to the most decimals the summaries were written with.
 * Into *out (a distribution map) and *total_mean_s. */
static int series(based *b, const char *model, const char *const *names, size_t n, const char *where, cJSON **out,
                  double *total_mean_s, char **cites, ss_err *err)
{
    double mean = 0, var = 0;
    int decimals = 0, fam = -1, det = 1;
    const char *unit = NULL;
    FILE *fp;
    size_t len;
    fp = ss_xmemstream(cites, &len);
    for (size_t i = 0; i < n; i++) {
        long d = block_dist(b, model, names[i], where, err);
        if (d < 0) {
            fclose(fp);
            return -1;
        }
        const group *g = &b->c->dists.g[d];
        const ss_dist_fit *f = &b->dfits[d].fit[b->dfits[d].best];
        mean += f->mean;
        if (f->sd > 0) {
            var += f->sd * f->sd;
            det = 0;
            if (fam < 0) fam = (int)b->dfits[d].best;
            else if (fam != (int)b->dfits[d].best) {
                fclose(fp);
                return base_err(b, err, "%s: its blocks' families differ (%s, %s): no rule sums them", where,
                                ss_fit_family_name((ss_fit_family)fam), ss_fit_family_name(b->dfits[d].best));
            }
        }
        int dec = g->summary ? pooled(g).decimals : -1;
        if (dec < 0 || decimals < 0) decimals = -1;
        else if (dec > decimals) decimals = dec;
        if (!unit) unit = g->refs[0].prof->time_unit;
        else if (strcmp(unit, g->refs[0].prof->time_unit) != 0) decimals = -1;
        char *c1 = cite(g);
        fprintf(fp, "%s%s", i ? "; " : "", c1);
        free(c1);
    }
    fclose(fp);
    *total_mean_s = round_dec(mean, decimals, unit);
    cJSON *o = cJSON_CreateObject();
    if (det) {
        cJSON_AddStringToObject(o, "dist", "deterministic");
        put_num(o, "value_s", *total_mean_s);
    } else {
        cJSON_AddStringToObject(o, "dist", ss_fit_family_name((ss_fit_family)fam));
        put_num(o, "mean_s", *total_mean_s);
        if (fam == SS_FIT_GAMMA) put_num(o, "shape", mean * mean / var);
        else put_num(o, "sd_s", round_dec(sqrt(var), decimals, unit));
    }
    *out = o;
    return 0;
}

/* blocks[].KEY of the base from `model`'s blocks. */
static int fill_blocks(based *b, cJSON *blocks, const char *key, const char *model, ss_err *err)
{
    size_t i = 0;
    for (cJSON *blk = blocks->child; blk; blk = blk->next, i++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(blk, "name");
        b->at = base_node(b, "blocks", (long)i, NULL);
        if (!cJSON_IsString(nm)) return base_err(b, err, "blocks[%zu]: expected a name (a string)", i);
        char *where = ss_xasprintf("blocks[%zu].%s", i, key);
        long d = block_dist(b, model, nm->valuestring, where, err);
        if (d < 0) {
            free(where);
            return -1;
        }
        const group *g = &b->c->dists.g[d];
        put_item(blk, key, service_json(&b->dfits[d], g));
        char *c1 = cite(g), *text = ss_xasprintf("block '%s' of %s, %s: %s", nm->valuestring, model,
                            g->summary ? "the published summary by moments" : "the distribution calibrate chose", c1);
        note(b, where, text);
        free(text);
        free(c1);
        free(where);
    }
    return 0;
}

/* transports.T.F of the base: null -> from the laws of T's samples
 * (apply_law); {"typed": X, "tolerance_rel": R} -> X, once the law's value
 * is within R of it (a value typed by hand from the table, kept so results
 * stay the same, and checked); "as OTHER" -> OTHER's value of F once filled
 * (an assumption the base states: the same cost as another transport);
 * numbers stay. */
static int fill_transports(based *b, cJSON *ts, ss_err *err)
{
    const ss_node *tsn = ss_map_find(b->doc->root, "transports");
    for (int pass = 0; pass < 2; pass++)
        for (cJSON *t = ts->child; t; t = t->next) {
            const ss_node *tn = tsn && tsn->kind == SS_NODE_MAP ? ss_map_find(tsn, t->string) : NULL;
            for (int k = 0; k < 5; k++) {
                cJSON *v = cJSON_GetObjectItemCaseSensitive(t, tfield[k]);
                const ss_node *vn = tn && tn->kind == SS_NODE_MAP ? ss_map_find(tn, tfield[k]) : NULL;
                b->at = vn ? vn : tn;
                char *where = ss_xasprintf("transports.%s.%s", t->string, tfield[k]);
                int rc = 0;
                const cJSON *typed = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "typed") : NULL;
                if (pass == 0 && v && (cJSON_IsNull(v) || cJSON_IsObject(v))) {
                    const tparam *tp = NULL;
                    for (size_t i = 0; i < b->c->ntp; i++)
                        if (strcmp(b->c->tp[i].name, t->string) == 0) tp = &b->c->tp[i];
                    if (!tp || !tp->law[k]) {
                        rc = base_err(b, err, "%s: no law of the profiles gives it (a transport sample of '%s' with "
                                      "term %s)", where, t->string, k < 3 ? "block" : "hop or rtt");
                    } else if (cJSON_IsObject(v) && !cJSON_IsNumber(typed)) {
                        rc = base_err(b, err, "%s: expected {\"typed\": NUMBER, \"tolerance_rel\": NUMBER}", where);
                    } else {
                        const cJSON *tol = typed ? cJSON_GetObjectItemCaseSensitive(v, "tolerance_rel") : NULL;
                        double fit = round10(tp->v[k]), want = typed ? typed->valuedouble : fit;
                        double tolr = cJSON_IsNumber(tol) ? tol->valuedouble : 0;
                        if (typed && !(fabs(want - fit) <= tolr * fabs(fit))) {
                            rc = base_err(b, err, "%s: typed as %.10g, but the law '%s' gives %.10g (relative %.2g, "
                                          "tolerance_rel %g): the transcription and the typed value disagree",
                                          where, want, tp->law[k], fit, fit ? fabs(want - fit) / fabs(fit) : INFINITY,
                                          tolr);
                            free(where);
                            return -1;
                        }
                        put_item(t, tfield[k], cJSON_CreateNumber(want));
                        const group *g = NULL;
                        for (size_t i = 0; i < b->c->transports.n; i++)
                            if (strcmp(b->c->transports.g[i].key, tp->law[k]) == 0) g = &b->c->transports.g[i];
                        char *chk = typed ? ss_xasprintf("kept as typed (%.10g): the law gives %.10g, within "
                                                         "tolerance_rel %g; ", want, fit, tolr)
                                          : ss_xstrdup("");
                        char *c1 = cite(g), *text = ss_xasprintf("%s%s of the law '%s' (latency_s = fixed_s + "
                                                                 "s_per_byte x bytes through %s): %s",
                                                                 chk, tp->how[k], tp->law[k],
                                                                 g->summary ? "the published means" : "the samples",
                                                                 c1);
                        free(chk);
                        note(b, where, text);
                        free(text);
                        free(c1);
                    }
                } else if (pass == 1 && cJSON_IsString(v) && strncmp(v->valuestring, "as ", 3) == 0) {
                    const char *other = v->valuestring + 3;
                    cJSON *o = cJSON_GetObjectItemCaseSensitive(ts, other);
                    cJSON *ov = o ? cJSON_GetObjectItemCaseSensitive(o, tfield[k]) : NULL;
                    if (!cJSON_IsNumber(ov)) {
                        rc = base_err(b, err, "%s: '%s': transports.%s.%s is not a number once calibrated", where,
                                      v->valuestring, other, tfield[k]);
                    } else {
                        char *text = ss_xasprintf("the same as transports.%s.%s (an assumption of the base)", other,
                                                  tfield[k]);
                        put_item(t, tfield[k], cJSON_CreateNumber(ov->valuedouble));
                        note(b, where, text);
                        free(text);
                    }
                } else if (pass == 0 && v && !cJSON_IsNumber(v) && !cJSON_IsNull(v) &&
                           !(cJSON_IsString(v) && strncmp(v->valuestring, "as ", 3) == 0)) {
                    rc = base_err(b, err, "%s: expected a number (kept), null (calibrated), {\"typed\": NUMBER, "
                                  "\"tolerance_rel\": NUMBER} (checked) or \"as TRANSPORT\"", where);
                }
                free(where);
                if (rc < 0) return -1;
            }
        }
    return 0;
}

/* The mean (s) of layer `layer` of `model`: its compute time (kind 0) or its
 * load stage (kind 1); *g the group; -1 if the profiles have none. */
static int layer_mean(const based *b, const char *model, const char *layer, int load, double *mean, const group **g)
{
    const groups *gs = load ? &b->c->colds : &b->c->dists;
    for (size_t i = 0; i < gs->n; i++) {
        const ss_hwp_sample *s = sample_of(&gs->g[i].refs[0]);
        if (s->piece_kind != SS_HWP_LAYER || strcmp(s->model, model) != 0 || strcmp(s->piece, layer) != 0) continue;
        if (load && strcmp(s->stage, "load") != 0) continue;
        *g = &gs->g[i];
        if (gs->g[i].summary) {
            *mean = pooled(&gs->g[i]).mean;
        } else {
            double m = 0;
            for (size_t k = 0; k < gs->g[i].n; k++) m += gs->g[i].y[k];
            *mean = m / (double)gs->g[i].n;
        }
        return 0;
    }
    return -1;
}

/* A layer-wise profile (models/masa/NAME.json): layers[].exec_s (the layer's
 * compute) and layers[].load_s (its load stage), init.exec_s/load_s from the
 * layer init.layer names, totals.exec_s, load_s, exec_conv_part_s and
 * exec_fc_part_s as sums over layers[] (by part), rounded to the decimals
 * the summaries were written with. */
static int fill_layers(based *b, cJSON *root, cJSON *layers, const char *model, ss_err *err)
{
    static const char *const key[2] = {"exec_s", "load_s"};
    double sum[2] = {0, 0}, part[2] = {0, 0}; /* exec by part: conv, fc */
    int decimals = 0;
    const char *unit = NULL;
    size_t i = 0;
    for (cJSON *l = layers->child; l; l = l->next, i++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(l, "name");
        b->at = base_node(b, "layers", (long)i, NULL);
        if (!cJSON_IsString(nm)) return base_err(b, err, "layers[%zu]: expected a name (a string)", i);
        for (int k = 0; k < 2; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(l, key[k]);
            double x;
            if (!cJSON_IsNull(v)) {
                x = cJSON_IsNumber(v) ? v->valuedouble : 0;
            } else {
                const group *g = NULL;
                if (layer_mean(b, model, nm->valuestring, k, &x, &g) < 0)
                    return base_err(b, err, "layers[%zu].%s: no %s sample of layer '%s' of %s in the profiles", i,
                                    key[k], k ? "coldstart (stage load)" : "compute", nm->valuestring, model);
                put_item(l, key[k], cJSON_CreateNumber(round10(x)));
                int dec = g->summary ? pooled(g).decimals : -1;
                if (dec < 0 || decimals < 0) decimals = -1;
                else if (dec > decimals) decimals = dec;
                if (!unit) unit = g->refs[0].prof->time_unit;
                else if (strcmp(unit, g->refs[0].prof->time_unit) != 0) decimals = -1;
                char *where = ss_xasprintf("layers[%zu].%s", i, key[k]), *c1 = cite(g);
                char *text = ss_xasprintf("layer '%s' of %s, the mean of its %s: %s", nm->valuestring, model,
                                          k ? "load stage" : "compute", c1);
                note(b, where, text);
                free(text);
                free(c1);
                free(where);
            }
            sum[k] += x;
            const cJSON *pt = cJSON_GetObjectItemCaseSensitive(l, "part");
            if (k == 0 && cJSON_IsString(pt)) part[strcmp(pt->valuestring, "fc") == 0] += x;
        }
    }
    cJSON *init = cJSON_GetObjectItemCaseSensitive(root, "init");
    const cJSON *il = init ? cJSON_GetObjectItemCaseSensitive(init, "layer") : NULL;
    for (int k = 0; init && k < 2; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(init, key[k]);
        if (!cJSON_IsNull(v)) continue;
        b->at = base_node(b, "init", -1, key[k]);
        const group *g = NULL;
        double x;
        if (!cJSON_IsString(il)) return base_err(b, err, "init.%s: null, but init names no layer (init.layer)", key[k]);
        if (layer_mean(b, model, il->valuestring, k, &x, &g) < 0)
            return base_err(b, err, "init.%s: no %s sample of layer '%s' of %s in the profiles", key[k],
                            k ? "coldstart (stage load)" : "compute", il->valuestring, model);
        put_item(init, key[k], cJSON_CreateNumber(round10(x)));
        char *where = ss_xasprintf("init.%s", key[k]), *c1 = cite(g);
        char *text = ss_xasprintf("the input layer '%s' of %s, the mean of its %s: %s", il->valuestring, model,
                                  k ? "load stage" : "compute", c1);
        note(b, where, text);
        free(text);
        free(c1);
        free(where);
    }
    cJSON *tot = cJSON_GetObjectItemCaseSensitive(root, "totals");
    static const char *const tkey[4] = {"exec_s", "load_s", "exec_conv_part_s", "exec_fc_part_s"};
    const double tval[4] = {sum[0], sum[1], part[0], part[1]};
    for (int k = 0; tot && k < 4; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(tot, tkey[k]);
        if (!v || !cJSON_IsNull(v)) continue;
        put_item(tot, tkey[k], cJSON_CreateNumber(round10(round_dec(tval[k], decimals, unit ? unit : "s"))));
        char *where = ss_xasprintf("totals.%s", tkey[k]);
        note(b, where, k < 2 ? "the sum over layers[] (init apart), rounded to the decimals published"
                             : "the sum over layers[] of that part, rounded to the decimals published");
        free(where);
    }
    return 0;
}

/* The base with every number calibrate regenerates put in it (docs/calibration.md). */
static int fill_base(calib *c, const ss_dist_fits *dfits, ss_hwprofile *const *profs, size_t nprofs, char **json,
                     ss_err *err)
{
    ss_doc *doc = ss_doc_load_json(c->o->base, err); /* a positioned message for bad JSON */
    if (!doc) return -1;
    if (doc->root->kind != SS_NODE_MAP) {
        ss_doc_free(doc);
        return ss_err_at(err, c->o->base, 1, 1, "--base: expected a JSON object (a model file)");
    }
    size_t tlen;
    char *text = ss_read_file(c->o->base, &tlen, err);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!root) {
        ss_doc_free(doc);
        return -1;
    }
    based b = {c, dfits, cJSON_CreateObject(), doc, NULL};
    const char *model = NULL;
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive(root, "blocks");
    cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, "transports");
    int rc = 0, want_blocks = cJSON_IsArray(blocks) || cJSON_GetObjectItemCaseSensitive(root, "service");
    if (want_blocks) {
        rc = pick_model(c, &model, err);
        if (rc == 0) rc = ss_err_at(err, "servesim calibrate", 0, 0, "--base: no block is measured in the profiles");
        rc = rc < 0 ? -1 : 0;
    }
    cJSON *layers = cJSON_GetObjectItemCaseSensitive(root, "layers");
    if (rc == 0 && cJSON_IsObject(ts)) rc = fill_transports(&b, ts, err);
    if (rc == 0 && !want_blocks && cJSON_IsArray(layers)) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
        const char *lm = c->o->model ? c->o->model : cJSON_IsString(nm) ? nm->valuestring : "";
        rc = fill_layers(&b, root, layers, lm, err);
    } else if (rc == 0 && !want_blocks && cJSON_IsObject(ts)) {
        /* a transport profile: nothing else to fill */
    } else if (rc == 0 && cJSON_IsArray(blocks)) {
        rc = fill_blocks(&b, blocks, "service", model, err);
        for (size_t k = 0; k < c->o->nfill && rc == 0; k++)
            rc = fill_blocks(&b, blocks, c->o->fill_keys[k], c->o->fill_models[k], err);
        /* fused processes (a service of their own) and the offline floor: the blocks in series */
        cJSON *pl = cJSON_GetObjectItemCaseSensitive(root, "pipeline");
        cJSON *procs = pl ? cJSON_GetObjectItemCaseSensitive(pl, "processes") : NULL;
        size_t j = 0;
        for (cJSON *p = procs ? procs->child : NULL; p && rc == 0; p = p->next, j++) {
            cJSON *members = cJSON_GetObjectItemCaseSensitive(p, "blocks");
            if (!cJSON_GetObjectItemCaseSensitive(p, "service") || !cJSON_IsArray(members)) continue;
            size_t n = (size_t)cJSON_GetArraySize(members), k = 0;
            const char **names = ss_xcalloc(n + 1, sizeof *names);
            for (cJSON *m = members->child; m; m = m->next) names[k++] = cJSON_IsString(m) ? m->valuestring : "";
            b.at = ss_map_find(b.doc->root, "pipeline");
            b.at = b.at && b.at->kind == SS_NODE_MAP ? ss_map_find(b.at, "processes") : NULL;
            b.at = b.at && b.at->kind == SS_NODE_SEQ && j < b.at->n ? b.at->items[j] : NULL;
            char *where = ss_xasprintf("pipeline.processes[%zu].service", j), *cites = NULL;
            cJSON *svc = NULL;
            double mean;
            rc = series(&b, model, names, n, where, &svc, &mean, &cites, err);
            if (rc == 0) {
                put_item(p, "service", svc);
                char *t = ss_xasprintf("its blocks in series (means and variances add), rounded to the decimals "
                                       "published: %s", cites);
                note(&b, where, t);
                free(t);
            }
            free(cites);
            free(where);
            free(names);
        }
        if (rc == 0 && pl && cJSON_GetObjectItemCaseSensitive(pl, "offline_floor_s")) {
            size_t n = (size_t)cJSON_GetArraySize(blocks), k = 0;
            const char **names = ss_xcalloc(n + 1, sizeof *names);
            for (cJSON *m = blocks->child; m; m = m->next)
                names[k++] = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
            cJSON *svc = NULL;
            char *cites = NULL;
            double mean;
            b.at = base_node(&b, "pipeline", -1, "offline_floor_s");
            rc = series(&b, model, names, n, "pipeline.offline_floor_s", &svc, &mean, &cites, err);
            if (rc == 0) {
                cJSON *v = cJSON_CreateNumber(round10(mean));
                put_item(pl, "offline_floor_s", v);
                char *t = ss_xasprintf("the sum of every block's mean: %s", cites);
                note(&b, "pipeline.offline_floor_s", t);
                free(t);
            }
            cJSON_Delete(svc);
            free(cites);
            free(names);
        }
    } else if (rc == 0 && cJSON_GetObjectItemCaseSensitive(root, "service")) {
        /* a whole-model profile: the measured blocks of the model in series */
        const char **names = ss_xcalloc(c->laws.n + 1, sizeof *names);
        size_t n = 0;
        for (size_t i = 0; i < c->laws.n; i++) {
            const ss_hwp_sample *s = sample_of(&c->laws.g[i].refs[0]);
            if (wanted_block(c, s, model) && pick_config(c, model, s->piece) == (long)i) names[n++] = s->piece;
        }
        cJSON *svc = NULL;
        char *cites = NULL;
        double mean;
        b.at = base_node(&b, "service", -1, NULL);
        rc = series(&b, model, names, n, "service", &svc, &mean, &cites, err);
        if (rc == 0) {
            put_item(root, "service", svc);
            char *t = ss_xasprintf("the blocks of %s in series (means and variances add), rounded to the decimals "
                                   "published: %s", model, cites);
            note(&b, "service", t);
            free(t);
        }
        free(cites);
        free(names);
    } else if (rc == 0) {
        rc = ss_err_at(err, c->o->base, 1, 1, "--base: expected blocks (a split profile), a service (a whole model), "
                       "layers (a layer-wise profile) or transports (a transport profile) for calibrate to fill");
    }
    if (rc == 0) {
        cJSON *cal = cJSON_CreateObject();
        FILE *fp;
        char *by = NULL;
        size_t len;
        fp = ss_xmemstream(&by, &len);
        fprintf(fp, "servesim calibrate --base %s", c->o->base);
        for (size_t k = 0; k < c->o->nfill; k++) fprintf(fp, " --fill %s=%s", c->o->fill_keys[k], c->o->fill_models[k]);
        for (size_t i = 0; i < nprofs; i++) fprintf(fp, " %s", profs[i]->path);
        fclose(fp);
        cJSON_AddStringToObject(cal, "by", by);
        free(by);
        cJSON *from = cJSON_AddArrayToObject(cal, "from");
        for (size_t i = 0; i < nprofs; i++) {
            cJSON *f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "file", profs[i]->path);
            cJSON_AddStringToObject(f, "source", profs[i]->source);
            cJSON_AddItemToArray(from, f);
        }
        cJSON_AddItemToObject(cal, "values", b.values);
        b.values = NULL;
        put_item(root, "calibrate", cal);
        char *out = cJSON_Print(root);
        *json = ss_xasprintf("%s\n", out);
        cJSON_free(out);
    }
    cJSON_Delete(b.values);
    cJSON_Delete(root);
    ss_doc_free(doc);
    return rc;
}

static void summaries(calib *c)
{
    cJSON *mem = cJSON_AddArrayToObject(c->root, "memory");
    for (size_t i = 0; i < c->memory.n; i++) {
        const group *g = &c->memory.g[i];
        const ss_hwp_sample *s = sample_of(&g->refs[0]);
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "what", s->what);
        cJSON_AddStringToObject(m, "device", s->device);
        put_num(m, "bytes", s->bytes);
        put_num(m, "mib", s->bytes / 1048576.0);
        cJSON_AddStringToObject(m, "method", "the first reading (later ones listed in from)");
        cJSON_AddItemToObject(m, "from", refs_json(g));
        cJSON_AddItemToArray(mem, m);
    }
    cJSON *cold = cJSON_AddArrayToObject(c->root, "coldstart");
    for (size_t i = 0; i < c->colds.n; i++) {
        const group *g = &c->colds.g[i];
        const ss_hwp_sample *s = sample_of(&g->refs[0]);
        double mean = 0, var = 0, n = (double)g->n, sd;
        for (size_t k = 0; k < g->n; k++) mean += g->y[k];
        mean /= (double)g->n;
        for (size_t k = 0; k < g->n; k++) var += (g->y[k] - mean) * (g->y[k] - mean);
        sd = g->n > 1 ? sqrt(var / (double)(g->n - 1)) : NAN;
        if (g->summary) {
            moments pm = pooled(g);
            n = pm.n;
            mean = pm.mean;
            sd = pm.sd;
        }
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "model", s->model);
        if (s->piece) cJSON_AddStringToObject(m, "layer", s->piece);
        cJSON_AddStringToObject(m, "stage", s->stage);
        cJSON_AddNumberToObject(m, "n", n);
        put_num(m, "mean_s", mean);
        put_num(m, "sd_s", sd);
        cJSON_AddStringToObject(m, "method", g->summary ? "published summaries pooled by n"
                                                        : "sample mean and standard deviation (n - 1)");
        cJSON_AddItemToObject(m, "from", refs_json(g));
        cJSON_AddItemToArray(cold, m);
    }
}

static void header(calib *c, ss_hwprofile *const *profs, size_t nprofs)
{
    cJSON_AddStringToObject(c->root, "name", c->o->name);
    cJSON_AddStringToObject(c->root, "description",
                            "Calibrated by servesim calibrate from profile files of real runs (docs/profiles.md): "
                            "block service times and batch laws, transport hop costs, memcpy, with every fit's "
                            "statistics and the samples it used. Usable as a block pipeline's split profile "
                            "(split:) and transport profile (transport: {profile:}).");
    FILE *fp;
    char *src = NULL;
    size_t len;
    fp = ss_xmemstream(&src, &len);
    fputs("servesim calibrate from", fp);
    for (size_t i = 0; i < nprofs; i++) fprintf(fp, "%s %s", i ? "," : "", profs[i]->path);
    fputs("; the sources of those files are in calibrated_from", fp);
    fclose(fp);
    cJSON_AddStringToObject(c->root, "source", src);
    free(src);
    cJSON *from = cJSON_AddArrayToObject(c->root, "calibrated_from");
    size_t nsamples = 0, nruns = 0;
    for (size_t i = 0; i < nprofs; i++) {
        const ss_hwprofile *p = profs[i];
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "file", p->path);
        cJSON_AddStringToObject(f, "source", p->source);
        cJSON_AddStringToObject(f, "machine", p->machine);
        cJSON_AddStringToObject(f, "cpu_model", p->cpu_model);
        cJSON_AddNumberToObject(f, "cores", p->cores);
        cJSON_AddStringToObject(f, "os", p->os);
        cJSON_AddStringToObject(f, "date", p->date);
        cJSON_AddNumberToObject(f, "samples", (double)p->nsamples);
        cJSON_AddNumberToObject(f, "runs_not_fitted", (double)p->nruns);
        cJSON_AddItemToArray(from, f);
        nsamples += p->nsamples;
        nruns += p->nruns;
    }
    fprintf(c->sum, "calibrate: %zu profile file%s, %zu sample%s (%zu end-to-end run%s, not fitted)\n", nprofs,
            nprofs == 1 ? "" : "s", nsamples, nsamples == 1 ? "" : "s", nruns, nruns == 1 ? "" : "s");
}

int ss_calibrate(ss_hwprofile *const *profs, size_t nprofs, const ss_calib_opts *o, char **json, char **summary,
                 ss_err *err)
{
    calib c = {.o = o};
    size_t sumlen;
    c.sum = ss_xmemstream(summary, &sumlen);
    c.root = cJSON_CreateObject();
    *json = NULL;
    collect(&c, profs, nprofs);
    header(&c, profs, nprofs);
    groups *forms[] = {&c.dists, &c.transports, &c.memcpys, &c.colds};
    groups *modes[] = {&c.dists, &c.laws, &c.transports};
    int bad = 0;
    for (size_t i = 0; i < sizeof forms / sizeof *forms && !bad; i++) bad = check_forms(forms[i], err) < 0;
    for (size_t i = 0; i < sizeof modes / sizeof *modes && !bad; i++) bad = check_modes(modes[i], err) < 0;
    if (bad) {
        fclose(c.sum);
        cJSON_Delete(c.root);
        groups *all[] = {&c.dists, &c.laws, &c.transports, &c.memcpys, &c.colds, &c.memory};
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) groups_free(all[k]);
        return -1;
    }
    ss_dist_fits *dfits = ss_xcalloc(c.dists.n + 1, sizeof *dfits);
    ss_affine_fit *lfits = ss_xcalloc(c.laws.n + 1, sizeof *lfits);
    int rc = 0;
    for (size_t i = 0; i < c.dists.n && rc == 0; i++) rc = fit_dist(&c.dists.g[i], &dfits[i], err);
    if (rc == 0) fprintf(c.sum, "compute laws (latency vs batch):\n");
    if (rc == 0) rc = compute_laws(&c, lfits, err);
    if (rc == 0) fprintf(c.sum, "transports and memcpy (time vs bytes):\n");
    if (rc == 0) rc = transport_laws(&c, err);
    if (rc == 0) rc = blocks(&c, dfits, lfits, err);
    if (rc == 0) {
        size_t chosen[SS_FIT_NFAMILIES] = {0};
        cJSON *arr = cJSON_AddArrayToObject(c.root, "distributions");
        for (size_t i = 0; i < c.dists.n; i++) {
            cJSON_AddItemToArray(arr, dist_json(&c.dists.g[i], &dfits[i]));
            chosen[dfits[i].best]++;
        }
        fprintf(c.sum, "distributions: %zu (normal %zu, lognormal %zu, gamma %zu, empirical %zu)\n", c.dists.n,
                chosen[SS_FIT_NORMAL], chosen[SS_FIT_LOGNORMAL], chosen[SS_FIT_GAMMA], chosen[SS_FIT_EMPIRICAL]);
        summaries(&c);
        /* people read the file from the top: what a scenario uses first, then the fits */
        static const char *const order[] = {"name", "description", "source", "calibrated_from", "process", "blocks",
                                            "transports", "transport_fits", "memcpy", "memcpy_paths", "compute_laws",
                                            "distributions", "memory", "coldstart"};
        for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
            cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(c.root, order[i]);
            if (it) cJSON_AddItemToObject(c.root, order[i], it);
        }
        if (o->base) {
            rc = fill_base(&c, dfits, profs, nprofs, json, err);
        } else {
            char *text = cJSON_Print(c.root);
            *json = ss_xasprintf("%s\n", text);
            cJSON_free(text);
        }
    }
    fclose(c.sum);
    free(dfits);
    free(lfits);
    cJSON_Delete(c.root);
    groups *all[] = {&c.dists, &c.laws, &c.transports, &c.memcpys, &c.colds, &c.memory};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) groups_free(all[i]);
    free(c.tp);
    return rc;
}

/* ---- a model profile (--model-profile, ss_calibrate_model) ------------------ */

#define AMDAHL_LAW "latency_s = T1_s x (s + (1 - s) / threads)"
#define AMDAHL_AFFINE "latency_s = A_s + B_s x (1 / threads)"
#define WLS_METHOD                                                                                      \
    "weighted least squares over every observation (gsl_fit_wlinear), weight 1 / (mean latency at its "   \
    "thread count)^2 (noise a constant fraction of the time); covariances scaled by chi2 / (n - 2); 95% " \
    "intervals = t(0.975, n - 2) x standard error; residual_se_s and r2 of the unweighted residuals"
#define AMDAHL_S_MAX 0.999 /* the reader needs s < 1; a fit at or above 1 (no speed-up) is written as this */
#define DELTA_METHOD                                                                                           \
    "delta method on the least-squares covariance of (A_s, B_s): var T1_s = var A + var B + 2 cov; var s = "  \
    "(B^2 var A + A^2 var B - 2 A B cov) / T1_s^4; 95% interval = t975 x its standard error"

static int whole_of(const ss_hwp_sample *s, const char *model)
{
    return s->kind == SS_HWP_COMPUTE && s->piece_kind == SS_HWP_WHOLE && (!model || strcmp(s->model, model) == 0);
}

/* The model: --model, else the only one measured whole; its first sample in *first. */
static int mp_pick_model(ss_hwprofile *const *profs, size_t nprofs, const ss_calib_opts *o, const char **model,
                         ref *first, ss_err *err)
{
    *model = NULL;
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (!whole_of(s, o->model)) continue;
            if (!*model) {
                *model = s->model;
                *first = (ref){profs[f], i};
            } else if (strcmp(s->model, *model) != 0) {
                return ss_err_at(err, profs[f]->path, s->line, s->col,
                                 "whole models '%s' and '%s' are measured: choose one with --model", *model, s->model);
            }
        }
    if (*model) return 0;
    if (o->model)
        return ss_err_at(err, "servesim calibrate", 0, 0,
                         "--model %s: not measured as a whole model (a compute sample without block or layer)",
                         o->model);
    return ss_err_at(err, "servesim calibrate", 0, 0, "%s",
                     "--model-profile: no whole model is measured (a compute sample without block or layer)");
}

/* A model profile read with the positioned reader (so its errors carry a
 * position), then as cJSON to copy from; *base NULL when none is named. */
static int mp_load_base(const ss_calib_opts *o, int need_service, cJSON **base, ss_err *err)
{
    *base = NULL;
    if (!o->base) return 0;
    ss_doc *doc = ss_doc_load(o->base, err);
    if (!doc) return -1;
    int rc = ss_node_expect(doc->root, SS_NODE_MAP, "model profile", err);
    if (rc == 0 && need_service && !ss_map_find(doc->root, "service"))
        rc = ss_node_err(doc->root, err,
                         "model profile: missing key 'service' (no GPU is measured, so --base must give it)");
    ss_doc_free(doc);
    if (rc < 0) return -1;
    size_t len;
    char *text = ss_read_file(o->base, &len, err);
    if (!text) return -1;
    *base = cJSON_Parse(text);
    free(text);
    if (!*base) return ss_err_at(err, o->base, 0, 0, "%s", "cannot be read as JSON");
    return 0;
}

static unsigned min_threads(const group *g)
{
    unsigned t = 0;
    for (size_t i = 0; i < g->nrefs; i++)
        if (!t || sample_of(&g->refs[i])->threads < t) t = sample_of(&g->refs[i])->threads;
    return t;
}

typedef struct amdahl {
    ss_affine_fit f;           /* latency vs 1/threads */
    double t1_s, t1_se, t1_ci95;
    double s, s_se, s_ci95;    /* as fitted */
    double s_written;          /* clamped to [0, AMDAHL_S_MAX] */
    unsigned tmin, tmax;       /* thread counts measured */
    size_t nthreads;
} amdahl;

static cJSON *amdahl_json(const amdahl *a, const group *g, const char *note)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "law", AMDAHL_LAW);
    put_num(o, "T1_s", a->t1_s);
    put_interval(o, "T1_s_ci95", a->t1_s, a->t1_ci95);
    put_num(o, "T1_s_se", a->t1_se);
    put_num(o, "serial_fraction", a->s);
    put_interval(o, "serial_fraction_ci95", a->s, a->s_ci95);
    put_num(o, "serial_fraction_se", a->s_se);
    put_num(o, "serial_fraction_written", a->s_written);
    if (note) cJSON_AddStringToObject(o, "note", note);
    cJSON_AddStringToObject(o, "intervals", DELTA_METHOD);
    cJSON_AddNumberToObject(o, "thread_counts", (double)a->nthreads);
    cJSON_AddNumberToObject(o, "threads_min", a->tmin);
    cJSON_AddNumberToObject(o, "threads_max", a->tmax);
    cJSON *fit = law_json(AMDAHL_AFFINE, "1 / threads", "A_s", "B_s", &a->f, g);
    cJSON_ReplaceItemInObjectCaseSensitive(fit, "method", cJSON_CreateString(WLS_METHOD));
    cJSON_AddStringToObject(fit, "relation", "A_s = T1_s x s, B_s = T1_s x (1 - s)");
    cJSON_AddItemToObject(o, "affine_fit", fit);
    return o;
}

/* Fit the law to group g (x = 1/threads).  0 ok, -1 with err set. */
static int fit_amdahl(const group *g, const char *model, const char *cpu, amdahl *a, ss_err *err)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < g->nrefs; i++) {
        unsigned t = sample_of(&g->refs[i])->threads;
        if (!a->tmin || t < a->tmin) a->tmin = t;
        if (t > a->tmax) a->tmax = t;
    }
    /* weights 1 / mean^2 per thread count: timing noise is a fraction of the time, so the 1-thread
     * latencies scatter most; ordinary least squares would understate the intervals */
    double *w = ss_xcalloc(g->n + 1, sizeof *w);
    for (size_t i = 0; i < g->n; i++) {
        double sum = 0;
        size_t k = 0;
        for (size_t j = 0; j < g->n; j++)
            if (g->x[j] == g->x[i]) sum += g->y[j], k++;
        w[i] = (double)k * (double)k / (sum * sum);
    }
    int bad = ss_fit_affine_weighted(g->x, g->y, w, g->n, &a->f);
    free(w);
    if (bad < 0)
        return group_err(g, err,
                         "model %s on %s: fewer samples than parameters: the Amdahl law " AMDAHL_LAW
                         " needs batch-1 samples at two thread counts or more and three observations, got %zu "
                         "thread count%s and %zu observation%s",
                         model, cpu, a->f.ndistinct_x, a->f.ndistinct_x == 1 ? "" : "s", g->n, g->n == 1 ? "" : "s");
    a->nthreads = a->f.ndistinct_x;
    double A = a->f.intercept, B = a->f.slope, va = a->f.intercept_se * a->f.intercept_se,
           vb = a->f.slope_se * a->f.slope_se, cov = a->f.cov;
    a->t1_s = A + B;
    if (!(a->t1_s > 0))
        return group_err(g, err,
                         "model %s on %s: the Amdahl law's one-thread latency T1_s = A_s + B_s = %.6g + %.6g is not "
                         "> 0: the samples do not follow " AMDAHL_LAW,
                         model, cpu, A, B);
    a->t1_se = sqrt(fmax(0, va + vb + 2 * cov));
    a->t1_ci95 = a->f.t975 * a->t1_se;
    a->s = A / a->t1_s;
    double t4 = a->t1_s * a->t1_s * a->t1_s * a->t1_s;
    a->s_se = sqrt(fmax(0, (B * B * va + A * A * vb - 2 * A * B * cov) / t4));
    a->s_ci95 = a->f.t975 * a->s_se;
    a->s_written = a->s < 0 ? 0 : a->s > AMDAHL_S_MAX ? AMDAHL_S_MAX : a->s;
    return 0;
}

/* The keys a model profile may have beyond the measured ones, copied from --base. */
static const char *const base_keys[] = {"weights_bytes", "runtime_vram_bytes", "load_bytes_per_s",
                                        "request_overhead_s", "sla_s", NULL};

int ss_calibrate_model(ss_hwprofile *const *profs, size_t nprofs, const ss_calib_opts *o, char **json,
                       char **summary, ss_err *err)
{
    calib c = {.o = o};
    size_t sumlen;
    const char *cpu = o->cpu ? o->cpu : "cpu";
    c.sum = ss_xmemstream(summary, &sumlen);
    c.root = cJSON_CreateObject();
    *json = NULL;
    groups gpu = {0}, cpus = {0}, one = {0}, scaled = {0};
    cJSON *base = NULL;
    const char *model = NULL, *gpu_dev = o->gpu;
    ref first = {0};
    char *note = NULL;
    int rc = mp_pick_model(profs, nprofs, o, &model, &first, err);
    /* the model's batch-1 samples: GPU ones by device and threads, CPU ones by threads */
    for (size_t f = 0; f < nprofs && rc == 0; f++)
        for (size_t i = 0; i < profs[f]->nsamples && rc == 0; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (!whole_of(s, model) || s->batch != 1) continue;
            if (strcmp(s->device, cpu) == 0) {
                add(&cpus, "cpu", profs[f], i, 1.0 / s->threads);
                if (s->threads == 1) add(&one, "one", profs[f], i, 1);
                continue;
            }
            if (o->gpu ? strcmp(s->device, o->gpu) != 0 : strcmp(s->device, "cpu") == 0) continue;
            if (gpu_dev && strcmp(gpu_dev, s->device) != 0)
                rc = ss_err_at(err, profs[f]->path, s->line, s->col,
                               "model %s is measured on two devices other than %s ('%s' and '%s'): choose the GPU "
                               "with --gpu",
                               model, cpu, gpu_dev, s->device);
            gpu_dev = s->device;
            char *k = ss_xasprintf("%u", s->threads);
            add(&gpu, k, profs[f], i, 1);
            free(k);
        }
    const ss_hwp_sample *fs = rc == 0 ? sample_of(&first) : NULL;
    if (rc == 0 && cpus.n == 0)
        rc = ss_err_at(err, first.prof->path, fs->line, fs->col,
                       "model %s: no batch-1 sample on %s: the Amdahl law " AMDAHL_LAW
                       " (serial_fraction, cpu_service) needs them at two thread counts or more%s",
                       model, cpu, o->cpu ? "" : " (--cpu names another device)");
    if (rc == 0 && gpu.n == 0 && !o->base)
        rc = ss_err_at(err, first.prof->path, fs->line, fs->col,
                       "model %s: no batch-1 sample on %s%s: service (the GPU service time) needs one; measure it, "
                       "or keep a model profile's service with --base MODEL.json",
                       model, o->gpu ? "device " : "a GPU (a device other than ", o->gpu ? o->gpu : "cpu)");
    if (rc == 0) rc = mp_load_base(o, gpu.n == 0, &base, err);
    /* service: the GPU's fewest threads */
    group *gg = NULL;
    for (size_t i = 0; i < gpu.n; i++)
        if (!gg || min_threads(&gpu.g[i]) < min_threads(gg)) gg = &gpu.g[i];
    ss_dist_fits dsvc = {0}, dcpu = {0};
    if (rc == 0 && gg) rc = fit_dist(gg, &dsvc, err);
    amdahl a;
    if (rc == 0) rc = fit_amdahl(&cpus.g[0], model, cpu, &a, err);
    /* cpu_service: the one-thread samples, else every sample scaled to one core */
    const group *cg = NULL;
    if (rc == 0) {
        if (one.n) {
            cg = &one.g[0];
        } else {
            const group *all = &cpus.g[0];
            for (size_t i = 0; i < all->nrefs; i++)
                add(&scaled, "scaled", all->refs[i].prof, all->refs[i].sample, 1.0 / sample_of(&all->refs[i])->threads);
            group *sg = &scaled.g[0];
            for (size_t k = 0; k < sg->n; k++) sg->y[k] *= a.t1_s / (a.f.intercept + a.f.slope * sg->x[k]);
            cg = sg;
        }
        rc = fit_dist(cg, &dcpu, err);
    }
    if (rc == 0) {
        header(&c, profs, nprofs);
        if (a.s < 0)
            note = ss_xasprintf("the fitted s %.4g is below 0 (faster than linear in threads: noise, or caches); "
                                "written as 0",
                                a.s);
        else if (a.s > AMDAHL_S_MAX)
            note = ss_xasprintf("the fitted s %.4g is above %g (%s); written as %g (the reader needs s < 1)", a.s,
                                AMDAHL_S_MAX,
                                a.s >= 1 ? "latency does not fall with more threads" : "hardly any speed-up",
                                AMDAHL_S_MAX);
        cJSON *cal = cJSON_CreateObject();
        cJSON_AddItemToObject(cal, "calibrated_from",
                              cJSON_DetachItemFromObjectCaseSensitive(c.root, "calibrated_from"));
        if (o->base) cJSON_AddStringToObject(cal, "base", o->base);
        cJSON_AddStringToObject(cal, "model", model);
        if (gg) {
            cJSON_AddItemToObject(cal, "service", dist_json(gg, &dsvc));
            cJSON_AddItemToObject(c.root, "service", service_json(&dsvc, gg));
        } else {
            cJSON *k = cJSON_CreateObject();
            char *w = ss_xasprintf("kept from %s: no GPU sample of %s at batch 1", o->base, model);
            cJSON_AddStringToObject(k, "note", w);
            free(w);
            cJSON_AddItemToObject(cal, "service", k);
            cJSON_AddItemToObject(c.root, "service",
                                  cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(base, "service"), 1));
        }
        cJSON_AddItemToObject(cal, "amdahl", amdahl_json(&a, &cpus.g[0], note));
        cJSON *cd = dist_json(cg, &dcpu);
        const char *how = one.n ? "fitted to the 1-thread samples (one core's work is their latency)"
                                : "no 1-thread sample: fitted to every sample scaled to one core, latency x T1_s / "
                                  "(A_s + B_s / threads) of amdahl";
        cJSON_AddStringToObject(cd, "how", how);
        if (!one.n) cJSON_ReplaceItemInObjectCaseSensitive(cd, "threads", cJSON_CreateString("all, scaled to 1"));
        cJSON_AddItemToObject(cal, "cpu_service", cd);
        cJSON_AddItemToObject(c.root, "cpu_service", service_json(&dcpu, cg));
        put_num(c.root, "serial_fraction", a.s_written);
        for (int i = 0; base && base_keys[i]; i++) {
            const cJSON *it = cJSON_GetObjectItemCaseSensitive(base, base_keys[i]);
            if (it) cJSON_AddItemToObject(c.root, base_keys[i], cJSON_Duplicate(it, 1));
        }
        cJSON_AddItemToObject(c.root, "calibration", cal);
        /* description and source: what a person reads first */
        const cJSON *bd = base ? cJSON_GetObjectItemCaseSensitive(base, "description") : NULL;
        char *desc = cJSON_IsString(bd)
                         ? ss_xasprintf("%s (service%s, cpu_service and serial_fraction calibrated)", bd->valuestring,
                                        gg ? "" : " kept")
                         : ss_xasprintf("%s, batch 1: service, cpu_service and serial_fraction calibrated by servesim "
                                        "calibrate from profile files of real runs (docs/profiles.md)",
                                        model);
        cJSON_ReplaceItemInObjectCaseSensitive(c.root, "description", cJSON_CreateString(desc));
        free(desc);
        FILE *fp;
        char *src = NULL;
        size_t len;
        fp = ss_xmemstream(&src, &len);
        fputs("servesim calibrate --model-profile from", fp);
        for (size_t i = 0; i < nprofs; i++) fprintf(fp, "%s %s", i ? "," : "", profs[i]->path);
        if (gg)
            fprintf(fp, ". service: %s fitted to %zu batch-1 latencies of %s on %s, %u thread%s",
                    ss_fit_family_name(dsvc.best), gg->n, model, gpu_dev, min_threads(gg),
                    min_threads(gg) == 1 ? "" : "s");
        else
            fprintf(fp, ". service: kept from %s (no GPU measured)", o->base);
        fprintf(fp,
                ". serial_fraction: Amdahl's law %s by weighted least squares of %zu batch-1 latencies on %s at %u "
                "to %u threads (weights 1 / mean^2), s = %.4g (95%%: %.4g to %.4g, delta method)%s",
                AMDAHL_LAW, a.f.n, cpu, a.tmin, a.tmax, a.s, a.s - a.s_ci95, a.s + a.s_ci95,
                note ? ", written clamped" : "");
        fprintf(fp, ". cpu_service: %s fitted to %s", ss_fit_family_name(dcpu.best),
                one.n ? "the 1-thread samples" : "every sample scaled to one core by the law");
        if (base) {
            fprintf(fp, ". Kept from %s:", o->base);
            int any = 0;
            for (int i = 0; base_keys[i]; i++)
                if (cJSON_GetObjectItemCaseSensitive(base, base_keys[i]))
                    fprintf(fp, "%s %s", any++ ? "," : "", base_keys[i]);
            if (!any) fputs(" nothing else", fp);
            const cJSON *bs = cJSON_GetObjectItemCaseSensitive(base, "source");
            if (cJSON_IsString(bs)) fprintf(fp, " (its source: %s)", bs->valuestring);
        }
        fputs(". Every fit, its statistics and samples: calibration", fp);
        fclose(fp);
        cJSON_ReplaceItemInObjectCaseSensitive(c.root, "source", cJSON_CreateString(src));
        free(src);
        /* the summary */
        fprintf(c.sum, "model %s:\n", model);
        if (gg)
            fprintf(c.sum, "  service on %s (%u thread%s, batch 1): %s, mean %.6g s, sd %.3g s, n %zu\n", gpu_dev,
                    min_threads(gg), min_threads(gg) == 1 ? "" : "s", ss_fit_family_name(dsvc.best),
                    dsvc.fit[dsvc.best].mean, dsvc.fit[dsvc.best].sd, gg->n);
        else
            fprintf(c.sum, "  service: kept from %s (no GPU measured)\n", o->base);
        fprintf(c.sum,
                "  Amdahl on %s, threads %u-%u, n %zu: T1 %.6g s (95%%: %.6g to %.6g), serial fraction %.4f (95%%: "
                "%.4f to %.4f), R2 %.4f\n",
                cpu, a.tmin, a.tmax, a.f.n, a.t1_s, a.t1_s - a.t1_ci95, a.t1_s + a.t1_ci95, a.s, a.s - a.s_ci95,
                a.s + a.s_ci95, a.f.r2);
        if (note) fprintf(c.sum, "  warning: %s\n", note);
        fprintf(c.sum, "  cpu_service (%s): %s, mean %.6g s, sd %.3g s, n %zu\n",
                one.n ? "the 1-thread samples" : "scaled to one core", ss_fit_family_name(dcpu.best),
                dcpu.fit[dcpu.best].mean, dcpu.fit[dcpu.best].sd, cg->n);
        char *text = cJSON_Print(c.root);
        *json = ss_xasprintf("%s\n", text);
        cJSON_free(text);
    }
    free(note);
    fclose(c.sum);
    cJSON_Delete(c.root);
    cJSON_Delete(base);
    groups *all[] = {&gpu, &cpus, &one, &scaled};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) groups_free(all[i]);
    return rc;
}
