/* tune.c: `servesim tune SCENARIO --variant V --key K --lo A --hi B
 * --reference R [--tolerance 0.05]`: equal-resource tuning of an
 * autoscaler threshold (Flashpoint compares autoscalers at equal resources,
 * average replicas within 5% of the baseline's: seed flashpoint.md §1.10).
 *
 * It runs variant R (every replication) and takes its mean replica-seconds
 * (the sum of the instance_s_* columns); then it bisects the numeric key K
 * (a --set path such as autoscaling.policy.target_s) of variant V over
 * [A, B] until V's mean replica-seconds are within the tolerance (relative)
 * of R's, assuming they move monotonically with K (the direction is read
 * from the ends).  It prints each step and the value found; exit 0 when
 * found, 1 when [A, B] does not bracket the reference or 40 steps did not
 * reach the tolerance, 2 on bad input.
 *
 * With --per-model, K is a parameter of the autoscaler policy and each
 * autoscaled model gets its own (autoscaling.per_model.<model>.K), bisected
 * on that model's replica-seconds against the reference's for the same
 * model, all models in the same runs (geometrically where A > 0; the first
 * step at --start X if given): found when
 * every model is within the tolerance in one run; it prints MODEL=value
 * lines.  Models share the GPUs and storage, so a model inside the tolerance
 * keeps its value while the others move, and may need to move again.
 * With --joint all models move together instead (tune_joint.c: Newton and
 * Broyden steps on the coupled system), the first run at --start (which
 * may also name a model: --start MODEL=X, to go on from an earlier solve),
 * then at most --max-runs runs (40).  --key-for MODEL=KEY2:LO:HI gives a
 * model another parameter and box in the joint solve (a model that KEY
 * cannot move: under TSK on the Flashpoint data centre a model held at its
 * replica cap whatever its target, whose own cap, max_replicas, moves it). */
#include "search/tune.h"
#include "search/tune_joint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "world/world.h"

static const char usage[] =
    "usage: servesim tune SCENARIO --variant V --key KEY --lo A --hi B --reference R [options]\n"
    "\n"
    "Bisect the numeric scenario key KEY (a --set path, e.g. autoscaling.policy.target_s) of\n"
    "variant V over [A, B] until V uses the same resources as variant R: mean replica-seconds\n"
    "(the instance_s_* columns summed over models, over every replication) within the\n"
    "tolerance.  Flashpoint compares autoscalers at equal resources this way (docs/autoscaling.md).\n"
    "\n"
    "  --tolerance T       relative (default 0.05)\n"
    "  --per-model         KEY is a policy parameter (e.g. target_s), tuned for each model on its own\n"
    "                      replica-seconds (autoscaling.per_model.MODEL.KEY); prints MODEL=value lines\n"
    "  --start X           with --per-model: the first value tried for every model (e.g. the policy's\n"
    "                      default; a model within the tolerance there keeps it)\n"
    "  --joint             with --per-model: solve for every model at once (Newton/Broyden steps on\n"
    "                      finite-difference slopes), for models that share storage or GPUs so that one\n"
    "                      model's value moves the others' replica-seconds (docs/autoscaling.md)\n"
    "  --max-runs N        with --joint: at most N runs of the variant (default 40)\n"
    "  --start MODEL=X     with --joint: MODEL's first value (repeatable; the others' from --start X)\n"
    "  --key-for MODEL=KEY2:LO:HI\n"
    "                      with --joint: MODEL's per_model key is KEY2 in [LO, HI] instead (repeatable; every\n"
    "                      bound above 0, as --lo)\n"
    "  --set KEY=VALUE     override a key of the scenario for both variants (repeatable)\n"
    "  --quiet             print only the value found\n"
    "Exit 0 found, 1 not bracketed or not reached in 40 steps (--max-runs runs), 2 bad input.\n";

/* Mean replica-seconds of a variant with extra sets, in total and, when
 * per_m is given, per model (sc.nmodels entries, NAN for a model that is not
 * autoscaled; *nm set to the count); -1 with err set. */
static double replica_s(const char *path, const char *variant, char **sets, size_t nsets, double **per_m, size_t *nm,
                        char ***names, ss_err *err)
{
    ss_scenario sc;
    if (ss_scenario_load(&sc, path, variant, sets, nsets, err) < 0) {
        ss_scenario_free(&sc); /* a refused scenario holds what it had read */
        return -1;
    }
    if (!sc.autoscale && !sc.nevents) {
        ss_err_at(err, sc.path, 1, 1, "variant '%s' has no autoscaling: its replicas never change", variant);
        ss_scenario_free(&sc);
        return -1;
    }
    double *m_sum = ss_xcalloc(sc.nmodels + 1, sizeof *m_sum); /* every instance_s_<model>, over the replications */
    for (uint32_t r = 0; r < sc.replications; r++) {
        ss_world *w = ss_world_build(&sc, r, NULL, err);
        if (!w) {
            free(m_sum);
            ss_scenario_free(&sc);
            return -1;
        }
        ss_world_run(w);
        ss_run_result res;
        ss_world_result(w, &res);
        for (size_t k = 0; k < res.nextras; k++)
            for (uint32_t m = 0; m < sc.nmodels && strncmp(res.extras[k].col, "instance_s_", 11) == 0; m++)
                if (strcmp(res.extras[k].col + 11, sc.models[m].name) == 0) {
                    m_sum[m] += res.extras[k].value;
                    break;
                }
        ss_run_result_free(&res);
        ss_world_free(w);
    }
    double sum = 0;
    for (uint32_t m = 0; m < sc.nmodels; m++) sum += m_sum[m];
    if (per_m) {
        for (uint32_t m = 0; m < sc.nmodels; m++)
            m_sum[m] = sc.autoscale && sc.autoscale->models[m] ? m_sum[m] / sc.replications : NAN;
        *per_m = m_sum;
        *nm = sc.nmodels;
        if (names) {
            *names = ss_xcalloc(sc.nmodels + 1, sizeof **names);
            for (uint32_t m = 0; m < sc.nmodels; m++) (*names)[m] = ss_xstrdup(sc.models[m].name);
        }
    } else
        free(m_sum);
    double mean = sum / sc.replications;
    ss_scenario_free(&sc);
    return mean;
}

/* V's replica-seconds with KEY=x. */
static double at(const char *path, const char *variant, const char *key, double x, char **sets, size_t nsets,
                 ss_err *err)
{
    char **all = ss_xcalloc(nsets + 2, sizeof *all);
    for (size_t i = 0; i < nsets; i++) all[i] = sets[i];
    char *kv = ss_xasprintf("%s=%.17g", key, x);
    all[nsets] = kv;
    double v = replica_s(path, variant, all, nsets + 1, NULL, NULL, NULL, err);
    free(kv);
    free(all);
    return v;
}

/* V's replica-seconds per model with autoscaling.per_model.<m>.KEY=x[m]
 * for each autoscaled model (NAN entries of x are not set; key_of[m], where
 * key_of is not NULL and it is, in place of KEY). */
static int at_each(const char *path, const char *variant, const char *key, const char *const *key_of, const double *x,
                   char *const *names, size_t nm, char **sets, size_t nsets, double **out, ss_err *err)
{
    char **all = ss_xcalloc(nsets + nm + 1, sizeof *all);
    size_t n = 0;
    for (size_t i = 0; i < nsets; i++) all[n++] = sets[i];
    for (size_t m = 0; m < nm; m++)
        if (!isnan(x[m]))
            all[n++] = ss_xasprintf("autoscaling.per_model.%s.%s=%.17g", names[m], key_of && key_of[m] ? key_of[m] : key,
                                    x[m]);
    size_t got = 0;
    double v = replica_s(path, variant, all, n, out, &got, NULL, err);
    for (size_t i = nsets; i < n; i++) free(all[i]);
    free(all);
    return v < 0 || got != nm ? -1 : 0;
}

/* --joint: the runs as tune_joint.c asks for them, over the autoscaled
 * models only (idx: their indices among all nm). */
typedef struct joint_ctx {
    const ss_cli *c;
    const char *variant, *key;
    const char *const *key_of; /* per model, or NULL */
    char **names;
    size_t nm, *idx;
    double *x; /* all nm, NAN where not autoscaled */
} joint_ctx;

static int joint_eval(void *ctx, const double *value, double *rs_s, ss_err *err)
{
    joint_ctx *j = ctx;
    size_t n = 0;
    for (size_t m = 0; m < j->nm; m++)
        if (!isnan(j->x[m])) j->x[m] = value[n++];
    double *out = NULL;
    int rc =
        at_each(j->c->path, j->variant, j->key, j->key_of, j->x, j->names, j->nm, j->c->sets, j->c->nsets, &out, err);
    for (size_t k = 0; rc == 0 && k < n; k++) rs_s[k] = out[j->idx[k]];
    free(out);
    return rc;
}

/* --start MODEL=X, given to the joint solve. */
typedef struct model_starts {
    size_t n;
    const char *name[64];
    double value[64];
} model_starts;

/* --key-for MODEL=KEY:LO:HI, for the joint solve. */
typedef struct model_keys {
    size_t n;
    char *name[64], *key[64];
    double lo[64], hi[64];
} model_keys;

/* The --key-for entry for the model named name, or mk->n. */
static size_t key_index(const model_keys *mk, const char *name)
{
    size_t k = 0;
    while (k < mk->n && strcmp(mk->name[k], name) != 0) k++;
    return k;
}

/* The index among the nm models of an autoscaled one named name, or nm. */
static size_t autoscaled(char **names, const double *target, size_t nm, const char *name)
{
    size_t m = 0;
    while (m < nm && (isnan(target[m]) || strcmp(names[m], name) != 0)) m++;
    return m;
}

static int tune_joint(const ss_cli *c, const char *variant, const char *key, char **names, const double *target,
                      size_t nm, double lo, double hi, double start, const model_starts *ms, const model_keys *mk,
                      double tol, int max_runs, ss_err *err)
{
    size_t *idx = ss_xcalloc(nm + 1, sizeof *idx), n = 0;
    double *x = ss_xcalloc(nm + 1, sizeof *x), *ref = ss_xcalloc(nm + 1, sizeof *ref),
           *first = ss_xcalloc(nm + 1, sizeof *first), *lo_m = ss_xcalloc(nm + 1, sizeof *lo_m),
           *hi_m = ss_xcalloc(nm + 1, sizeof *hi_m);
    char **tn = ss_xcalloc(nm + 1, sizeof *tn);
    const char **key_of = ss_xcalloc(nm + 1, sizeof *key_of);
    int rc = 0;
    for (size_t k = 0; k < ms->n && rc == 0; k++)
        if (autoscaled(names, target, nm, ms->name[k]) == nm)
            rc = ss_bad_usage("tune", "--start: '%s' is not an autoscaled model of the scenario", ms->name[k]);
    for (size_t k = 0; k < mk->n && rc == 0; k++)
        if (autoscaled(names, target, nm, mk->name[k]) == nm)
            rc = ss_bad_usage("tune", "--key-for: '%s' is not an autoscaled model of the scenario", mk->name[k]);
    for (size_t m = 0; m < nm && rc == 0; m++) {
        x[m] = NAN;
        if (isnan(target[m])) continue;
        first[n] = start;
        lo_m[n] = lo;
        hi_m[n] = hi;
        size_t q = key_index(mk, names[m]);
        if (q == mk->n) tn[n] = ss_xstrdup(names[m]);
        else { /* its own parameter and box; named MODEL.KEY2 */
            key_of[m] = mk->key[q];
            lo_m[n] = mk->lo[q];
            hi_m[n] = mk->hi[q];
            tn[n] = ss_xasprintf("%s.%s", names[m], mk->key[q]);
            if (isnan(start) || start < fmin(lo_m[n], hi_m[n]) || start > fmax(lo_m[n], hi_m[n]))
                first[n] = NAN; /* --start X is for KEY: the middle of its box */
        }
        for (size_t k = 0; k < ms->n; k++)
            if (strcmp(names[m], ms->name[k]) == 0) first[n] = ms->value[k];
        if (!(target[m] > 0)) {
            fprintf(stderr, "servesim tune: %s: the reference uses no replicas\n", names[m]);
            rc = 1;
        }
        x[m] = 0;
        idx[n] = m;
        ref[n++] = target[m];
    }
    if (rc == 0) {
        joint_ctx j = {.c = c, .variant = variant, .key = key, .key_of = key_of, .names = names, .nm = nm, .idx = idx,
                       .x = x};
        ss_tune_problem p = {.n = n, .names = tn, .key = key, .ref_s = ref, .lo = lo, .hi = hi, .lo_m = lo_m,
                             .hi_m = hi_m, .start = first, .tol = tol, .max_runs = max_runs, .quiet = c->quiet,
                             .eval = joint_eval, .ctx = &j};
        double *value = ss_xcalloc(n + 1, sizeof *value);
        rc = ss_tune_joint(&p, value, err);
        free(value);
    }
    for (size_t i = 0; i < n; i++) free(tn[i]);
    free(idx);
    free(x);
    free(ref);
    free(first);
    free(lo_m);
    free(hi_m);
    free(tn);
    free(key_of);
    return rc;
}

/* --per-model: every autoscaled model's KEY at once (see the top). */
static int tune_each(const ss_cli *c, const char *variant, const char *key, const char *ref, double lo, double hi,
                     double start, const model_starts *ms, const model_keys *mk, double tol, int joint, int max_runs)
{
    ss_err err = {0};
    double *target = NULL, *flo = NULL, *fhi = NULL, *fx = NULL;
    char **names = NULL;
    size_t nm = 0;
    int rc = 2;
    if (replica_s(c->path, ref, c->sets, c->nsets, &target, &nm, &names, &err) < 0) goto out;
    if (joint) {
        if (!c->quiet)
            for (size_t m = 0; m < nm; m++)
                if (!isnan(target[m])) printf("%s: reference %.6f\n", names[m], target[m]);
        rc = tune_joint(c, variant, key, names, target, nm, lo, hi, start, ms, mk, tol, max_runs, &err);
        goto out;
    }
    double *a = ss_xcalloc(nm + 1, sizeof *a), *b = ss_xcalloc(nm + 1, sizeof *b), *x = ss_xcalloc(nm + 1, sizeof *x);
    for (size_t m = 0; m < nm; m++) {
        a[m] = isnan(target[m]) ? NAN : lo;
        b[m] = isnan(target[m]) ? NAN : hi;
    }
    if (at_each(c->path, variant, key, NULL, a, names, nm, c->sets, c->nsets, &flo, &err) < 0 ||
        at_each(c->path, variant, key, NULL, b, names, nm, c->sets, c->nsets, &fhi, &err) < 0)
        goto done;
    rc = 0;
    for (size_t m = 0; m < nm; m++) {
        if (isnan(target[m])) continue;
        if (!c->quiet)
            printf("%s: reference %.6f, %s=%.6g: %.6f, %s=%.6g: %.6f\n", names[m], target[m], key, lo, flo[m], key, hi,
                   fhi[m]);
        if ((flo[m] - target[m]) * (fhi[m] - target[m]) > 0 && fabs(flo[m] - target[m]) > tol * fabs(target[m]) &&
            fabs(fhi[m] - target[m]) > tol * fabs(target[m])) {
            fprintf(stderr, "servesim tune: %s: [%g, %g] does not bracket the reference (%.6f and %.6f against %.6f)\n",
                    names[m], lo, hi, flo[m], fhi[m], target[m]);
            rc = 1;
        }
    }
    if (rc) goto done;
    /* Per model: a bracket [a, b] with the values fa, fb last seen at its ends
     * (NAN: not seen since it moved), the next point interpolated between
     * them (in logs when lo > 0, kept off the ends) or their middle. */
    double *fa = ss_xcalloc(nm + 1, sizeof *fa), *fb = ss_xcalloc(nm + 1, sizeof *fb);
    for (size_t m = 0; m < nm; m++) fa[m] = flo[m], fb[m] = fhi[m];
    int geo = lo > 0;
    rc = 1;
    for (int step = 0; step < 40 && rc == 1; step++) {
        for (size_t m = 0; m < nm; m++) {
            if (isnan(target[m])) {
                x[m] = NAN;
                continue;
            }
            if (step == 0 && !isnan(start)) {
                x[m] = start;
                continue;
            }
            double la = geo ? log(a[m]) : a[m], lb = geo ? log(b[m]) : b[m], t = 0.5;
            if (!isnan(fa[m]) && !isnan(fb[m]) && fa[m] > 0 && fb[m] > 0 && fa[m] != fb[m])
                t = (log(target[m]) - log(fa[m])) / (log(fb[m]) - log(fa[m]));
            t = t < 0.15 ? 0.15 : t > 0.85 ? 0.85 : t;
            x[m] = geo ? exp(la + t * (lb - la)) : la + t * (lb - la);
        }
        free(fx);
        fx = NULL;
        if (at_each(c->path, variant, key, NULL, x, names, nm, c->sets, c->nsets, &fx, &err) < 0) {
            rc = 2;
            break;
        }
        int all_in = 1;
        for (size_t m = 0; m < nm; m++) {
            if (isnan(target[m])) continue;
            int in = fabs(fx[m] - target[m]) <= tol * fabs(target[m]);
            if (!c->quiet) printf("step %d %s=%.6g: %.6f (%+.2f%%)\n", step + 1, names[m], x[m], fx[m],
                                  100 * (fx[m] - target[m]) / target[m]);
            all_in &= in;
            if (in) { /* held while the others move */
                a[m] = b[m] = x[m];
                fa[m] = fb[m] = fx[m];
                continue;
            }
            /* Which way: f moves from flo to fhi as the key goes from lo to hi. */
            int up = (fx[m] - target[m]) * (fhi[m] - flo[m]) < 0;
            double near = geo ? 4 : (hi - lo) / 4; /* a collapsed bracket reopens this far */
            if (up) {
                if (b[m] <= x[m]) b[m] = fmin(hi, geo ? x[m] * near : x[m] + near), fb[m] = NAN;
                a[m] = x[m], fa[m] = fx[m];
            } else {
                if (a[m] >= x[m]) a[m] = fmax(lo, geo ? x[m] / near : x[m] - near), fa[m] = NAN;
                b[m] = x[m], fb[m] = fx[m];
            }
        }
        if (all_in) rc = 0;
        fflush(stdout); /* a long tune shows its steps as they come */
    }
    free(fa);
    free(fb);
    if (rc == 0)
        for (size_t m = 0; m < nm; m++)
            if (!isnan(target[m])) printf("%s=%.6g\n", names[m], x[m]);
    if (rc == 1) fprintf(stderr, "servesim tune: not every model within the tolerance after 40 steps\n");
done:
    free(a);
    free(b);
    free(x);
out:
    if (rc == 2 && err.set) fprintf(stderr, "%s\n", err.msg);
    for (size_t m = 0; names && m < nm; m++) free(names[m]);
    free(names);
    free(target);
    free(flo);
    free(fhi);
    free(fx);
    return rc;
}

static int number(const char *opt, const char *s, double *out)
{
    char *end;
    *out = s ? ss_strtod(s, &end) : NAN;
    if (!s || end == s || *end || !isfinite(*out)) return ss_bad_usage("tune", "%s: expected a number", opt);
    return 0;
}

/* --key-for MODEL=KEY:LO:HI (the strings point into argv). */
static int key_for(model_keys *mk, char *v)
{
    char *eq = v ? strchr(v, '=') : NULL, *c1 = eq ? strchr(eq + 1, ':') : NULL, *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2 || eq == v || c1 == eq + 1)
        return ss_bad_usage("tune", "--key-for '%s': expected MODEL=KEY:LO:HI", v ? v : "");
    if (mk->n == sizeof mk->lo / sizeof mk->lo[0]) return ss_bad_usage("tune", "%s", "--key-for: at most 64 models");
    *eq = *c1 = *c2 = 0;
    double lo, hi;
    if (number("--key-for LO", c1 + 1, &lo) || number("--key-for HI", c2 + 1, &hi)) return 2;
    if (!(lo > 0 && hi > 0)) return ss_bad_usage("tune", "--key-for %s: LO and HI must be above 0", v);
    if (key_index(mk, v) < mk->n) return ss_bad_usage("tune", "--key-for: '%s' given twice", v);
    mk->name[mk->n] = v;
    mk->key[mk->n] = eq + 1;
    mk->lo[mk->n] = lo;
    mk->hi[mk->n++] = hi;
    return 0;
}

int ss_cmd_tune(int argc, char **argv)
{
    ss_cli c = {0};
    const char *variant = NULL, *key = NULL, *ref = NULL;
    double lo = NAN, hi = NAN, tol = 0.05;
    int rc = 0, each = 0, joint = 0;
    double start = NAN, max_runs = NAN;
    model_starts ms = {0};
    model_keys mk = {0};
    for (int i = 0; i < argc && rc == 0; i++) {
        int t = ss_cli_take(&c, "tune", argc, argv, &i);
        if (t == 1) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (t) rc = t;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            ss_cli_free(&c);
            return 0;
        } else if (strcmp(a, "--variant") == 0 && v) variant = argv[++i];
        else if (strcmp(a, "--key") == 0 && v) key = argv[++i];
        else if (strcmp(a, "--reference") == 0 && v) ref = argv[++i];
        else if (strcmp(a, "--lo") == 0) rc = number("--lo", v, &lo), i++;
        else if (strcmp(a, "--hi") == 0) rc = number("--hi", v, &hi), i++;
        else if (strcmp(a, "--tolerance") == 0) rc = number("--tolerance", v, &tol), i++;
        else if (strcmp(a, "--per-model") == 0) each = 1;
        else if (strcmp(a, "--joint") == 0) joint = 1;
        else if (strcmp(a, "--max-runs") == 0) rc = number("--max-runs", v, &max_runs), i++;
        else if (strcmp(a, "--start") == 0 && v && strchr(v, '=')) { /* MODEL=X */
            if (ms.n == sizeof ms.value / sizeof ms.value[0]) rc = ss_bad_usage("tune", "%s", "--start: at most 64 models");
            else {
                ms.name[ms.n] = argv[++i];
                rc = number("--start", strchr(v, '=') + 1, &ms.value[ms.n++]);
                *strchr(argv[i], '=') = 0; /* the name alone */
            }
        } else if (strcmp(a, "--start") == 0) rc = number("--start", v, &start), i++;
        else if (strcmp(a, "--key-for") == 0) rc = key_for(&mk, v ? argv[i + 1] : NULL), i++;
        else rc = ss_bad_usage("tune", "unknown option '%s'", a);
    }
    if (rc == 0 && (!c.path || !variant || !key || !ref || isnan(lo) || isnan(hi)))
        rc = ss_bad_usage("tune", "%s", "need SCENARIO, --variant, --key, --lo, --hi and --reference");
    if (rc == 0 && !(tol > 0 && tol < 1)) rc = ss_bad_usage("tune", "%s", "--tolerance: expected a number in (0, 1)");
    if (rc == 0 && !isnan(start) && (!each || !(start >= fmin(lo, hi) && start <= fmax(lo, hi))))
        rc = ss_bad_usage("tune", "%s", "--start: expected a value in [--lo, --hi], with --per-model");
    for (size_t k = 0; k < ms.n && rc == 0; k++) {
        size_t q = key_index(&mk, ms.name[k]);
        double klo = q < mk.n ? mk.lo[q] : lo, khi = q < mk.n ? mk.hi[q] : hi;
        if (!joint || !(ms.value[k] >= fmin(klo, khi) && ms.value[k] <= fmax(klo, khi)))
            rc = ss_bad_usage("tune", "--start %s=: expected a value in its box ([--lo, --hi] or --key-for's), with --joint",
                              ms.name[k]);
    }
    if (rc == 0 && mk.n && (!joint || !(lo > 0 && hi > 0)))
        rc = ss_bad_usage("tune", "%s", "--key-for: only with --joint, and --lo and --hi above 0");
    if (rc == 0 && joint && !each) rc = ss_bad_usage("tune", "%s", "--joint: only with --per-model");
    if (rc == 0 && !isnan(max_runs) && (!joint || !(max_runs >= 1 && max_runs <= 10000 && max_runs == floor(max_runs))))
        rc = ss_bad_usage("tune", "%s", "--max-runs: expected a whole number in [1, 10000], with --joint");
    if (rc) {
        ss_cli_free(&c);
        return rc;
    }
    if (each) {
        rc = tune_each(&c, variant, key, ref, lo, hi, start, &ms, &mk, tol, joint, isnan(max_runs) ? 40 : (int)max_runs);
        ss_cli_free(&c);
        return rc;
    }
    ss_err err = {0};
    double target = replica_s(c.path, ref, c.sets, c.nsets, NULL, NULL, NULL, &err), a = lo, b = hi, fa, fb;
    if (target < 0 || (fa = at(c.path, variant, key, a, c.sets, c.nsets, &err)) < 0 ||
        (fb = at(c.path, variant, key, b, c.sets, c.nsets, &err)) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        ss_cli_free(&c);
        return 2;
    }
    if (!c.quiet) {
        printf("reference %s: %.6f replica-seconds\n", ref, target);
        printf("%s=%.6g: %.6f\n%s=%.6g: %.6f\n", key, a, fa, key, b, fb);
    }
    rc = 1;
    if ((fa - target) * (fb - target) > 0) {
        fprintf(stderr, "servesim tune: [%g, %g] does not bracket the reference (%.6f and %.6f against %.6f)\n", lo, hi,
                fa, fb, target);
    } else {
        for (int step = 0; step < 40; step++) {
            double x = (a + b) / 2, fx = at(c.path, variant, key, x, c.sets, c.nsets, &err);
            if (fx < 0) {
                fprintf(stderr, "%s\n", err.msg);
                rc = 2;
                break;
            }
            if (!c.quiet) printf("%s=%.6g: %.6f (%+.2f%%)\n", key, x, fx, 100 * (fx - target) / target);
            if (fabs(fx - target) <= tol * fabs(target)) {
                if (c.quiet) printf("%.6g\n", x);
                else printf("found %s=%.6g within %.1f%% of %s\n", key, x, 100 * tol, ref);
                rc = 0;
                break;
            }
            if ((fa - target) * (fx - target) > 0) a = x, fa = fx;
            else b = x;
        }
        if (rc == 1) fprintf(stderr, "servesim tune: not within the tolerance after 40 steps\n");
    }
    ss_cli_free(&c);
    return rc;
}
