/* tune_joint.c: the joint solver of `servesim tune --per-model --joint`:
 * every model's threshold at once, when one model's threshold changes the
 * others' replica-seconds (models that share a storage link or GPUs: under
 * TSK on the Flashpoint data centre one model's downloads slow another's
 * cold starts, lengthen its queue, and TSK answers with more replicas).
 * Bisecting each model on its own then chases targets that move.
 *
 * It solves f_i(z) = log(rs_i(z) / ref_i) = 0 for every model i together,
 * z_i = log(value_i) (the value itself when lo <= 0), z within the box
 * [lo, hi]: Newton steps d = -J^+ f on a Jacobian J estimated by finite
 * differences (one run per model), kept up to date between estimates by
 * Broyden's rank-one update J += (y - J s) s^T / s^T s after every run, a
 * trust region in the max-norm (each component of the step clipped to it:
 * a model whose slope is nearly flat asks for a huge step, and scaling the
 * whole step down to it would stall the others; the region doubles after a
 * run that lowers max_i |f_i| and halves after one that does not, whose
 * point is then not taken), and a fresh finite-difference Jacobian after
 * two such runs in a row.  J^+ is the pseudo-inverse from the SVD (singular values below 1e-6
 * of the largest dropped), so a model that a step cannot move (at its cap
 * of replicas) does not throw the others' steps out.  Found when every model
 * is within the tolerance in one run; at most max_runs runs, the Jacobian's
 * included; it stops earlier when the trust region shrinks below 2% with a
 * fresh Jacobian (the function is flat or jumps there).
 *
 * Why not gsl_multiroot: each evaluation is every replication of a whole
 * simulation with the same seeds, so f is deterministic but piecewise
 * constant with jumps (a replica more or less for minutes).  GSL's
 * broyden/hybrids estimate their Jacobian with steps of sqrt(epsilon)
 * relative (a zero column, or a jump's slope), know no box, count
 * iterations rather than runs, and judge progress by the Euclidean norm
 * rather than the per-model tolerance.  The steps here are 0.2 in logs
 * (1/40 of the box when linear), 4 and 16 times that for a column that
 * stays flat (a model held at its cap of replicas); GSL does the SVD. */
#include "cmd/tune_joint.h"

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct solver {
    const ss_tune_problem *p;
    int geo;          /* z = log(value) */
    double zlo, zhi;  /* the box in z */
    int runs;
    double *value;    /* scratch: z as values */
    double *rs_s;     /* scratch: the last run's replica-seconds */
    double *best_z, *best_f, best_phi;
    int best_run;
} solver;

static double to_value(const solver *s, double z) { return s->geo ? exp(z) : z; }

static double clamp(const solver *s, double z) { return z < s->zlo ? s->zlo : z > s->zhi ? s->zhi : z; }

/* Largest |f_i|: how far the worst model is, in logs. */
static double phi(size_t n, const double *f)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(f[i]));
    return m;
}

/* One run at z: f into f; *done when every model is within the tolerance.
 * -1 on bad input. */
static int run(solver *s, const double *z, double *f, int *done, const char *why, ss_err *err)
{
    const ss_tune_problem *p = s->p;
    for (size_t i = 0; i < p->n; i++) s->value[i] = to_value(s, z[i]);
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

/* d = -J^+ f, through the SVD of J (n x n, destroyed). */
static void newton_step(size_t n, gsl_matrix *J, const double *f, double *d)
{
    gsl_matrix *V = gsl_matrix_alloc(n, n);
    gsl_vector *S = gsl_vector_alloc(n), *work = gsl_vector_alloc(n);
    gsl_linalg_SV_decomp(J, V, S, work); /* J = U S V^T, U into J */
    double smax = gsl_vector_get(S, 0);
    for (size_t i = 0; i < n; i++) d[i] = 0;
    for (size_t k = 0; k < n; k++) {
        double sk = gsl_vector_get(S, k);
        if (!(sk > 1e-6 * smax)) continue;
        double c = 0; /* (U^T (-f))_k / s_k */
        for (size_t j = 0; j < n; j++) c -= gsl_matrix_get(J, j, k) * f[j];
        c /= sk;
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
    double glo = s.geo ? log(p->lo) : p->lo, ghi = s.geo ? log(p->hi) : p->hi;
    s.zlo = fmin(glo, ghi);
    s.zhi = fmax(glo, ghi);
    double unit = s.geo ? 1 : (s.zhi - s.zlo) / 8; /* the steps' scale in z */
    double h = 0.2 * unit, delta = unit, delta_max = 2 * unit, delta_min = 0.02 * unit;
    s.value = ss_xcalloc(n, sizeof *s.value);
    s.rs_s = ss_xcalloc(n, sizeof *s.rs_s);
    s.best_z = ss_xcalloc(n, sizeof *s.best_z);
    s.best_f = ss_xcalloc(n, sizeof *s.best_f);
    double *z = ss_xcalloc(n, sizeof *z), *f = ss_xcalloc(n, sizeof *f), *zn = ss_xcalloc(n, sizeof *zn),
           *fn = ss_xcalloc(n, sizeof *fn), *d = ss_xcalloc(n, sizeof *d);
    gsl_matrix *J = gsl_matrix_calloc(n, n), *Jw = gsl_matrix_alloc(n, n);
    int rc = 1, done = 0, need_jac = 1, fresh = 0, fails = 0;
    for (size_t i = 0; i < n; i++)
        z[i] = isnan(p->start) ? (s.zlo + s.zhi) / 2 : clamp(&s, s.geo ? log(p->start) : p->start);
    if (run(&s, z, f, &done, "start", err) < 0) goto bad;
    while (!done && s.runs < p->max_runs) {
        if (need_jac) { /* one column per model, forward (backward at the top of the box) */
            for (size_t j = 0; j < n && !done && s.runs < p->max_runs; j++) {
                for (double mul = 1; mul <= 16 && !done && s.runs < p->max_runs; mul *= 4) {
                    double hj = clamp(&s, z[j] + mul * h) - z[j];
                    if (hj == 0) hj = clamp(&s, z[j] - mul * h) - z[j];
                    if (hj == 0) break; /* a box of one point */
                    for (size_t i = 0; i < n; i++) zn[i] = z[i];
                    zn[j] += hj;
                    if (run(&s, zn, fn, &done, "jacobian", err) < 0) goto bad;
                    double col = 0;
                    for (size_t i = 0; i < n; i++) {
                        gsl_matrix_set(J, i, j, (fn[i] - f[i]) / hj);
                        col = fmax(col, fabs(fn[i] - f[i]));
                    }
                    if (col > 1e-3) break; /* it moved something: else again, four times as far */
                }
                if (done)
                    for (size_t i = 0; i < n; i++) z[i] = zn[i];
            }
            if (done || s.runs >= p->max_runs) break;
            need_jac = 0;
            fresh = 1;
            fails = 0;
        }
        gsl_matrix_memcpy(Jw, J);
        newton_step(n, Jw, f, d);
        double moved = 0;
        for (size_t i = 0; i < n; i++) { /* into the trust region, then the box */
            zn[i] = clamp(&s, z[i] + fmax(-delta, fmin(delta, d[i])));
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
        if (done || phi(n, fn) < phi(n, f)) { /* taken */
            for (size_t i = 0; i < n; i++) z[i] = zn[i], f[i] = fn[i];
            delta = fmin(2 * delta, delta_max);
            fresh = fails = 0;
            continue;
        }
        delta /= 2;
        fails++;
        if (delta < delta_min) {
            if (fresh) break; /* flat, or a jump: no step helps */
            delta = 4 * delta_min;
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
    free(s.value);
    free(s.rs_s);
    free(s.best_z);
    free(s.best_f);
    free(z);
    free(f);
    free(zn);
    free(fn);
    free(d);
    return rc;
}
