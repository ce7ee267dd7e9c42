/* coldstart_report.c: what cold starts leave behind: the result columns
 * (per placed model, per link tier), the cold-starts CSV, and the checks
 * of the end of a run (ledgers back to what hosts and GPUs hold). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "core/columns.h"
#include "serve/world.h"
#include "elastic/coldstart_internal.h"
#include "elastic/elastic.h"

/* ---- building, checks, results ------------------------------------------------------------ */

/* The per-model columns, in the order of ss_cs_result's values. */
static const char *const cols[] = {"coldstarts_%s",         "coldstart_mean_s_%s", "coldstart_p99_s_%s",
                                   "coldstarts_gpu_%s",     "coldstarts_local_%s", "coldstarts_peer_%s",
                                   "coldstarts_storage_%s", "coldstarts_disk_%s",  "coldstarts_sleep_%s",
                                   "model_gb_peer_%s",      "model_gb_storage_%s", "model_gb_disk_%s"};

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

void ss_world_coldstarts(ss_world *w, FILE *fp)
{
    if (w->cs) w->cs->csv = fp;
}

/* duration_s = data_s (waiting for and moving the data to the host) + load_s + send_s */
void ss_world_coldstarts_header(FILE *fp)
{
    ss_columns_header(fp, SS_CSV_COLDSTARTS, SS_COLS_BASE);
}

void ss_cs_declare(ss_world *w)
{
    const ss_scenario *sc = w->sc;
    const ss_placement_cfg *cfg = sc->placement;
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        if (!cfg->models[m]) continue;
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
            char *col = ss_xasprintf(cols[i], sc->models[m].name);
            ss_world_declare_extra(w, col);
            free(col);
        }
    }
    for (int t = 0; t < SS_TL_COUNT; t++) {
        if (t != SS_TL_STORAGE && t != SS_TL_HOST_LEAF && t != SS_TL_LEAF_SPINE) continue;
        char *col = ss_xasprintf("net_gb_%s", ss_topo_tier_name((ss_topo_tier)t));
        ss_world_declare_extra(w, col);
        free(col);
    }
}

char *ss_cs_check(const ss_world *w)
{
    const ss_coldstart *cs = w->cs;
    if (cs->live_colds) return ss_xasprintf("%zu cold starts still in progress after the run", cs->live_colds);
    if (ss_flownet_active(cs->net))
        return ss_xasprintf("%zu transfers over the fabric still in flight after the run", ss_flownet_active(cs->net));
    for (uint32_t h = 0; h < cs->nhosts; h++) {
        double held = 0, disk = 0;
        for (uint32_t m = 0; m < w->sc->nmodels; m++) {
            const hm_entry *e = &cs->hm[(size_t)h * w->sc->nmodels + m];
            if (e->pins || e->uploads || e->waiters)
                return ss_xasprintf("host %u still pins model '%s' after the run", h, w->sc->models[m].name);
            if (e->held) { /* the layers parts left: none coming, their bytes what the ledger says */
                const ss_part_model *pm = cs_part_model(cs, m);
                double sum = 0;
                for (uint32_t l = 0; l < e->held->n; l++) {
                    if (e->held->state[l] == LAYER_COMING || e->held->waiters)
                        return ss_xasprintf("host %u still fetches layers of model '%s' after the run", h,
                                            w->sc->models[m].name);
                    sum += (e->held->state[l] == LAYER_HELD) * pm->layers[l].weights_bytes;
                }
                if (fabs(sum - e->part_bytes) > 1 + 1e-9 * sum)
                    return ss_xasprintf("host %u holds %.0f bytes of model '%s' layer by layer, its ledger %.0f", h,
                                        sum, w->sc->models[m].name, e->part_bytes);
            }
            held += ((e->data != NO_DATA) + (e->proc != NO_PROC)) * w->sc->models[m].weights_bytes + e->part_bytes;
            disk += (e->disk != NO_DISK) * w->sc->models[m].weights_bytes;
            if (e->disk_reads) return ss_xasprintf("host %u still reads model '%s' from disk after the run", h,
                                                   w->sc->models[m].name);
        }
        for (uint32_t k = 0; k < cs->hosts[h].ngpus; k++)
            if (cs->gpus[cs->hosts[h].gpu0 + k].sleeper != NONE)
                held += w->sc->models[cs->gpus[cs->hosts[h].gpu0 + k].sleeper].weights_bytes;
        if (fabs(disk - cs->hosts[h].disk_used_bytes) > 1 + 1e-9 * disk ||
            (cs->hosts[h].disk != NONE && disk > cs->hosts[h].disk_cap_bytes * (1 + 1e-9)))
            return ss_xasprintf("host %u's disk ledger holds %.0f bytes, its copies %.0f", h,
                                cs->hosts[h].disk_used_bytes, disk);
        if (fabs(held - cs->hosts[h].used_bytes) > 1 + 1e-9 * held)
            return ss_xasprintf("host %u's RAM ledger holds %.0f bytes, its cache %.0f", h, cs->hosts[h].used_bytes,
                                held);
        if (cs->hosts[h].cap_bytes > 0 && cs->hosts[h].used_bytes > cs->hosts[h].cap_bytes * (1 + 1e-9))
            return ss_xasprintf("host %u's RAM ledger is over its capacity", h);
    }
    /* What each GPU should hold: its live replicas (one pass over them), then its kept weights. */
    double *want = ss_xcalloc(cs->ngpus + 1, sizeof *want);
    for (size_t k = 0; k < w->ninst; k++) {
        const ss_instance *in = w->inst[k];
        uint32_t gi = cs->gpu_of_device[in->device];
        if (gi != NONE && in->state != SS_INST_STOPPED && in->state != SS_INST_FAILED)
            want[gi] += w->sc->models[in->model].weights_bytes + w->sc->models[in->model].runtime_vram_bytes;
    }
    char *broken = NULL;
    for (size_t i = 0; i < cs->ngpus && !broken; i++) {
        const cs_gpu *g = &cs->gpus[i];
        if (g->cached != NONE) want[i] += w->sc->models[g->cached].weights_bytes;
        if (fabs(want[i] - g->vram_used_bytes) > 1 + 1e-9 * want[i])
            broken = ss_xasprintf("GPU '%s' VRAM ledger holds %.0f bytes, its replicas and cache %.0f",
                                  w->sc->devices[g->device].name, g->vram_used_bytes, want[i]);
    }
    free(want);
    return broken;
}

void ss_cs_result(const ss_world *w, ss_run_result *r)
{
    const ss_coldstart *cs = w->cs;
    const ss_scenario *sc = w->sc;
    for (uint32_t m = 0; m < sc->nmodels; m++) {
        if (!sc->placement->models[m]) continue;
        const cs_model_stats *s = &cs->stats[m];
        double count[SS_SOURCE_COUNT] = {0}, mean = NAN, p99 = NAN;
        for (size_t i = 0; i < s->n; i++) count[s->src[i]]++;
        if (s->n) {
            double *sorted = ss_xmalloc(s->n * sizeof *sorted);
            memcpy(sorted, s->dur_s, s->n * sizeof *sorted);
            qsort(sorted, s->n, sizeof *sorted, by_value);
            mean = gsl_stats_mean(sorted, 1, s->n);
            p99 = gsl_stats_quantile_from_sorted_data(sorted, 1, s->n, 0.99);
            free(sorted);
        }
        double vals[] = {(double)s->n,
                         mean,
                         p99,
                         count[SS_SOURCE_GPU],
                         count[SS_SOURCE_LOCAL],
                         count[SS_SOURCE_PEER],
                         count[SS_SOURCE_STORAGE],
                         count[SS_SOURCE_DISK],
                         count[SS_SOURCE_SLEEP],
                         s->bytes[SS_SOURCE_PEER] / 1e9,
                         s->bytes[SS_SOURCE_STORAGE] / 1e9,
                         s->bytes[SS_SOURCE_DISK] / 1e9};
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
            char *col = ss_xasprintf(cols[i], sc->models[m].name);
            ss_run_result_extra(r, col, vals[i]);
            free(col);
        }
    }
    double gb[SS_TL_COUNT] = {0};
    for (uint32_t l = 0; l < ss_topo_nlinks(sc->topo); l++)
        gb[ss_topo_link_tier(sc->topo, l)] += ss_link_bytes(cs->net, l) / 1e9;
    for (int t = 0; t < SS_TL_COUNT; t++) {
        if (t != SS_TL_STORAGE && t != SS_TL_HOST_LEAF && t != SS_TL_LEAF_SPINE) continue;
        char *col = ss_xasprintf("net_gb_%s", ss_topo_tier_name((ss_topo_tier)t));
        ss_run_result_extra(r, col, gb[t]);
        free(col);
    }
}
