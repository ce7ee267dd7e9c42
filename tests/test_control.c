/* test_control.c: ROMA's policies (seed roma.md §2.3-2.6) driven through
 * their ops, loaded from the build folder as the simulator loads them -
 * the PI in closed loop with the plant the seed reconstructs, checked
 * against the double pole eq. 12 places; Algorithm 1's choice on
 * hand-built queues; gpu-rr's rotation; rules and static; bad parameters -
 * and the pure supervisor (serve/supervisor.h) in its three regimes. */
#include "test.h"

#include "serve/plugin.h"
#include "control/supervisor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define POL_DIR SS_BUILD_DIR "/policies"

/* ---- helpers ---------------------------------------------------------- */

typedef struct pol {
    ss_plugin p;
    void *state;
} pol;

/* Load policy `name` of `kind` and init it with NULL-terminated key/value
 * pairs; 0 ok, -1 (load) or the init's -1 with its message in msg. */
static int pol_open(pol *o, const char *name, ss_policy_kind kind, const char *const *kv, char *msg, size_t msglen)
{
    ss_err err;
    memset(&err, 0, sizeof err);
    memset(o, 0, sizeof *o);
    if (ss_plugin_load(&o->p, name, kind, POL_DIR, "scn.yaml", 1, 1, &err) != 0) {
        snprintf(msg, msglen, "load failed");
        return -1;
    }
    ss_param items[8];
    size_t n = 0;
    for (; kv && kv[2 * n] && n < 8; n++) items[n] = (ss_param){.key = kv[2 * n], .value = kv[2 * n + 1]};
    ss_params params = {.items = items, .n = n};
    ss_policy_init args = {.params = &params, .ngroups = 4};
    if (o->p.pol->init && o->p.pol->init(&o->state, &args, msg, msglen) != 0) {
        ss_plugin_unload(&o->p);
        return -1;
    }
    return 0;
}

static void pol_close(pol *o)
{
    if (o->p.pol->fini) o->p.pol->fini(o->state);
    ss_plugin_unload(&o->p);
}

static double demand(pol *o, const ss_control_view *v)
{
    return o->p.pol->ops.controller.demand(o->state, v);
}

static void grant(pol *o, const ss_control_view *v, double cores)
{
    if (o->p.pol->ops.controller.granted) o->p.pol->ops.controller.granted(o->state, v, cores);
}

static uint32_t pick(pol *o, const ss_dqueue_view *q, uint32_t n, uint32_t device)
{
    ss_dsched_ctx ctx = {.device = device, .now_s = 10, .q = q, .n = n};
    return o->p.pol->ops.device_scheduler.pick(o->state, &ctx);
}

#define CLOSE(x, y) (fabs((double)(x) - (double)(y)) <= 1e-12 * (1 + fabs((double)(y))))

/* ---- the PI in closed loop (R §2.5) ------------------------------------ */

/* Eq. 12: the PI zero a and gain K that put both closed-loop poles of the
 * PI K (z - a)/(z - 1) with the plant k (z - b)/(z - 1) at z = q. */
static double eq12_a(double b, double q) { return ((2 - b) * q - b) / (q - 2 * b + 1); }
static double eq12_k(double a, double b, double kp) { return 4 * (a - 1) * (b - 1) / (kp * (b - a) * (b - a)); }

/* The loop: the plant G(z) = kp (z - b)/(z - 1) from cores to response
 * time, with the physical sign (more cores, faster responses), in
 * deviations from the operating point (u_op cores, the set point):
 *     y(k) = y(k-1) - kp (du(k) - b du(k-1)) + d(k) - d(k-1),  du = u - u_op,
 * starting at the set point; the disturbance d steps by d_s at k = 0 (a
 * burst that raises the response time).  The plant passes u(k) straight
 * through to y(k) (the seed's biproper G), so the loop is algebraic: each
 * period the test asks the plugin twice at the same now_s (responses 0 and
 * 1 s: demand() is affine in the measurement), solves the loop for y(k),
 * then asks with y(k) and grants the answer.  e[k] = y(k) - set point.
 * Returns the largest |u - (affine prediction)| seen (should be ~0). */
static double pi_loop(const char *k_txt, const char *a_txt, double kp, double b, double d_s, int steps, double *e)
{
    const double sla_s = 0.5, alpha = 0.8, sp_s = alpha * sla_s, u_op = 3;
    pol o;
    char msg[256] = "";
    const char *kv[] = {"K", k_txt, "a", a_txt, "alpha", "0.8", NULL};
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma-pi", SS_KIND_CONTROLLER, kv, msg, sizeof msg), 0);
    double y_prev = sp_s, du_prev = 0, u_now = u_op, worst = 0;
    for (int k = 0; k < steps; k++) {
        ss_control_view v = {.now_s = k, .period_s = 1, .sla_s = sla_s, .cores = u_now, .min_cores = 0.1,
                             .avail_cores = 1e9, .done_cpu = 10};
        v.rt_mean_s = 0;
        double c0 = demand(&o, &v);
        v.rt_mean_s = 1;
        double c1 = demand(&o, &v) - c0;
        double dd = k == 0 ? d_s : 0;
        double y = (y_prev - kp * (c0 - u_op - b * du_prev) + dd) / (1 + kp * c1);
        v.rt_mean_s = y;
        double u = demand(&o, &v);
        worst = fmax(worst, fabs(u - (c0 + c1 * y)));
        grant(&o, &v, u);
        e[k] = y - sp_s;
        du_prev = u - u_op;
        y_prev = y;
        u_now = u;
    }
    pol_close(&o);
    return worst;
}

/* e(k) for a closed loop with both poles at q after an output step d_s:
 * E(z) = d_s z (z - 1) / ((1 + kp K)(z - q)^2), i.e.
 * e(k) = d_s / (1 + kp K) ((k + 1) q^k - k q^(k-1)). */
static double pi_ref(double d_s, double kp, double k_gain, double q, int k)
{
    double qk1 = k == 0 ? 0 : pow(q, k - 1);
    return d_s / (1 + kp * k_gain) * ((k + 1) * pow(q, k) - k * qk1);
}

/* The largest |e - reference| of a loop run with gain kgain and zero a,
 * the reference being the double pole at q with the design's gain ref_k. */
static double pi_miss(double kgain, double a, double ref_k, double kp, double b, double q, double d_s, double *e,
                      int steps)
{
    char kt[64], at[64];
    snprintf(kt, sizeof kt, "%.17g", kgain);
    snprintf(at, sizeof at, "%.17g", a);
    double aff = pi_loop(kt, at, kp, b, d_s, steps, e);
    CU_ASSERT(aff < 1e-9); /* demand() is affine in the measurement and repeatable within a period */
    double miss = 0;
    for (int k = 0; k < steps; k++) miss = fmax(miss, fabs(e[k] - pi_ref(d_s, kp, ref_k, q, k)));
    return miss;
}

static void test_pi_double_pole(void)
{
    /* The seed's worked numbers first (b = 0.3, q = 0.5, k = 1 -> a = 11/18
     * = 0.611, K = 11.25), then a slower, weaker plant. */
    CU_ASSERT(CLOSE(eq12_a(0.3, 0.5), 11.0 / 18));
    CU_ASSERT(CLOSE(eq12_k(eq12_a(0.3, 0.5), 0.3, 1), 11.25));
    static const struct {
        double b, q, kp;
    } design[] = {{0.3, 0.5, 1}, {0.5, 0.8, 0.05}, {0.1, 0.2, 2}};
    enum { STEPS = 80 };
    for (size_t i = 0; i < sizeof design / sizeof design[0]; i++) {
        double b = design[i].b, q = design[i].q, kp = design[i].kp, d_s = 0.1;
        double a = eq12_a(b, q), kg = eq12_k(a, b, kp);
        double e[STEPS];
        double miss = pi_miss(kg, a, kg, kp, b, q, d_s, e, STEPS);
        CU_ASSERT(miss < 1e-12);
        if (miss >= 1e-12) fprintf(stderr, "\n  design %zu: e(k) misses the double pole by %g\n", i, miss);
        /* Double pole at q: e(k) - 2q e(k-1) + q^2 e(k-2) = 0 from k = 2. */
        for (int k = 2; k < STEPS; k++) CU_ASSERT(fabs(e[k] - 2 * q * e[k - 1] + q * q * e[k - 2]) < 1e-12);
        /* The burst is felt, then the integral action removes it. */
        CU_ASSERT(CLOSE(e[0], d_s / (1 + kp * kg)));
        CU_ASSERT(fabs(e[STEPS - 1]) < 1e-6 * d_s);
        /* A wrong gain or zero puts the poles elsewhere: the check sees it. */
        CU_ASSERT(pi_miss(kg * 1.2, a, kg, kp, b, q, d_s, e, STEPS) > 1e-4 * d_s);
        CU_ASSERT(pi_miss(kg, a + 0.05, kg, kp, b, q, d_s, e, STEPS) > 1e-4 * d_s);
    }
}

/* The difference equation by hand: first period, e(k-1), anti-windup on
 * the granted value, holding without a measurement or an SLA. */
static void test_pi_steps(void)
{
    pol o;
    char msg[256] = "";
    const char *kv[] = {"K", "2", "a", "0.5", "alpha", "0.5", NULL};
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma-pi", SS_KIND_CONTROLLER, kv, msg, sizeof msg), 0);
    /* SLA 1 s, set point 0.5 s. */
    ss_control_view v = {.now_s = 1, .period_s = 1, .sla_s = 1, .rt_mean_s = 0.75, .cores = 2, .avail_cores = 6};
    /* k = 0: u'(k-1) = its cores, e(k-1) = 0: 2 + 2 (0.25 - 0) = 2.5. */
    CU_ASSERT(CLOSE(demand(&o, &v), 2.5));
    CU_ASSERT(CLOSE(demand(&o, &v), 2.5)); /* asked again in the same period: same answer */
    grant(&o, &v, 1.5);                    /* the supervisor cut it */
    /* k = 1: from the granted 1.5, not the demanded 2.5: 1.5 + 2 (0.1 - 0.5 x 0.25) = 1.45.
     * (The view's cores stay 2 here: u'(k-1) comes from granted().) */
    v.now_s = 2, v.rt_mean_s = 0.6;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.45));
    grant(&o, &v, 1.45);
    /* k = 2: no completions: hold, e(k-1) stays 0.1. */
    v.now_s = 3, v.rt_mean_s = NAN, v.cores = 1.45;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.45));
    grant(&o, &v, 1.45);
    /* k = 3: 1.45 + 2 (0.3 - 0.5 x 0.1) = 1.95. */
    v.now_s = 4, v.rt_mean_s = 0.8;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.95));
    grant(&o, &v, 1.95);
    /* No SLA: no set point, hold. */
    v.now_s = 5, v.sla_s = 0, v.cores = 1.95;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.95));
    pol_close(&o);

    /* Without granted() calls it starts from the cores it has. */
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma-pi", SS_KIND_CONTROLLER, NULL, msg, sizeof msg), 0);
    v = (ss_control_view){.now_s = 1, .sla_s = 0.5, .rt_mean_s = 0.5, .cores = 3};
    /* defaults K 0.15, a 0.11, alpha 0.8: 3 + 0.15 (0.1) = 3.015. */
    CU_ASSERT(CLOSE(demand(&o, &v), 3.015));
    v.now_s = 2, v.rt_mean_s = 0.4, v.cores = 2;
    CU_ASSERT(CLOSE(demand(&o, &v), 2 + 0.15 * (0 - 0.11 * 0.1)));
    pol_close(&o);
}

/* ---- the supervisor (R §2.4) ------------------------------------------- */

static void test_supervisor(void)
{
    const double u[3] = {1, 2, 3}; /* 6 cores asked */
    double g[3];
    static const double gammas[3] = {0, 0.5, 1};
    for (int i = 0; i < 3; i++) {
        /* eta = 3/6 = 0.5 < 1: scaled down, whatever gamma. */
        ss_supervise(u, 3, 3, gammas[i], g);
        CU_ASSERT(CLOSE(g[0], 0.5) && CLOSE(g[1], 1) && CLOSE(g[2], 1.5));
        /* eta = 1: as asked. */
        ss_supervise(u, 3, 6, gammas[i], g);
        CU_ASSERT(CLOSE(g[0], 1) && CLOSE(g[1], 2) && CLOSE(g[2], 3));
    }
    /* eta = 12/6 = 2 > 1: u + gamma (eta - 1) u. */
    ss_supervise(u, 3, 12, 0, g);
    CU_ASSERT(CLOSE(g[0], 1) && CLOSE(g[1], 2) && CLOSE(g[2], 3));
    ss_supervise(u, 3, 12, 0.5, g);
    CU_ASSERT(CLOSE(g[0], 1.5) && CLOSE(g[1], 3) && CLOSE(g[2], 4.5));
    ss_supervise(u, 3, 12, 1, g);
    CU_ASSERT(CLOSE(g[0], 2) && CLOSE(g[1], 4) && CLOSE(g[2], 6)); /* every available core */
    /* Fractional: 0.25 + 0.75 asked of 0.5 -> eta 0.5. */
    double w[2] = {0.25, 0.75};
    ss_supervise(w, 2, 0.5, 1, w); /* in place */
    CU_ASSERT(CLOSE(w[0], 0.125) && CLOSE(w[1], 0.375));
    /* Nothing asked: nothing granted. */
    double z[2] = {0, 0};
    g[0] = g[1] = 7;
    ss_supervise(z, 2, 6, 1, g);
    CU_ASSERT(g[0] == 0 && g[1] == 0);
    ss_supervise(NULL, 0, 6, 0, NULL); /* no containers */
}

/* ---- Algorithm 1 (R §2.3) ---------------------------------------------- */

static ss_dqueue_view qv(uint32_t model, uint32_t queued, double wait_sum_s, double exec_s, double rt_mean_s,
                         uint32_t completed, double sla_s)
{
    return (ss_dqueue_view){.model = model, .queued = queued, .wait_sum_s = wait_sum_s,
                            .head_wait_s = queued ? wait_sum_s : 0, .exec_s = exec_s, .rt_mean_s = rt_mean_s,
                            .completed = completed, .sla_s = sla_s};
}

static void test_roma_pick(void)
{
    pol o;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma", SS_KIND_DEVICE_SCHEDULER, NULL, msg, sizeof msg), 0);
    /* alpha 0.8, beta 0.5.
     * 0: E = 0.2/2 + 0.1 x 1/2 = 0.15, W = 0.225 < SP 0.4: eps 0
     * 1: E = 0.5, W = 0.5 > SP 0.36: eps = 0.14/0.36 = 0.39
     * 2: E = 0.9/3 + 0.1 x 2/2 = 0.4, W = 0.5 > SP 0.4: eps 0.25 */
    ss_dqueue_view q[3] = {qv(0, 2, 0.2, 0.1, 0.3, 5, 0.5), qv(1, 1, 0.5, 0.2, 0.5, 3, 0.45),
                           qv(2, 3, 0.9, 0.1, 0.6, 4, 0.5)};
    CU_ASSERT_EQUAL(pick(&o, q, 3, 0), 1);
    /* An empty queue is skipped, however late its model. */
    q[1].queued = 0, q[1].wait_sum_s = 0, q[1].rt_mean_s = 9;
    CU_ASSERT_EQUAL(pick(&o, q, 3, 0), 2);
    /* The n x P_G term: 0 waited longer on average (0.45 vs 0.4), but 1's
     * second request waits for the first's service: E = 0.4 + 0.2/2 = 0.5. */
    ss_dqueue_view p[2] = {qv(0, 3, 1.35, 0.0, NAN, 0, 0.5), qv(1, 2, 0.8, 0.2, NAN, 0, 0.5)};
    CU_ASSERT_EQUAL(pick(&o, p, 2, 0), 1);
    /* No completions yet: W = E (0.45, eps 0.125) - not a NAN that loses
     * every comparison, nor a 0 that halves W (0.225, eps 0, and the
     * longer queue 1 would win the tie). */
    ss_dqueue_view n[2] = {qv(0, 1, 0.45, 0.1, NAN, 0, 0.5), qv(1, 3, 0.3, 0.0, 0.5, 4, 0.5)};
    CU_ASSERT_EQUAL(pick(&o, n, 2, 0), 0);
    n[0].rt_mean_s = 0.1, n[0].completed = 0; /* a count of 0 means none, whatever the mean says */
    CU_ASSERT_EQUAL(pick(&o, n, 2, 0), 0);
    /* ... and a NAN mean means none, whatever the count (the late model
     * second: a NAN score would lose to the first). */
    ss_dqueue_view n2[2] = {n[1], qv(1, 1, 0.45, 0.1, NAN, 3, 0.5)};
    n2[0].model = 0;
    CU_ASSERT_EQUAL(pick(&o, n2, 2, 0), 1);
    /* Every eps 0: the longest queue, then the lowest index. */
    ss_dqueue_view t[3] = {qv(0, 1, 0.01, 0.01, 0.1, 1, 0.5), qv(1, 4, 0.04, 0.01, 0.1, 1, 0.5),
                           qv(2, 4, 0.04, 0.01, 0.1, 1, 0.5)};
    CU_ASSERT_EQUAL(pick(&o, t, 3, 0), 1);
    t[1].queued = 0;
    CU_ASSERT_EQUAL(pick(&o, t, 3, 0), 2);
    /* No SLA: nothing to exceed, eps 0, whatever its wait; 1 is late. */
    ss_dqueue_view s[2] = {qv(0, 9, 90, 1, 20, 9, 0), qv(1, 1, 0.41, 0.1, NAN, 0, 0.5)};
    CU_ASSERT_EQUAL(pick(&o, s, 2, 0), 1);
    s[1].wait_sum_s = 0.1; /* 1 on time: the tie goes to the longer queue */
    CU_ASSERT_EQUAL(pick(&o, s, 2, 0), 0);
    /* Nothing queued anywhere: 0 (the simulator never asks then). */
    ss_dqueue_view e[2] = {qv(0, 0, 0, 0.1, NAN, 0, 0.5), qv(1, 0, 0, 0.1, NAN, 0, 0.5)};
    CU_ASSERT_EQUAL(pick(&o, e, 2, 0), 0);
    pol_close(&o);

    /* beta = 1: the queue estimate alone; beta = 0: the measured RT alone.
     * 0: E 0.6, R 0.1; 1: E 0.1, R 0.7; SP 0.4 for both. */
    ss_dqueue_view b[2] = {qv(0, 1, 0.6, 0.1, 0.1, 10, 0.5), qv(1, 1, 0.1, 0.1, 0.7, 10, 0.5)};
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma", SS_KIND_DEVICE_SCHEDULER, (const char *const[]){"beta", "1", NULL},
                                   msg, sizeof msg),
                          0);
    CU_ASSERT_EQUAL(pick(&o, b, 2, 0), 0);
    pol_close(&o);
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma", SS_KIND_DEVICE_SCHEDULER, (const char *const[]){"beta", "0", NULL},
                                   msg, sizeof msg),
                          0);
    CU_ASSERT_EQUAL(pick(&o, b, 2, 0), 1);
    pol_close(&o);

    /* alpha: the set point is alpha x SLA.  0: W 0.3, SLA 0.3; 1: W 0.4,
     * SLA 0.5 (beta 1).  alpha 1: 0 is at its SLA (eps 0), 1 below: the
     * tie goes to the longer queue 1.  alpha 0.5: eps 1 vs 0.6: 0.  alpha 0:
     * ranked by W/SLA, 1 vs 0.8: 0. */
    ss_dqueue_view a[2] = {qv(0, 1, 0.3, 0.1, NAN, 0, 0.3), qv(1, 2, 0.7, 0.1, NAN, 0, 0.5)};
    static const struct {
        const char *alpha;
        uint32_t want;
    } as[] = {{"1", 1}, {"0.5", 0}, {"0", 0}};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(pol_open(&o, "roma", SS_KIND_DEVICE_SCHEDULER,
                                       (const char *const[]){"alpha", as[i].alpha, "beta", "1", NULL}, msg,
                                       sizeof msg),
                              0);
        CU_ASSERT_EQUAL(pick(&o, a, 2, 0), as[i].want);
        pol_close(&o);
    }
}

/* ---- gpu-rr ------------------------------------------------------------- */

static void test_gpu_rr(void)
{
    pol o;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "gpu-rr", SS_KIND_DEVICE_SCHEDULER, NULL, msg, sizeof msg), 0);
    /* Models 2, 5, 7 (ids need not be indices). */
    ss_dqueue_view q[3] = {qv(2, 1, 0, 0.1, NAN, 0, 0.5), qv(5, 3, 0, 0.1, NAN, 0, 0.5),
                           qv(7, 2, 0, 0.1, NAN, 0, 0.5)};
    static const uint32_t all[] = {0, 1, 2, 0, 1, 2, 0};
    for (int i = 0; i < 7; i++) CU_ASSERT_EQUAL(pick(&o, q, 3, 0), all[i]);
    /* Device 0 served model 2 last; model 5 empties: 7, then 2, 7, 2. */
    q[1].queued = 0;
    static const uint32_t skip[] = {2, 0, 2, 0};
    for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(pick(&o, q, 3, 0), skip[i]);
    /* Another device has its own rotation (and grows the cursors). */
    q[1].queued = 3;
    CU_ASSERT_EQUAL(pick(&o, q, 3, 9), 0);
    CU_ASSERT_EQUAL(pick(&o, q, 3, 9), 1);
    CU_ASSERT_EQUAL(pick(&o, q, 3, 0), 1); /* device 0 served model 2 last: 5 is next */
    CU_ASSERT_EQUAL(pick(&o, q, 3, 9), 2);
    /* One non-empty queue: always it. */
    q[0].queued = q[1].queued = 0;
    for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(pick(&o, q, 3, 1), 2);
    pol_close(&o);
}

/* ---- rules and static --------------------------------------------------- */

static void test_rules(void)
{
    pol o;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "rules", SS_KIND_CONTROLLER, NULL, msg, sizeof msg), 0);
    ss_control_view v = {.now_s = 15, .period_s = 15, .sla_s = 0.5, .cores = 2, .avail_cores = 6};
    static const struct {
        double rt_s, want;
    } c[] = {{0.4, 3}, {0.9, 3}, {0.39, 2}, {0.11, 2}, {0.1, 1}, {0.0, 1}, {NAN, 2}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        v.rt_mean_s = c[i].rt_s;
        CU_ASSERT(CLOSE(demand(&o, &v), c[i].want));
    }
    v.sla_s = 0, v.rt_mean_s = 5; /* no SLA: hold */
    CU_ASSERT(CLOSE(demand(&o, &v), 2));
    pol_close(&o);
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "rules", SS_KIND_CONTROLLER,
                                   (const char *const[]){"up", "1", "down", "0.5", "step", "0.25", NULL}, msg,
                                   sizeof msg),
                          0);
    v = (ss_control_view){.sla_s = 0.4, .cores = 1.5, .rt_mean_s = 0.39};
    CU_ASSERT(CLOSE(demand(&o, &v), 1.5));
    v.rt_mean_s = 0.4;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.75));
    v.rt_mean_s = 0.2;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.25));
    pol_close(&o);
}

static void test_static(void)
{
    pol o;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "static", SS_KIND_CONTROLLER, (const char *const[]){"cores", "1.5", NULL},
                                   msg, sizeof msg),
                          0);
    ss_control_view v = {.sla_s = 0.5, .cores = 3, .rt_mean_s = 2, .avail_cores = 6};
    CU_ASSERT(CLOSE(demand(&o, &v), 1.5));
    v.rt_mean_s = 0.01, v.cores = 0.5;
    CU_ASSERT(CLOSE(demand(&o, &v), 1.5));
    pol_close(&o);
    /* No `cores`: the cores it had when first asked, kept after a cut. */
    CU_ASSERT_EQUAL_FATAL(pol_open(&o, "static", SS_KIND_CONTROLLER, NULL, msg, sizeof msg), 0);
    v = (ss_control_view){.sla_s = 0.5, .cores = 3, .rt_mean_s = 2};
    CU_ASSERT(CLOSE(demand(&o, &v), 3));
    v.cores = 2, v.rt_mean_s = NAN;
    CU_ASSERT(CLOSE(demand(&o, &v), 3));
    pol_close(&o);
}

/* ---- bad parameters ----------------------------------------------------- */

static void test_bad_params(void)
{
    static const struct {
        const char *policy;
        ss_policy_kind kind;
        const char *key, *value, *says;
    } bad[] = {
        {"roma", SS_KIND_DEVICE_SCHEDULER, "alpha", "-0.1", "alpha: expected a number from 0 to 1"},
        {"roma", SS_KIND_DEVICE_SCHEDULER, "alpha", "1.01", "alpha: expected a number from 0 to 1"},
        {"roma", SS_KIND_DEVICE_SCHEDULER, "beta", "2", "beta: expected a number from 0 to 1"},
        {"roma", SS_KIND_DEVICE_SCHEDULER, "beta", "-1e-9", "beta: expected a number from 0 to 1"},
        {"roma", SS_KIND_DEVICE_SCHEDULER, "beta", "half", "beta: expected a number from 0 to 1"},
        {"roma-pi", SS_KIND_CONTROLLER, "alpha", "1.5", "alpha: expected a number from 0 to 1"},
        {"roma-pi", SS_KIND_CONTROLLER, "K", "-0.15", "K: expected a number"},
        {"roma-pi", SS_KIND_CONTROLLER, "K", "0", "K: expected a number above 0"},
        {"roma-pi", SS_KIND_CONTROLLER, "a", "nan", "a: expected a number"},
        {"rules", SS_KIND_CONTROLLER, "down", "0.9", "down: expected at most up"},
        {"rules", SS_KIND_CONTROLLER, "step", "0", "step: expected above 0"},
        {"rules", SS_KIND_CONTROLLER, "up", "-1", "up: expected a number"},
        {"static", SS_KIND_CONTROLLER, "cores", "0", "cores: expected a number above 0"},
        {"static", SS_KIND_CONTROLLER, "cores", "-2", "cores: expected a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pol o;
        char msg[256] = "";
        const char *kv[] = {bad[i].key, bad[i].value, NULL};
        CU_ASSERT_EQUAL(pol_open(&o, bad[i].policy, bad[i].kind, kv, msg, sizeof msg), -1);
        CU_ASSERT_TRUE(ss_test_has(msg, bad[i].says));
    }
    /* The edges of [0, 1] are accepted. */
    static const char *const edges[][4] = {{"alpha", "0", "beta", "1"}, {"alpha", "1", "beta", "0"}};
    for (int i = 0; i < 2; i++) {
        pol o;
        char msg[256] = "";
        const char *kv[] = {edges[i][0], edges[i][1], edges[i][2], edges[i][3], NULL};
        int rc = pol_open(&o, "roma", SS_KIND_DEVICE_SCHEDULER, kv, msg, sizeof msg);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc == 0) pol_close(&o);
    }
}

/* The five load as their kind, named as their file. */
static void test_descriptors(void)
{
    static const struct {
        const char *name;
        ss_policy_kind kind;
    } pols[] = {{"roma", SS_KIND_DEVICE_SCHEDULER}, {"gpu-rr", SS_KIND_DEVICE_SCHEDULER},
                {"roma-pi", SS_KIND_CONTROLLER},    {"rules", SS_KIND_CONTROLLER},
                {"static", SS_KIND_CONTROLLER}};
    for (size_t i = 0; i < sizeof pols / sizeof pols[0]; i++) {
        pol o;
        char msg[256] = "";
        CU_ASSERT_EQUAL_FATAL(pol_open(&o, pols[i].name, pols[i].kind, NULL, msg, sizeof msg), 0);
        CU_ASSERT_STRING_EQUAL(o.p.pol->name, pols[i].name);
        CU_ASSERT(o.p.pol->summary && o.p.pol->summary[0]);
        pol_close(&o);
    }
}

SS_TEST_SUITE("control", {"roma-pi in closed loop: zero steady-state error, double pole at q (eq. 12)",
                          test_pi_double_pole},
              {"roma-pi by hand: first period, anti-windup, hold without data", test_pi_steps},
              {"supervisor: eta < 1, = 1, > 1 with gamma 0, 0.5, 1", test_supervisor},
              {"roma: Algorithm 1 on hand-built queues", test_roma_pick}, {"gpu-rr: cycles, skips empty queues", test_gpu_rr},
              {"rules: up, down, hold", test_rules}, {"static: holds", test_static},
              {"bad parameters are refused", test_bad_params}, {"descriptors", test_descriptors})
