/* coldstart_mem.c: the hosts' RAM and disk ledgers of cold starts
 * (docs/coldstart.md): what a cold start reserves, what it gives back, and
 * eviction under pressure - least recently used first, model data before
 * sleeping replicas before loaded processes (FP §1.7's order, the seed's
 * [ASSUMPTION] for the rest), never what a cold start, a peer's read or a
 * disk write depends on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

/* ---- host RAM: reservation and LRU eviction ---------------------------------------- */

/* May e's RAM be evicted?  Not while a cold start depends on it, a peer
 * reads it, or it is being written to disk or filled. */
static int unpinned(const hm_entry *e)
{
    return !e->pins && !e->uploads && e->disk != WRITING && e->data != DOWNLOADING && e->proc != LOADING &&
           e->proc != PENDING;
}

/* Bytes host h could free by eviction now. */
static double evictable(ss_coldstart *cs, uint32_t h)
{
    double sum = 0;
    for (uint32_t m = 0; m < cs->w->sc->nmodels; m++) {
        const hm_entry *e = cs_hm_of(cs, h, m);
        if (unpinned(e)) sum += cs_hm_bytes(cs, e, m);
    }
    const cs_host *ho = &cs->hosts[h];
    for (uint32_t k = 0; k < ho->ngpus; k++)
        if (cs->gpus[ho->gpu0 + k].sleeper != NONE) sum += cs_model_bytes(cs, cs->gpus[ho->gpu0 + k].sleeper);
    return sum;
}

double cs_ram_free(ss_coldstart *cs, uint32_t h)
{
    const cs_host *ho = &cs->hosts[h];
    return ho->cap_bytes > 0 ? ho->cap_bytes - ho->used_bytes + evictable(cs, h) : INFINITY;
}

void cs_wake_none(ss_coldstart *cs, cs_gpu *g)
{
    if (g->sleeper == NONE) return;
    cs->hosts[g->host].used_bytes -= cs_model_bytes(cs, g->sleeper);
    g->sleeper = NONE;
}

/* The least recently used thing pass `pass` may evict on host h: 0 data
 * (a whole model's, or the layers partitioned replicas left), 1 a sleeper,
 * 2 a loaded process.  1 if one was evicted. */
static int evict_one(ss_coldstart *cs, uint32_t h, int pass)
{
    cs_host *ho = &cs->hosts[h];
    if (pass == 1) {
        cs_gpu *lru = NULL;
        for (uint32_t k = 0; k < ho->ngpus; k++) {
            cs_gpu *g = &cs->gpus[ho->gpu0 + k];
            if (g->sleeper != NONE && (!lru || g->slept_s < lru->slept_s)) lru = g;
        }
        if (lru) cs_wake_none(cs, lru);
        return lru != NULL;
    }
    hm_entry *lru = NULL;
    for (uint32_t m = 0; m < cs->w->sc->nmodels; m++) {
        hm_entry *e = cs_hm_of(cs, h, m);
        int has = pass == 0 ? e->data == HAS_DATA || e->held : e->proc == LOADED;
        if (has && unpinned(e) && (!lru || e->used_s < lru->used_s)) lru = e;
    }
    if (!lru) return 0;
    if (pass == 0 && lru->data != HAS_DATA) { /* the layers partitioned replicas left */
        cs_held_drop(cs, lru);
        return 1;
    }
    if (pass == 0) lru->data = NO_DATA;
    else lru->proc = NO_PROC;
    ho->used_bytes -= cs_model_bytes(cs, lru->model);
    return 1;
}

/* Evict least recently used data first, then sleepers, then processes,
 * until `need` more bytes fit.  0 if they fit, -1 if they cannot. */
int cs_make_room(ss_coldstart *cs, uint32_t h, double need)
{
    cs_host *ho = &cs->hosts[h];
    if (ho->cap_bytes <= 0) return 0;
    for (int pass = 0; pass < 3; pass++)
        while (ho->used_bytes + need > ho->cap_bytes * (1 + 1e-12) && evict_one(cs, h, pass)) {
        }
    return ho->used_bytes + need > ho->cap_bytes * (1 + 1e-12) ? -1 : 0;
}

/* The same on the host's disk: copies nobody reads, least recently used first. */
int cs_make_disk_room(ss_coldstart *cs, uint32_t h, double need)
{
    cs_host *ho = &cs->hosts[h];
    while (ho->disk_used_bytes + need > ho->disk_cap_bytes * (1 + 1e-12)) {
        hm_entry *lru = NULL;
        for (uint32_t m = 0; m < cs->w->sc->nmodels; m++) {
            hm_entry *e = cs_hm_of(cs, h, m);
            if (e->disk == ON_DISK && !e->disk_reads && (!lru || e->disk_used_s < lru->disk_used_s)) lru = e;
        }
        if (!lru) return -1;
        lru->disk = NO_DISK;
        ho->disk_used_bytes -= cs_model_bytes(cs, lru->model);
    }
    return 0;
}

void cs_reserve(ss_coldstart *cs, uint32_t h, double bytes)
{
    cs_make_room(cs, h, bytes); /* the host was chosen because it fits */
    cs->hosts[h].used_bytes += bytes;
}

void cs_release(ss_coldstart *cs, uint32_t h, double bytes)
{
    cs->hosts[h].used_bytes -= bytes;
    if (cs->hosts[h].used_bytes < 1e-6) cs->hosts[h].used_bytes = 0;
}

/* RAM a new cold start of m on host h needs beyond what h holds. */
double cs_need_bytes(ss_coldstart *cs, uint32_t h, uint32_t m)
{
    const hm_entry *e = cs_hm_of(cs, h, m);
    double w = cs_model_bytes(cs, m);
    if (cs->flags & SS_PLACE_KEEP_PROCESS)
        return (e->proc != NO_PROC ? 0 : w) + (e->data != NO_DATA || e->proc >= LOADING ? 0 : w);
    return w + (e->data != NO_DATA ? 0 : w); /* its own process, and the data unless there */
}

/* The layers partitioned replicas left on a host (struct cs_held) go. */
void cs_held_drop(ss_coldstart *cs, hm_entry *e)
{
    cs_release(cs, e->host, e->part_bytes);
    e->part_bytes = 0;
    free(e->held->by);
    free(e->held);
    e->held = NULL;
}
