/* calibrate_runq.c: the run queues' two unknowns from the probe's ring
 * benchmark (tools/probe/stacking.py, kind "stacking" samples), under the
 * kernel's constants the probe read beside it (environment.kernel,
 * tools/probe/kernel.py): how many ticks apart an idle core balances, and the
 * probability of the wake-affine placement (a main thread waking while a core
 * is free put beside a computing one): scheduler.run_queues in the model file,
 * what `pipeline.run_queues: {profile: ...}` reads (serve/pipeline_runq.h).
 *
 * The ring is simulated as the probe builds it: max(6, 4 K) processes, K
 * tokens (K = the cores) started ring / K stages and work_s / K apart, each
 * process a main thread that burns work_s of CPU per token, plus a draw of the
 * baseline ring's stretches (its timer and interrupt noise, as more of its
 * core's time), and a receiver thread that takes the token's delivery as CPU
 * work, drawn from the deliveries the baseline ring measured (its sender's
 * send to its receive, the samples' delivery_s) [ASSUMPTION: the delivery is
 * CPU work of the receiving process, on a thread of its own; the main
 * thread's send and receive are not in the burn], on the cores as run queues
 * with the kernel's slice, tick and migration cost and SIS_UTIL's idle-core
 * scan (Linux's constants, pipeline_runq.h), for 400 s (burns from 5 s
 * on).  For each balance interval of 1 to 8 ticks the stacking probability
 * whose simulated ring has the measured mean stretch (K tokens) is found by
 * bisection (none where even 1 falls short); of those the interval whose
 * simulated standard deviation is nearest the measured one is taken, and
 * written only if both its mean and its deviation lie inside the measured
 * 95% intervals (percentile bootstrap, 2,000 resamples, a fixed stream):
 * otherwise the summary says so, with every interval's numbers.  A migration
 * cost the probe could not read (debugfs) is the kernel's default, 0.5 ms,
 * and the file says so; without the kernel's slice or tick, or without the
 * ring's deliveries, nothing is fitted (the summary says why). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_common.h"
#include "core/engine.h"
#include "core/rng.h"
#include "core/util.h"
#include "pipeline/pipeline_runq.h"

#define MAX_TICKS 8
#define RING_MIN 6             /* tools/probe/stacking.py's RING */
#define RING_S 300.0
#define REPS 4                 /* replications of the simulated ring, each its own streams */
#define RING_FROM_S 5.0
#define DEFAULT_MIGRATION_S 0.0005 /* Linux's sysctl_sched_migration_cost */
#define LLC_IMBALANCE_PCT 117.0    /* Linux's imbalance_pct of an SD_SHARE_LLC domain (SIS_UTIL's threshold) */
#define PELT_HALFLIFE_S 0.032      /* Linux's PELT: util_avg halves in LOAD_AVG_PERIOD, 32 ms */
#define BOOT 2000

/* Whether the ring's kernel has SIS_UTIL (Linux 6.0 on, commit 70fb5ccf2ebb), by its release's
 * major number. */
static int has_sis_util(const char *release)
{
    int major = 0;
    return release && sscanf(release, "%d", &major) == 1 && major >= 6;
}

/* ---- the ring, simulated ------------------------------------------------------ */

typedef struct ring ring;

typedef struct stage {
    ring *r;
    int i;
    ss_rq_thread main, rx;
    int busy, queued, rx_busy, rx_queued;
    double start_s;
} stage;

struct ring {
    ss_engine *eng;
    ss_runq *q;
    gsl_rng *rng;
    stage *st;
    int n;
    double work_s, sum_s, sum2_s;
    const double *emp; /* the measured deliveries, drawn from */
    size_t nemp;
    const double *noise; /* the baseline ring's stretches (timer and interrupt noise), drawn per burn */
    size_t nnoise;
    long burns;
};

static void burn(stage *s);
static void deliver(stage *s);

static void arrive(stage *s)
{
    if (ss_now(s->r->eng) > RING_S) return;
    if (s->busy) s->queued++;
    else burn(s);
}

static void rx_done(void *ctx)
{
    stage *s = ctx;
    s->rx_busy = 0;
    if (s->rx_queued) {
        s->rx_queued--;
        deliver(s);
    }
    arrive(s);
}

static void deliver(stage *s)
{
    if (s->rx_busy) {
        s->rx_queued++;
        return;
    }
    s->rx_busy = 1;
    const ring *r = s->r;
    ss_runq_run(r->q, &s->rx, r->emp[gsl_rng_uniform_int(r->rng, (unsigned long)r->nemp)], rx_done, s);
}

static void burn_done(void *ctx)
{
    stage *s = ctx;
    ring *r = s->r;
    double now = ss_now(r->eng);
    if (s->start_s >= RING_FROM_S) {
        double x = now - s->start_s - r->work_s;
        r->sum_s += x;
        r->sum2_s += x * x;
        r->burns++;
    }
    s->busy = 0;
    deliver(&r->st[(s->i + 1) % r->n]);
    if (s->queued) {
        s->queued--;
        burn(s);
    }
}

static void burn(stage *s)
{
    ring *r = s->r;
    s->busy = 1;
    s->start_s = ss_now(r->eng);
    /* the burn's CPU, and the baseline's noise (interrupts on its core) as more of its core's time */
    double noise = r->noise[gsl_rng_uniform_int(r->rng, (unsigned long)r->nnoise)];
    ss_runq_run(r->q, &s->main, r->work_s + (noise > 0 ? noise : 0), burn_done, s);
}

static void inject(ss_engine *eng, void *ctx, uint64_t i)
{
    (void)eng;
    ring *r = ctx;
    arrive(&r->st[i]);
}

/* The simulated ring's burns' stretches: mean and standard deviation (s), and
 * over replications their standard errors (the simulation's own noise). */
typedef struct moments2 {
    double mean_s, sd_s;
    double mean_se_s, sd_se_s;
} moments2;

/* One replication (its own streams, named by rep) of the ring: its moments. */
static moments2 simulate_one(const ss_runq_params *p, unsigned cores, double work_s, const double *emp, size_t nemp,
                             const double *noise, size_t nnoise, unsigned rep)
{
    ring r = {.eng = ss_engine_new(), .work_s = work_s, .emp = emp, .nemp = nemp, .noise = noise, .nnoise = nnoise};
    gsl_rng *sched = ss_rng_stream(0, rep, "calibrate/run_queues/scheduler"); /* the ticks' phase, the placements */
    r.rng = ss_rng_stream(0, rep, "calibrate/run_queues/ring");              /* the deliveries, the noise */
    r.q = ss_runq_new(r.eng, cores, p, sched);
    r.n = RING_MIN > 4 * (int)cores ? RING_MIN : 4 * (int)cores;
    r.st = ss_xcalloc((size_t)r.n, sizeof *r.st);
    for (int i = 0; i < r.n; i++) {
        r.st[i] = (stage){.r = &r, .i = i};
        ss_rq_thread_init(&r.st[i].main);
        r.st[i].main.stackable = 1; /* the burner is the ring's main thread; the receiver is not */
        ss_rq_thread_init(&r.st[i].rx);
    }
    for (unsigned k = 0; k < cores; k++) /* token k into stage k ring / K, work_s / K later */
        ss_schedule(r.eng, work_s * k / cores, inject, &r, (uint64_t)(k * (unsigned)r.n / cores));
    ss_engine_run(r.eng, RING_S + 10);
    double n = (double)r.burns, mean = r.burns ? r.sum_s / n : NAN;
    moments2 out = {mean, r.burns ? sqrt(fmax(0, r.sum2_s / n - mean * mean)) : NAN, 0, 0};
    ss_runq_free(r.q);
    gsl_rng_free(sched);
    gsl_rng_free(r.rng);
    free(r.st);
    ss_engine_free(r.eng);
    return out;
}

/* REPS replications: the means of their moments, with standard errors. */
static moments2 simulate(const ss_runq_params *p, unsigned cores, double work_s, const double *emp, size_t nemp,
                         const double *noise, size_t nnoise)
{
    double m[REPS], sd[REPS], am = 0, as = 0, vm = 0, vs = 0;
    for (unsigned k = 0; k < REPS; k++) {
        moments2 one = simulate_one(p, cores, work_s, emp, nemp, noise, nnoise, k);
        m[k] = one.mean_s;
        sd[k] = one.sd_s;
        am += m[k] / REPS;
        as += sd[k] / REPS;
    }
    for (unsigned k = 0; k < REPS; k++) {
        vm += (m[k] - am) * (m[k] - am) / (REPS - 1);
        vs += (sd[k] - as) * (sd[k] - as) / (REPS - 1);
    }
    return (moments2){am, as, sqrt(vm / REPS), sqrt(vs / REPS)};
}

/* ---- the fit -------------------------------------------------------------------- */

/* The mean and standard deviation of the stretches v (or of a resample with rng). */
static moments2 ring_moments(const double *v, size_t n, gsl_rng *rng)
{
    double a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        double y = v[rng ? gsl_rng_uniform_int(rng, (unsigned long)n) : i];
        a += y;
        b += y * y;
    }
    double m = a / (double)n;
    return (moments2){m, sqrt(fmax(0, b / (double)n - m * m)), 0, 0};
}

/* The stacking probability (0 to 1) at which the simulated ring's mean
 * stretch is `target` with the interval p->balance_ticks (bisection, the
 * mean growing with q), or NAN if even q = 1 falls short; *at its moments. */
static double fit_q(ss_runq_params *p, unsigned cores, double work_s, const double *emp, size_t nemp,
                    const double *noise, size_t nnoise, double target, moments2 *at)
{
    p->stack_prob = 0;
    *at = simulate(p, cores, work_s, emp, nemp, noise, nnoise);
    if (at->mean_s >= target) return 0;
    p->stack_prob = 1;
    moments2 hi = simulate(p, cores, work_s, emp, nemp, noise, nnoise);
    if (hi.mean_s < target) {
        *at = hi;
        return NAN;
    }
    double lo_q = 0, hi_q = 1;
    for (int it = 0; it < 12; it++) {
        p->stack_prob = (lo_q + hi_q) / 2;
        moments2 mid = simulate(p, cores, work_s, emp, nemp, noise, nnoise);
        if (mid.mean_s < target) lo_q = p->stack_prob;
        else hi_q = p->stack_prob;
    }
    p->stack_prob = (lo_q + hi_q) / 2;
    *at = simulate(p, cores, work_s, emp, nemp, noise, nnoise);
    return p->stack_prob;
}

/* How an interval's probability stands to the measured mean: found, or the
 * mean already above it at 0, or short of it even at 1. */
static const char *reach_word(double q, const moments2 *at, double target)
{
    if (isnan(q)) return "short of the measured mean even at probability 1";
    if (q == 0 && at->mean_s > target) return "above the measured mean already at probability 0";
    return "the measured mean at this probability";
}

/* The profile whose kernel the ring ran on (its first; *out), or -1 through
 * err if the ring's profiles name two kernels (or one and none). */
static int ring_kernel(const group *g, const ss_hwprofile **out, ss_err *err)
{
    const ss_hwprofile *k = g->refs[0].prof;
    for (size_t i = 1; i < g->nrefs; i++) {
        const ss_hwprofile *o = g->refs[i].prof;
        if ((k->kernel_release == NULL) != (o->kernel_release == NULL) ||
            (k->kernel_release && strcmp(k->kernel_release, o->kernel_release) != 0))
            return ss_err_at(err, o->path, ss_cal_sample_of(&g->refs[i])->line, ss_cal_sample_of(&g->refs[i])->col,
                             "stacking: this ring ran on kernel %s, the one before on %s: one calibration fits one "
                             "machine's scheduler",
                             o->kernel_release ? o->kernel_release : "(not recorded)",
                             k->kernel_release ? k->kernel_release : "(not recorded)");
    }
    *out = k;
    return 0;
}

int ss_cal_run_queues(calib *c, ss_err *err)
{
    if (c->stacks.n == 0) return 0;
    const group *g = &c->stacks.g[0];
    const ss_hwprofile *k = NULL;
    if (ring_kernel(g, &k, err) < 0) return -1;
    const char *why = NULL;
    size_t nemp = 0;
    double *emp = ss_cal_ring_deliveries(g, 1, &nemp); /* the baseline ring's */
    if (!k->kernel_release) why = "the ring's profile records no kernel (environment.kernel, tools/probe/kernel.py)";
    else if (isnan(k->kernel_slice_s) || isnan(k->kernel_tick_s))
        why = "the probe could not read the kernel's slice or tick (environment.kernel)";
    else if (nemp == 0)
        why = "the ring recorded no token deliveries (delivery_s: tools/probe/stacking.py since 2026-11-27)";
    else if (isnan(ss_cal_sample_of(&g->refs[0])->work_s)) why = "the ring's samples give no work_s (a burn's CPU)";
    if (why) {
        fprintf(c->sum, "  run queues: not fitted: %s\n", why);
        free(emp);
        return 0;
    }
    unsigned cores = ss_cal_sample_of(&g->refs[0])->cores;
    double work_s = ss_cal_sample_of(&g->refs[0])->work_s, delivery = ring_moments(emp, nemp, NULL).mean_s;
    size_t nb, nx;
    double *base = ss_cal_ring_stretches(g, 1, &nb), *load = ss_cal_ring_stretches(g, cores, &nx);
    moments2 meas = ring_moments(load, nx, NULL);
    gsl_rng *rng = ss_rng_stream(0, 0, "calibrate/run_queues");
    double *bm = ss_xcalloc(BOOT, sizeof *bm), *bs = ss_xcalloc(BOOT, sizeof *bs), mlo, mhi, slo, shi;
    for (size_t i = 0; i < BOOT; i++) {
        moments2 r = ring_moments(load, nx, rng);
        bm[i] = r.mean_s;
        bs[i] = r.sd_s;
    }
    ss_cal_percentile95(bm, BOOT, &mlo, &mhi);
    ss_cal_percentile95(bs, BOOT, &slo, &shi);
    gsl_rng_free(rng);
    free(bm);
    free(bs);
    free(load);
    int assumed = isnan(k->kernel_migration_cost_s), sis = has_sis_util(k->kernel_release);
    ss_runq_params p = {.slice_s = k->kernel_slice_s, .tick_s = k->kernel_tick_s,
                        .migration_cost_s = assumed ? DEFAULT_MIGRATION_S : k->kernel_migration_cost_s,
                        .tick_phase_s = -1, .idle_scan_pct = sis ? LLC_IMBALANCE_PCT : 0,
                        .util_halflife_s = sis ? PELT_HALFLIFE_S : 0};
    /* per interval, the probability that gives the measured mean; of the intervals whose mean then
     * lies inside the measured interval (widened by the simulation's own 95% error), the one whose
     * standard deviation is nearest the measured; accepted if that too lies inside its interval,
     * widened alike */
    double q[MAX_TICKS + 1];
    moments2 at[MAX_TICKS + 1];
    unsigned best = 0;
    for (unsigned b = 1; b <= MAX_TICKS; b++) {
        p.balance_ticks = b;
        q[b] = fit_q(&p, cores, work_s, emp, nemp, base, nb, meas.mean_s, &at[b]);
        int mean_in = at[b].mean_s >= mlo - 1.96 * at[b].mean_se_s && at[b].mean_s <= mhi + 1.96 * at[b].mean_se_s;
        if (!isnan(q[b]) && mean_in && (!best || fabs(at[b].sd_s - meas.sd_s) < fabs(at[best].sd_s - meas.sd_s)))
            best = b;
    }
    int ok = best && at[best].sd_s >= slo - 1.96 * at[best].sd_se_s && at[best].sd_s <= shi + 1.96 * at[best].sd_se_s;
    cJSON *rj = cJSON_CreateObject();
    ss_cal_put_num(rj, "measured_mean_s", meas.mean_s);
    ss_cal_put_range(rj, "measured_mean_s_ci95", mlo, mhi);
    ss_cal_put_num(rj, "measured_sd_s", meas.sd_s);
    ss_cal_put_range(rj, "measured_sd_s_ci95", slo, shi);
    ss_cal_put_num(rj, "delivery_s", delivery);
    cJSON_AddNumberToObject(rj, "deliveries", (double)nemp);
    ss_cal_put_num(rj, "work_s", work_s);
    cJSON *per = cJSON_AddArrayToObject(rj, "by_balance_ticks");
    for (unsigned b = 1; b <= MAX_TICKS; b++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "balance_ticks", b);
        cJSON_AddStringToObject(e, "mean", reach_word(q[b], &at[b], meas.mean_s));
        if (isnan(q[b])) cJSON_AddNullToObject(e, "stacking_probability");
        else ss_cal_put_num(e, "stacking_probability", q[b]);
        ss_cal_put_num(e, "mean_s", at[b].mean_s);
        ss_cal_put_num(e, "mean_se_s", at[b].mean_se_s);
        ss_cal_put_num(e, "sd_s", at[b].sd_s);
        ss_cal_put_num(e, "sd_se_s", at[b].sd_se_s);
        cJSON_AddItemToArray(per, e);
    }
    if (!ok) { /* the run queues do not reproduce the ring: the numbers to the summary, nothing written */
        fprintf(c->sum,
                "  run queues: not fitted: no balance interval of 1 to %d ticks and stacking probability reproduces "
                "the ring (measured %.3f ms [%.3f, %.3f], sd %.3f ms [%.3f, %.3f]; ",
                MAX_TICKS, 1e3 * meas.mean_s, 1e3 * mlo, 1e3 * mhi, 1e3 * meas.sd_s, 1e3 * slo, 1e3 * shi);
        if (best)
            fprintf(c->sum, "nearest: %u ticks, q %.3g, sd %.3f ms", best, q[best], 1e3 * at[best].sd_s);
        else
            fprintf(c->sum, "no interval's mean inside the measured interval");
        fprintf(c->sum, "; the kernel %s, its deliveries %.3f ms on average)\n", k->kernel_release, 1e3 * delivery);
        for (unsigned b = 1; b <= MAX_TICKS; b++)
            fprintf(c->sum, "    balance every %u tick%s: %s, q %.3g, mean %.3f +- %.3f ms, sd %.3f +- %.3f ms\n", b,
                    b == 1 ? "" : "s", reach_word(q[b], &at[b], meas.mean_s), isnan(q[b]) ? 1.0 : q[b],
                    1e3 * at[b].mean_s, 1e3 * 1.96 * at[b].mean_se_s, 1e3 * at[b].sd_s, 1e3 * 1.96 * at[b].sd_se_s);
        cJSON_Delete(rj);
        free(emp);
        free(base);
        return 0;
    }
    cJSON *o = cJSON_CreateObject();
    ss_cal_put_num(o, "slice_s", p.slice_s);
    ss_cal_put_num(o, "tick_s", p.tick_s);
    ss_cal_put_num(o, "migration_cost_s", p.migration_cost_s);
    cJSON_AddNumberToObject(o, "balance_ticks", best);
    ss_cal_put_num(o, "stacking_probability", q[best]);
    if (sis) {
        ss_cal_put_num(o, "idle_scan_pct", p.idle_scan_pct);
        ss_cal_put_num(o, "util_halflife_s", p.util_halflife_s);
    }
    cJSON_AddStringToObject(o, "idle_scan_assumed",
                            sis ? "Linux's constants, not read by the probe: SIS_UTIL (a feature since Linux 6.0) with an "
                                  "LLC domain's imbalance_pct 117 and PELT's 32 ms half-life (docs/calibration.md, "
                                  "\"The idle-core scan\")"
                                : "none: the kernel's release is before Linux 6.0 (SIS_UTIL), or not a Linux release: "
                                  "an idle core is always looked for");
    cJSON_AddNumberToObject(o, "cores", cores);
    cJSON_AddStringToObject(o, "kernel", k->kernel_release);
    if (assumed)
        cJSON_AddStringToObject(o, "migration_cost_assumed",
                                "not read by the probe (debugfs): Linux's default sysctl_sched_migration_cost");
    cJSON_AddItemToObject(o, "ring", rj);
    cJSON_AddStringToObject(o, "method",
                            "the probe's ring simulated on per-core run queues (serve/pipeline_runq.c) with the "
                            "kernel's slice, tick and migration cost and SIS_UTIL's idle-core scan, each token's delivery drawn from the baseline "
                            "ring's measured deliveries and each burn's noise from its stretches; for each balance "
                            "interval of 1 to 8 ticks the wake-affine stacking probability that gives the measured "
                            "mean stretch (bisection), and of those the interval whose standard deviation is nearest "
                            "the measured; written only if both lie inside their 95% intervals (percentile "
                            "bootstrap, 2000 resamples) (calibrate_runq.c)");
    cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
    cJSON_AddItemToObject(ss_cal_scheduler(c), "run_queues", o);
    free(emp);
    free(base);
    fprintf(c->sum,
            "  run queues on %u cores (kernel %s: slice %.3g ms, tick %.3g ms, migration cost %.3g ms%s): balance "
            "every %u tick%s, stacking probability %.2f (ring: measured %.3f ms [%.3f, %.3f], sd %.3f ms [%.3f, "
            "%.3f]; simulated %.3f +- %.3f ms, sd %.3f +- %.3f ms)\n",
            cores, k->kernel_release, 1e3 * p.slice_s, 1e3 * p.tick_s, 1e3 * p.migration_cost_s,
            assumed ? ", the default" : "", best, best == 1 ? "" : "s", q[best], 1e3 * meas.mean_s, 1e3 * mlo,
            1e3 * mhi, 1e3 * meas.sd_s, 1e3 * slo, 1e3 * shi, 1e3 * at[best].mean_s, 1e3 * 1.96 * at[best].mean_se_s,
            1e3 * at[best].sd_s, 1e3 * 1.96 * at[best].sd_se_s);
    return 0;
}
