/* coldstart_partsrc.c: where a partitioned replica's part gets its bytes
 * (docs/partitioning.md, "What happens" 3 and 5; issue 41 item 2): the
 * tiers a whole replica's cold start uses (coldstart.c), under the
 * placement plugin in force - the GPU's kept weights, the host's RAM (the
 * model's data or process, or the layers parts and completions brought
 * there), the host's one shared download in progress (FP §5.2.4), then for
 * the layers the host lacks only: its disk, a holder (multicast's sender),
 * the plugin's peer, storage - and its own load and send. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <servesim/partition.h>

#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

/* ---- a part's cold start: its bytes from the tiers a whole replica's come from ------------ */

static int in_set(const ss_cold *c, uint32_t l)
{
    int in = l >= c->lo && l < c->hi;
    return c->part == PART_REST ? !in : in;
}

static cs_held *held_of(ss_coldstart *cs, hm_entry *e)
{
    if (e->held) return e->held;
    uint32_t n = cs_part_model(cs, e->model)->nlayers;
    cs_held *hd = ss_xcalloc(1, sizeof *hd + n);
    hd->n = n;
    hd->by = ss_xcalloc(n + 1, sizeof *hd->by);
    e->held = hd;
    return hd;
}

static void part_send(ss_coldstart *cs, ss_cold *c);

static void part_send_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    ss_cold *c = ctx;
    c->flow = 0;
    cs_part_warm(c->in->world->cs, c, now);
}

static void part_send(ss_coldstart *cs, ss_cold *c)
{
    c->stage = ST_SEND;
    c->sent_s = ss_now(cs->w->eng);
    c->flow = cs_route_flow(cs, cs->hosts[c->host].ram, cs->gpus[c->gpu].node, 0, c->bytes, 0, part_send_done, c);
}

/* A part that read the host's copy of the model no longer depends on it. */
static void unpin(ss_coldstart *cs, ss_cold *c)
{
    if (!c->own_data) return; /* own_data here: it pinned what the host holds */
    c->own_data = 0;
    cs_unpin(cs, cs_hm_of(cs, c->host, c->model));
}

static void pin(ss_coldstart *cs, ss_cold *c)
{
    if (c->own_data) return;
    c->own_data = 1;
    cs_hm_of(cs, c->host, c->model)->pins++;
}

static void part_load_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    (void)now;
    ss_cold *c = ctx;
    ss_coldstart *cs = c->in->world->cs;
    c->flow = 0;
    unpin(cs, c);
    part_send(cs, c);
}

/* Its bytes are in the host's RAM: its own process loads them. */
static void part_load(ss_coldstart *cs, ss_cold *c, int reserve)
{
    if (reserve) {
        cs_reserve(cs, c->host, c->bytes);
        c->own_bytes += c->bytes;
    }
    c->stage = ST_LOAD;
    c->data_s = ss_now(cs->w->eng);
    c->flow = cs_load_flow(cs, c->host, c->gpu, c->model, c->bytes, part_load_done, c);
}

static void wake_list(ss_coldstart *cs, ss_cold *list)
{
    while (list) {
        ss_cold *c = list;
        list = c->next;
        c->next = NULL;
        cs_part_data(cs, c);
    }
}

static void wake_held(ss_coldstart *cs, hm_entry *e)
{
    if (!e->held) return;
    ss_cold *list = e->held->waiters;
    e->held->waiters = NULL;
    wake_list(cs, list);
}

/* A part's fetch has arrived: its layers are held (all of them: the host
 * holds the whole model's data), and it and the parts waiting look again. */
void cs_part_fetched(ss_coldstart *cs, ss_cold *c, double now)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    if (c->source == SS_SOURCE_DISK) {
        e->disk_reads--;
        e->disk_used_s = now;
    }
    cs_own_download_over(cs, c, c->fetch_bytes);
    c->fetch_bytes = 0;
    cs_held *hd = e->held;
    if (!hd) { /* nothing is kept or shared: it fetched its own copy */
        part_load(cs, c, 1);
        return;
    }
    for (uint32_t l = 0; l < hd->n; l++)
        if (hd->state[l] == LAYER_COMING && hd->by[l] == c) {
            hd->state[l] = LAYER_HELD;
            hd->by[l] = NULL;
            hd->held++;
        }
    ss_cold *waiters = NULL;
    if (hd->held == hd->n && e->data == NO_DATA) { /* its layers make up the model: the host's data */
        e->data = HAS_DATA;
        e->used_s = now;
        cs->hosts[e->host].used_bytes += cs_model_bytes(cs, e->model) - e->part_bytes;
        e->part_bytes = 0;
        waiters = hd->waiters;
        free(hd->by);
        free(hd);
        e->held = NULL;
    }
    cs_part_data(cs, c);
    wake_list(cs, waiters);
    wake_held(cs, e);
}

static void part_fetch_done(ss_engine *eng, void *ctx, ss_flow_id id, double now)
{
    (void)eng;
    (void)id;
    ss_cold *c = ctx;
    c->flow = 0;
    cs_part_fetched(c->in->world->cs, c, now);
}

/* Do a and b (of one model) fetch the same layers? */
static int same_fetch(ss_coldstart *cs, const ss_cold *a, const ss_cold *b)
{
    if (a->model != b->model || a->fetch_bytes != b->fetch_bytes) return 0;
    const cs_held *x = cs_hm_of(cs, a->host, a->model)->held, *y = cs_hm_of(cs, b->host, b->model)->held;
    for (uint32_t l = 0; l < x->n; l++)
        if ((x->state[l] == LAYER_COMING && x->by[l] == a) != (y->state[l] == LAYER_COMING && y->by[l] == b)) return 0;
    return 1;
}

void cs_part_batch(ss_coldstart *cs, int batch)
{
    cs->batching = batch;
    if (batch) return;
    ss_cold **left = cs->chain_parts, **group = ss_xmalloc((cs->nchain_parts + 1) * sizeof *group);
    size_t n = cs->nchain_parts;
    cs->chain_parts = NULL;
    cs->nchain_parts = cs->chain_parts_cap = 0;
    while (n) { /* the first waiting and every other that fetches the same layers: their chains */
        size_t ng = 0, keep = 0;
        ss_cold *first = left[0];
        for (size_t i = 0; i < n; i++) {
            if (same_fetch(cs, first, left[i])) group[ng++] = left[i];
            else left[keep++] = left[i];
        }
        n = keep;
        cs_chain_parts(cs, first->model, group, (uint32_t)ng, first->fetch_bytes);
    }
    free(group);
    free(left);
}

/* Fetch `bytes` that host h lacks for c, from the tier a whole replica's
 * bytes would come from (its disk, a holder for a chain, the plugin's peer,
 * storage); into the host's held layers, or c's own copy with nothing kept
 * or shared. */
static void part_fetch(ss_coldstart *cs, ss_cold *c, double bytes)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    uint32_t peer;
    uint8_t tier = cs_fetch_tier(cs, c->host, c->model, bytes, &peer);
    c->stage = ST_DATA;
    c->fetch_bytes = bytes;
    cs_reserve(cs, c->host, bytes);
    if (e->held) e->part_bytes += bytes;
    else c->own_bytes += bytes;
    if (tier == CS_TIER_CHAIN) { /* a chain brings it once the scale-up is placed (at once outside one) */
        c->source = SS_SOURCE_STORAGE; /* until the chain names its sender */
        if (cs->nchain_parts == cs->chain_parts_cap) {
            cs->chain_parts_cap = cs->chain_parts_cap ? 2 * cs->chain_parts_cap : 8;
            cs->chain_parts = ss_xrealloc(cs->chain_parts, cs->chain_parts_cap * sizeof *cs->chain_parts);
        }
        cs->chain_parts[cs->nchain_parts++] = c;
        if (!cs->batching) cs_part_batch(cs, 0);
        return;
    }
    c->source = tier;
    if (tier == SS_SOURCE_DISK) {
        e->disk_reads++;
        c->flow = cs_disk_read(cs, c->host, bytes, part_fetch_done, c);
        return;
    }
    c->peer = peer;
    c->flow = cs_transfer(cs, c->host, c->model, bytes, peer, part_fetch_done, c);
}

/* c->source, unless a tier was named already (SS_SOURCE_GPU: none yet). */
static void source_is(ss_cold *c, uint8_t source)
{
    if (c->source == SS_SOURCE_GPU) c->source = source;
}

void cs_part_data(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    if (c->flow || c->fetch_bytes > 0) return; /* its fetch is in flight: it looks again when that arrives */
    if (e->proc == LOADED) { /* the host's process holds the model: only the send */
        source_is(c, SS_SOURCE_LOCAL);
        unpin(cs, c);
        c->data_s = ss_now(cs->w->eng);
        part_send(cs, c);
        return;
    }
    if (e->data == HAS_DATA) { /* the host holds the model's data, or its download just came */
        source_is(c, SS_SOURCE_LOCAL);
        pin(cs, c);
        part_load(cs, c, 1);
        return;
    }
    if (e->data == DOWNLOADING && (cs->flags & (SS_PLACE_SHARE_DOWNLOAD | SS_PLACE_MULTICAST))) {
        pin(cs, c); /* the download manager: the host's one download brings its bytes */
        source_is(c, e->source);
        c->stage = ST_DATA;
        c->next = e->waiters;
        e->waiters = c;
        return;
    }
    if (!cs_tracks_data(cs)) { /* nothing is kept or shared: its own copy */
        part_fetch(cs, c, c->bytes);
        return;
    }
    pin(cs, c);
    cs_held *hd = held_of(cs, e);
    const ss_part_model *pm = cs_part_model(cs, c->model);
    double missing = 0;
    ss_cold *other = NULL;
    for (uint32_t l = 0; l < hd->n; l++) {
        if (!in_set(c, l)) continue;
        if (hd->state[l] == LAYER_ABSENT && !(pm->layers[l].weights_bytes > 0)) { /* nothing to fetch */
            hd->state[l] = LAYER_HELD;
            hd->held++;
        } else if (hd->state[l] == LAYER_ABSENT) {
            hd->state[l] = LAYER_COMING;
            hd->by[l] = c;
            missing += pm->layers[l].weights_bytes;
        } else if (hd->state[l] == LAYER_COMING && hd->by[l] != c) {
            other = hd->by[l];
        }
    }
    if (missing > 0) { /* only what the host lacks */
        part_fetch(cs, c, missing);
        return;
    }
    if (other) { /* another cold start on the host fetches some of its layers */
        source_is(c, other->source);
        c->stage = ST_DATA;
        c->next = hd->waiters;
        hd->waiters = c;
        return;
    }
    source_is(c, SS_SOURCE_LOCAL); /* every layer was there */
    part_load(cs, c, 1);
}

static void part_begin(ss_coldstart *cs, ss_cold *c)
{
    cs_gpu *g = &cs->gpus[c->gpu];
    if (g->cached == c->model) { /* the GPU kept the whole model's weights: its part, and the rest, are there */
        g->cached = NONE;
        g->vram_used_bytes -= cs_model_bytes(cs, c->model);
        c->source = SS_SOURCE_GPU;
        cs_part_warm(cs, c, ss_now(cs->w->eng));
        return;
    }
    cs_wake_none(cs, g); /* a sleeper yields the GPU */
    cs_part_data(cs, c);
}

static void unlist(ss_cold **list, ss_cold *c)
{
    for (ss_cold **pp = list; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            return;
        }
}

void cs_part_abandon(ss_coldstart *cs, ss_cold *c)
{
    hm_entry *e = cs_hm_of(cs, c->host, c->model);
    if (c->flow) ss_flow_cancel(cs->net, c->flow);
    if (c->flow && c->stage == ST_DATA) {
        cs_upload_over(cs, c->peer, c->model);
        if (c->source == SS_SOURCE_DISK) e->disk_reads--;
    }
    if (!c->flow && c->fetch_bytes > 0) cs_chain_forget(cs, c); /* its chain goes on for the others */
    unlist(&e->waiters, c);
    if (e->held) {
        unlist(&e->held->waiters, c);
        for (uint32_t l = 0; l < e->held->n; l++) /* what it was fetching is absent again */
            if (e->held->state[l] == LAYER_COMING && e->held->by[l] == c) {
                e->held->state[l] = LAYER_ABSENT;
                e->held->by[l] = NULL;
            }
        if (c->fetch_bytes > 0) {
            e->part_bytes -= c->fetch_bytes;
            cs_release(cs, c->host, c->fetch_bytes);
        }
    }
    unpin(cs, c);
    cs_release(cs, c->host, c->own_bytes);
    c->in->cold = NULL;
    cs->live_colds--;
    free(c);
    wake_held(cs, e); /* parts that waited for its layers fetch them */
}

void cs_part_cold(ss_coldstart *cs, ss_instance *in, uint32_t host, uint32_t gpu, uint8_t kind, double bytes,
                  uint32_t lo, uint32_t hi)
{
    ss_cold *c = ss_xcalloc(1, sizeof *c);
    *c = (ss_cold){.in = in, .host = host, .gpu = gpu, .model = in->model, .born_s = ss_now(cs->w->eng),
                   .peer = NONE, .part = kind, .bytes = bytes, .lo = lo, .hi = hi};
    in->cold = c;
    cs->live_colds++;
    part_begin(cs, c);
}
