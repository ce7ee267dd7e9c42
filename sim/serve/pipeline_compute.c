/* pipeline_compute.c: the compute net of a block pipeline under
 * `compute: shared` (pipeline_compute.h): host CPUs and GPUs as links of
 * the max-min solver, work as capped flows, the GPU's capacity following
 * the number of processes on it (the contention knob), and threads as FIFO
 * single servers of CPU work. */
#include "serve/pipeline_compute.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "core/flow.h"
#include "core/util.h"

#define NO_LINK UINT32_MAX
#define UNIT_BPS 8.0 /* one core or one GPU: a second of work (one byte) per second */

typedef struct pc_act {
    ss_pcomp *c;
    ss_pc_done done;
    void *ctx;
    uint64_t arg;
    uint32_t gpu;            /* the GPU link it counts on, or NO_LINK */
    struct pc_act *next_free;
} pc_act;

struct ss_pcomp {
    ss_engine *eng;
    ss_flownet *net;
    uint32_t *host_link;     /* per host: its CPU link, or NO_LINK */
    uint32_t *dev_link;      /* per device: the link its compute runs on, or NO_LINK */
    uint32_t *dev_host;
    uint8_t *link_gpu;       /* per link: a GPU's */
    uint32_t *gpu_active;    /* per link: activities on it now (GPU links) */
    double contention;
    pc_act *free_act;        /* pooled records */
    pc_act **all;
    size_t nall;
};

/* A GPU's capacity with k activities on it: each runs at 1 / (1 + (c-1)(k-1)). */
static double gpu_capacity_bps(double c, uint32_t k)
{
    if (k <= 1) return UNIT_BPS;
    return UNIT_BPS * k / (1 + (c - 1) * (k - 1));
}

ss_pcomp *ss_pcomp_new(ss_engine *eng, size_t nhosts, const double *host_cores, size_t ndev,
                       const uint32_t *dev_host, const uint8_t *dev_gpu, double contention)
{
    assert(contention > 0);
    ss_pcomp *c = ss_xcalloc(1, sizeof *c);
    c->eng = eng;
    c->contention = contention;
    c->host_link = ss_xcalloc(nhosts ? nhosts : 1, sizeof *c->host_link);
    c->dev_link = ss_xcalloc(ndev ? ndev : 1, sizeof *c->dev_link);
    c->dev_host = ss_xcalloc(ndev ? ndev : 1, sizeof *c->dev_host);
    double *cap = ss_xcalloc(nhosts + ndev + 1, sizeof *cap);
    uint8_t *gpu = ss_xcalloc(nhosts + ndev + 1, 1);
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
            cap[n++] = gpu_capacity_bps(contention, 1);
        } else {
            c->dev_link[d] = c->host_link[dev_host[d]];
        }
    }
    c->net = ss_flownet_new(eng, n, cap);
    c->link_gpu = gpu;
    c->gpu_active = ss_xcalloc(n + 1, sizeof *c->gpu_active);
    free(cap);
    return c;
}

void ss_pcomp_free(ss_pcomp *c)
{
    if (!c) return;
    ss_flownet_free(c->net);
    for (size_t i = 0; i < c->nall; i++) free(c->all[i]);
    free(c->all);
    free(c->host_link);
    free(c->dev_link);
    free(c->dev_host);
    free(c->link_gpu);
    free(c->gpu_active);
    free(c);
}

/* One more (+1) or one fewer (-1) activity on GPU link l: its capacity follows. */
static void gpu_count(ss_pcomp *c, uint32_t l, int delta)
{
    c->gpu_active[l] = (uint32_t)((int)c->gpu_active[l] + delta);
    ss_flownet_set_capacity(c->net, l, gpu_capacity_bps(c->contention, c->gpu_active[l]));
}

static void act_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    (void)now_s;
    pc_act *a = ctx;
    ss_pcomp *c = a->c;
    if (a->gpu != NO_LINK) gpu_count(c, a->gpu, -1);
    ss_pc_done done = a->done;
    void *dctx = a->ctx;
    uint64_t arg = a->arg;
    a->next_free = c->free_act;
    c->free_act = a;
    done(dctx, arg);
}

static void start(ss_pcomp *c, uint32_t link, double work_s, ss_pc_done done, void *ctx, uint64_t arg)
{
    assert(work_s >= 0 && isfinite(work_s));
    pc_act *a = c->free_act;
    if (a) {
        c->free_act = a->next_free;
    } else {
        a = ss_xcalloc(1, sizeof *a);
        c->all = ss_xrealloc(c->all, (c->nall + 1) * sizeof *c->all);
        c->all[c->nall++] = a;
    }
    a->c = c;
    a->done = done;
    a->ctx = ctx;
    a->arg = arg;
    a->gpu = link != NO_LINK && c->link_gpu[link] ? link : NO_LINK;
    if (a->gpu != NO_LINK) gpu_count(c, link, +1);
    /* One core or one GPU at most; with no link (undeclared cores) exactly that. */
    ss_flow_opts o = {.cap_bps = UNIT_BPS};
    ss_flow_start(c->net, &link, link == NO_LINK ? 0 : 1, work_s, &o, act_done, a);
}

void ss_pcomp_cpu(ss_pcomp *c, uint32_t host, double work_s, ss_pc_done done, void *ctx, uint64_t arg)
{
    start(c, c->host_link[host], work_s, done, ctx, arg);
}

void ss_pcomp_dev(ss_pcomp *c, uint32_t dev, double work_s, ss_pc_done done, void *ctx, uint64_t arg)
{
    start(c, c->dev_link[dev], work_s, done, ctx, arg);
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
    ss_pcomp_cpu(t->c, t->host, it.work_s, thread_done, t, 0);
}

void ss_pc_thread_init(ss_pc_thread *t, ss_pcomp *c, uint32_t host, ss_pc_done done, void *ctx)
{
    *t = (ss_pc_thread){.c = c, .host = host, .done = done, .ctx = ctx};
}

void ss_pc_thread_push(ss_pc_thread *t, double work_s, uint64_t arg)
{
    if (t->len == t->cap) { /* grow the ring, unrolled to start at 0 */
        size_t cap = t->cap ? 2 * t->cap : 8;
        ss_pc_item *ring = ss_xcalloc(cap, sizeof *ring);
        for (size_t i = 0; i < t->len; i++) ring[i] = t->ring[(t->head + i) % t->cap];
        free(t->ring);
        t->ring = ring;
        t->cap = cap;
        t->head = 0;
    }
    t->ring[(t->head + t->len++) % t->cap] = (ss_pc_item){work_s, arg};
    thread_next(t);
}

void ss_pc_thread_free(ss_pc_thread *t)
{
    free(t->ring);
    t->ring = NULL;
}
