/* calibrate_memshare.c: a host's memory-bandwidth law from the probe's
 * concurrent-copy benchmark (tools/probe/memshare.py, kind "memshare"
 * samples), as `scheduler.memory_bandwidth` in the model file, which
 * `pipeline.memory_bandwidth` reads (pipeline/pipeline_compute.c):
 *
 *   copy_bytes_per_s   = the median rate (bytes / latency) of the copies made alone
 *                (streams 1): one copy's rate on one core;
 *   shared_bytes_per_s = streams x the median rate of the copies made one per core
 *                on every core (streams = cores): the rate the host's copies
 *                share when all cores copy.
 *
 * Medians, not means: on a shared machine a copy now and then is slowed by
 * other work.  Every size is pooled [ASSUMPTION: the buffers are far larger
 * than the caches, so a copy's rate does not depend on its size; the probe
 * copies 64 and 256 MiB].  95% intervals: percentile bootstrap of the
 * medians (2,000 resamples, a fixed stream: the same files give the same
 * numbers). */
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/rng.h"
#include "core/util.h"

#define BOOT 2000

/* The rates of every copy of group g (bytes / latency). */
static double *rates_of(const group *g, size_t *n)
{
    size_t m = 0;
    for (size_t i = 0; i < g->nrefs; i++) m += ss_cal_sample_of(&g->refs[i])->ntimes;
    double *v = ss_xcalloc(m ? m : 1, sizeof *v);
    m = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        for (size_t j = 0; j < s->ntimes; j++) v[m++] = s->bytes / s->times_s[j];
    }
    *n = m;
    return v;
}

static double median_of(double *v, size_t n)
{
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* The median of v and its bootstrap 95% interval. */
static double median_ci(const double *v, size_t n, gsl_rng *rng, double *lo, double *hi)
{
    double *w = ss_xcalloc(n, sizeof *w), *meds = ss_xcalloc(BOOT, sizeof *meds);
    memcpy(w, v, n * sizeof *w);
    double med = median_of(w, n);
    for (size_t b = 0; b < BOOT; b++) {
        for (size_t i = 0; i < n; i++) w[i] = v[gsl_rng_uniform_int(rng, (unsigned long)n)];
        meds[b] = median_of(w, n);
    }
    ss_cal_percentile95(meds, BOOT, lo, hi);
    free(w);
    free(meds);
    return med;
}

int ss_cal_memshare(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    groups gs = {0}; /* by streams */
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->kind != SS_HWP_MEMSHARE) continue;
            char *k = ss_xasprintf("%u", s->runnable);
            ss_cal_add(&gs, k, profs[f], i, s->runnable);
            free(k);
        }
    if (gs.n == 0) return 0;
    const ss_hwp_sample *s0 = ss_cal_sample_of(&gs.g[0].refs[0]);
    unsigned cores = s0->cores;
    const group *alone = NULL, *all = NULL;
    int rc = 0;
    for (size_t i = 0; i < gs.n && rc == 0; i++)
        for (size_t j = 0; j < gs.g[i].nrefs && rc == 0; j++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&gs.g[i].refs[j]);
            if (s->cores != cores)
                rc = ss_err_at(err, gs.g[i].refs[j].prof->path, s->line, s->col,
                               "cores: expected %u, as the first memshare sample (%s line %d): one calibration fits "
                               "one machine (got %u)",
                               cores, gs.g[0].refs[0].prof->path, s0->line, s->cores);
            if (s->runnable == 1) alone = &gs.g[i];
            if (s->runnable == cores) all = &gs.g[i];
        }
    if (rc == 0 && cores < 2)
        rc = ss_cal_group_err(&gs.g[0], err,
                              "memshare samples on %u core: the shared rate is measured with copies on every core; "
                              "expected cores >= 2", cores);
    if (rc == 0 && (!alone || !all))
        rc = ss_cal_group_err(&gs.g[0], err,
                              "memshare samples: none with streams %u (%s): the law needs copies alone (streams 1) "
                              "and on every core (streams = cores, %u)",
                              !alone ? 1 : cores, !alone ? "alone" : "every core copying", cores);
    if (rc == 0) {
        size_t na, nb;
        double *ra = rates_of(alone, &na), *rb = rates_of(all, &nb), ci[4];
        gsl_rng *rng = ss_rng_stream(0, 0, "calibrate/memshare");
        double copy = median_ci(ra, na, rng, &ci[0], &ci[1]);
        double each = median_ci(rb, nb, rng, &ci[2], &ci[3]);
        gsl_rng_free(rng);
        cJSON *o = cJSON_AddObjectToObject(ss_cal_scheduler(c), "memory_bandwidth");
        ss_cal_put_num(o, "copy_bytes_per_s", copy);
        ss_cal_put_range(o, "copy_bytes_per_s_ci95", ci[0], ci[1]);
        ss_cal_put_num(o, "shared_bytes_per_s", cores * each);
        ss_cal_put_range(o, "shared_bytes_per_s_ci95", cores * ci[2], cores * ci[3]);
        cJSON_AddNumberToObject(o, "cores", cores);
        cJSON_AddNumberToObject(o, "copies_alone", (double)na);
        cJSON_AddNumberToObject(o, "copies_every_core", (double)nb);
        cJSON_AddStringToObject(o, "method",
                                "medians of bytes / latency over every copy: alone (copy_bytes_per_s), and x cores with one "
                                "copy per core (shared_bytes_per_s); 95% intervals: percentile bootstrap of the medians, "
                                "2000 resamples (sim/calib/calibrate_memshare.c)");
        cJSON *from = cJSON_AddObjectToObject(o, "from");
        cJSON_AddItemToObject(from, "alone", ss_cal_refs_json(alone));
        cJSON_AddItemToObject(from, "every_core", ss_cal_refs_json(all));
        fprintf(c->sum,
                "  memory bandwidth on %u cores: one copy %.4g GB/s [%.4g, %.4g], %u together %.4g GB/s [%.4g, %.4g] "
                "(%zu and %zu copies)\n",
                cores, copy / 1e9, ci[0] / 1e9, ci[1] / 1e9, cores, cores * each / 1e9, cores * ci[2] / 1e9,
                cores * ci[3] / 1e9, na, nb);
        free(ra);
        free(rb);
    }
    ss_cal_groups_free(&gs);
    return rc;
}
