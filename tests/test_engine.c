/* test_engine.c: the calendar's ordering, tie-breaking, cancellation and
 * recycling guarantees (sim/core/engine.h). */
#include <math.h>
#include <stdlib.h>

#include "core/engine.h"
#include "test.h"

#define MAXLOG 20000
static uint64_t fired_log[MAXLOG];
static double fired_t[MAXLOG];
static size_t nlog;

static void record(ss_engine *e, void *ctx, uint64_t arg)
{
    if (nlog < MAXLOG) {
        fired_log[nlog] = arg;
        fired_t[nlog] = ss_now(e);
        nlog++;
    }
}

static void test_order_and_ties(void)
{
    ss_engine *e = ss_engine_new();
    nlog = 0;
    ss_schedule(e, 2.0, record, NULL, 1);
    ss_schedule(e, 1.0, record, NULL, 2);
    ss_schedule(e, 2.0, record, NULL, 3); /* same time as 1: fires after it */
    ss_schedule(e, 0.5, record, NULL, 4);
    CU_ASSERT_EQUAL(ss_engine_pending(e), 4);
    CU_ASSERT_EQUAL(ss_engine_run(e, INFINITY), 4);
    CU_ASSERT_EQUAL(fired_log[0], 4);
    CU_ASSERT_EQUAL(fired_log[1], 2);
    CU_ASSERT_EQUAL(fired_log[2], 1);
    CU_ASSERT_EQUAL(fired_log[3], 3);
    CU_ASSERT_DOUBLE_EQUAL(ss_now(e), 2.0, 0);
    ss_engine_free(e);
}

static void test_cancel(void)
{
    ss_engine *e = ss_engine_new();
    nlog = 0;
    ss_event_id a = ss_schedule(e, 1.0, record, NULL, 1);
    ss_event_id b = ss_schedule(e, 2.0, record, NULL, 2);
    ss_event_id c = ss_schedule(e, 3.0, record, NULL, 3);
    CU_ASSERT_EQUAL(ss_cancel(e, b), 1);
    CU_ASSERT_EQUAL(ss_cancel(e, b), 0); /* twice: no-op */
    CU_ASSERT_EQUAL(ss_cancel(e, 0), 0);
    ss_engine_run(e, 1.5); /* fires a only, stops at 1.5 */
    CU_ASSERT_EQUAL(nlog, 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_now(e), 1.5, 0);
    CU_ASSERT_EQUAL(ss_cancel(e, a), 0); /* already fired */
    /* a's slot is reused; the stale id must not cancel the new event */
    ss_event_id d = ss_schedule(e, 4.0, record, NULL, 4);
    CU_ASSERT_NOT_EQUAL(d, a);
    CU_ASSERT_EQUAL(ss_cancel(e, a), 0);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(nlog, 3);
    CU_ASSERT_EQUAL(fired_log[1], 3);
    CU_ASSERT_EQUAL(fired_log[2], 4);
    (void)c;
    ss_engine_free(e);
}

/* Random schedules and cancels against a brute-force reference: the fired
 * sequence must be sorted by (time, schedule order) and hold exactly the
 * events not cancelled. */
static void test_random_against_reference(void)
{
    enum { N = 5000 };
    static double t[N];
    static int cancelled[N];
    static ss_event_id ids[N];
    ss_engine *e = ss_engine_new();
    srand(7);
    nlog = 0;
    for (int i = 0; i < N; i++) {
        t[i] = (double)(rand() % 500); /* many ties */
        cancelled[i] = 0;
        ids[i] = ss_schedule(e, t[i], record, NULL, (uint64_t)i);
        if (i % 3 == 0) {
            int j = rand() % (i + 1);
            if (!cancelled[j]) {
                CU_ASSERT_EQUAL(ss_cancel(e, ids[j]), 1);
                cancelled[j] = 1;
            }
        }
    }
    ss_engine_run(e, INFINITY);
    size_t expect = 0;
    for (int i = 0; i < N; i++) expect += !cancelled[i];
    CU_ASSERT_EQUAL(nlog, expect);
    for (size_t k = 0; k < nlog; k++) {
        uint64_t i = fired_log[k];
        CU_ASSERT(!cancelled[i]);
        CU_ASSERT_DOUBLE_EQUAL(fired_t[k], t[i], 0);
        if (k > 0) {
            uint64_t p = fired_log[k - 1];
            CU_ASSERT(t[p] < t[i] || (t[p] == t[i] && p < i));
        }
    }
    ss_engine_free(e);
}

/* A handler that reschedules itself: the pending count and the pool stay at
 * one event however long it runs (no growth per event). */
static void again(ss_engine *e, void *ctx, uint64_t arg)
{
    if (arg > 0) ss_schedule_in(e, 1.0, again, ctx, arg - 1);
}

static void test_steady_state_reuse(void)
{
    ss_engine *e = ss_engine_new();
    ss_schedule(e, 0.0, again, NULL, 100000);
    CU_ASSERT_EQUAL(ss_engine_run(e, INFINITY), 100001);
    CU_ASSERT_EQUAL(ss_engine_peak(e), 1);
    CU_ASSERT_EQUAL(ss_engine_fired(e), 100001);
    CU_ASSERT_DOUBLE_EQUAL(ss_now(e), 100000.0, 0);
    ss_engine_free(e);
}

static void stopper(ss_engine *e, void *ctx, uint64_t arg) { ss_engine_stop(e); }

static void test_stop(void)
{
    ss_engine *e = ss_engine_new();
    nlog = 0;
    ss_schedule(e, 1.0, stopper, NULL, 0);
    ss_schedule(e, 2.0, record, NULL, 9);
    CU_ASSERT_EQUAL(ss_engine_run(e, INFINITY), 1);
    CU_ASSERT_EQUAL(nlog, 0);
    CU_ASSERT_EQUAL(ss_engine_pending(e), 1);
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(nlog, 1);
    ss_engine_free(e);
}

/* Handlers that schedule 0-3 events (some at the current time) and cancel
 * random pending ones, exercising the in-place root replacement: every
 * event not cancelled fires exactly once, in (time, schedule order). */
enum { CHURN = 20000 };
static double churn_t[CHURN];
static ss_event_id churn_id[CHURN];
static int churn_state[CHURN]; /* 0 unscheduled, 1 pending, 2 fired, 3 cancelled */
static size_t churn_n;
static double churn_last_t;
static uint64_t churn_last_arg;
static int churn_bad;

static void churn(ss_engine *e, void *ctx, uint64_t arg)
{
    if (churn_state[arg] != 1) churn_bad = 1;
    if (ss_now(e) < churn_last_t || (ss_now(e) == churn_last_t && arg < churn_last_arg)) churn_bad = 1;
    if (ss_now(e) != churn_t[arg]) churn_bad = 1;
    churn_state[arg] = 2;
    churn_last_t = ss_now(e);
    churn_last_arg = arg;
    int k = rand() % 4;
    for (int i = 0; i < k && churn_n < CHURN; i++) {
        size_t id = churn_n++;
        churn_t[id] = ss_now(e) + (rand() % 3 == 0 ? 0.0 : (double)(rand() % 50));
        churn_state[id] = 1;
        churn_id[id] = ss_schedule(e, churn_t[id], churn, NULL, id);
    }
    if (churn_n > 0 && rand() % 5 == 0) {
        size_t v = (size_t)rand() % churn_n;
        int was_pending = churn_state[v] == 1;
        CU_ASSERT_EQUAL(ss_cancel(e, churn_id[v]), was_pending);
        if (was_pending) churn_state[v] = 3;
    }
}

static void test_handlers_schedule_and_cancel(void)
{
    ss_engine *e = ss_engine_new();
    srand(11);
    churn_n = 0;
    churn_bad = 0;
    churn_last_t = -1;
    churn_last_arg = 0;
    for (int i = 0; i < 50; i++) {
        churn_t[churn_n] = (double)(rand() % 10);
        churn_state[churn_n] = 1;
        churn_id[churn_n] = ss_schedule(e, churn_t[churn_n], churn, NULL, churn_n);
        churn_n++;
    }
    ss_engine_run(e, INFINITY);
    CU_ASSERT_EQUAL(churn_bad, 0);
    CU_ASSERT(churn_n == CHURN); /* the churn really grew to full size */
    size_t fired = 0, cancelled = 0;
    for (size_t i = 0; i < churn_n; i++) {
        CU_ASSERT(churn_state[i] == 2 || churn_state[i] == 3);
        fired += churn_state[i] == 2;
        cancelled += churn_state[i] == 3;
    }
    CU_ASSERT_EQUAL(ss_engine_fired(e), fired);
    CU_ASSERT(cancelled > 100);
    CU_ASSERT_EQUAL(ss_engine_pending(e), 0);
    ss_engine_free(e);
}

SS_TEST_SUITE("engine", {"handlers schedule and cancel", test_handlers_schedule_and_cancel}, {"order and ties", test_order_and_ties}, {"cancel", test_cancel},
              {"random vs reference", test_random_against_reference},
              {"steady-state reuse", test_steady_state_reuse}, {"stop", test_stop})
