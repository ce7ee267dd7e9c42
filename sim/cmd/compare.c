/* compare.c: `servesim compare` (see compare.h for the statistics). */
#include "cmd/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/csvread.h"
#include "core/metrics.h"
#include "cmd/text.h"

enum { STAT_RATIO = SS_COMPARE_RATIO, STAT_CHANGE = SS_COMPARE_CHANGE, STAT_THESIS = SS_COMPARE_THESIS };
static const char *const stat_names[] = {"ratio", "change", "thesis", NULL};

static const char usage[] =
    "usage: servesim compare RESULTS.csv --by COLUMN --baseline VALUE [options]\n"
    "\n"
    "  --by COLUMN         the column that names the compared policies (e.g. policies.load_balancer,\n"
    "                      or variant); a unique suffix after a dot is enough (load_balancer)\n"
    "  --baseline VALUE    the value of that column everything is compared against\n"
    "  --metric KEY        a metric column; repeatable (default latency_mean_ms)\n"
    "  --model NAME        rows of this model only (default all, the whole-run row); '*' = each model\n"
    "  --stat S            ratio (default): mean of policy/baseline, paired by replication\n"
    "                      change: relative change (ratio - 1) in percent\n"
    "                      thesis: 1 - 1/mean ratio, the Flashpoint thesis's aggregate over models\n"
    "  --csv               write CSV instead of a table (to stdout, or to -o PATH)\n"
    "  -o, --output PATH   write to PATH (atomically) instead of stdout\n"
    "\n"
    "Rows for every policy, the baseline included, per point (a combination of the other setting\n"
    "columns and the model), then an aggregate over points.  Ratios pair runs of one replication\n"
    "and seed (common random numbers); intervals are 95% Student t, over replications per point and\n"
    "over points for the aggregate.  Exit status 0, 1 if the output cannot be written, 2 on bad input.\n";

typedef struct series {
    char *policy;
    double *x;      /* value per replication; NAN where missing */
    size_t n;
} series;

typedef struct point {
    char *label;    /* "k=v, k=v" of the varying identity columns */
    char **ident;   /* the identity values */
    series *s;
    size_t ns;
} point;

struct ss_compare {
    ss_csv table;   /* the results, read whole */
    const ss_csv *csv; /* &table */
    long *mcols;    /* the metric columns */
    size_t nmetrics;
    long by;
    long *ids;      /* identity columns */
    int *varies;    /* per identity column: differs between points */
    size_t nids;
    long rep_col, model_col;
    point *p;
    size_t np;
    char **policies; /* first-seen order */
    size_t npol;
};
typedef ss_compare cmp;

/* The column `name` names: exact, else a unique column ending in ".name",
 * else a unique column containing it. */
static long find_col(const ss_csv_row *h, const char *name, ss_err *err, const char *csv_path)
{
    long c = ss_csv_col(h, name);
    if (c >= 0) return c;
    for (int pass = 0; pass < 2; pass++) {
        long found = -1;
        int many = 0;
        for (size_t i = 0; i < h->n; i++) {
            const char *f = h->f[i];
            size_t lf = strlen(f), ln = strlen(name);
            int hit = pass == 0 ? lf > ln && f[lf - ln - 1] == '.' && strcmp(f + lf - ln, name) == 0
                                : strstr(f, name) != NULL;
            if (hit) {
                many |= found >= 0;
                found = (long)i;
            }
        }
        if (found >= 0 && !many) return found;
        if (many) return ss_err_at(err, csv_path, 1, 1, "column '%s' is ambiguous: give the full name", name), -1;
    }
    char **names = ss_xcalloc(h->n + 1, sizeof *names);
    for (size_t i = 0; i < h->n; i++) names[i] = h->f[i];
    const char *near = ss_suggest(name, (const char *const *)names);
    ss_err_at(err, csv_path, 1, 1, "no column '%s'%s%s%s", name, near ? " (did you mean '" : "", near ? near : "",
              near ? "'?)" : "");
    free(names);
    return -1;
}

static point *point_of(cmp *c, const ss_csv_row *r)
{
    for (size_t i = 0; i < c->np; i++) {
        size_t k = 0;
        while (k < c->nids && strcmp(c->p[i].ident[k], r->f[c->ids[k]]) == 0) k++;
        if (k == c->nids) return &c->p[i];
    }
    c->p = ss_xrealloc(c->p, (c->np + 1) * sizeof *c->p);
    point *p = &c->p[c->np++];
    memset(p, 0, sizeof *p);
    p->ident = ss_xcalloc(c->nids + 1, sizeof *p->ident);
    for (size_t k = 0; k < c->nids; k++) p->ident[k] = ss_xstrdup(r->f[c->ids[k]]);
    return p;
}

static series *series_of(point *p, const char *policy)
{
    for (size_t i = 0; i < p->ns; i++)
        if (strcmp(p->s[i].policy, policy) == 0) return &p->s[i];
    p->s = ss_xrealloc(p->s, (p->ns + 1) * sizeof *p->s);
    series *s = &p->s[p->ns++];
    *s = (series){ss_xstrdup(policy), NULL, 0};
    return s;
}

static void set_value(series *s, size_t rep, double v)
{
    if (rep >= s->n) {
        s->x = ss_xrealloc(s->x, (rep + 1) * sizeof *s->x);
        for (size_t i = s->n; i <= rep; i++) s->x[i] = NAN;
        s->n = rep + 1;
    }
    s->x[rep] = v;
}

/* Drop the points and policies of one metric (the columns stay). */
static void points_clear(cmp *c)
{
    for (size_t i = 0; i < c->np; i++) {
        for (size_t k = 0; k < c->nids; k++) free(c->p[i].ident[k]);
        free(c->p[i].ident);
        for (size_t k = 0; k < c->p[i].ns; k++) {
            free(c->p[i].s[k].policy);
            free(c->p[i].s[k].x);
        }
        free(c->p[i].s);
        free(c->p[i].label);
    }
    free(c->p);
    for (size_t i = 0; i < c->npol; i++) free(c->policies[i]);
    free(c->policies);
    c->p = NULL;
    c->np = 0;
    c->policies = NULL;
    c->npol = 0;
}

/* Group the rows of one metric into points and policy series. */
static int collect(cmp *c, long metric, const char *model, ss_err *err)
{
    const ss_csv *csv = c->csv;
    const ss_csv_row *h = &csv->rows[0];
    for (size_t i = 1; i < csv->nrows; i++) {
        const ss_csv_row *r = &csv->rows[i];
        if (r->n != h->n)
            return ss_err_at(err, csv->path, r->line, 1, "expected %zu fields, found %zu", h->n, r->n);
        if (c->model_col >= 0) {
            const char *m = r->f[c->model_col];
            if (strcmp(model, "*") == 0 ? strcmp(m, "all") == 0 : strcmp(m, model) != 0) continue;
        }
        char *end;
        const char *txt = r->f[metric];
        double v = ss_strtod(txt, &end);
        if (!txt[0] || *end || !isfinite(v)) {
            return ss_err_at(err, csv->path, r->line, ss_csv_field_col(r, (size_t)metric),
                             "%s: expected a number, got '%s'", h->f[metric], txt);
        }
        point *p = point_of(c, r);
        ss_intern(&c->policies, &c->npol, r->f[c->by]);
        series *s = series_of(p, r->f[c->by]);
        size_t rep;
        if (c->rep_col >= 0) {
            const char *rt = r->f[c->rep_col]; /* a replication number of a scenario: below 100000 */
            if (!rt[0] || rt[strspn(rt, "0123456789")] || strlen(rt) > 5)
                return ss_err_at(err, csv->path, r->line, ss_csv_field_col(r, (size_t)c->rep_col),
                                 "replication: expected a whole number from 0 to 99999, got '%s'", rt);
            rep = (size_t)ss_strtou64(rt, NULL);
        } else {
            rep = s->n;
        }
        set_value(s, rep, v);
    }
    /* Labels name only the identity columns that vary. */
    for (size_t k = 0; k < c->nids; k++) {
        c->varies[k] = 0;
        for (size_t j = 1; j < c->np; j++) c->varies[k] |= strcmp(c->p[j].ident[k], c->p[0].ident[k]) != 0;
    }
    for (size_t i = 0; i < c->np; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = ss_xmemstream(&buf, &len);
        int any = 0;
        for (size_t k = 0; k < c->nids; k++) {
            if (!c->varies[k]) continue;
            fprintf(fp, "%s%s=%s", any ? ", " : "", h->f[c->ids[k]], c->p[i].ident[k]);
            any = 1;
        }
        if (!any) fputs("all", fp);
        fclose(fp);
        c->p[i].label = buf;
    }
    return 0;
}

/* Turn a ratio (and its interval) into the chosen statistic. */
static double stat_of(int stat, double ratio)
{
    return stat == STAT_RATIO ? ratio : stat == STAT_CHANGE ? 100.0 * (ratio - 1.0) : 1.0 - 1.0 / ratio;
}

typedef struct line {
    const char *label, *policy;
    char *const *ident;  /* the point's identity values (NULL for the aggregate) */
    size_t n;           /* pairs (or points for the aggregate) */
    double base_mean, base_ci, pol_mean, pol_ci, ratio, ratio_ci;
} line;

static void mean_ci(const double *x, size_t n, double *mean, double *ci)
{
    double *y = ss_xcalloc(n + 1, sizeof *y);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) y[k++] = x[i];
    *mean = NAN;
    *ci = NAN;
    if (k == 1) *mean = y[0];
    if (k >= 2) *ci = ss_ci95(y, k, mean);
    free(y);
}

static void emit(const cmp *c, FILE *fp, int csv, int stat, const char *metric, const line *l, int aggregate)
{
    double v = stat_of(stat, l->ratio);
    /* the interval of the statistic: the ratio's interval mapped through
     * the (increasing) transformation */
    double lo = isnan(l->ratio_ci) ? NAN : stat_of(stat, l->ratio - l->ratio_ci);
    double hi = isnan(l->ratio_ci) ? NAN : stat_of(stat, l->ratio + l->ratio_ci);
    /* 1 - 1/r runs to minus infinity as r falls to 0: an interval reaching
     * r <= 0 has no finite lower end */
    if (stat == STAT_THESIS && l->ratio - l->ratio_ci <= 0) lo = -INFINITY;
    if (csv) {
        fputs(aggregate ? "aggregate," : "point,", fp);
        for (size_t k = 0; k < c->nids; k++) {
            if (!c->varies[k]) continue;
            if (!aggregate) ss_csv_field(fp, l->ident[k]);
            fputc(',', fp);
        }
        ss_csv_field(fp, l->policy);
        fputc(',', fp);
        ss_csv_field(fp, metric);
        fprintf(fp, ",%zu", l->n);
        const double f[] = {l->base_mean, l->base_ci, l->pol_mean, l->pol_ci, l->ratio, l->ratio_ci, v, lo, hi};
        for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
            if (isnan(f[i])) fputc(',', fp);
            else fprintf(fp, ",%.6g", f[i]);
        }
        fputc('\n', fp);
        return;
    }
    fprintf(fp, "%-44s %-16s", l->label, l->policy);
    if (aggregate) {
        fprintf(fp, " %21s %21s", "", "");
    } else {
        fprintf(fp, " %10.4g", l->base_mean);
        if (isnan(l->base_ci)) fprintf(fp, " %10s", "");
        else fprintf(fp, " %s%*.3g", ss_text_pm(), 10 - (int)ss_text_cols(ss_text_pm()), l->base_ci);
        fprintf(fp, " %10.4g", l->pol_mean);
        if (isnan(l->pol_ci)) fprintf(fp, " %10s", "");
        else fprintf(fp, " %s%*.3g", ss_text_pm(), 10 - (int)ss_text_cols(ss_text_pm()), l->pol_ci);
    }
    const char *unit = stat == STAT_CHANGE ? "%" : "";
    fprintf(fp, " %9.4g%s", v, unit);
    if (!isnan(lo)) fprintf(fp, "  [%.4g%s, %.4g%s]", lo, unit, hi, unit);
    fprintf(fp, "  n=%zu\n", l->n);
}

static int compare_metric(cmp *c, FILE *fp, FILE *diag, int csv, int first, int stat, const char *metric,
                          const char *baseline)
{
    int known = 0;
    for (size_t i = 0; i < c->npol; i++) known |= strcmp(c->policies[i], baseline) == 0;
    if (!known) {
        fprintf(diag, "servesim compare: baseline '%s' is not a value of column '%s'; values:", baseline,
                c->csv->rows[0].f[c->by]);
        for (size_t i = 0; i < c->npol; i++) fprintf(diag, " %s", c->policies[i]);
        fputc('\n', diag);
        return 2;
    }
    /* Some point must hold the baseline and another value, or there is
     * only the baseline against itself to print: say why instead. */
    int paired = 0;
    for (size_t i = 0; i < c->np && !paired; i++) {
        int has_base = 0, has_other = 0;
        for (size_t k = 0; k < c->p[i].ns; k++) {
            if (strcmp(c->p[i].s[k].policy, baseline) == 0) has_base = 1;
            else has_other = 1;
        }
        paired = has_base && has_other;
    }
    if (!paired && c->npol > 1) {
        fprintf(diag, "servesim compare: no point has both '%s' and another value of column '%s' (values:", baseline,
                c->csv->rows[0].f[c->by]);
        for (size_t i = 0; i < c->npol; i++) fprintf(diag, " %s", c->policies[i]);
        fprintf(diag, "): the rows of each value differ in another column too (a setting each variant makes?); "
                        "compare --by that column instead\n");
        return 2;
    }
    if (csv && first) {
        fputs("kind,", fp);
        for (size_t k = 0; k < c->nids; k++) {
            if (!c->varies[k]) continue;
            ss_csv_field(fp, c->csv->rows[0].f[c->ids[k]]);
            fputc(',', fp);
        }
        fputs("policy,metric,n,baseline_mean,baseline_ci95,policy_mean,policy_ci95,ratio,ratio_ci95,value,value_lo,"
              "value_hi\n", fp);
    }
    if (!csv) {
        fprintf(fp, "%s by %s against %s: %s%s, paired by replication, 95%% CI\n", metric,
                c->csv->rows[0].f[c->by], baseline,
                stat == STAT_RATIO ? "ratio = policy / baseline" : stat == STAT_CHANGE
                    ? "change = policy / baseline - 1" : "thesis = 1 - 1 / mean(policy / baseline)",
                stat == STAT_THESIS ? " over points" : "");
        fprintf(fp, "%-44s %-16s %21s %21s %10s\n", "point", "policy", "baseline mean", "policy mean",
                stat_names[stat]);
    }
    /* per point, per policy: paired ratios */
    double **ratios = ss_xcalloc(c->npol, sizeof *ratios); /* per policy, per point */
    for (size_t i = 0; i < c->npol; i++) ratios[i] = ss_xcalloc(c->np + 1, sizeof **ratios);
    for (size_t i = 0; i < c->np; i++) {
        point *p = &c->p[i];
        series *b = NULL;
        for (size_t k = 0; k < p->ns; k++)
            if (strcmp(p->s[k].policy, baseline) == 0) b = &p->s[k];
        for (size_t q = 0; q < c->npol; q++) {
            ratios[q][i] = NAN;
            series *s = NULL;
            for (size_t k = 0; k < p->ns; k++)
                if (strcmp(p->s[k].policy, c->policies[q]) == 0) s = &p->s[k];
            if (!s || !b) continue;
            size_t n = s->n < b->n ? s->n : b->n, np = 0, zero = 0;
            /* Only the pairs with a ratio count, in the means as in the ratio. */
            double *r = ss_xcalloc(n + 1, sizeof *r), *bx = ss_xcalloc(n + 1, sizeof *bx),
                   *sx = ss_xcalloc(n + 1, sizeof *sx);
            for (size_t k = 0; k < n; k++) {
                r[k] = bx[k] = sx[k] = NAN;
                if (isnan(s->x[k]) || isnan(b->x[k])) continue;
                if (b->x[k] == 0) {
                    zero++;
                    continue;
                }
                r[k] = s->x[k] / b->x[k];
                bx[k] = b->x[k];
                sx[k] = s->x[k];
                np++;
            }
            if (zero)
                fprintf(diag,
                        "servesim compare: %s, %s: %zu of %zu pair%s left out: the baseline's %s is 0 there, and a "
                        "ratio to 0 is undefined\n",
                        p->label, c->policies[q], zero, zero + np, zero + np == 1 ? "" : "s", metric);
            line l = {p->label, c->policies[q], p->ident, np, 0, 0, 0, 0, 0, 0};
            mean_ci(bx, n, &l.base_mean, &l.base_ci);
            mean_ci(sx, n, &l.pol_mean, &l.pol_ci);
            mean_ci(r, n, &l.ratio, &l.ratio_ci);
            free(r);
            free(bx);
            free(sx);
            if (np == 0) continue;
            ratios[q][i] = l.ratio;
            emit(c, fp, csv, stat, metric, &l, 0);
        }
    }

    if (c->np > 1) {
        for (size_t q = 0; q < c->npol; q++) {
            size_t n = 0;
            for (size_t i = 0; i < c->np; i++) n += !isnan(ratios[q][i]);
            if (n == 0) continue;
            char *label = ss_xasprintf("aggregate over %zu points", n);
            line l = {label, c->policies[q], NULL, n, NAN, NAN, NAN, NAN, 0, 0};
            mean_ci(ratios[q], c->np, &l.ratio, &l.ratio_ci);
            emit(c, fp, csv, stat, metric, &l, 1);
            free(label);
        }
    }
    for (size_t i = 0; i < c->npol; i++) free(ratios[i]);
    free(ratios);
    if (!csv) fputc('\n', fp);
    return 0;
}

/* Is column v (the variant) only a name for the values of column by?  Then
 * it is not part of a point's identity: `compare --by policies.x` on a run
 * whose variants each set policies.x compares them. */
static int names_by(const ss_csv *t, long v, long by)
{
    for (size_t i = 1; i < t->nrows; i++)
        for (size_t j = 1; j < i; j++) {
            const ss_csv_row *a = &t->rows[i], *b = &t->rows[j];
            if ((size_t)v >= a->n || (size_t)by >= a->n || (size_t)v >= b->n || (size_t)by >= b->n) return 0;
            if ((strcmp(a->f[v], b->f[v]) == 0) != (strcmp(a->f[by], b->f[by]) == 0)) return 0;
        }
    return 1;
}

ss_compare *ss_compare_read(const char *path, const char *by, const char *const *metrics, size_t nmetrics, ss_err *err)
{
    cmp *c = ss_xcalloc(1, sizeof *c);
    if (ss_csv_read_whole(path, &c->table, err) < 0) {
        free(c);
        return NULL;
    }
    c->csv = &c->table;
    c->mcols = ss_xcalloc(nmetrics + 1, sizeof *c->mcols);
    c->nmetrics = nmetrics;
    const ss_csv *table = &c->table;
    if (table->nrows < 2) {
        ss_err_at(err, path, 1, 1, "expected a header and at least one row");
        goto bad;
    }
    const ss_csv_row *h = &table->rows[0];
    if ((c->by = find_col(h, by, err, path)) < 0) goto bad;
    for (size_t m = 0; m < nmetrics; m++)
        if ((c->mcols[m] = find_col(h, metrics[m], err, path)) < 0) goto bad;
    c->rep_col = ss_csv_col(h, "replication");
    c->model_col = ss_csv_col(h, "model");
    long last_ident = c->model_col >= 0 ? c->model_col : (long)h->n;
    c->ids = ss_xcalloc(h->n + 1, sizeof *c->ids);
    c->varies = ss_xcalloc(h->n + 1, sizeof *c->varies);
    for (long k = 0; k <= last_ident && k < (long)h->n; k++) {
        const char *f = h->f[k];
        if (k == c->by || strcmp(f, "point") == 0 || strcmp(f, "replication") == 0 || strcmp(f, "seed") == 0 ||
            strcmp(f, "replications") == 0 || (strcmp(f, "variant") == 0 && names_by(table, k, c->by)))
            continue;
        c->ids[c->nids++] = k;
    }
    return c;
bad:
    ss_compare_free(c);
    return NULL;
}

int ss_compare_write(ss_compare *c, const char *baseline, const char *model, int stat, int csv, FILE *fp, FILE *diag,
                     ss_err *err)
{
    const ss_csv_row *h = &c->table.rows[0];
    int rc = 0;
    for (size_t m = 0; m < c->nmetrics && rc == 0; m++) {
        if (collect(c, c->mcols[m], model, err) < 0) {
            rc = 2;
            break;
        }
        if (c->np == 0) {
            ss_err_at(err, c->table.path, 1, 1, "no rows for model '%s'", model);
            rc = 2;
            break;
        }
        rc = compare_metric(c, fp, diag, csv, m == 0, stat, h->f[c->mcols[m]], baseline);
        points_clear(c);
    }
    points_clear(c);
    return rc;
}

void ss_compare_free(ss_compare *c)
{
    if (!c) return;
    points_clear(c);
    ss_csv_free(&c->table);
    free(c->ids);
    free(c->varies);
    free(c->mcols);
    free(c);
}

int ss_cmd_compare(int argc, char **argv)
{
    const char *path = NULL, *by = NULL, *baseline = NULL, *model = "all", *out = NULL;
    const char **metrics = NULL;
    size_t nmetrics = 0;
    int csv = 0, stat = STAT_RATIO, rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--by") == 0 || strcmp(a, "--baseline") == 0 || strcmp(a, "--metric") == 0 ||
                    strcmp(a, "--model") == 0 || strcmp(a, "--stat") == 0 || strcmp(a, "-o") == 0 ||
                    strcmp(a, "--output") == 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            free(metrics);
            return 0;
        }
        if (takes && !val) rc = ss_bad_usage("compare", "%s needs a value", a);
        else if (takes) i++;
        if (rc) break;
        if (strcmp(a, "--by") == 0) by = val;
        else if (strcmp(a, "--baseline") == 0) baseline = val;
        else if (strcmp(a, "--model") == 0) model = val;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) out = val;
        else if (strcmp(a, "--metric") == 0) {
            metrics = ss_xrealloc(metrics, (nmetrics + 1) * sizeof *metrics);
            metrics[nmetrics++] = val;
        } else if (strcmp(a, "--stat") == 0) {
            stat = -1;
            for (int k = 0; stat_names[k]; k++)
                if (strcmp(val, stat_names[k]) == 0) stat = k;
            if (stat < 0) rc = ss_bad_usage("compare", "--stat expects ratio, change or thesis, got '%s'", val);
        } else if (strcmp(a, "--csv") == 0) csv = 1;
        else if (a[0] == '-' && a[1]) rc = ss_bad_usage("compare", "unknown option '%s'", a);
        else if (!path) path = a;
        else rc = ss_bad_usage("compare", "unexpected argument '%s'", a);
    }
    if (rc == 0 && !path) rc = ss_bad_usage("compare", "%s", "missing RESULTS.csv");
    if (rc == 0 && !by) rc = ss_bad_usage("compare", "%s", "--by COLUMN is required");
    if (rc == 0 && !baseline) rc = ss_bad_usage("compare", "%s", "--baseline VALUE is required");
    if (rc) {
        free(metrics);
        return rc;
    }
    static const char *const default_metric[] = {"latency_mean_ms"};
    if (nmetrics == 0) {
        metrics = ss_xrealloc(metrics, sizeof *metrics);
        metrics[nmetrics++] = default_metric[0];
    }
    ss_err err = {0};
    ss_compare *c = NULL;
    ss_afile af = {0};
    int have_af = 0;
    rc = 2;
    const char *ins[] = {path}, *outs[] = {out};
    static const char *const in_what[] = {"results CSV"}, *const out_what[] = {"comparison output"};
    if (ss_check_outputs(ins, in_what, 1, outs, out_what, 1, &err) < 0) goto out;
    if (!(c = ss_compare_read(path, by, metrics, nmetrics, &err))) goto out;
    FILE *fp = stdout;
    if (out) {
        if (ss_afile_open(&af, out, &err) < 0) goto out;
        have_af = 1;
        fp = af.fp;
    }
    rc = ss_compare_write(c, baseline, model, stat, csv, fp, stderr, &err);
    if (rc == 0 && have_af) {
        have_af = 0;
        if (ss_afile_commit(&af, &err) < 0) rc = 1; /* the machine (a full disk), not the input */
    }
out:
    if (have_af) ss_afile_abort(&af);
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    ss_compare_free(c);
    free(metrics);
    return rc;
}
