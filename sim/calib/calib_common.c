/* calib_common.c: what the files of the calibration share - samples
 * grouped by what they measure, the JSON the model file is written in,
 * the affine laws and distributions fitted to a group, the block view of
 * a split profile and the file's header - so that the driver (calibrate.c)
 * and each stage (calibrate_*.c) call these and never each other. */
#include "calib/calib_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/cfg.h"
#include "core/fit.h"

#define MOMENTS_METHOD                                                                                     \
    "moments of a published summary: its mean and sd (several summaries of one piece pooled by n) matched " \
    "to the family it names (dist; lognormal when not named; gamma shape = (mean / sd)^2); deterministic at " \
    "the mean when it gives no sd or sd 0"

#define POINTS_METHOD                                                                                       \
    "through the published means: exact through two points (no interval); from three points weighted least " \
    "squares (gsl_fit_wlinear), weights n / sd^2 when every point gives an sd > 0 (intervals 1.96 standard "   \
    "errors), else n (covariance scaled by the weighted residual variance, intervals t(0.975, n - 2))"

/* ---- groups of samples --------------------------------------------------- */


const ss_hwp_sample *ss_cal_sample_of(const ref *r)
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
group *ss_cal_add(groups *gs, const char *key, const ss_hwprofile *p, size_t i, double x)
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

void ss_cal_groups_free(groups *gs)
{
    for (size_t i = 0; i < gs->n; i++) {
        free(gs->g[i].key);
        free(gs->g[i].refs);
        free(gs->g[i].x);
        free(gs->g[i].y);
    }
    free(gs->g);
}

const char *ss_cal_piece_word(ss_hwp_piece k)
{
    return k == SS_HWP_BLOCK ? "block" : k == SS_HWP_LAYER ? "layer" : "model";
}

/* "block 'block1' of resnet50-split on cpu, 2 threads" */
char *ss_cal_piece_words(const ss_hwp_sample *s)
{
    char *what = s->piece ? ss_xasprintf("%s '%s' of %s", ss_cal_piece_word(s->piece_kind), s->piece, s->model)
                          : ss_xasprintf("model %s", s->model);
    char *all = ss_xasprintf("%s on %s, %u thread%s", what, s->device, s->threads, s->threads == 1 ? "" : "s");
    free(what);
    return all;
}

/* ---- JSON helpers ------------------------------------------------------------ */

/* Ten significant digits: enough for any measurement, and short to read. */
double ss_cal_round10(double x)
{
    if (!isfinite(x) || x == 0) return x;
    char buf[64];
    snprintf(buf, sizeof buf, "%.10g", x);
    return ss_strtod(buf, NULL);
}

void ss_cal_put_num(cJSON *o, const char *key, double x)
{
    if (isfinite(x)) cJSON_AddNumberToObject(o, key, ss_cal_round10(x));
    else cJSON_AddNullToObject(o, key);
}

void ss_cal_put_range(cJSON *o, const char *key, double lo, double hi)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ss_cal_round10(lo)));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ss_cal_round10(hi)));
}

void ss_cal_put_interval(cJSON *o, const char *key, double mid, double half)
{
    ss_cal_put_range(o, key, mid - half, mid + half);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ss_cal_percentile95(double *v, size_t n, double *lo, double *hi)
{
    qsort(v, n, sizeof *v, cmp_double);
    *lo = v[(size_t)(0.025 * (double)(n - 1) + 0.5)];
    *hi = v[(size_t)(0.975 * (double)(n - 1) + 0.5)];
}

cJSON *ss_cal_scheduler(calib *c)
{
    cJSON *sched = cJSON_GetObjectItemCaseSensitive(c->root, "scheduler");
    if (!sched) {
        fprintf(c->sum, "scheduler:\n");
        sched = cJSON_AddObjectToObject(c->root, "scheduler");
    }
    return sched;
}

cJSON *ss_cal_refs_json(const group *g)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < g->nrefs; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "file", g->refs[i].prof->path);
        cJSON_AddNumberToObject(r, "sample", (double)g->refs[i].sample);
        cJSON_AddNumberToObject(r, "line", ss_cal_sample_of(&g->refs[i])->line);
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->summary) {
            if (s->n_obs) cJSON_AddNumberToObject(r, "observations", s->n_obs);
            ss_cal_put_num(r, "mean_s", s->times_s[0]);
            if (!isnan(s->sd_s)) ss_cal_put_num(r, "sd_s", s->sd_s);
        } else {
            cJSON_AddNumberToObject(r, "observations", (double)s->ntimes);
        }
        if (s->source) cJSON_AddStringToObject(r, "source", s->source);
        cJSON_AddItemToArray(a, r);
    }
    return a;
}

/* "FILE:LINE:COL: " of a group's first sample, then the message. */
int ss_cal_group_err(const group *g, ss_err *err, const char *fmt, ...)
{
    const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[0]);
    va_list ap;
    va_start(ap, fmt);
    ss_err_vat(err, g->refs[0].prof->path, s->line, s->col, fmt, ap);
    va_end(ap);
    return -1;
}

/* The group's micro_mode into o as "micro_mode" (nothing when its samples do not say). */
void ss_cal_put_mode(cJSON *o, const group *g)
{
    const char *m = ss_hwp_micro_mode_name(ss_cal_sample_of(&g->refs[0])->micro_mode);
    if (m) cJSON_AddStringToObject(o, "micro_mode", m);
}

/* The pooled moments of a summary group: N = sum of n (1 where not given),
 * the n-weighted mean, and the pooled sd sqrt((sum (n - 1) sd^2 + sum n (mean_i
 * - mean)^2) / (N - 1)) (one summary: its own sd); sd NAN if a summary gives
 * none.  *decimals: the most decimals written (-1 if any used an exponent). */

moments ss_cal_pooled(const group *g)
{
    moments m = {0, 0, 0, 0, ss_cal_sample_of(&g->refs[0])->dist};
    double ss = 0;
    int nosd = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
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
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        double n = s->n_obs ? s->n_obs : 1, d = s->times_s[0] - m.mean;
        ss += n * d * d;
    }
    if (nosd) m.sd = NAN;
    else if (g->nrefs == 1) m.sd = ss_cal_sample_of(&g->refs[0])->sd_s;
    else m.sd = m.n > 1 ? sqrt(ss / (m.n - 1)) : 0;
    return m;
}

/* The distribution of a summary group by moments: the summary's family with
 * its mean and sd (gamma: shape = (mean / sd)^2); *deterministic when no sd
 * or sd 0. */
static void dist_by_moments(const group *g, ss_dist_fits *d, int *deterministic)
{
    moments m = ss_cal_pooled(g);
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

/* ---- affine laws ----------------------------------------------------------- */

#define LS_METHOD                                                                                      \
    "ordinary least squares over every observation (gsl_fit_linear); 95% intervals = t(0.975, n - 2) x " \
    "standard error (gsl_cdf_tdist_Pinv)"

/* The law's JSON: its two parameters named `p0` (intercept) and `p1` (slope). */
cJSON *ss_cal_law_json(const char *law, const char *x, const char *p0, const char *p1, const ss_affine_fit *f,
                       const group *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "law", law);
    cJSON_AddStringToObject(o, "x", x);
    ss_cal_put_num(o, p0, f->intercept);
    char k[64];
    snprintf(k, sizeof k, "%s_ci95", p0);
    ss_cal_put_interval(o, k, f->intercept, f->intercept_ci95);
    snprintf(k, sizeof k, "%s_se", p0);
    ss_cal_put_num(o, k, f->intercept_se);
    ss_cal_put_num(o, p1, f->slope);
    snprintf(k, sizeof k, "%s_ci95", p1);
    ss_cal_put_interval(o, k, f->slope, f->slope_ci95);
    snprintf(k, sizeof k, "%s_se", p1);
    ss_cal_put_num(o, k, f->slope_se);
    ss_cal_put_num(o, "t975", f->t975);
    cJSON_AddNumberToObject(o, "n", (double)f->n);
    cJSON_AddNumberToObject(o, "distinct_x", (double)f->ndistinct_x);
    ss_cal_put_num(o, "residual_se_s", f->rse);
    ss_cal_put_num(o, "r2", f->r2);
    cJSON_AddStringToObject(o, "method", g->summary ? POINTS_METHOD : LS_METHOD);
    ss_cal_put_mode(o, g);
    cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
    return o;
}

/* ---- distributions --------------------------------------------------------- */

/* The simulator's distribution map for the chosen candidate (core/dist.h). */
cJSON *ss_cal_service_json(const ss_dist_fits *d, const group *g)
{
    cJSON *s = cJSON_CreateObject();
    const ss_dist_fit *f = &d->fit[d->best];
    if (g->summary && !(f->sd > 0)) { /* a published mean without spread */
        cJSON_AddStringToObject(s, "dist", "deterministic");
        ss_cal_put_num(s, "value_s", f->mean);
        return s;
    }
    cJSON_AddStringToObject(s, "dist", ss_fit_family_name(d->best));
    switch (d->best) {
    case SS_FIT_NORMAL:
    case SS_FIT_LOGNORMAL:
        ss_cal_put_num(s, "mean_s", f->mean);
        ss_cal_put_num(s, "sd_s", f->sd);
        break;
    case SS_FIT_GAMMA:
        ss_cal_put_num(s, "mean_s", f->mean);
        ss_cal_put_num(s, "shape", f->p1);
        break;
    default: {
        cJSON *a = cJSON_AddArrayToObject(s, "samples_s");
        for (size_t i = 0; i < g->n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(ss_cal_round10(g->y[i])));
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
        ss_cal_put_num(c, p1[fam], f->p1);
        ss_cal_put_num(c, p2[fam], f->p2);
    }
    ss_cal_put_num(c, "mean_s", f->mean);
    ss_cal_put_num(c, "sd_s", f->sd);
    ss_cal_put_num(c, "loglik", f->loglik);
    ss_cal_put_num(c, "aic", f->aic);
    ss_cal_put_num(c, "ks_d", f->ks_d);
    ss_cal_put_num(c, "ks_p", f->ks_p);
    if (fam == SS_FIT_GAMMA) cJSON_AddNumberToObject(c, "newton_iterations", f->iterations);
    return c;
}

int ss_cal_fit_dist(const group *g, ss_dist_fits *d, ss_err *err)
{
    if (g->summary) {
        int det;
        dist_by_moments(g, d, &det);
        return 0;
    }
    if (ss_fit_dists(g->y, g->n, d) == 0) return 0;
    const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[0]);
    char *w = ss_cal_piece_words(s);
    int rc = ss_cal_group_err(g, err,
                       "latency of %s, batch %u: fewer samples than parameters: a 2-parameter distribution needs "
                       "at least 3 observations that are not all equal, got %zu%s",
                       w, s->batch, g->n, g->n >= 3 ? " all equal" : "");
    free(w);
    return rc;
}

cJSON *ss_cal_dist_json(const group *g, const ss_dist_fits *d)
{
    const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[0]);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", s->model);
    if (s->piece) cJSON_AddStringToObject(o, ss_cal_piece_word(s->piece_kind), s->piece);
    cJSON_AddStringToObject(o, "device", s->device);
    cJSON_AddNumberToObject(o, "threads", s->threads);
    cJSON_AddNumberToObject(o, "batch", s->batch);
    cJSON_AddNumberToObject(o, "n", (double)g->n);
    ss_cal_put_mode(o, g);
    cJSON *svc = ss_cal_service_json(d, g);
    cJSON_AddStringToObject(o, "chosen", cJSON_GetObjectItemCaseSensitive(svc, "dist")->valuestring);
    cJSON_AddItemToObject(o, "service", svc);
    if (g->summary) {
        cJSON_AddStringToObject(o, "method", MOMENTS_METHOD);
        cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
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
    cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
    return o;
}

/* The five terms of a block's time law, as the model file names them. */
const char *const ss_cal_tfield[5] = {"block_fixed_s", "block_in_s_per_byte", "block_out_s_per_byte",
                                      "delivery_fixed_s", "delivery_s_per_byte"};

/* ---- blocks: the split-profile view ---------------------------------------- */

/* Does law group g describe a block of the chosen model, device and threads? */
int ss_cal_wanted_block(const calib *c, const ss_hwp_sample *s, const char *model)
{
    return s->piece_kind == SS_HWP_BLOCK && strcmp(s->model, model) == 0 &&
           (!c->o->device || strcmp(s->device, c->o->device) == 0) && (!c->o->threads || s->threads == c->o->threads);
}

/* The model whose blocks are written: --model, else the only one with blocks. */
int ss_cal_pick_model(const calib *c, const char **model, ss_err *err)
{
    *model = c->o->model;
    for (size_t i = 0; i < c->laws.n; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&c->laws.g[i].refs[0]);
        if (s->piece_kind != SS_HWP_BLOCK) continue;
        if (c->o->model) {
            if (strcmp(s->model, c->o->model) == 0) return 1;
        } else if (!*model) {
            *model = s->model;
        } else if (strcmp(s->model, *model) != 0) {
            return ss_cal_group_err(&c->laws.g[i], err,
                             "blocks of two models are measured ('%s' and '%s'): choose one with --model", *model,
                             s->model);
        }
    }
    if (c->o->model) return ss_err_at(err, "servesim calibrate", 0, 0, "--model %s: no block of it is measured",
                                      c->o->model);
    return *model ? 1 : 0;
}

/* For block name `blk`: the law group to use (fewest threads, then the first
 * device in byte order, among those the options allow); -1 if none. */
long ss_cal_pick_config(const calib *c, const char *model, const char *blk)
{
    long best = -1;
    for (size_t i = 0; i < c->laws.n; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&c->laws.g[i].refs[0]);
        if (!ss_cal_wanted_block(c, s, model) || strcmp(s->piece, blk) != 0) continue;
        if (best < 0) {
            best = (long)i;
            continue;
        }
        const ss_hwp_sample *b = ss_cal_sample_of(&c->laws.g[best].refs[0]);
        if (s->threads < b->threads || (s->threads == b->threads && strcmp(s->device, b->device) < 0)) best = (long)i;
    }
    return best;
}

/* The distribution group of law group `law` at its smallest batch. */
size_t ss_cal_smallest_batch(const calib *c, size_t law)
{
    size_t best = 0;
    unsigned best_batch = 0;
    for (size_t i = 0; i < c->dists.n; i++) {
        const char *k = c->dists.g[i].key, *lk = c->laws.g[law].key;
        size_t n = strlen(lk);
        const ss_hwp_sample *s = ss_cal_sample_of(&c->dists.g[i].refs[0]);
        if (strncmp(k, lk, n) == 0 && k[n] == '\x1f' && (!best_batch || s->batch < best_batch)) {
            best = i;
            best_batch = s->batch;
        }
    }
    return best;
}

void ss_cal_header(calib *c, ss_hwprofile *const *profs, size_t nprofs)
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
