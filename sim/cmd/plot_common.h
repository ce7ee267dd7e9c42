/* plot_common.h: what the kinds of `servesim plot` share (plot_common.c) and
 * the kinds themselves (plot_ts.c: timeseries; plot_stats.c: cdf, axis).
 *
 * A kind reads its CSVs, checks every field it uses (a bad one is
 * "file:line:col: ...", exit 2, before anything is written) and writes a
 * gnuplot script, its data inline as datablocks, into a stream; plot.c then
 * feeds that script to gnuplot, which writes the PNG (or writes the script
 * itself, --script).  Axis labels come from core/columns.h's table, the
 * same the CSV writers print their headers from.  The script is a function
 * of the inputs and options alone, so the same CSVs give the same script. */
#ifndef SS_PLOT_COMMON_H
#define SS_PLOT_COMMON_H

#include <stdio.h>

#include "core/columns.h"
#include "core/csvread.h"
#include "core/util.h"

typedef struct pl_opts {
    const char **in;        /* the CSV files */
    size_t nin;
    const char *title;      /* NULL: the kind's */
    const char **variants;  /* --variant: only these (none: all) */
    size_t nvariants;
    const char **models;    /* --model: only these */
    size_t nmodels;
    const char **where;     /* --where COL=VALUE: only rows with that value */
    size_t nwhere;
    long replication;       /* --replication K; -1: the kind's default */
    const char *panels;     /* timeseries: comma-separated columns; NULL: the default */
    const char *column;     /* cdf: the value; NULL: latency_ms or duration_s */
    const char *by;         /* cdf, axis: a curve or line per value of this column */
    const char *x, *y;      /* axis: the sweep axis and the metric */
    int logx, logy;         /* 1 log, 0 linear, -1 as the data suggest */
    double xmax_s;          /* timeseries: the time axis ends here; 0: at the last sample */
    unsigned width, height; /* pixels; 0: the kind's */
} pl_opts;

/* One CSV read for a plot: its rows (rows[0] the header) and its kind. */
typedef struct pl_csv {
    ss_csv csv;
    const char *path;
    ss_csv_kind kind;
    char *stem;             /* the file name without folder and .csv: a series' prefix when several files */
} pl_csv;

/* Read every input of o (each a whole CSV with a header); 0, or -1 with
 * err set.  A file whose header is none of servesim's CSVs is refused. */
int pl_load_all(const pl_opts *o, pl_csv **out, ss_err *err);
void pl_free_all(pl_csv *t, size_t n);
/* The column `name` of t, or -1 with err set at the header ("no column
 * 'x' (did you mean 'y'?)"; `what` says what it was wanted for). */
long pl_col(const pl_csv *t, const char *name, const char *what, ss_err *err);
/* Field `col` of data row `row` as a number: 0, 1 when empty (*v NaN)
 * and empty_ok, or -1 with err at the field. */
int pl_num(const pl_csv *t, size_t row, long col, int empty_ok, double *v, ss_err *err);
/* The text of field `col` of row `row` ("" past the end of a short row). */
const char *pl_field(const pl_csv *t, size_t row, long col);
/* Whether data row `row` passes --variant, --model and --where (the
 * columns these name were checked by pl_filters_check). */
int pl_keep(const pl_csv *t, size_t row, const pl_opts *o);
/* Check that the columns --variant, --model and --where name are in t. */
int pl_filters_check(const pl_csv *t, const pl_opts *o, ss_err *err);

/* The gnuplot side: a string as a double-quoted gnuplot string; the set-up
 * of a PNG of w x h pixels (the output is the variable `out`, set before
 * the script); colour i of the series palette. */
void pl_qstr(FILE *fp, const char *s);
void pl_begin(FILE *fp, unsigned w, unsigned h);
const char *pl_colour(size_t i);
/* Line widths falling from the first series to the last, so that one drawn
 * over another's equal values leaves the one below visible. */
double pl_width(size_t i, size_t n);
/* [lo, hi] of values padded so that nothing lies on the frame: pad_lo and
 * pad_hi of the span (in logs when log); a linear range that starts at or
 * above 0 keeps 0 when it would cross it. */
void pl_pad(double lo, double hi, int log, double pad_lo, double pad_hi, double *a, double *b);
/* Tics of a log axis over [lo, hi], 1-2-5 in each decade (every decade
 * alone when that makes more than `most`, 1 to 9 when it makes fewer than 3),
 * labelled as plain numbers; axis "x" or "y". */
void pl_logtics(FILE *fp, const char *axis, double lo, double hi, size_t most);
/* A column's label without its unit ("p99 latency"), for a title; malloc'd. */
char *pl_words(ss_csv_kind kind, const char *name);
/* A number for a legend, with three significant digits. */
void pl_fmt(char *buf, size_t n, double v);

/* The kinds: each writes its script to fp; 0, or -1 with err set. */
int pl_timeseries(const pl_opts *o, FILE *fp, ss_err *err);
int pl_cdf(const pl_opts *o, FILE *fp, ss_err *err);
int pl_axis(const pl_opts *o, FILE *fp, ss_err *err);

#endif
