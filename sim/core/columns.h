/* columns.h: what the columns of servesim's CSV files mean - each one's
 * name, a label in words and its unit - in one table per file.  The writers
 * print their headers from it (the time series, the per-request and the
 * cold-start CSVs), `servesim plot` labels its axes from it, and suite
 * `columns` checks that every column a run writes (the results CSV's
 * too) has its entry here.
 *
 * An entry's name is a column's header or a family of them with one '*'
 * (`instance_s_*`: a column per model; `workloads.*.rate_rps`: a setting
 * of any workload), whose label then holds one %s for what the '*'
 * matched.  Families are looked up after exact names, in table order, so a
 * narrower family (`coldstarts_gpu_*`) comes before a wider one
 * (`coldstarts_*`).  A column with no entry is labelled from its unit
 * suffix (`_ms`, `_s`, `_rps`, `_mib`, ...), its words otherwise. */
#ifndef SS_COLUMNS_H
#define SS_COLUMNS_H

#include <stdio.h>

typedef enum ss_csv_kind {
    SS_CSV_RESULTS,    /* a run's or a sweep's results CSV, and its summary */
    SS_CSV_TIMESERIES, /* --timeseries-csv */
    SS_CSV_REQUESTS,   /* --requests-csv */
    SS_CSV_COLDSTARTS, /* --coldstarts-csv */
    SS_CSV_NKINDS
} ss_csv_kind;

/* Column groups of the time series, for ss_columns_header: the groups a
 * run's time series has, or'ed.  The columns come in table order. */
#define SS_COLS_BASE 1u        /* every file */
#define SS_COLS_CONTROL 2u     /* `dispatch:` / `control:` scenarios: cores, rt_mean_s */
#define SS_COLS_LLM 4u         /* `llm:` scenarios (a row per engine): kv_cache */
#define SS_COLS_LLM_MODELS 8u  /* LLM models in `models:`: kv_cache, ttft_mean_s */
#define SS_COLS_ARRIVALS 16u   /* rows written by the substrate (not an `llm:` world's): arrivals */

typedef struct ss_column {
    const char *name;  /* the header, or a family with one '*' */
    const char *label; /* in words, as an axis says it: "mean latency"; a family's has one %s */
    const char *unit;  /* as an axis says it: "ms", "requests/s"; "" for a count, fraction or name */
    unsigned groups;   /* SS_COLS_* (the time series; SS_COLS_BASE elsewhere) */
} ss_column;

/* The table of one kind of file, in its columns' order (families last). */
const ss_column *ss_columns(ss_csv_kind kind, size_t *n);
/* The entry of column `name` in a file of `kind`: an exact name first,
 * then the first family that matches; NULL if none.  *star (if not NULL)
 * gets what a family's '*' matched, malloc'd (NULL for an exact name). */
const ss_column *ss_column_find(ss_csv_kind kind, const char *name, char **star);
/* The axis label of a column, malloc'd: "mean latency (ms)", "replica-seconds
 * of resnet50 (replica-s)"; a column with no entry from its unit suffix
 * ("workloads.images.batch_s" -> "batch, workloads.images (s)"), else its name. */
char *ss_column_label(ss_csv_kind kind, const char *name);
/* The unit of a column as its label gives it ("" when none). */
const char *ss_column_unit(ss_csv_kind kind, const char *name);
/* The header line of a file of `kind`: every exact-named column whose
 * groups meet `groups`, in table order, and a newline. */
void ss_columns_header(FILE *fp, ss_csv_kind kind, unsigned groups);
/* The name of a kind ("results", "timeseries", "requests", "coldstarts"). */
const char *ss_csv_kind_name(ss_csv_kind kind);

#endif
