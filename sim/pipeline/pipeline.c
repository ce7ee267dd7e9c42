/* pipeline.c: the serving path of a world with a `pipeline:` section
 * (pipeline.h): block processes with one main thread and a FIFO queue that
 * may batch, hops priced by the transport plugin, the GPU-to-GPU path kind
 * from the topology, VRAM and host-RAM ledgers, energy, and
 * the per-block figures the thesis reports (overhead o_b, compute m_b,
 * waiting w_b) as run-level extra columns.
 *
 * One request's life: the client sends (hop priced, delivery in flight) ->
 * [the dispatcher's queue and main thread ->] block 1's queue -> block 1's
 * main thread: receiver cost, compute, then - the next process chosen now,
 * since the sender must know where the tensor goes - the sender cost ->
 * delivery -> block 2 ... -> the last block's send -> delivery -> the client.
 * Under compute: shared the main thread's service is pieces of work on the
 * compute net (receive on the CPU; compute - on a GPU its host-side part on
 * the CPU, then its kernels on the GPU; send on the CPU) and the delivery
 * runs on the receiver's I/O and receiver threads
 * (pipeline_compute.c); the client's side is a pure delay as before (its
 * delivery, and under `wake` its process's wake-up).
 * Processes are indexed like the world's instances; the dispatcher, if any,
 * comes last.  Building, results and freeing are in pipeline_build.c; the
 * two share pipeline_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/interp.h"
#include "core/rng.h"
#include "input/blockmodel.h"
#include "net/topo.h"
#include "core/ring.h"
#include "pipeline/pipeline_internal.h"

/* ---- devices and paths ------------------------------------------------------ */

uint32_t ss_pipe_gpu_path(const ss_world *w, uint32_t a, uint32_t b)
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
    ss_hop h = {.tensor_bytes = bytes * ss_preq(r)->batch, .batch = ss_preq(r)->batch,
                .from_kind = from == CLIENT ? SS_HOP_CLIENT : p->procs[from].kind,
                .to_kind = to == CLIENT ? SS_HOP_CLIENT : p->procs[to].kind,
                .same_gpu = da == db, .same_host = p->dev_host[da] == p->dev_host[db]};
    h.gpu_path = ss_pipe_gpu_path(w, da, db);
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
    ss_preq(r)->net_bytes = 0;
    if (p->net && !h.same_host && c->wire_bytes > 0) {
        ss_preq(r)->net_bytes = c->wire_bytes;
        ss_preq(r)->net_src_dev = da;
        ss_preq(r)->net_dst_dev = db;
        c->delivery_s = c->delivery_s > c->delivery_wire_s ? c->delivery_s - c->delivery_wire_s : 0;
        c->delivery_wire_s = 0; /* the flow moves the bytes */
    }
    if (from == CLIENT) c->sender_s = c->sender_copy_s = 0; /* the client has no modelled main thread */
    if (to == CLIENT) c->receiver_s = c->receiver_copy_s = 0;
    c->sender_copy_s = fmin(c->sender_copy_s, c->sender_s);
    c->receiver_copy_s = fmin(c->receiver_copy_s, c->receiver_s);
    /* A tensor moved to another GPU opens the sender's CUDA context there (docs/blockflow-models.md §4). */
    if (from != CLIENT && !h.same_gpu && c->queued_in == SS_QUEUED_VRAM && p->procs[from].blk &&
        !p->procs[from].ctx_opened[db] && sc->devices[db].kind == SS_DEV_GPU) {
        p->procs[from].ctx_opened[db] = 1;
        ss_ledger_add_mib(&p->vram, db, p->procs[from].blk->context_vram_mib);
        p->vram_base_mib[db] += p->procs[from].blk->context_vram_mib; /* held to the end: not a leak */
    }
}

static void arrive(ss_engine *eng, void *ctx, uint64_t arg);
static void at_client(ss_engine *eng, void *ctx, uint64_t arg);

/* r's next hop as priced: kept on r until it departs. */
static void keep_hop(ss_request *r, const ss_hop_cost *c)
{
    ss_preq(r)->delivery_s = c->delivery_s;
    ss_preq(r)->delivery_wire_s = c->delivery_wire_s;
    ss_preq(r)->next_recv_s = c->receiver_s;
    ss_preq(r)->next_held_bytes = c->queued_bytes;
    ss_preq(r)->next_held_in = c->queued_in;
    ss_preq(r)->recv_copy_frac = c->receiver_s > 0 ? (float)fmin(c->receiver_copy_s / c->receiver_s, 1) : 0;
    ss_preq(r)->deliv_copy_frac =
        c->delivery_wire_s > 0 ? (float)fmin(c->delivery_copy_s / c->delivery_wire_s, 1) : 0;
}

/* compute: shared: r's receiver thread takes it next (or, with nothing to
 * do there, it joins the queue at once, from an event). */
static void to_receiver(pproc *q, ss_request *r)
{
    if (ss_preq(r)->rx_s > 0)
        ss_pc_thread_push(&q->rx, ss_preq(r)->rx_s, (uint64_t)(uintptr_t)r);
    else
        ss_schedule(q->w->eng, ss_now(q->w->eng), arrive, q, (uint64_t)(uintptr_t)r);
}

/* `pipeline.wake`: the extra delay of a message sent to a process that has
 * been idle for idle_s: the table linear between its points, 0 below the
 * first (the reference the hop laws were timed at), the last point's beyond
 * it.  [ASSUMPTION: the extra is a wait, not CPU work.] */
static double wake_extra(const ss_pipeline_cfg *cfg, double idle_s)
{
    return ss_interp_table(cfg->wake_idle_s, cfg->wake_extra_s, cfg->nwake, idle_s, 0);
}

/* ... to process q, idle since its last batch ended or the last message was
 * sent to it, whichever is later (since the start if neither).  A process at
 * work or with a queue is awake: 0. */
static double wake_delay(const ss_pipeline_cfg *cfg, const pproc *q, double now)
{
    if (q->busy || q->len) return 0;
    double since = q->free_since_s > q->last_in_s ? q->free_since_s : q->last_in_s;
    return wake_extra(cfg, now - (since > 0 ? since : 0));
}

/* ... to the client process, idle since it last sent a request or received
 * a response (its receive is instant in the model).  [ASSUMPTION: every
 * client of the pipeline is one process, as the probe's load.py runs them:
 * one receive loop, and under Poisson a sender thread beside it.] */
static double client_wake_delay(const ss_pipe *p, double now)
{
    return wake_extra(p->cfg, now - p->client_last_s);
}

/* The message r has reached its receiving process's threads (after any
 * wake-up): under compute: shared, the bytes through the receiver's I/O
 * thread (or the network), then its receiver thread. */
static void hand_over(ss_world *w, ss_request *r)
{
    ss_pipe *p = w->pipe;
    uint32_t to = ss_preq(r)->at;
    double io_s = ss_preq(r)->delivery_wire_s < ss_preq(r)->delivery_s ? ss_preq(r)->delivery_wire_s : ss_preq(r)->delivery_s;
    ss_preq(r)->rx_s = ss_preq(r)->delivery_s - io_s;
    if (ss_preq(r)->net_bytes > 0)
        ss_pipe_net_send(p->net, r, 0);
    else if (io_s > 0)
        ss_pc_thread_push_copy(&p->procs[to].io, io_s, io_s * ss_preq(r)->deliv_copy_frac, (uint64_t)(uintptr_t)r);
    else
        to_receiver(&p->procs[to], r);
}

static void woken(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    hand_over(ctx, (ss_request *)(uintptr_t)arg);
}

/* Send r from its current place to ss_preq(r)->next, the hop priced (keep_hop). */
static void depart(ss_world *w, ss_request *r)
{
    ss_pipe *p = w->pipe;
    uint32_t to = ss_preq(r)->next;
    double now = ss_now(w->eng), delivery_s = ss_preq(r)->delivery_s, wake_s = 0;
    if (p->cfg->nwake) {
        if (to == CLIENT) {
            wake_s = client_wake_delay(p, now);
        } else {
            wake_s = wake_delay(p->cfg, &p->procs[to], now);
            p->procs[to].last_in_s = now;
        }
    }
    if (to != CLIENT) occ_change(w, p->procs[to].device, +1);
    hold(w, to, ss_preq(r)->next_held_bytes, ss_preq(r)->next_held_in, +1);
    ss_preq(r)->at = to;
    ss_preq(r)->sent_s = now;
    ss_preq(r)->recv_s = ss_preq(r)->next_recv_s;
    ss_preq(r)->held_bytes = ss_preq(r)->next_held_bytes;
    ss_preq(r)->held_in = ss_preq(r)->next_held_in;
    ss_preq(r)->hops++;
    if (p->comp && to != CLIENT) {
        /* Shared: the bytes through the socket on the receiver's I/O thread, the rest of
         * the hand-off on its receiver thread (docs/blockflow.md, "Shared compute"). */
        if (wake_s > 0)
            ss_schedule(w->eng, now + wake_s, woken, w, (uint64_t)(uintptr_t)r);
        else
            hand_over(w, r);
        return;
    }
    if (ss_preq(r)->net_bytes > 0) {
        ss_pipe_net_send(p->net, r, delivery_s + wake_s);
        return;
    }
    if (to == CLIENT)
        ss_schedule(w->eng, now + delivery_s + wake_s, at_client, w, (uint64_t)(uintptr_t)r);
    else
        ss_schedule(w->eng, now + delivery_s + wake_s, arrive, &p->procs[to], (uint64_t)(uintptr_t)r);
}

/* A new request leaves its client (stage 0). */
void ss_pipe_route(ss_world *w, ss_request *r)
{
    ss_pipe *p = w->pipe;
    p->client_last_s = ss_now(w->eng); /* `wake`: the client sends */
    ss_preq(r)->batch = p->cfg->batch;
    ss_preq(r)->at = CLIENT;
    ss_preq(r)->at_dispatcher = p->cfg->has_dispatcher;
    ss_preq(r)->next = p->cfg->has_dispatcher ? (uint32_t)(p->nprocs - 1) : pick_block(w, r, 0);
    ss_hop_cost c;
    price(w, r, CLIENT, ss_preq(r)->next, &c);
    keep_hop(r, &c);
    depart(w, r);
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
static void ring_release(pproc *q, uint32_t n);

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
        double due = ss_preq(q->ring[q->head])->arrived_s + q->max_wait_s;
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
    ss_preq(r)->arrived_s = ss_now(eng);
    r->enqueued_s = ss_preq(r)->arrived_s;
    if (w->tl) {
        char *name = ss_xasprintf("hop -> %s", q->name);
        ss_tl_request_span(w, r, name, ss_preq(r)->sent_s, ss_preq(r)->arrived_s);
        free(name);
    }
    if (q->busy && q->len >= q->capacity) {
        if (ss_preq(r)->in_slot) ring_release(q, 1);
        ss_preq(r)->in_slot = 0;
        hold(w, q->index, ss_preq(r)->held_bytes, ss_preq(r)->held_in, -1);
        occ_change(w, q->device, -1);
        ss_world_drop(w, r);
        return;
    }
    ss_ring_grow((void **)&q->ring, sizeof *q->ring, &q->head, q->len, &q->cap, 16);
    q->ring[(q->head + q->len++) % q->cap] = r;
    if (q->len >= q->max_batch && q->timer_on) {
        ss_cancel(eng, q->timer);
        q->timer_on = 0;
    }
    try_start(q);
    update_view(q);
}

/* Compute of a batch of `samples`: the profile's batch-1 draw (in *draw_s)
 * scaled by the batch rule.  Under fixed compute the processes are
 * independent servers; under shared compute the GPU's link shares the
 * kernel part (start_batch, stage_next). */
static double compute_s(pproc *q, double samples, double *draw_s)
{
    ss_world *w = q->w;
    ss_group *g = &w->groups[q->in->model];
    double draw = ss_dist_sample(g->service, g->rng);
    double scale = q->blk->mean1_s > 0 ? ss_block_mean_s(q->blk, samples) / q->blk->mean1_s : 1;
    *draw_s = draw;
    return draw * scale;
}

/* ---- compute: shared - the main thread's pieces of work ----------------------------
 * Compute on a GPU is host-side time (launch, framework, synchronisation: CPU
 * work of the main thread) then kernel time (the GPU's, time-sliced with the
 * other processes' kernels), split by the profile's kernel_fraction
 * (docs/blockflow.md, "GPU-busy time vs host time").  [ASSUMPTION: in series,
 * host part first; within one process the two do not overlap.] */

enum { STAGE_RECV, STAGE_HOST, STAGE_KERNEL, STAGE_SEND, STAGE_DONE };

static void stage_next(pproc *q);

static void stage_ev(ss_engine *eng, void *ctx, uint64_t arg)
{
    stage_next(ctx);
}

static void stage_done(void *ctx, uint64_t arg)
{
    (void)arg;
    pproc *q = ctx;
    q->wall_s[q->stage] = ss_now(q->w->eng) - q->stage_start_s;
    q->stage++;
    stage_next(q);
}

/* Start the batch's next piece of work with something to do: receive (CPU),
 * compute (its GPU), send (CPU); after the last, the batch is done. */
static void stage_next(pproc *q)
{
    ss_pipe *p = q->w->pipe;
    for (; q->stage < STAGE_DONE; q->stage++) {
        double work = q->work_s[q->stage];
        q->wall_s[q->stage] = 0;
        if (!(work > 0)) continue;
        q->stage_start_s = ss_now(q->w->eng);
        if (q->stage == STAGE_KERNEL)
            ss_pcomp_dev_on(p->comp, &q->main, q->waking, q->device, work, stage_done, q, 0);
        else
            ss_pcomp_copy_on(p->comp, &q->main, q->waking, q->host, work, fmin(q->copy_s[q->stage], work), stage_done,
                             q, 0);
        q->waking = 0;
        return;
    }
    /* Each item's o_b is its own receive and send, stretched as the batch's were. */
    double sr = q->work_s[STAGE_RECV] > 0 ? q->wall_s[STAGE_RECV] / q->work_s[STAGE_RECV] : 1;
    double ss = q->work_s[STAGE_SEND] > 0 ? q->wall_s[STAGE_SEND] / q->work_s[STAGE_SEND] : 1;
    for (uint32_t i = 0; i < q->nbatch; i++) {
        ss_request *r = q->batch[i];
        ss_preq(r)->cur_o_s = ss_preq(r)->recv_s * sr + ss_preq(r)->cur_send_s * ss;
        ss_preq(r)->cur_m_s = q->wall_s[STAGE_HOST] + q->wall_s[STAGE_KERNEL];
        if (r->measured) {
            ss_stat_add(&q->overhead, ss_preq(r)->cur_o_s);
            if (q->blk) ss_stat_add(&q->compute, ss_preq(r)->cur_m_s);
        }
    }
    batch_done(q->w->eng, q, 0);
}

static void io_done(void *ctx, uint64_t arg)
{
    to_receiver(ctx, (ss_request *)(uintptr_t)arg);
}

static void rx_done(void *ctx, uint64_t arg)
{
    pproc *q = ctx;
    arrive(q->w->eng, q, arg);
}

void ss_pipe_threads_init(ss_pipe *p)
{
    for (size_t i = 0; i < p->nprocs; i++) {
        pproc *q = &p->procs[i];
        ss_pc_thread_init(&q->io, p->comp, q->host, io_done, q);
        ss_pc_thread_init(&q->rx, p->comp, q->host, rx_done, q);
        ss_pc_place_init(&q->main, p->comp);
        q->free_since_s = -1;
    }
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
    double recv = 0, send = 0, samples = 0, recv_copy = 0, send_copy = 0;
    for (uint32_t i = 0; i < n; i++) {
        ss_request *r = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->len--;
        q->batch[i] = r;
        r->queue_s += now - ss_preq(r)->arrived_s;
        samples += ss_preq(r)->batch;
        /* The next process is chosen now: the sender must know where the tensor goes. */
        if (q->kind == SS_HOP_DISPATCHER)
            ss_preq(r)->next = pick_block(w, r, 0);
        else
            ss_preq(r)->next = r->stage + 1 < w->sc->tasks[r->task].nstages ? pick_block(w, r, r->stage + 1) : CLIENT;
        ss_hop_cost c;
        price(w, r, q->index, ss_preq(r)->next, &c);
        recv += ss_preq(r)->recv_s;
        recv_copy += ss_preq(r)->recv_s * ss_preq(r)->recv_copy_frac; /* the hop into here: before keep_hop */
        send += c.sender_s;
        send_copy += c.sender_copy_s;
        ss_preq(r)->cur_o_s = ss_preq(r)->recv_s + c.sender_s; /* this item's o_b: its own receive and send */
        ss_preq(r)->cur_send_s = c.sender_s;
        keep_hop(r, &c);
    }
    q->nbatch = n;
    double draw = 0, m = q->blk ? compute_s(q, samples, &draw) : 0;
    for (uint32_t i = 0; i < n; i++) {
        ss_request *r = q->batch[i];
        ss_preq(r)->cur_m_s = m;
        if (r->measured) {
            if (!p->comp) { /* shared: known when the batch is done (stage_next) */
                ss_stat_add(&q->overhead, ss_preq(r)->cur_o_s);
                ss_stat_add(&q->compute, m);
            }
            ss_stat_add(&q->wait, now - ss_preq(r)->sent_s); /* w_b: delivery d_b + queueing */
            ss_stat_add(&q->batch_size, samples);
        }
    }
    q->busy = 1;
    q->started_s = now;
    if (q->in) {
        ss_inst_busy_mark(q->in, now);
        q->in->busy = 1;
    }
    update_view(q);
    if (p->comp) {
        /* On a GPU the kernels are the GPU's work, the rest the main thread's CPU work:
         * the batch-1 draw's host share, once a batch (a forward pass launches the same
         * kernels whatever its batch), the kernels the rest of m.  A CPU device's compute
         * is all its host's (ss_pcomp_dev). */
        double kf = q->blk && w->sc->devices[q->device].kind == SS_DEV_GPU ? q->blk->kernel_fraction : 1;
        double host = kf < 1 ? draw * (1 - kf) : 0;
        q->work_s[STAGE_RECV] = recv;
        q->work_s[STAGE_HOST] = host;
        q->work_s[STAGE_KERNEL] = m - host;
        q->work_s[STAGE_SEND] = send;
        q->copy_s[STAGE_RECV] = recv_copy;
        q->copy_s[STAGE_SEND] = send_copy;
        q->stage = STAGE_RECV;
        q->waking = q->free_since_s != now; /* asleep since its last batch, not straight on from it */
        if (recv > 0 || m > 0 || send > 0)
            stage_next(q);
        else /* nothing to do: done at once, from an event as under fixed compute */
            ss_schedule(w->eng, now, stage_ev, q, 0);
        return;
    }
    ss_schedule(w->eng, now + recv + m + send, batch_done, q, 0);
}

/* ---- `slots`: a hop between two processes as a ring of slots ------------------------
 * (pipeline_cfg.h; the probe's shm-handle: 16 slots per hop, a full ring blocks the
 * sender, tools/probe/README.md).  A message takes a slot of its receiver's ring when it
 * is sent and gives it back when the receiver's batch ends; a sender whose next message
 * finds the ring full stops there, its main thread blocked (the process stays busy and
 * takes no new batch), and goes on, first come first served, when a slot comes back.
 * The client's hops (to the first process and back) have no ring [ASSUMPTION: as the
 * probe, whose client hop copies]. */

static void ring_wait(pproc *to, uint32_t sender)
{
    ss_ring_grow((void **)&to->waiters, sizeof *to->waiters, &to->wait_head, to->wait_len, &to->wait_cap, 4);
    to->waiters[(to->wait_head + to->wait_len++) % to->wait_cap] = sender;
}

static void sends_from(pproc *q, uint32_t first, int reserved);

static void slot_back(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    pproc *q = ctx; /* a blocked sender, a slot held for the message it stopped at */
    sends_from(q, q->blocked_at, 1);
}

/* The process q's batch ended: give its messages' inbound slots back, and wake a sender
 * waiting on this ring (from an event, so that what it sends comes after what runs now). */
static void ring_release(pproc *q, uint32_t n)
{
    ss_pipe *p = q->w->pipe;
    if (!p->cfg->slots) return;
    q->slots_used -= n;
    while (q->wait_len && q->slots_used < p->cfg->slots) {
        pproc *s = &p->procs[q->waiters[q->wait_head]];
        q->wait_head = (q->wait_head + 1) % q->wait_cap;
        q->wait_len--;
        q->slots_used++; /* held for the waiter's message */
        ss_schedule(q->w->eng, ss_now(q->w->eng), slot_back, s, 1);
    }
}

/* Send q's batch from item `first` on (`reserved`: a slot is already held for
 * that one); stop at a full ring (the main thread blocks there); after the last,
 * q is free. */
static void sends_from(pproc *q, uint32_t first, int reserved)
{
    ss_world *w = q->w;
    ss_pipe *p = w->pipe;
    q->blocked_at = UINT32_MAX;
    for (uint32_t i = first; i < q->nbatch; i++) {
        ss_request *r = q->batch[i];
        uint32_t to = ss_preq(r)->next;
        if (p->cfg->slots && to != CLIENT) {
            if (!(reserved && i == first)) {
                if (p->procs[to].slots_used >= p->cfg->slots) {
                    q->blocked_at = i;
                    ring_wait(&p->procs[to], q->index);
                    return;
                }
                p->procs[to].slots_used++;
            }
            ss_preq(r)->in_slot = 1;
        }
        depart(w, r);
        occ_change(w, q->device, -1);
    }
    double now = ss_now(w->eng);
    if (q->in) {
        ss_inst_busy_add(w, q->in, q->started_s, now);
        ss_inst_busy_mark(q->in, now);
        q->in->busy = 0;
    }
    q->busy = 0;
    q->free_since_s = now;
    q->nbatch = 0;
    try_start(q);
    update_view(q);
}

static void batch_done(ss_engine *eng, void *ctx, uint64_t arg)
{
    pproc *q = ctx;
    ss_world *w = q->w;
    double now = ss_now(eng);
    for (uint32_t i = 0; i < q->nbatch; i++) {
        ss_request *r = q->batch[i];
        if (q->blk) { /* Eq. 4.1 sums over the blocks: the dispatcher is not one */
            ss_preq(r)->overhead_s += ss_preq(r)->cur_o_s;
            ss_preq(r)->compute_s += ss_preq(r)->cur_m_s;
            ss_preq(r)->pipeline_s += now - ss_preq(r)->sent_s;
            if (ss_preq(r)->next != CLIENT) r->stage++;
        }
        ss_preq(r)->at_dispatcher = 0;
        /* The tensor this process read is released; the next hop's is held from now. */
        hold(w, q->index, ss_preq(r)->held_bytes, ss_preq(r)->held_in, -1);
    }
    uint32_t slots = 0;
    for (uint32_t i = 0; i < q->nbatch; i++) {
        slots += ss_preq(q->batch[i])->in_slot;
        ss_preq(q->batch[i])->in_slot = 0;
    }
    ring_release(q, slots);
    sends_from(q, 0, 0);
}

static void at_client(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_world *w = ctx;
    ss_pipe *p = w->pipe;
    ss_request *r = (ss_request *)(uintptr_t)arg;
    p->client_last_s = ss_now(eng); /* `wake`: it receives */
    if (w->tl) ss_tl_request_span(w, r, "hop -> client", ss_preq(r)->sent_s, ss_now(eng));
    if (r->measured) {
        ss_stat_add(&p->pipeline, ss_preq(r)->pipeline_s);
        ss_stat_add(&p->overhead, ss_preq(r)->overhead_s);
        ss_stat_add(&p->compute, ss_preq(r)->compute_s);
    }
    ss_world_finish(w, r);
}

void ss_pipe_delivered(ss_world *w, ss_request *r)
{
    if (ss_preq(r)->at == CLIENT)
        at_client(w->eng, w, (uint64_t)(uintptr_t)r);
    else if (w->pipe->comp)
        to_receiver(&w->pipe->procs[ss_preq(r)->at], r);
    else
        arrive(w->eng, &w->pipe->procs[ss_preq(r)->at], (uint64_t)(uintptr_t)r);
}
