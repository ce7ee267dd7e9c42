/* test_flow.c: the flow-level network model (sim/core/flow.h).  Max-min
 * allocations and finish times computed by hand, the Flashpoint chaining
 * example, the options, the component property, joins held and re-solved
 * together.  The randomized
 * cross-check against a global reference is in test_flow_random.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/flow.h"
#include "test.h"

#define TOL_S 1e-9    /* finish times */
#define TOL_REL 1e-12 /* rates from hand arithmetic */
#define G 1e9

/* ---- recording done callbacks -------------------------------------------- */

typedef struct rec {
    ss_flow_id id;
    size_t receiver; /* 0 for ss_flow_start */
    double t_s;
} rec;

#define MAXREC 8192
static rec recs[MAXREC];
static size_t nrec;

static void on_done(ss_engine *e, void *ctx, ss_flow_id id, double now_s)
{
    CU_ASSERT_EQUAL(now_s, ss_now(e));
    if (nrec < MAXREC) recs[nrec++] = (rec){id, 0, now_s};
}

static void on_recv(ss_engine *e, void *ctx, ss_flow_id id, size_t receiver, double now_s)
{
    CU_ASSERT_EQUAL(now_s, ss_now(e));
    if (nrec < MAXREC) recs[nrec++] = (rec){id, receiver, now_s};
}

/* When id (receiver r) was done, -1 if never; asserts it was done once. */
static double done_at(ss_flow_id id, size_t receiver)
{
    double t = -1;
    int n = 0;
    for (size_t i = 0; i < nrec; i++)
        if (recs[i].id == id && recs[i].receiver == receiver) {
            t = recs[i].t_s;
            n++;
        }
    CU_ASSERT(n <= 1);
    return t;
}

#define ASSERT_RATE(net, id, expect) \
    CU_ASSERT_DOUBLE_EQUAL(ss_flow_rate_bps(net, id), (expect), (expect) * TOL_REL)

/* ---- 1. one bottleneck shared by k flows --------------------------------- */

/* One 10 Gbit/s link, k flows of 1.25e9 bytes (10 Gbit) each started at 0:
 * each gets 10/k Gbit/s and all finish together at k seconds, reported in
 * id (= start) order. */
static void test_one_bottleneck(void)
{
    for (int k = 1; k <= 5; k++) {
        ss_engine *e = ss_engine_new();
        double cap = 10 * G;
        ss_flownet *net = ss_flownet_new(e, 1, &cap);
        uint32_t route[] = {0};
        ss_flow_id id[5];
        nrec = 0;
        for (int i = 0; i < k; i++) id[i] = ss_flow_start(net, route, 1, 1.25e9, NULL, on_done, NULL);
        for (int i = 0; i < k; i++) ASSERT_RATE(net, id[i], 10 * G / k);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
        CU_ASSERT_EQUAL(ss_link_flows(net, 0), (size_t)k);
        CU_ASSERT_EQUAL(ss_flownet_active(net), (size_t)k);
        ss_engine_run(e, INFINITY);
        CU_ASSERT_EQUAL(nrec, (size_t)k);
        for (int i = 0; i < k; i++) {
            CU_ASSERT_DOUBLE_EQUAL(done_at(id[i], 0), (double)k, TOL_S);
            if (i < (int)nrec) CU_ASSERT_EQUAL(recs[i].id, id[i]); /* id order */
        }
        CU_ASSERT_EQUAL(ss_flownet_active(net), 0);
        CU_ASSERT_EQUAL(ss_flownet_peak_active(net), (size_t)k);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), k * 1.25e9, 1e-3);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* ---- 2. parking lot -------------------------------------------------------- */

/* A chain of 4 links of 10 Gbit/s; one long flow crosses all of them and
 * one short flow uses each link.  Every link carries two flows, so max-min
 * gives everyone 5 Gbit/s; with 10 Gbit each, all five finish at 2 s. */
static void test_parking_lot(void)
{
    enum { N = 4 };
    ss_engine *e = ss_engine_new();
    double cap[N] = {10 * G, 10 * G, 10 * G, 10 * G};
    ss_flownet *net = ss_flownet_new(e, N, cap);
    uint32_t all[N] = {0, 1, 2, 3};
    nrec = 0;
    ss_flow_id lng = ss_flow_start(net, all, N, 1.25e9, NULL, on_done, NULL);
    ss_flow_id sh[N];
    for (uint32_t i = 0; i < N; i++) sh[i] = ss_flow_start(net, &all[i], 1, 1.25e9, NULL, on_done, NULL);
    ASSERT_RATE(net, lng, 5 * G);
    for (int i = 0; i < N; i++) {
        ASSERT_RATE(net, sh[i], 5 * G);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, (uint32_t)i), 1.0, 1e-12);
    }
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(nrec, N + 1);
    CU_ASSERT_DOUBLE_EQUAL(done_at(lng, 0), 2.0, TOL_S);
    for (int i = 0; i < N; i++) CU_ASSERT_DOUBLE_EQUAL(done_at(sh[i], 0), 2.0, TOL_S);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* Unequal capacities: links 10, 4, 8 Gbit/s; long flow L on all three,
 * S0, S1, S2 one per link; 1e9 bytes (8 Gbit) each.
 * Filling: the saturation levels are 10/2 = 5, 4/2 = 2 and 8/2 = 4.  Link 1
 * saturates first at 2, which freezes L = S1 = 2.  Then link 0 has
 * 10 - 2 = 8 left for S0 alone, so S0 = 8, and link 2 has 8 - 2 = 6, so S2 = 6.
 * Finish: S0 at 8/8 = 1 s, S2 at 8/6 = 4/3 s.  Their departures free
 * capacity only on links where L is not the bottleneck, so L and S1 keep
 * 2 Gbit/s and finish at 8/2 = 4 s. */
static void unequal_lot(int held)
{
    ss_engine *e = ss_engine_new();
    double cap[3] = {10 * G, 4 * G, 8 * G};
    ss_flownet *net = ss_flownet_new(e, 3, cap);
    uint32_t all[3] = {0, 1, 2};
    nrec = 0;
    if (held) ss_flownet_hold_joins(net);
    ss_flow_id L = ss_flow_start(net, all, 3, 1e9, NULL, on_done, NULL);
    ss_flow_id S0 = ss_flow_start(net, &all[0], 1, 1e9, NULL, on_done, NULL);
    ss_flow_id S1 = ss_flow_start(net, &all[1], 1, 1e9, NULL, on_done, NULL);
    ss_flow_id S2 = ss_flow_start(net, &all[2], 1, 1e9, NULL, on_done, NULL);
    if (held) { /* no rate until the release, one re-solve at it */
        CU_ASSERT_EQUAL(ss_flow_rate_bps(net, L), 0);
        CU_ASSERT_EQUAL(ss_flownet_stats_of(net).resolves, 0);
        ss_flownet_release_joins(net);
        CU_ASSERT_EQUAL(ss_flownet_stats_of(net).resolves, 1);
    }
    ASSERT_RATE(net, L, 2 * G);
    ASSERT_RATE(net, S0, 8 * G);
    ASSERT_RATE(net, S1, 2 * G);
    ASSERT_RATE(net, S2, 6 * G);
    ss_flownet_stats before = ss_flownet_stats_of(net);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(S0, 0), 1.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(S2, 0), 4.0 / 3.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(L, 0), 4.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(S1, 0), 4.0, TOL_S);
    /* L's and S1's rates never moved: four completions, no rate change */
    ss_flownet_stats after = ss_flownet_stats_of(net);
    CU_ASSERT_EQUAL(after.rate_changes, before.rate_changes);
    CU_ASSERT_EQUAL(after.completed, 4);
    ss_flownet_free(net);
    ss_engine_free(e);
}

static void test_parking_lot_unequal(void)
{
    unequal_lot(0);
}

/* ---- 3. dumbbell with per-flow caps --------------------------------------- */

/* Four sources, each with its own 10 Gbit/s access link (0..3), share a
 * 10 Gbit/s middle link (4) to destinations behind their own access links
 * (5..8).  Caps: A 1, B 2, C and D none.  Filling: A freezes at 1, B at 2,
 * and C and D split the remaining 10 - 3 = 7, so 3.5 each.  Sizes 1.25e9
 * bytes (10 Gbit): C and D finish at 10/3.5 s.  A and B are capped, so
 * their rates do not move: B finishes at 10/2 = 5 s and A at 10/1 = 10 s.
 * With B's cap at 5 instead: A freezes at 1, the link has 9 left for three
 * flows, 3 each, below B's cap, so B = C = D = 3. */
static void test_dumbbell_caps(void)
{
    ss_engine *e = ss_engine_new();
    double cap[9];
    for (int i = 0; i < 9; i++) cap[i] = 10 * G;
    ss_flownet *net = ss_flownet_new(e, 9, cap);
    uint32_t r[4][3] = {{0, 4, 5}, {1, 4, 6}, {2, 4, 7}, {3, 4, 8}};
    double caps[4] = {1 * G, 2 * G, 0, 0};
    ss_flow_id id[4];
    nrec = 0;
    for (int i = 0; i < 4; i++) {
        ss_flow_opts o = {.cap_bps = caps[i]};
        id[i] = ss_flow_start(net, r[i], 3, 1.25e9, &o, on_done, NULL);
    }
    ASSERT_RATE(net, id[0], 1 * G);
    ASSERT_RATE(net, id[1], 2 * G);
    ASSERT_RATE(net, id[2], 3.5 * G);
    ASSERT_RATE(net, id[3], 3.5 * G);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 4), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 0.1, 1e-12);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(id[2], 0), 10 / 3.5, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(id[3], 0), 10 / 3.5, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(id[1], 0), 5.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(id[0], 0), 10.0, TOL_S);

    caps[1] = 5 * G;
    for (int i = 0; i < 4; i++) {
        ss_flow_opts o = {.cap_bps = caps[i]};
        id[i] = ss_flow_start(net, r[i], 3, 1.25e9, &o, on_done, NULL);
    }
    ASSERT_RATE(net, id[0], 1 * G);
    for (int i = 1; i < 4; i++) ASSERT_RATE(net, id[i], 3 * G);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* ---- 4. flows that start and end mid-transfer ------------------------------ */

/* One 8 Gbit/s link = 1e9 bytes/s.
 *   t=0    A starts, 3e9 bytes, alone at 1e9 B/s.
 *   t=1    A has 2e9 left.  B starts, 1e9 bytes: both at 0.5e9 B/s.
 *   t=2    A has 2e9 - 0.5e9 = 1.5e9 left, B 0.5e9.
 *   t=3    B done (1e9 / 0.5e9 = 2 s after t=1).  A has 1e9 left, alone again.
 *   t=3.5  A has 0.5e9 left.  C starts, 0.25e9 bytes: both at 0.5e9 B/s.
 *   t=4    C done (0.25e9 / 0.5e9 = 0.5 s).  A has 0.25e9 left, alone.
 *   t=4.25 A done. */
static void test_mid_transfer(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 8 * G;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    uint32_t route[] = {0};
    nrec = 0;
    ss_flow_id A = ss_flow_start(net, route, 1, 3e9, NULL, on_done, NULL);
    ss_engine_run(e, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, A), 2e9, 1e-3);
    ss_flow_id B = ss_flow_start(net, route, 1, 1e9, NULL, on_done, NULL);
    ASSERT_RATE(net, A, 4 * G);
    ASSERT_RATE(net, B, 4 * G);
    ss_engine_run(e, 2.0);
    CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, A), 1.5e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, B), 0.5e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.5e9 + 0.5e9, 1e-3);
    ss_engine_run(e, 3.5);
    CU_ASSERT_DOUBLE_EQUAL(done_at(B, 0), 3.0, TOL_S);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, B), SS_FLOW_GONE);
    ASSERT_RATE(net, A, 8 * G);
    CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, A), 0.5e9, 1e-3);
    ss_flow_id C = ss_flow_start(net, route, 1, 0.25e9, NULL, on_done, NULL);
    ASSERT_RATE(net, A, 4 * G);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(C, 0), 4.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(A, 0), 4.25, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(ss_now(e), 4.25, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 4.25e9, 1e-3);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* A flow that starts from a done callback: the chain of events is
 * A (1e9 bytes at 1e9 B/s, done at 1) -> starts B (2e9 bytes), done at 3. */
static ss_flownet *relay_net;
static ss_flow_id relay_b;
static void relay(ss_engine *e, void *ctx, ss_flow_id id, double now_s)
{
    on_done(e, ctx, id, now_s);
    uint32_t route[] = {0};
    relay_b = ss_flow_start(relay_net, route, 1, 2e9, NULL, on_done, NULL);
}

static void test_start_from_callback(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 8 * G;
    relay_net = ss_flownet_new(e, 1, &cap);
    uint32_t route[] = {0};
    nrec = 0;
    ss_flow_id A = ss_flow_start(relay_net, route, 1, 1e9, NULL, relay, NULL);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(A, 0), 1.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(relay_b, 0), 3.0, TOL_S);
    CU_ASSERT_EQUAL(ss_flownet_peak_active(relay_net), 1); /* A was gone when B started */
    ss_flownet_free(relay_net);
    ss_engine_free(e);
}

/* ---- 5. Flashpoint: unicast fan-out vs TCP chaining ------------------------ */

/* Three hosts on one ToR, 10 Gbit/s full-duplex links: host i has an
 * uplink (link i) and a downlink (link 3+i).  Model = 10 Gbit = 1.25e9
 * bytes.  Unicast fan-out h0 -> {h1, h2}: both flows share h0's uplink at 5
 * Gbit/s and finish at 2 s.  Chain h0 -> h1 -> h2: hop 1 uses up0 and
 * down1, hop 2 uses up1 and down2.  No link is shared, so the chain runs
 * at 10 Gbit/s.  Receiver 1 is done at setup + 1 s, and receiver 2 one
 * TTFB later.  With per-hop latencies, receiver i also waits for the sum of
 * the first i hop latencies. */
static void test_flashpoint_two_receivers(void)
{
    ss_engine *e = ss_engine_new();
    double cap[6];
    for (int i = 0; i < 6; i++) cap[i] = 10 * G;
    ss_flownet *net = ss_flownet_new(e, 6, cap);
    uint32_t h0h1[] = {0, 4}, h0h2[] = {0, 5}, h1h2[] = {1, 5};
    nrec = 0;

    ss_chain_hop fan[2] = {{h0h1, 2, 0, 0}, {h0h2, 2, 0, 0}};
    ss_flow_id ids[2];
    ss_flow_fanout_start(net, fan, 2, 1.25e9, NULL, on_recv, NULL, ids);
    ASSERT_RATE(net, ids[0], 5 * G);
    ASSERT_RATE(net, ids[1], 5 * G);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(ids[0], 1), 2.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(ids[1], 2), 2.0, TOL_S);

    double t0 = ss_now(e);
    nrec = 0;
    ss_chain_hop chain[2] = {{h0h1, 2, 0, 0}, {h1h2, 2, 0, 0}};
    ss_flow_opts o = {.setup_s = 0.001};
    ss_flow_id c = ss_flow_chain_start(net, chain, 2, 1.25e9, &o, 0.002, on_recv, NULL);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, c), SS_FLOW_SETUP);
    ss_engine_run(e, t0 + 0.5);
    ASSERT_RATE(net, c, 10 * G);
    for (uint32_t l = 0; l < 6; l++)
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, l), (l == 0 || l == 1 || l == 4 || l == 5) ? 1.0 : 0.0, 1e-12);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(nrec, 2);
    CU_ASSERT_EQUAL(recs[0].receiver, 1);
    CU_ASSERT_EQUAL(recs[1].receiver, 2);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 1), t0 + 0.001 + 1.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 2), t0 + 0.001 + 1.0 + 0.002, TOL_S);
    /* every hop's links carried the whole model */
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 1), 1.25e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 4), 2 * 1.25e9, 1e-3); /* fan-out + chain */

    /* hop latencies 10 us and 20 us, plus 1 us for everyone */
    t0 = ss_now(e);
    nrec = 0;
    chain[0].latency_s = 10e-6;
    chain[1].latency_s = 20e-6;
    o.latency_s = 1e-6;
    c = ss_flow_chain_start(net, chain, 2, 1.25e9, &o, 0.002, on_recv, NULL);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 1), t0 + 0.001 + 1.0 + 10e-6 + 1e-6, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 2), t0 + 0.001 + 1.0 + 0.002 + 30e-6 + 1e-6, TOL_S);
    CU_ASSERT_EQUAL(ss_flownet_active(net), 0);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* A chain whose two hops use the same link loads it twice, so it runs at
 * C/2.  A plain flow on that link then sees two occurrences of the chain
 * plus itself: three entries at C/3 each, 2C/3 for the chain in the sum. */
static void test_chain_shared_link(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 9 * G;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    uint32_t r[] = {0};
    ss_chain_hop hops[2] = {{r, 1, 0, 0}, {r, 1, 0, 0}};
    nrec = 0;
    ss_flow_id c = ss_flow_chain_start(net, hops, 2, 1.125e9, NULL, 0, on_recv, NULL);
    ASSERT_RATE(net, c, 4.5 * G);
    CU_ASSERT_EQUAL(ss_link_flows(net, 0), 2);
    ss_flow_id f = ss_flow_start(net, r, 1, 1.125e9, NULL, on_done, NULL);
    ASSERT_RATE(net, c, 3 * G);
    ASSERT_RATE(net, f, 3 * G);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
    /* 9 Gbit each at 3 Gbit/s: both done at 3 s, receivers 1 and 2 at once */
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 1), 3.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 2), 3.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(f, 0), 3.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 3 * 1.125e9, 1e-3);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* ---- 6. options, cancellation, zero bytes, counters ----------------------- */

static void test_goodput_latency_setup(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 10 * G;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    uint32_t r[] = {0};
    nrec = 0;
    /* goodput 0.97: 1.25e9 payload bytes at 10 Gbit/s * 0.97 = 1/0.97 s */
    ss_flow_opts o = {.goodput = 0.97};
    ss_flow_id a = ss_flow_start(net, r, 1, 1.25e9, &o, on_done, NULL);
    ASSERT_RATE(net, a, 10 * G); /* the wire rate */
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(a, 0), 1.0 / 0.97, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.25e9, 1e-3); /* payload */

    /* setup 10 ms, latency 5 ms: done at 0.010 + 1 + 0.005 */
    double t0 = ss_now(e);
    nrec = 0;
    o = (ss_flow_opts){.setup_s = 0.010, .latency_s = 0.005};
    a = ss_flow_start(net, r, 1, 1.25e9, &o, on_done, NULL);
    ss_engine_run(e, t0 + 0.005);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, a), SS_FLOW_SETUP);
    CU_ASSERT_EQUAL(ss_flow_rate_bps(net, a), 0);
    CU_ASSERT_EQUAL(ss_flow_remaining_bytes(net, a), 1.25e9);
    CU_ASSERT_EQUAL(ss_link_flows(net, 0), 0);
    ss_engine_run(e, t0 + 0.510);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, a), SS_FLOW_ACTIVE);
    CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, a), 0.625e9, 1e-3);
    ss_engine_run(e, t0 + 1.012);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, a), SS_FLOW_DELIVERING);
    CU_ASSERT_EQUAL(ss_flow_remaining_bytes(net, a), 0);
    CU_ASSERT_EQUAL(ss_link_flows(net, 0), 0);
    CU_ASSERT_EQUAL(nrec, 0);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, a), SS_FLOW_GONE);
    CU_ASSERT_DOUBLE_EQUAL(done_at(a, 0), t0 + 1.015, TOL_S);

    /* set-up delays the sharing: A alone from 0 to 0.5 (0.625e9 bytes), then
     * A and B at 5 Gbit/s: A's other 0.625e9 take 1 s, so A is done at 1.5;
     * B has 0.625e9 left then, at 10 Gbit/s: done at 2.0 */
    t0 = ss_now(e);
    nrec = 0;
    a = ss_flow_start(net, r, 1, 1.25e9, NULL, on_done, NULL);
    o = (ss_flow_opts){.setup_s = 0.5};
    ss_flow_id b = ss_flow_start(net, r, 1, 1.25e9, &o, on_done, NULL);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(a, 0), t0 + 1.5, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(b, 0), t0 + 2.0, TOL_S);
    ss_flownet_free(net);
    ss_engine_free(e);
}

static void test_cancel(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 10 * G;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    uint32_t r[] = {0};
    nrec = 0;
    /* A and B at 5 Gbit/s; B cancelled at 1 s, when A has 0.625e9 left,
     * which then takes 0.5 s at 10 Gbit/s */
    ss_flow_id a = ss_flow_start(net, r, 1, 1.25e9, NULL, on_done, NULL);
    ss_flow_id b = ss_flow_start(net, r, 1, 1.25e9, NULL, on_done, NULL);
    ss_flow_opts o = {.setup_s = 5};
    ss_flow_id s = ss_flow_start(net, r, 1, 1e9, &o, on_done, NULL);           /* cancelled in setup */
    o = (ss_flow_opts){.latency_s = 5};
    ss_flow_id d = ss_flow_start(net, r, 1, 0, &o, on_done, NULL);             /* cancelled delivering */
    CU_ASSERT_EQUAL(ss_flownet_active(net), 4);
    ss_engine_run(e, 1.0);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, d), SS_FLOW_DELIVERING);
    CU_ASSERT_EQUAL(ss_flow_cancel(net, b), 1);
    CU_ASSERT_EQUAL(ss_flow_cancel(net, b), 0);
    CU_ASSERT_EQUAL(ss_flow_cancel(net, 0), 0);
    CU_ASSERT_EQUAL(ss_flow_cancel(net, s), 1);
    CU_ASSERT_EQUAL(ss_flow_cancel(net, d), 1);
    CU_ASSERT_EQUAL(ss_flow_phase_of(net, b), SS_FLOW_GONE);
    ASSERT_RATE(net, a, 10 * G);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.25e9, 1e-3); /* 0.625e9 each so far */
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(nrec, 1);
    CU_ASSERT_DOUBLE_EQUAL(done_at(a, 0), 1.5, TOL_S);
    CU_ASSERT_EQUAL(ss_flownet_active(net), 0);
    CU_ASSERT_EQUAL(ss_engine_pending(e), 0);
    ss_flownet_stats st = ss_flownet_stats_of(net);
    CU_ASSERT_EQUAL(st.cancelled, 3);
    CU_ASSERT_EQUAL(st.completed, 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.875e9, 1e-3);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* Zero-byte flows and empty routes never join the sharing. */
static void test_zero_bytes_and_empty_route(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 10 * G;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    uint32_t r[] = {0};
    nrec = 0;
    ss_flow_opts o = {.setup_s = 0.1, .latency_s = 0.2};
    ss_flow_id z = ss_flow_start(net, r, 1, 0, &o, on_done, NULL);
    ss_flow_id h = ss_flow_start(net, NULL, 0, 1e9, &o, on_done, NULL);   /* same host */
    ss_flow_id i = ss_flow_start(net, NULL, 0, 1e9, NULL, on_done, NULL); /* not even set-up */
    CU_ASSERT_EQUAL(nrec, 0); /* never from inside ss_flow_start */
    ss_flow_opts oc = {.cap_bps = 8 * G, .latency_s = 0.2};
    ss_flow_id c = ss_flow_start(net, NULL, 0, 1e9, &oc, on_done, NULL); /* capped: 1 s */
    ASSERT_RATE(net, c, 8 * G);
    /* a flow on the link is not slowed by any of them */
    ss_flow_id f = ss_flow_start(net, r, 1, 1.25e9, NULL, on_done, NULL);
    ASSERT_RATE(net, f, 10 * G);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(z, 0), 0.3, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(h, 0), 0.3, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(i, 0), 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 0), 1.2, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(f, 0), 1.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.25e9, 1e-3);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* Two flows F1 on links {0,1} and F2 on {1,2}, all 10 Gbit/s: 5 Gbit/s
 * each.  Utilisation 0.5, 1, 0.5.  At 0.5 s each has carried 0.3125e9
 * bytes.  At the end every link has carried the payload of the flows
 * crossing it. */
static void test_link_counters(void)
{
    ss_engine *e = ss_engine_new();
    double cap[3] = {10 * G, 10 * G, 10 * G};
    ss_flownet *net = ss_flownet_new(e, 3, cap);
    uint32_t r1[] = {0, 1}, r2[] = {1, 2};
    nrec = 0;
    ss_flow_id f1 = ss_flow_start(net, r1, 2, 1.25e9, NULL, on_done, NULL);
    ss_flow_id f2 = ss_flow_start(net, r2, 2, 2.5e9, NULL, on_done, NULL);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 1), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 2), 0.5, 1e-12);
    ss_engine_run(e, 0.5);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 0.3125e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 1), 0.625e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 2), 0.3125e9, 1e-3);
    /* F1 done at 2 s; F2 then has 1.25e9 left at 10 Gbit/s: done at 3 s */
    ss_engine_run(e, INFINITY);
    CU_ASSERT_DOUBLE_EQUAL(done_at(f1, 0), 2.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(f2, 0), 3.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.25e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 1), 3.75e9, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 2), 2.5e9, 1e-3);
    for (uint32_t l = 0; l < 3; l++) CU_ASSERT_EQUAL(ss_link_utilisation(net, l), 0);
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* ---- 7. the component property --------------------------------------------- */

/* A on {0,1}.  B starts on {2,3}, disjoint from A: the re-solve sees only B,
 * and A's rate and completion do not move.  C on {1,2} then joins both:
 * three flows re-solved.  In a separate component, L on {4,5}, started at
 * 0.5 s, is bottlenecked by link 5 (2 Gbit/s).  S joins link 4 (10 Gbit/s)
 * and gets 8 Gbit/s.  L shares a link with S, but its rate (2) is below
 * S's water level on link 4 ((10 - 2) / 1 = 8), so L is not even re-filled:
 * only S is touched, and L's completion stays where it was. */
static void component_case(int propagate)
{
    ss_engine *e = ss_engine_new();
    double cap[6] = {10 * G, 10 * G, 10 * G, 10 * G, 10 * G, 2 * G};
    ss_flownet *net = ss_flownet_new(e, 6, cap);
    ss_flownet_tune(net, 0, propagate);
    uint32_t ra[] = {0, 1}, rb[] = {2, 3}, rc[] = {1, 2}, rl[] = {4, 5}, rs[] = {4};
    nrec = 0;
    ss_flow_id a = ss_flow_start(net, ra, 2, 1.25e9, NULL, on_done, NULL);
    ss_flownet_stats s0 = ss_flownet_stats_of(net);
    CU_ASSERT_EQUAL(s0.resolves, 1);
    CU_ASSERT_EQUAL(s0.flows_touched, 1);
    CU_ASSERT_EQUAL(s0.rate_changes, 1);
    ss_engine_run(e, 0.5);
    ss_flow_id b = ss_flow_start(net, rb, 2, 1.25e9, NULL, on_done, NULL);
    ss_flownet_stats s1 = ss_flownet_stats_of(net);
    CU_ASSERT_EQUAL(s1.resolves - s0.resolves, 1);
    CU_ASSERT_EQUAL(s1.flows_touched - s0.flows_touched, 1); /* B only */
    CU_ASSERT_EQUAL(s1.links_touched - s0.links_touched, 2);
    CU_ASSERT_EQUAL(s1.rate_changes - s0.rate_changes, 1);
    ASSERT_RATE(net, a, 10 * G);
    ss_flow_id c = ss_flow_start(net, rc, 2, 0.625e9, NULL, on_done, NULL);
    ss_flownet_stats s2 = ss_flownet_stats_of(net);
    CU_ASSERT_EQUAL(s2.flows_touched - s1.flows_touched, 3);
    /* search and fill: links 1 and 2; links 0 and 3 carry one flow each,
     * which makes them that flow's cap, and they are not visited.
     * Propagation: links 1 and 2, then 0 and 3, where A and B were full and
     * now fall */
    CU_ASSERT_EQUAL(s2.links_touched - s1.links_touched, propagate ? 4 : 2);
    CU_ASSERT_EQUAL(s2.rate_changes - s1.rate_changes, 3);
    ss_flow_id L = ss_flow_start(net, rl, 2, 1e9, NULL, on_done, NULL);
    ss_flownet_stats s3 = ss_flownet_stats_of(net);
    ss_flow_id S = ss_flow_start(net, rs, 1, 1e9, NULL, on_done, NULL);
    ss_flownet_stats s4 = ss_flownet_stats_of(net);
    CU_ASSERT_EQUAL(s4.flows_touched - s3.flows_touched, 1); /* S only */
    CU_ASSERT_EQUAL(s4.rate_changes - s3.rate_changes, 1);
    ASSERT_RATE(net, L, 2 * G);
    ASSERT_RATE(net, S, 8 * G);
    ss_engine_run(e, INFINITY);
    /* A: 0.625e9 by 0.5 s, then 5 Gbit/s with C; C (0.625e9 at 0.625e9 B/s)
     * done at 1.5 s, when A has 0 left: both at 1.5.  B: 0.625e9 by 1.5, then
     * 0.625e9 at 1.25e9 B/s: done at 2.0.  L (8 Gbit at 2 Gbit/s) and S (8 Gbit
     * at 8 Gbit/s) started at 0.5 s: done at 4.5 and 1.5. */
    CU_ASSERT_DOUBLE_EQUAL(done_at(a, 0), 1.5, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(c, 0), 1.5, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(b, 0), 2.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(L, 0), 0.5 + 4.0, TOL_S);
    CU_ASSERT_DOUBLE_EQUAL(done_at(S, 0), 0.5 + 1.0, TOL_S);
    ss_flownet_free(net);
    ss_engine_free(e);
}

static void test_component(void)
{
    component_case(0);
    component_case(1);
}

/* ---- memory and determinism ----------------------------------------------- */

/* 20,000 transfers through one link, each started from the previous one's
 * done callback, three chains side by side: never more than 3 in flight, so
 * the record pool stays at its first chunk and the link's list at 3. */
static ss_flownet *seq_net;
static int seq_left;
static void seq_next(ss_engine *e, void *ctx, ss_flow_id id, double now_s)
{
    uint32_t r[] = {0};
    if (seq_left-- > 0) ss_flow_start(seq_net, r, 1, 1e6 * (1 + seq_left % 7), NULL, seq_next, NULL);
}

/* ---- joins held: many flows starting at one instant, re-solved once ------ */

/* The unequal parking lot again, its four flows started with joins held:
 * no rate until the release, one re-solve at it, then the same rates and
 * finish times as one by one.  Then 300 flows on random routes over 6 links,
 * held and one by one: the same max-min rates (to rounding) and finish
 * times; a held flow cancelled before the release leaves as ever. */
static void test_hold_joins(void)
{
    unequal_lot(1);
    enum { N = 300, NL = 6 };
    double caps[NL] = {10 * G, 4 * G, 8 * G, 25 * G, 1 * G, 40 * G}, rate[2][N], fin[2][N];
    for (int held = 0; held < 2; held++) {
        ss_engine *e = ss_engine_new();
        ss_flownet *net = ss_flownet_new(e, NL, caps);
        nrec = 0;
        srand(7);
        ss_flow_id id[N];
        if (held) ss_flownet_hold_joins(net);
        for (int i = 0; i < N; i++) {
            uint32_t route[3], n = 1 + (uint32_t)(rand() % 3);
            for (uint32_t k = 0; k < n; k++) route[k] = (uint32_t)(rand() % NL);
            ss_flow_opts o = {.cap_bps = i % 7 == 0 ? 0.01 * G : 0};
            id[i] = ss_flow_start(net, route, n, 1e6 * (1 + rand() % 100), &o, on_done, NULL);
        }
        ss_flow_cancel(net, id[N - 1]); /* held or not, it just leaves */
        if (held) ss_flownet_release_joins(net);
        for (int i = 0; i < N - 1; i++) rate[held][i] = ss_flow_rate_bps(net, id[i]);
        ss_engine_run(e, INFINITY);
        CU_ASSERT_EQUAL(nrec, N - 1);
        for (int i = 0; i < N - 1; i++) fin[held][i] = done_at(id[i], 0);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
    int same = 1;
    for (int i = 0; i < N - 1; i++)
        same &= fabs(rate[1][i] - rate[0][i]) <= 1e-9 * rate[0][i] && fabs(fin[1][i] - fin[0][i]) <= TOL_S &&
                rate[0][i] > 0;
    CU_ASSERT_TRUE(same);
}

static void test_memory_follows_flows_in_flight(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 10 * G;
    seq_net = ss_flownet_new(e, 1, &cap);
    seq_left = 20000;
    for (int i = 0; i < 3; i++) seq_next(e, NULL, 0, 0);
    ss_engine_run(e, INFINITY);
    ss_flownet_stats st = ss_flownet_stats_of(seq_net);
    CU_ASSERT_EQUAL(st.started, 20000);
    CU_ASSERT_EQUAL(st.completed, 20000);
    CU_ASSERT_EQUAL(ss_flownet_peak_active(seq_net), 3);
    CU_ASSERT(st.slots <= 64);
    CU_ASSERT(ss_engine_peak(e) <= 4);
    ss_flownet_free(seq_net);
    ss_engine_free(e);
}

SS_TEST_SUITE("flow", {"one bottleneck, k = 1..5", test_one_bottleneck},
              {"parking lot", test_parking_lot}, {"parking lot, unequal capacities", test_parking_lot_unequal},
              {"dumbbell with caps", test_dumbbell_caps}, {"mid-transfer starts and ends", test_mid_transfer},
              {"start from a done callback", test_start_from_callback},
              {"Flashpoint: fan-out vs chain", test_flashpoint_two_receivers},
              {"chain over one link twice", test_chain_shared_link},
              {"goodput, latency, setup", test_goodput_latency_setup}, {"cancel", test_cancel},
              {"zero bytes, empty route", test_zero_bytes_and_empty_route},
              {"link counters and utilisation", test_link_counters}, {"component property", test_component},
              {"memory follows flows in flight", test_memory_follows_flows_in_flight},
              {"joins held: one re-solve, the same rates", test_hold_joins})
