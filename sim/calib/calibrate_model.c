/* calibrate_model.c: `servesim calibrate --model-profile` (ss_calibrate_model,
 * calibrate.h; docs/profiles.md): a model profile from whole-model compute
 * samples: `service` on the GPU, `cpu_service` at one core, `serial_fraction`
 * by Amdahl's law over threads (weighted least squares, delta-method
 * intervals), the other keys from --base, every fit under `calibration`. */
#include "calib/calib_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cfg.h"

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
    char *text = ss_read_file(o->base, SS_INPUT_DOCUMENT, &len, err);
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
        if (!t || ss_cal_sample_of(&g->refs[i])->threads < t) t = ss_cal_sample_of(&g->refs[i])->threads;
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
    ss_cal_put_num(o, "T1_s", a->t1_s);
    ss_cal_put_interval(o, "T1_s_ci95", a->t1_s, a->t1_ci95);
    ss_cal_put_num(o, "T1_s_se", a->t1_se);
    ss_cal_put_num(o, "serial_fraction", a->s);
    ss_cal_put_interval(o, "serial_fraction_ci95", a->s, a->s_ci95);
    ss_cal_put_num(o, "serial_fraction_se", a->s_se);
    ss_cal_put_num(o, "serial_fraction_written", a->s_written);
    if (note) cJSON_AddStringToObject(o, "note", note);
    cJSON_AddStringToObject(o, "intervals", DELTA_METHOD);
    cJSON_AddNumberToObject(o, "thread_counts", (double)a->nthreads);
    cJSON_AddNumberToObject(o, "threads_min", a->tmin);
    cJSON_AddNumberToObject(o, "threads_max", a->tmax);
    cJSON *fit = ss_cal_law_json(AMDAHL_AFFINE, "1 / threads", "A_s", "B_s", &a->f, g);
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
        unsigned t = ss_cal_sample_of(&g->refs[i])->threads;
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
        return ss_cal_group_err(g, err,
                         "model %s on %s: fewer samples than parameters: the Amdahl law " AMDAHL_LAW
                         " needs batch-1 samples at two thread counts or more and three observations, got %zu "
                         "thread count%s and %zu observation%s",
                         model, cpu, a->f.ndistinct_x, a->f.ndistinct_x == 1 ? "" : "s", g->n, g->n == 1 ? "" : "s");
    a->nthreads = a->f.ndistinct_x;
    double A = a->f.intercept, B = a->f.slope, va = a->f.intercept_se * a->f.intercept_se,
           vb = a->f.slope_se * a->f.slope_se, cov = a->f.cov;
    a->t1_s = A + B;
    if (!(a->t1_s > 0))
        return ss_cal_group_err(g, err,
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
                ss_cal_add(&cpus, "cpu", profs[f], i, 1.0 / s->threads);
                if (s->threads == 1) ss_cal_add(&one, "one", profs[f], i, 1);
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
            ss_cal_add(&gpu, k, profs[f], i, 1);
            free(k);
        }
    const ss_hwp_sample *fs = rc == 0 ? ss_cal_sample_of(&first) : NULL;
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
    if (rc == 0 && gg) rc = ss_cal_fit_dist(gg, &dsvc, err);
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
                ss_cal_add(&scaled, "scaled", all->refs[i].prof, all->refs[i].sample, 1.0 / ss_cal_sample_of(&all->refs[i])->threads);
            group *sg = &scaled.g[0];
            for (size_t k = 0; k < sg->n; k++) sg->y[k] *= a.t1_s / (a.f.intercept + a.f.slope * sg->x[k]);
            cg = sg;
        }
        rc = ss_cal_fit_dist(cg, &dcpu, err);
    }
    if (rc == 0) {
        ss_cal_header(&c, profs, nprofs);
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
            cJSON_AddItemToObject(cal, "service", ss_cal_dist_json(gg, &dsvc));
            cJSON_AddItemToObject(c.root, "service", ss_cal_service_json(&dsvc, gg));
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
        cJSON *cd = ss_cal_dist_json(cg, &dcpu);
        const char *how = one.n ? "fitted to the 1-thread samples (one core's work is their latency)"
                                : "no 1-thread sample: fitted to every sample scaled to one core, latency x T1_s / "
                                  "(A_s + B_s / threads) of amdahl";
        cJSON_AddStringToObject(cd, "how", how);
        if (!one.n) cJSON_ReplaceItemInObjectCaseSensitive(cd, "threads", cJSON_CreateString("all, scaled to 1"));
        cJSON_AddItemToObject(cal, "cpu_service", cd);
        cJSON_AddItemToObject(c.root, "cpu_service", ss_cal_service_json(&dcpu, cg));
        ss_cal_put_num(c.root, "serial_fraction", a.s_written);
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
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) ss_cal_groups_free(all[i]);
    return rc;
}
