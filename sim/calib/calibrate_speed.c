/* calibrate_speed.c: the host's speed between the micro-benchmarks and the
 * end-to-end runs (tools/probe/speed.py, kind "speed" samples), reported.
 *
 * A machine shared with others (a VM on a busy host) does not keep one
 * speed: on 2026-11-27 this project's VM ran the same block chain in 85 to
 * 124 ms between runs a few seconds apart (docs/calibration.md, "The host's
 * speed").  The probe times the chain at batch 1 in its own process, four
 * times beside the micro-benchmarks (phase micro) and before and after every
 * end-to-end run while the pipeline is idle (phase e2e), each check a sample.
 * Those checks are micro-benchmarks, not end-to-end results: no request of a
 * run is in them.
 *
 * The ratio r = mean(e2e) / mean(micro) says how much faster or slower the
 * host was while the runs ran than while the micro-benchmarks the model is
 * fitted from ran.  Its 95% interval is the delta method's on a ratio of two
 * means, with each check's mean one observation (a check's requests follow
 * each other within a second and move together) and Student's t with the
 * fewer checks' degrees of freedom; with a single check in a phase, each
 * request is an observation instead (narrower than it should be; the method
 * says so).  It is written to the model file (host_speed) and said in the
 * summary, with a warning when the host moved by more than 5% beyond the
 * interval: the validation errors may then be the host's.  With
 * --at-run-speed (the probe's calibrate.sh uses it) it is applied: every
 * compute, transport and memcpy observation is multiplied by the ratio before
 * the fits, so the model is the micro-benchmarks at the speed the host had
 * while the runs ran [ASSUMPTION: the host's speed scales every CPU time
 * alike; the stacking, wake and co-run benchmarks, a probability, waits and
 * ratios, are left as measured].  On the measurements of 2026-11-27 with
 * waking after idle and CPU interference modelled it took the three-pass
 * measurements' means from 10 and 3 to 2 and 4 of 52 and two full ones from
 * 28 and 5 to 6 and 2 (docs/calibration.md).  Checks of one phase only are
 * noted and skipped (a probe run of one part, --only micro); checks of two
 * machines or of two chains are refused. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/util.h"

/* A phase's mean and the variance of that mean, over its checks' means
 * (by_check) or over its requests; every check has at least two requests and
 * by_check needs two checks, so the sample variance is defined. */
static void phase_stats(const group *g, int by_check, double *mean, double *var_of_mean, size_t *nobs)
{
    double *m = ss_xcalloc(g->nrefs + 1, sizeof *m);
    const double *v = g->y;
    *nobs = g->n;
    if (by_check) {
        for (size_t r = 0; r < g->nrefs; r++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[r]);
            m[r] = gsl_stats_mean(s->times_s, 1, s->ntimes);
        }
        v = m;
        *nobs = g->nrefs;
    }
    *mean = gsl_stats_mean(v, 1, *nobs);
    *var_of_mean = gsl_stats_variance_m(v, 1, *nobs, *mean) / (double)*nobs;
    free(m);
}

/* The mean of x[k] over the runs k within w of j (0 <= k < n), j itself with
 * with_self, else left out (then w >= 1 and n >= 2: one neighbour at least). */
static double window_mean(const double *x, size_t n, size_t j, size_t w, int with_self)
{
    double t = 0;
    size_t m = 0;
    for (size_t k = j > w ? j - w : 0; k <= j + w && k < n; k++)
        if (with_self || k != j) t += x[k], m++;
    return t / (double)m;
}

/* The host's speed per end-to-end run, where the checks name their runs.
 * A run's own two checks (0.4 s beside a run of 6-20 s) say little about it
 * (docs/calibration.md: used alone they took five measurements from 28 to
 * 44 misses), but the host drifts over minutes (the 09:21 measurement: 87 ms
 * over one transport's runs, 98 ms over the other's).  So each run gets the
 * mean of the run means within w runs of it in run order (its own
 * included), w chosen from the checks alone: the w whose leave-one-run-out
 * prediction (the neighbours within w, not the run itself) of each run's
 * mean has the least squared error, from 1 to every other run (the phase's
 * mean, as when the host did not drift), or the widest within one standard
 * error of it (the one-standard-error rule).  The run's time factor is that
 * local mean over ref_s, the speed the model's fits stand for (the e2e
 * phase's mean with --at-run-speed, else the micro-benchmarks'); validate
 * scales the run's CPU work by it (validation.host_speed). */
static int per_run(calib *c, cJSON *o, const group *e2e, double ref_s, ss_err *err)
{
    const char **id = ss_xcalloc(e2e->nrefs + 1, sizeof *id);
    size_t *first = ss_xcalloc(e2e->nrefs + 1, sizeof *first); /* each run's first check, in e2e->refs */
    double *sum = ss_xcalloc(e2e->nrefs + 1, sizeof *sum);
    size_t *cnt = ss_xcalloc(e2e->nrefs + 1, sizeof *cnt), nr = 0, named = 0;
    const ss_hwp_sample *unnamed = NULL, *one = NULL;
    const ss_hwprofile *unnamed_p = NULL, *one_p = NULL;
    int rc = 0;
    for (size_t i = 0; i < e2e->nrefs && rc == 0; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&e2e->refs[i]);
        const ss_hwprofile *p = e2e->refs[i].prof;
        if (!s->run) {
            if (!unnamed) unnamed = s, unnamed_p = p;
            continue;
        }
        if (!one) one = s, one_p = p;
        named++;
        size_t k = 0;
        while (k < nr && strcmp(id[k], s->run) != 0) k++;
        if (k == nr) id[nr] = s->run, first[nr++] = i;
        else if (e2e->refs[first[k]].prof != p) /* two measurements' runs share their names: whose speed is whose? */
            rc = ss_err_at(err, p->path, s->line, s->col,
                           "speed: run '%s' is named by checks of two files (%s:%d and here): the speed per run "
                           "takes one measurement's checks",
                           s->run, e2e->refs[first[k]].prof->path, ss_cal_sample_of(&e2e->refs[first[k]])->line);
        sum[k] += gsl_stats_mean(s->times_s, 1, s->ntimes);
        cnt[k]++;
    }
    if (rc == 0 && named && unnamed)
        rc = ss_err_at(err, unnamed_p->path, unnamed->line, unnamed->col,
                       "speed: this check beside the end-to-end runs names no run, while others do (`run` at %s:%d): "
                       "name every one or none",
                       one_p->path, one->line);
    free(first);
    if (rc < 0 || !named) {
        if (rc == 0)
            fprintf(c->sum, "host speed per run: the checks name no runs (an older probe's): not estimated\n");
        free(id), free(sum), free(cnt);
        return rc;
    }
    /* mse[w]: the mean leave-one-run-out squared error with window w; se[w]: its
     * standard error over the runs */
    double *x = ss_xcalloc(nr, sizeof *x), *mse = ss_xcalloc(nr + 1, sizeof *mse),
           *se = ss_xcalloc(nr + 1, sizeof *se), *e = ss_xcalloc(nr, sizeof *e);
    for (size_t k = 0; k < nr; k++) x[k] = sum[k] / (double)cnt[k];
    size_t best_w = nr > 1 ? nr - 1 : 0, min_w = 1;
    for (size_t w = 1; w < nr; w++) {
        for (size_t j = 0; j < nr; j++) {
            double d = x[j] - window_mean(x, nr, j, w, 0);
            e[j] = d * d;
        }
        mse[w] = gsl_stats_mean(e, 1, nr);
        se[w] = sqrt(gsl_stats_variance_m(e, 1, nr, mse[w]) / (double)nr);
        if (mse[w] < mse[min_w]) min_w = w;
    }
    /* the one-standard-error rule (Hastie, Tibshirani & Friedman, ESL §7.10): the
     * widest window whose error is within a standard error of the least, so a
     * host that holds still keeps the phase's mean and noise does not pick a
     * narrow window */
    for (size_t w = nr - 1; w >= 1 && nr >= 2; w--)
        if (mse[w] <= mse[min_w] + se[min_w]) {
            best_w = w;
            break;
        }
    cJSON *runs = cJSON_AddArrayToObject(o, "runs");
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < nr; j++) {
        double local = window_mean(x, nr, j, best_w, 1), f = local / ref_s;
        lo = f < lo ? f : lo, hi = f > hi ? f : hi;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "run", id[j]);
        cJSON_AddNumberToObject(r, "checks", (double)cnt[j]);
        ss_cal_put_num(r, "mean_s", x[j]);
        ss_cal_put_num(r, "local_mean_s", local);
        ss_cal_put_num(r, "time_factor", f);
        cJSON_AddItemToArray(runs, r);
    }
    cJSON *w = cJSON_AddObjectToObject(o, "per_run");
    cJSON_AddNumberToObject(w, "window_runs", (double)best_w);
    ss_cal_put_num(w, "reference_s", ref_s);
    if (nr >= 2) {
        ss_cal_put_num(w, "loo_rms_s", sqrt(mse[best_w]));
        ss_cal_put_num(w, "loo_rms_phase_mean_s", sqrt(mse[nr - 1]));
    }
    cJSON_AddStringToObject(
        w, "method",
        "runs[].local_mean_s = the mean of the run means (mean_s, each the mean of its checks' means) within "
        "window_runs runs of it in run order, its own included; window_runs is the widest whose leave-one-run-out "
        "squared error of predicting each run's mean from its neighbours (loo_rms_s; loo_rms_phase_mean_s with "
        "every other run) is within one standard error of the least (the one-standard-error rule); with one run, "
        "its own mean (no cross-validation); time_factor = local_mean_s / reference_s, the speed the fits stand "
        "for; servesim validate applies it with validation.host_speed (sim/calib/calibrate_speed.c)");
    if (nr >= 2)
        fprintf(c->sum,
                "host speed per run: %zu runs, each the mean of the runs within %zu of it (leave-one-run-out rms "
                "%.2f ms, %.2f ms over every other run): time factors %.4f to %.4f\n",
                nr, best_w, 1e3 * sqrt(mse[best_w]), 1e3 * sqrt(mse[nr - 1]), lo, hi);
    else
        fprintf(c->sum, "host speed per run: one run, at its own checks' mean: time factor %.4f\n", lo);
    free(x), free(mse), free(se), free(e), free(id), free(sum), free(cnt);
    return 0;
}

int ss_cal_speed(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    groups phase = {0}; /* g[k]: the checks of one phase, in input order */
    const ss_hwprofile *first = NULL;
    const ss_hwp_sample *f0 = NULL;
    int rc = 0;
    for (size_t f = 0; f < nprofs && rc == 0; f++)
        for (size_t i = 0; i < profs[f]->nsamples && rc == 0; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->kind != SS_HWP_SPEED) continue;
            if (!first) first = profs[f], f0 = s;
            else if (strcmp(profs[f]->machine, first->machine) != 0)
                rc = ss_err_at(err, profs[f]->path, s->line, s->col,
                               "speed: checks of two machines ('%s' in %s, '%s' here): one host's speed at a time",
                               first->machine, first->path, profs[f]->machine);
            else if (strcmp(s->model, f0->model) != 0 || strcmp(s->device, f0->device) != 0 ||
                     s->threads != f0->threads)
                rc = ss_err_at(err, profs[f]->path, s->line, s->col,
                               "speed: checks of two chains (%s on %s, %u threads at %s:%d; %s on %s, %u threads "
                               "here): the phases must time the same one",
                               f0->model, f0->device, f0->threads, first->path, f0->line, s->model, s->device,
                               s->threads);
            if (rc == 0) ss_cal_add(&phase, s->phase ? "e2e" : "micro", profs[f], i, 0);
        }
    if (rc < 0 || !first) {
        ss_cal_groups_free(&phase);
        return rc;
    }
    const group *g[2] = {NULL, NULL};
    for (size_t k = 0; k < phase.n; k++) g[strcmp(phase.g[k].key, "e2e") == 0] = &phase.g[k];
    if (!g[0] || !g[1]) {
        fprintf(c->sum, "host speed: checks beside the %s only, none to compare them with: not reported\n",
                g[0] ? "micro-benchmarks" : "end-to-end runs");
        ss_cal_groups_free(&phase);
        return 0;
    }
    int by_check = g[0]->nrefs >= 2 && g[1]->nrefs >= 2;
    double m[2], vm[2];
    size_t nobs[2];
    for (int e = 0; e < 2; e++) phase_stats(g[e], by_check, &m[e], &vm[e], &nobs[e]);
    double df = (double)(nobs[0] < nobs[1] ? nobs[0] : nobs[1]) - 1, ratio = m[1] / m[0],
           half = (by_check ? gsl_cdf_tdist_Pinv(0.975, df) : 1.959963985) * ratio *
                  sqrt(vm[0] / (m[0] * m[0]) + vm[1] / (m[1] * m[1]));
    if (!(m[0] > 0) || !isfinite(ratio) || !isfinite(half)) {
        rc = ss_err_at(err, first->path, f0->line, f0->col,
                       "speed: the phases' means (%g and %g s) give no finite ratio", m[0], m[1]);
        ss_cal_groups_free(&phase);
        return rc;
    }
    int moved = fabs(ratio - 1) > half + 0.05;
    cJSON *o = cJSON_AddObjectToObject(c->root, "host_speed");
    cJSON_AddStringToObject(o, "machine", first->machine);
    cJSON_AddStringToObject(o, "chain", f0->model);
    ss_cal_put_num(o, "ratio", ratio);
    ss_cal_put_interval(o, "ratio_ci95", ratio, half);
    ss_cal_put_num(o, "micro_mean_s", m[0]);
    ss_cal_put_num(o, "e2e_mean_s", m[1]);
    cJSON_AddNumberToObject(o, "micro_checks", (double)g[0]->nrefs);
    cJSON_AddNumberToObject(o, "e2e_checks", (double)g[1]->nrefs);
    cJSON_AddNumberToObject(o, "micro_requests", (double)g[0]->n);
    cJSON_AddNumberToObject(o, "e2e_requests", (double)g[1]->n);
    cJSON_AddBoolToObject(o, "moved", moved);
    cJSON_AddStringToObject(o, "method",
                            by_check ? "ratio = e2e_mean_s / micro_mean_s, each a mean of its checks' means; delta-method "
                                       "interval, Student's t on the fewer checks; applied to the fits only with "
                                       "--at-run-speed (sim/calib/calibrate_speed.c)"
                                     : "ratio = e2e_mean_s / micro_mean_s over requests (a phase has one check: the "
                                       "interval treats its requests as independent and is too narrow); applied to "
                                       "the fits only with --at-run-speed (sim/calib/calibrate_speed.c)");
    cJSON_AddBoolToObject(o, "applied", c->o->at_run_speed);
    cJSON *from = cJSON_AddObjectToObject(o, "from");
    for (int e = 0; e < 2; e++) cJSON_AddItemToObject(from, e ? "e2e" : "micro", ss_cal_refs_json(g[e]));
    fprintf(c->sum,
            "host speed: the chain took %.2f ms beside the end-to-end runs, %.2f ms beside the micro-benchmarks "
            "(%zu and %zu checks): ratio %.4f +- %.4f\n",
            1e3 * m[1], 1e3 * m[0], g[1]->nrefs, g[0]->nrefs, ratio, half);
    if (moved)
        fprintf(stderr,
                "servesim calibrate: warning: %s's speed moved by %+.1f%% between the micro-benchmarks and the "
                "end-to-end runs (host_speed): errors of that size in validating against those runs may be the "
                "host's\n",
                first->machine, 100 * (ratio - 1));
    rc = per_run(c, o, g[1], c->o->at_run_speed ? m[1] : m[0], err);
    ss_cal_groups_free(&phase);
    return rc;
}

static void scale(double *v, size_t n, double r)
{
    for (size_t i = 0; i < n; i++) v[i] *= r;
}

void ss_cal_at_run_speed(calib *c, ss_hwprofile *const *profs, size_t nprofs)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(c->root, "host_speed");
    const cJSON *r = o ? cJSON_GetObjectItemCaseSensitive(o, "ratio") : NULL;
    if (!cJSON_IsNumber(r)) {
        fprintf(c->sum, "host speed: --at-run-speed: no ratio (speed checks of both phases) to apply\n");
        return;
    }
    size_t n = 0;
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->summary || (s->kind != SS_HWP_COMPUTE && s->kind != SS_HWP_TRANSPORT && s->kind != SS_HWP_MEMCPY))
                continue;
            scale(s->times_s, s->ntimes, r->valuedouble);
            scale(s->sender_s, s->nsender, r->valuedouble);
            scale(s->receiver_s, s->nreceiver, r->valuedouble);
            n++;
        }
    cJSON_AddNumberToObject(o, "applied_to_samples", (double)n);
    fprintf(c->sum, "host speed: applied (--at-run-speed): %zu compute, transport and memcpy samples' times x %.4f\n", n,
            r->valuedouble);
}
