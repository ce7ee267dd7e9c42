/* coldstart_view.c: what the placement plugin sees (policy.h): a view per
 * host, the simulator's estimate of a cold start's duration there
 * (SS_PLACE_ESTIMATE: the fastest tier holding the model at the rates its
 * links would give a new transfer), and the question of which peer a host
 * downloads from. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

/* ---- what the plugin sees ---------------------------------------------------------------- */

static uint32_t holds(const hm_entry *e)
{
    if (e->proc == LOADED || e->proc == LOADING) return SS_HOLDS_PROCESS;
    if (e->data == HAS_DATA) return SS_HOLDS_DATA;
    return e->data == DOWNLOADING ? SS_HOLDS_DOWNLOADING : SS_HOLDS_NOTHING;
}

/* Can GPU g take a replica of m now? */
int cs_gpu_free(const ss_coldstart *cs, const cs_gpu *g, uint32_t m)
{
    return g->live == 0 && cs->deploy[(size_t)m * cs->w->sc->ndevices + g->device] != NONE;
}

void cs_view_of(ss_coldstart *cs, uint32_t h, uint32_t m, ss_place_host_view *v)
{
    const cs_host *ho = &cs->hosts[h];
    const hm_entry *e = cs_hm_of(cs, h, m);
    memset(v, 0, sizeof *v);
    v->host = h;
    v->rack = ho->rack;
    v->data = holds(e);
    v->uploads = ho->uploads;
    v->free_ram_bytes = cs_ram_free(cs, h);
    for (uint32_t k = 0; k < ho->ngpus; k++) {
        const cs_gpu *g = &cs->gpus[ho->gpu0 + k];
        if (cs_gpu_free(cs, g, m)) {
            v->free_gpus++;
            v->gpu_cached += g->cached == m;
            v->sleeping += g->sleeper == m;
        }
    }
    v->replicas = e->replicas;
    v->on_disk = e->disk == ON_DISK;
}

/* ---- estimates (SS_PLACE_ESTIMATE) -------------------------------------------------------------- */

/* Seconds `bytes` from src to dst would take now: the route's smallest
 * capacity / (flows on it + 1), capped at cap_bps (0: none). */
double cs_transfer_est_s(ss_coldstart *cs, uint32_t src, uint32_t dst, double cap_bps, double bytes)
{
    size_t n;
    const uint32_t *r = cs_route(cs, src, dst, 0, &n, NULL);
    double rate = cap_bps > 0 ? cap_bps : INFINITY;
    for (size_t i = 0; i < n; i++) {
        double s = ss_topo_link_capacity_bps(cs->topo, r[i]) / (double)(ss_link_flows(cs->net, r[i]) + 1);
        if (s < rate) rate = s;
    }
    return isfinite(rate) ? bytes * 8 / (rate * cs->cfg->goodput) : 0;
}

double cs_fetch_est_s(ss_coldstart *cs, uint32_t peer, uint32_t h, double bytes)
{
    uint32_t dst = cs->hosts[h].ram;
    return cs_transfer_est_s(cs, cs_source_node(cs, peer), dst, cs_source_cap_bps(cs, peer, dst), bytes);
}

/* The fastest way a replica of m could start on host h now. */
double cs_est_start_s(ss_coldstart *cs, uint32_t h, uint32_t m, const ss_place_host_view *v)
{
    const cs_host *ho = &cs->hosts[h];
    const hm_entry *e = cs_hm_of(cs, h, m);
    double w = cs_model_bytes(cs, m);
    if (v->gpu_cached) return 0;
    uint32_t gpu = NONE;
    for (uint32_t k = 0; k < ho->ngpus && gpu == NONE; k++)
        if (cs_gpu_free(cs, &cs->gpus[ho->gpu0 + k], m)) gpu = cs->gpus[ho->gpu0 + k].node;
    double send = gpu == NONE ? 0 : cs_transfer_est_s(cs, ho->ram, gpu, 0, w);
    if (v->sleeping || ((cs->flags & SS_PLACE_KEEP_PROCESS) && e->proc >= LOADING)) return send;
    double after = w / cs->w->sc->models[m].load_bytes_per_s + send;
    if (e->data != NO_DATA) return after;
    double best = cs_fetch_est_s(cs, NONE, h, w);
    if (e->disk == ON_DISK) {
        double t = cs_transfer_est_s(cs, ho->disk, ho->ram, 0, w);
        if (t < best) best = t;
    }
    for (uint32_t p = 0; p < cs->nhosts; p++) {
        const hm_entry *q = cs_hm_of(cs, p, m);
        if (p == h || !(q->data == HAS_DATA || q->proc == LOADED)) continue;
        double t = cs_fetch_est_s(cs, p, h, w);
        if (t < best) best = t;
    }
    return best + after;
}

uint32_t cs_pick_source(ss_coldstart *cs, uint32_t h, uint32_t m)
{
    const ss_placement_ops *ops = &cs->pl.pol->ops.placement;
    if (!ops->source) return NONE;
    ss_place_host_view to;
    cs_view_of(cs, h, m, &to);
    uint32_t n = 0;
    for (uint32_t p = 0; p < cs->nhosts; p++) {
        const hm_entry *e = cs_hm_of(cs, p, m);
        if (p == h || !(e->data == HAS_DATA || e->proc == LOADED)) continue;
        cs_view_of(cs, p, m, &cs->views[n++]);
    }
    if (!n) return NONE;
    double *t = ss_xcalloc(n, sizeof *t);
    for (uint32_t k = 0; (cs->flags & SS_PLACE_ESTIMATE) && k < n; k++)
        t[k] = cs_fetch_est_s(cs, cs->views[k].host, h, cs_model_bytes(cs, m));
    ss_source_ctx ctx = {.model = m, .model_bytes = cs_model_bytes(cs, m), .now_s = ss_now(cs->w->eng), .to = &to,
                         .holders = cs->views, .transfer_s = t, .nholders = n};
    uint32_t k = ops->source(cs->state, &ctx);
    free(t);
    return k < n ? cs->views[k].host : NONE; /* anything else: storage */
}

uint8_t cs_fetch_tier(ss_coldstart *cs, uint32_t h, uint32_t m, double bytes, uint32_t *peer)
{
    const hm_entry *e = cs_hm_of(cs, h, m);
    int disk = e->disk == ON_DISK, asked = 0;
    *peer = NONE;
    if (disk && (cs->flags & SS_PLACE_ESTIMATE) && !(cs->flags & SS_PLACE_MULTICAST)) {
        *peer = cs_pick_source(cs, h, m);
        asked = 1;
        const cs_host *ho = &cs->hosts[h];
        disk = *peer == NONE ||
               cs_transfer_est_s(cs, ho->disk, ho->ram, 0, bytes) <= cs_fetch_est_s(cs, *peer, h, bytes);
    }
    if (disk) return SS_SOURCE_DISK;
    if (cs->flags & SS_PLACE_MULTICAST) return CS_TIER_CHAIN;
    if (!asked) *peer = cs_pick_source(cs, h, m);
    return *peer == NONE ? SS_SOURCE_STORAGE : SS_SOURCE_PEER;
}
