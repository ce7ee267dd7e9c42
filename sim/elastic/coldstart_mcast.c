/* coldstart_mcast.c: multicast by TCP chains (FP §1.8, §2.9;
 * SS_PLACE_MULTICAST): the hosts of one scale-up that need a model, split
 * evenly in host order over the hosts holding it (else storage), one chain
 * per sender on ss_flow_chain_start; each receiver's part arrives as a
 * shared download.  The parts of partitioned replicas that need the same
 * layers ride chains the same way, each receiver's bytes arriving as the
 * part's fetch (coldstart_partsrc.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

/* ---- multicast: TCP chains (FP §1.8, §2.9) ------------------------------------------------- */

typedef struct cs_chain {
    ss_coldstart *cs;
    struct cs_chain *prev, *next;
    uint32_t model, sender, n;
    ss_cold **colds;         /* parts' chains: per receiver, the part's cold start (NULL once abandoned); else NULL */
    uint32_t hosts[];        /* the receivers, in chain order */
} cs_chain;

static void chain_done(ss_engine *eng, void *ctx, ss_flow_id id, size_t receiver, double now)
{
    (void)eng;
    (void)id;
    cs_chain *ch = ctx;
    ss_coldstart *cs = ch->cs;
    if (!ch->colds) cs_delivered(cs_hm_of(cs, ch->hosts[receiver - 1], ch->model), now);
    else if (ch->colds[receiver - 1]) cs_part_fetched(cs, ch->colds[receiver - 1], now);
    if (receiver < ch->n) return;
    cs_upload_over(cs, ch->sender, ch->model);
    if (ch->prev) ch->prev->next = ch->next;
    else cs->chains = ch->next;
    if (ch->next) ch->next->prev = ch->prev;
    free(ch->colds);
    free(ch);
}

void cs_chain_forget(ss_coldstart *cs, const ss_cold *c)
{
    for (cs_chain *ch = cs->chains; ch; ch = ch->next)
        for (uint32_t i = 0; ch->colds && i < ch->n; i++)
            if (ch->colds[i] == c) ch->colds[i] = NULL;
}

/* One chain of `bytes`: sender (a host, or storage if NONE) -> hosts[0] ->
 * ...; the parts' cold starts colds[i] receive them, or (colds NULL) the
 * hosts' shared downloads. */
static void chain(ss_coldstart *cs, uint32_t m, uint32_t sender, const uint32_t *hosts, ss_cold *const *colds,
                  uint32_t n, double bytes)
{
    cs_chain *ch = ss_xcalloc(1, sizeof *ch + n * sizeof *ch->hosts);
    *ch = (cs_chain){.cs = cs, .model = m, .sender = sender, .n = n, .next = cs->chains};
    memcpy(ch->hosts, hosts, n * sizeof *hosts);
    if (colds) {
        ch->colds = ss_xmalloc(n * sizeof *ch->colds);
        memcpy(ch->colds, colds, n * sizeof *colds);
    }
    if (cs->chains) cs->chains->prev = ch;
    cs->chains = ch;
    ss_chain_hop *hops = ss_xcalloc(n, sizeof *hops);
    uint32_t src = cs_source_node(cs, sender);
    uint8_t kind = sender == NONE ? SS_SOURCE_STORAGE : SS_SOURCE_PEER;
    for (uint32_t i = 0; i < n; i++) {
        size_t k;
        const uint32_t *r = cs_route(cs, i ? cs->hosts[hosts[i - 1]].ram : src, cs->hosts[hosts[i]].ram,
                                  (uint64_t)hosts[i] << 32 | m, &k, &hops[i].latency_s);
        uint32_t *copy = ss_xmalloc((k ? k : 1) * sizeof *copy);
        memcpy(copy, r, k * sizeof *copy);
        hops[i] = (ss_chain_hop){.links = copy, .n_links = k, .latency_s = hops[i].latency_s};
        if (colds) {
            colds[i]->source = kind;
            continue;
        }
        hm_entry *e = cs_hm_of(cs, hosts[i], m);
        e->source = kind;
        e->peer = NONE;
        for (ss_cold *c = e->waiters; c; c = c->next) c->source = kind;
    }
    /* bytes flow once the first hop is connected (the relays' sockets hold them while the next
     * hops connect), relays forward at most at relay_mbps, and each holds chain_lag_bytes before
     * the next hop has them (core/xfer_law.h, docs/transfers.md) */
    ss_flow_opts o = {.goodput = cs->cfg->goodput, .setup_s = cs->cfg->conn_setup_s,
                      .hop_lag_bytes = cs->cfg->chain_lag_bytes};
    o.cap_bps = cs_source_cap_bps(cs, sender, cs->hosts[hosts[0]].ram);
    if (n >= 2 && cs->cfg->relay_cap_bps > 0 && (o.cap_bps == 0 || cs->cfg->relay_cap_bps < o.cap_bps))
        o.cap_bps = cs->cfg->relay_cap_bps;
    cs_upload_begin(cs, sender, m);
    ss_flow_id id = ss_flow_chain_start(cs->net, hops, n, bytes, &o, cs->cfg->chain_ttfb_s, chain_done, ch);
    for (uint32_t i = 0; i < n; i++) {
        if (!colds) cs_hm_of(cs, hosts[i], m)->dl = id;
        free((void *)hops[i].links);
    }
    free(hops);
}

static int by_index(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

uint32_t cs_chain_senders(const ss_coldstart *cs, uint32_t m, uint32_t *out)
{
    uint32_t ns = 0;
    for (uint32_t p = 0; p < cs->nhosts; p++) {
        const hm_entry *e = &cs->hm[(size_t)p * cs->w->sc->nmodels + m];
        if (e->data == HAS_DATA || e->proc == LOADED) out[ns++] = p;
    }
    return ns;
}

/* nr receivers (in host order) split evenly over the hosts whose RAM
 * holds m, else storage: a chain of `bytes` per sender. */
static void split(ss_coldstart *cs, uint32_t m, const uint32_t *hosts, ss_cold *const *colds, uint32_t nr,
                  double bytes)
{
    uint32_t *senders = ss_xmalloc((cs->nhosts + 1) * sizeof *senders);
    uint32_t ns = cs_chain_senders(cs, m, senders);
    if (!ns) senders[ns++] = NONE;
    if (ns > nr) ns = nr;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t lo = (uint32_t)((uint64_t)k * nr / ns), hi = (uint32_t)((uint64_t)(k + 1) * nr / ns);
        if (hi > lo) chain(cs, m, senders[k], hosts + lo, colds ? colds + lo : NULL, hi - lo, bytes);
    }
    free(senders);
}

/* The scale-up's hosts that need the data: chains from its holders. */
void cs_multicast(ss_coldstart *cs, uint32_t m)
{
    qsort(cs->pending, cs->npending, sizeof *cs->pending, by_index);
    split(cs, m, cs->pending, NULL, (uint32_t)cs->npending, cs_model_bytes(cs, m));
    cs->npending = 0;
}

static int by_host(const void *x, const void *y)
{
    const ss_cold *a = *(ss_cold *const *)x, *b = *(ss_cold *const *)y;
    return a->host < b->host ? -1 : a->host > b->host;
}

void cs_chain_parts(ss_coldstart *cs, uint32_t m, ss_cold **colds, uint32_t n, double bytes)
{
    qsort(colds, n, sizeof *colds, by_host);
    uint32_t *hosts = ss_xmalloc((n ? n : 1) * sizeof *hosts);
    for (uint32_t i = 0; i < n; i++) hosts[i] = colds[i]->host;
    split(cs, m, hosts, colds, n, bytes);
    free(hosts);
}

void cs_free_chains(ss_coldstart *cs)
{
    while (cs->chains) {
        cs_chain *ch = cs->chains;
        cs->chains = ch->next;
        free(ch->colds);
        free(ch);
    }
}
