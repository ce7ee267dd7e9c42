/* coldstart.c: replicas that cold-start on a topology's GPUs (scenario
 * `placement:`, docs/coldstart.md; Flashpoint, seed flashpoint.md §1.5-1.7).
 *
 * A replica the autoscaler starts goes through the stages of FP §1.5:
 *   data  - the model's bytes reach its host's RAM: already there (local),
 *           from a peer host's RAM, or from storage: a flow on the topology;
 *   load  - they are loaded into a process on the host: a flow over the
 *           host's memory link at the profile's load_bytes_per_s;
 *   send  - the weights go to the GPU: a flow from the host's RAM to the GPU
 *           over its PCIe links;
 * and then it is up.  Every stage is a flow on one max-min network of the
 * whole topology (core/flow.h), so concurrent downloads share the storage
 * link and the fabric, and concurrent sends share PCIe: no stage has a
 * constant duration.
 *
 * The placement plugin picks the hosts (this file picks each host's free
 * GPUs in index order) and a host's peer source; its flags say what is
 * kept: a host's model data after its replicas go (lazy eviction, LRU under
 * memory pressure, data before processes), a loaded process shared by the
 * host's GPUs (a new GPU there only takes the send), a GPU's weights after
 * its replica goes, and whether one download per host and model serves
 * every GPU there (the download manager).
 *
 * Ledgers: per host, RAM used by cached data, loaded processes and cold
 * starts in flight (against the host type's ram_gib, unlimited when not
 * given); per GPU, VRAM of its replica and of cached weights.  What a cold
 * start needs is reserved when it starts; a host that cannot make room is
 * not offered to the plugin.  Instances deployed from the start are warm
 * at time 0 and hold no host memory.
 *
 * This file runs the stages and answers the autoscaler; the ledgers are
 * coldstart_mem.c's, the flows coldstart_flows.c's, multicast
 * coldstart_mcast.c's, the plugin's view coldstart_view.c's, the results
 * coldstart_report.c's (coldstart_internal.h holds what they share). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario_deploy.h"
#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

int ss_cs_places(const ss_world *w, uint32_t m) { return w->cs && w->sc->placement->models[m]; }

int ss_cs_parts(const ss_world *w, uint32_t m)
{
    return w->cs && w->cs->parts && w->sc->partitioning && w->sc->partitioning->models[m];
}

/* ---- a cold start's stages ------------------------------------------------------------ */

static const char *const source_names[] = {"gpu", "local", "peer", "storage", "disk", "sleep"};

/* The cold start as a slice on its GPU's track, its stages nested. */
static void tl_span(ss_coldstart *cs, const ss_cold *c, double now)
{
    ss_world *w = cs->w;
    const char *model = w->sc->models[c->model].name;
    uint64_t id = (1ull << 40) + c->in->id; /* apart from request ids */
    char *name = ss_xasprintf("cold start %s", model);
    char *args = ss_xasprintf("\"source\":\"%s\",\"duration_s\":%.6f", source_names[c->source], now - c->born_s);
    ss_tl_span(w, c->in->device, "coldstart", name, id, c->born_s, now, args);
    free(name);
    free(args);
    if (c->source == SS_SOURCE_GPU || c->part) return;
    char *data = ss_xasprintf("data (%s)", source_names[c->source]);
    if (c->data_s > c->born_s) ss_tl_span(w, c->in->device, "coldstart", data, id, c->born_s, c->data_s, NULL);
    if (c->sent_s > c->data_s) ss_tl_span(w, c->in->device, "coldstart", "load", id, c->data_s, c->sent_s, NULL);
    ss_tl_span(w, c->in->device, "coldstart", "send", id, c->sent_s, now, NULL);
    free(data);
}

void cs_record(ss_coldstart *cs, const ss_cold *c, double now)
{
    if (cs->w->tl) tl_span(cs, c, now);
    if (cs->csv) {
        const ss_scenario *sc = cs->w->sc;
        double data_s = c->data_s > c->born_s ? c->data_s : c->born_s, sent_s = c->sent_s > data_s ? c->sent_s : data_s;
        fprintf(cs->csv, "%s,%u,%s,%s,%s,%s,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f\n", sc->variant, cs->w->rep,
                sc->models[c->model].name, ss_topo_node_name(cs->topo, cs->hosts[c->host].nic),
                sc->devices[c->in->device].name, source_names[c->source], c->born_s, now, now - c->born_s,
                data_s - c->born_s, sent_s - data_s, now - sent_s);
    }
    if (c->born_s < cs->w->warmup_end_s) return; /* begun in the warm-up: not measured */
    cs_model_stats *s = &cs->stats[c->model];
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->dur_s = ss_xrealloc(s->dur_s, s->cap * sizeof *s->dur_s);
        s->src = ss_xrealloc(s->src, s->cap * sizeof *s->src);
    }
    s->dur_s[s->n] = now - c->born_s;
    s->src[s->n++] = c->source;
}

void cs_tl_mark(ss_coldstart *cs, const ss_cold *c, const char *what, int with_source)
{
    ss_world *w = cs->w;
    if (!w->tl) return;
    char *msg = with_source ? ss_xasprintf("%s %s (from %s)", what, w->sc->models[c->model].name, source_names[c->source])
                            : ss_xasprintf("%s %s", what, w->sc->models[c->model].name);
    ss_tl_mark(w, c->in->device, msg);
    free(msg);
}

void cs_unpin(ss_coldstart *cs, hm_entry *e)
{
    e->pins--;
    e->used_s = ss_now(cs->w->eng);
    if ((cs->flags & SS_PLACE_KEEP_DATA) || e->pins) return;
    if (e->data == HAS_DATA) { /* nothing is kept */
        e->data = NO_DATA;
        cs_release(cs, e->host, cs_model_bytes(cs, e->model));
    }
    if (e->held) cs_held_drop(cs, e);
}

void cs_forget(ss_coldstart *cs, ss_cold *c)
{
    cs_unpin(cs, cs_hm_of(cs, c->host, c->model));
    c->in->cold = NULL;
    cs->live_colds--;
    free(c);
}

static void send_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    ss_world *w = cs->w;
    c->flow = 0;
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    /* Its own copy of the data becomes the host's cache, if the policy keeps one. */
    if (c->own_data && (cs->flags & SS_PLACE_KEEP_DATA) && e->data == NO_DATA) {
        e->data = HAS_DATA;
        c->own_bytes -= cs_model_bytes(cs, c->model);
    }
    cs_release(cs, c->host, c->own_bytes);
    cs_record(cs, c, now);
    cs_tl_mark(cs, c, "warm", 1);
    ss_instance *in = c->in;
    cs_forget(cs, c);
    ss_inst_up(w, in);
}

static void send(ss_coldstart *cs, ss_cold *c)
{
    c->stage = ST_SEND;
    c->sent_s = ss_now(cs->w->eng);
    if (c->data_s < c->born_s) c->data_s = c->sent_s; /* a sleeper, a loaded process: no data stage */
    c->flow = cs_route_flow(cs, cs->hosts[c->host].ram, cs->gpus[c->gpu].node, 0, cs_model_bytes(cs, c->model), 0,
                            send_done, c);
}

static void own_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    (void)now;
    ss_cold *c = ctx;
    c->flow = 0;
    send(c->in->world->cs, c);
}

static void shared_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now);

/* The data is on the host: load it (its own process, or the host's shared one). */
static void load(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    e->used_s = ss_now(cs->w->eng);
    c->data_s = e->used_s;
    if (!(cs->flags & SS_PLACE_KEEP_PROCESS)) {
        c->stage = ST_LOAD;
        c->flow = cs_load_flow(cs, c->host, c->gpu, c->model, cs_model_bytes(cs, c->model), own_load_done, c);
        return;
    }
    if (e->proc == LOADED) {
        send(cs, c);
        return;
    }
    c->stage = ST_PROC;
    c->next = e->waiters;
    e->waiters = c;
    if (e->proc == LOADING) return;
    e->proc = LOADING; /* PENDING: its bytes were reserved by the cold start that asked first */
    e->ld = cs_load_flow(cs, c->host, c->gpu, c->model, cs_model_bytes(cs, c->model), shared_load_done, e);
}

/* Wake the waiters of e that wait for `stage`, oldest first. */
static void wake(ss_coldstart *cs, hm_entry *e, uint8_t stage)
{
    ss_cold *mine = NULL, **pp = &e->waiters;
    while (*pp) {
        ss_cold *c = *pp;
        if (c->stage == stage) {
            *pp = c->next;
            c->next = mine;
            mine = c; /* the list was newest first: this reverses it */
        } else {
            pp = &c->next;
        }
    }
    while (mine) {
        ss_cold *c = mine;
        mine = c->next;
        c->next = NULL;
        if (stage == ST_DATA && c->part) cs_part_data(cs, c); /* a part that waited for the host's download */
        else if (stage == ST_DATA) load(cs, c);
        else send(cs, c);
    }
}

static void shared_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    e->ld = 0;
    e->proc = LOADED;
    e->used_s = now;
    wake(e->cs, e, ST_PROC);
}

void cs_own_download_over(ss_coldstart *cs, ss_cold *c, double bytes)
{
    c->flow = 0;
    if (c->born_s >= cs->w->warmup_end_s) cs->stats[c->model].bytes[c->source] += bytes;
    cs_upload_over(cs, c->peer, c->model);
    c->peer = NONE;
}

static void own_download_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    (void)now;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    cs_own_download_over(cs, c, cs_model_bytes(cs, c->model));
    load(cs, c);
}

static void disk_write_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    e->disk = ON_DISK;
    e->disk_used_s = now;
}

/* Keep a copy of the data that just came over the network on the host's
 * disk, if the policy keeps one and the disk has room. */
static void persist(ss_coldstart *cs, hm_entry *e)
{
    const cs_host *ho = &cs->hosts[e->host];
    if (!(cs->flags & SS_PLACE_KEEP_DISK) || ho->disk == NONE || e->disk != NO_DISK ||
        cs_make_disk_room(cs, e->host, cs_model_bytes(cs, e->model)) < 0)
        return;
    cs->hosts[e->host].disk_used_bytes += cs_model_bytes(cs, e->model);
    e->disk = WRITING;
    size_t n;
    const uint32_t *r = cs_route(cs, ho->ram, ho->disk, 0, &n, NULL);
    ss_flow_start(cs->net, r, n, cs_model_bytes(cs, e->model), NULL, disk_write_done, e);
}

/* A host's shared download (or its part of a chain, or its disk read) has arrived. */
void cs_delivered(hm_entry *e, double now)
{
    ss_coldstart *cs = e->cs;
    if (e->source == SS_SOURCE_PEER || e->source == SS_SOURCE_STORAGE) persist(cs, e);
    e->dl = 0;
    e->chained = 0;
    e->data = HAS_DATA;
    e->used_s = now;
    e->peer = NONE;
    if (e->dl_begun_s >= cs->w->warmup_end_s) /* measured as cold starts are: begun after the warm-up */
        cs->stats[e->model].bytes[e->source] += cs_model_bytes(cs, e->model);
    if (!e->pins && !(cs->flags & SS_PLACE_KEEP_DATA)) { /* everyone who wanted it left */
        e->data = NO_DATA;
        cs_release(cs, e->host, cs_model_bytes(cs, e->model));
        return;
    }
    wake(cs, e, ST_DATA);
}

static void disk_read_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    e->disk_reads--;
    e->disk_used_s = now;
    cs_delivered(e, now);
}

static void shared_download_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    hm_entry *e = ctx;
    cs_upload_over(e->cs, e->peer, e->model);
    cs_delivered(e, now);
}

/* The peer host h downloads model m from (NONE: storage), as the plugin says. */

/* Start c's stages; 1 if it is warm at once (its GPU kept the weights). */
int cs_begin(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    cs_gpu *g = &cs->gpus[c->gpu];
    double w = cs_model_bytes(cs, c->model);
    e->pins++;
    e->used_s = c->born_s;
    if ((cs->flags & SS_PLACE_KEEP_GPU) && g->cached == c->model) { /* its weights never left the GPU */
        g->cached = NONE;
        g->vram_used_bytes -= w;
        c->source = SS_SOURCE_GPU;
        return 1;
    }
    if (g->sleeper == c->model) { /* a sleeping replica wakes: its parked weights go back to the GPU */
        g->sleeper = NONE;
        c->own_bytes += w; /* they stay reserved until it is up */
        c->source = SS_SOURCE_SLEEP;
        send(cs, c);
        return 0;
    }
    cs_wake_none(cs, g); /* another model's sleeper yields the GPU */
    if (cs->flags & SS_PLACE_KEEP_PROCESS) { /* the host's shared process */
        if (e->proc == LOADING || e->proc == LOADED) {
            c->source = SS_SOURCE_LOCAL;
            load(cs, c);
            return 0;
        }
        if (e->proc == NO_PROC) { /* the process it will load; PENDING: another cold start reserved it */
            cs_reserve(cs, c->host, w);
            e->proc = PENDING;
        }
    } else {
        cs_reserve(cs, c->host, w); /* its own process */
        c->own_bytes += w;
    }
    if (e->data == HAS_DATA) {
        c->source = SS_SOURCE_LOCAL;
        load(cs, c);
        return 0;
    }
    c->stage = ST_DATA;
    if (e->data == DOWNLOADING && (cs->flags & (SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST))) { /* the download manager */
        c->source = e->source;
        c->next = e->waiters;
        e->waiters = c;
        return 0;
    }
    /* Its own disk comes before peers; with estimates, unless a peer is faster now. */
    uint32_t peer;
    uint8_t tier = cs_fetch_tier(cs, c->host, c->model, w, &peer);
    if (tier == SS_SOURCE_DISK) { /* read back from the host's disk, shared by its GPUs */
        cs_reserve(cs, c->host, w);
        e->data = DOWNLOADING;
        e->dl_begun_s = ss_now(cs->w->eng);
        e->source = c->source = SS_SOURCE_DISK;
        c->next = e->waiters;
        e->waiters = c;
        e->disk_reads++;
        e->dl = cs_disk_read(cs, c->host, w, disk_read_done, e);
        return 0;
    }
    if (tier == CS_TIER_CHAIN) { /* a chain brings it once the whole scale-up is placed */
        cs_reserve(cs, c->host, w);
        e->data = DOWNLOADING;
        e->dl_begun_s = ss_now(cs->w->eng);
        e->chained = 1;
        c->next = e->waiters;
        e->waiters = c;
        cs->pending[cs->npending++] = c->host;
        return 0;
    }
    c->source = tier;
    cs_reserve(cs, c->host, w); /* the data */
    if (cs->flags & SS_PLACE_SHARE_DOWNLOAD) {
        e->data = DOWNLOADING;
        e->dl_begun_s = ss_now(cs->w->eng);
        e->source = c->source;
        e->peer = peer;
        c->next = e->waiters;
        e->waiters = c;
        e->dl = cs_transfer(cs, c->host, c->model, w, peer, shared_download_done, e);
        return 0;
    }
    c->own_bytes += w;
    c->own_data = 1;
    c->peer = peer;
    c->flow = cs_transfer(cs, c->host, c->model, w, peer, own_download_done, c);
    return 0;
}


/* ---- the autoscaler's side ------------------------------------------------------------------ */

/* Which free GPU of a host a replica of m takes: one that keeps its
 * weights (0), then one with its sleeper (1), then one with nobody's
 * sleeper (2), then any (3); the lowest index among equals. */
static int gpu_rank(const cs_gpu *g, uint32_t m)
{
    return g->cached == m ? 0 : g->sleeper == m ? 1 : g->sleeper == NONE ? 2 : 3;
}

uint32_t cs_place_hosts(ss_coldstart *cs, uint32_t m, uint32_t k, uint32_t **hosts_out)
{
    ss_world *w = cs->w;
    uint32_t n = 0;
    *hosts_out = NULL;
    for (uint32_t h = 0; h < cs->nhosts; h++) { /* hosts with a free GPU and room for the cold start */
        ss_place_host_view v;
        cs_view_of(cs, h, m, &v);
        if (!v.free_gpus || (!v.gpu_cached && !v.sleeping && cs_need_bytes(cs, h, m) > v.free_ram_bytes)) continue;
        if (cs->flags & SS_PLACE_ESTIMATE) v.est_start_s = cs_est_start_s(cs, h, m, &v);
        cs->views[n++] = v;
    }
    if (!n || !k) return 0;
    ss_place_ctx ctx = {.model = m, .model_bytes = cs_model_bytes(cs, m), .now_s = ss_now(w->eng), .want = k,
                        .hosts = cs->views, .nhosts = n};
    uint32_t got = cs->pl.pol->ops.placement.place(cs->state, &ctx, cs->picks);
    if (got > k) got = k;
    /* Views are consumed as replicas start: copy the picks' hosts first. */
    uint32_t *hosts = ss_xmalloc((got ? got : 1) * sizeof *hosts);
    for (uint32_t i = 0; i < got; i++) hosts[i] = cs->picks[i] < n ? cs->views[cs->picks[i]].host : NONE;
    *hosts_out = hosts;
    return got;
}

uint32_t cs_best_gpu(const ss_coldstart *cs, uint32_t h, uint32_t m)
{
    const cs_host *ho = &cs->hosts[h];
    uint32_t pick = NONE;
    for (uint32_t q = 0; q < ho->ngpus; q++) {
        const cs_gpu *g = &cs->gpus[ho->gpu0 + q];
        if (!cs_gpu_free(cs, g, m)) continue;
        if (pick == NONE || gpu_rank(g, m) < gpu_rank(&cs->gpus[pick], m)) pick = ho->gpu0 + q;
    }
    return pick;
}

int cs_gpu_fits(ss_coldstart *cs, uint32_t h, uint32_t gpu, uint32_t m)
{
    return gpu_rank(&cs->gpus[gpu], m) <= 1 || cs_need_bytes(cs, h, m) <= cs_ram_free(cs, h);
}

ss_instance *cs_new_replica(ss_coldstart *cs, uint32_t m, uint32_t gpu)
{
    ss_world *w = cs->w;
    cs_gpu *g = &cs->gpus[gpu];
    if (g->cached != NONE && g->cached != m) { /* another model's weights make way */
        g->vram_used_bytes -= cs_model_bytes(cs, g->cached);
        g->cached = NONE;
    }
    return ss_inst_create(w, cs->deploy[(size_t)m * w->sc->ndevices + g->device], ss_now(w->eng));
}

/* A whole replica of m on host h's GPU `gpu`: its cold start begins. */
static void start_whole(ss_coldstart *cs, uint32_t m, uint32_t h, uint32_t gpu)
{
    ss_world *w = cs->w;
    double now = ss_now(w->eng);
    ss_instance *in = cs_new_replica(cs, m, gpu);
    ss_cold *c = ss_xcalloc(1, sizeof *c);
    *c = (ss_cold){.in = in, .host = h, .gpu = gpu, .model = m, .born_s = now, .peer = NONE};
    in->cold = c;
    cs->live_colds++;
    int warm = cs_begin(cs, c);
    cs_tl_mark(cs, c, "cold start", 0); /* its source: a multicast's is known once the scale-up is placed */
    if (warm) { /* from the GPU's own copy */
        cs_record(cs, c, now);
        cs_forget(cs, c);
        ss_inst_up(w, in);
    }
}

uint32_t cs_start_whole(ss_coldstart *cs, uint32_t m, uint32_t h, uint32_t gpu)
{
    if (!cs_gpu_fits(cs, h, gpu, m)) return 0;
    start_whole(cs, m, h, gpu);
    return 1;
}

uint32_t ss_cs_grow(ss_world *w, uint32_t m, uint32_t k)
{
    ss_coldstart *cs = w->cs;
    if (ss_cs_parts(w, m) && k >= 2) return cs_grow_parts(cs, m, k);
    uint32_t *hosts;
    uint32_t got = cs_place_hosts(cs, m, k, &hosts), started = 0;
    for (uint32_t i = 0; i < got; i++) {
        uint32_t h = hosts[i];
        if (h == NONE) continue;
        /* its free GPU, best first by gpu_rank (kept weights, its sleeper, no sleeper), then the lowest */
        uint32_t pick = cs_best_gpu(cs, h, m);
        if (pick == NONE) continue; /* the plugin named a host more often than it has free GPUs */
        started += cs_start_whole(cs, m, h, pick);
    }
    free(hosts);
    if (cs->npending) cs_multicast(cs, m);
    return started;
}

void ss_cs_born(ss_world *w, ss_instance *in)
{
    ss_coldstart *cs = w->cs;
    uint32_t gi = cs->gpu_of_device[in->device];
    if (gi == NONE) return;
    cs->gpus[gi].live++;
    cs_hm_of(cs, cs->gpus[gi].host, in->model)->replicas++;
    const ss_model_cfg *mc = &w->sc->models[in->model];
    cs->gpus[gi].vram_used_bytes += mc->weights_bytes + mc->runtime_vram_bytes;
}

/* A cold start that will not finish: undo what it holds. */
static void abandon(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    if (c->flow) ss_flow_cancel(cs->net, c->flow);
    if (c->flow && c->stage == ST_DATA) cs_upload_over(cs, c->peer, c->model);
    for (ss_cold **pp = &e->waiters; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    cs_release(cs, c->host, c->own_bytes);
    if (e->pins == 1) { /* the last one that wanted what the host was getting */
        if (e->proc == PENDING) {
            e->proc = NO_PROC;
            cs_release(cs, c->host, cs_model_bytes(cs, c->model));
        }
        if (e->data == DOWNLOADING && !e->chained && !(cs->flags & SS_PLACE_KEEP_DATA)) {
            ss_flow_cancel(cs->net, e->dl);
            if (e->source == SS_SOURCE_DISK) e->disk_reads--;
            e->dl = 0;
            cs_upload_over(cs, e->peer, c->model);
            e->peer = NONE;
            e->data = NO_DATA;
            cs_release(cs, c->host, cs_model_bytes(cs, c->model));
        }
    }
    cs_forget(cs, c);
}

void ss_cs_gone(ss_world *w, ss_instance *in, int stopped)
{
    ss_coldstart *cs = w->cs;
    uint32_t gi = cs->gpu_of_device[in->device];
    if (gi == NONE) return;
    cs_gpu *g = &cs->gpus[gi];
    const ss_model_cfg *mc = &w->sc->models[in->model];
    int was_warm = !in->cold && !in->pp; /* a part's weights are not a whole model to keep */
    if (in->cold && in->cold->part) cs_part_abandon(cs, in->cold);
    else if (in->cold) abandon(cs, in->cold);
    g->live--;
    cs_hm_of(cs, g->host, in->model)->replicas--;
    g->vram_used_bytes -= mc->weights_bytes + mc->runtime_vram_bytes;
    if (was_warm && (cs->flags & SS_PLACE_KEEP_GPU) && ss_cs_places(w, in->model)) { /* the weights stay */
        g->cached = in->model;
        g->vram_used_bytes += mc->weights_bytes;
    }
    /* Scaled down, it sleeps: the weights park in host RAM, if there is room. */
    if (was_warm && stopped && (cs->flags & SS_PLACE_SLEEP) && ss_cs_places(w, in->model) &&
        cs_make_room(cs, g->host, mc->weights_bytes) == 0) {
        g->sleeper = in->model;
        g->slept_s = ss_now(w->eng);
        cs->hosts[g->host].used_bytes += mc->weights_bytes;
    }
    if (g->vram_used_bytes < 1e-6) g->vram_used_bytes = 0;
}


/* ---- building and freeing ------------------------------------------------------------------ */

int ss_cs_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_placement_cfg *cfg = sc->placement;
    ss_coldstart *cs = ss_xcalloc(1, sizeof *cs);
    w->cs = cs;
    w->hooks.cs_born = ss_cs_born;
    w->hooks.cs_gone = ss_cs_gone;
    w->hooks.pp_exec_s = ss_pp_exec_s;
    w->hooks.pp_started = ss_pp_started;
    w->hooks.pp_exec_done = ss_pp_exec_done;
    w->hooks.pp_pull = ss_pp_pull;
    w->hooks.pp_may_stop = ss_pp_may_stop;
    w->hooks.pp_gone = ss_pp_gone;
    cs->w = w;
    cs->cfg = cfg;
    cs->topo = sc->topo;
    if (ss_world_load_policy(w, &cfg->policy, SS_KIND_PLACEMENT, &cs->pl, &cs->state, &cs->rng, "policy/placement",
                             err) < 0)
        return -1;
    cs->flags = cs->pl.pol->ops.placement.flags;
    cs->net = w->fnet; /* the substrate's: cold starts share the fabric with every other transfer */
    cs->nhosts = ss_topo_nhosts(sc->topo);
    cs->hosts = ss_xcalloc(cs->nhosts + 1, sizeof *cs->hosts);
    cs->gpu_of_device = ss_xmalloc((sc->ndevices + 1) * sizeof *cs->gpu_of_device);
    for (size_t d = 0; d < sc->ndevices; d++) cs->gpu_of_device[d] = NONE;
    cs->deploy = ss_xmalloc((sc->nmodels * sc->ndevices + 1) * sizeof *cs->deploy);
    for (size_t i = 0; i < sc->nmodels * sc->ndevices; i++) cs->deploy[i] = NONE;
    for (size_t d = sc->ndeploys; d-- > 0;) /* the first entry of a model on a device */
        if (cfg->models[sc->deploys[d].model])
            cs->deploy[(size_t)sc->deploys[d].model * sc->ndevices + sc->deploys[d].device] = (uint32_t)d;
    /* GPUs: the scenario's devices that are the topology's GPUs, host by host */
    cs->gpus = ss_xcalloc(sc->ndevices + 1, sizeof *cs->gpus);
    for (uint32_t h = 0; h < cs->nhosts; h++) {
        cs_host *ho = &cs->hosts[h];
        ho->nic = ss_topo_host(sc->topo, h);
        ho->ram = ss_topo_host_ram(sc->topo, h);
        ho->cap_bytes = ss_topo_host_ram_bytes(sc->topo, h);
        ho->disk = ss_topo_host_disk(sc->topo, h);
        ho->disk_cap_bytes = ss_topo_host_disk_bytes(sc->topo, h);
        ho->gpu0 = (uint32_t)cs->ngpus;
        uint32_t first;
        size_t n = ss_topo_route(sc->topo, ho->nic, cfg->storage, 0, &first, 1, NULL);
        ho->rack = n && n != SS_TOPO_NO_ROUTE ? ss_topo_link_to(sc->topo, first) : NONE;
    }
    for (size_t d = 0; d < sc->ndevices; d++) {
        uint32_t node = ss_topo_find(sc->topo, sc->devices[d].name);
        if (node == SS_TOPO_NONE || ss_topo_node_kind_of(sc->topo, node) != SS_TN_GPU) continue;
        uint32_t h = ss_topo_node_host(sc->topo, node);
        if (cs->hosts[h].ngpus && cs->hosts[h].gpu0 + cs->hosts[h].ngpus != cs->ngpus) continue; /* not in host order */
        if (!cs->hosts[h].ngpus) cs->hosts[h].gpu0 = (uint32_t)cs->ngpus;
        cs->hosts[h].ngpus++;
        cs->gpu_of_device[d] = (uint32_t)cs->ngpus;
        cs->gpus[cs->ngpus++] = (cs_gpu){.device = (uint32_t)d, .node = node, .host = h, .cached = NONE, .sleeper = NONE,
                                         .vram_cap_bytes = sc->devices[d].vram_bytes};
    }
    cs->hm = ss_xcalloc(cs->nhosts * sc->nmodels + 1, sizeof *cs->hm);
    for (uint32_t h = 0; h < cs->nhosts; h++)
        for (uint32_t m = 0; m < sc->nmodels; m++)
            *cs_hm_of(cs, h, m) = (hm_entry){.cs = cs, .host = h, .model = m, .peer = NONE};
    cs->stats = ss_xcalloc(sc->nmodels, sizeof *cs->stats);
    cs->views = ss_xcalloc(cs->nhosts + 1, sizeof *cs->views);
    cs->picks = ss_xcalloc(sc->ndevices + 1, sizeof *cs->picks);
    cs->pending = ss_xcalloc(cs->nhosts + 1, sizeof *cs->pending);
    return sc->partitioning ? cs_parts_build(cs, err) : 0;
}


void ss_cs_free(ss_world *w)
{
    ss_coldstart *cs = w->cs;
    if (!cs) return;
    for (size_t i = 0; i < w->ninst; i++) free(w->inst[i]->cold);
    if (cs->pl.pol && cs->pl.pol->fini && cs->state) cs->pl.pol->fini(cs->state);
    if (cs->pl.handle) ss_plugin_unload(&cs->pl);
    if (cs->rng) gsl_rng_free(cs->rng);
    for (size_t m = 0; cs->stats && m < w->sc->nmodels; m++) {
        free(cs->stats[m].dur_s);
        free(cs->stats[m].src);
    }
    free(cs->stats);
    free(cs->hosts);
    free(cs->gpus);
    free(cs->gpu_of_device);
    free(cs->deploy);
    for (size_t i = 0; cs->hm && i < cs->nhosts * w->sc->nmodels; i++)
        if (cs->hm[i].held) cs_held_drop(cs, &cs->hm[i]);
    free(cs->hm);
    free(cs->route);
    free(cs->views);
    free(cs->picks);
    free(cs->pending);
    free(cs->chain_parts);
    cs_free_chains(cs); /* a run cut short */
    cs_parts_free(cs);
    free(cs);
    w->cs = NULL;
}
