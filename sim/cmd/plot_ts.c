/* plot_ts.c: `servesim plot timeseries` - the variants of one or more runs
 * over time, overlaid: a column of panels per model, a panel per quantity
 * (by default the offered arrival rate, replicas up, replicas cold-starting
 * and requests queued), every variant a line of its own colour, from the
 * CSVs of `servesim run --timeseries-csv` (serve/timeseries.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/plot_common.h"

/* The quantities a panel may show: the numeric columns of a time series. */
static const char *const quantities[] = {"arrivals", "replicas", "starting", "draining", "queued", "in_service",
                                         "utilisation", "cores", "rt_mean_s", "kv_cache", "ttft_mean_s", NULL};
enum { NQ = sizeof quantities / sizeof *quantities - 1 };

typedef struct series {
    size_t file;
    const char *variant, *model; /* point into the CSV */
    size_t n, cap;
    double *t;                   /* sample times (s) */
    double *v;                   /* n x NQ: each quantity, NaN where empty or absent */
} series;

typedef struct ts {
    const pl_opts *o;
    pl_csv *csv;
    series *s;
    size_t ns;
    const char **models;
    size_t nmodels;
    char **lines;                /* the legend's name of each (file, variant), in order of appearance */
    size_t nlines;
} ts;

static size_t find_or_add(const char ***list, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], name) == 0) return i;
    *list = ss_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[*n] = name;
    return (*n)++;
}

/* The series of (file, variant, model), made on first sight. */
static series *series_of(ts *d, size_t file, const char *variant, const char *model)
{
    for (size_t i = 0; i < d->ns; i++)
        if (d->s[i].file == file && strcmp(d->s[i].variant, variant) == 0 && strcmp(d->s[i].model, model) == 0)
            return &d->s[i];
    d->s = ss_xrealloc(d->s, (d->ns + 1) * sizeof *d->s);
    series *s = &d->s[d->ns++];
    memset(s, 0, sizeof *s);
    s->file = file, s->variant = variant, s->model = model;
    return s;
}

static int read_file(ts *d, size_t f, ss_err *err)
{
    const pl_csv *t = &d->csv[f];
    long cv = pl_col(t, "variant", "a time series' variant", err), cr = pl_col(t, "replication", "", err),
         ct = pl_col(t, "t_s", "a time series' sample time", err), cm = pl_col(t, "model", "", err);
    if (cv < 0 || cr < 0 || ct < 0 || cm < 0 || pl_filters_check(t, d->o, err) < 0) return -1;
    long cq[NQ];
    for (size_t q = 0; q < NQ; q++) cq[q] = ss_csv_col(&t->csv.rows[0], quantities[q]);
    long want = d->o->replication < 0 ? 0 : d->o->replication;
    for (size_t r = 1; r < t->csv.nrows; r++) {
        double rep, tt;
        if (pl_num(t, r, cr, 0, &rep, err) < 0 || pl_num(t, r, ct, 0, &tt, err) < 0) return -1;
        if (rep != (double)want || !pl_keep(t, r, d->o)) continue;
        series *s = series_of(d, f, pl_field(t, r, cv), pl_field(t, r, cm));
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 256;
            s->t = ss_xrealloc(s->t, s->cap * sizeof *s->t);
            s->v = ss_xrealloc(s->v, s->cap * NQ * sizeof *s->v);
        }
        s->t[s->n] = tt;
        for (size_t q = 0; q < NQ; q++) {
            double v = NAN;
            if (cq[q] >= 0 && pl_num(t, r, cq[q], 1, &v, err) < 0) return -1;
            s->v[s->n * NQ + q] = v;
        }
        s->n++;
    }
    return 0;
}

static long q_index(const char *name)
{
    for (size_t q = 0; q < NQ; q++)
        if (strcmp(quantities[q], name) == 0) return (long)q;
    return -1;
}

/* Over every series: whether quantity q has a value, one above 0, and two different ones. */
static void survey(const ts *d, size_t q, int *any, int *pos, int *varies)
{
    double first = NAN;
    *any = *pos = *varies = 0;
    for (size_t i = 0; i < d->ns; i++)
        for (size_t k = 0; k < d->s[i].n; k++) {
            double v = d->s[i].v[k * NQ + q];
            if (isnan(v)) continue;
            if (!*any) first = v;
            *any = 1;
            *pos |= v > 0;
            *varies |= v != first;
        }
}

/* The panels: --panels, or what the data have (the arrival rate, replicas
 * when they change, else utilisation, cold-starting replicas if any, the
 * queue, and the time to first token, response time and cores where given). */
static size_t choose_panels(const ts *d, long *panel, ss_err *err)
{
    size_t n = 0;
    if (d->o->panels) {
        char *list = ss_xstrdup(d->o->panels), *save = NULL;
        for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            long q = q_index(w);
            if (q < 0 || n == NQ) {
                const char *near = ss_suggest(w, quantities);
                ss_err_at(err, NULL, 0, 0,
                          "servesim plot: --panels: '%s' is not a quantity of a time series%s%s%s (arrivals, "
                          "replicas, starting, draining, queued, in_service, utilisation, cores, rt_mean_s, "
                          "kv_cache, ttft_mean_s)",
                          w, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
                free(list);
                return 0;
            }
            int any, pos, varies;
            survey(d, (size_t)q, &any, &pos, &varies);
            if (!any) {
                ss_err_at(err, NULL, 0, 0, "servesim plot: --panels: no sample has a value of '%s' in %s", w,
                          d->o->in[0]);
                free(list);
                return 0;
            }
            panel[n++] = q;
        }
        free(list);
        if (n == 0) ss_err_at(err, NULL, 0, 0, "servesim plot: --panels: no quantity named");
        return n;
    }
    int any, pos, varies, starting;
    survey(d, (size_t)q_index("starting"), &any, &starting, &varies);
    survey(d, (size_t)q_index("arrivals"), &any, &pos, &varies);
    if (any) panel[n++] = q_index("arrivals");
    survey(d, (size_t)q_index("replicas"), &any, &pos, &varies);
    panel[n++] = q_index(varies || starting ? "replicas" : "utilisation");
    if (starting) panel[n++] = q_index("starting");
    panel[n++] = q_index("queued");
    static const char *const extra[] = {"ttft_mean_s", "rt_mean_s", "cores"};
    for (size_t i = 0; i < 3; i++) {
        survey(d, (size_t)q_index(extra[i]), &any, &pos, &varies);
        if (any && (varies || i < 2)) panel[n++] = q_index(extra[i]);
    }
    return n;
}

/* Value k of series s as the panel draws it: arrivals as a rate over the interval before. */
static double shown(const series *s, size_t k, size_t q)
{
    double v = s->v[k * NQ + q];
    if (strcmp(quantities[q], "arrivals") == 0) {
        double dt = s->t[k] - (k ? s->t[k - 1] : 0);
        return dt > 0 ? v / dt : NAN;
    }
    return v;
}

/* Whether every line of model m has the same arrivals (the variants saw the same load). */
static int same_arrivals(const ts *d, const char *model, size_t q)
{
    const series *first = NULL;
    for (size_t i = 0; i < d->ns; i++) {
        const series *s = &d->s[i];
        if (strcmp(s->model, model) != 0) continue;
        if (!first) {
            first = s;
            continue;
        }
        /* the runs drain at different times: past the shorter one, no arrival */
        const series *a = s->n < first->n ? s : first, *b = a == s ? first : s;
        for (size_t k = 0; k < b->n; k++) {
            if (k >= a->n) {
                if (b->v[k * NQ + q] > 0) return 0;
                continue;
            }
            if (a->t[k] != b->t[k] || a->v[k * NQ + q] != b->v[k * NQ + q]) return 0;
        }
    }
    return 1;
}

static size_t line_of(ts *d, const series *s)
{
    char *name = d->o->nin > 1 ? ss_xasprintf("%s: %s", d->csv[s->file].stem, *s->variant ? s->variant : "-")
                               : ss_xstrdup(*s->variant ? s->variant : "-");
    for (size_t i = 0; i < d->nlines; i++)
        if (strcmp(d->lines[i], name) == 0) {
            free(name);
            return i;
        }
    d->lines = ss_xrealloc(d->lines, (d->nlines + 1) * sizeof *d->lines);
    d->lines[d->nlines] = name;
    return d->nlines++;
}

static void write_data(FILE *fp, const ts *d)
{
    for (size_t i = 0; i < d->ns; i++) {
        const series *s = &d->s[i];
        fprintf(fp, "$s%zu << EOD\n", i);
        for (size_t k = 0; k < s->n; k++) {
            fprintf(fp, "%.9g", s->t[k]);
            for (size_t q = 0; q < NQ; q++) {
                double v = shown(s, k, q);
                if (isnan(v)) fputs(" NaN", fp);
                else fprintf(fp, " %.9g", v);
            }
            fputc('\n', fp);
        }
        fputs("EOD\n", fp);
    }
}

/* The y range and scale of panel q over every series: the queue and the
 * response times on a log scale when they span more than 100x. */
static int y_range(const ts *d, size_t q, double *lo, double *hi)
{
    double mx = 0, mnpos = INFINITY;
    for (size_t i = 0; i < d->ns; i++)
        for (size_t k = 0; k < d->s[i].n; k++) {
            double v = shown(&d->s[i], k, q);
            if (isnan(v)) continue;
            if (v > mx) mx = v;
            if (v > 0 && v < mnpos) mnpos = v;
        }
    const char *name = quantities[q];
    int timed = strcmp(name, "rt_mean_s") == 0 || strcmp(name, "ttft_mean_s") == 0;
    int log = d->o->logy == 1 || (d->o->logy < 0 && (strcmp(name, "queued") == 0 ? mx > 100
                                                                                     : timed && mx > 100 * mnpos));
    if (log && isfinite(mnpos)) {
        pl_pad(strcmp(name, "queued") == 0 ? 1 : mnpos, mx, 1, 0.02, 0.08, lo, hi);
        return 1;
    }
    if (strcmp(name, "utilisation") == 0 || strcmp(name, "kv_cache") == 0) mx = mx > 1 ? mx : 1;
    pl_pad(0, mx > 0 ? mx : 1, 0, 0, 0.1, lo, hi);
    return 0;
}

static char *panel_label(size_t q, int log)
{
    if (strcmp(quantities[q], "arrivals") == 0) return ss_xstrdup("arrival rate (requests/s)");
    char *l = ss_column_label(SS_CSV_TIMESERIES, quantities[q]);
    if (!log) return l;
    char *s = ss_xasprintf("%s, log", l);
    free(l);
    return s;
}

/* The legend of the variants, drawn by hand at the top of the picture (a
 * gnuplot key belongs to one panel and wraps by that panel's size): rows of
 * entries, a short line in the variant's colour and width, then its name;
 * `load`, if not NULL, a last black entry for the offered load.  Set before
 * the first plot, unset after it; returns the rows used. */
static unsigned legend(FILE *fp, const ts *d, unsigned w, unsigned h, double top_px, const char *load)
{
    size_t n = d->nlines + (load != NULL);
    double *wd = ss_xmalloc(n * sizeof *wd); /* px of each entry: the line, a gap, the name, a gap */
    for (size_t i = 0; i < n; i++) wd[i] = 44 + 7.2 * (double)strlen(i < d->nlines ? d->lines[i] : load) + 26;
    unsigned rows = 0;
    for (size_t i = 0; i < n; rows++) { /* as many entries a row as fit, the row centred */
        size_t j = i;
        double row_w = 0;
        while (j < n && (j == i || row_w + wd[j] <= w - 40)) row_w += wd[j++];
        double x0 = (w - row_w) / 2, y = top_px + 20.0 * rows;
        for (; i < j; x0 += wd[i++]) {
            int variant = i < d->nlines;
            fprintf(fp,
                    "set arrow from screen %.4f,screen %.4f to screen %.4f,screen %.4f nohead lw %.2f lc rgb \"%s\"\n",
                    x0 / w, 1 - y / h, (x0 + 36) / w, 1 - y / h, variant ? pl_width(i, d->nlines) : 2.0,
                    variant ? pl_colour(i) : "#000000");
            fprintf(fp, "set label ");
            pl_qstr(fp, variant ? d->lines[i] : load);
            fprintf(fp, " at screen %.4f,screen %.4f left font \",11\"\n", (x0 + 44) / w, 1 - y / h);
        }
    }
    free(wd);
    return rows;
}

static void write_plots(FILE *fp, ts *d, const long *panel, size_t np)
{
    const pl_opts *o = d->o;
    double tmax = 0;
    for (size_t i = 0; i < d->ns; i++)
        if (d->s[i].n && d->s[i].t[d->s[i].n - 1] > tmax) tmax = d->s[i].t[d->s[i].n - 1];
    if (o->xmax_s > 0) tmax = o->xmax_s;
    int minutes = tmax > 1800;
    double unit = minutes ? 60 : 1;
    unsigned w = o->width ? o->width : (unsigned)(260 + 640 * d->nmodels);
    unsigned h = o->height ? o->height : (unsigned)(130 + 190 * np);
    pl_begin(fp, w, h);
    write_data(fp, d);
    char *title = o->title ? ss_xstrdup(o->title)
                  : d->nmodels == 1
                      ? ss_xasprintf("%s: model %s over time, every variant (replication %ld)", d->csv[0].stem,
                                     d->models[0], o->replication < 0 ? 0 : o->replication)
                      : ss_xasprintf("%s over time, every variant (replication %ld)", d->csv[0].stem,
                                     o->replication < 0 ? 0 : o->replication);
    int one_load = 0; /* some model's arrival rate drawn once, for every variant */
    for (size_t m = 0; m < d->nmodels; m++)
        for (size_t p = 0; p < np; p++)
            one_load |= strcmp(quantities[panel[p]], "arrivals") == 0 && same_arrivals(d, d->models[m], (size_t)panel[p]);
    unsigned title_lines = 1; /* the legend goes below the title, whatever its lines */
    for (const char *c = title; *c; c++) title_lines += *c == '\n';
    double legend_px = 22 + 18.0 * title_lines;
    unsigned rows = legend(fp, d, w, h, legend_px,
                           one_load ? (d->nlines > 1 ? "offered load (the same for every variant)" : "offered load")
                                    : NULL);
    double top_px = legend_px + 20.0 * rows + (d->nmodels > 1 ? 24 : 4);
    fprintf(fp, "set multiplot layout %zu,%zu columnsfirst margins %.4f,%.4f,%.4f,%.4f spacing %.4f,%.4f title ",
            np, d->nmodels, 86.0 / w, 1 - 24.0 / w, 52.0 / h, 1 - top_px / h, 90.0 / w, 14.0 / h);
    pl_qstr(fp, title);
    fputs(" font \",13\"\nunset key\n", fp);
    free(title);
    fprintf(fp, "set xrange [0:%.9g]\n", tmax / unit * 1.005);
    for (size_t m = 0; m < d->nmodels; m++)
        for (size_t p = 0; p < np; p++) {
            size_t q = (size_t)panel[p];
            double lo, hi;
            int log = y_range(d, q, &lo, &hi);
            char *label = panel_label(q, log);
            if (p == 0 && d->nmodels > 1) {
                char *t = ss_xasprintf("model %s", d->models[m]);
                fputs("set title ", fp);
                pl_qstr(fp, t);
                fputc('\n', fp);
                free(t);
            } else {
                fputs("unset title\n", fp);
            }
            fputs("set ylabel ", fp);
            pl_qstr(fp, label);
            free(label);
            fprintf(fp, "\n%s\nset yrange [%.9g:%.9g]\n", log ? "set logscale y" : "unset logscale y", lo, hi);
            if (log) pl_logtics(fp, "y", lo, hi, 6);
            else fputs("set ytics autofreq\n", fp);
            if (p + 1 == np) {
                fputs("set format x \"%g\"\nset xlabel ", fp);
                pl_qstr(fp, minutes ? "simulated time (min)" : "simulated time (s)");
                fputc('\n', fp);
            } else {
                fputs("set format x \"\"\nunset xlabel\n", fp);
            }
            int arrivals = strcmp(quantities[q], "arrivals") == 0;
            int one = arrivals && same_arrivals(d, d->models[m], q);
            /* a state sampled at t holds until the next sample (steps); a count over the
             * interval before t holds over that interval (fsteps); a mean over it is a point */
            const char *style = strcmp(quantities[q], "rt_mean_s") == 0 || strcmp(quantities[q], "ttft_mean_s") == 0
                                    ? "lines"
                                : arrivals ? "fsteps"
                                           : "steps";
            fputs("plot ", fp);
            int first = 1;
            for (size_t i = 0; i < d->ns; i++) {
                const series *s = &d->s[i];
                if (strcmp(s->model, d->models[m]) != 0) continue;
                size_t line = line_of(d, s);
                fprintf(fp, "%s$s%zu using ($1/%g):", first ? "" : ", \\\n     ", i, unit);
                if (strcmp(quantities[q], "queued") == 0 && log) fprintf(fp, "($%zu > 0 ? $%zu : NaN)", q + 2, q + 2);
                else fprintf(fp, "%zu", q + 2);
                if (one) {
                    fputs(" with fsteps lw 2 lc rgb \"#000000\" notitle", fp);
                    break;
                }
                fprintf(fp, " with %s lw %.2f lc rgb \"%s\" notitle", style, pl_width(line, d->nlines),
                        pl_colour(line));
                first = 0;
            }
            fputs(m == 0 && p == 0 ? "\nunset arrow\nunset label\n" : "\n", fp);
        }
    fputs("unset multiplot\n", fp);
}

int pl_timeseries(const pl_opts *o, FILE *fp, ss_err *err)
{
    pl_csv *csv = NULL;
    ts d = {.o = o};
    long panel[NQ];
    int rc = -1;
    if (pl_load_all(o, &csv, err) < 0) goto out;
    d.csv = csv;
    for (size_t f = 0; f < o->nin; f++) {
        if (csv[f].kind != SS_CSV_TIMESERIES) {
            ss_err_at(err, csv[f].path, 1, 1, "not a time series (servesim run --timeseries-csv): no column 't_s'");
            goto out;
        }
        if (read_file(&d, f, err) < 0) goto out;
    }
    if (d.ns == 0) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: no sample of replication %ld%s in %s",
                  o->replication < 0 ? 0 : o->replication,
                  o->nvariants || o->nmodels || o->nwhere ? " that --variant, --model and --where keep" : "",
                  o->in[0]);
        goto out;
    }
    for (size_t i = 0; i < d.ns; i++) {
        find_or_add(&d.models, &d.nmodels, d.s[i].model);
        line_of(&d, &d.s[i]);
    }
    if (d.nmodels > 6) {
        ss_err_at(err, NULL, 0, 0, "servesim plot: %zu models, a column of panels each: name up to 6 with --model",
                  d.nmodels);
        goto out;
    }
    size_t np = choose_panels(&d, panel, err);
    if (np == 0) goto out;
    write_plots(fp, &d, panel, np);
    rc = 0;
out:
    for (size_t i = 0; i < d.ns; i++) {
        free(d.s[i].t);
        free(d.s[i].v);
    }
    free(d.s);
    free(d.models);
    for (size_t i = 0; i < d.nlines; i++) free(d.lines[i]);
    free(d.lines);
    pl_free_all(csv, o->nin);
    return rc;
}
