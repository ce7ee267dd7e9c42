/* test_flow_random.c: the flow-level network model (sim/core/flow.h) against a
 * global progressive-filling reference, on random instances: caps, set-up,
 * cancellations, equal start times, routes that name a link twice,
 * capacities and caps changed in flight, per-link weights; every way of
 * re-solving
 * (propagation with its retries and fallbacks, search and fill with its
 * scan and its heap), and determinism. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/flow.h"
#include "test.h"

#define G 1e9

enum { RL_MAX = 400, RF_MAX = 1200, RMAXR = 6 }; /* routes of 5 and 6 links live outside the flow record */

typedef struct rflow {
    uint32_t route[RMAXR];
    double w[RMAXR];    /* weights, if weighted */
    int weighted;
    size_t n;
    double cap_bps, bytes, start_s, setup_s, goodput;
    double cancel_s;    /* < 0: never */
    double carried;     /* bytes sent by the time it was cancelled */
    ss_flow_id id;
    int done;
    double done_s;
} rflow;

static rflow rf[RF_MAX];
static double rcap[RL_MAX];
static int RL, RF, rcheck_every, revents;

/* Changes in flight (when rchanges > 0): the capacity of link idx, or the
 * cap of flow idx, to value. */
enum { RC_MAX = 2000 };
typedef struct rchange {
    int flow; /* 1: a flow's cap, 0: a link's capacity */
    int idx;
    double value;
} rchange;
static rchange rch[RC_MAX];
static int rchanges; /* changes per instance, 0: none (and the instances of old) */
static double rweighted; /* fraction of flows with weights (0: the instances of old) */
static ss_flownet *rnet;
static int rbad, rchecks;
static uint64_t rheap_fills;

static uint64_t rs_state;
static double urand(void) /* xorshift64*, [0,1) */
{
    rs_state ^= rs_state >> 12;
    rs_state ^= rs_state << 25;
    rs_state ^= rs_state >> 27;
    return (double)((rs_state * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

/* Progressive filling over every active flow at once, the textbook way:
 * each round computes every link's fair share and the smallest cap, and
 * freezes everything at that level. */
static void reference_rates(double *rate)
{
    static int act[RF_MAX], frozen[RF_MAX], inc_off[RL_MAX + 1], inc[RF_MAX * RMAXR];
    int na = 0, cnt[RL_MAX];
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < RF; i++) {
        act[i] = rf[i].id && ss_flow_phase_of(rnet, rf[i].id) == SS_FLOW_ACTIVE;
        frozen[i] = 0;
        rate[i] = 0;
        na += act[i];
        if (act[i])
            for (size_t k = 0; k < rf[i].n; k++) cnt[rf[i].route[k]]++;
    }
    /* incidence lists: inc[inc_off[l] ..] = flows on link l, with repeats,
     * and the weight of each entry */
    static double incw[RF_MAX * RMAXR];
    inc_off[0] = 0;
    for (int l = 0; l < RL; l++) inc_off[l + 1] = inc_off[l] + cnt[l];
    for (int l = 0; l < RL; l++) cnt[l] = inc_off[l];
    for (int i = 0; i < RF; i++)
        if (act[i])
            for (size_t k = 0; k < rf[i].n; k++) {
                incw[cnt[rf[i].route[k]]] = rf[i].weighted ? rf[i].w[k] : 1;
                inc[cnt[rf[i].route[k]]++] = i;
            }
    double share[RL_MAX];
    while (na > 0) {
        double m = INFINITY;
        for (int l = 0; l < RL; l++) {
            double left = rcap[l], wsum = 0;
            for (int j = inc_off[l]; j < inc_off[l + 1]; j++) {
                if (frozen[inc[j]]) left -= incw[j] * rate[inc[j]];
                else wsum += incw[j];
            }
            share[l] = wsum > 0 ? left / wsum : INFINITY;
            if (share[l] < m) m = share[l];
        }
        for (int i = 0; i < RF; i++)
            if (act[i] && !frozen[i] && rf[i].cap_bps > 0 && rf[i].cap_bps < m) m = rf[i].cap_bps;
        for (int i = 0; i < RF; i++) {
            if (!act[i] || frozen[i]) continue;
            int fr = rf[i].cap_bps > 0 && rf[i].cap_bps <= m * (1 + 1e-12);
            for (size_t k = 0; k < rf[i].n && !fr; k++) fr = share[rf[i].route[k]] <= m * (1 + 1e-12);
            if (fr) {
                frozen[i] = 1;
                rate[i] = m;
                na--;
            }
        }
    }
}

static void cross_check(void)
{
    if (++revents % rcheck_every) return;
    static double ref[RF_MAX];
    reference_rates(ref);
    rchecks++;
    for (int i = 0; i < RF; i++) {
        if (!rf[i].id) continue;
        double r = ss_flow_rate_bps(rnet, rf[i].id);
        if (fabs(r - ref[i]) > 1e-9 * (ref[i] > 1 ? ref[i] : 1)) rbad++;
    }
    for (uint32_t l = 0; l < (uint32_t)RL; l++)
        if (ss_link_utilisation(rnet, l) > 1 + 1e-9) rbad++;
}

static void rdone(ss_engine *e, void *ctx, ss_flow_id id, double now_s)
{
    rflow *f = ctx;
    if (f->id != id || f->done) rbad++;
    f->done = 1;
    f->done_s = now_s;
    if (now_s < f->start_s + f->setup_s) rbad++;
    cross_check();
}

static void rstart(ss_engine *e, void *ctx, uint64_t i)
{
    ss_flow_opts o = {.cap_bps = rf[i].cap_bps, .setup_s = rf[i].setup_s, .goodput = rf[i].goodput};
    rf[i].id = ss_flow_start_weighted(rnet, rf[i].route, rf[i].weighted ? rf[i].w : NULL, rf[i].n,
                                      rf[i].bytes, &o, rdone, &rf[i]);
    cross_check();
}

static void rcancel(ss_engine *e, void *ctx, uint64_t i)
{
    ss_flow_phase ph = ss_flow_phase_of(rnet, rf[i].id);
    double rem = ss_flow_remaining_bytes(rnet, rf[i].id);
    int was = ph == SS_FLOW_SETUP || ph == SS_FLOW_ACTIVE || ph == SS_FLOW_DELIVERING;
    if (ss_flow_cancel(rnet, rf[i].id) != was) rbad++;
    if (was) rf[i].carried = rf[i].bytes - rem;
    else rf[i].cancel_s = -1; /* it had finished: counts in full */
    cross_check();
}

static void rchange_now(ss_engine *e, void *ctx, uint64_t i)
{
    rchange *c = &rch[i];
    if (!c->flow) {
        rcap[c->idx] = c->value;
        ss_flownet_set_capacity(rnet, (uint32_t)c->idx, c->value);
    } else if (rf[c->idx].id) {
        ss_flow_phase ph = ss_flow_phase_of(rnet, rf[c->idx].id);
        if (ss_flow_set_cap(rnet, rf[c->idx].id, c->value) != (ph != SS_FLOW_GONE)) rbad++;
        if (ph != SS_FLOW_GONE) rf[c->idx].cap_bps = c->value;
    }
    cross_check();
}

/* Runs `seeds` random instances of n_links links and n_flows flows (start
 * gaps of mean gap_s) and cross-checks every check_every-th event.
 * Returns the number of checks made. */
static size_t rfill_scan_max; /* 0: the default */
static int rpropagate = 1;
static uint64_t rslack_retries, rprop_fallbacks;

static int random_runs(int seeds, int n_links, int n_flows, double gap_s, int check_every)
{
    RL = n_links;
    RF = n_flows;
    rcheck_every = check_every;
    int total_checks = 0, total_bad = 0, total_done = 0, bytes_bad = 0;
    for (uint64_t seed = 1; seed <= (uint64_t)seeds; seed++) {
        rs_state = 0x9e3779b97f4a7c15ull * (seed + 1000 * (uint64_t)n_links);
        ss_engine *e = ss_engine_new();
        for (int l = 0; l < RL; l++) rcap[l] = (double)(1 + (int)(urand() * 8)) * G;
        rnet = ss_flownet_new(e, (size_t)RL, rcap);
        ss_flownet_tune(rnet, rfill_scan_max, rpropagate);
        rbad = rchecks = revents = 0;
        double t = 0;
        for (int i = 0; i < RF; i++) {
            rflow *f = &rf[i];
            memset(f, 0, sizeof *f);
            f->n = 1 + (size_t)(urand() * RMAXR * 0.99);
            for (size_t k = 0; k < f->n; k++) f->route[k] = (uint32_t)(urand() * RL);
            f->cap_bps = urand() < 0.3 ? (double)(1 + (int)(urand() * 4)) * G : 0;
            f->bytes = urand() < 0.05 ? 0 : 1e8 * (1 + (int)(urand() * 20));
            f->setup_s = urand() < 0.3 ? 0.01 * (int)(urand() * 10) : 0;
            f->goodput = urand() < 0.5 ? 0.9 : 1.0;
            t += urand() < 0.2 ? 0 : gap_s * (int)(urand() * 10); /* many ties */
            f->start_s = t;
            f->cancel_s = urand() < 0.1 ? t + 0.5 * urand() : -1;
            if (rweighted > 0 && urand() < rweighted) { /* from 1e-3 to 4, some wide apart */
                static const double ws[] = {1e-3, 0.25, 0.5, 1, 1.5, 2, 3, 4};
                f->weighted = 1;
                for (size_t k = 0; k < f->n; k++) f->w[k] = ws[(int)(urand() * 8)];
            }
            ss_schedule(e, f->start_s, rstart, NULL, (uint64_t)i);
            if (f->cancel_s >= 0) ss_schedule(e, f->cancel_s, rcancel, NULL, (uint64_t)i);
        }
        /* capacities from 0.5 to 8 G, caps none or 1 to 4 G, at times
         * spread over the starts, some at the same instant */
        double t_c = 0;
        for (int i = 0; i < rchanges && i < RC_MAX; i++) {
            rchange *c = &rch[i];
            c->flow = urand() < 0.5;
            c->idx = (int)(urand() * (c->flow ? RF : RL));
            if (c->flow) c->value = urand() < 0.3 ? 0 : (double)(1 + (int)(urand() * 4)) * G;
            else c->value = 0.5 * (double)(1 + (int)(urand() * 16)) * G;
            t_c += urand() < 0.2 ? 0 : 1.2 * t / rchanges * urand() * 2;
            ss_schedule(e, t_c, rchange_now, NULL, (uint64_t)i);
        }
        ss_engine_run(e, INFINITY);
        for (int i = 0; i < RF; i++) total_done += rf[i].done;
        for (int i = 0; i < RF; i++)
            if (rf[i].cancel_s < 0 && !rf[i].done) rbad++;
        /* byte conservation per link */
        for (uint32_t l = 0; l < (uint32_t)RL; l++) {
            double expect = 0;
            for (int i = 0; i < RF; i++) {
                double b = rf[i].cancel_s >= 0 ? rf[i].carried : rf[i].bytes;
                for (size_t k = 0; k < rf[i].n; k++)
                    expect += rf[i].route[k] == l ? (rf[i].weighted ? rf[i].w[k] : 1) * b : 0;
            }
            if (fabs(ss_link_bytes(rnet, l) - expect) > 1e-9 * (expect > 1 ? expect : 1)) bytes_bad++;
        }
        if (ss_flownet_active(rnet) != 0) rbad++;
        rheap_fills += ss_flownet_stats_of(rnet).heap_fills;
        rslack_retries += ss_flownet_stats_of(rnet).slack_retries;
        rprop_fallbacks += ss_flownet_stats_of(rnet).prop_fallbacks;
        total_checks += rchecks;
        total_bad += rbad;
        ss_flownet_free(rnet);
        ss_engine_free(e);
    }
    CU_ASSERT_EQUAL(total_bad, 0);
    CU_ASSERT_EQUAL(bytes_bad, 0);
    CU_ASSERT(total_done > seeds * n_flows * 8 / 10);
    return total_checks;
}

/* Small instances (6 links, 160 flows, many shared links, caps, set-up,
 * cancellations, equal start times), checked at every start and end. */
static void test_random_vs_reference(void)
{
    rheap_fills = 0;
    rslack_retries = 0;
    int checks = random_runs(40, 6, 160, 0.05, 1);
    CU_ASSERT(checks > 40 * 160); /* every start and end was checked */
    CU_ASSERT_EQUAL(rheap_fills, 0);
    CU_ASSERT(rslack_retries > 0); /* the second pass of flow_solve.c ran */
}

/* Medium instances under load (40 links, 800 flows, about a hundred active
 * at once), checked at every start and end: propagation (with its
 * fallbacks), then search and fill alone. */
static void test_random_loaded_vs_reference(void)
{
    rslack_retries = 0;
    int checks = random_runs(3, 40, 800, 0.004, 1);
    CU_ASSERT(checks > 3 * 800);
    CU_ASSERT(rslack_retries > 0);
    rpropagate = 0;
    checks = random_runs(3, 40, 800, 0.004, 1);
    rpropagate = 1;
    CU_ASSERT(checks > 3 * 800);
}

/* The same instance twice: the same completions at bit-identical times. */
static void test_random_deterministic(void)
{
    static double first[RF_MAX];
    random_runs(1, 6, 160, 0.05, 1000);
    for (int i = 0; i < RF; i++) first[i] = rf[i].done ? rf[i].done_s : -1;
    random_runs(1, 6, 160, 0.05, 1000);
    int same = 1;
    for (int i = 0; i < RF; i++) same &= first[i] == (rf[i].done ? rf[i].done_s : -1);
    CU_ASSERT(same);
}

/* Large instances: 300 links and 1200 flows, starting fast enough that
 * several hundred are active at once.  Checked every 25th event.  Once with
 * the defaults, once by search and fill alone with the heap forced from 64
 * candidates on, once with propagation giving up early. */
static void test_random_large_vs_reference(void)
{
    rheap_fills = 0;
    int checks = random_runs(2, 300, 1200, 0.002, 25);
    CU_ASSERT(checks > 2 * 2 * 1200 / 25 - 10);
    CU_ASSERT_EQUAL(rheap_fills, 0);
    rfill_scan_max = 64;
    rpropagate = 0;
    checks = random_runs(2, 300, 1200, 0.002, 25);
    rpropagate = 1;
    CU_ASSERT(checks > 2 * 2 * 1200 / 25 - 10);
    CU_ASSERT(rheap_fills > 500);
    /* propagation gives up beyond 16 dirty links, and search and fill
     * takes over */
    rprop_fallbacks = 0;
    checks = random_runs(2, 300, 1200, 0.002, 25);
    rfill_scan_max = 0;
    CU_ASSERT(checks > 2 * 2 * 1200 / 25 - 10);
    CU_ASSERT(rprop_fallbacks > 100);
}

/* Capacities and caps changed in flight (about as many changes as flows),
 * checked at every start, end and change: small and loaded instances, by
 * propagation first, then by search and fill alone (scan, then heap). */
static void test_random_changes_vs_reference(void)
{
    rchanges = 160;
    int checks = random_runs(40, 6, 160, 0.05, 1);
    CU_ASSERT(checks > 40 * (160 + 160));
    rchanges = 800;
    checks = random_runs(3, 40, 800, 0.004, 1);
    CU_ASSERT(checks > 3 * (800 + 800));
    rpropagate = 0;
    rchanges = 160;
    checks = random_runs(20, 6, 160, 0.05, 1);
    CU_ASSERT(checks > 20 * (160 + 160));
    rfill_scan_max = 16;
    rchanges = 800;
    rheap_fills = 0;
    checks = random_runs(3, 40, 800, 0.004, 1);
    CU_ASSERT(rheap_fills > 100);
    rfill_scan_max = 0;
    rpropagate = 1;
    CU_ASSERT(checks > 3 * (800 + 800));
    /* the same instance twice: bit-identical completions */
    static double first[RF_MAX];
    rchanges = 160;
    random_runs(1, 6, 160, 0.05, 1000);
    for (int i = 0; i < RF; i++) first[i] = rf[i].done ? rf[i].done_s : -1;
    random_runs(1, 6, 160, 0.05, 1000);
    int same = 1;
    for (int i = 0; i < RF; i++) same &= first[i] == (rf[i].done ? rf[i].done_s : -1);
    CU_ASSERT(same);
    rchanges = 0;
}

/* Weighted flows (a third of them, weights from 1e-3 to 4), with and
 * without changes in flight, checked at every event: while one is in the
 * sharing, search and fill re-solves with weights (scan, then heap); in
 * between, propagation takes over again. */
static void test_random_weights_vs_reference(void)
{
    rweighted = 0.3;
    int checks = random_runs(40, 6, 160, 0.05, 1);
    CU_ASSERT(checks > 40 * 160);
    rchanges = 160;
    checks = random_runs(40, 6, 160, 0.05, 1);
    CU_ASSERT(checks > 40 * (160 + 160));
    rchanges = 800;
    checks = random_runs(3, 40, 800, 0.004, 1);
    CU_ASSERT(checks > 3 * (800 + 800));
    rfill_scan_max = 16;
    rheap_fills = 0;
    checks = random_runs(3, 40, 800, 0.004, 1);
    CU_ASSERT(rheap_fills > 100);
    CU_ASSERT(checks > 3 * (800 + 800));
    rfill_scan_max = 0;
    /* a few weighted flows among many: propagation runs in between */
    rweighted = 0.01;
    rslack_retries = 0;
    checks = random_runs(3, 40, 800, 0.004, 1);
    CU_ASSERT(checks > 3 * (800 + 800));
    CU_ASSERT(rslack_retries > 0); /* propagation ran */
    /* bit-identical twice */
    static double first[RF_MAX];
    rweighted = 0.3;
    random_runs(1, 6, 160, 0.05, 1000);
    for (int i = 0; i < RF; i++) first[i] = rf[i].done ? rf[i].done_s : -1;
    random_runs(1, 6, 160, 0.05, 1000);
    int same = 1;
    for (int i = 0; i < RF; i++) same &= first[i] == (rf[i].done ? rf[i].done_s : -1);
    CU_ASSERT(same);
    rchanges = 0;
    rweighted = 0;
}

SS_TEST_SUITE("flow-random", {"random vs global reference", test_random_vs_reference},
              {"random vs global reference, loaded", test_random_loaded_vs_reference},
              {"deterministic", test_random_deterministic},
              {"random vs global reference, large (heap filling)", test_random_large_vs_reference},
              {"random capacity and cap changes vs global reference", test_random_changes_vs_reference},
              {"random weights (and changes) vs global reference", test_random_weights_vs_reference})
