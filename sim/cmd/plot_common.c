/* plot_common.c: reading the CSVs of a plot and writing the gnuplot side
 * that every kind shares (see plot_common.h). */
#include "cmd/plot_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kind of a servesim CSV from its header, or -1. */
static int kind_of(const ss_csv_row *h)
{
    if (ss_csv_col(h, "t_s") >= 0 && ss_csv_col(h, "replicas") >= 0) return SS_CSV_TIMESERIES;
    if (ss_csv_col(h, "request") >= 0 && ss_csv_col(h, "latency_ms") >= 0) return SS_CSV_REQUESTS;
    if (ss_csv_col(h, "source") >= 0 && ss_csv_col(h, "duration_s") >= 0 && ss_csv_col(h, "up_s") >= 0)
        return SS_CSV_COLDSTARTS;
    if (ss_csv_col(h, "model") >= 0 && ss_csv_col(h, "completed") >= 0) return SS_CSV_RESULTS;
    return -1;
}

static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".csv") == 0) n -= 4;
    char *s = ss_xmalloc(n + 1);
    memcpy(s, base, n);
    s[n] = '\0';
    return s;
}

int pl_load_all(const pl_opts *o, pl_csv **out, ss_err *err)
{
    pl_csv *t = ss_xcalloc(o->nin ? o->nin : 1, sizeof *t);
    *out = t;
    for (size_t i = 0; i < o->nin; i++) {
        t[i].path = o->in[i];
        t[i].stem = stem_of(o->in[i]);
        if (ss_csv_read_whole(o->in[i], &t[i].csv, err) < 0) return -1;
        if (t[i].csv.nrows == 0) return ss_err_at(err, o->in[i], 0, 0, "empty: no header line");
        int k = kind_of(&t[i].csv.rows[0]);
        if (k < 0) {
            if (ss_csv_col(&t[i].csv.rows[0], "policy_mean") >= 0)
                return ss_err_at(err, o->in[i], 1, 1,
                                 "a table of servesim compare: plot the results CSV it was made from (servesim "
                                 "plot axis RESULTS.csv)");
            return ss_err_at(err, o->in[i], 1, 1,
                             "not a CSV servesim writes (a results CSV, --timeseries-csv, --requests-csv or "
                             "--coldstarts-csv): its header has none of their columns");
        }
        t[i].kind = (ss_csv_kind)k;
    }
    return 0;
}

void pl_free_all(pl_csv *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++) {
        ss_csv_free(&t[i].csv);
        free(t[i].stem);
    }
    free(t);
}

long pl_col(const pl_csv *t, const char *name, const char *what, ss_err *err)
{
    const ss_csv_row *h = &t->csv.rows[0];
    long c = ss_csv_col(h, name);
    if (c >= 0) return c;
    const char **names = ss_xcalloc(h->n + 1, sizeof *names);
    for (size_t i = 0; i < h->n; i++) names[i] = h->f[i];
    const char *near = ss_suggest(name, names);
    ss_err_at(err, t->path, 1, 1, "no column '%s' (%s)%s%s%s", name, what, near ? "; did you mean '" : "",
              near ? near : "", near ? "'?" : "");
    free(names);
    return -1;
}

const char *pl_field(const pl_csv *t, size_t row, long col)
{
    const ss_csv_row *r = &t->csv.rows[row];
    return col >= 0 && (size_t)col < r->n ? r->f[col] : "";
}

int pl_num(const pl_csv *t, size_t row, long col, int empty_ok, double *v, ss_err *err)
{
    const char *s = pl_field(t, row, col);
    if (!*s && empty_ok) {
        *v = NAN;
        return 1;
    }
    char *end;
    *v = ss_strtod(s, &end);
    if (*s && end != s && *end == '\0' && isfinite(*v)) return 0;
    const ss_csv_row *r = &t->csv.rows[row];
    return ss_err_at(err, t->path, r->line, (size_t)col < r->n ? ss_csv_field_col(r, (size_t)col) : 1,
                     "expected a number in column '%s', got '%s'", t->csv.rows[0].f[col], s);
}

int pl_filters_check(const pl_csv *t, const pl_opts *o, ss_err *err)
{
    if (o->nvariants && pl_col(t, "variant", "--variant", err) < 0) return -1;
    if (o->nmodels && pl_col(t, "model", "--model", err) < 0) return -1;
    for (size_t i = 0; i < o->nwhere; i++) {
        const char *eq = strchr(o->where[i], '=');
        char *name = ss_xasprintf("%.*s", (int)(eq - o->where[i]), o->where[i]);
        long c = pl_col(t, name, "--where", err);
        free(name);
        if (c < 0) return -1;
    }
    return 0;
}

static int in_list(const char *s, const char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0) return 1;
    return 0;
}

int pl_keep(const pl_csv *t, size_t row, const pl_opts *o)
{
    const ss_csv_row *h = &t->csv.rows[0];
    if (o->nvariants && !in_list(pl_field(t, row, ss_csv_col(h, "variant")), o->variants, o->nvariants)) return 0;
    if (o->nmodels && !in_list(pl_field(t, row, ss_csv_col(h, "model")), o->models, o->nmodels)) return 0;
    for (size_t i = 0; i < o->nwhere; i++) {
        const char *eq = strchr(o->where[i], '=');
        char *name = ss_xasprintf("%.*s", (int)(eq - o->where[i]), o->where[i]);
        int same = strcmp(pl_field(t, row, ss_csv_col(h, name)), eq + 1) == 0;
        free(name);
        if (!same) return 0;
    }
    return 1;
}

void pl_qstr(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', fp);
        if (*s == '\n') {
            fputs("\\n", fp);
            continue;
        }
        fputc(*s, fp);
    }
    fputc('"', fp);
}

void pl_begin(FILE *fp, unsigned w, unsigned h)
{
    /* noenhanced: a name with '_' or '^' is printed as it is, not as a subscript */
    fprintf(fp, "set terminal pngcairo size %u,%u noenhanced font \"Sans,10\"\n", w, h);
    fputs("set output out\nset encoding utf8\nset datafile separator whitespace\nset grid lc rgb \"#dddddd\"\n"
          "set border lc rgb \"#444444\"\n",
          fp);
}

const char *pl_colour(size_t i)
{
    /* Okabe and Ito's colours, which colour-blind readers tell apart, yellow
     * left out (too pale on white), then darker shades of three */
    static const char *const c[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                    "#332288", "#882255", "#117733", "#999933"};
    return c[i % (sizeof c / sizeof *c)];
}

double pl_width(size_t i, size_t n)
{
    return n > 1 ? 1.2 + 1.8 * (double)(n - 1 - i) / (double)(n - 1) : 2.0;
}

void pl_pad(double lo, double hi, int log, double pad_lo, double pad_hi, double *a, double *b)
{
    if (log) {
        double l = log10(lo), h = log10(hi);
        if (h - l < 1e-9) l -= 0.5, h += 0.5;
        *a = pow(10, l - pad_lo * (h - l));
        *b = pow(10, h + pad_hi * (h - l));
        return;
    }
    if (hi - lo < 1e-12 * (fabs(hi) + 1)) {
        double d = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
        lo -= d, hi += d;
    }
    *a = lo - pad_lo * (hi - lo);
    *b = hi + pad_hi * (hi - lo);
    if (lo >= 0 && *a < 0) *a = 0;
}

void pl_logtics(FILE *fp, const char *axis, double lo, double hi, size_t most)
{
    /* 1-2-5 in each decade; every decade alone when that is too many; 1-9 when too few */
    static const double sets[3][9] = {{1, 2, 5}, {1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
    static const size_t nset[3] = {3, 1, 9};
    int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi));
    size_t pick = 0;
    for (size_t s = 0; s < 3; s++) {
        size_t n = 0;
        for (int k = k0; k <= k1; k++)
            for (size_t j = 0; j < nset[s]; j++) n += sets[s][j] * pow(10, k) >= lo && sets[s][j] * pow(10, k) <= hi;
        pick = s;
        if ((s == 0 && n >= 3 && n <= most) || (s == 1 && n >= 3) || s == 2) break;
    }
    fprintf(fp, "set %stics (", axis);
    int first = 1;
    for (int k = k0; k <= k1; k++)
        for (size_t j = 0; j < nset[pick]; j++) {
            double v = sets[pick][j] * pow(10, k);
            if (v < lo || v > hi) continue;
            fprintf(fp, "%s\"%g\" %.9g", first ? "" : ", ", v, v);
            first = 0;
        }
    fputs(")\n", fp);
}

char *pl_words(ss_csv_kind kind, const char *name)
{
    char *l = ss_column_label(kind, name);
    const char *unit = ss_column_unit(kind, name);
    size_t n = strlen(l), u = strlen(unit);
    if (u && n > u + 3 && l[n - 1] == ')' && strncmp(l + n - u - 1, unit, u) == 0) l[n - u - 3] = '\0';
    return l;
}

void pl_fmt(char *buf, size_t n, double v)
{
    if (fabs(v) >= 1000 || v == floor(v)) snprintf(buf, n, "%.0f", v);
    else snprintf(buf, n, "%.3g", v);
}
