/* trace_synth.c: arrival-rate shapes turned into piecewise-constant Poisson
 * steps (workload kinds `synthetic` and `azure_functions`,
 * docs/scenarios.md "workloads").
 *
 * `synthetic`: a reproducible one-hour (by default) shape with a given
 * median rate and peak-to-median ratio, after the traces Flashpoint
 * evaluates on (seed flashpoint.md §3.5: Twitter 2018, median 57 req/s and
 * peak-to-median 4.68; Azure Functions 2019, median 18 and 2.54).  The
 * thesis does not say how its traces map to requests, so the shape is a
 * stated model, not the traces: the log-rate is a stationary Gaussian AR(1)
 * process with correlation time `correlation_s` (steps of `step_s`), drawn
 * from the stream (seed, 0, "workload/<name>/shape") so that every
 * replication and every policy sees the same shape; it is then stretched in
 * log space about its median so that the rate's median (the lower median of
 * the steps) is exactly `median_rps` and its largest step exactly
 * `peak_to_median` times that.  Arrivals within the steps are Poisson, from
 * the workload's own arrival stream, times `scale`.  The steps are not
 * held: they are drawn again from the stream whenever they are read
 * (ss_step_iter), so memory does not grow with the length of the shape.
 * `lead_s` puts one step of that length before the shape, at the rate of
 * its first step, so that a run can start already serving the load the
 * shape begins with (measured from `warmup_s`); the shape then begins at
 * start_s + lead_s, its steps and arrivals otherwise the same.
 *
 * `azure_functions`: the public Azure Functions 2019 trace's per-minute
 * invocation counts (invocations_per_function_md.anon.dNN.csv: columns
 * HashOwner, HashApp, HashFunction, Trigger, then 1..1440, one row per
 * function): the row whose HashFunction is `function` (or the sum of all
 * rows with `function: all`), from minute `from_minute` for `minutes`
 * minutes, each minute a step of rate count x scale / 60. */
#include "input/trace_synth.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvread.h"
#include "core/rng.h"

struct ss_synth_shape {
    ss_synth p;
    uint64_t seed;
    char *stream;          /* its random stream's name */
    double start_s;
    size_t n;              /* steps */
    double med, top, a;    /* the normalisation: rate = median x exp(a (x - med)), top -> the peak */
};

/* The AR(1) log-rate, drawn step by step. */
typedef struct synth_gen {
    const ss_synth_shape *s;
    gsl_rng *rng;
    double x, phi, innov;
    size_t i;
    int lead;              /* the lead step is still to come: the first draw is in x */
} synth_gen;

static void gen_start(synth_gen *g, const ss_synth_shape *s)
{
    g->s = s;
    g->rng = ss_rng_stream(s->seed, 0, s->stream);
    g->phi = exp(-s->p.step_s / s->p.correlation_s);
    g->innov = sqrt(1 - g->phi * g->phi);
    g->i = 0;
    g->lead = 0;
}

static double gen_next(synth_gen *g)
{
    g->x = g->i++ ? g->phi * g->x + g->innov * gsl_ran_gaussian_ziggurat(g->rng, 1.0)
                  : gsl_ran_gaussian_ziggurat(g->rng, 1.0);
    return g->x;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

enum { NBINS = 65536 };

static size_t bin_of(double x, double lo, double hi)
{
    double f = hi > lo ? (x - lo) / (hi - lo) * NBINS : 0;
    size_t b = f > 0 ? (size_t)f : 0;
    return b < NBINS ? b : NBINS - 1;
}

ss_synth_shape *ss_synth_shape_new(const ss_synth *p, uint64_t seed, const char *name, double start_s,
                                   size_t *nsteps)
{
    ss_synth_shape *s = ss_xcalloc(1, sizeof *s);
    s->p = *p;
    s->seed = seed;
    s->stream = ss_xasprintf("workload/%s/shape", name);
    s->start_s = start_s;
    s->n = (size_t)ceil(p->length_s / p->step_s - 1e-9);
    if (s->n < 1) s->n = 1;
    synth_gen g;
    /* 1: the extremes */
    double lo = INFINITY, hi = -INFINITY;
    gen_start(&g, s);
    for (size_t i = 0; i < s->n; i++) {
        double x = gen_next(&g);
        if (x < lo) lo = x;
        if (x > hi) hi = x;
    }
    gsl_rng_free(g.rng);
    /* 2: which bin holds the lower median (rank (n - 1) / 2 from 0) */
    uint32_t *count = ss_xcalloc(NBINS, sizeof *count);
    gen_start(&g, s);
    for (size_t i = 0; i < s->n; i++) count[bin_of(gen_next(&g), lo, hi)]++;
    gsl_rng_free(g.rng);
    size_t rank = (s->n - 1) / 2, below = 0, b = 0;
    while (below + count[b] <= rank) below += count[b++];
    /* 3: the values in that bin, sorted */
    double *in = ss_xmalloc((count[b] ? count[b] : 1) * sizeof *in);
    size_t k = 0;
    gen_start(&g, s);
    for (size_t i = 0; i < s->n; i++) {
        double x = gen_next(&g);
        if (bin_of(x, lo, hi) == b) in[k++] = x;
    }
    gsl_rng_free(g.rng);
    qsort(in, k, sizeof *in, cmp_double);
    s->med = in[rank - below];
    s->top = hi;
    free(in);
    free(count);
    /* Stretch about the median: rate = median x exp(a (x - med)), with the
     * largest step at peak_to_median x median. */
    s->a = s->top > s->med ? log(p->peak_to_median) / (s->top - s->med) : 0;
    *nsteps = s->n + (p->lead_s > 0);
    return s;
}

/* The rate of the step whose draw is x. */
static double synth_rate(const ss_synth_shape *s, double x)
{
    double rate = x == s->top ? s->p.median_rps * s->p.peak_to_median : s->p.median_rps * exp(s->a * (x - s->med));
    return rate * s->p.scale;
}

void ss_synth_shape_free(ss_synth_shape *s)
{
    if (!s) return;
    free(s->stream);
    free(s);
}

void ss_steps_begin(ss_step_iter *it, const ss_workload_cfg *w)
{
    it->w = w;
    it->i = 0;
    it->gen = NULL;
    if (w->shape) {
        synth_gen *g = ss_xmalloc(sizeof *g);
        gen_start(g, w->shape);
        if (w->shape->p.lead_s > 0) { /* the lead step's rate is the first step's */
            gen_next(g);
            g->lead = 1;
        }
        it->gen = g;
    }
}

int ss_steps_next(ss_step_iter *it, ss_rate_step *out)
{
    const ss_workload_cfg *w = it->w;
    if (it->i >= w->nsteps) return 0;
    if (!it->gen) {
        *out = w->steps[it->i++];
        return 1;
    }
    const ss_synth_shape *s = w->shape;
    synth_gen *g = it->gen;
    double lead_s = s->p.lead_s;
    if (lead_s > 0 && it->i == 0) { /* the lead, then the first step from the same draw */
        it->i++;
        *out = (ss_rate_step){.until_s = s->start_s + lead_s, .rate_rps = synth_rate(s, g->x)};
        return 1;
    }
    double x = g->lead ? g->x : gen_next(g);
    g->lead = 0;
    size_t k = ++it->i - (lead_s > 0); /* steps of the shape so far */
    *out = (ss_rate_step){.until_s = s->start_s + lead_s + (double)k * s->p.step_s, .rate_rps = synth_rate(s, x)};
    return 1;
}

void ss_steps_end(ss_step_iter *it)
{
    if (it->gen) gsl_rng_free(((synth_gen *)it->gen)->rng);
    free(it->gen);
    it->gen = NULL;
}

int ss_azure_fn_steps(const char *path, const ss_node *wl, const char *function, long from_minute, long minutes,
                      double scale, double start_s, ss_rate_step **steps, size_t *nsteps, ss_err *err)
{
    /* what the scenario says is blamed there, or on the file: key when it says nothing */
    const ss_node *file = ss_map_find(wl, "file"), *fn = ss_map_find(wl, "function");
    const ss_node *from_at = ss_map_find(wl, "from_minute"), *minutes_at = ss_map_find(wl, "minutes");
    ss_csv data, *csv = &data;
    if (ss_csv_read_whole(path, csv, err) < 0) return -1;
    int rc = -1;
    double *count = NULL;
    if (csv->nrows < 1 || csv->rows[0].n < 5 || strcmp(csv->rows[0].f[2], "HashFunction") != 0) {
        ss_err_at(err, path, 1, 1, "expected the Azure Functions 2019 header (HashOwner,HashApp,HashFunction,Trigger,1,...)");
        goto out;
    }
    size_t ncols = csv->rows[0].n - 4; /* minutes in the file */
    if (from_minute < 1 || (size_t)from_minute > ncols) {
        ss_node_err(from_at ? from_at : file, err, "from_minute %ld: %s has minutes 1 to %zu", from_minute, path,
                    ncols);
        goto out;
    }
    if (minutes > 0 && (size_t)(from_minute - 1 + minutes) > ncols) {
        ss_node_err(minutes_at, err, "minutes %ld from minute %ld: %s has minutes 1 to %zu", minutes, from_minute, path,
                    ncols);
        goto out;
    }
    if (minutes <= 0) minutes = (long)ncols - (from_minute - 1);
    count = ss_xcalloc((size_t)minutes, sizeof *count);
    int all = strcmp(function, "all") == 0, found = 0;
    for (size_t r = 1; r < csv->nrows; r++) {
        const ss_csv_row *row = &csv->rows[r];
        if (row->n != csv->rows[0].n) {
            ss_err_at(err, path, row->line, 1, "expected %zu fields, got %zu", csv->rows[0].n, row->n);
            goto out;
        }
        if (!all && strcmp(row->f[2], function) != 0) continue;
        found = 1;
        for (long m = 0; m < minutes; m++) {
            const char *v = row->f[4 + from_minute - 1 + m];
            char *end;
            double c = ss_strtod(v, &end);
            if (end == v || *end || !(c >= 0) || c > 1e12) {
                ss_err_at(err, path, row->line, ss_csv_field_col(row, (size_t)(4 + from_minute - 1 + m)),
                          "minute %ld: expected an invocation count, got '%s'", from_minute + m, v);
                goto out;
            }
            count[m] += c;
        }
    }
    if (!found) {
        ss_node_err(fn ? fn : file, err, "no function with HashFunction '%s' in %s", function, path);
        goto out;
    }
    double total = 0;
    for (long m = 0; m < minutes; m++) total += count[m];
    if (!(total > 0)) {
        ss_node_err(fn ? fn : file, err, "no invocations%s%s%s in minutes %ld to %ld of %s: no arrivals",
                    all ? "" : " of '", all ? "" : function, all ? "" : "'", from_minute, from_minute + minutes - 1, path);
        goto out;
    }
    *steps = ss_xcalloc((size_t)minutes, sizeof **steps);
    for (long m = 0; m < minutes; m++)
        (*steps)[m] = (ss_rate_step){.until_s = start_s + 60.0 * (double)(m + 1), .rate_rps = count[m] * scale / 60};
    *nsteps = (size_t)minutes;
    rc = 0;
out:
    free(count);
    ss_csv_free(csv);
    return rc;
}
