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

void ss_report_add(ss_report *rep, const ss_scenario *sc, ss_run_result *r)
{
    rep->e = ss_xrealloc(rep->e, (rep->n + 1) * sizeof *rep->e);
    entry *e = &rep->e[rep->n++];
    e->scenario = ss_xstrdup(sc->name);
    e->variant = ss_xstrdup(sc->variant);
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

static const metric *metric_named(const char *col)
{
    for (size_t m = 0; m < NMETRICS; m++)
        if (strcmp(metrics[m].col, col) == 0) return &metrics[m];
    return NULL;
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

/* One right-aligned cell `w` columns wide: mean (and its 95% half-width
 * when there is one) of scaling_value over the entries [i, j); "-" if none
 * of them has it. */
static void scaling_cell(const ss_report *rep, size_t i, size_t j, size_t t, int what, int w, int prec, FILE *fp)
{
    double *x = ss_xcalloc(j - i, sizeof *x), mean = NAN, hw = NAN;
    size_t n = 0;
    for (size_t k = i; k < j; k++) {
        double v = scaling_value(&rep->e[k], t, what);
        if (!isnan(v)) x[n++] = v;
    }
    if (n) hw = ss_ci95(x, n, &mean);
    if (n == 1) mean = x[0];
    free(x);
    char cell[96];
    if (isnan(mean)) snprintf(cell, sizeof cell, "-");
    else if (isnan(hw)) snprintf(cell, sizeof cell, "%.*f", what == 0 && j - i == 1 ? 0 : prec, mean);
    else snprintf(cell, sizeof cell, "%.*f %s%.*f", prec, mean, ss_text_pm(), prec, hw);
    int len = (int)ss_text_cols(cell); /* display width: a UTF-8 sign is two bytes, one column */
    fprintf(fp, " %*s%s", len < w ? w - len : 0, "", cell);
}

void ss_report_print(const ss_report *rep, FILE *fp)
{
    static const char *const shown[] = {"completed", "dropped", "throughput_rps", "latency_mean_ms",
                                        "latency_p50_ms", "latency_p99_ms", "latency_p999_ms"};
    static const char *const titles[] = {"completed", "dropped", "tput/s", "mean ms", "p50 ms", "p99 ms", "p99.9 ms"};
    /* With an autoscaler (instance_s_ columns): end-to-end mean and p99 in seconds (cold starts take
     * seconds to minutes), then cold starts and replica-seconds. */
    static const char *const shown_as[] = {"completed", "dropped", "throughput_rps", "latency_mean_ms",
                                           "latency_p99_ms"};
    static const char *const titles_as[] = {"completed", "dropped", "tput/s", "e2e mean s", "e2e p99 s"};
    static const char *const titles_scaling[] = {"cold starts", "cold mean s", "replica-s"};
    static const int width_scaling[] = {14, 14, 16}, prec_scaling[] = {1, 1, 0};
    int scaling = 0;
    for (size_t x = 0; x < rep->nextras; x++) scaling |= strncmp(rep->extras[x], "instance_s_", 11) == 0;
    const char *const *cols = scaling ? shown_as : shown, *const *heads = scaling ? titles_as : titles;
    size_t ncols = scaling ? sizeof shown_as / sizeof *shown_as : sizeof shown / sizeof *shown;
    if (rep->n == 0) return;
    size_t nrep = group_end(rep, 0);
    fprintf(fp, "%-16s %-16s", "variant", "model");
    for (size_t c = 0; c < ncols; c++) fprintf(fp, " %*s", c < 3 ? 10 : 17, heads[c]);
    for (size_t c = 0; scaling && c < 3; c++) fprintf(fp, " %*s", width_scaling[c], titles_scaling[c]);
    fprintf(fp, " %7s\n", "util");
    for (size_t i = 0; i < rep->n; i = group_end(rep, i)) {
        size_t j = group_end(rep, i);
        const entry *e = &rep->e[i];
        for (size_t t = 0; t < e->r.ntasks; t++) {
            if (e->r.ntasks == 2 && t == 1) continue; /* "all" would repeat the one model's row */
            fprintf(fp, "%-16s %-16s", e->variant[0] ? e->variant : "-", e->r.tasks[t].name);
            for (size_t c = 0; c < ncols; c++) {
                const metric *m = metric_named(cols[c]);
                double mean, hw;
                summarise(rep, i, j, t, m, &mean, &hw);
                if (scaling && c >= 3) mean /= 1e3, hw /= 1e3;
                if (c < 3) fprintf(fp, " %10.*f", m->count ? 0 : 1, mean);
                else if (isnan(hw)) fprintf(fp, " %17.3f", mean);
                else { /* right-aligned however wide, in display columns */
                    char cell[96];
                    snprintf(cell, sizeof cell, "%9.3f %s%6.3f", mean, ss_text_pm(), hw);
                    if (ss_text_cols(cell) > 17) snprintf(cell, sizeof cell, "%.3f %s%.3f", mean, ss_text_pm(), hw);
                    int len = (int)ss_text_cols(cell);
                    fprintf(fp, " %*s%s", len < 17 ? 17 - len : 0, "", cell);
                }
            }
            for (int c = 0; scaling && c < 3; c++) scaling_cell(rep, i, j, t, c, width_scaling[c], prec_scaling[c], fp);
            double u = 0;
            for (size_t k = i; k < j; k++) { /* mean over the devices with something deployed */
                double s = 0;
                size_t nd = 0;
                for (size_t d = 0; d < rep->ndevices; d++) {
                    double ud = util_of(&rep->e[k], rep->devices[d]);
                    if (!isnan(ud)) s += ud, nd++;
                }
                for (size_t x = 0; nd == 0 && x < rep->e[k].r.nextras; x++) /* an edge device: its workers */
                    if (strcmp(rep->e[k].r.extras[x].col, "util_workers") == 0 && !isnan(rep->e[k].r.extras[x].value))
                        s = rep->e[k].r.extras[x].value, nd = 1;
                if (rep->util_mean) s = rep->e[k].r.util_mean, nd = 1;
                u += nd ? s / (double)nd : 0;
            }
            fprintf(fp, " %6.1f%%\n", 100.0 * u / (double)(j - i));
        }
    }
    int same = 1;
    for (size_t i = 0; i < rep->n; i = group_end(rep, i)) same &= group_end(rep, i) - i == nrep;
    if (!same)
        fprintf(fp, "(replications differ between variants; %s is the 95%% confidence half-width; util = mean over "
                    "the devices in use)\n", ss_text_pm());
    else if (nrep > 1)
        fprintf(fp, "(%zu replications per variant; %s is the 95%% confidence half-width; util = mean over the "
                    "devices in use)\n",
                nrep, ss_text_pm());
    if (scaling)
        fprintf(fp, "(e2e = arrival to completion, waits for cold starts included; cold starts = replicas started "
                    "and up, cold mean s = their mean start-up time; replica-s = replica-seconds in the measured "
                    "window)\n");
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
