/* calibrate_resident.c: the law of a serving process's resident memory from
 * the probe's readings (tools/probe/memory.py, kind "resident" samples), as
 * `resident` in the model file, which the ledgers' terms cite
 * (input/resident.h, docs/memory.md):
 *
 *   loaded   rss = framework_rss_bytes + weights_factor x weights_bytes
 *            (every process's VmRSS after building its network, against the
 *            network's weights: ordinary least squares over the networks);
 *   forward  peak - loaded = workspace_bytes + activation_factor x activation_bytes
 *            (every process's VmHWM after a forward, less its network's mean
 *            loaded rss, against the profiler's peak activations at that batch);
 *
 * so a process's peak resident set is the sum of the four terms.  The
 * readings of the import stage (the framework before any network) are
 * reported beside the intercept (import_rss_bytes, their median), not
 * fitted: the intercept also holds a built network's code and allocator
 * state.  One device, thread count and allocator per calibration: a law of
 * one kind of process on one machine. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/util.h"

/* The mean loaded rss of `model` over the loaded samples of refs, or NAN if none. */
static double loaded_mean(const group *g, const char *model)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->rstage != 1 || strcmp(s->model, model) != 0) continue;
        for (size_t j = 0; j < s->nrss; j++) sum += s->rss_bytes[j];
        n += s->nrss;
    }
    return n ? sum / (double)n : NAN;
}

static void put_fit(cJSON *o, const char *p0, const char *p1, const ss_affine_fit *f)
{
    char k[64];
    ss_cal_put_num(o, p0, f->intercept);
    snprintf(k, sizeof k, "%s_ci95", p0);
    ss_cal_put_interval(o, k, f->intercept, f->intercept_ci95);
    ss_cal_put_num(o, p1, f->slope);
    snprintf(k, sizeof k, "%s_ci95", p1);
    ss_cal_put_interval(o, k, f->slope, f->slope_ci95);
}

static cJSON *fit_json(const ss_affine_fit *f, const char *x, const char *y)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "x", x);
    cJSON_AddStringToObject(o, "y", y);
    cJSON_AddNumberToObject(o, "n", (double)f->n);
    ss_cal_put_num(o, "r2", f->r2);
    ss_cal_put_num(o, "rse_bytes", f->rse);
    return o;
}

/* The points of stage `st` (1 loaded, 2 forward) into x, y (n of them). */
static int points(const group *g, int st, double **x, double **y, size_t *n, ss_err *err)
{
    size_t m = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->rstage == st) m += s->nrss;
    }
    *x = ss_xcalloc(m + 1, sizeof **x);
    *y = ss_xcalloc(m + 1, sizeof **y);
    *n = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->rstage != st) continue;
        double base = 0;
        if (st == 2 && isnan(base = loaded_mean(g, s->model)))
            return ss_err_at(err, g->refs[i].prof->path, s->line, s->col,
                             "resident sample of '%s' at stage forward: no sample of it at stage loaded (the "
                             "forward's extra is its peak less the loaded network's resident set)", s->model);
        for (size_t j = 0; j < s->nrss; j++, (*n)++) {
            (*x)[*n] = st == 1 ? s->weights_bytes : s->activation_bytes;
            (*y)[*n] = st == 1 ? s->rss_bytes[j] : s->peak_bytes[j] - base;
        }
    }
    return 0;
}

int ss_cal_resident(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    group g = {0};
    groups gs = {0};
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++)
            if (profs[f]->samples[i].kind == SS_HWP_RESIDENT) ss_cal_add(&gs, "resident", profs[f], i, 0);
    if (gs.n == 0) return 0;
    g = gs.g[0];
    const ss_hwp_sample *s0 = ss_cal_sample_of(&g.refs[0]);
    int rc = 0;
    for (size_t i = 1; i < g.nrefs && rc == 0; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g.refs[i]);
        const char *a = s->allocator ? s->allocator : "-", *a0 = s0->allocator ? s0->allocator : "-";
        if (strcmp(s->device, s0->device) != 0 || s->threads != s0->threads || strcmp(a, a0) != 0)
            rc = ss_err_at(err, g.refs[i].prof->path, s->line, s->col,
                           "resident sample on device '%s' with %u threads and allocator '%s', the first (%s line %d) "
                           "on '%s' with %u and '%s': one calibration fits one kind of process", s->device, s->threads,
                           a, g.refs[0].prof->path, s0->line, s0->device, s0->threads, a0);
    }
    double *x1 = NULL, *y1 = NULL, *x2 = NULL, *y2 = NULL;
    size_t n1 = 0, n2 = 0;
    ss_affine_fit f1 = {0}, f2 = {0};
    if (rc == 0) rc = points(&g, 1, &x1, &y1, &n1, err);
    if (rc == 0) rc = points(&g, 2, &x2, &y2, &n2, err);
    if (rc == 0 && ss_fit_affine(x1, y1, n1, &f1) < 0)
        rc = ss_cal_group_err(&g, err, "resident samples: the loaded law needs networks of two weights or more "
                              "and three readings at stage loaded (got %zu readings, %zu distinct weights)",
                              f1.n, f1.ndistinct_x);
    if (rc == 0 && ss_fit_affine(x2, y2, n2, &f2) < 0)
        rc = ss_cal_group_err(&g, err, "resident samples: the forward law needs two activation sizes or more and "
                              "three readings at stage forward (got %zu readings, %zu distinct activation sizes)",
                              f2.n, f2.ndistinct_x);
    if (rc == 0) {
        size_t ni = 0;
        for (size_t i = 0; i < g.nrefs; i++)
            if (ss_cal_sample_of(&g.refs[i])->rstage == 0) ni += ss_cal_sample_of(&g.refs[i])->nrss;
        double *imp = ss_xcalloc(ni + 1, sizeof *imp);
        ni = 0;
        for (size_t i = 0; i < g.nrefs; i++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&g.refs[i]);
            for (size_t j = 0; s->rstage == 0 && j < s->nrss; j++) imp[ni++] = s->rss_bytes[j];
        }
        double import_med = NAN;
        if (ni) {
            gsl_sort(imp, 1, ni);
            import_med = gsl_stats_median_from_sorted_data(imp, 1, ni);
        }
        free(imp);
        cJSON *o = cJSON_AddObjectToObject(c->root, "resident");
        cJSON_AddStringToObject(o, "device", s0->device);
        if (s0->threads) cJSON_AddNumberToObject(o, "threads", s0->threads);
        if (s0->allocator) cJSON_AddStringToObject(o, "allocator", s0->allocator);
        cJSON_AddStringToObject(o, "law", "peak resident bytes = framework_rss_bytes + weights_factor x weights_bytes "
                                          "+ workspace_bytes + activation_factor x activation_bytes");
        put_fit(o, "framework_rss_bytes", "weights_factor", &f1);
        put_fit(o, "workspace_bytes", "activation_factor", &f2);
        ss_cal_put_num(o, "import_rss_bytes", import_med);
        cJSON *fits = cJSON_AddObjectToObject(o, "fits");
        cJSON_AddItemToObject(fits, "loaded", fit_json(&f1, "weights_bytes", "rss_bytes after building the network"));
        cJSON_AddItemToObject(fits, "forward", fit_json(&f2, "activation_bytes", "peak_bytes after a forward less "
                                                                              "the network's mean loaded rss_bytes"));
        cJSON_AddStringToObject(o, "method", "ordinary least squares over every process's reading, 95% intervals "
                                             "(sim/calib/calibrate_resident.c); import_rss_bytes: the median of "
                                             "the readings after import, not fitted");
        cJSON_AddItemToObject(o, "from", ss_cal_refs_json(&g));
        fprintf(c->sum,
                "resident memory (%s, %u threads, %s): framework %.1f MiB [import alone %.1f MiB] + %.3f x weights "
                "(R2 %.3f) + workspace %.1f MiB + %.3f x activations (R2 %.3f)\n",
                s0->device, s0->threads, s0->allocator ? s0->allocator : "allocator not said", f1.intercept / 1048576.0, import_med / 1048576.0, f1.slope, f1.r2,
                f2.intercept / 1048576.0, f2.slope, f2.r2);
    }
    free(x1);
    free(y1);
    free(x2);
    free(y2);
    ss_cal_groups_free(&gs);
    return rc;
}
