/* pipeline_build.c: building a block pipeline onto a world (its processes,
 * the transport plugin, the ledgers, the network of cross-host hops, the
 * extra result columns), filling its results and freeing it; the serving
 * path is pipeline.c.  The model is described in pipeline.h and
 * docs/blockflow.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/blockmodel.h"
#include "net/topo.h"
#include "pipeline/pipeline_internal.h"

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
            ss_preq(&probe)->batch = 1;
            const pproc *q = &p->procs[a];
            uint32_t da = q->device, db = to == CLIENT ? da : p->procs[to].device;
            ss_hop h = {.tensor_bytes = q->blk ? q->blk->out_bytes_per_sample : 0, .batch = 1, .from_kind = q->kind,
                        .to_kind = to == CLIENT ? SS_HOP_CLIENT : p->procs[to].kind, .same_gpu = da == db,
                        .same_host = p->dev_host[da] == p->dev_host[db]};
            h.gpu_path = ss_pipe_gpu_path(w, da, db);
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
    int rc = ss_pipe_net_new(w, pairs, nd, cfg->transport.file, cfg->transport.line, cfg->transport.col, ss_pipe_delivered,
                             &p->net, err);
    free(pairs);
    return rc;
}

static void pipe_warmup_over(ss_world *w);

/* ---- CPU use under run queues ----------------------------------------------- */

/* Each host's counters now into p->usage at offset `at` (0: the window's start, 2: its end). */
static void usage_take(ss_pipe *p, size_t at)
{
    for (size_t h = 0; h < p->nhosts; h++) {
        double *u = &p->usage[4 * h + at];
        if (ss_pcomp_host_usage(p->comp, (uint32_t)h, &u[0], &u[1]) < 0) u[0] = u[1] = NAN;
    }
}

/* The event at the window's start (arg 0) or end (arg 2). */
static void usage_at(ss_engine *eng, void *ctx, uint64_t at)
{
    (void)eng;
    usage_take(ctx, (size_t)at);
}

/* The columns cpu_busy_cores_<host> and cpu_waiting_threads_<host> of the hosts
 * whose CPU runs run queues: over the measured window, the time-average number
 * of cores running a thread and of threads waiting for a core, as the probe
 * reads them from /proc (docs/calibration.md).  The window's end is
 * duration_s; the requests still in flight then drain uncounted. */
static void usage_declare(ss_world *w)
{
    ss_pipe *p = w->pipe;
    if (!p->comp || !p->cfg->run_queues) return;
    p->usage = ss_xcalloc(4 * p->nhosts, sizeof *p->usage);
    int any = 0;
    for (size_t h = 0; h < p->nhosts; h++) {
        double *u = &p->usage[4 * h];
        u[2] = u[3] = NAN; /* the window's end, not yet */
        if (ss_pcomp_host_usage(p->comp, (uint32_t)h, &u[0], &u[1]) < 0) {
            u[0] = u[1] = NAN; /* no run queues on this host: no columns */
            continue;
        }
        any = 1;
        char *n = col_name(p->hosts[h]), *cb = ss_xasprintf("cpu_busy_cores_%s", n),
             *cq = ss_xasprintf("cpu_waiting_threads_%s", n);
        ss_world_declare_extra(w, cb);
        ss_world_declare_extra(w, cq);
        free(cb);
        free(cq);
        free(n);
    }
    if (!any) return;
    if (w->sc->warmup_s > 0) ss_schedule(w->eng, w->sc->warmup_s, usage_at, p, 0);
    ss_schedule(w->eng, w->sc->duration_s, usage_at, p, 2);
}

static size_t usage_result(const ss_world *w, ss_run_result *r, const char *const *cols, size_t k)
{
    const ss_pipe *p = w->pipe;
    if (!p->usage) return k;
    double window_s = w->sc->duration_s - w->warmup_end_s;
    for (size_t h = 0; h < p->nhosts; h++) {
        const double *u = &p->usage[4 * h];
        if (isnan(u[0])) continue; /* no run queues on this host: no columns */
        int ok = window_s > 0 && !isnan(u[2]);
        ss_run_result_extra(r, cols[k++], ok ? (u[2] - u[0]) / window_s : NAN);
        ss_run_result_extra(r, cols[k++], ok ? (u[3] - u[1]) / window_s : NAN);
    }
    return k;
}

/* ---- GPU kernel-busy time (compute: shared) ------------------------------------ */

/* Does device d get a gpu_util column: a GPU some block process computes on? */
static int gpu_util_dev(const ss_pipe *p, const ss_scenario *sc, size_t d)
{
    if (!p->comp || sc->devices[d].kind != SS_DEV_GPU) return 0;
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].blk && p->procs[i].device == d) return 1;
    return 0;
}

/* Each GPU's kernel-busy time now: the window's start. */
static void gpu_busy_take(ss_pipe *p)
{
    for (size_t d = 0; d < p->vram.n; d++) /* the VRAM ledger has a slot per device */
        p->gpu_busy0_s[d] = p->comp ? ss_pcomp_gpu_busy_s(p->comp, (uint32_t)d) : -1;
}

static void gpu_busy_at(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    (void)arg;
    gpu_busy_take(ctx);
}

/* The columns gpu_util_<gpu> under compute: shared: the fraction of the
 * measured window (end of warm-up to the last request done, as the links'
 * link_util_*) during which a kernel ran on the GPU (docs/blockflow.md,
 * "GPU-busy time vs host time").  Under fixed compute the GPU is no
 * resource: no columns. */
static void gpu_util_declare(ss_world *w)
{
    ss_pipe *p = w->pipe;
    const ss_scenario *sc = w->sc;
    if (!p->comp) return;
    p->gpu_busy0_s = ss_xcalloc(sc->ndevices + 1, sizeof *p->gpu_busy0_s);
    gpu_busy_take(p);
    for (size_t d = 0; d < sc->ndevices; d++) {
        if (!gpu_util_dev(p, sc, d)) continue;
        char *n = col_name(sc->devices[d].name), *c = ss_xasprintf("gpu_util_%s", n);
        ss_world_declare_extra(w, c);
        free(c);
        free(n);
    }
    if (sc->warmup_s > 0) ss_schedule(w->eng, sc->warmup_s, gpu_busy_at, p, 0);
}

static size_t gpu_util_result(const ss_world *w, ss_run_result *r, const char *const *cols, size_t k)
{
    const ss_pipe *p = w->pipe;
    if (!p->gpu_busy0_s) return k;
    double span = w->last_done_s - w->warmup_end_s;
    for (size_t d = 0; d < w->sc->ndevices; d++) {
        if (!gpu_util_dev(p, w->sc, d)) continue;
        double busy = ss_pcomp_gpu_busy_s(p->comp, (uint32_t)d) - p->gpu_busy0_s[d];
        ss_run_result_extra(r, cols[k++], span > 0 ? busy / span : NAN);
    }
    return k;
}

int ss_pipe_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_pipeline_cfg *cfg = sc->pipeline;
    ss_pipe *p = ss_xcalloc(1, sizeof *p);
    w->pipe = p;
    w->route_hook = ss_pipe_route;
    w->warmup_hook = pipe_warmup_over;
    p->cfg = cfg;
    if (ss_world_load_policy(w, &cfg->transport, SS_KIND_TRANSPORT, &p->tp, &p->tp_state, &p->tp_rng,
                             "policy/transport", err) < 0)
        return -1;
    size_t nd = sc->ndevices;
    p->dev_host = ss_xcalloc(nd, sizeof *p->dev_host);
    for (size_t d = 0; d < nd; d++) p->dev_host[d] = host_of(p, sc->devices[d].name);
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
        q->blocked_at = UINT32_MAX;
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
    if (cfg->compute_shared) { /* the hosts' CPUs and the GPUs on the solver (pipeline_compute.h) */
        double *cores = ss_xcalloc(p->nhosts ? p->nhosts : 1, sizeof *cores);
        uint8_t *gpu = ss_xcalloc(nd ? nd : 1, 1);
        for (size_t h = 0; h < p->nhosts; h++) cores[h] = ss_pipeline_host_cores(sc, p->hosts[h]);
        for (size_t d = 0; d < nd; d++) gpu[d] = sc->devices[d].kind == SS_DEV_GPU;
        p->comp = ss_pcomp_new(w->eng, p->nhosts, cores, nd, p->dev_host, gpu);
        if (cfg->stack_prob > 0)
            ss_pcomp_set_stacking(p->comp, cfg->stack_prob, cfg->stack_mean_s,
                                  ss_rng_stream(sc->seed, w->rep, "pipeline/stacking"));
        ss_pcomp_set_interference(p->comp, cfg->corun_factor, cfg->slice_factor);
        if (cfg->ngpu_wake) ss_pcomp_set_gpu_wake(p->comp, cfg->ngpu_wake, cfg->gpu_wake_idle_s, cfg->gpu_wake_factor);
        if (cfg->mem_shared_bytes_per_s > 0) ss_pcomp_set_memory(p->comp, cfg->mem_copy_bytes_per_s, cfg->mem_shared_bytes_per_s);
        for (size_t h = 0; h < p->nhosts; h++)
            ss_pcomp_set_time_factor(p->comp, (uint32_t)h, ss_pipeline_host_time_factor(sc, p->hosts[h]));
        if (cfg->run_queues) {
            ss_runq_params rq = {cfg->rq_slice_s, cfg->rq_tick_s, cfg->rq_migration_cost_s, cfg->rq_balance_ticks, -1,
                                 cfg->rq_stack_prob, cfg->rq_idle_scan_pct, cfg->rq_util_halflife_s};
            ss_pcomp_set_run_queues(p->comp, &rq, ss_rng_stream(sc->seed, w->rep, "pipeline/run_queues"));
        }
        free(cores);
        free(gpu);
        ss_pipe_threads_init(p);
    }
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
    usage_declare(w);
    gpu_util_declare(w);
    p->vram_base_mib = ss_xmalloc((p->vram.n + 1) * sizeof *p->vram_base_mib);
    p->ram_base_mib = ss_xmalloc((p->ram.n + 1) * sizeof *p->ram_base_mib);
    memcpy(p->vram_base_mib, p->vram.cur_mib, p->vram.n * sizeof *p->vram_base_mib);
    memcpy(p->ram_base_mib, p->ram.cur_mib, p->ram.n * sizeof *p->ram_base_mib);
    return 0;
}

/* A ledger back to what the processes hold for the whole run? */
static char *ledger_back(const ss_ledger *l, const double *base, const char *what)
{
    for (size_t i = 0; i < l->n; i++)
        if (fabs(l->cur_mib[i] - base[i]) > 1e-6 * (1 + fabs(base[i])))
            return ss_xasprintf("block pipeline: %s slot %zu holds %.6f MiB after the run, %.6f before it", what, i,
                                l->cur_mib[i], base[i]);
    return NULL;
}

char *ss_pipe_check(const ss_world *w)
{
    const ss_pipe *p = w->pipe;
    char *m = ledger_back(&p->vram, p->vram_base_mib, "VRAM");
    return m ? m : ledger_back(&p->ram, p->ram_base_mib, "host RAM");
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
    k = usage_result(w, r, cols, k);
    k = gpu_util_result(w, r, cols, k);
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
    if (p->usage) usage_take(p, 0);
    if (p->gpu_busy0_s) gpu_busy_take(p);
}

void ss_pipe_free(ss_world *w)
{
    ss_pipe *p = w->pipe;
    if (!p) return;
    for (size_t i = 0; i < p->nprocs; i++) {
        ss_pc_thread_free(&p->procs[i].io);
        ss_pc_thread_free(&p->procs[i].rx);
        free(p->procs[i].ring);
        free(p->procs[i].waiters);
        free(p->procs[i].batch);
        free(p->procs[i].ctx_opened);
        free(p->procs[i].name);
    }
    free(p->procs);
    ss_pipe_net_free(p->net);
    ss_pcomp_free(p->comp);
    for (size_t h = 0; h < p->nhosts; h++) free(p->hosts[h]);
    free(p->hosts);
    free(p->dev_host);
    free(p->gpu_busy0_s);
    free(p->dev_occ);
    free(p->dev_occ_since);
    free(p->dev_occ_s);
    free(p->vram_base_mib);
    free(p->usage);
    free(p->ram_base_mib);
    ss_ledger_free(&p->vram);
    ss_ledger_free(&p->ram);
    if (p->tp.pol && p->tp.pol->fini && p->tp_state) p->tp.pol->fini(p->tp_state);
    if (p->tp.handle) ss_plugin_unload(&p->tp);
    if (p->tp_rng) gsl_rng_free(p->tp_rng);
    free(p);
    w->pipe = NULL;
}
