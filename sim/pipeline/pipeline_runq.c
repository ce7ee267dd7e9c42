/* pipeline_runq.c: per-core run queues (pipeline_runq.h).
 *
 * Each core has the thread it runs (cur), a FIFO of threads waiting, and
 * two event generations: its running thread's end, and its next tick.  Any
 * change to any core settles every running thread's progress and re-times
 * its end, since a thread's speed follows the other cores (co-running) and
 * its own queue (time-slicing); two to a few cores make that cheap. */
#include "pipeline/pipeline_runq.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "core/util.h"

typedef struct rq_core {
    ss_runq *q;
    int id;
    ss_rq_thread *cur, *head, *tail;
    size_t nwait;
    double picked_s;   /* when cur was picked */
    double since_s;    /* cur's progress is settled up to here */
    double rate;       /* cur's seconds of work per second */
    double end_s;      /* when cur's piece ends at that rate */
    ss_event_id end_ev; /* that end's event (cancelled when re-timed) */
    uint64_t end_gen, tick_gen;
    int tick_armed;
    double tick_phase_s;
    double util;       /* its busy fraction's running average (PELT's util_avg), up to since_s */
    int mem_held;      /* share_memory's: its thread's rate is held back by the memory */
} rq_core;

struct ss_runq {
    ss_engine *eng;
    ss_runq_params p;
    gsl_rng *rng;
    rq_core *cores;
    int n;
    double speed;      /* a core's speed: cores / ceil(cores) */
    double corun_factor, slice_factor;
    double mem_units;  /* memory bandwidth in copies at full speed (ss_runq_set_memory); 0: none */
    ss_runq_stats st;
    double waiting_since_s; /* some core idle while a thread waits: since when, or NAN */
    double usage_since_s;   /* busy and waiting as counted in st up to here */
    int usage_busy;         /* cores running a thread since then */
    size_t usage_waiting;   /* threads waiting on a core since then */
};

void ss_rq_thread_init(ss_rq_thread *t)
{
    *t = (ss_rq_thread){.core = -1, .prev = -1, .last_ran_s = -INFINITY};
}

ss_runq *ss_runq_new(ss_engine *eng, double cores, const ss_runq_params *p, gsl_rng *rng)
{
    assert(cores > 0 && p->slice_s > 0 && p->tick_s > 0 && p->migration_cost_s >= 0 && p->balance_ticks >= 1 &&
           p->stack_prob >= 0 && p->stack_prob <= 1 && p->idle_scan_pct >= 0 &&
           p->util_halflife_s >= 0 && (p->idle_scan_pct == 0 || p->util_halflife_s > 0));
    ss_runq *q = ss_xcalloc(1, sizeof *q);
    q->eng = eng;
    q->p = *p;
    q->rng = rng;
    q->n = (int)ceil(cores - 1e-9);
    q->speed = cores / q->n;
    q->cores = ss_xcalloc((size_t)q->n, sizeof *q->cores);
    /* the cores tick together (Linux aligns every CPU's tick unless booted with skew_tick=1) */
    double phase_s = p->tick_phase_s >= 0 ? p->tick_phase_s : gsl_rng_uniform(rng) * p->tick_s;
    for (int k = 0; k < q->n; k++) q->cores[k] = (rq_core){.q = q, .id = k, .tick_phase_s = phase_s};
    q->corun_factor = q->slice_factor = 1;
    q->waiting_since_s = NAN;
    return q;
}

void ss_runq_free(ss_runq *q)
{
    if (!q) return;
    free(q->cores);
    free(q);
}

void ss_runq_set_interference(ss_runq *q, double corun_factor, double slice_factor)
{
    assert(corun_factor >= 1 && slice_factor >= 1);
    q->corun_factor = corun_factor;
    q->slice_factor = slice_factor;
}

void ss_runq_set_memory(ss_runq *q, double units)
{
    assert(units >= 0 && isfinite(units));
    q->mem_units = units;
}

ss_runq_stats ss_runq_stats_of(const ss_runq *q)
{
    return q->st;
}

void ss_runq_usage(const ss_runq *q, double *busy_core_s, double *waiting_thread_s)
{
    double dt = ss_now(q->eng) - q->usage_since_s;
    *busy_core_s = q->st.busy_core_s + q->usage_busy * dt;
    *waiting_thread_s = q->st.waiting_thread_s + (double)q->usage_waiting * dt;
}

/* ---- progress ----------------------------------------------------------- */

static void core_end(ss_engine *eng, void *ctx, uint64_t gen);

static int busy_cores(const ss_runq *q)
{
    int b = 0;
    for (int k = 0; k < q->n; k++) b += q->cores[k].cur != NULL;
    return b;
}

/* Settle every running thread's progress, and every core's utilisation, up to now. */
static void settle(ss_runq *q)
{
    double now = ss_now(q->eng);
    /* every core is settled together (since_s alike), so one decay serves them all */
    double keep = q->p.util_halflife_s > 0 && now > q->cores[0].since_s
                      ? exp2(-(now - q->cores[0].since_s) / q->p.util_halflife_s)
                      : 1;
    for (int k = 0; k < q->n; k++) {
        rq_core *c = &q->cores[k];
        if (c->cur) {
            c->cur->work_left -= c->rate * (now - c->since_s);
            if (c->cur->work_left < 0) c->cur->work_left = 0;
        }
        if (keep < 1) c->util = c->util * keep + (c->cur ? 1 - keep : 0);
        c->since_s = now;
    }
}

/* The running threads' copying parts sharing the memory (ss_runq_set_memory):
 * rates above the level L that fills it come down to L.  Water-filling: the
 * threads whose rate is at most the level keep it and leave the rest to the
 * others, until none does (at most one pass per core). */
static void share_memory(ss_runq *q)
{
    double demand = 0, left = q->mem_units, frac = 0; /* frac: the copy fractions still above the level */
    for (int k = 0; k < q->n; k++) {
        rq_core *c = &q->cores[k];
        c->mem_held = c->cur && c->cur->copy_frac > 0;
        if (c->mem_held) demand += c->cur->copy_frac * c->rate, frac += c->cur->copy_frac;
    }
    if (!(demand > left)) return;
    for (int moved = 1; moved && frac > 0;) {
        double level = left / frac;
        moved = 0;
        for (int k = 0; k < q->n; k++) {
            rq_core *c = &q->cores[k];
            if (!c->mem_held || c->rate > level) continue;
            c->mem_held = 0, moved = 1;
            left -= c->cur->copy_frac * c->rate, frac -= c->cur->copy_frac;
        }
    }
    for (int k = 0; k < q->n; k++)
        if (q->cores[k].mem_held && frac > 0) q->cores[k].rate = left / frac;
}

/* Re-time every running thread's end at its speed now, and keep the counts of
 * busy cores, waiting threads and time an idle core spent beside a waiting
 * thread. */
static void retime(ss_runq *q)
{
    double now = ss_now(q->eng);
    int busy = busy_cores(q), idle = q->n - busy;
    size_t waiting = 0;
    for (int k = 0; k < q->n; k++) {
        rq_core *c = &q->cores[k];
        waiting += c->nwait;
        c->end_gen++;
        ss_cancel(q->eng, c->end_ev);
        c->end_ev = 0;
        if (!c->cur) continue;
        c->rate = q->speed / (busy > 1 ? q->corun_factor : 1) / (c->nwait ? q->slice_factor : 1);
    }
    if (q->mem_units > 0) share_memory(q);
    for (int k = 0; k < q->n; k++) {
        rq_core *c = &q->cores[k];
        if (!c->cur) continue;
        c->end_s = now + c->cur->work_left / c->rate;
        c->end_ev = ss_schedule(q->eng, c->end_s, core_end, c, c->end_gen);
    }
    double dt = now - q->usage_since_s;
    q->st.busy_core_s += q->usage_busy * dt;
    q->st.waiting_thread_s += (double)q->usage_waiting * dt;
    q->usage_since_s = now;
    q->usage_busy = busy;
    q->usage_waiting = waiting;
    int lost = idle > 0 && waiting > 0;
    if (lost && isnan(q->waiting_since_s)) q->waiting_since_s = now;
    if (!lost && !isnan(q->waiting_since_s)) {
        q->st.idle_while_waiting_s += now - q->waiting_since_s;
        q->waiting_since_s = NAN;
    }
}

/* ---- queues --------------------------------------------------------------- */

static void push_back(rq_core *c, ss_rq_thread *t);
static void unlink_waiter(rq_core *c, ss_rq_thread *t, ss_rq_thread *before);
static void run_on(rq_core *c, ss_rq_thread *t);

/* c's running thread is ending its piece now: inside its end (in_done), or
 * its end is due at this instant (an event at the same time came first).
 * It is not preempted nor rotated: it sleeps or goes on as its caller says. */
static int ending(const rq_core *c, double now)
{
    return c->cur && (c->cur->in_done || c->end_s <= now);
}

/* Past its protected slice, the running thread of c gives the core to the
 * first waiting one (a wake-up's preemption, or the tick's rotation). */
static void yield_core(rq_core *c, double now)
{
    ss_rq_thread *t = c->cur, *h = c->head;
    t->last_ran_s = now;
    unlink_waiter(c, h, NULL);
    push_back(c, t);
    run_on(c, h);
}

static void push_back(rq_core *c, ss_rq_thread *t)
{
    t->next = NULL;
    t->core = c->id;
    t->running = 0;
    if (c->tail) c->tail->next = t;
    else c->head = t;
    c->tail = t;
    c->nwait++;
}

static void unlink_waiter(rq_core *c, ss_rq_thread *t, ss_rq_thread *before)
{
    if (before) before->next = t->next;
    else c->head = t->next;
    if (c->tail == t) c->tail = before;
    t->next = NULL;
    c->nwait--;
}

static void core_tick(ss_engine *eng, void *ctx, uint64_t gen);

/* Arm c's next tick while threads wait on it. */
static void arm_tick(rq_core *c)
{
    ss_runq *q = c->q;
    if (c->tick_armed || !c->nwait) return;
    double now = ss_now(q->eng), k = floor((now - c->tick_phase_s) / q->p.tick_s) + 1;
    double at = c->tick_phase_s + k * q->p.tick_s;
    if (at <= now) at += q->p.tick_s;
    c->tick_armed = 1;
    ss_schedule(q->eng, at, core_tick, c, ++c->tick_gen);
}

static void run_on(rq_core *c, ss_rq_thread *t)
{
    c->cur = t;
    t->core = c->id;
    t->running = 1;
    c->picked_s = ss_now(c->q->eng);
    c->since_s = c->picked_s;
}

/* Move the first waiting thread of core o that is not cache hot (it has not
 * run within the migration cost) to idle core c and run it there; 1 if one
 * was, the hot ones passed over counted. */
static int pull_from(rq_core *c, rq_core *o)
{
    ss_runq *q = c->q;
    double now = ss_now(q->eng);
    ss_rq_thread *before = NULL;
    for (ss_rq_thread *t = o->head; t; before = t, t = t->next) {
        if (now - t->last_ran_s < q->p.migration_cost_s) {
            q->st.hot_refusals++;
            continue;
        }
        unlink_waiter(o, t, before);
        run_on(c, t);
        return 1;
    }
    return 0;
}

/* Idle core c pulls from the other cores, in order; 1 if it got a thread. */
static int pull(rq_core *c)
{
    for (int j = 0; j < c->q->n; j++)
        if (pull_from(c, &c->q->cores[j])) return 1;
    return 0;
}

/* Core c has just lost its running thread: the next waiting one runs, or an
 * idle core pulls one from elsewhere. */
static void next_on(rq_core *c)
{
    c->cur = NULL;
    if (c->head) {
        ss_rq_thread *t = c->head;
        unlink_waiter(c, t, NULL);
        run_on(c, t);
    } else if (pull(c)) {
        c->q->st.pulls_newidle++;
    }
}

static void core_end(ss_engine *eng, void *ctx, uint64_t gen)
{
    rq_core *c = ctx;
    ss_runq *q = c->q;
    if (gen != c->end_gen || !c->cur) return;
    settle(q);
    ss_rq_thread *t = c->cur;
    t->work_left = 0;
    t->has_work = 0;
    t->in_done = 1;
    t->done(t->ctx);
    t->in_done = 0;
    if (t->has_work) { /* straight on with its next piece, unless one it woke here may preempt it */
        if (c->head && ss_now(eng) - c->picked_s >= q->p.slice_s) {
            yield_core(c, ss_now(eng));
            q->st.preemptions++;
            arm_tick(c);
        }
        retime(q);
        return;
    }
    t->running = 0;
    t->core = -1;
    t->prev = c->id;
    t->last_ran_s = ss_now(eng);
    if (t->slept) t->slept(t->ctx);
    next_on(c);
    for (int k = 0; k < q->n; k++) arm_tick(&q->cores[k]);
    retime(q);
}

static void core_tick(ss_engine *eng, void *ctx, uint64_t gen)
{
    rq_core *c = ctx;
    ss_runq *q = c->q;
    if (gen != c->tick_gen) return;
    c->tick_armed = 0;
    settle(q);
    double now = ss_now(eng);
    long tick_no = lround((now - c->tick_phase_s) / q->p.tick_s);
    int balance = tick_no % (long)q->p.balance_ticks == 0;
    for (int k = 0; k < q->n && c->head && balance; k++) { /* idle balance: idle cores pull from c */
        rq_core *o = &q->cores[k];
        if (o->cur) continue;
        if (!pull_from(o, c)) break;
        q->st.pulls_tick++;
    }
    if (c->head && c->cur && !ending(c, now) && now - c->picked_s >= q->p.slice_s) { /* the slice is over */
        yield_core(c, now);
        q->st.rotations++;
    }
    arm_tick(c);
    retime(q);
}

/* ---- waking ------------------------------------------------------------------ */

/* SIS_UTIL: whether a waking thread may look for an idle core now: the
 * cores the scan may visit, n (1 - (u pct / 100)^2) with u the cores' mean
 * utilisation, whole (update_idle_cpu_scan), at least one. */
static int may_scan(ss_runq *q)
{
    if (q->p.idle_scan_pct <= 0) return 1;
    double u = 0;
    for (int k = 0; k < q->n; k++) u += q->cores[k].util;
    double x = u / q->n * q->p.idle_scan_pct / 100;
    int scan = (int)floor(q->n * (1 - fmin(1, x * x)));
    if (scan < 1) q->st.scans_skipped++;
    return scan >= 1;
}

/* Where a waking thread goes (select_idle_sibling): its previous core if
 * idle, else an idle core (where the utilisation lets it look), else its
 * previous core; one that never ran, the core with the shortest queue.  A
 * stackable one, with stack_prob, while a core is free (idle, or its thread ending its piece now): a core where
 * another thread computes, drawn among them. */
static rq_core *choose(ss_runq *q, const ss_rq_thread *t)
{
    rq_core *prev = t->prev >= 0 ? &q->cores[t->prev] : NULL;
    if (q->p.stack_prob > 0 && t->stackable) { /* wake-affine: beside a computing thread, a core being free */
        double now = ss_now(q->eng);
        int free_cores = 0, computing = 0;
        for (int k = 0; k < q->n; k++) {
            int comp = q->cores[k].cur && !ending(&q->cores[k], now);
            computing += comp;
            free_cores += !comp;
        }
        if (free_cores && computing && gsl_rng_uniform(q->rng) < q->p.stack_prob) {
            int pick = (int)gsl_rng_uniform_int(q->rng, (unsigned long)computing);
            for (int k = 0; k < q->n; k++)
                if (q->cores[k].cur && !ending(&q->cores[k], now) && pick-- == 0) {
                    q->st.stacked++;
                    return &q->cores[k];
                }
        }
    }
    if (prev && !prev->cur) return prev;
    if (!prev || may_scan(q))
        for (int k = 0; k < q->n; k++)
            if (!q->cores[k].cur) return &q->cores[k];
    if (prev) return prev;
    rq_core *best = &q->cores[0];
    for (int k = 1; k < q->n; k++)
        if (q->cores[k].nwait < best->nwait) best = &q->cores[k];
    return best;
}

void ss_runq_run(ss_runq *q, ss_rq_thread *t, double work_s, void (*done)(void *ctx), void *ctx)
{
    assert(work_s >= 0 && isfinite(work_s));
    t->done = done;
    t->ctx = ctx;
    t->work_left = work_s;
    if (t->in_done) { /* its core's end event re-times it */
        assert(!t->has_work); /* one piece at a time */
        t->has_work = 1;
        return;
    }
    t->has_work = 1;
    assert(t->core < 0);    /* one piece at a time */
    settle(q);
    q->st.wakes++;
    rq_core *c = choose(q, t);
    double now = ss_now(q->eng);
    if (!c->cur) {
        run_on(c, t);
    } else if (!ending(c, now) && now - c->picked_s >= q->p.slice_s) { /* past its protected slice: preempted */
        ss_rq_thread *o = c->cur;
        o->last_ran_s = now;
        push_back(c, o);
        run_on(c, t);
        q->st.preemptions++;
    } else {
        push_back(c, t);
    }
    arm_tick(c);
    retime(q);
}
