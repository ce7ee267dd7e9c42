/* plot_stats.c: `servesim plot cdf` (the distribution of a per-request or
 * per-cold-start value, a curve per variant or source, its p50, p90 and
 * p99 marked) and `servesim plot axis` (a metric against a sweep axis, a
 * line per policy, the mean over the replications with its 95% confidence
 * bar). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "cmd/plot_common.h"

/* A named group of numbers: a CDF's curve, or an axis plot's line (then
 * per x value: x[k], and its replications' values v). */
typedef struct group {
    char *name;
    double *v;
    size_t n, cap;
} group;

static group *group_of(group **g, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*g)[i].name, name) == 0) return &(*g)[i];
    *g = ss_xrealloc(*g, (*n + 1) * sizeof **g);
    group *x = &(*g)[(*n)++];
    memset(x, 0, sizeof *x);
    x->name = ss_xstrdup(name);
    return x;
}

static void push(group *g, double v)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->v = ss_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    g->v[g->n++] = v;
}

static void groups_free(group *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(g[i].name);
        free(g[i].v);
    }
    free(g);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- cdf ------------------------------------------------------------------ */

/* The value at quantile p of sorted x (nearest rank, as the results CSV's percentiles). */
static double rank(const double *x, size_t n, double p)
{
    size_t k = (size_t)ceil(p * (double)n);
    return x[k ? k - 1 : 0];
}

enum { CDF_POINTS = 4000 }; /* a curve's points at most: the ranks between are not visible */

int pl_cdf(const pl_opts *o, FILE *fp, ss_err *err)
{
    pl_csv *csv = NULL;
    group *g = NULL;
    size_t ng = 0;
    int rc = -1;
    char *xl = NULL, *title = NULL;
    if (pl_load_all(o, &csv, err) < 0) goto out;
    ss_csv_kind kind = csv[0].kind;
    if (kind != SS_CSV_REQUESTS && kind != SS_CSV_COLDSTARTS) {
        ss_err_at(err, csv[0].path, 1, 1,
                  "not a per-request CSV (servesim run --requests-csv) or a cold-starts CSV (--coldstarts-csv)");
        goto out;
    }
    const char *col = o->column ? o->column : kind == SS_CSV_REQUESTS ? "latency_ms" : "duration_s";
    const char *by = o->by ? o->by : kind == SS_CSV_REQUESTS ? "variant" : "source";
    for (size_t f = 0; f < o->nin; f++) {
        const pl_csv *t = &csv[f];
        if (t->kind != kind) {
            ss_err_at(err, t->path, 1, 1, "not the same kind of CSV as %s (%s, not %s)", csv[0].path,
                      ss_csv_kind_name(t->kind), ss_csv_kind_name(kind));
            goto out;
        }
        long cv = pl_col(t, col, "the value whose distribution is drawn", err), cb = pl_col(t, by, "--by", err);
        long cr = pl_col(t, "replication", "", err);
        if (cv < 0 || cb < 0 || cr < 0 || pl_filters_check(t, o, err) < 0) goto out;
        long cd = ss_csv_col(&t->csv.rows[0], "dropped"), cm = ss_csv_col(&t->csv.rows[0], "measured");
        for (size_t r = 1; r < t->csv.nrows; r++) {
            double v, rep, dropped = 0, measured = 1;
            if (pl_num(t, r, cr, 0, &rep, err) < 0) goto out;
            if (cd >= 0 && pl_num(t, r, cd, 0, &dropped, err) < 0) goto out;
            if (cm >= 0 && pl_num(t, r, cm, 0, &measured, err) < 0) goto out;
            if (dropped != 0 || measured != 1 || (o->replication >= 0 && rep != (double)o->replication) ||
                !pl_keep(t, r, o))
                continue;
            if (pl_num(t, r, cv, 0, &v, err) < 0) goto out;
            const char *name = pl_field(t, r, cb);
            char *gname = o->nin > 1 ? ss_xasprintf("%s: %s", t->stem, *name ? name : "-") : ss_xstrdup(*name ? name : "-");
            push(group_of(&g, &ng, gname), v);
            free(gname);
        }
    }
    if (ng == 0) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: no row to draw in %s (completed, measured%s)", o->in[0],
                  o->nvariants || o->nmodels || o->nwhere || o->replication >= 0 ? ", and kept by the filters" : "");
        goto out;
    }
    double lo = INFINITY, hi = -INFINITY, lopos = INFINITY; /* lopos: the least value above 0 */
    for (size_t i = 0; i < ng; i++) {
        qsort(g[i].v, g[i].n, sizeof *g[i].v, cmp_double);
        if (g[i].v[0] < lo) lo = g[i].v[0];
        if (g[i].v[g[i].n - 1] > hi) hi = g[i].v[g[i].n - 1];
        for (size_t k = 0; k < g[i].n; k++)
            if (g[i].v[k] > 0) {
                if (g[i].v[k] < lopos) lopos = g[i].v[k];
                break;
            }
    }
    /* a log scale where the values above 0 span 50x or more; a value of 0 is then drawn at the left edge */
    int logx = o->logx == 1 || (o->logx < 0 && isfinite(lopos) && hi > 50 * lopos);
    if (logx && !isfinite(lopos)) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: --logx: no value of '%s' is above 0", col);
        goto out;
    }
    if (lo < 0 && logx) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: --logx: '%s' has values below 0", col);
        goto out;
    }
    double a, b;
    pl_pad(logx ? lopos : lo, hi, logx, 0.06, 0.06, &a, &b);
    unsigned w = o->width ? o->width : 1000, h = o->height ? o->height : 640;
    pl_begin(fp, w, h);
    static const double marks[] = {0.5, 0.9, 0.99};
    const char *unit = ss_column_unit(kind, col);
    for (size_t i = 0; i < ng; i++) {
        size_t n = g[i].n, step = n > CDF_POINTS ? (n + CDF_POINTS - 1) / CDF_POINTS : 1;
#define X(v) ((v) > a ? (v) : a)
        fprintf(fp, "$c%zu << EOD\n%.9g 0\n", i, X(g[i].v[0]));
        for (size_t k = step - 1; k < n; k += step) fprintf(fp, "%.9g %.9g\n", X(g[i].v[k]), (double)(k + 1) / (double)n);
        if ((n - 1) % step) fprintf(fp, "%.9g 1\n", X(g[i].v[n - 1]));
        fprintf(fp, "EOD\n$m%zu << EOD\n", i);
        for (size_t k = 0; k < 3; k++) fprintf(fp, "%.9g %g\n", X(rank(g[i].v, n, marks[k])), marks[k]);
#undef X
        fputs("EOD\n", fp);
    }
    xl = ss_column_label(kind, col);
    char *words = pl_words(kind, col);
    title = o->title ? ss_xstrdup(o->title)
                     : ss_xasprintf("%s: %s by %s, p50, p90 and p99 marked (%s)", csv[0].stem, words, by,
                                    o->replication >= 0 ? "one replication" : "replications pooled");
    free(words);
    fputs("set title ", fp);
    pl_qstr(fp, title);
    fputs(" font \",12\"\nset xlabel ", fp);
    char *xll = !logx ? ss_xstrdup(xl) : ss_xasprintf("%s, log scale%s", xl, lo > 0 ? "" : "; 0 drawn at the left edge");
    pl_qstr(fp, xll);
    free(xll);
    fprintf(fp, "\nset ylabel \"fraction of %s\"\n", kind == SS_CSV_REQUESTS ? "requests" : "cold starts");
    fprintf(fp, "%s\nset xrange [%.9g:%.9g]\nset yrange [0:1.03]\nset ytics 0.1\nset rmargin 7\n",
            logx ? "set logscale x" : "unset logscale x", a, b);
    if (logx) pl_logtics(fp, "x", a, b, 12);
    for (size_t k = 0; k < 3; k++) { /* the percentiles' levels, named outside the frame on the right */
        fprintf(fp, "set arrow from graph 0,first %g to graph 1,first %g nohead dt 3 lc rgb \"#888888\"\n", marks[k],
                marks[k]);
        fprintf(fp, "set label \"p%g\" at graph 1,first %g offset 0.8,0 left tc rgb \"#555555\"\n", marks[k] * 100,
                marks[k]);
    }
    fputs("set key below left Left reverse noenhanced samplen 3 spacing 1.1 width 2\n", fp);
    fputs("plot ", fp);
    for (size_t i = 0; i < ng; i++) {
        char p50[32], p90[32], p99[32];
        pl_fmt(p50, sizeof p50, rank(g[i].v, g[i].n, 0.5));
        pl_fmt(p90, sizeof p90, rank(g[i].v, g[i].n, 0.9));
        pl_fmt(p99, sizeof p99, rank(g[i].v, g[i].n, 0.99));
        char *t = ss_xasprintf("%s (%zu): p50 %s, p90 %s, p99 %s%s%s", g[i].name, g[i].n, p50, p90, p99,
                               *unit ? " " : "", unit);
        fprintf(fp, "%s$c%zu using 1:2 with steps lw %.2f lc rgb \"%s\" title ", i ? ", \\\n     " : "", i,
                pl_width(i, ng), pl_colour(i));
        pl_qstr(fp, t);
        free(t);
        fprintf(fp, ", \\\n     $m%zu using 1:2 with points pt 7 ps 1.3 lc rgb \"%s\" notitle", i, pl_colour(i));
    }
    fputc('\n', fp);
    rc = 0;
out:
    free(xl);
    free(title);
    groups_free(g, ng);
    pl_free_all(csv, o->nin);
    return rc;
}

/* ---- axis ----------------------------------------------------------------- */

/* The setting columns of a results CSV: those between seed and model, and the variant. */
static int is_setting(const ss_csv_row *h, size_t c)
{
    long s = ss_csv_col(h, "seed"), m = ss_csv_col(h, "model");
    return ((long)c > s && (long)c < m) || strcmp(h->f[c], "variant") == 0;
}

/* The distinct values of column c over the kept rows of t (at most a few are needed). */
static size_t distinct(const pl_csv *t, const pl_opts *o, const char *model, size_t c, size_t most)
{
    const char *seen[8];
    size_t n = 0;
    long cm = ss_csv_col(&t->csv.rows[0], "model");
    for (size_t r = 1; r < t->csv.nrows && n < most && n < 8; r++) {
        if (strcmp(pl_field(t, r, cm), model) != 0 || !pl_keep(t, r, o)) continue;
        const char *v = pl_field(t, r, (long)c);
        size_t i = 0;
        while (i < n && strcmp(seen[i], v) != 0) i++;
        if (i == n) seen[n++] = v;
    }
    return n;
}

/* Whether column c has one value in each cell of the kept rows of model
 * that keys[0..nk) (columns, -1 for none) split them into. */
static int constant_in_cells(const pl_csv *t, const pl_opts *o, const char *model, const long *keys, size_t nk, long c)
{
    long cm = ss_csv_col(&t->csv.rows[0], "model");
    for (size_t r = 1; r < t->csv.nrows; r++) {
        if (strcmp(pl_field(t, r, cm), model) != 0 || !pl_keep(t, r, o)) continue;
        for (size_t q = 1; q < r; q++) { /* the first earlier row of r's cell */
            if (strcmp(pl_field(t, q, cm), model) != 0 || !pl_keep(t, q, o)) continue;
            size_t k = 0;
            while (k < nk && strcmp(pl_field(t, q, keys[k]), pl_field(t, r, keys[k])) == 0) k++;
            if (k < nk) continue;
            if (strcmp(pl_field(t, q, c), pl_field(t, r, c)) != 0) return 0;
            break;
        }
    }
    return 1;
}

static int numeric_column(const pl_csv *t, size_t c)
{
    for (size_t r = 1; r < t->csv.nrows; r++) {
        char *end;
        const char *s = pl_field(t, r, (long)c);
        ss_strtod(s, &end);
        if (!*s || *end) return 0;
    }
    return 1;
}

/* The setting column other than `except` whose values vary (numeric ones
 * only if want_numeric); several that vary together (a variant and the keys
 * it sets) count as one, the variant's name first.  NULL if none; "" if
 * several vary apart (then *names lists them, malloc'd). */
static const char *the_varying(const pl_csv *t, const pl_opts *o, const char *model, const char *except,
                               int want_numeric, char **names)
{
    const ss_csv_row *h = &t->csv.rows[0];
    long cand[64];
    size_t n = 0;
    *names = NULL;
    for (size_t c = 0; c < h->n && n < 64; c++) {
        if (!is_setting(h, c) || (except && strcmp(h->f[c], except) == 0) || distinct(t, o, model, c, 2) < 2 ||
            (want_numeric && !numeric_column(t, c)))
            continue;
        cand[n++] = (long)c;
        char *l = *names ? ss_xasprintf("%s, %s", *names, h->f[c]) : ss_xstrdup(h->f[c]);
        free(*names);
        *names = l;
    }
    if (n == 0) return NULL;
    size_t pick = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(h->f[cand[i]], "variant") == 0) pick = i;
    for (size_t i = 0; i < n; i++)
        if (!constant_in_cells(t, o, model, &cand[pick], 1, cand[i]) ||
            !constant_in_cells(t, o, model, &cand[i], 1, cand[pick]))
            return "";
    return h->f[cand[pick]];
}

int pl_axis(const pl_opts *o, FILE *fp, ss_err *err)
{
    pl_csv *csv = NULL;
    group *g = NULL;      /* a line per value of --by; its v holds x, then values, per row */
    size_t ng = 0;
    int rc = -1;
    char *names = NULL, *xl = NULL, *yl = NULL, *title = NULL, *byl = NULL;
    if (pl_load_all(o, &csv, err) < 0) goto out;
    const pl_csv *t = &csv[0];
    if (o->nin > 1) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: axis draws one results CSV (a sweep's), not %zu", o->nin);
        goto out;
    }
    if (t->kind != SS_CSV_RESULTS) {
        ss_err_at(err, t->path, 1, 1, "not a results CSV (of servesim sweep or run): no columns 'model' and 'completed'");
        goto out;
    }
    const char *model = o->nmodels ? o->models[0] : "all";
    const char *x = o->x, *y = o->y ? o->y : "latency_mean_ms", *by = o->by;
    if (o->nmodels > 1) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: axis draws one model (--model once; default: all)");
        goto out;
    }
    if (pl_filters_check(t, o, err) < 0 || pl_col(t, "seed", "a results CSV's", err) < 0) goto out;
    if (!x) {
        x = the_varying(t, o, model, NULL, 1, &names);
        if (!x || !*x) {
            ss_err_at(err, NULL, 0, 0, "servesim plot: name the sweep axis with --x: %s%s", x ? "these vary: " : "",
                      x ? names : "no numeric setting column varies");
            goto out;
        }
        free(names);
        names = NULL;
    }
    if (!by) {
        by = the_varying(t, o, model, x, 0, &names);
        if (by && !*by) {
            ss_err_at(err, NULL, 0, 0,
                      "servesim plot: besides %s, these vary: %s: draw a line per value of one (--by COLUMN) "
                      "and fix the others (--where COLUMN=VALUE)",
                      x, names);
            goto out;
        }
    }
    long cx = pl_col(t, x, "--x", err), cy = cx < 0 ? -1 : pl_col(t, y, "--y", err);
    long cb = by && cy >= 0 ? pl_col(t, by, "--by", err) : -1, cm = ss_csv_col(&t->csv.rows[0], "model");
    if (cx < 0 || cy < 0 || (by && cb < 0)) goto out;
    long cci = -1;
    if (ss_csv_col(&t->csv.rows[0], "replication") < 0) { /* a summary CSV: its means and half-widths */
        char *n = ss_xasprintf("%s_ci95", y);
        cci = pl_col(t, n, "a summary CSV's confidence half-width", err);
        free(n);
        if (cci < 0) goto out;
    }
    /* every other setting must be one value at each point of a line (or be chosen with --where) */
    const ss_csv_row *h = &t->csv.rows[0];
    long cells[2] = {cx, cb};
    for (size_t c = 0; c < h->n; c++) {
        if (!is_setting(h, c) || (long)c == cx || (long)c == cb ||
            constant_in_cells(t, o, model, cells, cb >= 0 ? 2 : 1, (long)c))
            continue;
        ss_err_at(err, NULL, 0, 0,
                  "servesim plot: column '%s' varies too: fix it with --where %s=VALUE, or draw a line per value "
                  "with --by %s",
                  h->f[c], h->f[c], h->f[c]);
        goto out;
    }
    size_t rows = 0;
    for (size_t r = 1; r < t->csv.nrows; r++) {
        if (strcmp(pl_field(t, r, cm), model) != 0 || !pl_keep(t, r, o)) continue;
        double xv, yv, ci = NAN;
        if (pl_num(t, r, cx, 0, &xv, err) < 0 || pl_num(t, r, cy, 0, &yv, err) < 0) goto out;
        if (cci >= 0 && pl_num(t, r, cci, 1, &ci, err) < 0) goto out;
        group *l = group_of(&g, &ng, cb >= 0 ? pl_field(t, r, cb) : y);
        push(l, xv);
        push(l, yv);
        push(l, ci);
        rows++;
    }
    if (rows == 0) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: no row of model '%s'%s in %s", model,
                  o->nvariants || o->nwhere ? " that --variant and --where keep" : "", t->path);
        goto out;
    }
    /* per line and x: the mean and the 95% half-width over the replications */
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t nrep = 0;
    int logx = o->logx == 1, logy;
    for (size_t i = 0; i < ng; i++) {
        fprintf(fp, "$l%zu << EOD\n", i);
        group *l = &g[i];
        size_t n = l->n / 3;
        double *xs = ss_xmalloc(n * sizeof *xs), *vals = ss_xmalloc(n * sizeof *vals);
        for (size_t k = 0; k < n; k++) xs[k] = l->v[3 * k];
        qsort(xs, n, sizeof *xs, cmp_double);
        for (size_t k = 0; k < n; k++) {
            if (k && xs[k] == xs[k - 1]) continue;
            size_t m = 0;
            double ci = NAN;
            for (size_t j = 0; j < n; j++)
                if (l->v[3 * j] == xs[k]) vals[m++] = l->v[3 * j + 1], ci = l->v[3 * j + 2];
            double mean;
            if (cci < 0) ci = ss_ci95(vals, m, &mean);
            else mean = vals[0];
            if (isnan(ci)) ci = 0;
            if (m > nrep) nrep = m;
            fprintf(fp, "%.9g %.9g %.9g\n", xs[k], mean, ci);
            xlo = fmin(xlo, xs[k]), xhi = fmax(xhi, xs[k]);
            ylo = fmin(ylo, mean - ci), yhi = fmax(yhi, mean + ci);
        }
        fputs("EOD\n", fp);
        free(xs);
        free(vals);
    }
    logy = o->logy == 1 || (o->logy < 0 && ylo > 0 && yhi > 20 * ylo);
    if ((logx && !(xlo > 0)) || (logy && !(ylo > 0))) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: --log%s: values of 0 or below", logx && !(xlo > 0) ? "x" : "y");
        goto out;
    }
    double a, b;
    xl = ss_column_label(SS_CSV_RESULTS, x);
    yl = ss_column_label(SS_CSV_RESULTS, y);
    byl = by ? ss_column_label(SS_CSV_RESULTS, by) : NULL;
    char reps[64];
    if (cci >= 0) snprintf(reps, sizeof reps, "the summary's mean and 95%% CI");
    else if (nrep > 1) snprintf(reps, sizeof reps, "mean and 95%% CI over %zu replications", nrep);
    else snprintf(reps, sizeof reps, "one replication");
    char *yw = pl_words(SS_CSV_RESULTS, y), *xw = pl_words(SS_CSV_RESULTS, x);
    title = o->title ? ss_xstrdup(o->title) : ss_xasprintf("%s: %s against %s, %s", t->stem, yw, xw, reps);
    free(yw);
    free(xw);
    unsigned w = o->width ? o->width : 900, hh = o->height ? o->height : 580;
    /* pl_begin sets the terminal; the data blocks above come first, which gnuplot allows */
    pl_begin(fp, w, hh);
    fputs("set title ", fp);
    pl_qstr(fp, title);
    fputs(" font \",12\"\nset xlabel ", fp);
    pl_qstr(fp, xl);
    fputs("\nset ylabel ", fp);
    if (logy) {
        char *l = ss_xasprintf("%s, log scale", yl);
        pl_qstr(fp, l);
        free(l);
    } else {
        pl_qstr(fp, yl);
    }
    pl_pad(xlo, xhi, logx, 0.05, 0.05, &a, &b);
    fprintf(fp, "\n%s\nset xrange [%.9g:%.9g]\n", logx ? "set logscale x" : "unset logscale x", a, b);
    if (logx) pl_logtics(fp, "x", a, b, 12);
    pl_pad(ylo, yhi, logy, 0.05, 0.1, &a, &b);
    fprintf(fp, "%s\nset yrange [%.9g:%.9g]\n", logy ? "set logscale y" : "unset logscale y", a, b);
    if (logy) pl_logtics(fp, "y", a, b, 12);
    fputs("set key top left opaque box lc rgb \"#bbbbbb\" samplen 3", fp);
    if (byl) {
        fputs(" title ", fp);
        pl_qstr(fp, byl);
    }
    fputs("\nset bars 1.5\nplot ", fp);
    for (size_t i = 0; i < ng; i++) {
        fprintf(fp, "%s$l%zu using 1:2:3 with yerrorlines lw 2 pt 7 ps 1.1 lc rgb \"%s\" title ", i ? ", \\\n     " : "",
                i, pl_colour(i));
        pl_qstr(fp, g[i].name);
    }
    fputc('\n', fp);
    rc = 0;
out:
    free(names);
    free(xl);
    free(yl);
    free(byl);
    free(title);
    groups_free(g, ng);
    pl_free_all(csv, o->nin);
    return rc;
}
