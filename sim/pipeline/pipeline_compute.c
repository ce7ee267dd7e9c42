/* pipeline_compute.c: the compute net of a block pipeline under
 * `compute: shared` (pipeline_compute.h): host CPUs and GPUs as links of
 * the max-min solver, work as capped flows, a GPU's kernels time-sliced at
 * capacity 1 (its busy time counted), and threads as FIFO
 * single servers of CPU work, a host's capacity following what runs on it
 * (CPU interference). */
#include "pipeline/pipeline_compute.h"


#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/flow.h"
#include "core/interp.h"
#include "core/ring.h"
#include "core/util.h"

#define NO_LINK UINT32_MAX
#define UNIT_BPS 8.0 /* one core or one GPU: a second of work (one byte) per second */

typedef struct pc_act {
    ss_pcomp *c;
    ss_pc_done done;
    void *ctx;
    uint64_t arg;
    uint32_t gpu;            /* the GPU link it counts on, or NO_LINK */
    uint32_t host;           /* the CPU link it counts on (work > 0), or NO_LINK */
    double copy_frac;        /* the part of its work that copies memory (0 to 1) */
    ss_flow_id id;
    ss_pc_place *place;      /* the thread it runs on, if the caller named one (stacking) */
    ss_rq_thread anon;       /* run queues: the thread of work no caller named */
    struct pc_act *next_free;
} pc_act;

struct ss_pcomp {
    ss_engine *eng;
    ss_flownet *net;
    uint32_t *host_link;     /* per host: its CPU link, or NO_LINK */
    uint32_t *dev_link;      /* per device: the link its compute runs on, or NO_LINK */
    uint32_t *dev_host;
    uint8_t *link_gpu;       /* per link: a GPU's */
    uint32_t *mem_link;      /* per CPU link: its host's memory link (after the nlinks CPU and GPU links) */
    uint32_t *gpu_nact;      /* per GPU link: kernels in progress */
    double *gpu_idle_since;  /* per GPU link: when its last kernel ended (0: the start) */
    double *gw_idle_s, *gw_factor; /* a GPU waking after idle (ss_pcomp_set_gpu_wake); ngw 0: off */
    size_t ngw;
    double mem_units;        /* memory bandwidth (ss_pcomp_set_memory): shared_bytes_per_s / copy_bytes_per_s; 0: off */
    /* Wake-up stacking (ss_pcomp_set_stacking): per CPU link, what runs there now */
    double stack_prob, stack_mean_s;
    gsl_rng *stack_rng;
    ss_pc_place ***placed;   /* per link: the threads with work in progress there */
    size_t *nplaced, *capplaced;
    size_t *nact, *npairs, nlinks; /* per link: CPU activities in progress, stacked pairs */
    double *link_cores;
    double *link_time;       /* per link: a CPU link's time factor (ss_pcomp_set_time_factor); 1 = as profiled */
    uint64_t stack_gens;
    double corun_factor, slice_factor; /* CPU interference (ss_pcomp_set_interference); 1, 1: none */
    ss_runq **runq;          /* per link: its run queues (pipeline_runq.h), or NULL: max-min */
    gsl_rng *runq_rng;
    pc_act *free_act;        /* pooled records */
    pc_act **all;
    size_t nall;
};

ss_pcomp *ss_pcomp_new(ss_engine *eng, size_t nhosts, const double *host_cores, size_t ndev,
                       const uint32_t *dev_host, const uint8_t *dev_gpu)
{
    ss_pcomp *c = ss_xcalloc(1, sizeof *c);
    c->eng = eng;
    c->host_link = ss_xcalloc(nhosts ? nhosts : 1, sizeof *c->host_link);
    c->dev_link = ss_xcalloc(ndev ? ndev : 1, sizeof *c->dev_link);
    c->dev_host = ss_xcalloc(ndev ? ndev : 1, sizeof *c->dev_host);
    double *cap = ss_xcalloc(2 * nhosts + ndev + 1, sizeof *cap);
    uint8_t *gpu = ss_xcalloc(2 * nhosts + ndev + 1, 1);
    size_t n = 0;
    for (size_t h = 0; h < nhosts; h++) {
        c->host_link[h] = NO_LINK;
        if (host_cores[h] > 0) {
            c->host_link[h] = (uint32_t)n;
            cap[n++] = host_cores[h] * UNIT_BPS;
        }
    }
    for (size_t d = 0; d < ndev; d++) {
        c->dev_host[d] = dev_host[d];
        if (dev_gpu[d]) {
            c->dev_link[d] = (uint32_t)n;
            gpu[n] = 1;
            cap[n++] = UNIT_BPS; /* one GPU: kernels of several processes time-slice it */
        } else {
            c->dev_link[d] = c->host_link[dev_host[d]];
        }
    }
    /* every CPU link's memory, unused (and so unbounded) until ss_pcomp_set_memory */
    c->mem_link = ss_xcalloc(n + 1, sizeof *c->mem_link);
    size_t nm = n;
    for (size_t l = 0; l < n; l++) {
        c->mem_link[l] = NO_LINK;
        if (gpu[l]) continue;
        c->mem_link[l] = (uint32_t)nm;
        cap[nm++] = cap[l];
    }
    c->net = ss_flownet_new(eng, nm, cap);
    c->link_cores = ss_xcalloc(n + 1, sizeof *c->link_cores);
    for (size_t l = 0; l < n; l++) c->link_cores[l] = gpu[l] ? 0 : cap[l] / UNIT_BPS;
    c->link_time = ss_xcalloc(n + 1, sizeof *c->link_time);
    for (size_t l = 0; l < n; l++) c->link_time[l] = 1;
    c->placed = ss_xcalloc(n + 1, sizeof *c->placed);
    c->nplaced = ss_xcalloc(n + 1, sizeof *c->nplaced);
    c->capplaced = ss_xcalloc(n + 1, sizeof *c->capplaced);
    c->nact = ss_xcalloc(n + 1, sizeof *c->nact);
    c->npairs = ss_xcalloc(n + 1, sizeof *c->npairs);
    c->nlinks = n;
    c->gpu_nact = ss_xcalloc(n + 1, sizeof *c->gpu_nact);
    c->gpu_idle_since = ss_xcalloc(n + 1, sizeof *c->gpu_idle_since);
    c->corun_factor = c->slice_factor = 1;
    c->link_gpu = gpu;
    free(cap);
    return c;
}

void ss_pcomp_free(ss_pcomp *c)
{
    if (!c) return;
    ss_flownet_free(c->net);
    for (size_t l = 0; l < c->nlinks; l++) free(c->placed[l]);
    free(c->placed);
    free(c->nplaced);
    free(c->capplaced);
    free(c->link_time);
    free(c->nact);
    free(c->npairs);
    free(c->link_cores);
    if (c->stack_rng) gsl_rng_free(c->stack_rng);
    for (size_t l = 0; c->runq && l < c->nlinks; l++) ss_runq_free(c->runq[l]);
    free(c->runq);
    if (c->runq_rng) gsl_rng_free(c->runq_rng);
    for (size_t i = 0; i < c->nall; i++) free(c->all[i]);
    free(c->all);
    free(c->host_link);
    free(c->dev_link);
    free(c->dev_host);
    free(c->link_gpu);
    free(c->mem_link);
    free(c->gpu_nact);
    free(c->gpu_idle_since);
    free(c->gw_idle_s);
    free(c->gw_factor);
    free(c);
}

double ss_pcomp_gpu_busy_s(const ss_pcomp *c, uint32_t dev)
{
    uint32_t l = c->dev_link[dev];
    if (l == NO_LINK || !c->link_gpu[l]) return -1;
    /* Capacity 1 and every kernel capped at 1: while any runs the GPU works at
     * full rate, so the work it has done is the time it was busy. */
    return ss_link_bytes(c->net, l); /* a second of work is carried as one byte */
}

/* ---- CPU interference ------------------------------------------------------
 * A piece of CPU work costs more CPU time when other work runs on the host at
 * the same time: co-running on the other cores (shared caches and memory
 * bandwidth), corun_factor; and more again time-sliced with other work on its
 * own core (each slice refills the caches), slice_factor on top.  With n
 * activities on c cores: n <= 1 runs alone; n <= c co-run, each at 1 /
 * corun_factor of a core; n > c puts s = min(c, n - c) cores' worth of them
 * two to a core, whose work runs at 1 / slice_factor more [ASSUMPTION: the
 * scheduler spreads the work evenly, at most two to a core counted as
 * time-sliced; every activity - block compute or a hop's CPU work - interferes
 * alike].  The host's capacity is then (c - s + s / slice_factor) /
 * corun_factor cores, shared max-min as before; a stacked pair runs at
 * 1 / (2 slice_factor corun_factor) each.  Measured by
 * tools/probe/corun.py (docs/calibration.md, "CPU interference"). */

static void cpu_capacity(ss_pcomp *c, uint32_t l)
{
    if (c->corun_factor == 1 && c->slice_factor == 1) return;
    double n = (double)c->nact[l], cores = c->link_cores[l], cap = cores;
    if (n > 1 && n <= cores) {
        cap = n / c->corun_factor;
    } else if (n > cores && n > 1) {
        double sl = n - cores < cores ? n - cores : cores;
        cap = (cores - sl + sl / c->slice_factor) / c->corun_factor;
    }
    ss_flownet_set_capacity(c->net, l, cap * UNIT_BPS);
}

void ss_pcomp_set_interference(ss_pcomp *c, double corun_factor, double slice_factor)
{
    assert(corun_factor >= 1 && slice_factor >= 1);
    c->corun_factor = corun_factor;
    c->slice_factor = slice_factor;
}

/* ---- wake-up stacking ----------------------------------------------------------
 * A thread that wakes while a core of its host is free does not always get
 * that core: with probability stack_prob the OS queues it on a core already
 * running another thread (Linux wakes a thread on or near its waker's core
 * and balances the load later), and the two share that core - half a core
 * each, the free core idle - until the scheduler migrates one of them, after
 * an exponential time of mean stack_mean_s, or one of them goes idle.  The
 * stacking is the threads', not one piece of work's: it lasts across a
 * thread's consecutive pieces (receive, compute, send).  Only a thread
 * alone on its core is stacked on.  Measured by tools/probe/stacking.py
 * (docs/calibration.md, "Wake-up stacking"). */

static void place_add(ss_pcomp *c, ss_pc_place *pl, uint32_t l)
{
    if (c->nplaced[l] == c->capplaced[l]) {
        c->capplaced[l] = c->capplaced[l] ? 2 * c->capplaced[l] : 8;
        c->placed[l] = ss_xrealloc(c->placed[l], c->capplaced[l] * sizeof *c->placed[l]);
    }
    pl->link = l;
    pl->slot = c->nplaced[l];
    pl->listed = 1;
    c->placed[l][c->nplaced[l]++] = pl;
}

static void place_del(ss_pcomp *c, ss_pc_place *pl)
{
    uint32_t l = pl->link;
    ss_pc_place *last = c->placed[l][--c->nplaced[l]];
    c->placed[l][pl->slot] = last;
    last->slot = pl->slot;
    pl->listed = 0;
}

static void set_cap(ss_pcomp *c, ss_pc_place *pl, double cap_bps)
{
    if (pl && pl->cur) ss_flow_set_cap(c->net, ((pc_act *)pl->cur)->id, cap_bps);
}

/* The caps of a thread and its partner: half a core each while both work,
 * time-sliced (slice_factor) and beside the other cores' work (corun_factor). */
static void pair_caps(ss_pcomp *c, ss_pc_place *pl)
{
    ss_pc_place *o = pl->partner;
    double cap = o && pl->cur && o->cur ? UNIT_BPS / (2 * c->slice_factor * c->corun_factor) : UNIT_BPS;
    set_cap(c, pl, cap);
    set_cap(c, o, cap);
}

static void unstack(ss_pcomp *c, ss_pc_place *pl)
{
    ss_pc_place *o = pl->partner;
    pl->partner = o->partner = NULL;
    c->npairs[pl->link]--;
    set_cap(c, pl, UNIT_BPS);
    set_cap(c, o, UNIT_BPS);
}

static void migrate(ss_engine *eng, void *ctx, uint64_t gen)
{
    (void)eng;
    ss_pc_place *pl = ctx;
    if (pl->partner && pl->gen == gen) unstack(pl->c, pl);
}

/* Can pl be stacked on o's core: another thread, computing there alone? */
static int stackable_on(const ss_pc_place *o, const ss_pc_place *pl)
{
    return o != pl && !o->partner && o->cur;
}

/* pl has just woken on link l with a piece of work: stacked on a busy core? */
static void maybe_stack(ss_pcomp *c, ss_pc_place *pl)
{
    uint32_t l = pl->link;
    size_t others = c->nact[l] - 1, busy_cores = others > c->npairs[l] ? others - c->npairs[l] : 0;
    if (!(c->stack_prob > 0) || others == 0 || (double)busy_cores >= c->link_cores[l]) return;
    if (!(gsl_rng_uniform(c->stack_rng) < c->stack_prob)) return;
    size_t alone = 0;
    for (size_t i = 0; i < c->nplaced[l]; i++) alone += stackable_on(c->placed[l][i], pl);
    if (alone == 0) return; /* the busy ones are I/O and receiver threads' work: none to stack on */
    size_t k = (size_t)gsl_rng_uniform_int(c->stack_rng, (unsigned long)alone);
    ss_pc_place *o = NULL;
    for (size_t i = 0; i < c->nplaced[l] && !o; i++)
        if (stackable_on(c->placed[l][i], pl) && k-- == 0) o = c->placed[l][i];
    pl->partner = o;
    o->partner = pl;
    pl->gen = o->gen = ++c->stack_gens;
    c->npairs[l]++;
    pair_caps(c, pl);
    ss_schedule(c->eng, ss_now(c->eng) + gsl_ran_exponential(c->stack_rng, c->stack_mean_s), migrate, pl, pl->gen);
}

void ss_pc_place_init(ss_pc_place *pl, ss_pcomp *c)
{
    *pl = (ss_pc_place){.c = c};
    ss_rq_thread_init(&pl->rq);
    pl->rq.stackable = 1; /* a main thread: the run queues' wake-affine placement applies to it */
}

void ss_pcomp_set_stacking(ss_pcomp *c, double prob, double mean_s, gsl_rng *rng)
{
    assert(prob >= 0 && prob <= 1 && mean_s > 0);
    if (c->stack_rng) gsl_rng_free(c->stack_rng);
    c->stack_prob = prob;
    c->stack_mean_s = mean_s;
    c->stack_rng = rng;
}

static void act_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    (void)now_s;
    pc_act *a = ctx;
    ss_pcomp *c = a->c;
    if (a->gpu != NO_LINK && --c->gpu_nact[a->gpu] == 0) c->gpu_idle_since[a->gpu] = ss_now(c->eng);
    if (a->host != NO_LINK) {
        c->nact[a->host]--;
        cpu_capacity(c, a->host);
    }
    ss_pc_place *pl = a->place;
    if (pl) {
        pl->cur = NULL;
        if (pl->partner) set_cap(c, pl->partner, UNIT_BPS); /* alone while this one is between pieces */
    }
    ss_pc_done done = a->done;
    void *dctx = a->ctx;
    uint64_t arg = a->arg;
    a->next_free = c->free_act;
    c->free_act = a;
    done(dctx, arg);
    if (pl && !pl->cur && pl->listed) { /* no next piece at once: the thread sleeps, its core is free */
        if (pl->partner) unstack(c, pl);
        place_del(c, pl);
    }
}

static pc_act *new_act(ss_pcomp *c)
{
    pc_act *a = c->free_act;
    if (a) {
        c->free_act = a->next_free;
    } else {
        a = ss_xcalloc(1, sizeof *a);
        c->all = ss_xrealloc(c->all, (c->nall + 1) * sizeof *c->all);
        c->all[c->nall++] = a;
    }
    return a;
}

static void recycle(void *ctx)
{
    pc_act *a = ctx;
    a->next_free = a->c->free_act;
    a->c->free_act = a;
}

/* A piece on run queues has ended: the caller hears of it.  A named
 * thread's record goes now; an unnamed one's when its thread sleeps
 * (recycle), since the run queue still holds the thread inside it. */
static void rq_done(void *ctx)
{
    pc_act *a = ctx;
    ss_pc_done done = a->done;
    void *dctx = a->ctx;
    uint64_t arg = a->arg;
    if (!a->anon.slept) recycle(a);
    done(dctx, arg);
}

/* Does work of work_s on link go to the link's run queues?  (Zero work
 * ends at once on the solver, taking no core.) */
static int on_runq(const ss_pcomp *c, uint32_t link, double work_s)
{
    return link != NO_LINK && c->runq && c->runq[link] && work_s > 0;
}

/* Work on a host with run queues, on thread rt (NULL: a thread of its own). */
static void start_rq(ss_pcomp *c, uint32_t link, double work_s, double copy_frac, ss_pc_done done, void *ctx,
                     uint64_t arg, ss_rq_thread *rt)
{
    pc_act *a = new_act(c);
    *a = (pc_act){.c = c, .done = done, .ctx = ctx, .arg = arg, .gpu = NO_LINK, .host = link};
    if (!rt) {
        ss_rq_thread_init(&a->anon);
        a->anon.slept = recycle;
        rt = &a->anon;
    }
    rt->copy_frac = copy_frac;
    ss_runq_run(c->runq[link], rt, work_s * c->link_time[link], rq_done, a);
}

/* A GPU waking after idle_s without a kernel: its next kernel's time is this
 * many times its time at full clocks (ss_pcomp_set_gpu_wake): 1 below the
 * table's first idle time, linear between its points, its last beyond. */
static double gpu_wake_factor(const ss_pcomp *c, double idle_s)
{
    return ss_interp_table(c->gw_idle_s, c->gw_factor, c->ngw, idle_s, 1);
}

void ss_pcomp_set_gpu_wake(ss_pcomp *c, size_t n, const double *idle_s, const double *factor)
{
    assert(n >= 2);
    for (size_t k = 0; k < n; k++) assert(idle_s[k] >= 0 && factor[k] > 0 && (k == 0 || idle_s[k] > idle_s[k - 1]));
    c->gw_idle_s = ss_xrealloc(c->gw_idle_s, n * sizeof *c->gw_idle_s);
    c->gw_factor = ss_xrealloc(c->gw_factor, n * sizeof *c->gw_factor);
    memcpy(c->gw_idle_s, idle_s, n * sizeof *idle_s);
    memcpy(c->gw_factor, factor, n * sizeof *factor);
    c->ngw = n;
}

static void start(ss_pcomp *c, uint32_t link, double work_s, double copy_s, ss_pc_done done, void *ctx,
                  uint64_t arg, ss_pc_place *pl, int wake)
{
    assert(work_s >= 0 && isfinite(work_s) && copy_s >= 0 && copy_s <= work_s * (1 + 1e-12));
    double frac = work_s > 0 && copy_s > 0 && link != NO_LINK && !c->link_gpu[link] ? fmin(copy_s / work_s, 1) : 0;
    if (on_runq(c, link, work_s)) {
        start_rq(c, link, work_s, frac, done, ctx, arg, pl ? &pl->rq : NULL);
        return;
    }
    pc_act *a = new_act(c);
    a->c = c;
    a->done = done;
    a->ctx = ctx;
    a->arg = arg;
    a->gpu = link != NO_LINK && c->link_gpu[link] && work_s > 0 ? link : NO_LINK;
    if (a->gpu != NO_LINK) {
        if (c->ngw && c->gpu_nact[link] == 0) work_s *= gpu_wake_factor(c, ss_now(c->eng) - c->gpu_idle_since[link]);
        c->gpu_nact[link]++;
    }
    a->host = link != NO_LINK && !c->link_gpu[link] && work_s > 0 ? link : NO_LINK;
    a->place = a->host != NO_LINK ? pl : NULL;
    if (a->host != NO_LINK) work_s *= c->link_time[link];
    a->copy_frac = frac;
    /* One core or one GPU at most; with no link (undeclared cores) exactly that.  A
     * piece that copies also loads its host's memory with its copying part per unit
     * of rate (off: the memory link is left out). */
    ss_flow_opts o = {.cap_bps = UNIT_BPS};
    if (frac > 0 && c->mem_units > 0 && a->host != NO_LINK) {
        uint32_t route[2] = {link, c->mem_link[link]};
        double weight[2] = {1, frac};
        a->id = ss_flow_start_weighted(c->net, route, weight, 2, work_s, &o, act_done, a);
    } else {
        a->id = ss_flow_start(c->net, &link, link == NO_LINK ? 0 : 1, work_s, &o, act_done, a);
    }
    if (a->host == NO_LINK) return; /* a GPU's, or zero work (it ends at once and takes no core) */
    c->nact[link]++;
    cpu_capacity(c, link);
    if (!a->place) return;
    assert(!pl->cur && (!pl->listed || pl->link == link)); /* one piece at a time, on its own host */
    pl->cur = a;
    if (!pl->listed) place_add(c, pl, link);
    if (pl->partner) pair_caps(c, pl); /* still stacked from before its last piece */
    else if (wake) maybe_stack(c, pl);
}

void ss_pcomp_set_run_queues(ss_pcomp *c, const ss_runq_params *p, gsl_rng *rng)
{
    c->runq = ss_xcalloc(c->nlinks + 1, sizeof *c->runq);
    c->runq_rng = rng;
    for (size_t l = 0; l < c->nlinks; l++) {
        if (c->link_gpu[l]) continue;
        c->runq[l] = ss_runq_new(c->eng, c->link_cores[l], p, rng);
        ss_runq_set_interference(c->runq[l], c->corun_factor, c->slice_factor);
        ss_runq_set_memory(c->runq[l], c->mem_units);
    }
}

int ss_pcomp_host_usage(const ss_pcomp *c, uint32_t host, double *busy_core_s, double *waiting_thread_s)
{
    uint32_t l = c->host_link[host];
    if (l == NO_LINK || !c->runq || !c->runq[l]) return -1;
    ss_runq_usage(c->runq[l], busy_core_s, waiting_thread_s);
    return 0;
}

void ss_pcomp_set_time_factor(ss_pcomp *c, uint32_t host, double factor)
{
    assert(factor > 0 && isfinite(factor));
    if (c->host_link[host] != NO_LINK) c->link_time[c->host_link[host]] = factor;
}

void ss_pcomp_cpu(ss_pcomp *c, uint32_t host, double work_s, ss_pc_done done, void *ctx, uint64_t arg)
{
    start(c, c->host_link[host], work_s, 0, done, ctx, arg, NULL, 0);
}

void ss_pcomp_copy(ss_pcomp *c, uint32_t host, double work_s, double copy_s, ss_pc_done done, void *ctx,
                   uint64_t arg)
{
    start(c, c->host_link[host], work_s, copy_s, done, ctx, arg, NULL, 0);
}

void ss_pcomp_dev(ss_pcomp *c, uint32_t dev, double work_s, ss_pc_done done, void *ctx, uint64_t arg)
{
    start(c, c->dev_link[dev], work_s, 0, done, ctx, arg, NULL, 0);
}

void ss_pcomp_cpu_on(ss_pcomp *c, ss_pc_place *pl, int wake, uint32_t host, double work_s, ss_pc_done done,
                     void *ctx, uint64_t arg)
{
    start(c, c->host_link[host], work_s, 0, done, ctx, arg, pl, wake);
}

void ss_pcomp_copy_on(ss_pcomp *c, ss_pc_place *pl, int wake, uint32_t host, double work_s, double copy_s,
                      ss_pc_done done, void *ctx, uint64_t arg)
{
    start(c, c->host_link[host], work_s, copy_s, done, ctx, arg, pl, wake);
}

void ss_pcomp_dev_on(ss_pcomp *c, ss_pc_place *pl, int wake, uint32_t dev, double work_s, ss_pc_done done,
                     void *ctx, uint64_t arg)
{
    start(c, c->dev_link[dev], work_s, 0, done, ctx, arg, pl, wake);
}

void ss_pcomp_set_memory(ss_pcomp *c, double copy_bytes_per_s, double shared_bytes_per_s)
{
    assert(copy_bytes_per_s > 0 && shared_bytes_per_s > 0 && isfinite(copy_bytes_per_s) && isfinite(shared_bytes_per_s));
    c->mem_units = shared_bytes_per_s / copy_bytes_per_s;
    for (size_t l = 0; l < c->nlinks; l++) {
        if (c->mem_link[l] != NO_LINK) ss_flownet_set_capacity(c->net, c->mem_link[l], c->mem_units * UNIT_BPS);
        if (c->runq && c->runq[l]) ss_runq_set_memory(c->runq[l], c->mem_units);
    }
}

/* ---- threads ------------------------------------------------------------------ */

static void thread_next(ss_pc_thread *t);

static void thread_done(void *ctx, uint64_t arg)
{
    (void)arg;
    ss_pc_thread *t = ctx;
    uint64_t done_arg = t->cur_arg;
    t->busy = 0;
    thread_next(t); /* the next item starts now, then the caller hears of this one */
    t->done(t->ctx, done_arg);
}

static void thread_next(ss_pc_thread *t)
{
    if (t->busy || t->len == 0) return;
    ss_pc_item it = t->ring[t->head];
    t->head = (t->head + 1) % t->cap;
    t->len--;
    t->busy = 1;
    t->cur_arg = it.arg;
    uint32_t l = t->c->host_link[t->host];
    if (on_runq(t->c, l, it.work_s))
        start_rq(t->c, l, it.work_s, it.work_s > 0 ? fmin(it.copy_s / it.work_s, 1) : 0, thread_done, t, 0, &t->rq);
    else
        ss_pcomp_copy(t->c, t->host, it.work_s, it.copy_s, thread_done, t, 0);
}

void ss_pc_thread_init(ss_pc_thread *t, ss_pcomp *c, uint32_t host, ss_pc_done done, void *ctx)
{
    *t = (ss_pc_thread){.c = c, .host = host, .done = done, .ctx = ctx};
    ss_rq_thread_init(&t->rq);
}

void ss_pc_thread_push(ss_pc_thread *t, double work_s, uint64_t arg)
{
    ss_pc_thread_push_copy(t, work_s, 0, arg);
}

void ss_pc_thread_push_copy(ss_pc_thread *t, double work_s, double copy_s, uint64_t arg)
{
    assert(copy_s >= 0 && copy_s <= work_s * (1 + 1e-12));
    ss_ring_grow((void **)&t->ring, sizeof *t->ring, &t->head, t->len, &t->cap, 8);
    t->ring[(t->head + t->len++) % t->cap] = (ss_pc_item){work_s, copy_s, arg};
    thread_next(t);
}

void ss_pc_thread_free(ss_pc_thread *t)
{
    free(t->ring);
    t->ring = NULL;
}
