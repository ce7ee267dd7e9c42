/* test_runq.c: per-core run queues (sim/pipeline/pipeline_runq.c, pipeline.run_queues):
 * hand cases to 1e-9 - a preempted thread too cache hot for the idle core,
 * the tick-driven rotation on one core, the idle balance only at its ticks,
 * a woken thread waiting for its waker to leave, interference and a host's
 * fractional cores, the wake-affine placement - then calibrate's fit of the
 * balance interval and the stacking probability to the ring benchmark under
 * the kernel's constants (docs/calibration.md "Run queues"), and bad input. */
#include "test.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/rng.h"
#include "core/util.h"
#include "pipeline/pipeline_runq.h"
#include "test_blockflow.h"

/* ---- hand cases ----------------------------------------------------------- */

enum { NT = 4 };
static ss_engine *h_eng;
static ss_runq *h_q;
static ss_rq_thread h_t[NT];
static double h_end_s[NT];
static int h_chain = -1; /* thread woken from inside thread 0's end, or -1 */
static int h_goon;        /* thread 0 goes on with a 1 ms piece from inside its end, once */

static void h_done(void *ctx)
{
    int i = (int)(intptr_t)ctx;
    if (i == 0 && isnan(h_end_s[0]) && h_goon) {
        h_end_s[3] = ss_now(h_eng); /* its first piece's end */
        if (h_chain >= 0) ss_runq_run(h_q, &h_t[h_chain], 0.001, h_done, (void *)(intptr_t)h_chain);
        h_goon = 0;
        ss_runq_run(h_q, &h_t[0], 0.001, h_done, ctx);
        return;
    }
    int first = i == 0 && isnan(h_end_s[0]) && isnan(h_end_s[3]);
    h_end_s[i] = ss_now(h_eng);
    if (first && h_chain >= 0) ss_runq_run(h_q, &h_t[h_chain], 0.001, h_done, (void *)(intptr_t)h_chain);
}

typedef struct h_start {
    int thread;
    double at_s, work_s;
} h_start;

static h_start h_plan[8];

static void h_go(ss_engine *eng, void *ctx, uint64_t k)
{
    (void)eng;
    (void)ctx;
    const h_start *s = &h_plan[k];
    ss_runq_run(h_q, &h_t[s->thread], s->work_s, h_done, (void *)(intptr_t)s->thread);
}

/* Run plan[0..n-1] on a host of `cores`; ends into h_end_s. */
static ss_runq_stats h_run(double cores, const ss_runq_params *p, double g, double f, const h_start *plan, size_t n)
{
    h_eng = ss_engine_new();
    gsl_rng *rng = ss_rng_stream(1, 0, "test/runq");
    h_q = ss_runq_new(h_eng, cores, p, rng);
    ss_runq_set_interference(h_q, g, f);
    for (int i = 0; i < NT; i++) {
        ss_rq_thread_init(&h_t[i]);
        h_t[i].stackable = i == 1; /* thread 1 plays a block's main thread */
        h_end_s[i] = NAN;
    }
    for (size_t k = 0; k < n; k++) {
        h_plan[k] = plan[k];
        ss_schedule(h_eng, plan[k].at_s, h_go, NULL, k);
    }
    ss_engine_run(h_eng, 1e6);
    ss_runq_stats st = ss_runq_stats_of(h_q);
    ss_runq_free(h_q);
    gsl_rng_free(rng);
    ss_engine_free(h_eng);
    return st;
}

/* Two cores, slice 1.4 ms, no tick within the case.  B (thread 1) runs 0.1 ms
 * on core 0 and sleeps; A (0) takes core 0 at 0.2 ms for 20 ms, C (2) core 1
 * for 2.1 ms.  At 2.0 ms B wakes for 5 ms: no core idle, so its previous one,
 * where A has run past its slice: B preempts A.  C ends at 2.3 ms; core 1 is
 * idle, but A was preempted 0.3 ms ago, within the migration cost (0.5 ms):
 * cache hot, not pulled.  Core 1 idles; A resumes on core 0 when B sleeps at
 * 7 ms and ends at 7 + 18.2 = 25.2 ms.  Migration cost 0: pulled at 2.3 ms,
 * ends at 20.5 ms.  C for 2.6 ms (ends 0.8 ms after the preemption): A is
 * cold, pulled at 2.8 ms, ends at 21.0 ms. */
static const h_start hot_plan[4] = {{1, 0, 0.0001}, {0, 0.0002, 0.020}, {2, 0.0002, 0.0021}, {1, 0.002, 0.005}};

static void test_hot_waiter_not_pulled(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 50};
    h_start plan[4];
    memcpy(plan, hot_plan, sizeof plan);
    ss_runq_stats st = h_run(2, &p, 1, 1, plan, 4);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.0252, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 0.007, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[2], 0.0023, 1e-9);
    CU_ASSERT_EQUAL(st.preemptions, 1);
    CU_ASSERT_TRUE(st.hot_refusals >= 1);
    CU_ASSERT_EQUAL(st.pulls_newidle, 0);
    CU_ASSERT_DOUBLE_EQUAL(st.idle_while_waiting_s, 0.007 - 0.0023, 1e-9);
    /* The cores' use: every piece's work ran (0.1 + 20 + 2.1 + 5 ms) and A waited through B's 5 ms;
     * together, the pieces' spans from start to end (a thread with work runs or waits). */
    CU_ASSERT_DOUBLE_EQUAL(st.busy_core_s, 0.0272, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(st.waiting_thread_s, 0.005, 1e-9);
    p.migration_cost_s = 0;
    st = h_run(2, &p, 1, 1, plan, 4);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.0205, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 0.007, 1e-9);
    CU_ASSERT_EQUAL(st.pulls_newidle, 1);
    p.migration_cost_s = 0.0005;
    plan[2].work_s = 0.0026;
    h_run(2, &p, 1, 1, plan, 4);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.0210, 1e-9);
}

/* Threads 0 and 1 ended where the case says. */
static void h_ends(double end0_s, double end1_s)
{
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], end0_s, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], end1_s, 1e-9);
}

/* SIS_UTIL, two cores, no tick within the case.  B (thread 1) runs 0.1 ms on
 * core 0 and sleeps; A (0) takes core 0 at 0.2 ms for 400 ms, C (2) core 1
 * for 200 ms.  At 201 ms B wakes for 5 ms: its previous core (0) is busy,
 * core 1 idle for 0.8 ms.  The cores' utilisation (32 ms half-life) is then
 * 0.987 and 0.970: the scan may visit floor(2 (1 - (0.978 x 1.17)^2)) = 0
 * cores, so B stays on core 0 and preempts A, past its slice; A is hot, core
 * 1 idles, A ends at 405.2 ms.  Without the gate (idle_scan_pct 0) B goes to
 * core 1 and A ends at 400.2 ms.  C for 2 ms only, B waking at 150 ms: core 1
 * has idled 148 ms (0.002, core 0 0.961; the scan may visit one core): B runs
 * on core 1, A ends at 400.2 ms. */
static void test_idle_scan(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 50, .idle_scan_pct = 117, .util_halflife_s = 0.032};
    h_start plan[] = {{1, 0, 0.0001}, {0, 0.0002, 0.400}, {2, 0.0002, 0.200}, {1, 0.201, 0.005}};
    ss_runq_stats st = h_run(2, &p, 1, 1, plan, 4);
    h_ends(0.4052, 0.206);
    CU_ASSERT_EQUAL(st.scans_skipped, 1);
    CU_ASSERT_EQUAL(st.preemptions, 1);
    CU_ASSERT_DOUBLE_EQUAL(st.idle_while_waiting_s, 0.005, 1e-9);
    p.idle_scan_pct = 0;
    st = h_run(2, &p, 1, 1, plan, 4);
    h_ends(0.4002, 0.206);
    CU_ASSERT_EQUAL(st.scans_skipped, 0);
    CU_ASSERT_EQUAL(st.preemptions, 0);
    p.idle_scan_pct = 117;
    plan[2].work_s = 0.002;
    plan[3].at_s = 0.150;
    st = h_run(2, &p, 1, 1, plan, 4);
    h_ends(0.4002, 0.155);
    CU_ASSERT_EQUAL(st.scans_skipped, 0);
}

/* The idle balance at the ticks (4 ms, the first at 0): the case above with
 * ticks.  balance_ticks 1: at the 4 ms tick A is cold and core 1 pulls it;
 * A ends at 4 + 18.2 = 22.2 ms, B alone on core 0 at 7 ms.  balance_ticks 2:
 * the 4 ms tick does not balance, it rotates (B has run its slice: A runs on
 * core 0, B waits); at 8 ms core 1 pulls B (cold for 4 ms), which ends at
 * 8 + 3 = 11 ms; A at 4 + 18.2 = 22.2 ms. */
static void test_balance_at_ticks(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 0.004, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 0};
    ss_runq_stats st = h_run(2, &p, 1, 1, hot_plan, 4);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.0222, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 0.007, 1e-9);
    CU_ASSERT_EQUAL(st.pulls_tick, 1);
    p.balance_ticks = 2;
    st = h_run(2, &p, 1, 1, hot_plan, 4);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.0222, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 0.011, 1e-9);
    CU_ASSERT_EQUAL(st.rotations, 1);
    CU_ASSERT_EQUAL(st.pulls_tick, 1);
}

/* One core, ticks every 4 ms from 0, slice 1.4 ms, 10 ms each.  B wakes at
 * 0.1 ms: A is inside its slice, B waits; the ticks rotate them every 4 ms
 * (B 4-8, A 8-12, B 12-16, A 16-18, B 18-20).  B wakes at 2 ms: A is past
 * its slice, B preempts it (B 2-4, A 4-8, B 8-12, A 12-16, B 16-20). */
static void test_rotation_on_one_core(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 0.004, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 0};
    h_start plan[] = {{0, 0, 0.010}, {1, 0.0001, 0.010}};
    ss_runq_stats st = h_run(1, &p, 1, 1, plan, 2);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.018, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 0.020, 1e-9);
    CU_ASSERT_EQUAL(st.rotations, 4);
    CU_ASSERT_EQUAL(st.preemptions, 0);
    /* one core busy 20 ms; each thread waited its span less its work: 8 + 9.9 ms */
    CU_ASSERT_DOUBLE_EQUAL(st.busy_core_s, 0.020, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(st.waiting_thread_s, 0.0179, 1e-9);
    plan[1].at_s = 0.002;
    st = h_run(1, &p, 1, 1, plan, 2);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 0.016, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 0.020, 1e-9);
    CU_ASSERT_EQUAL(st.preemptions, 1);
    CU_ASSERT_DOUBLE_EQUAL(st.waiting_thread_s, 0.006 + 0.008, 1e-9);
}

/* A thread woken by another as that one's piece ends waits for it, though the
 * waker has run past its slice (one core, 2 ms then 1 ms: 2 and 3 ms).  A
 * waker that goes on with a next piece (1 ms) keeps its core inside its slice
 * (first piece 1 ms: it ends at 2 ms, the woken at 3 ms) and gives it to the
 * woken past it (first piece 2 ms: the woken runs 2-3 ms, the waker 3-4 ms). */
static void test_waker_not_preempted(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 50};
    const struct {
        double first_s;  /* thread 0's (first) piece */
        int goon;        /* it goes on with 1 ms more */
        double end0_s, end1_s, first_end_s;
        uint64_t preemptions;
    } cases[] = {{0.002, 0, 0.002, 0.003, NAN, 0}, {0.001, 1, 0.002, 0.003, 0.001, 0}, {0.002, 1, 0.004, 0.003, 0.002, 1}};
    h_chain = 1;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        h_start plan[] = {{0, 0, cases[k].first_s}};
        h_goon = cases[k].goon;
        ss_runq_stats st = h_run(1, &p, 1, 1, plan, 1);
        CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], cases[k].end0_s, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], cases[k].end1_s, 1e-9);
        if (cases[k].goon) CU_ASSERT_DOUBLE_EQUAL(h_end_s[3], cases[k].first_end_s, 1e-9);
        CU_ASSERT_EQUAL(st.preemptions, cases[k].preemptions);
    }
    h_chain = -1;
}

/* The same-instant rule: a thread whose piece ends at the very time another
 * wakes onto its core is not preempted, whichever event comes first (one
 * core, A 2 ms from 0, B woken at 2 ms: A at 2 ms, B at 3 ms), late in a
 * run as early (from 10^5 s). */
static void test_same_instant(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 0.004, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 0};
    const double t0[] = {0, 1e5};
    for (int k = 0; k < 2; k++) {
        h_start plan[] = {{0, t0[k], 0.002}, {1, t0[k] + 0.002, 0.001}};
        ss_runq_stats st = h_run(1, &p, 1, 1, plan, 2);
        CU_ASSERT_DOUBLE_EQUAL(h_end_s[0] - t0[k], 0.002, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(h_end_s[1] - t0[k], 0.003, 1e-9);
        CU_ASSERT_EQUAL(st.preemptions, 0);
        /* B at 2 ms into A's 10 ms: preempted, then the ticks alternate them (B ends at 3 ms) */
        plan[0].work_s = 0.010;
        h_run(1, &p, 1, 1, plan, 2);
        CU_ASSERT_DOUBLE_EQUAL(h_end_s[1] - t0[k], 0.003, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(h_end_s[0] - t0[k], 0.011, 1e-9);
    }
}

/* Interference and cores.  Two on two cores, co-running at 1 / g (g = 1.25):
 * 1.25 s.  Three on two cores (f = 1.6, no tick): A core 0, B core 1, C
 * waits on core 0 (A inside its slice), A time-sliced at 1 / f until B ends
 * at 1 s and core 1 pulls C (never ran: cold); A then alone: 0.625 + 0.375,
 * at 1.375 s; C at 2 s.  A host of 1.5 cores is two cores at 0.75: 1.3333 s. */
static void test_interference_and_cores(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 50};
    h_start two[] = {{0, 0, 1}, {1, 0, 1}};
    h_run(2, &p, 1.25, 1.6, two, 2);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 1.25, 1e-9);
    h_start three[] = {{0, 0, 1}, {1, 0, 1}, {2, 0, 1}};
    h_run(2, &p, 1, 1.6, three, 3);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 1.375, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[1], 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[2], 2.0, 1e-9);
    h_run(1.5, &p, 1, 1, two, 1);
    CU_ASSERT_DOUBLE_EQUAL(h_end_s[0], 1 / 0.75, 1e-9);
}

/* The wake-affine placement (stack_prob): two cores, A computes 10 ms from 0;
 * B (a main thread) wakes at 2 ms for 1 ms while core 1 is idle.  With
 * probability 1 it goes beside A, preempts it (A is past its slice), and core
 * 1 idles: nothing pulls A until B leaves at 3 ms (the idle core had no event
 * of its own, no tick falls inside): A ends at 11 ms.  With 0: B takes core 1,
 * A ends at 10 ms. */
static void test_wake_affine(void)
{
    ss_runq_params p = {.slice_s = 0.0014, .tick_s = 100, .migration_cost_s = 0.0005, .balance_ticks = 1,
                        .tick_phase_s = 50, .stack_prob = 1};
    h_start plan[] = {{0, 0, 0.010}, {1, 0.002, 0.001}};
    ss_runq_stats st = h_run(2, &p, 1, 1, plan, 2);
    h_ends(0.011, 0.003);
    CU_ASSERT_EQUAL(st.stacked, 1);
    CU_ASSERT_DOUBLE_EQUAL(st.idle_while_waiting_s, 0.001, 1e-9);
    p.stack_prob = 0;
    st = h_run(2, &p, 1, 1, plan, 2);
    h_ends(0.010, 0.003);
    CU_ASSERT_EQUAL(st.stacked, 0);
}

/* ---- the ring: calibrate's fit ------------------------------------------------------
 * The ring measured with its kernel and token deliveries (profiles/measured/
 * ring-2026-11-27: 1.893 ms of stretch per burn with two tokens, sd 2.280 ms),
 * calibrated with the committed micro-benchmarks: scheduler.run_queues with a
 * balance every 2 ticks and, under SIS_UTIL's gated idle-core scan, a stacking
 * probability of at most 0.2 (0.3 to 0.6 without the scan), its
 * simulated mean and spread inside the measured 95% intervals widened by the
 * simulation's own error (four replications); a balance every tick falls
 * short of the mean even at probability 1; the scenario reads the file.  The same ring with deliveries of 10 ms (the receivers then busy
 * enough to stretch the burns at any interval without stacking): nothing
 * written, the summary says why.  The committed ring (no kernel recorded), a
 * ring without deliveries: not fitted, and why; two rings from two kernels:
 * refused, positioned, exit 2. */
static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    int ch;
    while ((ch = fgetc(f)) != EOF) fputc(ch, m);
    fclose(f);
    fclose(m);
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

/* edit_ring.py IN OUT RELEASE [DELIVERY_S | none]: the kernel's release, and the baseline's deliveries */
static const char *const edit_ring =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "d['environment']['kernel'] = {'release': sys.argv[3], 'slice_s': 0.0014, 'tick_s': 0.004, "
    "'migration_cost_s': None}\n"
    "for s in d['samples']:\n"
    "    if len(sys.argv) > 4 and sys.argv[4] == 'none':\n"
    "        s.pop('delivery_s', None)\n"
    "    elif len(sys.argv) > 4:\n"
    "        s['delivery_s'] = [float(sys.argv[4])] * 500\n"
    "json.dump(d, open(sys.argv[2], 'w'), indent=1)\n";

static void test_ring_calibrates_balance_ticks(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "edit_ring.py", edit_ring));
    const char *ring = SS_SRC_DIR "/profiles/measured/ring-2026-11-27/probe-stacking.json",
               *old = SS_SRC_DIR "/profiles/measured/committed-2026-11-26/probe-stacking.json",
               *micro = SS_SRC_DIR "/profiles/measured/probe-micro.json";
    int rc = ss_test_sh(&out,
                        "cd '%s' && python3 edit_ring.py '%s' slow.json 6.18.44-fc-v782 0.01 && "
                        "python3 edit_ring.py '%s' none.json 6.18.44-fc-v782 none && "
                        "python3 edit_ring.py '%s' other.json 6.1.0 && "
                        "python3 edit_ring.py '%s' before6.json 5.15.0",
                        dir, ring, ring, ring, ring);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(out);
    rc = ss_test_sh(&out, "'%s' calibrate '%s' '%s' -o '%s/model.json'", SS_BIN, micro, ring, dir);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "run queues on 2 cores (kernel 6.18.44-fc-v782: slice 1.4 ms, tick 4 ms, "
                                    "migration cost 0.5 ms, the default): balance every 2 ticks, stacking probability"));
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/model.json", dir);
    cJSON *m = load_json(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "scheduler"), "run_queues");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rq);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rq, "ring"),
                *per = cJSON_GetObjectItemCaseSensitive(r, "by_balance_ticks");
    double q = cJSON_GetObjectItemCaseSensitive(rq, "stacking_probability")->valuedouble;
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(rq, "balance_ticks")->valueint, 2);
    /* under SIS_UTIL's gated idle-core scan (Linux's constants, written beside) the ring's stacking is
     * mostly the scan not looking; what the wake-affine probability adds is small (0.07; 0.43 before
     * the scan was modelled) */
    CU_ASSERT_TRUE(q >= 0 && q <= 0.2);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(rq, "idle_scan_pct")->valuedouble, 117, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(rq, "util_halflife_s")->valuedouble, 0.032, 1e-12);
    CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(r, "deliveries")->valueint, 982);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(per), 8);
    const cJSON *two = cJSON_GetArrayItem(per, 1), *one = cJSON_GetArrayItem(per, 0),
                *mci = cJSON_GetObjectItemCaseSensitive(r, "measured_mean_s_ci95"),
                *sci = cJSON_GetObjectItemCaseSensitive(r, "measured_sd_s_ci95");
    double mean2 = cJSON_GetObjectItemCaseSensitive(two, "mean_s")->valuedouble,
           sd2 = cJSON_GetObjectItemCaseSensitive(two, "sd_s")->valuedouble,
           mse = 1.96 * cJSON_GetObjectItemCaseSensitive(two, "mean_se_s")->valuedouble,
           sse = 1.96 * cJSON_GetObjectItemCaseSensitive(two, "sd_se_s")->valuedouble;
    /* inside the measured intervals, widened by the simulation's own 95% error */
    CU_ASSERT_TRUE(mean2 >= cJSON_GetArrayItem(mci, 0)->valuedouble - mse &&
                   mean2 <= cJSON_GetArrayItem(mci, 1)->valuedouble + mse);
    CU_ASSERT_TRUE(sd2 >= cJSON_GetArrayItem(sci, 0)->valuedouble - sse &&
                   sd2 <= cJSON_GetArrayItem(sci, 1)->valuedouble + sse);
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(one, "stacking_probability")));
    CU_ASSERT_TRUE(ss_test_has(cJSON_GetObjectItemCaseSensitive(one, "mean")->valuestring, "short of the measured mean"));
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(rq, "migration_cost_assumed"));
    /* a ring on a kernel before Linux 6.0 (no SIS_UTIL) is fitted without the scan, and the file says so:
     * the wake-affine probability is then most of the ring's stacking (0.43) */
    rc = ss_test_sh(&out, "'%s' calibrate '%s' '%s/before6.json' -o '%s/before6-model.json'", SS_BIN, micro, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    snprintf(path, sizeof path, "%s/before6-model.json", dir);
    cJSON *m5 = load_json(path);
    const cJSON *rq5 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m5, "scheduler"), "run_queues");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rq5);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(rq5, "idle_scan_pct"));
    CU_ASSERT_TRUE(ss_test_has(cJSON_GetObjectItemCaseSensitive(rq5, "idle_scan_assumed")->valuestring, "before Linux 6.0"));
    CU_ASSERT_TRUE(cJSON_GetObjectItemCaseSensitive(rq5, "stacking_probability")->valuedouble >= 0.3);
    cJSON_Delete(m5);
    cJSON_Delete(m);
    rc = ss_test_sh(&out, "'%s' check '%s/scenarios/probe/resnet50-cpu.yaml' --set pipeline.stacking= "
                    "--set 'pipeline.run_queues={profile: %s/model.json}'",
                    SS_BIN, SS_SRC_DIR, dir);
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    const struct {
        const char *file, *says;
    } unfit[] = {
        {"slow.json", "run queues: not fitted: no balance interval of 1 to 8 ticks and stacking probability "
                      "reproduces the ring"},
        {"none.json", "run queues: not fitted: the ring recorded no token deliveries"},
        {NULL, "run queues: not fitted: the ring's profile records no kernel"},
    };
    for (size_t k = 0; k < sizeof unfit / sizeof *unfit; k++) {
        char *file = unfit[k].file ? ss_xasprintf("%s/%s", dir, unfit[k].file) : ss_xstrdup(old);
        rc = ss_test_sh(&out, "'%s' calibrate '%s' '%s' -o '%s/u.json' && grep -c run_queues '%s/u.json'", SS_BIN,
                        micro, file, dir, dir);
        CU_ASSERT_EQUAL(rc, 1); /* calibrate wrote its model; grep found no run_queues */
        if (!ss_test_has(out, unfit[k].says)) fprintf(stderr, "\n  %s: %s\n", file, out);
        CU_ASSERT_TRUE(ss_test_has(out, unfit[k].says));
        free(out);
        free(file);
    }
    rc = ss_test_sh(&out, "'%s' calibrate '%s' '%s' '%s/other.json' -o '%s/two.json'", SS_BIN, micro, ring, dir, dir);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "other.json:") && ss_test_has(out, "this ring ran on kernel 6.1.0, the one before "
                                                                      "on 6.18.44-fc-v782"));
    free(out);
    ss_test_rmtree(dir);
}

/* ---- scenarios ------------------------------------------------------------------ */

/* The probe's scenario (run queues from the model file): stacking beside them
 * refused (at the stacking key); run_queues given inline, every bad value
 * positioned, exit 2, and the scenario runs, byte-identical twice (with
 * stacking null, off, as a scenario that had it would say). */
static void test_scenario_keys(void)
{
    const char *sc = SS_SRC_DIR "/scenarios/probe/resnet50-cpu.yaml";
    const char *rq = "pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 2}";
    char *out = NULL;
    int rc = ss_test_sh(&out, "'%s' check '%s' --set 'pipeline.stacking={probability: 0.4, mean_s: 0.003}'", SS_BIN, sc);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "--set:1:19:") && ss_test_has(out, "stacking: not with run_queues"));
    free(out);
    struct {
        const char *set, *want;
    } bad[] = {
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005}",
         "missing required key 'balance_ticks'"},
        {"pipeline.run_queues={slice_s: 0, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 1}",
         "slice_s: expected a number > 0"},
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 0}",
         "balance_ticks: expected a whole number of ticks from 1 to 1000, got 0"},
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_tick: 1}",
         "did you mean 'balance_ticks'"},
        {"pipeline.run_queues=[1]", "run_queues: expected a map"},
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 2, "
         "stacking_probability: 1.5}",
         "stacking_probability: expected 0 to 1, got 1.5"},
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 2, "
         "idle_scan_pct: 50}",
         "idle_scan_pct: expected 0 (off) or 100 to 1000 (Linux's LLC imbalance_pct: 117), got 50"},
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 2, "
         "idle_scan_pct: 117, util_halflife_s: 0}",
         "util_halflife_s: expected a number > 0"},
        {"pipeline.run_queues={slice_s: 0.0014, tick_s: 0.004, migration_cost_s: 0.0005, balance_ticks: 2, "
         "util_halflife_s: 0.032}",
         "util_halflife_s: only with idle_scan_pct"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        rc = ss_test_sh(&out, "'%s' check '%s' --set pipeline.stacking= --set '%s'", SS_BIN, sc, bad[k].set);
        CU_ASSERT_EQUAL(rc, 2);
        if (!ss_test_has(out, bad[k].want) || !ss_test_has(out, "--set:")) fprintf(stderr, "\n  %s: %s\n", bad[k].set, out);
        CU_ASSERT_TRUE(ss_test_has(out, bad[k].want) && ss_test_has(out, "--set:"));
        free(out);
    }
    char *dir = ss_test_tmpdir();
    for (int k = 0; k < 2; k++) {
        rc = ss_test_sh(&out, "'%s' run '%s' --set pipeline.stacking= --set '%s' --set replications=2 --set duration_s=10 "
                        "--set workloads.0.clients=2 -o '%s/run%d.csv' --quiet",
                        SS_BIN, sc, rq, dir, k);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc) fprintf(stderr, "\n  %s\n", out);
        free(out);
    }
    rc = ss_test_sh(&out, "cmp '%s/run0.csv' '%s/run1.csv'", dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    ss_test_rmtree(dir);
}

/* The cores' use as run columns (pipeline_build.c): the probe's scenario
 * with run queues has cpu_busy_cores_vm and cpu_waiting_threads_vm, the
 * window's time averages: one client keeps under one core busy (one request's
 * pieces run one after another, but for a hop's overlap) and nothing waits
 * long; eight keep both cores busy with threads waiting; the max-min host
 * (run_queues off) has no such columns. */
static void test_usage_columns(void)
{
    const char *sc = SS_SRC_DIR "/scenarios/probe/resnet50-cpu.yaml";
    char *stacking = ss_xasprintf("pipeline.stacking={profile: %s/models/resnet50-cpu.json}", SS_SRC_DIR);
    char *one[] = {"workloads.0.clients=1", "replications=1", "duration_s=30"};
    char *eight[] = {"workloads.0.clients=8", "replications=1", "duration_s=30"};
    char *maxmin[] = {"workloads.0.clients=8", "replications=1", "duration_s=30", "pipeline.run_queues=", stacking};
    struct {
        char *const *sets;
        size_t n;
    } runs[3] = {{one, 3}, {eight, 3}, {maxmin, 5}};
    double busy[3], wait[3];
    for (int k = 0; k < 3; k++) {
        busy[k] = run_extra(sc, "zmq-copy", runs[k].sets, runs[k].n, "cpu_busy_cores_vm", NULL);
        wait[k] = run_extra(sc, "zmq-copy", runs[k].sets, runs[k].n, "cpu_waiting_threads_vm", NULL);
    }
    free(stacking);
    CU_ASSERT_TRUE(busy[0] > 0.8 && busy[0] < 1.0);
    CU_ASSERT_TRUE(wait[0] >= 0 && wait[0] < 0.05);
    CU_ASSERT_TRUE(busy[1] > 1.98 && busy[1] <= 2.0 + 1e-9);
    CU_ASSERT_TRUE(wait[1] > 1.0);
    CU_ASSERT_TRUE(isnan(busy[2]) && isnan(wait[2]));
    if (!(busy[1] > 1.98)) fprintf(stderr, "\n  busy %g %g %g, waiting %g %g %g\n", busy[0], busy[1], busy[2], wait[0], wait[1], wait[2]);
}

SS_TEST_SUITE("run-queues", {"the cores' use: busy cores and waiting threads as run columns", test_usage_columns},
              {"a preempted thread, cache hot, is not pulled by the idle core", test_hot_waiter_not_pulled},
              {"SIS_UTIL: a busy host's waking thread does not look for the idle core", test_idle_scan},
              {"the idle balance at its ticks", test_balance_at_ticks},
              {"one core: the ticks rotate, a wake-up past the slice preempts", test_rotation_on_one_core},
              {"a woken thread waits for its waker to leave the core, or preempts one past its slice", test_waker_not_preempted},
              {"a thread ending at a wake-up's instant is not preempted", test_same_instant},
              {"interference and fractional cores", test_interference_and_cores},
              {"the wake-affine placement beside a computing thread", test_wake_affine},
              {"the probe's ring calibrates the interval and the stacking probability", test_ring_calibrates_balance_ticks},
              {"scenario keys and bad input", test_scenario_keys})
