/* timeseries.c: the optional time-series output of a run - every model's
 * replicas, queue length, requests in service and utilisation, sampled at
 * a fixed interval of simulated time (see ss_world_timeseries in world.h).
 *
 * A sample is an engine event that reads the world and writes one row per
 * model; it changes no state, so a run with samples fires the same other
 * events in the same order and gives the same results.  It reschedules
 * itself only while other events are pending, so it never keeps a drained
 * run alive.  Columns:
 *   t_s          sample time (s)
 *   replicas     instances of the model that are up
 *   queued       requests waiting in their queues (or the model's shared queue)
 *   in_service   requests being served
 *   utilisation  busy server-seconds in (t - interval, t] over the model's
 *                servers x interval (exact: busy time is integrated at every
 *                change, not sampled)
 *   starting     instances of the model starting (scaled up, not yet up)
 *   draining     instances finishing what they hold before they stop
 * and, where a scenario has `dispatch:` or `control:` (docs/control.md):
 *   cores        its controlled containers' cores now, summed
 *   rt_mean_s    mean response time of its requests completed in
 *                (t - interval, t], empty if none
 * and, for an `llm:` scenario (its rows written by llm_world.c, model the
 * engine: engine0, engine1, ...; replicas 1, queued its waiting requests,
 * in_service its running ones, utilisation its share of the interval with
 * a step in flight):
 *   kv_cache     the fraction of its KV blocks held
 * and, for a scenario with LLM models in `models:` (docs/llm.md, "Serverless LLMs"):
 *   kv_cache     the mean fraction of KV blocks held over its up engines, empty for other models
 *   ttft_mean_s  the mean time to first token of its requests whose first token came in
 *                (t - interval, t], empty if none
 * and, last, in every row the substrate writes (not an `llm:` world's):
 *   arrivals     requests created for the model (the first model of their task) since
 *                the previous sample: the offered load, arrivals / interval per second
 * The header comes from core/columns.c's table, which `servesim plot` labels from. */
#include <math.h>
#include <stdlib.h>

#include "core/afile.h"
#include "core/columns.h"
#include "serve/serve.h"
#include "serve/world.h"

void ss_world_timeseries_header(FILE *fp, int control)
{
    ss_columns_header(fp, SS_CSV_TIMESERIES,
                      SS_COLS_BASE | (control & SS_TS_CONTROL ? SS_COLS_CONTROL : 0) |
                          (control & SS_TS_LLM ? SS_COLS_LLM : SS_COLS_ARRIVALS) |
                          (control & SS_TS_LLM_MODELS ? SS_COLS_LLM_MODELS : 0));
}

static void sample(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_world *w = ctx;
    const ss_scenario *sc = w->sc;
    double now = ss_now(eng);
    if (w->hooks.ts_rows) w->hooks.ts_rows(w, now);
    for (size_t m = 0; !w->hooks.ts_rows && m < sc->nmodels; m++) {
        const ss_group *g = &w->groups[m];
        if (g->n == 0 && !g->as) continue; /* never deployed (an autoscaled model starts at zero) */
        unsigned up = 0, servers = 0, busy = 0, starting = 0, draining = 0;
        unsigned long long queued = 0;
        double area = 0;
        for (uint32_t i = 0; i < g->n; i++) {
            const ss_instance *in = g->members[i];
            up += g->views[i].up != 0;
            starting += in->state == SS_INST_STARTING;
            draining += in->state == SS_INST_DRAINING;
            queued += g->views[i].queued;
            busy += in->busy;
            if (in->state == SS_INST_UP || in->state == SS_INST_DRAINING) /* the capacity there now */
                servers += in->discipline == SS_DISC_PS ? 1 : in->servers;
            area += in->area_s + (double)in->busy * (now - in->changed_s);
        }
        if (w->retired_area_s) area += w->retired_area_s[m];
        queued += g->queued; /* a shared queue's */
        double util = servers ? (area - w->ts_area_prev[m]) / ((double)servers * w->ts_interval_s) : 0;
        w->ts_area_prev[m] = area;
        ss_csv_field(w->ts_csv, sc->variant);
        fprintf(w->ts_csv, ",%u,%.6f,", w->rep, now);
        ss_csv_field(w->ts_csv, sc->models[m].name);
        fprintf(w->ts_csv, ",%u,%llu,%u,%.6f,%u,%u", up, queued, busy, util, starting, draining);
        if (w->ts_control & SS_TS_CONTROL) {
            double rt = w->ctl ? w->hooks.ctl_rt_mean(w, (uint32_t)m, now, w->ts_interval_s) : NAN;
            fprintf(w->ts_csv, ",%.6f,", w->ctl ? w->hooks.ctl_cores(w, (uint32_t)m) : 0.0);
            if (!isnan(rt)) fprintf(w->ts_csv, "%.6f", rt);
        }
        if (w->ts_control & SS_TS_LLM_MODELS) { /* empty for a model that is not an LLM, or no first token */
            fputc(',', w->ts_csv);
            if (g->llm) fprintf(w->ts_csv, "%.6f", w->hooks.llm_kv_use(w, (uint32_t)m));
            double ttft = g->llm ? w->hooks.llm_ttft_recent(w, (uint32_t)m) : NAN;
            fputc(',', w->ts_csv);
            if (!isnan(ttft)) fprintf(w->ts_csv, "%.6f", ttft);
        }
        if (!(w->ts_control & SS_TS_LLM)) fprintf(w->ts_csv, ",%llu", (unsigned long long)w->ts_arrivals[m]);
        w->ts_arrivals[m] = 0;
        fputc('\n', w->ts_csv);
    }
    w->daemons--; /* this sample has fired */
    if (ss_world_active(w)) {
        ss_schedule_in(eng, w->ts_interval_s, sample, w, 0);
        w->daemons++;
    }
}

void ss_world_timeseries(ss_world *w, FILE *fp, double interval_s, int control)
{
    w->ts_csv = fp;
    w->ts_control = control;
    w->ts_interval_s = interval_s;
    free(w->ts_area_prev);
    w->ts_area_prev = ss_xcalloc(w->sc->nmodels + 1, sizeof *w->ts_area_prev);
    free(w->ts_arrivals);
    w->ts_arrivals = ss_xcalloc(w->sc->nmodels + 1, sizeof *w->ts_arrivals);
    ss_schedule(w->eng, interval_s, sample, w, 0);
    w->daemons++;
}
