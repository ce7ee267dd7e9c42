/* report.c: formats run results as CSV rows, replication summaries with
 * confidence intervals, and the CLI's comparison table (see report.h). */
#include "cmd/report.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/metrics.h"
#include "input/ensemble_cfg.h"
#include "input/llm_cfg.h"
#include "cmd/table.h"
#include "cmd/text.h"

/* The metric columns, in CSV order.  One table drives the CSV header, the
 * rows, the summary and the printed table, so they cannot disagree. */
typedef struct metric {
    const char *col;
    size_t off;    /* offset in ss_task_result */
    int count;     /* uint64_t counter (else double) */
    double scale;  /* seconds -> milliseconds where the column says _ms */
} metric;

#define M_COUNT(c, f) {c, offsetof(ss_task_result, f), 1, 1.0}
#define M_NUM(c, f) {c, offsetof(ss_task_result, f), 0, 1.0}
#define M_MS(c, f) {c, offsetof(ss_task_result, f), 0, 1e3}
static const metric metrics[] = {
    M_COUNT("arrived", arrived),
    M_COUNT("completed", completed),
    M_COUNT("dropped", dropped),
    M_NUM("throughput_rps", throughput_rps),
    M_MS("latency_mean_ms", latency_mean_s),
    M_MS("latency_p50_ms", latency_p50_s),
    M_MS("latency_p90_ms", latency_p90_s),
    M_MS("latency_p95_ms", latency_p95_s),
    M_MS("latency_p99_ms", latency_p99_s),
    M_MS("latency_p999_ms", latency_p999_s),
    M_MS("latency_max_ms", latency_max_s),
    M_MS("queue_mean_ms", queue_mean_s),
    M_MS("queue_p99_ms", queue_p99_s),
    M_NUM("wait_prob", wait_prob),
};
enum { NMETRICS = sizeof metrics / sizeof *metrics };

static double metric_value(const metric *m, const ss_task_result *t)
{
    const char *p = (const char *)t + m->off;
    if (m->count) {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    double v;
    memcpy(&v, p, sizeof v);
    return v * m->scale;
}

typedef struct entry {
    char *scenario, *variant;
    double duration_s, warmup_s; /* the scenario's: arrivals end, measurement starts */
    int fixed_arrivals;          /* every workload's arrivals are the same in every replication */
    int counts_window;           /* its world counts completions by the end of arrivals */
    ss_setting *settings;
    size_t nsettings;
    char **devices;
    ss_run_result r;
} entry;

struct ss_report {
    entry *e;
    size_t n;
    char **keys;     /* union of setting keys, first-seen order */
    size_t nkeys;
    char **devices;  /* union of device names, first-seen order */
    size_t ndevices;
    int util_mean;   /* one util_mean column instead of a column per device (UTIL_COLUMNS_MAX) */
    char **extras;   /* union of extra columns (ss_extra), first-seen order */
    size_t nextras;
};

ss_report *ss_report_new(void) { return ss_xcalloc(1, sizeof(ss_report)); }

/* Devices get a util_ column only if something is deployed on them (a
 * topology may bring hundreds of GPUs, most of them idle); a scenario that
 * deploys on more than UTIL_COLUMNS_MAX devices gets one column instead,
 * util_mean: the mean over the devices that held an instance. */
#define UTIL_COLUMNS_MAX 64

/* The util_ columns sc brings: a column per device with something deployed
 * on it, or util_mean past UTIL_COLUMNS_MAX of them. */
static void declare_devices(ss_report *rep, const ss_scenario *sc)
{
    uint8_t *deployed = ss_xcalloc(sc->ndevices + 1, 1);
    size_t n = 0;
    for (size_t k = 0; k < sc->ndeploys; k++)
        if (!deployed[sc->deploys[k].device]) {
            deployed[sc->deploys[k].device] = 1;
            n++;
        }
    const ss_ensemble_cfg *en = sc->ensemble; /* an ensemble's workers: its matrix's non-zero entries */
    for (uint32_t d = 0; en && d < en->ndevices; d++)
        for (uint32_t m = 0; m < en->nmembers; m++)
            if (en->matrix[d * en->nmembers + m] && !deployed[d]) {
                deployed[d] = 1;
                n++;
            }
    if (n > UTIL_COLUMNS_MAX) rep->util_mean = 1;
    else
        for (size_t d = 0; d < sc->ndevices; d++)
            if (deployed[d]) ss_intern(&rep->devices, &rep->ndevices, sc->devices[d].name);
    free(deployed);
}

/* Are sc's arrivals the same in every replication: a trace, or times drawn
 * from no random stream?  (A closed loop's follow its completions.) */
static int fixed_arrivals(const ss_scenario *sc)
{
    if (sc->llm) return sc->llm->trace_path != NULL;
    for (size_t i = 0; i < sc->nworkloads; i++) {
        const ss_workload_cfg *w = &sc->workloads[i];
        const ss_dist *d = &w->interarrival;
        int fixed = w->kind == SS_WL_TRACE || w->kind == SS_WL_DETERMINISTIC ||
                    ((w->kind == SS_WL_INTERARRIVAL || w->kind == SS_WL_NORMAL) &&
                     (d->kind == SS_DIST_DETERMINISTIC || (d->kind == SS_DIST_NORMAL && d->p2 == 0)));
        if (!fixed) return 0;
    }
    return sc->nworkloads > 0;
}

void ss_report_add(ss_report *rep, const ss_scenario *sc, ss_run_result *r)
{
    rep->e = ss_xrealloc(rep->e, (rep->n + 1) * sizeof *rep->e);
    entry *e = &rep->e[rep->n++];
    e->scenario = ss_xstrdup(sc->name);
    e->variant = ss_xstrdup(sc->variant);
    e->duration_s = sc->duration_s;
    e->warmup_s = sc->warmup_s;
    e->fixed_arrivals = fixed_arrivals(sc);
    e->counts_window = 1;
    e->nsettings = sc->nsettings;
    e->settings = ss_xcalloc(sc->nsettings + 1, sizeof *e->settings);
    for (size_t i = 0; i < sc->nsettings; i++) {
        e->settings[i].key = ss_xstrdup(sc->settings[i].key);
        e->settings[i].value = ss_xstrdup(sc->settings[i].value);
        ss_intern(&rep->keys, &rep->nkeys, sc->settings[i].key);
    }
    e->devices = ss_xcalloc(sc->ndevices + 1, sizeof *e->devices);
    for (size_t d = 0; d < sc->ndevices; d++) e->devices[d] = ss_xstrdup(sc->devices[d].name);
    declare_devices(rep, sc);
    for (size_t x = 0; x < r->nextras; x++) ss_intern(&rep->extras, &rep->nextras, r->extras[x].col);
    e->r = *r;
    memset(r, 0, sizeof *r);
}

static const char *setting_of(const entry *e, const char *key)
{
    for (size_t i = 0; i < e->nsettings; i++)
        if (strcmp(e->settings[i].key, key) == 0) return e->settings[i].value;
    return "";
}

static double util_of(const entry *e, const char *dev)
{
    for (size_t d = 0; d < e->r.ndevices; d++)
        if (strcmp(e->devices[d], dev) == 0) return e->r.util[d];
    return NAN;
}

/* Extra column `col` of e's run; NaN if the run has none. */
static double extra_of(const entry *e, const char *col)
{
    for (size_t x = 0; x < e->r.nextras; x++)
        if (strcmp(e->r.extras[x].col, col) == 0) return e->r.extras[x].value;
    return NAN;
}

static void header(const ss_report *rep, FILE *fp, int with_rep)
{
    fputs("scenario,variant", fp);
    if (with_rep) fputs(",replication,seed", fp);
    else fputs(",replications,seed", fp);
    for (size_t k = 0; k < rep->nkeys; k++) {
        fputc(',', fp);
        ss_csv_field(fp, rep->keys[k]);
    }
    fputs(",model", fp);
}

static void lead(const ss_report *rep, const entry *e, FILE *fp, unsigned long long repl)
{
    ss_csv_field(fp, e->scenario);
    fputc(',', fp);
    ss_csv_field(fp, e->variant);
    fprintf(fp, ",%llu,%llu", repl, (unsigned long long)e->r.seed);
    for (size_t k = 0; k < rep->nkeys; k++) {
        fputc(',', fp);
        ss_csv_field(fp, setting_of(e, rep->keys[k]));
    }
}

static void print_num(FILE *fp, const metric *m, double v)
{
    if (m->count) fprintf(fp, ",%.0f", v);
    else fprintf(fp, ",%.6f", v);
}

ss_report *ss_report_new_like(const ss_report *layout)
{
    ss_report *rep = ss_report_new();
    for (size_t k = 0; k < layout->nkeys; k++) ss_intern(&rep->keys, &rep->nkeys, layout->keys[k]);
    for (size_t d = 0; d < layout->ndevices; d++) ss_intern(&rep->devices, &rep->ndevices, layout->devices[d]);
    rep->util_mean = layout->util_mean;
    ss_report_declare_extras(rep, (const char *const *)layout->extras, layout->nextras);
    return rep;
}

void ss_report_declare(ss_report *rep, const ss_scenario *sc)
{
    for (size_t i = 0; i < sc->nsettings; i++) ss_intern(&rep->keys, &rep->nkeys, sc->settings[i].key);
    declare_devices(rep, sc);
}

void ss_report_declare_extras(ss_report *rep, const char *const *cols, size_t n)
{
    for (size_t x = 0; x < n; x++) ss_intern(&rep->extras, &rep->nextras, cols[x]);
}

void ss_report_csv(const ss_report *rep, FILE *fp)
{
    ss_report_csv_header(rep, fp);
    ss_report_csv_rows(rep, fp);
}

void ss_report_csv_header(const ss_report *rep, FILE *fp)
{
    header(rep, fp, 1);
    for (size_t i = 0; i < NMETRICS; i++) fprintf(fp, ",%s", metrics[i].col);
    for (size_t d = 0; d < rep->ndevices; d++) {
        fputs(",", fp);
        char *c = ss_xasprintf("util_%s", rep->devices[d]);
        ss_csv_field(fp, c);
        free(c);
    }
    if (rep->util_mean) fputs(",util_mean", fp);
    for (size_t x = 0; x < rep->nextras; x++) {
        fputc(',', fp);
        ss_csv_field(fp, rep->extras[x]);
    }
    fputc('\n', fp);
}

void ss_report_csv_rows(const ss_report *rep, FILE *fp)
{
    for (size_t i = 0; i < rep->n; i++) {
        const entry *e = &rep->e[i];
        for (size_t t = 0; t < e->r.ntasks; t++) {
            lead(rep, e, fp, e->r.replication);
            fputc(',', fp);
            ss_csv_field(fp, e->r.tasks[t].name);
            for (size_t m = 0; m < NMETRICS; m++) print_num(fp, &metrics[m], metric_value(&metrics[m], &e->r.tasks[t]));
            for (size_t d = 0; d < rep->ndevices; d++) {
                double u = util_of(e, rep->devices[d]);
                if (isnan(u)) fputc(',', fp);
                else fprintf(fp, ",%.6f", u);
            }
            if (rep->util_mean) fprintf(fp, ",%.6f", e->r.util_mean);
            for (size_t x = 0; x < rep->nextras; x++) {
                double v = extra_of(e, rep->extras[x]);
                if (isnan(v)) fputc(',', fp);
                else fprintf(fp, ",%.6f", v);
            }
            fputc('\n', fp);
        }
    }
}

/* Entries of one variant are contiguous (the CLI runs replications in a row). */
static size_t group_end(const ss_report *rep, size_t i)
{
    size_t j = i + 1;
    while (j < rep->n && strcmp(rep->e[j].variant, rep->e[i].variant) == 0) j++;
    return j;
}

/* Mean and 95% half-width of metric m of task t over entries [i, j). */
static void summarise(const ss_report *rep, size_t i, size_t j, size_t t, const metric *m, double *mean,
                      double *hw)
{
    double *x = ss_xcalloc(j - i, sizeof *x);
    for (size_t k = i; k < j; k++) x[k - i] = metric_value(m, &rep->e[k].r.tasks[t]);
    *hw = ss_ci95(x, j - i, mean);
    if (j - i < 2) *mean = x[0];
    free(x);
}

/* Mean and 95% half-width of extra column col over the entries [i, j)
 * that have it, as two CSV cells. */
static void summarise_extra(const ss_report *rep, size_t i, size_t j, const char *col, FILE *fp)
{
    double *x = ss_xcalloc(j - i, sizeof *x);
    size_t n = 0;
    for (size_t k = i; k < j; k++) {
        double v = extra_of(&rep->e[k], col);
        if (!isnan(v)) x[n++] = v;
    }
    double mean = NAN, hw = NAN;
    if (n) hw = ss_ci95(x, n, &mean);
    if (n == 1) mean = x[0];
    fputc(',', fp);
    if (!isnan(mean)) fprintf(fp, "%.6f", mean);
    fputc(',', fp);
    if (!isnan(hw)) fprintf(fp, "%.6f", hw);
    free(x);
}

int ss_report_summary_csv(const ss_report *rep, FILE *fp)
{
    int any = 0;
    for (size_t i = 0; i < rep->n; i = group_end(rep, i)) any |= group_end(rep, i) - i > 1;
    if (!any) return 0;
    header(rep, fp, 0);
    for (size_t m = 0; m < NMETRICS; m++) fprintf(fp, ",%s,%s_ci95", metrics[m].col, metrics[m].col);
    for (size_t x = 0; x < rep->nextras; x++) {
        fputc(',', fp);
        ss_csv_field(fp, rep->extras[x]);
        char *c = ss_xasprintf("%s_ci95", rep->extras[x]);
        fputc(',', fp);
        ss_csv_field(fp, c);
        free(c);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < rep->n; i = group_end(rep, i)) {
        size_t j = group_end(rep, i);
        const entry *e = &rep->e[i];
        for (size_t t = 0; t < e->r.ntasks; t++) {
            lead(rep, e, fp, j - i);
            fputc(',', fp);
            ss_csv_field(fp, e->r.tasks[t].name);
            for (size_t m = 0; m < NMETRICS; m++) {
                double mean, hw;
                summarise(rep, i, j, t, &metrics[m], &mean, &hw);
                fprintf(fp, ",%.6f,", mean);
                if (!isnan(hw)) fprintf(fp, "%.6f", hw);
            }
            for (size_t x = 0; x < rep->nextras; x++) summarise_extra(rep, i, j, rep->extras[x], fp);
            fputc('\n', fp);
        }
    }
    return 1;
}

/* The autoscaling columns of the printed table, from the extra columns of
 * entry e's run: task t's cold starts, their mean duration and its
 * replica-seconds (`what` 0, 1, 2); the last task ("all") adds its models'
 * up (the cold starts' mean weighted by their counts).  NaN where the run
 * has none: a model not autoscaled, not placed, or no cold start done. */
static double scaling_value(const entry *e, size_t t, int what)
{
    static const char *const prefix[] = {"coldstarts_", "coldstart_mean_s_", "instance_s_"};
    size_t n = e->r.ntasks;
    if (n > 1 && t == n - 1) {
        double sum = NAN, colds = 0, cold_s = 0;
        for (size_t k = 0; k + 1 < n; k++) {
            double v = scaling_value(e, k, what == 1 ? 0 : what);
            if (isnan(v)) continue;
            sum = isnan(sum) ? v : sum + v;
            double mean = what == 1 ? scaling_value(e, k, 1) : NAN;
            if (!isnan(mean)) colds += v, cold_s += v * mean;
        }
        return what != 1 ? sum : colds > 0 ? cold_s / colds : NAN;
    }
    char *col = ss_xasprintf("%s%s", prefix[what], e->r.tasks[t].name);
    double v = extra_of(e, col);
    free(col);
    if (what == 1 && !(scaling_value(e, t, 0) > 0)) return NAN;
    return v;
}

/* The utilisation the table shows for a run: the mean over the devices with
 * something deployed (util_mean past UTIL_COLUMNS_MAX of them); else an edge
 * device's workers', or the LLM engines' busy share; NaN if none. */
static double device_util(const ss_report *rep, const entry *e)
{
    if (rep->util_mean) return e->r.util_mean;
    double s = 0;
    size_t nd = 0;
    for (size_t d = 0; d < rep->ndevices; d++) {
        double ud = util_of(e, rep->devices[d]);
        if (!isnan(ud)) s += ud, nd++;
    }
    if (nd) return s / (double)nd;
    static const char *const other[] = {"util_workers", "engine_busy_frac"};
    for (size_t k = 0; k < 2; k++)
        if (!isnan(extra_of(e, other[k]))) return extra_of(e, other[k]);
    return 0;
}

/* A variant is flagged when more than this share of its requests made
 * after the warm-up were not done when arrivals ended (ss_report_warn). */
#define UNSTABLE_SHORT 0.05

/* ---- the printed table ----------------------------------------------------------- */

/* How a column's numbers read: counts as integers, a rate with one decimal,
 * times (kept in seconds) in ms or s by the column's largest, ... */
typedef enum { C_COUNT, C_RATE, C_TIME, C_COLDS, C_SECONDS, C_REPLICAS, C_REPLICA_S, C_PERCENT } cell_kind;

typedef struct tcol {
    const char *title;  /* the unit follows for C_TIME ("mean" -> "mean ms") */
    cell_kind kind;
    const char *metric; /* a metric column, or */
    const char *extra;  /* a run-level extra column (seconds), or */
    int scaling;        /* scaling_value's what + 1, or */
    int special;        /* 1 replicas (replica-s / window), 2 device util */
} tcol;

/* A latency column switches from ms to s from this many ms up (its largest
 * mean), so that "400000.000" reads "400.000" in s. */
#define TABLE_S_FROM_MS 1000.0

static double column_value(const ss_report *rep, const entry *e, size_t t, const tcol *c)
{
    if (c->metric) {
        for (size_t m = 0; m < NMETRICS; m++)
            if (strcmp(metrics[m].col, c->metric) == 0) {
                double v = metric_value(&metrics[m], &e->r.tasks[t]);
                return metrics[m].scale == 1e3 ? v / 1e3 : v; /* times in seconds here */
            }
        return NAN;
    }
    if (c->extra) return extra_of(e, c->extra);
    if (c->scaling) return scaling_value(e, t, c->scaling - 1);
    if (c->special == 1) return e->r.window_s > 0 ? scaling_value(e, t, 2) / e->r.window_s : NAN;
    return device_util(rep, e);
}

/* Mean and 95% half-width (NaN with fewer than two) of column c of task t
 * over the entries [i, j) that have it; *n of them. */
static void column_stats(const ss_report *rep, size_t i, size_t j, size_t t, const tcol *c, double *mean, double *hw,
                         size_t *n)
{
    double *x = ss_xcalloc(j - i, sizeof *x);
    *n = 0;
    for (size_t k = i; k < j; k++) {
        double v = column_value(rep, &rep->e[k], t, c);
        if (!isnan(v)) x[(*n)++] = v;
    }
    *mean = *hw = NAN;
    if (*n) *hw = ss_ci95(x, *n, mean);
    if (*n == 1) *mean = x[0];
    free(x);
}

/* The rows of the table: (variant group [i, j), task t); "all" left out
 * where it would repeat a lone task's row. */
typedef struct trow {
    size_t i, j, t;
} trow;

static trow *table_rows(const ss_report *rep, size_t *n)
{
    trow *rows = NULL;
    *n = 0;
    for (size_t i = 0; i < rep->n; i = group_end(rep, i))
        for (size_t t = 0; t < rep->e[i].r.ntasks; t++) {
            if (rep->e[i].r.ntasks == 2 && t == 1) continue;
            rows = ss_xrealloc(rows, (*n + 1) * sizeof *rows);
            rows[(*n)++] = (trow){i, group_end(rep, i), t};
        }
    return rows;
}

static int has_extra(const ss_report *rep, const char *prefix)
{
    for (size_t x = 0; x < rep->nextras; x++)
        if (strncmp(rep->extras[x], prefix, strlen(prefix)) == 0) return 1;
    return 0;
}

/* The columns this report's table shows (at most 16). */
static size_t table_columns(const ss_report *rep, tcol *cols)
{
    size_t n = 0;
    cols[n++] = (tcol){"completed", C_COUNT, "completed", 0, 0, 0};
    cols[n++] = (tcol){"dropped", C_COUNT, "dropped", 0, 0, 0};
    cols[n++] = (tcol){"tput/s", C_RATE, "throughput_rps", 0, 0, 0};
    int scaling = has_extra(rep, "instance_s_");
    if (scaling) { /* replicas come and go: end to end (cold starts waited for), what they cost */
        cols[n++] = (tcol){"e2e mean", C_TIME, "latency_mean_ms", 0, 0, 0};
        cols[n++] = (tcol){"e2e p99", C_TIME, "latency_p99_ms", 0, 0, 0};
    } else {
        cols[n++] = (tcol){"mean", C_TIME, "latency_mean_ms", 0, 0, 0};
        cols[n++] = (tcol){"p50", C_TIME, "latency_p50_ms", 0, 0, 0};
        cols[n++] = (tcol){"p99", C_TIME, "latency_p99_ms", 0, 0, 0};
        cols[n++] = (tcol){"p99.9", C_TIME, "latency_p999_ms", 0, 0, 0};
    }
    if (has_extra(rep, "ttft_mean_s")) { /* LLM serving */
        cols[n++] = (tcol){"TTFT mean", C_TIME, 0, "ttft_mean_s", 0, 0};
        cols[n++] = (tcol){"TTFT p99", C_TIME, 0, "ttft_p99_s", 0, 0};
        cols[n++] = (tcol){"TPOT mean", C_TIME, 0, "tpot_mean_s", 0, 0};
    }
    if (scaling) {
        cols[n++] = (tcol){"cold starts", C_COLDS, 0, 0, 1, 0};
        cols[n++] = (tcol){"cold mean s", C_SECONDS, 0, 0, 2, 0};
        cols[n++] = (tcol){"replicas", C_REPLICAS, 0, 0, 0, 1};
        cols[n++] = (tcol){"replica-s", C_REPLICA_S, 0, 0, 3, 0};
    }
    cols[n++] = (tcol){"dev util", C_PERCENT, 0, 0, 0, 2};
    return n;
}

/* The text of a cell, and of its half-width (none: "" ), by the column's kind;
 * `scale` divides times (1e-3: ms). */
static void cell_text(const tcol *c, double mean, double hw, size_t n, double scale, char *text, char *pm, size_t len)
{
    pm[0] = '\0';
    if (isnan(mean)) {
        snprintf(text, len, "-");
        return;
    }
    int prec = 0, with_pm = n > 1 && !isnan(hw);
    switch (c->kind) {
    case C_COUNT: with_pm = 0; break; /* the mean count: an integer */
    case C_RATE: prec = 1, with_pm = 0; break;
    case C_TIME: prec = 3, mean /= scale, hw /= scale; break;
    case C_COLDS: prec = mean == floor(mean) && !(hw > 0) ? 0 : 1; break; /* a count, 0 not 0.0 */
    case C_SECONDS: case C_REPLICAS: prec = 1; break;
    case C_REPLICA_S: break;
    case C_PERCENT: snprintf(text, len, "%.1f%%", 100 * mean); return;
    }
    snprintf(text, len, "%.*f", prec, mean);
    if (with_pm) snprintf(pm, len, "%.*f", prec, hw);
}

/* What the notes under the table say of a variant whose replications are
 * alike: 1 they replay one arrival sequence, 2 ... and gave identical
 * results, 3 identical results (no arrivals fixed); 0 neither. */
static int alike(const ss_report *rep, size_t i, size_t j, const tcol *cols, size_t ncols)
{
    if (j - i < 2) return 0;
    int fixed = 1, same = 1;
    for (size_t k = i; k < j; k++) fixed &= rep->e[k].fixed_arrivals;
    for (size_t t = 0; t < rep->e[i].r.ntasks; t++)
        for (size_t c = 0; c < ncols; c++) {
            double mean, hw;
            size_t n;
            if (cols[c].kind != C_TIME) continue;
            column_stats(rep, i, j, t, &cols[c], &mean, &hw, &n);
            if (n > 1 && hw > 1e-12 * fabs(mean)) same = 0; /* identical values: 0 up to rounding */
        }
    return fixed ? 1 + same : same ? 3 : 0;
}

static void note_alike(const ss_report *rep, const tcol *cols, size_t ncols, FILE *fp)
{
    static const char *const say[] = {
        NULL,
        "replay the same arrivals (a trace, or no random arrivals): %s is the spread of the other draws (service "
        "times), not of the arrivals",
        "replay the same arrivals and draw nothing else: identical runs, so %s 0 says nothing of the uncertainty",
        "gave identical results: %s 0 says nothing of the uncertainty"};
    for (int kind = 1; kind <= 3; kind++) {
        size_t count = 0;
        char *names = NULL;
        for (size_t i = 0; i < rep->n; i = group_end(rep, i)) {
            if (alike(rep, i, group_end(rep, i), cols, ncols) != kind) continue;
            const char *v = rep->e[i].variant[0] ? rep->e[i].variant : "-";
            char *more = ss_xasprintf("%s%s%s", names ? names : "", names ? ", " : "", v);
            free(names);
            names = more;
            count++;
        }
        if (!count) continue;
        fprintf(fp, "(the replications of %s %s ", count == 1 ? "variant" : "variants", names);
        fprintf(fp, say[kind], ss_text_pm());
        fputs(")\n", fp);
        free(names);
    }
}

void ss_report_print(const ss_report *rep, FILE *fp)
{
    if (rep->n == 0) return;
    tcol cols[16];
    size_t ncols = table_columns(rep, cols), nrows;
    trow *rows = table_rows(rep, &nrows);
    /* each time column in ms, or in s where its largest mean reaches TABLE_S_FROM_MS */
    double scale[16];
    for (size_t c = 0; c < ncols; c++) {
        double most = 0;
        for (size_t r = 0; cols[c].kind == C_TIME && r < nrows; r++) {
            double mean, hw;
            size_t n;
            column_stats(rep, rows[r].i, rows[r].j, rows[r].t, &cols[c], &mean, &hw, &n);
            if (fabs(mean) > most) most = fabs(mean);
        }
        scale[c] = most * 1e3 >= TABLE_S_FROM_MS ? 1 : 1e-3;
    }
    ss_table *tab = ss_table_new();
    ss_table_col(tab, "variant", 1);
    ss_table_col(tab, "model", 1);
    for (size_t c = 0; c < ncols; c++) {
        char *title = cols[c].kind == C_TIME ? ss_xasprintf("%s %s", cols[c].title, scale[c] == 1 ? "s" : "ms")
                                             : ss_xstrdup(cols[c].title);
        ss_table_col(tab, title, 0);
        free(title);
    }
    for (size_t r = 0; r < nrows; r++) {
        const entry *e = &rep->e[rows[r].i];
        ss_table_row(tab);
        ss_table_cell(tab, 0, e->variant[0] ? e->variant : "-", NULL);
        ss_table_cell(tab, 1, e->r.tasks[rows[r].t].name, NULL);
        for (size_t c = 0; c < ncols; c++) {
            double mean, hw;
            size_t n;
            char text[64], pm[64];
            column_stats(rep, rows[r].i, rows[r].j, rows[r].t, &cols[c], &mean, &hw, &n);
            cell_text(&cols[c], mean, hw, n, scale[c], text, pm, sizeof text);
            ss_table_cell(tab, 2 + c, text, pm[0] ? pm : NULL);
        }
    }
    ss_table_print(tab, fp);
    ss_table_free(tab);
    free(rows);
    /* the notes: what the signs and the columns mean */
    size_t nrep = group_end(rep, 0);
    int same = 1;
    for (size_t i = 0; i < rep->n; i = group_end(rep, i)) same &= group_end(rep, i) - i == nrep;
    if (!same)
        fprintf(fp, "(replications differ between variants; %s is the 95%% confidence half-width)\n", ss_text_pm());
    else if (nrep > 1)
        fprintf(fp, "(%zu replications per variant; %s is the 95%% confidence half-width)\n", nrep, ss_text_pm());
    note_alike(rep, cols, ncols, fp);
    if (has_extra(rep, "instance_s_"))
        fprintf(fp, "(e2e = arrival to completion, waits for cold starts included; cold starts = replicas started "
                    "and up, cold mean s = their mean start-up time; replica-s = replica-seconds in the measured "
                    "window, replicas = replica-s / the window)\n");
    if (has_extra(rep, "ttft_mean_s"))
        fprintf(fp, "(TTFT = time to first token, TPOT = time per output token after the first: over every LLM "
                    "request of the run)\n");
    fprintf(fp, "(dev util = busy share of the devices in use, their mean: the run's, the same on each row of a "
                "variant)\n");
}

void ss_report_warn(const ss_report *rep, FILE *fp)
{
    /* per variant: the requests made after the warm-up against the completions by the end of arrivals */
    for (size_t i = 0; i < rep->n; i = group_end(rep, i)) {
        size_t j = group_end(rep, i);
        double arrived = 0, done = 0, dropped = 0, inflight = 0;
        int known = 1;
        for (size_t k = i; k < j; k++) {
            const entry *e = &rep->e[k];
            const ss_task_result *all = &e->r.tasks[e->r.ntasks - 1];
            /* else no count: window_throughput_rps is 0 */
            known &= e->counts_window && isfinite(e->duration_s) && e->duration_s > e->warmup_s;
            arrived += (double)all->arrived;
            dropped += (double)all->dropped;
            done += e->r.window_throughput_rps * (e->duration_s - e->warmup_s);
            /* what a stable system still holds when arrivals end (Little: throughput x mean latency), with a
             * quarter to spare (an overloaded one holds about twice that: latencies grow through the run) */
            inflight += 1.25 * e->r.window_throughput_rps * all->latency_mean_s;
        }
        if (!known || arrived <= 0 || done >= (1 - UNSTABLE_SHORT) * arrived || done + inflight >= arrived) continue;
        double per = (double)(j - i);
        char *drops = dropped > 0 ? ss_xasprintf(", %.0f of them dropped", dropped / per) : ss_xstrdup("");
        fprintf(fp,
                "servesim: warning: variant %s: %.0f%% of the requests made after the warm-up (%.0f of %.0f%s) were "
                "not completed when arrivals ended%s: the load outran the service (unstable or overloaded), and its "
                "latencies grow with the run's length\n",
                rep->e[i].variant[0] ? rep->e[i].variant : "-", 100 * (1 - done / arrived), (arrived - done) / per,
                arrived / per, j - i > 1 ? ", a replication's mean" : "", drops);
        free(drops);
    }
}

void ss_report_free(ss_report *rep)
{
    if (!rep) return;
    for (size_t i = 0; i < rep->n; i++) {
        entry *e = &rep->e[i];
        free(e->scenario);
        free(e->variant);
        for (size_t k = 0; k < e->nsettings; k++) {
            free(e->settings[k].key);
            free(e->settings[k].value);
        }
        free(e->settings);
        for (size_t d = 0; d < e->r.ndevices; d++) free(e->devices[d]);
        free(e->devices);
        ss_run_result_free(&e->r);
    }
    for (size_t k = 0; k < rep->nkeys; k++) free(rep->keys[k]);
    for (size_t d = 0; d < rep->ndevices; d++) free(rep->devices[d]);
    for (size_t x = 0; x < rep->nextras; x++) free(rep->extras[x]);
    free(rep->extras);
    free(rep->keys);
    free(rep->devices);
    free(rep->e);
    free(rep);
}
