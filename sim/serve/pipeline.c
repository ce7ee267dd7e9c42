/* pipeline.c: the serving path of a world with a `pipeline:` section
 * (pipeline.h): block processes with one main thread and a FIFO queue that
 * may batch, hops priced by the transport plugin, the GPU-to-GPU path kind
 * from the topology, GPU contention, VRAM and host-RAM ledgers, energy, and
 * the per-block figures the thesis reports (overhead o_b, compute m_b,
 * waiting w_b) as run-level extra columns.
 *
 * One request's life: the client sends (hop priced, delivery in flight) ->
 * [the dispatcher's queue and main thread ->] block 1's queue -> block 1's
 * main thread: receiver cost, compute, then - the next process chosen now,
 * since the sender must know where the tensor goes - the sender cost ->
 * delivery -> block 2 ... -> the last block's send -> delivery -> the client.
 * Processes are indexed like the world's instances; the dispatcher, if any,
 * comes last. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "input/blockmodel.h"
#include "input/pipeline_cfg.h"
#include "net/topo.h"
#include "serve/pipeline.h"
#include "serve/pipeline_net.h"
#include "serve/vram.h"
#include "serve/serve.h"

#define CLIENT UINT32_MAX

typedef struct pproc {
    ss_world *w;
    ss_instance *in;        /* the block's instance; NULL for the dispatcher */
    uint32_t index;         /* in ss_pipe.procs */
    uint32_t kind;          /* SS_HOP_BLOCK or SS_HOP_DISPATCHER */
    uint32_t device, host;
    const ss_block_cfg *blk;
    char *name;             /* column suffix */
    uint32_t max_batch;
    double max_wait_s;
    /* FIFO queue (a ring) and the batch in service */
    ss_request **ring;
    size_t head, len, cap;
    uint64_t capacity;
    ss_request **batch;
    uint32_t nbatch, busy;
    double started_s;
    int timer_on;
    ss_event_id timer;
    uint8_t *ctx_opened;    /* per device: a cross-GPU context opened there */
    ss_stat overhead, compute, wait, batch_size; /* measured requests */
} pproc;

typedef struct ss_pipe {
    const ss_pipeline_cfg *cfg;
    ss_plugin tp;
    void *tp_state;
    gsl_rng *tp_rng;
    pproc *procs;
    size_t nprocs;
    char **hosts;           /* host names, from "host/device" */
    size_t nhosts;
    uint32_t *dev_host;     /* per device */
    uint32_t *dev_busy;     /* processes computing now, per device (contention) */
    uint32_t *dev_occ;      /* requests at or heading to its processes, per device */
    double *dev_occ_since, *dev_occ_s;
    ss_ledger vram, ram;    /* per device, per host */
    ss_stat pipeline, overhead, compute; /* per measured request */
    ss_pipe_net *net;       /* cross-host hops over the topology (pipeline_net.c), or NULL */
} ss_pipe;

/* ---- devices and paths ------------------------------------------------------ */

static uint32_t gpu_path(const ss_world *w, uint32_t a, uint32_t b)
{
    const ss_scenario *sc = w->sc;
    if (a == b) return SS_GPU_PATH_SELF;
    if (sc->topo) {
        uint32_t na = ss_topo_find(sc->topo, sc->devices[a].name), nb = ss_topo_find(sc->topo, sc->devices[b].name);
        if (na != SS_TOPO_NONE && nb != SS_TOPO_NONE) {
            uint32_t links[64];
            size_t n = ss_topo_route(sc->topo, na, nb, 0, links, 64, NULL);
            if (n != SS_TOPO_NO_ROUTE && n <= 64) return (uint32_t)ss_topo_path_kind(sc->topo, links, n);
        }
    }
    /* No topology: two GPUs of one host are taken as NODE (PCIe through one socket). */
    return w->pipe->dev_host[a] == w->pipe->dev_host[b] ? SS_GPU_PATH_NODE : SS_GPU_PATH_NET;
}

/* Devices with a request present count as busy for energy, over the measured window. */
static void occ_change(ss_world *w, uint32_t dev, int delta)
{
    ss_pipe *p = w->pipe;
    double now = ss_now(w->eng);
    if (p->dev_occ[dev] > 0) {
        double from = p->dev_occ_since[dev] > w->warmup_end_s ? p->dev_occ_since[dev] : w->warmup_end_s;
        if (now > from) p->dev_occ_s[dev] += now - from;
    }
    p->dev_occ_since[dev] = now;
    p->dev_occ[dev] = (uint32_t)((int)p->dev_occ[dev] + delta);
}

static void hold(ss_world *w, uint32_t proc, double bytes, uint32_t in, int sign)
{
    if (proc == CLIENT || bytes <= 0) return;
    ss_pipe *p = w->pipe;
    const pproc *q = &p->procs[proc];
    if (in == SS_QUEUED_VRAM) ss_ledger_add_bytes(&p->vram, q->device, sign * bytes);
    if (in == SS_QUEUED_HOST_RAM) ss_ledger_add_bytes(&p->ram, q->host, sign * bytes);
}

/* ---- hops ------------------------------------------------------------------- */

static uint32_t pick_block(ss_world *w, ss_request *r, uint32_t stage)
{
    uint32_t m = w->sc->tasks[r->task].stages[stage];
    return w->groups[m].members[ss_world_pick(w, r, m)]->id; /* every block process is up */
}

/* Price the hop from `from` (a process or the client) to `to`; the tensor is
 * what `from` produced (the client: the input). */
static void price(ss_world *w, ss_request *r, uint32_t from, uint32_t to, ss_hop_cost *c)
{
    ss_pipe *p = w->pipe;
    const ss_scenario *sc = w->sc;
    double bytes;
    if (from != CLIENT && p->procs[from].blk) {
        bytes = p->procs[from].blk->out_bytes_per_sample;
    } else { /* client or dispatcher: the task's input */
        bytes = sc->models[sc->tasks[r->task].stages[0]].block->in_bytes_per_sample;
    }
    /* The client sits on its configured GPU, else beside whatever it talks to. */
    uint32_t other = from == CLIENT ? to : from;
    uint32_t client_dev = p->cfg->has_client_device ? p->cfg->client_device : p->procs[other].device;
    uint32_t da = from == CLIENT ? client_dev : p->procs[from].device;
    uint32_t db = to == CLIENT ? client_dev : p->procs[to].device;
    ss_hop h = {.tensor_bytes = bytes * r->pipe.batch, .batch = r->pipe.batch,
                .from_kind = from == CLIENT ? SS_HOP_CLIENT : p->procs[from].kind,
                .to_kind = to == CLIENT ? SS_HOP_CLIENT : p->procs[to].kind,
                .same_gpu = da == db, .same_host = p->dev_host[da] == p->dev_host[db]};
    h.gpu_path = gpu_path(w, da, db);
    memset(c, 0, sizeof *c);
    if (p->tp.pol->ops.transport.hop(p->tp_state, &h, c) != 0) {
        /* The scenario was checked for this at build (check_hops). */
        fprintf(stderr, "servesim: transport '%s' cannot make a hop it accepted at build\n", p->cfg->transport.name);
        abort();
    }
    if (!(c->sender_s >= 0) || !(c->receiver_s >= 0) || !(c->delivery_s >= 0)) {
        fprintf(stderr, "servesim: transport '%s' returned a negative or NaN cost\n", p->cfg->transport.name);
        abort();
    }
    /* Across hosts over a topology the wire bytes become a flow (pipeline_net.c): the
     * transport's per-byte delivery term gives way to the network's transfer time. */
    r->pipe.net_bytes = 0;
    if (p->net && !h.same_host && c->wire_bytes > 0) {
        r->pipe.net_bytes = c->wire_bytes;
        r->pipe.net_src_dev = da;
        r->pipe.net_dst_dev = db;
        c->delivery_s = c->delivery_s > c->delivery_wire_s ? c->delivery_s - c->delivery_wire_s : 0;
    }
    if (from == CLIENT) c->sender_s = 0; /* the client has no modelled main thread */
    if (to == CLIENT) c->receiver_s = 0;
    /* A tensor moved to another GPU opens the sender's CUDA context there (docs/blockflow-models.md §4). */
    if (from != CLIENT && !h.same_gpu && c->queued_in == SS_QUEUED_VRAM && p->procs[from].blk &&
        !p->procs[from].ctx_opened[db] && sc->devices[db].kind == SS_DEV_GPU) {
        p->procs[from].ctx_opened[db] = 1;
        ss_ledger_add_mib(&p->vram, db, p->procs[from].blk->context_vram_mib);
    }
}

static void arrive(ss_engine *eng, void *ctx, uint64_t arg);
static void at_client(ss_engine *eng, void *ctx, uint64_t arg);

/* Send r from its current place to r->pipe.next, the hop already priced. */
static void depart(ss_world *w, ss_request *r, double delivery_s, double recv_s, double held, uint32_t held_in)
{
    ss_pipe *p = w->pipe;
    uint32_t to = r->pipe.next;
    double now = ss_now(w->eng);
    if (to != CLIENT) occ_change(w, p->procs[to].device, +1);
    hold(w, to, held, held_in, +1);
    r->pipe.at = to;
    r->pipe.sent_s = now;
    r->pipe.recv_s = recv_s;
    r->pipe.held_bytes = held;
    r->pipe.held_in = held_in;
    if (r->pipe.net_bytes > 0) {
        ss_pipe_net_send(p->net, r, delivery_s);
        r->pipe.hops++;
        return;
    }
    r->pipe.hops++;
    if (to == CLIENT)
        ss_schedule(w->eng, now + delivery_s, at_client, w, (uint64_t)(uintptr_t)r);
    else
        ss_schedule(w->eng, now + delivery_s, arrive, &p->procs[to], (uint64_t)(uintptr_t)r);
}

/* A new request leaves its client (stage 0). */
static void pipe_route(ss_world *w, ss_request *r)
{
    ss_pipe *p = w->pipe;
    r->pipe.batch = p->cfg->batch;
    r->pipe.at = CLIENT;
    r->pipe.at_dispatcher = p->cfg->has_dispatcher;
    r->pipe.next = p->cfg->has_dispatcher ? (uint32_t)(p->nprocs - 1) : pick_block(w, r, 0);
    ss_hop_cost c;
    price(w, r, CLIENT, r->pipe.next, &c);
    depart(w, r, c.delivery_s, c.receiver_s, c.queued_bytes, c.queued_in);
}

/* ---- processes: queue, batching, service -------------------------------------- */

static void update_view(pproc *q)
{
    if (!q->in) return;
    ss_group *g = &q->w->groups[q->in->model];
    g->views[q->in->index].queued = (uint32_t)q->len;
    g->views[q->in->index].busy = q->busy;
}

static void start_batch(pproc *q);
static void batch_done(ss_engine *eng, void *ctx, uint64_t arg);

static void timeout(ss_engine *eng, void *ctx, uint64_t arg)
{
    pproc *q = ctx;
    q->timer_on = 0;
    if (!q->busy && q->len) start_batch(q);
}

/* Start a batch if the server is free and the batch is full or its oldest
 * item has waited max_wait_s; otherwise wait for that moment. */
static void try_start(pproc *q)
{
    if (q->busy || q->len == 0) return;
    double now = ss_now(q->w->eng);
    if (q->len < q->max_batch && q->max_wait_s > 0) {
        double due = q->ring[q->head]->pipe.arrived_s + q->max_wait_s;
        if (due > now) {
            if (!q->timer_on) {
                q->timer = ss_schedule(q->w->eng, due, timeout, q, 0);
                q->timer_on = 1;
            }
            return;
        }
    }
    start_batch(q);
}

static void arrive(ss_engine *eng, void *ctx, uint64_t arg)
{
    pproc *q = ctx;
    ss_world *w = q->w;
    ss_request *r = (ss_request *)(uintptr_t)arg;
    r->pipe.arrived_s = ss_now(eng);
    r->enqueued_s = r->pipe.arrived_s;
    if (q->busy && q->len >= q->capacity) {
        hold(w, q->index, r->pipe.held_bytes, r->pipe.held_in, -1);
        occ_change(w, q->device, -1);
        ss_world_drop(w, r);
        return;
    }
    if (q->len == q->cap) { /* grow the ring, unrolled to start at 0 */
        size_t cap = q->cap ? 2 * q->cap : 16;
        ss_request **ring = ss_xcalloc(cap, sizeof *ring);
        for (size_t i = 0; i < q->len; i++) ring[i] = q->ring[(q->head + i) % q->cap];
        free(q->ring);
        q->ring = ring;
        q->cap = cap;
        q->head = 0;
    }
    q->ring[(q->head + q->len++) % q->cap] = r;
    if (q->len >= q->max_batch && q->timer_on) {
        ss_cancel(eng, q->timer);
        q->timer_on = 0;
    }
    try_start(q);
    update_view(q);
}

/* Compute of a batch of `samples`: the profile's batch-1 draw scaled by the
 * batch rule, slowed by the other processes computing on the same GPU. */
static double compute_s(pproc *q, double samples)
{
    ss_world *w = q->w;
    ss_group *g = &w->groups[q->in->model];
    double draw = ss_dist_sample(g->service, g->rng);
    double scale = q->blk->mean1_s > 0 ? ss_block_mean_s(q->blk, samples) / q->blk->mean1_s : 1;
    uint32_t others = w->pipe->dev_busy[q->device];
    return draw * scale * (1 + (w->pipe->cfg->contention - 1) * others);
}

static void start_batch(pproc *q)
{
    ss_world *w = q->w;
    ss_pipe *p = w->pipe;
    double now = ss_now(w->eng);
    if (q->timer_on) {
        ss_cancel(w->eng, q->timer);
        q->timer_on = 0;
    }
    uint32_t n = q->len < q->max_batch ? (uint32_t)q->len : q->max_batch;
    q->batch = ss_xrealloc(q->batch, n * sizeof *q->batch);
    double recv = 0, send = 0, samples = 0;
    for (uint32_t i = 0; i < n; i++) {
        ss_request *r = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->len--;
        q->batch[i] = r;
        r->queue_s += now - r->pipe.arrived_s;
        samples += r->pipe.batch;
        /* The next process is chosen now: the sender must know where the tensor goes. */
        if (q->kind == SS_HOP_DISPATCHER)
            r->pipe.next = pick_block(w, r, 0);
        else
            r->pipe.next = r->stage + 1 < w->sc->tasks[r->task].nstages ? pick_block(w, r, r->stage + 1) : CLIENT;
        ss_hop_cost c;
        price(w, r, q->index, r->pipe.next, &c);
        recv += r->pipe.recv_s;
        send += c.sender_s;
        r->pipe.cur_o_s = r->pipe.recv_s + c.sender_s; /* this item's o_b: its own receive and send */
        r->pipe.delivery_s = c.delivery_s;
        r->pipe.next_recv_s = c.receiver_s;
        r->pipe.next_held_bytes = c.queued_bytes;
        r->pipe.next_held_in = c.queued_in;
    }
    q->nbatch = n;
    double m = q->blk ? compute_s(q, samples) : 0;
    for (uint32_t i = 0; i < n; i++) {
        ss_request *r = q->batch[i];
        r->pipe.cur_m_s = m;
        if (r->measured) {
            ss_stat_add(&q->overhead, r->pipe.cur_o_s);
            ss_stat_add(&q->compute, m);
            ss_stat_add(&q->wait, now - r->pipe.sent_s); /* w_b: delivery d_b + queueing */
            ss_stat_add(&q->batch_size, samples);
        }
    }
    q->busy = 1;
    q->started_s = now;
    if (q->in) {
        ss_inst_busy_mark(q->in, now);
        q->in->busy = 1;
    }
    p->dev_busy[q->device]++;
    update_view(q);
    ss_schedule(w->eng, now + recv + m + send, batch_done, q, 0);
}

static void batch_done(ss_engine *eng, void *ctx, uint64_t arg)
{
    pproc *q = ctx;
    ss_world *w = q->w;
    ss_pipe *p = w->pipe;
    double now = ss_now(eng);
    p->dev_busy[q->device]--;
    if (q->in) {
        ss_inst_busy_add(w, q->in, q->started_s, now);
        ss_inst_busy_mark(q->in, now);
        q->in->busy = 0;
    }
    q->busy = 0;
    for (uint32_t i = 0; i < q->nbatch; i++) {
        ss_request *r = q->batch[i];
        if (q->blk) { /* Eq. 4.1 sums over the blocks: the dispatcher is not one */
            r->pipe.overhead_s += r->pipe.cur_o_s;
            r->pipe.compute_s += r->pipe.cur_m_s;
            r->pipe.pipeline_s += now - r->pipe.sent_s;
            if (r->pipe.next != CLIENT) r->stage++;
        }
        r->pipe.at_dispatcher = 0;
        /* The tensor this process read is released; the next hop's is held from now. */
        hold(w, q->index, r->pipe.held_bytes, r->pipe.held_in, -1);
        depart(w, r, r->pipe.delivery_s, r->pipe.next_recv_s, r->pipe.next_held_bytes, r->pipe.next_held_in);
        occ_change(w, q->device, -1);
    }
    q->nbatch = 0;
    try_start(q);
    update_view(q);
}

static void at_client(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_world *w = ctx;
    ss_pipe *p = w->pipe;
    ss_request *r = (ss_request *)(uintptr_t)arg;
    if (r->measured) {
        ss_stat_add(&p->pipeline, r->pipe.pipeline_s);
        ss_stat_add(&p->overhead, r->pipe.overhead_s);
        ss_stat_add(&p->compute, r->pipe.compute_s);
    }
    ss_world_finish(w, r);
}

static void delivered(ss_world *w, ss_request *r)
{
    if (r->pipe.at == CLIENT)
        at_client(w->eng, w, (uint64_t)(uintptr_t)r);
    else
        arrive(w->eng, &w->pipe->procs[r->pipe.at], (uint64_t)(uintptr_t)r);
}

/* ---- building, results ------------------------------------------------------------ */

/* A column-name suffix: letters, digits and '_' only. */
static char *col_name(const char *s)
{
    char *c = ss_xstrdup(s);
    for (char *t = c; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9'))) *t = '_';
    return c;
}

static uint32_t host_of(ss_pipe *p, const char *device)
{
    const char *slash = strchr(device, '/');
    size_t len = slash ? (size_t)(slash - device) : strlen(device);
    for (size_t i = 0; i < p->nhosts; i++)
        if (strlen(p->hosts[i]) == len && strncmp(p->hosts[i], device, len) == 0) return (uint32_t)i;
    p->hosts = ss_xrealloc(p->hosts, (p->nhosts + 1) * sizeof *p->hosts);
    p->hosts[p->nhosts] = ss_xstrdup(device);
    p->hosts[p->nhosts][len] = '\0';
    return (uint32_t)p->nhosts++;
}

/* Every hop a task can take must be one the transport can make (tensormq
 * cannot cross hosts without its fallback, a third-party transport may
 * refuse more): refused at build, positioned at the transport. */
static int check_hops(ss_world *w, ss_err *err)
{
    ss_pipe *p = w->pipe;
    for (size_t a = 0; a < p->nprocs; a++)
        for (size_t b = 0; b <= p->nprocs; b++) {
            uint32_t to = b == p->nprocs ? CLIENT : (uint32_t)b;
            ss_request probe = {.task = 0};
            probe.pipe.batch = 1;
            const pproc *q = &p->procs[a];
            uint32_t da = q->device, db = to == CLIENT ? da : p->procs[to].device;
            ss_hop h = {.tensor_bytes = q->blk ? q->blk->out_bytes_per_sample : 0, .batch = 1, .from_kind = q->kind,
                        .to_kind = to == CLIENT ? SS_HOP_CLIENT : p->procs[to].kind, .same_gpu = da == db,
                        .same_host = p->dev_host[da] == p->dev_host[db]};
            h.gpu_path = gpu_path(w, da, db);
            ss_hop_cost c = {0};
            (void)probe;
            if (p->tp.pol->ops.transport.hop(p->tp_state, &h, &c) != 0)
                return ss_err_at(err, p->cfg->transport.file, p->cfg->transport.line, p->cfg->transport.col,
                                 "transport '%s' cannot move a tensor from %s to %s", p->cfg->transport.name,
                                 w->sc->devices[da].name, w->sc->devices[db].name);
        }
    return 0;
}

/* The device pairs (from, to) on different hosts that some hop of some
 * workload's task can join: client -> [dispatcher ->] first block, block ->
 * next block, last block -> client, over every instance of each block.  With
 * a topology, those hops go over the network (pipeline_net.c). */
static int build_net(ss_world *w, ss_err *err)
{
    ss_pipe *p = w->pipe;
    const ss_scenario *sc = w->sc;
    if (!sc->topo) return 0;
    size_t nd = sc->ndevices;
    uint8_t *pairs = ss_xcalloc(nd ? nd * nd : 1, 1);
    const ss_pipeline_cfg *cfg = p->cfg;
#define PAIR(a, b) \
    do { \
        if (p->dev_host[a] != p->dev_host[b]) pairs[(size_t)(a) * nd + (b)] = 1; \
    } while (0)
    for (size_t wl = 0; wl < sc->nworkloads; wl++) {
        const ss_task_cfg *t = &sc->tasks[sc->workloads[wl].task];
        for (uint32_t s = 0; s < t->nstages; s++) {
            const ss_group *g = &w->groups[t->stages[s]];
            for (uint32_t i = 0; i < g->n; i++) {
                uint32_t d = g->members[i]->device;
                if (s == 0) { /* the way in */
                    uint32_t src = cfg->has_dispatcher ? cfg->dispatcher_device
                                   : cfg->has_client_device ? cfg->client_device : d;
                    PAIR(src, d);
                }
                if (s + 1 < t->nstages) {
                    const ss_group *h = &w->groups[t->stages[s + 1]];
                    for (uint32_t j = 0; j < h->n; j++) PAIR(d, h->members[j]->device);
                } else if (cfg->has_client_device) { /* the way out */
                    PAIR(d, cfg->client_device);
                }
            }
        }
    }
    if (cfg->has_dispatcher && cfg->has_client_device) PAIR(cfg->client_device, cfg->dispatcher_device);
#undef PAIR
    int rc = ss_pipe_net_new(w, pairs, nd, cfg->transport.file, cfg->transport.line, cfg->transport.col, delivered,
                             &p->net, err);
    free(pairs);
    return rc;
}

static void pipe_warmup_over(ss_world *w);

int ss_pipe_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_pipeline_cfg *cfg = sc->pipeline;
    ss_pipe *p = ss_xcalloc(1, sizeof *p);
    w->pipe = p;
    w->route_hook = pipe_route;
    w->warmup_hook = pipe_warmup_over;
    p->cfg = cfg;
    if (ss_world_load_policy(w, &cfg->transport, SS_KIND_TRANSPORT, &p->tp, &p->tp_state, &p->tp_rng,
                             "policy/transport", err) < 0)
        return -1;
    size_t nd = sc->ndevices;
    p->dev_host = ss_xcalloc(nd, sizeof *p->dev_host);
    for (size_t d = 0; d < nd; d++) p->dev_host[d] = host_of(p, sc->devices[d].name);
    p->dev_busy = ss_xcalloc(nd, sizeof *p->dev_busy);
    p->dev_occ = ss_xcalloc(nd, sizeof *p->dev_occ);
    p->dev_occ_since = ss_xcalloc(nd, sizeof *p->dev_occ_since);
    p->dev_occ_s = ss_xcalloc(nd, sizeof *p->dev_occ_s);
    ss_ledger_init(&p->vram, nd);
    ss_ledger_init(&p->ram, p->nhosts);
    p->nprocs = w->ninst + (cfg->has_dispatcher ? 1 : 0);
    p->procs = ss_xcalloc(p->nprocs, sizeof *p->procs);
    for (size_t i = 0; i < p->nprocs; i++) {
        pproc *q = &p->procs[i];
        q->w = w;
        q->index = (uint32_t)i;
        q->capacity = UINT64_MAX;
        q->max_batch = 1;
        q->ctx_opened = ss_xcalloc(nd, 1);
        ss_stat_reset(&q->overhead);
        ss_stat_reset(&q->compute);
        ss_stat_reset(&q->wait);
        ss_stat_reset(&q->batch_size);
        if (i < w->ninst) {
            ss_instance *in = w->inst[i];
            const ss_model_cfg *m = &sc->models[in->model];
            q->in = in;
            q->kind = SS_HOP_BLOCK;
            q->device = in->device;
            q->blk = m->block;
            q->capacity = in->capacity;
            q->max_batch = cfg->max_batch[in->model];
            q->max_wait_s = cfg->max_wait_s[in->model];
            q->name = w->groups[in->model].n > 1 ? ss_xasprintf("%s_%u", m->name, in->index) : ss_xstrdup(m->name);
            if (q->blk) {
                ss_ledger_add_mib(&p->vram, q->device, q->blk->process_vram_mib);
                q->host = p->dev_host[q->device];
                ss_ledger_add_mib(&p->ram, q->host, q->blk->host_ram_mib);
            }
        } else {
            q->kind = SS_HOP_DISPATCHER;
            q->device = cfg->dispatcher_device;
            q->host = p->dev_host[q->device];
            q->name = ss_xstrdup("dispatcher");
            /* [ASSUMPTION] the dispatcher is a Python process like a block: 700 MiB of RAM;
             * under tensormq it uploads the input, so it holds a CUDA context. */
            double ram = 0, ctx = 0;
            for (size_t m = 0; m < sc->nmodels; m++)
                if (sc->models[m].block) {
                    ram = sc->models[m].block->host_ram_mib;
                    ctx = sc->models[m].block->context_vram_mib;
                }
            ss_ledger_add_mib(&p->ram, q->host, ram);
            if (strcmp(cfg->transport.name, "tensormq") == 0) ss_ledger_add_mib(&p->vram, q->device, ctx);
        }
        q->host = p->dev_host[q->device];
    }
    if (check_hops(w, err) < 0) return -1;
    if (build_net(w, err) < 0) return -1;
    /* The extra columns, known now (sweeps declare them in their layout). */
    ss_world_declare_extra(w, "pipeline_time_ms");
    ss_world_declare_extra(w, "pipeline_overhead_ms");
    ss_world_declare_extra(w, "pipeline_compute_ms");
    for (size_t i = 0; i < p->nprocs; i++) {
        char *n = col_name(p->procs[i].name);
        const char *fmt[] = {"overhead_ms_%s", "compute_ms_%s", "wait_ms_%s", "batch_mean_%s"};
        for (int k = 0; k < 4; k++) {
            if (k == 1 && !p->procs[i].blk) continue;
            char *c = ss_xasprintf(fmt[k], n);
            ss_world_declare_extra(w, c);
            free(c);
        }
        free(n);
    }
    for (size_t d = 0; d < nd; d++) {
        if (p->vram.cur_mib[d] <= 0 && sc->devices[d].kind != SS_DEV_GPU) continue;
        int used = p->vram.cur_mib[d] > 0;
        for (size_t i = 0; i < p->nprocs; i++) used |= p->procs[i].device == d;
        if (!used) continue;
        char *n = col_name(sc->devices[d].name), *c = ss_xasprintf("vram_peak_mib_%s", n);
        ss_world_declare_extra(w, c);
        free(c);
        free(n);
    }
    for (size_t h = 0; h < p->nhosts; h++) {
        if (p->ram.cur_mib[h] <= 0) continue;
        char *n = col_name(p->hosts[h]), *c = ss_xasprintf("host_ram_peak_mib_%s", n);
        ss_world_declare_extra(w, c);
        free(c);
        free(n);
    }
    ss_world_declare_extra(w, "energy_j");
    ss_world_declare_extra(w, "energy_per_request_mj");
    if (p->net) ss_pipe_net_declare(p->net, w);
    return 0;
}

static double ms(const ss_stat *s)
{
    return s->n ? ss_stat_mean(s) * 1e3 : NAN;
}

void ss_pipe_result(const ss_world *w, ss_run_result *r)
{
    const ss_pipe *p = w->pipe;
    const ss_scenario *sc = w->sc;
    /* The columns come in the order ss_pipe_build declared them. */
    const char *const *cols = (const char *const *)w->extra_cols;
    size_t ncols = w->nextra_cols, k = 0;
    ss_run_result_extra(r, cols[k++], ms(&p->pipeline));
    ss_run_result_extra(r, cols[k++], ms(&p->overhead));
    ss_run_result_extra(r, cols[k++], ms(&p->compute));
    for (size_t i = 0; i < p->nprocs; i++) {
        const pproc *q = &p->procs[i];
        ss_run_result_extra(r, cols[k++], ms(&q->overhead));
        if (q->blk) ss_run_result_extra(r, cols[k++], ms(&q->compute));
        ss_run_result_extra(r, cols[k++], ms(&q->wait));
        ss_run_result_extra(r, cols[k++], q->batch_size.n ? ss_stat_mean(&q->batch_size) : NAN);
    }
    double energy = 0;
    int has_power = 0;
    for (size_t d = 0; d < sc->ndevices; d++) {
        /* occupancy up to the end of the measured window (all requests done) */
        double occ = p->dev_occ_s[d];
        energy += sc->devices[d].power_w * occ;
        has_power |= sc->devices[d].power_w > 0;
    }
    for (; k + 2 < ncols && strncmp(cols[k], "vram_peak_mib_", 14) == 0; k++) {
        for (size_t d = 0; d < sc->ndevices; d++) {
            char *n = col_name(sc->devices[d].name);
            int match = strcmp(n, cols[k] + 14) == 0;
            free(n);
            if (match) {
                ss_run_result_extra(r, cols[k], p->vram.peak_mib[d]);
                break;
            }
        }
    }
    for (; k + 2 < ncols && strncmp(cols[k], "host_ram_peak_mib_", 18) == 0; k++) {
        for (size_t h = 0; h < p->nhosts; h++) {
            char *n = col_name(p->hosts[h]);
            int match = strcmp(n, cols[k] + 18) == 0;
            free(n);
            if (match) {
                ss_run_result_extra(r, cols[k], p->ram.peak_mib[h]);
                break;
            }
        }
    }
    uint64_t done = r->ntasks ? r->tasks[r->ntasks - 1].completed : 0;
    ss_run_result_extra(r, cols[k++], has_power ? energy : NAN);
    ss_run_result_extra(r, cols[k++], has_power && done ? energy / (double)done * 1e3 : NAN);
    if (p->net) k = ss_pipe_net_result(p->net, r, cols, k);
    (void)k;
}

static void pipe_warmup_over(ss_world *w)
{
    ss_pipe *p = w->pipe;
    double now = ss_now(w->eng);
    for (size_t d = 0; d < w->sc->ndevices; d++) {
        p->dev_occ_s[d] = 0;
        p->dev_occ_since[d] = now;
    }
    if (p->net) ss_pipe_net_warmup_over(p->net);
}

void ss_pipe_free(ss_world *w)
{
    ss_pipe *p = w->pipe;
    if (!p) return;
    for (size_t i = 0; i < p->nprocs; i++) {
        free(p->procs[i].ring);
        free(p->procs[i].batch);
        free(p->procs[i].ctx_opened);
        free(p->procs[i].name);
    }
    free(p->procs);
    ss_pipe_net_free(p->net);
    for (size_t h = 0; h < p->nhosts; h++) free(p->hosts[h]);
    free(p->hosts);
    free(p->dev_host);
    free(p->dev_busy);
    free(p->dev_occ);
    free(p->dev_occ_since);
    free(p->dev_occ_s);
    ss_ledger_free(&p->vram);
    ss_ledger_free(&p->ram);
    if (p->tp.pol && p->tp.pol->fini && p->tp_state) p->tp.pol->fini(p->tp_state);
    if (p->tp.handle) ss_plugin_unload(&p->tp);
    if (p->tp_rng) gsl_rng_free(p->tp_rng);
    free(p);
    w->pipe = NULL;
}
