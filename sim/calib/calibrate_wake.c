/* calibrate_wake.c: the cost of a hop into a process that has been idle,
 * from the probe's wake benchmark (tools/probe/wake.py, kind "wake" samples),
 * as scheduler.wake.<transport> in the model file.
 *
 * On this project's VM a hop into a block process that had slept for a
 * second took 5 to 6 ms longer than one into a process that had just
 * worked, on both transports (docs/calibration.md, "Waking after idle").
 * The benchmark sends each of the pipeline's hops into a block process
 * after the sender slept gap_s, and records per message the receiver's idle
 * time when it was sent and the hop's latency (send until decoded).  The
 * smallest gap is the reference: the hop laws are timed in that condition
 * (the producing piece's compute before each send, as in the pipeline-mode
 * hop benchmark).  Per gap the table gives the mean idle time and the extra
 * latency over the reference, mean minus mean, with a 95% interval by
 * Welch's t; a mean below the reference's (noise about 0) is written as 0 in
 * extra_s, as measured in extra_measured_s: a delay is not negative.  The simulator (serve/pipeline.c, `pipeline.wake`) delays a
 * message to an idle process by the table at that process's idle time,
 * linear between the points, none below the reference's, the last point's
 * beyond it. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/util.h"

/* One gap's messages of one transport. */
typedef struct gap_stats {
    double gap_s, idle_s, mean_s, var_s;
    size_t n;
    const group *g;
} gap_stats;

static int by_gap(const void *a, const void *b)
{
    double x = ((const gap_stats *)a)->gap_s, y = ((const gap_stats *)b)->gap_s;
    return x < y ? -1 : x > y;
}

static void stats_of(const group *g, gap_stats *st)
{
    double idle = 0;
    size_t nidle = 0;
    for (size_t r = 0; r < g->nrefs; r++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[r]);
        for (size_t k = 0; k < s->nidle; k++, nidle++) idle += s->idle_s[k];
    }
    st->gap_s = ss_cal_sample_of(&g->refs[0])->gap_s;
    st->idle_s = idle / (double)nidle;
    st->n = g->n;
    st->mean_s = gsl_stats_mean(g->y, 1, g->n);
    st->var_s = gsl_stats_variance_m(g->y, 1, g->n, st->mean_s);
    st->g = g;
}

/* Welch's 95% half-width of mean(a) - mean(b). */
static double welch_half(const gap_stats *a, const gap_stats *b)
{
    double va = a->var_s / (double)a->n, vb = b->var_s / (double)b->n, v = va + vb;
    if (!(v > 0)) return 0;
    double df = v * v / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
    return gsl_cdf_tdist_Pinv(0.975, df) * sqrt(v);
}

/* The table of one transport, its gaps' groups gs[0..n). */
static int table(calib *c, cJSON *wake, const char *transport, gap_stats *gs, size_t n, ss_err *err)
{
    if (n < 2) {
        const ref *r = &gs[0].g->refs[0];
        return ss_err_at(err, r->prof->path, ss_cal_sample_of(r)->line, ss_cal_sample_of(r)->col,
                         "wake: %s has samples of one gap (%g s) only: the cost of waking is the latency over the "
                         "smallest gap's, so expected at least two gaps",
                         transport, gs[0].gap_s);
    }
    qsort(gs, n, sizeof *gs, by_gap);
    cJSON *o = cJSON_AddObjectToObject(wake, transport);
    cJSON *gap = cJSON_AddArrayToObject(o, "gap_s"), *idle = cJSON_AddArrayToObject(o, "idle_s"),
          *extra = cJSON_AddArrayToObject(o, "extra_s"), *raw = cJSON_AddArrayToObject(o, "extra_measured_s"),
          *half = cJSON_AddArrayToObject(o, "extra_ci95_s"),
          *msgs = cJSON_AddArrayToObject(o, "messages"), *from = cJSON_AddArrayToObject(o, "from");
    fprintf(c->sum, "  waking after idle, %s (idle s: extra ms +- 95%%):", transport);
    for (size_t k = 0; k < n; k++) {
        double x = k ? gs[k].mean_s - gs[0].mean_s : 0, h = k ? welch_half(&gs[k], &gs[0]) : 0;
        cJSON_AddItemToArray(gap, cJSON_CreateNumber(ss_cal_round10(gs[k].gap_s)));
        cJSON_AddItemToArray(idle, cJSON_CreateNumber(ss_cal_round10(gs[k].idle_s)));
        cJSON_AddItemToArray(extra, cJSON_CreateNumber(ss_cal_round10(x > 0 ? x : 0)));
        cJSON_AddItemToArray(raw, cJSON_CreateNumber(ss_cal_round10(x)));
        cJSON_AddItemToArray(half, cJSON_CreateNumber(ss_cal_round10(h)));
        cJSON_AddItemToArray(msgs, cJSON_CreateNumber((double)gs[k].n));
        cJSON_AddItemToArray(from, ss_cal_refs_json(gs[k].g));
        fprintf(c->sum, " %.3g: %+.3g +- %.2g%s", gs[k].idle_s, 1e3 * x, 1e3 * h, k + 1 < n ? "," : "\n");
    }
    ss_cal_put_num(o, "reference_latency_s", gs[0].mean_s);
    cJSON_AddStringToObject(o, "method",
                            "per gap: the mean idle time of the receiving process when each message was sent, and "
                            "the hop's mean latency less the smallest gap's (the reference, the hop laws' "
                            "condition), 95% interval by Welch's t (sim/calib/calibrate_wake.c)");
    return 0;
}

int ss_cal_wake(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    groups gaps = {0}; /* by (transport, gap) */
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->kind != SS_HWP_WAKE) continue;
            char *k = ss_xasprintf("%s\x1f%.17g", s->transport, s->gap_s);
            ss_cal_add(&gaps, k, profs[f], i, s->gap_s);
            free(k);
        }
    if (gaps.n == 0) return 0;
    cJSON *sched = ss_cal_scheduler(c);
    cJSON *wake = cJSON_AddObjectToObject(sched, "wake");
    gap_stats *gs = ss_xcalloc(gaps.n, sizeof *gs);
    char *done = ss_xcalloc(gaps.n, 1);
    int rc = 0;
    for (size_t i = 0; i < gaps.n && rc == 0; i++) { /* transports in input order */
        if (done[i]) continue;
        const char *t = ss_cal_sample_of(&gaps.g[i].refs[0])->transport;
        size_t n = 0;
        for (size_t j = i; j < gaps.n; j++)
            if (!done[j] && strcmp(ss_cal_sample_of(&gaps.g[j].refs[0])->transport, t) == 0) {
                stats_of(&gaps.g[j], &gs[n++]);
                done[j] = 1;
            }
        rc = table(c, wake, t, gs, n, err);
    }
    free(done);
    free(gs);
    ss_cal_groups_free(&gaps);
    return rc;
}
