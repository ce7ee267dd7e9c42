/* calibrate_runq.c: the run queues' balance interval from the probe's ring
 * benchmark (tools/probe/stacking.py, kind "stacking" samples), under the
 * kernel's constants the probe read beside it (environment.kernel,
 * tools/probe/kernel.py): scheduler.run_queues in the model file, what
 * `pipeline.run_queues: {profile: ...}` reads (serve/pipeline_runq.h).
 *
 * The ring is simulated as the probe builds it: max(6, 4 K) processes, K
 * tokens (K = the cores) started ring / K stages and work_s / K apart, each
 * process a main thread that burns work_s of CPU per token and a receiver
 * thread that takes the token's delivery, exponential with the mean of the
 * zmq-copy hop's delivery (transport_fits.zmq-copy: the probe's own ZeroMQ
 * ipc sockets) [ASSUMPTION: the ring's one-byte token costs the receiving
 * process that delivery, on a thread of its own; the main thread's send and
 * receive are not in the burn], on the cores as run queues with the kernel's
 * slice, tick and migration cost, for 400 s (burns from 5 s on).  Its mean
 * stretch (wall minus CPU time of a burn) for each balance interval of 1 to
 * 8 ticks is set against the measured ring's mean stretch over its one-token
 * baseline (which carries the timer noise the simulation has not); the
 * nearest interval is written, with every simulated value and the measured
 * excess's 95% interval (percentile bootstrap, 2,000 resamples, a fixed
 * stream).  A migration cost the probe could not read (debugfs) is the
 * kernel's default, 0.5 ms, and the file says so; without the slice or the
 * tick, or without the zmq-copy delivery, nothing is fitted (the summary
 * says why). */
#include <gsl/gsl_randist.h>
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
    double work_s, delivery_s, sum_s;
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
    ss_runq_run(s->r->q, &s->rx, gsl_ran_exponential(s->r->rng, s->r->delivery_s), rx_done, s);
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
static double simulate(const ss_runq_params *p, unsigned cores, double work_s, double delivery_s)
{
    ring r = {.eng = ss_engine_new(), .work_s = work_s, .delivery_s = delivery_s};
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

/* The zmq-copy hop's delivery mean (s), or NAN without that law. */
static double zmq_delivery_s(const calib *c)
{
    for (size_t i = 0; i < c->ntp; i++)
        if (strcmp(c->tp[i].name, "zmq-copy") == 0 && c->tp[i].law[3]) return c->tp[i].v[3];
    return NAN;
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
    double delivery = zmq_delivery_s(c);
    if (!k->kernel_release) why = "the ring's profile records no kernel (environment.kernel, tools/probe/kernel.py)";
    else if (isnan(k->kernel_slice_s) || isnan(k->kernel_tick_s))
        why = "the probe could not read the kernel's slice or tick (environment.kernel)";
    else if (!(delivery > 0)) why = "no zmq-copy hop delivery fitted (the ring's token delivery)";
    else if (isnan(ss_cal_sample_of(&g->refs[0])->work_s)) why = "the ring's samples give no work_s (a burn's CPU)";
    if (why) {
        fprintf(c->sum, "  run queues: not fitted: %s\n", why);
        return 0;
    }
    unsigned cores = ss_cal_sample_of(&g->refs[0])->cores;
    double work_s = ss_cal_sample_of(&g->refs[0])->work_s;
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
        sim[b] = simulate(&p, cores, work_s, delivery);
        if (fabs(sim[b] - excess) < fabs(sim[best] - excess)) best = b;
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
    ss_cal_put_num(rj, "work_s", work_s);
    cJSON *sj = cJSON_AddArrayToObject(rj, "simulated_s");
    cJSON *in = cJSON_AddArrayToObject(rj, "balance_ticks_within_ci95");
    for (unsigned b = 1; b <= MAX_TICKS; b++) {
        cJSON_AddItemToArray(sj, cJSON_CreateNumber(ss_cal_round10(sim[b])));
        if (sim[b] >= lo && sim[b] <= hi) cJSON_AddItemToArray(in, cJSON_CreateNumber(b));
    }
    cJSON_AddStringToObject(o, "method",
                            "the probe's ring simulated on per-core run queues (serve/pipeline_runq.c) with the "
                            "kernel's slice, tick and migration cost, each token's delivery exponential with the "
                            "zmq-copy delivery mean (transport_fits), for balance intervals of 1 to 8 ticks "
                            "(ring.simulated_s); balance_ticks the nearest to the measured mean stretch over the "
                            "one-token baseline (calibrate_runq.c); 95% interval: percentile bootstrap, 2000 "
                            "resamples");
    cJSON_AddItemToObject(o, "from", ss_cal_refs_json(g));
    cJSON_AddItemToObject(ss_cal_scheduler(c), "run_queues", o);
    fprintf(c->sum,
            "  run queues on %u cores (kernel %s: slice %.3g ms, tick %.3g ms, migration cost %.3g ms%s): balance "
            "every %u tick%s (ring: measured %.3f ms [%.3f, %.3f] over the baseline, simulated %.3f ms; 1 tick "
            "%.3f ms)\n",
            cores, k->kernel_release, 1e3 * p.slice_s, 1e3 * p.tick_s, 1e3 * p.migration_cost_s,
            assumed ? ", the default" : "", best, best == 1 ? "" : "s", 1e3 * excess, 1e3 * lo, 1e3 * hi,
            1e3 * sim[best], 1e3 * sim[1]);
    return 0;
}
