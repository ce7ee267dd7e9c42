/* llm_world.c: an LLM-serving scenario on the world's engine
 * (llm_world.h). */
#include "llm/llm_world.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "core/afile.h"
#include "core/rng.h"
#include "input/llm_cfg.h"
#include "llm/llm_engine.h"
#include "llm/llm_fleet.h"
#include "llm/llm_perf.h"
#include "llm/llm_roofline.h"
#include "llm/llm_fit.h"
#include "llm/llm_tp.h"
#include "serve/result.h"
#include "serve/serve.h"

struct ss_llm_world {
    ss_world *w;
    double *busy_prev;       /* per engine: its busy seconds at the last time-series sample */
    const ss_llm_scn *s;
    ss_llm_perf *perf;
    ss_llm_roofline roof;
    ss_llm_tp tp;            /* tensor parallelism's step time around the others (tp.size 0: none) */
    ss_llm_fit fit;          /* step_time: {fit:} */
    ss_llm_fleet *fleet;
    ss_llm_fleet_result res;
    gsl_rng *rng;            /* the workload's stream: arrivals and token counts */
    size_t next;             /* trace row, or requests drawn */
    double t_s;              /* the last arrival (Poisson) */
    double end_s;            /* arrivals stop here (duration_s) */
    uint64_t max_requests;
    int freed;
};

static const char *const extra_cols[] = {"ttft_mean_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "tpot_mean_s",
                                         "tpot_p50_s",  "tpot_p90_s", "tpot_p99_s", "output_tokens_per_s",
                                         "preemptions", "prefix_cache_tokens", "refused", "kv_transfer_mean_s",
                                         "engine_busy_frac", NULL};

static int source(void *ctx, ss_llm_arrival *a)
{
    ss_llm_world *l = ctx;
    const ss_llm_scn *s = l->s;
    if (l->next >= l->max_requests) return 0;
    if (s->trace_path) {
        if (l->next >= s->ntrace || s->trace_s[l->next] >= l->end_s) return 0;
        *a = (ss_llm_arrival){s->trace_s[l->next], s->trace_prompt[l->next], s->trace_output[l->next]};
    } else {
        l->t_s += gsl_ran_exponential(l->rng, 1 / s->rate_rps);
        if (l->t_s >= l->end_s) return 0;
        *a = (ss_llm_arrival){l->t_s, ss_llm_dist_draw(l->rng, &s->prompt), ss_llm_dist_draw(l->rng, &s->output)};
    }
    l->next++;
    return 1;
}

/* Time-series rows (serve/timeseries.c): one per engine. */
static void ts_rows(ss_world *w, double now)
{
    ss_llm_world *l = w->llm;
    if (!l->fleet) return;
    for (uint32_t i = 0; i < l->s->instances; i++) {
        ss_llm_stats st = ss_llm_fleet_engine(l->fleet, i);
        double busy = st.busy_s; /* steps ended up to now; one in flight counts at its end */
        double util = (busy - l->busy_prev[i]) / w->ts_interval_s;
        l->busy_prev[i] = busy;
        ss_csv_field(w->ts_csv, w->sc->variant);
        fprintf(w->ts_csv, ",%u,%.6f,engine%u,1,%zu,%zu,%.6f,0,0,%.6f\n", w->rep, now, i, st.waiting, st.running,
                util, st.kv_usage);
    }
}

ss_llm_world *ss_llm_world_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    const ss_llm_scn *s = sc->llm;
    ss_llm_world *l = ss_xcalloc(1, sizeof *l);
    l->w = w;
    l->s = s;
    if (s->profile_dir && !(l->perf = ss_llm_perf_load(s->profile_dir, s->model.layers, err))) {
        free(l);
        return NULL;
    }
    l->roof = (ss_llm_roofline){.model = s->model,
                                .gpu = {.dense_flops_per_s = s->gpu_flops_per_s, .hbm_bytes_per_s = s->gpu_bytes_per_s},
                                .dtype_bytes = 2};
    l->rng = ss_rng_stream(sc->seed, w->rep, "llm/workload");
    l->end_s = sc->duration_s;
    l->max_requests = sc->max_requests;
    ss_llm_cfg cfg = ss_llm_cfg_of_scn(s, s->num_gpu_blocks);
    ss_llm_disagg dis = {.prefill_instances = s->prefill_instances, .nic_bps = s->nic_bps,
                         .kv_bytes_per_token = ss_llm_model_kv_bytes_per_token(&s->model, 2),
                         .latency_s = s->kv_latency_s};
    ss_llm_step_fn step = l->perf ? ss_llm_perf_step_s : ss_llm_roofline_step_s;
    void *step_ctx = l->perf ? (void *)l->perf : (void *)&l->roof;
    if (s->fit_path) {
        l->fit = ss_llm_fit_of(s->fit);
        step = ss_llm_fit_step_s, step_ctx = &l->fit;
    }
    if (s->tp_size > 1) { /* a tp<N> profile times one GPU's shard; the roofline, the whole model */
        l->tp = (ss_llm_tp){.step = step, .step_ctx = step_ctx, .compute_div = l->perf || s->fit_path ? 1 : s->tp_size,
                            .size = s->tp_size, .link_bytes_per_s = s->tp_link_bps / 8, .latency_s = s->tp_latency_s,
                            .layers = s->model.layers, .hidden = s->model.hidden, .vocab = s->model.vocab,
                            .dtype_bytes = 2};
        step = ss_llm_tp_step_s, step_ctx = &l->tp;
    }
    l->fleet = ss_llm_fleet_new(w->eng, &cfg, s->instances, (ss_llm_route)s->router, step, step_ctx, source, l,
                                sc->warmup_s, &dis, &l->res);
    for (size_t i = 0; extra_cols[i]; i++) ss_world_declare_extra(w, extra_cols[i]);
    ss_llm_fleet_window(l->fleet, sc->duration_s);
    l->busy_prev = ss_xcalloc(s->instances, sizeof *l->busy_prev);
    w->hooks.ts_rows = ts_rows;
    return l;
}

/* Free the fleet once (its counters then in res). */
static void settle(ss_llm_world *l)
{
    if (l->freed) return;
    ss_llm_fleet_free(l->fleet);
    l->fleet = NULL;
    l->freed = 1;
}

char *ss_llm_world_check(const ss_llm_world *l)
{
    size_t n = l->fleet ? ss_llm_fleet_in_flight(l->fleet) : 0;
    return n ? ss_xasprintf("llm: %zu requests still in flight after the run", n) : NULL;
}

static double q(const ss_hist *h, const ss_stat *s, double p)
{
    return s->n ? ss_hist_quantile(h, p) : NAN;
}

void ss_llm_world_result(ss_llm_world *l, ss_run_result *r)
{
    settle(l);
    const ss_llm_fleet_result *o = &l->res;
    double start = l->w->sc->warmup_s, window = o->end_s > start ? o->end_s - start : 0;
    r->window_s = window;
    r->end_s = o->end_s;
    r->peak_in_flight = o->peak_in_flight;
    double horizon = l->w->sc->duration_s - start; /* the load generator's window, as the substrate counts it */
    r->window_throughput_rps = isfinite(horizon) && horizon > 0 ? (double)o->done_in_window / horizon : 0;
    ss_task_stats all = {.arrived = o->arrived, .completed = o->measured, .dropped = o->refused,
                         .latency = o->e2e, .lat_hist = o->e2e_hist};
    ss_stat_reset(&all.queueing);
    r->tasks = ss_xcalloc(1, sizeof *r->tasks);
    ss_task_result_fill(&all, "all", window, &r->tasks[r->ntasks++]);
    r->util = ss_xcalloc(1, sizeof *r->util);
    /* the engines' mean busy fraction (a step in flight: the GPU at work) from the start to the last token:
     * the extra column engine_busy_frac (no device of the scenario holds them, so no util_ column) */
    r->util_mean = o->end_s > 0 ? o->busy_s / (o->end_s * l->s->instances) : 0;
    const double v[] = {o->ttft.n ? ss_stat_mean(&o->ttft) : NAN, q(o->ttft_hist, &o->ttft, 0.5),
                        q(o->ttft_hist, &o->ttft, 0.9), q(o->ttft_hist, &o->ttft, 0.99),
                        o->tpot.n ? ss_stat_mean(&o->tpot) : NAN, q(o->tpot_hist, &o->tpot, 0.5),
                        q(o->tpot_hist, &o->tpot, 0.9), q(o->tpot_hist, &o->tpot, 0.99),
                        window > 0 ? (double)o->output_tokens / window : 0, (double)o->preemptions,
                        (double)o->tokens_cached, (double)o->refused,
                        o->kv_transfer.n ? ss_stat_mean(&o->kv_transfer) : NAN, r->util_mean};
    for (size_t i = 0; extra_cols[i]; i++) ss_run_result_extra(r, extra_cols[i], v[i]);
}

void ss_llm_world_free(ss_llm_world *l)
{
    if (!l) return;
    settle(l);
    ss_llm_fleet_result_free(&l->res);
    ss_llm_perf_free(l->perf);
    gsl_rng_free(l->rng);
    free(l->busy_prev);
    free(l);
}
