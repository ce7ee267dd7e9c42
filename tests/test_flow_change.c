/* test_flow_change.c: the flow model (sim/flow.h) as a sharer of any
 * capacity (a CPU's cores, a container's quota, a disk), with capacities
 * and caps that change in flight (ss_flownet_set_capacity,
 * ss_flow_set_cap) and per-link weights (ss_flow_start_weighted).  Rates
 * and finish times computed by hand, each case run twice: re-solved by
 * propagation first (the default), and by search and fill alone.
 *
 * Units: a rate of r "bps" carries r/8 bytes a second, so a job of b bytes
 * is 8b units of work (a 2-core CPU is a link of capacity 2, and a job
 * capped at one core, cap_bps = 1, of 1 byte takes 8 s alone). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/flow.h"
#include "test.h"

#define TOL_S 1e-9    /* finish times */
#define TOL_REL 1e-12 /* rates from hand arithmetic */

#define MAXJ 8

static double done_s[MAXJ];
static int done_n[MAXJ];

static void on_done(ss_engine *e, void *ctx, ss_flow_id id, double now_s)
{
    int j = (int)(intptr_t)ctx;
    CU_ASSERT_EQUAL(now_s, ss_now(e));
    done_s[j] = now_s;
    done_n[j]++;
}

static void reset_done(void)
{
    for (int j = 0; j < MAXJ; j++) {
        done_s[j] = -1;
        done_n[j] = 0;
    }
}

#define ASSERT_DONE(j, t) \
    do { \
        CU_ASSERT_EQUAL(done_n[j], 1); \
        CU_ASSERT_DOUBLE_EQUAL(done_s[j], (t), TOL_S); \
    } while (0)
#define ASSERT_RATE_OF(r, expect) CU_ASSERT_DOUBLE_EQUAL((r), (expect), (expect) * TOL_REL)

/* A change at a time: the capacity of a link (flow < 0) or the cap of a
 * flow, made from an engine event; what the flows' rates and the links'
 * utilisation were right after it is kept for the test to check. */
typedef struct change {
    double t_s;
    int flow;      /* index in ids, or -1 for a capacity */
    uint32_t link;
    double value;
    /* after the change */
    int ret;       /* ss_flow_set_cap's answer */
    double rate[MAXJ], util[4];
    ss_flownet_stats st;
} change;

static ss_flownet *cnet;
static ss_flow_id cid[MAXJ];
static size_t ncid;

static void on_change(ss_engine *e, void *ctx, uint64_t arg)
{
    change *c = ctx;
    if (c->flow < 0) ss_flownet_set_capacity(cnet, c->link, c->value);
    else c->ret = ss_flow_set_cap(cnet, cid[c->flow], c->value);
    for (size_t j = 0; j < ncid; j++) c->rate[j] = ss_flow_rate_bps(cnet, cid[j]);
    for (uint32_t l = 0; l < 4 && l < ss_flownet_links(cnet); l++) c->util[l] = ss_link_utilisation(cnet, l);
    c->st = ss_flownet_stats_of(cnet);
}

static void schedule_changes(ss_engine *e, change *c, size_t n)
{
    for (size_t i = 0; i < n; i++) ss_schedule(e, c[i].t_s, on_change, &c[i], 0);
}

/* ---- a) three jobs on a 2-core CPU ----------------------------------------- */

/* One link of capacity 2 (cores); three jobs capped at 1 core, of 1, 2 and
 * 3 bytes (8, 16, 24 units).  Three share 2 cores: 2/3 each, below the cap.
 * Job 0 is done at 8 / (2/3) = 12; the others have 16 - 8 = 8 and
 * 24 - 8 = 16 left and get 1 core each (capped; 2 cores for 2 jobs).  Job 1
 * is done at 12 + 8 = 20, job 2 has 8 left, alone but capped at 1: 28. */
static void test_cpu_cores(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cores = 2;
        ss_flownet *net = ss_flownet_new(e, 1, &cores);
        ss_flownet_tune(net, 0, propagate);
        uint32_t cpu = 0;
        ss_flow_opts one_core = {.cap_bps = 1};
        reset_done();
        ss_flow_id id[3];
        for (int j = 0; j < 3; j++)
            id[j] = ss_flow_start(net, &cpu, 1, (double)(j + 1), &one_core, on_done, (void *)(intptr_t)j);
        for (int j = 0; j < 3; j++) ASSERT_RATE_OF(ss_flow_rate_bps(net, id[j]), 2.0 / 3.0);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
        ss_engine_run(e, INFINITY);
        ASSERT_DONE(0, 12.0);
        ASSERT_DONE(1, 20.0);
        ASSERT_DONE(2, 28.0);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 6.0, 1e-12);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* ---- b) two containers on a 4-core host ---------------------------------------- */

/* Links: A's quota 1.5 cores (0), B's quota 3 cores (1), the host's 4 cores
 * (2).  Jobs in A run over {A, host}, jobs in B over {B, host}, each
 * capped at 1 core.  Work (units): a0 4, a1 8, a2 12; b0 10, b1 20, b2 40.
 *   t = 0: levels A 1.5/3 = 0.5, B 3/3 = 1, host 4/6, caps 1.  A saturates
 *     first: a* = 0.5.  The host has 4 - 1.5 = 2.5 left for the three B
 *     jobs, 5/6 each, below B's level 1 and the cap: b* = 5/6.
 *   a0 done at 4 / 0.5 = 8.  Left: a1 4, a2 8, b0 10/3, b1 40/3, b2 100/3.
 *     Levels A 1.5/2 = 0.75, B 1, host 4/5: a1 = a2 = 0.75, and the host
 *     again has 2.5 for three: b* = 5/6.
 *   b0 done at 8 + (10/3) / (5/6) = 12.  Left: a1 1, a2 5, b1 10, b2 30.
 *     A 0.75, host (4 - 1.5) / 2 = 1.25, B 1.5: a* = 0.75, b* = 1 (capped).
 *   a1 done at 12 + 1 / 0.75 = 40/3.  Left: a2 4, b1 26/3, b2 86/3.
 *     A 1.5, host 4/3, B 1.5: everyone at the cap, 1.
 *   a2 done at 40/3 + 4 = 52/3, b1 at 40/3 + 26/3 = 22, b2 at 40/3 + 86/3 = 42. */
static void test_containers(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap[3] = {1.5, 3, 4};
        ss_flownet *net = ss_flownet_new(e, 3, cap);
        ss_flownet_tune(net, 0, propagate);
        uint32_t in_a[2] = {0, 2}, in_b[2] = {1, 2};
        ss_flow_opts one_core = {.cap_bps = 1};
        double work[6] = {4, 8, 12, 10, 20, 40};
        ss_flow_id id[6];
        reset_done();
        for (int j = 0; j < 6; j++)
            id[j] = ss_flow_start(net, j < 3 ? in_a : in_b, 2, work[j] / 8, &one_core, on_done,
                                  (void *)(intptr_t)j);
        for (int j = 0; j < 3; j++) ASSERT_RATE_OF(ss_flow_rate_bps(net, id[j]), 0.5);
        for (int j = 3; j < 6; j++) ASSERT_RATE_OF(ss_flow_rate_bps(net, id[j]), 5.0 / 6.0);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 1), 2.5 / 3, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 2), 1.0, 1e-12);
        ss_engine_run(e, INFINITY);
        ASSERT_DONE(0, 8.0);
        ASSERT_DONE(3, 12.0);
        ASSERT_DONE(1, 40.0 / 3);
        ASSERT_DONE(2, 52.0 / 3);
        ASSERT_DONE(4, 22.0);
        ASSERT_DONE(5, 42.0);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* ---- c) capacities changed in flight --------------------------------------- */

/* Link 0 (8) carries j0, capped at 3, and j1; link 1 (16) carries j2
 * alone; link 2 (100) is set to 2 before any route names it, then carries
 * j3.  Work: j0, j1 24 units, j2 32, j3 8.
 *   t = 0: j0 3 (capped), j1 5, j2 16, j3 2.
 *   t = 0.5: link 0 halved to 4.  j0 and j1 2 each.  Left: j0 22.5, j1 21.5.
 *   t = 1: link 1 to 4 (j2's alone: its cap).  j2 has 16 left, at 4.
 *   t = 1.5: link 0 doubled back to 8: j0 3, j1 5.  Left: j0 20.5, j1 19.5.
 * j3 done at 8/2 = 4; j2 at 1 + 16/4 = 5; j1 at 1.5 + 19.5/5 = 5.4; j0
 * keeps its cap: 1.5 + 20.5/3 = 25/3. */
static void test_capacity_changes(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap[3] = {8, 16, 100};
        ss_flownet *net = ss_flownet_new(e, 3, cap);
        ss_flownet_tune(net, 0, propagate);
        cnet = net;
        ss_flownet_set_capacity(net, 2, 2); /* not named by a route yet */
        uint32_t l0 = 0, l1 = 1, l2 = 2;
        ss_flow_opts capped = {.cap_bps = 3};
        reset_done();
        cid[0] = ss_flow_start(net, &l0, 1, 3, &capped, on_done, (void *)0);
        cid[1] = ss_flow_start(net, &l0, 1, 3, NULL, on_done, (void *)1);
        cid[2] = ss_flow_start(net, &l1, 1, 4, NULL, on_done, (void *)2);
        cid[3] = ss_flow_start(net, &l2, 1, 1, NULL, on_done, (void *)3);
        ncid = 4;
        ASSERT_RATE_OF(ss_flow_rate_bps(net, cid[0]), 3);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, cid[1]), 5);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, cid[2]), 16);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, cid[3]), 2);
        change c[] = {{.t_s = 0.5, .flow = -1, .link = 0, .value = 4},
                      {.t_s = 1.0, .flow = -1, .link = 1, .value = 4},
                      {.t_s = 1.5, .flow = -1, .link = 0, .value = 8},
                      {.t_s = 2.0, .flow = -1, .link = 0, .value = 8}}; /* in place: nothing */
        schedule_changes(e, c, 4);
        ss_engine_run(e, INFINITY);
        ASSERT_RATE_OF(c[0].rate[0], 2);
        ASSERT_RATE_OF(c[0].rate[1], 2);
        ASSERT_RATE_OF(c[0].rate[2], 16);
        CU_ASSERT_DOUBLE_EQUAL(c[0].util[0], 1.0, 1e-12); /* of the new capacity */
        ASSERT_RATE_OF(c[1].rate[2], 4);
        CU_ASSERT_DOUBLE_EQUAL(c[1].util[1], 1.0, 1e-12);
        ASSERT_RATE_OF(c[2].rate[0], 3);
        ASSERT_RATE_OF(c[2].rate[1], 5);
        CU_ASSERT_DOUBLE_EQUAL(c[2].util[0], 1.0, 1e-12);
        CU_ASSERT_EQUAL(c[3].st.resolves, c[2].st.resolves);
        CU_ASSERT_EQUAL(c[3].st.rate_changes, c[2].st.rate_changes);
        ASSERT_DONE(3, 4.0);
        ASSERT_DONE(2, 5.0);
        ASSERT_DONE(1, 5.4);
        ASSERT_DONE(0, 25.0 / 3);
        /* bytes carried count in full across the changes */
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 6.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 1), 4.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 2), 1.0, 1e-12);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* Mid-way checks: bytes carried over a link and utilisation read between
 * the changes.  One link of 8 carries two uncapped jobs of 3 bytes (24
 * units): 4 each (0.5 byte a second).  At t = 1 the capacity drops to 2:
 * they have carried 0.5 byte each (1 in all on the link, 2.5 left each),
 * and go on at 1 each (1/8 byte a second): 1.25 bytes on the link at t = 2.
 * At t = 3 the capacity is back to 8: 4 each for the 24 - 4 - 2 = 18 units
 * left, done at 3 + 4.5 = 7.5. */
static void test_capacity_bytes(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap = 8;
        ss_flownet *net = ss_flownet_new(e, 1, &cap);
        ss_flownet_tune(net, 0, propagate);
        cnet = net;
        uint32_t l0 = 0;
        reset_done();
        cid[0] = ss_flow_start(net, &l0, 1, 3, NULL, on_done, (void *)0);
        cid[1] = ss_flow_start(net, &l0, 1, 3, NULL, on_done, (void *)1);
        ncid = 2;
        change c[] = {{.t_s = 1, .flow = -1, .link = 0, .value = 2},
                      {.t_s = 3, .flow = -1, .link = 0, .value = 8}};
        schedule_changes(e, c, 2);
        ss_engine_run(e, 1);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, cid[0]), 2.5, 1e-12);
        ss_engine_run(e, 2);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 1.25, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_flow_remaining_bytes(net, cid[1]), 2.375, 1e-12);
        ss_engine_run(e, INFINITY);
        ASSERT_RATE_OF(c[0].rate[0], 1);
        ASSERT_RATE_OF(c[1].rate[1], 4);
        ASSERT_DONE(0, 7.5);
        ASSERT_DONE(1, 7.5);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 6.0, 1e-12);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* ---- d) caps changed in flight ------------------------------------------------ */

/* Link 0 (8) carries j0, capped at 2, and j1, uncapped; 24 units each.
 *   t = 0: j0 2, j1 6.
 *   t = 1: j0's cap to 6.  Left j0 22, j1 18.  Max-min: 4 and 4.
 *   t = 2: j0 uncapped: the link holds it at 4 already, so nothing moves
 *     (no re-solve).  Left j0 18, j1 14.
 *   t = 3: j1 capped at 1.  Left j0 14, j1 10.  j1 1, j0 7.
 * j0 done at 3 + 14/7 = 5; j1 has 10 - 2 = 8 left, alone, capped: 13.
 * Also j2 (link 1, 100), in set-up until t = 10, gets cap 2 at t = 0.5 and
 * runs with it: 8 units, done at 14.  j3 and j4 run on empty routes (same
 * host), capped at 4 and 2, 16 units each: j3's cap goes to 8 at t = 1
 * (4 units carried, 12 left: done at 2.5); j4's cap goes to 0 at t = 2,
 * with 12 units left: sent at once, done at 2.  Caps of finished flows
 * and of id 0 are not set. */
static void test_cap_changes(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap[2] = {8, 100};
        ss_flownet *net = ss_flownet_new(e, 2, cap);
        ss_flownet_tune(net, 0, propagate);
        cnet = net;
        uint32_t l0 = 0, l1 = 1;
        reset_done();
        ss_flow_opts o = {.cap_bps = 2};
        cid[0] = ss_flow_start(net, &l0, 1, 3, &o, on_done, (void *)0);
        cid[1] = ss_flow_start(net, &l0, 1, 3, NULL, on_done, (void *)1);
        o = (ss_flow_opts){.setup_s = 10};
        cid[2] = ss_flow_start(net, &l1, 1, 1, &o, on_done, (void *)2);
        o = (ss_flow_opts){.cap_bps = 4};
        cid[3] = ss_flow_start(net, NULL, 0, 2, &o, on_done, (void *)3);
        o = (ss_flow_opts){.cap_bps = 2};
        cid[4] = ss_flow_start(net, NULL, 0, 2, &o, on_done, (void *)4);
        ncid = 5;
        ASSERT_RATE_OF(ss_flow_rate_bps(net, cid[0]), 2);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, cid[1]), 6);
        change c[] = {{.t_s = 0.5, .flow = 2, .value = 2},
                      {.t_s = 1, .flow = 0, .value = 6},
                      {.t_s = 1, .flow = 3, .value = 8},
                      {.t_s = 2, .flow = 0, .value = 0},
                      {.t_s = 2, .flow = 4, .value = 0},
                      {.t_s = 3, .flow = 1, .value = 1},
                      {.t_s = 20, .flow = 1, .value = 5}}; /* finished */
        schedule_changes(e, c, 7);
        ss_engine_run(e, INFINITY);
        for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(c[i].ret, 1);
        CU_ASSERT_EQUAL(c[6].ret, 0);
        CU_ASSERT_EQUAL(ss_flow_set_cap(net, 0, 1), 0);
        CU_ASSERT_EQUAL(c[0].rate[2], 0); /* still in set-up */
        ASSERT_RATE_OF(c[1].rate[0], 4);
        ASSERT_RATE_OF(c[1].rate[1], 4);
        ASSERT_RATE_OF(c[2].rate[3], 8);
        ASSERT_RATE_OF(c[3].rate[0], 4);
        ASSERT_RATE_OF(c[3].rate[1], 4);
        CU_ASSERT_EQUAL(c[3].st.resolves, c[2].st.resolves); /* the link holds j0: no re-solve */
        CU_ASSERT_EQUAL(c[3].st.rate_changes, c[2].st.rate_changes);
        ASSERT_RATE_OF(c[5].rate[0], 7);
        ASSERT_RATE_OF(c[5].rate[1], 1);
        ASSERT_DONE(0, 5.0);
        ASSERT_DONE(1, 13.0);
        ASSERT_DONE(2, 14.0);
        ASSERT_DONE(3, 2.5);
        ASSERT_DONE(4, 2.0);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 6.0, 1e-12);
        CU_ASSERT_EQUAL(ss_flownet_active(net), 0);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* ---- e) weights: a job on a CPU and a disk ------------------------------------ */

/* A CPU of 4 cores (link 0) and a disk of 10 units a second (link 1).  X
 * needs 3 core-seconds per unit it reads: route {CPU, disk}, weights
 * {3, 1}.  Y uses the CPU only, Z the disk only.  Work: X 8, Y 16, Z 80.
 *   Levels: CPU 4 / (3 + 1) = 1, disk 10 / 2 = 5.  The CPU saturates:
 *   X = Y = 1 (X takes 3 cores, Y 1).  The disk has 10 - 1 = 9 left: Z = 9.
 * X done at 8; Z has 80 - 72 = 8 left, alone: 8 + 8/10 = 8.8; Y has 8
 * left, alone on 4 cores: 8 + 8/4 = 10.  The CPU carried 3 * 1 + 2 bytes,
 * the disk 1 + 10. */
static void test_weights_cpu_disk(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap[2] = {4, 10};
        ss_flownet *net = ss_flownet_new(e, 2, cap);
        ss_flownet_tune(net, 0, propagate);
        uint32_t both[2] = {0, 1}, cpu = 0, disk = 1;
        double w[2] = {3, 1};
        reset_done();
        ss_flow_id x = ss_flow_start_weighted(net, both, w, 2, 1, NULL, on_done, (void *)0);
        ss_flow_id y = ss_flow_start(net, &cpu, 1, 2, NULL, on_done, (void *)1);
        ss_flow_id z = ss_flow_start(net, &disk, 1, 10, NULL, on_done, (void *)2);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, x), 1);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, y), 1);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, z), 9);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 1), 1.0, 1e-12);
        ss_engine_run(e, INFINITY);
        ASSERT_DONE(0, 8.0);
        ASSERT_DONE(2, 8.8);
        ASSERT_DONE(1, 10.0);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 5.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 1), 11.0, 1e-12);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* The same resources with changes in flight.  Work: X 16, Y 16, Z 80.
 *   t = 0: X = Y = 1, Z = 9 (as above).  Left X 14, Y 14, Z 62.
 *   t = 2: the CPU drops to 2 cores: 2 / 4 = 0.5 for X and Y, Z = 9.5.
 *     Left X 13, Y 13, Z 43.
 *   t = 4: X capped at 1/4: it takes 3/4 of a core, Y gets 2 - 3/4 = 5/4,
 *     Z 10 - 1/4 = 39/4.  Left X 12.5, Y 10.5, Z 23.5.
 *   t = 6: the CPU is back to 4: Y = 4 - 3/4 = 13/4.
 * Z done at 6 + 23.5 / (39/4) = 328/39, Y at 6 + 10.5 / (13/4) = 120/13,
 * X (capped throughout) at 6 + 12.5 * 4 = 56. */
static void test_weights_changes(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap[2] = {4, 10};
        ss_flownet *net = ss_flownet_new(e, 2, cap);
        ss_flownet_tune(net, 0, propagate);
        cnet = net;
        uint32_t both[2] = {0, 1}, cpu = 0, disk = 1;
        double w[2] = {3, 1};
        reset_done();
        cid[0] = ss_flow_start_weighted(net, both, w, 2, 2, NULL, on_done, (void *)0);
        cid[1] = ss_flow_start(net, &cpu, 1, 2, NULL, on_done, (void *)1);
        cid[2] = ss_flow_start(net, &disk, 1, 10, NULL, on_done, (void *)2);
        ncid = 3;
        change c[] = {{.t_s = 2, .flow = -1, .link = 0, .value = 2},
                      {.t_s = 4, .flow = 0, .value = 0.25},
                      {.t_s = 6, .flow = -1, .link = 0, .value = 4}};
        schedule_changes(e, c, 3);
        ss_engine_run(e, INFINITY);
        ASSERT_RATE_OF(c[0].rate[0], 0.5);
        ASSERT_RATE_OF(c[0].rate[1], 0.5);
        ASSERT_RATE_OF(c[0].rate[2], 9.5);
        ASSERT_RATE_OF(c[1].rate[0], 0.25);
        ASSERT_RATE_OF(c[1].rate[1], 1.25);
        ASSERT_RATE_OF(c[1].rate[2], 9.75);
        CU_ASSERT_DOUBLE_EQUAL(c[1].util[0], 1.0, 1e-12);
        ASSERT_RATE_OF(c[2].rate[1], 3.25);
        CU_ASSERT_DOUBLE_EQUAL(c[2].util[0], 1.0, 1e-12);
        ASSERT_DONE(2, 328.0 / 39);
        ASSERT_DONE(1, 120.0 / 13);
        ASSERT_DONE(0, 56.0);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 0), 3 * 2 + 2, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_bytes(net, 1), 2 + 10, 1e-12);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* Single entries and repeats.  On the same CPU (4) and disk (10): X alone,
 * weights {3, 1}: each link has one entry and caps it, at 4/3 and 10, so
 * X = 4/3.  A flow that names the CPU twice, weights 1 and 2, loads it 3
 * times its rate: alone, 4/3 as well (and the two entries are not single).
 * Together they share the CPU's 4 at 4 / (3 + 3) = 2/3.  Weights all 1
 * are no weights: that flow runs as an unweighted one, and a weighted flow
 * capped below its share keeps its cap. */
static void test_weights_single_entries(void)
{
    for (int propagate = 1; propagate >= 0; propagate--) {
        ss_engine *e = ss_engine_new();
        double cap[2] = {4, 10};
        ss_flownet *net = ss_flownet_new(e, 2, cap);
        ss_flownet_tune(net, 0, propagate);
        uint32_t both[2] = {0, 1}, twice[2] = {0, 0};
        double wx[2] = {3, 1}, wt[2] = {1, 2}, ones[2] = {1, 1};
        ss_flow_id x = ss_flow_start_weighted(net, both, wx, 2, 100, NULL, NULL, NULL);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, x), 4.0 / 3);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 0), 1.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 1), 0.4 / 3, 1e-12);
        ss_flow_id t = ss_flow_start_weighted(net, twice, wt, 2, 100, NULL, NULL, NULL);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, x), 2.0 / 3);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, t), 2.0 / 3);
        CU_ASSERT_EQUAL(ss_link_flows(net, 0), 3);
        ss_flow_cancel(net, x);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, t), 4.0 / 3);
        ss_flow_cancel(net, t);
        ss_flow_opts o = {.cap_bps = 0.5};
        ss_flow_id u = ss_flow_start_weighted(net, both, ones, 2, 100, NULL, NULL, NULL);
        ss_flow_id v = ss_flow_start_weighted(net, both, wx, 2, 100, &o, NULL, NULL);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, u), 4 - 1.5);
        ASSERT_RATE_OF(ss_flow_rate_bps(net, v), 0.5);
        CU_ASSERT_DOUBLE_EQUAL(ss_link_utilisation(net, 1), 0.3, 1e-12);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* Weights far apart: a link of 2 carries A (weight 1, capped at 1) and B
 * and C (weight 1e-9 each: a unit of their rate is a billionth of the
 * link's).  A freezes at its cap, then B and C share what is left, 1, at
 * 1 / 2e-9 = 5e8 each.  The unfrozen weight 1 + 2e-9 - 1 must come out as
 * 2e-9 to the last bits, not to a relative 1e-7 or so. */
static void test_weights_far_apart(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 2;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    uint32_t l0 = 0;
    double tiny = 1e-9;
    ss_flow_opts o = {.cap_bps = 1};
    ss_flow_id a = ss_flow_start(net, &l0, 1, 100, &o, NULL, NULL);
    ss_flow_id b = ss_flow_start_weighted(net, &l0, &tiny, 1, 1e12, NULL, NULL, NULL);
    ss_flow_id c = ss_flow_start_weighted(net, &l0, &tiny, 1, 1e12, NULL, NULL, NULL);
    ASSERT_RATE_OF(ss_flow_rate_bps(net, a), 1);
    ASSERT_RATE_OF(ss_flow_rate_bps(net, b), 5e8);
    ASSERT_RATE_OF(ss_flow_rate_bps(net, c), 5e8);
    ss_flownet_set_capacity(net, 0, 3);
    ASSERT_RATE_OF(ss_flow_rate_bps(net, b), 1e9);
    ASSERT_RATE_OF(ss_flow_rate_bps(net, c), 1e9);
    ss_flownet_free(net);
    ss_engine_free(e);
}

SS_TEST_SUITE("flow-change", {"three jobs on a 2-core CPU", test_cpu_cores},
              {"two containers with quotas on a 4-core host", test_containers},
              {"capacities halved and doubled in flight", test_capacity_changes},
              {"bytes and utilisation across a capacity change", test_capacity_bytes},
              {"caps changed in flight", test_cap_changes},
              {"weights: a job on a CPU and a disk", test_weights_cpu_disk},
              {"weights with capacities and caps changed in flight", test_weights_changes},
              {"weights: single entries, a link named twice, all 1", test_weights_single_entries},
              {"weights far apart", test_weights_far_apart})
