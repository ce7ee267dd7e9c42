/* tune_joint.c: the joint solver of `servesim tune --per-model --joint`:
 * every model's threshold at once, when one model's threshold changes the
 * others' replica-seconds (models that share a storage link or GPUs: under
 * TSK on the Flashpoint data centre one model's downloads slow another's
 * cold starts, lengthen its queue, and TSK answers with more replicas).
 * Bisecting each model on its own then chases targets that move.
 *
 * It solves f_i(z) = log(rs_i(z) / ref_i) = 0 for every model i together,
 * z_i = log(value_i) (the value itself when lo <= 0), z within the box
 * [lo, hi]:
 *   - a Jacobian J by finite differences at the current point, one run per
 *     model: a step of 0.5 in logs (1/16 of the box when linear); where that
 *     moves no model by 2% (a model at its cap of replicas, or at its floor),
 *     the same step the other way, then three times as far each way; a
 *     model that none of these runs moves by 2% (on a plateau, far from its
 *     reference) is given the median own slope of those that moved with
 *     their own value, so that it steps the way they would;
 *   - Levenberg-Marquardt steps d = -(J^T J + mu I)^-1 J^T f, mu = (0.05 of
 *     J's largest singular value)^2, by GSL's SVD: directions whose slope is
 *     small beside the largest (mostly noise, at finite differences of this
 *     function) are damped instead of divided by;
 *   - a trust region per model: each component of the step clipped to it,
 *     then to the box (one model nearly flat asks for a huge step, and
 *     scaling the whole step down to it would stall the others); it starts
 *     at 1 (in logs), grows by half after a taken step, halves for a model
 *     that overshot (changed sign and kept over half its distance), and
 *     halves for all after a step that is not taken;
 *   - a step is taken when it lowers sum_i f_i^2 (not max_i |f_i|: one model
 *     that no step moves would then hold every other one back); J follows
 *     every run by Broyden's update J += (y - J s) s^T / s^T s, and is
 *     estimated afresh after two steps in a row not taken.
 * Found when every model is within the tolerance in one run; at most
 * max_runs runs, the Jacobian's included; it stops earlier when the trust
 * region is under 2% for every model with a fresh Jacobian.  Not found, it
 * gives the run whose worst model was nearest.
 *
 * Why not gsl_multiroot: each evaluation is every replication of a whole
 * simulation with the same seeds, so f is deterministic but jumps (a
 * replica more or less for minutes, a cold start that changes which
 * requests wait).  GSL's broyden/hybrids estimate their Jacobian with steps
 * of sqrt(epsilon) relative (a zero column, or a jump's slope), know no box,
 * count iterations rather than runs, and judge progress by the Euclidean
 * norm without a per-model tolerance; GSL does the SVD here. */
#include "search/tune_joint.h"

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct solver {
    const ss_tune_problem *p;
    int geo;          /* z = log(value) */
    double *zlo, *zhi; /* each model's box in z */
    int runs;
    double *value;    /* scratch: z as values */
    double *rs_s;     /* scratch: the last run's replica-seconds */
    double *best_z, *best_f, best_phi;
    int best_run;
} solver;

static double to_value(const solver *s, double z) { return s->geo ? exp(z) : z; }

static double clamp(const solver *s, size_t i, double z)
{
    return z < s->zlo[i] ? s->zlo[i] : z > s->zhi[i] ? s->zhi[i] : z;
}

/* Sum of f_i^2: what a step must lower to be taken. */
static double sq(size_t n, const double *f)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m += f[i] * f[i];
    return m;
}

/* Largest |f_i|: how far the worst model is, in logs. */
static double phi(size_t n, const double *f)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(f[i]));
    return m;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One run at z: f into f; *done when every model is within the tolerance.
 * -1 on bad input. */
static int run(solver *s, const double *z, double *f, int *done, const char *why, ss_err *err)
{
    const ss_tune_problem *p = s->p;
    char buf[32];
    for (size_t i = 0; i < p->n; i++) { /* as printed, so that a value printed is the value run */
        snprintf(buf, sizeof buf, "%.6g", to_value(s, z[i]));
        s->value[i] = ss_strtod(buf, NULL);
    }
    if (p->eval(p->ctx, s->value, s->rs_s, err) < 0) return -1;
    s->runs++;
    *done = 1;
    for (size_t i = 0; i < p->n; i++) {
        double r = s->rs_s[i], ref = p->ref_s[i];
        f[i] = log(fmax(r, 1e-9 * ref) / ref);
        *done &= fabs(r - ref) <= p->tol * ref;
        if (!p->quiet)
            printf("run %d (%s) %s=%.6g: %.6f (%+.2f%%)\n", s->runs, why, p->names[i], s->value[i], r,
                   100 * (r - ref) / ref);
    }
    double m = phi(p->n, f);
    if (m < s->best_phi) {
        s->best_phi = m;
        s->best_run = s->runs;
        for (size_t i = 0; i < p->n; i++) s->best_z[i] = z[i], s->best_f[i] = f[i];
    }
    if (!p->quiet) fflush(stdout); /* a long tune shows its runs as they come */
    return 0;
}

/* d = -(J^T J + mu I)^-1 J^T f, mu = (LM_DAMP s_max)^2, through the SVD of
 * J (n x n, destroyed): a Levenberg-Marquardt step, which damps directions
 * whose slope is small beside the largest one (at finite differences of a
 * noisy function they are mostly noise) instead of dividing by them. */
#define LM_DAMP 0.05
static void newton_step(size_t n, gsl_matrix *J, const double *f, double *d)
{
    gsl_matrix *V = gsl_matrix_alloc(n, n);
    gsl_vector *S = gsl_vector_alloc(n), *work = gsl_vector_alloc(n);
    gsl_linalg_SV_decomp(J, V, S, work); /* J = U S V^T, U into J */
    double smax = gsl_vector_get(S, 0);
    double mu = LM_DAMP * smax * LM_DAMP * smax;
    for (size_t i = 0; i < n; i++) d[i] = 0;
    for (size_t k = 0; k < n && smax > 0; k++) {
        double sk = gsl_vector_get(S, k);
        double c = 0; /* (U^T (-f))_k s_k / (s_k^2 + mu) */
        for (size_t j = 0; j < n; j++) c -= gsl_matrix_get(J, j, k) * f[j];
        c *= sk / (sk * sk + mu);
        for (size_t i = 0; i < n; i++) d[i] += gsl_matrix_get(V, i, k) * c;
    }
    gsl_matrix_free(V);
    gsl_vector_free(S);
    gsl_vector_free(work);
}

int ss_tune_joint(const ss_tune_problem *p, double *value, ss_err *err)
{
    size_t n = p->n;
    solver s = {.p = p, .geo = p->lo > 0, .best_phi = INFINITY};
    s.zlo = ss_xcalloc(n + 1, sizeof *s.zlo);
    s.zhi = ss_xcalloc(n + 1, sizeof *s.zhi);
    for (size_t i = 0; i < n; i++) {
        double lo = p->lo_m ? p->lo_m[i] : p->lo, hi = p->hi_m ? p->hi_m[i] : p->hi;
        double glo = s.geo ? log(lo) : lo, ghi = s.geo ? log(hi) : hi;
        s.zlo[i] = fmin(glo, ghi);
        s.zhi[i] = fmax(glo, ghi);
    }
    /* the steps' scale in z: h is 1/16 of a linear box (one box: per-model
     * boxes are in logs) */
    double unit = s.geo ? 1 : (s.zhi[0] - s.zlo[0]) / 8;
    double h = 0.5 * unit, delta_max = 2 * unit, delta_min = 0.02 * unit;
    s.value = ss_xcalloc(n, sizeof *s.value);
    s.rs_s = ss_xcalloc(n, sizeof *s.rs_s);
    s.best_z = ss_xcalloc(n, sizeof *s.best_z);
    s.best_f = ss_xcalloc(n, sizeof *s.best_f);
    double *z = ss_xcalloc(n, sizeof *z), *f = ss_xcalloc(n, sizeof *f), *zn = ss_xcalloc(n, sizeof *zn),
           *fn = ss_xcalloc(n, sizeof *fn), *d = ss_xcalloc(n, sizeof *d), *delta = ss_xcalloc(n, sizeof *delta),
           *slope = ss_xcalloc(n, sizeof *slope);
    int *flat = ss_xcalloc(n, sizeof *flat);
    double *row_moved = ss_xcalloc(n, sizeof *row_moved);
    gsl_matrix *J = gsl_matrix_calloc(n, n), *Jw = gsl_matrix_alloc(n, n);
    int rc = 1, done = 0, need_jac = 1, fresh = 0, fails = 0;
    for (size_t i = 0; i < n; i++) delta[i] = unit;
    for (size_t i = 0; i < n; i++)
        z[i] = isnan(p->start[i]) ? (s.zlo[i] + s.zhi[i]) / 2 : clamp(&s, i, s.geo ? log(p->start[i]) : p->start[i]);
    if (run(&s, z, f, &done, "start", err) < 0) goto bad;
    while (!done && s.runs < p->max_runs) {
        if (need_jac) { /* one column per model, forward (backward at the top of the box) */
            for (size_t j = 0; j < n; j++) flat[j] = 1, row_moved[j] = 0;
            for (size_t j = 0; j < n && !done && s.runs < p->max_runs; j++) {
                static const double tries[] = {1, -1, 3, -3}; /* steps of h: on, back, further */
                for (int t = 0; t < 4 && !done && s.runs < p->max_runs; t++) {
                    double hj = clamp(&s, j, z[j] + tries[t] * h) - z[j];
                    if (hj == 0) continue; /* at that end of the box */
                    for (size_t i = 0; i < n; i++) zn[i] = z[i];
                    zn[j] += hj;
                    if (run(&s, zn, fn, &done, "jacobian", err) < 0) goto bad;
                    double col = 0;
                    for (size_t i = 0; i < n; i++) {
                        gsl_matrix_set(J, i, j, (fn[i] - f[i]) / hj);
                        col = fmax(col, fabs(fn[i] - f[i]));
                        row_moved[i] = fmax(row_moved[i], fabs(fn[i] - f[i]));
                    }
                    if (col > 0.02) { /* it moved something by 2%: else the other way, then further */
                        flat[j] = fabs(fn[j] - f[j]) <= 0.02;
                        break;
                    }
                }
                if (done)
                    for (size_t i = 0; i < n; i++) z[i] = zn[i];
            }
            if (done || s.runs >= p->max_runs) break;
            /* A model that no run of the differences moved by 2%, whoever's value
             * changed (on a plateau: at its cap, or at its floor, far from its
             * reference), gets the median slope of the models that did move with
             * their own value: with no slope the step would leave it where it is;
             * so it goes the way they go, as far as its trust region allows. */
            size_t nslope = 0;
            for (size_t j = 0; j < n; j++)
                if (!flat[j]) slope[nslope++] = gsl_matrix_get(J, j, j);
            if (nslope) {
                qsort(slope, nslope, sizeof *slope, by_value);
                for (size_t j = 0; j < n; j++)
                    if (row_moved[j] <= 0.02) gsl_matrix_set(J, j, j, slope[nslope / 2]);
            }
            need_jac = 0;
            fresh = 1;
            fails = 0;
        }
        gsl_matrix_memcpy(Jw, J);
        newton_step(n, Jw, f, d);
        double moved = 0;
        for (size_t i = 0; i < n; i++) { /* into the trust region, then the box */
            zn[i] = clamp(&s, i, z[i] + fmax(-delta[i], fmin(delta[i], d[i])));
            moved = fmax(moved, fabs(zn[i] - z[i]));
        }
        if (moved < 1e-12) { /* the step leaves the box for every model it would move */
            if (fresh) break;
            need_jac = 1;
            continue;
        }
        if (run(&s, zn, fn, &done, "newton", err) < 0) goto bad;
        /* Broyden: J += (y - J s) s^T / s^T s, with s = zn - z, y = fn - f */
        double ss = 0;
        for (size_t i = 0; i < n; i++) ss += (zn[i] - z[i]) * (zn[i] - z[i]);
        for (size_t i = 0; i < n; i++) {
            double js = 0;
            for (size_t j = 0; j < n; j++) js += gsl_matrix_get(J, i, j) * (zn[j] - z[j]);
            double r = (fn[i] - f[i] - js) / ss;
            for (size_t j = 0; j < n; j++) gsl_matrix_set(J, i, j, gsl_matrix_get(J, i, j) + r * (zn[j] - z[j]));
        }
        if (done || sq(n, fn) < sq(n, f)) { /* taken; a model that overshot gets a smaller region */
            for (size_t i = 0; i < n; i++) {
                int over = fn[i] * f[i] < 0 && fabs(fn[i]) > fabs(f[i]) / 2;
                delta[i] = over ? fmax(delta[i] / 2, delta_min) : fmin(1.5 * delta[i], delta_max);
                z[i] = zn[i], f[i] = fn[i];
            }
            fresh = fails = 0;
            continue;
        }
        double widest = 0;
        for (size_t i = 0; i < n; i++) widest = fmax(widest, delta[i] /= 2);
        fails++;
        if (widest < delta_min) {
            if (fresh) break; /* flat, or a jump: no step helps */
            for (size_t i = 0; i < n; i++) delta[i] = 4 * delta_min;
            need_jac = 1;
        } else if (fails >= 2 && !fresh)
            need_jac = 1;
    }
    if (done) {
        rc = 0;
        for (size_t i = 0; i < n; i++) {
            value[i] = to_value(&s, z[i]);
            printf("%s=%.6g\n", p->names[i], value[i]);
        }
    } else {
        fprintf(stderr,
                "servesim tune: not every model within the tolerance after %d runs (joint); the closest, run %d:",
                s.runs, s.best_run);
        for (size_t i = 0; i < n; i++) {
            value[i] = to_value(&s, s.best_z[i]);
            fprintf(stderr, " %s=%.6g (%.4f of the reference)", p->names[i], value[i], exp(s.best_f[i]));
        }
        fputc('\n', stderr);
    }
    goto out;
bad:
    rc = 2;
out:
    gsl_matrix_free(J);
    gsl_matrix_free(Jw);
    free(s.zlo);
    free(s.zhi);
    free(s.value);
    free(s.rs_s);
    free(s.best_z);
    free(s.best_f);
    free(z);
    free(f);
    free(zn);
    free(fn);
    free(d);
    free(delta);
    free(slope);
    free(flat);
    free(row_moved);
    return rc;
}
