/* coldstart_flows.c: the routes and flows of cold starts on the
 * topology's one max-min network: model transfers (from storage, with its
 * per-connection cap, or from a peer's RAM, with peer_mbps) and the load on
 * a host (over its memory link, at the profile's rate). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

/* ---- routes and flows --------------------------------------------------------------- */

const uint32_t *cs_route(ss_coldstart *cs, uint32_t src, uint32_t dst, uint64_t key, size_t *n, double *lat_s)
{
    size_t k = ss_topo_route(cs->topo, src, dst, key, cs->route, cs->route_cap, lat_s);
    if (k > cs->route_cap) {
        cs->route_cap = k;
        cs->route = ss_xrealloc(cs->route, k * sizeof *cs->route);
        k = ss_topo_route(cs->topo, src, dst, key, cs->route, cs->route_cap, lat_s);
    }
    *n = k;
    return cs->route;
}

uint32_t cs_source_node(const ss_coldstart *cs, uint32_t peer)
{
    return peer == NONE ? cs->cfg->storage : cs->hosts[peer].ram;
}

double cs_source_cap_bps(const ss_coldstart *cs, uint32_t peer, uint32_t dst)
{
    double cap = peer == NONE ? ss_topo_flow_cap_bps(cs->topo, cs->cfg->storage, dst) : cs->cfg->peer_cap_bps;
    return isfinite(cap) ? cap : 0;
}

/* A transfer of `bytes` of model m's data to host h's RAM, from peer host
 * `peer` or from storage (NONE). */
ss_flow_id cs_transfer(ss_coldstart *cs, uint32_t h, uint32_t m, double bytes, uint32_t peer, ss_flow_done done,
                       void *ctx)
{
    uint32_t dst = cs->hosts[h].ram;
    size_t n;
    double lat = 0;
    const uint32_t *r = cs_route(cs, cs_source_node(cs, peer), dst, (uint64_t)h << 32 | m, &n, &lat);
    ss_flow_opts o = {.goodput = cs->cfg->goodput, .latency_s = lat, .cap_bps = cs_source_cap_bps(cs, peer, dst),
                      .setup_s = cs->cfg->conn_setup_s};
    cs_upload_begin(cs, peer, m);
    return ss_flow_start(cs->net, r, n, bytes, &o, done, ctx);
}

void cs_upload_begin(ss_coldstart *cs, uint32_t peer, uint32_t m)
{
    if (peer == NONE) return;
    cs->hosts[peer].uploads++;
    cs_hm_of(cs, peer, m)->uploads++;
}

void cs_upload_over(ss_coldstart *cs, uint32_t peer, uint32_t m)
{
    if (peer == NONE) return;
    cs->hosts[peer].uploads--;
    cs_hm_of(cs, peer, m)->uploads--;
}

ss_flow_id cs_route_flow(ss_coldstart *cs, uint32_t src, uint32_t dst, uint64_t key, double bytes, double extra_s,
                         ss_flow_done done, void *ctx)
{
    size_t n;
    double lat = 0;
    const uint32_t *r = cs_route(cs, src, dst, key, &n, &lat);
    ss_flow_opts o = {.latency_s = lat + extra_s};
    return ss_flow_start(cs->net, r, n, bytes, &o, done, ctx);
}

/* Loading `bytes` of model m on host h: over its memory link, at the profile's rate. */
ss_flow_id cs_load_flow(ss_coldstart *cs, uint32_t h, uint32_t gpu, uint32_t m, double bytes, ss_flow_done done,
                        void *ctx)
{
    size_t n;
    const uint32_t *r = cs_route(cs, cs->hosts[h].ram, cs->gpus[gpu].node, 0, &n, NULL);
    ss_flow_opts o = {.cap_bps = 8 * cs->w->sc->models[m].load_bytes_per_s};
    return ss_flow_start(cs->net, r, n ? 1 : 0, bytes, &o, done, ctx);
}

ss_flow_id cs_disk_read(ss_coldstart *cs, uint32_t h, double bytes, ss_flow_done done, void *ctx)
{
    size_t n;
    const uint32_t *r = cs_route(cs, cs->hosts[h].disk, cs->hosts[h].ram, 0, &n, NULL);
    return ss_flow_start(cs->net, r, n, bytes, NULL, done, ctx);
}
