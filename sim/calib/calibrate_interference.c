/* calibrate_interference.c: CPU interference from the probe's co-run
 * benchmark (tools/probe/corun.py, kind "corun" samples) - how much more CPU
 * time a block's forward costs while other block processes compute at the
 * same time, as serve/pipeline_compute.c models it (`pipeline.interference`):
 *
 *   corun_factor = sum over the blocks of the mean CPU time per forward with
 *                  one process per core (runnable = cores), over the same sum
 *                  alone (runnable 1);
 *   slice_factor = the sum with two processes per core (runnable = 2 cores),
 *                  over the sum one per core.
 *
 * A factor below 1 is written as 1 (`_measured` keeps it).  Ratios of sums: each block weighs by its CPU time, as in a pipeline where
 * every block computes once per request [ASSUMPTION: one factor per machine,
 * not per block; the blocks measured are the work the model shares].  95%
 * intervals: percentile bootstrap (2,000 resamples of every block's forwards
 * in every state, a fixed stream: the same files give the same numbers). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/rng.h"
#include "core/util.h"

#define BOOT 2000
#define NSTATES 3 /* alone, co-running one per core, time-sliced two per core */

static const char *const state_word[NSTATES] = {"alone", "co-running one per core", "time-sliced two per core"};

/* One block's forwards' CPU times per state, pooled over its samples. */
typedef struct blk {
    double *v[NSTATES];
    size_t n[NSTATES];
} blk;

/* The mean of v (of a resample of it when rng is given). */
static double mean_of(const double *v, size_t n, gsl_rng *rng)
{
    double a = 0;
    for (size_t i = 0; i < n; i++) a += v[rng ? gsl_rng_uniform_int(rng, (unsigned long)n) : i];
    return a / (double)n;
}

/* The two factors from every block's state means (resampled when rng is given). */
static void factors(const blk *b, size_t nb, gsl_rng *rng, double *corun, double *slice)
{
    double sum[NSTATES] = {0};
    for (size_t i = 0; i < nb; i++)
        for (int k = 0; k < NSTATES; k++) sum[k] += mean_of(b[i].v[k], b[i].n[k], rng);
    *corun = sum[1] / sum[0];
    *slice = sum[2] / sum[1];
}

static int sample_err(const ref *r, ss_err *err, const char *fmt, unsigned a, unsigned b)
{
    const ss_hwp_sample *s = ss_cal_sample_of(r);
    return ss_err_at(err, r->prof->path, s->line, s->col, fmt, a, b);
}

/* The blocks' groups (by what) into b: each sample's forwards under its state.
 * -1 with err where a sample's cores or runnable do not fit. */
static int pool(const groups *gs, unsigned cores, blk *b, ss_err *err)
{
    for (size_t i = 0; i < gs->n; i++) {
        const group *g = &gs->g[i];
        for (size_t j = 0; j < g->nrefs; j++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[j]);
            if (s->cores != cores)
                return sample_err(&g->refs[j], err,
                                  "cores: expected %u, as the first corun sample: one calibration fits one machine "
                                  "(got %u)", cores, s->cores);
            int k = s->runnable == 1 ? 0 : s->runnable == cores ? 1 : s->runnable == 2 * cores ? 2 : -1;
            if (k < 0)
                return sample_err(&g->refs[j], err,
                                  "runnable: expected 1 (alone), the cores or twice the cores (%u cores), got %u", cores,
                                  s->runnable);
            b[i].v[k] = ss_xrealloc(b[i].v[k], (b[i].n[k] + s->ntimes) * sizeof *b[i].v[k]);
            memcpy(b[i].v[k] + b[i].n[k], s->times_s, s->ntimes * sizeof *s->times_s);
            b[i].n[k] += s->ntimes;
        }
        for (int k = 0; k < NSTATES; k++)
            if (b[i].n[k] == 0)
                return ss_cal_group_err(g, err,
                                        "corun samples of %s: none %s (runnable %u): the factors need every block "
                                        "alone, one per core and two per core",
                                        ss_cal_sample_of(&g->refs[0])->what, state_word[k],
                                        k == 0 ? 1 : k == 1 ? cores : 2 * cores);
    }
    return 0;
}

static void put_model(calib *c, const groups *gs, const blk *b, unsigned cores, double cf, double sf, const double *ci)
{
    cJSON *sched = ss_cal_scheduler(c);
    cJSON *o = cJSON_AddObjectToObject(sched, "interference");
    /* a factor below 1 (noise about 1: work is not cheaper beside other work) is written as 1,
     * as a scenario takes it; the measured value stays beside it */
    ss_cal_put_num(o, "corun_factor", cf < 1 ? 1 : cf);
    ss_cal_put_num(o, "corun_factor_measured", cf);
    ss_cal_put_range(o, "corun_factor_ci95", ci[0], ci[1]);
    ss_cal_put_num(o, "slice_factor", sf < 1 ? 1 : sf);
    ss_cal_put_num(o, "slice_factor_measured", sf);
    ss_cal_put_range(o, "slice_factor_ci95", ci[2], ci[3]);
    cJSON_AddNumberToObject(o, "cores", cores);
    cJSON *arr = cJSON_AddArrayToObject(o, "blocks");
    for (size_t i = 0; i < gs->n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "what", ss_cal_sample_of(&gs->g[i].refs[0])->what);
        double m[NSTATES];
        for (int k = 0; k < NSTATES; k++) m[k] = mean_of(b[i].v[k], b[i].n[k], NULL);
        ss_cal_put_num(e, "alone_s", m[0]);
        ss_cal_put_num(e, "corun_s", m[1]);
        ss_cal_put_num(e, "sliced_s", m[2]);
        ss_cal_put_num(e, "corun_ratio", m[1] / m[0]);
        ss_cal_put_num(e, "slice_ratio", m[2] / m[1]);
        cJSON *nf = cJSON_AddArrayToObject(e, "forwards");
        for (int k = 0; k < NSTATES; k++) cJSON_AddItemToArray(nf, cJSON_CreateNumber((double)b[i].n[k]));
        cJSON_AddItemToObject(e, "from", ss_cal_refs_json(&gs->g[i]));
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_AddStringToObject(o, "method",
                            "ratios of the sums over the blocks of the mean CPU time per forward: one per core over "
                            "alone (corun_factor), two per core over one per core (slice_factor); 95% intervals: "
                            "percentile bootstrap, 2000 resamples (sim/calib/calibrate_interference.c)");
    fprintf(c->sum,
            "  CPU interference on %u cores: co-running %.4g [%.4g, %.4g], time-sliced %.4g [%.4g, %.4g] more CPU "
            "time (%zu blocks)\n",
            cores, cf, ci[0], ci[1], sf, ci[2], ci[3], gs->n);
}

int ss_cal_interference(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    groups gs = {0}; /* by block */
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->kind != SS_HWP_CORUN) continue;
            ss_cal_add(&gs, s->what, profs[f], i, s->runnable);
        }
    if (gs.n == 0) return 0;
    unsigned cores = ss_cal_sample_of(&gs.g[0].refs[0])->cores;
    blk *b = ss_xcalloc(gs.n, sizeof *b);
    int rc = 0;
    if (cores < 2)
        rc = ss_cal_group_err(&gs.g[0], err,
                              "corun samples on %u core: interference is measured with work on another core; "
                              "expected cores >= 2", cores);
    if (rc == 0) rc = pool(&gs, cores, b, err);
    if (rc == 0) {
        double cf, sf, ci[4];
        factors(b, gs.n, NULL, &cf, &sf);
        gsl_rng *rng = ss_rng_stream(0, 0, "calibrate/interference");
        double *cs = ss_xcalloc(BOOT, sizeof *cs), *ss = ss_xcalloc(BOOT, sizeof *ss);
        for (size_t k = 0; k < BOOT; k++) factors(b, gs.n, rng, &cs[k], &ss[k]);
        gsl_rng_free(rng);
        ss_cal_percentile95(cs, BOOT, &ci[0], &ci[1]);
        ss_cal_percentile95(ss, BOOT, &ci[2], &ci[3]);
        free(cs);
        free(ss);
        put_model(c, &gs, b, cores, cf, sf, ci);
    }
    for (size_t i = 0; i < gs.n; i++)
        for (int k = 0; k < NSTATES; k++) free(b[i].v[k]);
    free(b);
    ss_cal_groups_free(&gs);
    return rc;
}
