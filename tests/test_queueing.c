/* test_queueing.c: analytical validation of the serving core against
 * queueing theory: M/M/1 (rho 0.5 and 0.9), M/M/c (Erlang C, c = 4), M/D/1
 * (Pollaczek-Khinchine), a Jackson tandem of two M/M/1 stations, and N
 * closed-loop clients on one server (exact mean value analysis).
 *
 * How the tolerances are set.  Each check runs R independent replications
 * (streams seeded from (seed, replication)), takes each replication's
 * estimate, and builds the 99% Student-t confidence interval of their mean.
 * A check passes when the theoretical value lies inside that interval: for
 * a correct simulator this fails with probability 1% per check and seed
 * (the seeds are fixed, so the suite is deterministic).  A confidence
 * interval can be made to contain anything by being wide, so each check
 * also bounds the interval's half-width (the test's power): a bias larger
 * than that bound could not pass.  Run lengths are chosen so the bound is
 * a few percent; the expected half-widths are derived in each test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "test.h"
#include "world/world.h"

enum { REPS = 10, MAXREPS = 32 };

/* Per-replication estimates of the first task. */
typedef struct est {
    double lat[MAXREPS], queue[MAXREPS], p50[MAXREPS], p99[MAXREPS], tput[MAXREPS], util[MAXREPS];
    size_t n;
} est;

static int run_text(const char *yaml, est *e)
{
    char *dir = ss_test_tmpdir();
    char *path = ss_test_write(dir, "q.yaml", yaml);
    ss_scenario sc;
    ss_err err = {0};
    int rc = ss_scenario_load(&sc, path, NULL, NULL, 0, &err);
    if (rc < 0) {
        fprintf(stderr, "\n%s\n", err.msg);
    } else {
        e->n = sc.replications < MAXREPS ? sc.replications : MAXREPS;
        for (uint32_t r = 0; r < e->n && rc == 0; r++) {
            ss_world *w = ss_world_build(&sc, r, NULL, &err);
            if (!w) {
                fprintf(stderr, "\n%s\n", err.msg);
                rc = -1;
                break;
            }
            ss_world_run(w);
            ss_run_result res;
            ss_world_result(w, &res);
            e->lat[r] = res.tasks[0].latency_mean_s;
            e->queue[r] = res.tasks[0].queue_mean_s;
            e->p50[r] = res.tasks[0].latency_p50_s;
            e->p99[r] = res.tasks[0].latency_p99_s;
            e->tput[r] = res.tasks[0].throughput_rps;
            e->util[r] = res.ndevices ? res.util[0] : 0;
            ss_run_result_free(&res);
            ss_world_free(w);
        }
        ss_scenario_free(&sc);
    }
    remove(path);
    remove(dir);
    free(path);
    free(dir);
    return rc;
}

/* Theory inside the 99% CI of the replication means, and the CI no wider
 * than max_rel of the theoretical value. */
static void check(const char *what, const double *x, size_t n, double theory, double max_rel)
{
    double mean;
    double hw = ss_ci(x, n, 0.99, &mean);
    printf("\n    %-28s sim %.5g +- %.3g (99%% CI, %zu reps)  theory %.5g  error %+.2f%%", what, mean, hw, n,
           theory, 100.0 * (mean - theory) / theory);
    CU_ASSERT(fabs(mean - theory) <= hw);
    CU_ASSERT(hw <= max_rel * theory);
}

static char *mm_scenario(double lambda, const char *service, unsigned servers, unsigned long long requests)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "seed: 11\nreplications: %d\nrequests: %llu\nwarmup_requests: %llu\n"
             "hosts: [{name: h, devices: [{name: d, kind: cpu, cores: %u}]}]\n"
             "models: [{name: m, service: %s}]\n"
             "deployment: [{model: m, device: d, servers: %u}]\n"
             "workloads: [{name: w, kind: poisson, target: m, rate_rps: %.17g}]\n",
             REPS, requests, requests / 50, servers, service, servers, lambda);
    return strdup(buf);
}

/* M/M/1, lambda = 0.5, mu = 1: W = 1/(mu - lambda) = 2, Wq = rho/(mu - lambda) = 1,
 * sojourn time ~ Exp(mu - lambda) so its median is ln 2 / 0.5 and p99 ln 100 / 0.5.
 * Relative s.d. of one replication's mean over T = 200,000 time units is
 * about sqrt(2 rho (1 + rho) / ((1 - rho)^4 L^2 T)) = 1.1% (L = 1); over 10
 * replications the 99% half-width is about 3.25 * 1.1% / sqrt(10) = 1.1%: bound 3%. */
static void test_mm1_rho05(void)
{
    est e;
    char *y = mm_scenario(0.5, "{dist: exponential, mean_s: 1}", 1, 100000);
    CU_ASSERT_EQUAL_FATAL(run_text(y, &e), 0);
    free(y);
    check("M/M/1 rho=0.5 W", e.lat, e.n, 2.0, 0.03);
    check("M/M/1 rho=0.5 Wq", e.queue, e.n, 1.0, 0.05);
    check("M/M/1 rho=0.5 median", e.p50, e.n, log(2.0) / 0.5, 0.03);
    check("M/M/1 rho=0.5 p99", e.p99, e.n, log(100.0) / 0.5, 0.05);
    check("M/M/1 rho=0.5 utilisation", e.util, e.n, 0.5, 0.01);
    check("M/M/1 rho=0.5 throughput", e.tput, e.n, 0.5, 0.01);
    printf("\n");
}

/* M/M/1 at rho = 0.9: W = 10.  Strong autocorrelation: with L = 9 and
 * T = 220,000 the relative s.d. of one replication's mean is about
 * sqrt(2 * 0.9 * 1.9 / (0.1^4 * 81 * T)) = 4.4%, the 99% half-width over 10
 * replications about 4.5%: bound 7%. */
static void test_mm1_rho09(void)
{
    est e;
    char *y = mm_scenario(0.9, "{dist: exponential, mean_s: 1}", 1, 200000);
    CU_ASSERT_EQUAL_FATAL(run_text(y, &e), 0);
    free(y);
    check("M/M/1 rho=0.9 W", e.lat, e.n, 10.0, 0.07);
    /* The p99 of so autocorrelated a process varies far more than the mean;
     * no closed form for its variance is used here: its per-replication
     * relative s.d. was measured at 5-12% (runs with two generators), so the
     * 99% half-width over 10 replications is 5-12%: bound 15%.  The tail is
     * checked tightly at rho = 0.5 above. */
    check("M/M/1 rho=0.9 p99", e.p99, e.n, log(100.0) / 0.1, 0.15);
    check("M/M/1 rho=0.9 utilisation", e.util, e.n, 0.9, 0.01);
    printf("\n");
}

/* Erlang C probability of waiting with c servers and offered load a = lambda/mu. */
static double erlang_c(unsigned c, double a)
{
    double term = 1, sum = 0;
    for (unsigned k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a); /* a^c / c! * c / (c - a) */
    return top / (sum + top);
}

/* M/M/4, lambda = 3, mu = 1 (rho = 0.75): Wq = C(4, 3) / (c mu - lambda)
 * = 0.5094, W = Wq + 1.  One instance with 4 servers sharing its queue is
 * exactly the M/M/c station. */
static void test_mmc(void)
{
    est e;
    char *y = mm_scenario(3.0, "{dist: exponential, mean_s: 1}", 4, 100000);
    CU_ASSERT_EQUAL_FATAL(run_text(y, &e), 0);
    free(y);
    double wq = erlang_c(4, 3.0) / (4.0 - 3.0);
    CU_ASSERT_DOUBLE_EQUAL(erlang_c(4, 3.0), 13.5 / 26.5, 1e-12); /* hand-computed */
    check("M/M/4 rho=0.75 W", e.lat, e.n, wq + 1.0, 0.03);
    check("M/M/4 rho=0.75 Wq", e.queue, e.n, wq, 0.06);
    check("M/M/4 rho=0.75 utilisation", e.util, e.n, 0.75, 0.01);
    printf("\n");
}

/* M/D/1, lambda = 0.8, D = 1: Pollaczek-Khinchine Wq = rho D / (2 (1 - rho)) = 2, W = 3. */
static void test_md1(void)
{
    est e;
    char *y = mm_scenario(0.8, "{dist: deterministic, value_s: 1}", 1, 100000);
    CU_ASSERT_EQUAL_FATAL(run_text(y, &e), 0);
    free(y);
    check("M/D/1 rho=0.8 W", e.lat, e.n, 3.0, 0.04);
    check("M/D/1 rho=0.8 Wq", e.queue, e.n, 2.0, 0.06);
    printf("\n");
}

/* Jackson tandem: Poisson(0.5) -> M/M/1 (mu 1) -> M/M/1 (mu 2).  Burke's
 * theorem makes the second station's input Poisson too, so
 * W = 1/(1 - 0.5) + 1/(2 - 0.5) = 2.6667. */
static void test_tandem(void)
{
    est e;
    static const char y[] =
        "seed: 12\nreplications: 10\nrequests: 100000\nwarmup_requests: 2000\n"
        "hosts: [{name: h, devices: [{name: a, kind: cpu}, {name: b, kind: cpu}]}]\n"
        "models:\n"
        "  - {name: s1, service: {dist: exponential, mean_s: 1.0}}\n"
        "  - {name: s2, service: {dist: exponential, mean_s: 0.5}}\n"
        "tasks: [{name: both, path: [s1, s2]}]\n"
        "deployment: [{model: s1, device: a}, {model: s2, device: b}]\n"
        "workloads: [{name: w, kind: poisson, target: both, rate_rps: 0.5}]\n";
    CU_ASSERT_EQUAL_FATAL(run_text(y, &e), 0);
    check("tandem M/M/1->M/M/1 W", e.lat, e.n, 2.0 + 1.0 / 1.5, 0.03);
    /* Wq = rho1/(mu1 - lambda) + rho2/(mu2 - lambda) = 0.5/0.5 + 0.25/1.5 */
    check("tandem queueing", e.queue, e.n, 1.0 + 0.25 / 1.5, 0.05);
    printf("\n");
}

/* N clients with exponential think time Z cycling through one exponential
 * server S: exact MVA, R(n) = S (1 + Q(n-1)), X(n) = n / (Z + R(n)),
 * Q(n) = X(n) R(n).  (The delay station is insensitive to the think-time
 * distribution, the FIFO exponential server makes the network product-form.) */
static void test_closed_mva(void)
{
    const unsigned N = 10;
    const double S = 1.0, Z = 5.0;
    double q = 0, r = 0, x = 0;
    for (unsigned n = 1; n <= N; n++) {
        r = S * (1 + q);
        x = n / (Z + r);
        q = x * r;
    }
    est e;
    static const char y[] =
        "seed: 13\nreplications: 10\nduration_s: 40000\nwarmup_s: 1000\n"
        "hosts: [{name: h, devices: [{name: d, kind: cpu}]}]\n"
        "models: [{name: m, service: {dist: exponential, mean_s: 1.0}}]\n"
        "deployment: [{model: m, device: d}]\n"
        "workloads: [{name: users, kind: closed, target: m, clients: 10, think: {dist: exponential, mean_s: 5}}]\n";
    CU_ASSERT_EQUAL_FATAL(run_text(y, &e), 0);
    check("closed N=10 Z=5 response time", e.lat, e.n, r, 0.04);
    check("closed N=10 Z=5 throughput", e.tput, e.n, x, 0.02);
    check("closed N=10 Z=5 utilisation", e.util, e.n, x * S, 0.02);
    printf("\n");
}

SS_TEST_SUITE("queueing", {"M/M/1 rho 0.5", test_mm1_rho05}, {"M/M/1 rho 0.9", test_mm1_rho09},
              {"M/M/c c=4 (Erlang C)", test_mmc}, {"M/D/1 (Pollaczek-Khinchine)", test_md1},
              {"tandem M/M/1 (Jackson)", test_tandem}, {"closed loop (MVA)", test_closed_mva})
