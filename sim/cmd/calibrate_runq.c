/* calibrate_runq.c: the run queues' balance interval from the probe's ring
 * benchmark (tools/probe/stacking.py, kind "stacking" samples), under the
 * kernel's constants the probe read beside it (environment.kernel,
 * tools/probe/kernel.py): scheduler.run_queues in the model file, what
 * `pipeline.run_queues: {profile: ...}` reads (serve/pipeline_runq.h).
 *
 * The ring is simulated as the probe builds it: max(6, 4 K) processes, K
 * tokens (K = the cores) started ring / K stages and work_s / K apart, each
 * process a main thread that burns work_s of CPU per token and a receiver
 * thread that takes the token's delivery as CPU work, drawn from the
 * deliveries the baseline ring measured (one token, nothing else running:
 * its sender's send to its receive, the samples' delivery_s) [ASSUMPTION:
 * the delivery is CPU work of the receiving process, on a thread of its
 * own; the main thread's send and receive are not in the burn], on the cores
 * as run queues with the kernel's slice, tick and migration cost, for 400 s
 * (burns from 5 s on).  Its mean stretch (wall minus CPU time of a burn) for
 * each balance interval of 1 to 8 ticks is set against the measured ring's
 * mean stretch over its one-token baseline (which carries the timer noise the
 * simulation has not, 95% interval by percentile bootstrap, 2,000 resamples,
 * a fixed stream); the nearest interval is written, with every simulated
 * value, only if it lies inside that interval: otherwise the run queues do
 * not reproduce the ring, and the summary says so with the numbers (on this
 * VM they do not: docs/calibration.md, "Run queues").  A migration cost the
 * probe could not read (debugfs) is the kernel's default, 0.5 ms, and the
 * file says so; without the kernel's slice or tick, or without the ring's
 * deliveries, nothing is fitted (the summary says why). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate_internal.h"
#include "core/engine.h"
#include "core/rng.h"
#include "core/util.h"
#include "serve/pipeline_runq.h"

#define MAX_TICKS 8
#define RING_MIN 6             /* tools/probe/stacking.py's RING */
#define RING_S 400.0
#define RING_FROM_S 5.0
#define DEFAULT_MIGRATION_S 0.0005 /* Linux's sysctl_sched_migration_cost */
#define BOOT 2000

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
    double work_s, sum_s;
    const double *emp; /* the measured deliveries, drawn from */
    size_t nemp;
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
        r->sum_s += now - s->start_s - r->work_s;
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
    s->busy = 1;
    s->start_s = ss_now(s->r->eng);
    ss_runq_run(s->r->q, &s->main, s->r->work_s, burn_done, s);
}

static void inject(ss_engine *eng, void *ctx, uint64_t i)
{
    (void)eng;
    ring *r = ctx;
    arrive(&r->st[i]);
}

/* The simulated ring's mean stretch (s). */
static double simulate(const ss_runq_params *p, unsigned cores, double work_s, const double *emp, size_t nemp)
{
    ring r = {.eng = ss_engine_new(), .work_s = work_s, .emp = emp, .nemp = nemp};
    gsl_rng *ticks = ss_rng_stream(0, 0, "calibrate/run_queues/ticks");
    r.rng = ss_rng_stream(0, 0, "calibrate/run_queues/delivery");
    r.q = ss_runq_new(r.eng, cores, p, ticks);
    r.n = RING_MIN > 4 * (int)cores ? RING_MIN : 4 * (int)cores;
    r.st = ss_xcalloc((size_t)r.n, sizeof *r.st);
    for (int i = 0; i < r.n; i++) {
        r.st[i] = (stage){.r = &r, .i = i};
        ss_rq_thread_init(&r.st[i].main);
        ss_rq_thread_init(&r.st[i].rx);
    }
    for (unsigned k = 0; k < cores; k++) /* token k into stage k ring / K, work_s / K later */
        ss_schedule(r.eng, work_s * k / cores, inject, &r, (uint64_t)(k * (unsigned)r.n / cores));
    ss_engine_run(r.eng, RING_S + 10);
    double mean = r.burns ? r.sum_s / (double)r.burns : NAN;
    ss_runq_free(r.q);
    gsl_rng_free(ticks);
    gsl_rng_free(r.rng);
    free(r.st);
    ss_engine_free(r.eng);
    return mean;
}

/* ---- the fit -------------------------------------------------------------------- */

static double mean_of(const double *v, size_t n, gsl_rng *rng)
{
    double a = 0;
    for (size_t i = 0; i < n; i++) a += v[rng ? gsl_rng_uniform_int(rng, (unsigned long)n) : i];
    return a / (double)n;
}

/* The baseline ring's (runnable 1) measured deliveries, pooled (allocated),
 * or NULL if it recorded none. */
static double *baseline_deliveries(const group *g, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->runnable == 1) k += s->ndelivery;
    }
    *n = 0;
    if (k == 0) return NULL;
    double *v = ss_xcalloc(k, sizeof *v);
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->runnable == 1)
            for (size_t j = 0; j < s->ndelivery; j++) v[(*n)++] = s->delivery_s[j];
    }
    return v;
}

/* The kernel of the ring's profile, or NULL (with why) if it records none
 * the fit can use, or -1 through err if the ring's profiles name two. */
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
    double *emp = baseline_deliveries(g, &nemp);
    if (!k->kernel_release) why = "the ring's profile records no kernel (environment.kernel, tools/probe/kernel.py)";
    else if (isnan(k->kernel_slice_s) || isnan(k->kernel_tick_s))
        why = "the probe could not read the kernel's slice or tick (environment.kernel)";
    else if (!emp)
        why = "the ring recorded no token deliveries (delivery_s: tools/probe/stacking.py since 2026-11-27)";
    else if (isnan(ss_cal_sample_of(&g->refs[0])->work_s)) why = "the ring's samples give no work_s (a burn's CPU)";
    if (why) {
        fprintf(c->sum, "  run queues: not fitted: %s\n", why);
        free(emp);
        return 0;
    }
    unsigned cores = ss_cal_sample_of(&g->refs[0])->cores;
    double work_s = ss_cal_sample_of(&g->refs[0])->work_s, delivery = mean_of(emp, nemp, NULL);
    size_t nb, nx;
    double *base = ss_cal_ring_stretches(g, 1, &nb), *load = ss_cal_ring_stretches(g, cores, &nx);
    double excess = mean_of(load, nx, NULL) - mean_of(base, nb, NULL);
    gsl_rng *rng = ss_rng_stream(0, 0, "calibrate/run_queues");
    double *boot = ss_xcalloc(BOOT, sizeof *boot), lo, hi;
    for (size_t i = 0; i < BOOT; i++) boot[i] = mean_of(load, nx, rng) - mean_of(base, nb, rng);
    ss_cal_percentile95(boot, BOOT, &lo, &hi);
    gsl_rng_free(rng);
    free(boot);
    free(base);
    free(load);
    int assumed = isnan(k->kernel_migration_cost_s);
    ss_runq_params p = {.slice_s = k->kernel_slice_s, .tick_s = k->kernel_tick_s,
                        .migration_cost_s = assumed ? DEFAULT_MIGRATION_S : k->kernel_migration_cost_s,
                        .tick_phase_s = -1};
    double sim[MAX_TICKS + 1];
    unsigned best = 1;
    for (unsigned b = 1; b <= MAX_TICKS; b++) {
        p.balance_ticks = b;
        sim[b] = simulate(&p, cores, work_s, emp, nemp);
        if (fabs(sim[b] - excess) < fabs(sim[best] - excess)) best = b;
    }
    if (!(sim[best] >= lo && sim[best] <= hi)) { /* no interval reproduces the ring: nothing to write */
        double smin = sim[1], smax = sim[1];
        for (unsigned b = 2; b <= MAX_TICKS; b++) {
            smin = sim[b] < smin ? sim[b] : smin;
            smax = sim[b] > smax ? sim[b] : smax;
        }
        fprintf(c->sum,
                "  run queues: not fitted: no balance interval of 1 to %d ticks reproduces the ring (measured %.3f ms "
                "[%.3f, %.3f] over the baseline; simulated %.3f to %.3f ms, the kernel %s, its deliveries %.3f ms "
                "on average)\n",
                MAX_TICKS, 1e3 * excess, 1e3 * lo, 1e3 * hi, 1e3 * smin, 1e3 * smax, k->kernel_release,
                1e3 * delivery);
        free(emp);
        return 0;
    }
    cJSON *o = cJSON_CreateObject();
    ss_cal_put_num(o, "slice_s", p.slice_s);
    ss_cal_put_num(o, "tick_s", p.tick_s);
    ss_cal_put_num(o, "migration_cost_s", p.migration_cost_s);
    cJSON_AddNumberToObject(o, "balance_ticks", best);
    cJSON_AddNumberToObject(o, "cores", cores);
    cJSON_AddStringToObject(o, "kernel", k->kernel_release);
    if (assumed)
        cJSON_AddStringToObject(o, "migration_cost_assumed",
                                "not read by the probe (debugfs): Linux's default sysctl_sched_migration_cost");
    cJSON *rj = cJSON_AddObjectToObject(o, "ring");
    ss_cal_put_num(rj, "measured_excess_s", excess);
    ss_cal_put_range(rj, "measured_excess_s_ci95", lo, hi);
    ss_cal_put_num(rj, "delivery_s", delivery);
    cJSON_AddNumberToObject(rj, "deliveries", (double)nemp);
    ss_cal_put_num(rj, "work_s", work_s);
    cJSON *sj = cJSON_AddArrayToObject(rj, "simulated_s");
    cJSON *in = cJSON_AddArrayToObject(rj, "balance_ticks_within_ci95");
    for (unsigned b = 1; b <= MAX_TICKS; b++) {
        cJSON_AddItemToArray(sj, cJSON_CreateNumber(ss_cal_round10(sim[b])));
        if (sim[b] >= lo && sim[b] <= hi) cJSON_AddItemToArray(in, cJSON_CreateNumber(b));
    }
    cJSON_AddStringToObject(o, "method",
                            "the probe's ring simulated on per-core run queues (serve/pipeline_runq.c) with the "
                            "kernel's slice, tick and migration cost, each token's delivery drawn from the baseline "
                            "ring's measured deliveries, for balance intervals of 1 to 8 ticks "
                            "(ring.simulated_s); balance_ticks the nearest to the measured mean stretch over the "
                            "one-token baseline, written only if inside its 95% interval (calibrate_runq.c); 95% "
                            "interval: percentile bootstrap, 2000 "
                            "resamples");
    cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
    cJSON_AddItemToObject(ss_cal_scheduler(c), "run_queues", o);
    free(emp);
    fprintf(c->sum,
            "  run queues on %u cores (kernel %s: slice %.3g ms, tick %.3g ms, migration cost %.3g ms%s): balance "
            "every %u tick%s (ring: measured %.3f ms [%.3f, %.3f] over the baseline, simulated %.3f ms; 1 tick "
            "%.3f ms)\n",
            cores, k->kernel_release, 1e3 * p.slice_s, 1e3 * p.tick_s, 1e3 * p.migration_cost_s,
            assumed ? ", the default" : "", best, best == 1 ? "" : "s", 1e3 * excess, 1e3 * lo, 1e3 * hi,
            1e3 * sim[best], 1e3 * sim[1]);
    return 0;
}
