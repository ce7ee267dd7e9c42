/* llm_replay.c: replaying a measured vLLM run on the simulated engine
 * (llm_replay.h). */
#include "llm/llm_replay.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct replay_arrival {
    ss_llm *e;
    ss_llm_req *r;
} replay_arrival;

typedef struct replay_ticks {
    ss_llm *e;
    ss_llm_replay *out;
} replay_ticks;

static void tick(ss_engine *eng, void *ctx, uint64_t k)
{
    (void)eng;
    replay_ticks *t = ctx;
    ss_llm_stats s = ss_llm_stats_of(t->e);
    t->out->tick_running[k] = (double)s.running;
    t->out->tick_waiting[k] = (double)s.waiting;
    t->out->tick_kv[k] = s.kv_usage;
}

static void arrive(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    (void)arg;
    replay_arrival *a = ctx;
    ss_llm_submit(a->e, a->r);
}

ss_llm_cfg ss_llm_cfg_of_run(const ss_vllm_run *run)
{
    return (ss_llm_cfg){.max_num_seqs = run->max_num_seqs,
                        .max_num_batched_tokens = run->max_num_batched_tokens,
                        .block_size = run->block_size,
                        .num_gpu_blocks = run->num_gpu_blocks > 1 ? run->num_gpu_blocks - 1 : 1,
                        .long_prefill_token_threshold = run->long_prefill_token_threshold,
                        .chunked_prefill = run->enable_chunked_prefill,
                        .prefix_caching = run->enable_prefix_caching,
                        .reserve_full_isl = run->reserve_full_isl};
}

void ss_llm_replay_run(const ss_vllm_run *run, const ss_llm_cfg *cfg, ss_llm_step_fn step, void *step_ctx,
                       ss_llm_replay *out)
{
    ss_engine *eng = ss_engine_new();
    ss_llm_hooks h = {.step = step, .step_ctx = step_ctx};
    ss_llm *e = ss_llm_new(eng, cfg, &h);
    ss_llm_req *reqs = ss_xcalloc(run->n, sizeof *reqs);
    replay_arrival *arr = ss_xcalloc(run->n, sizeof *arr);
    for (size_t i = 0; i < run->n; i++) {
        reqs[i] = (ss_llm_req){.id = i, .prompt_tokens = run->reqs[i].prompt_tokens,
                               .output_tokens = run->reqs[i].output_tokens, .arrival_s = run->reqs[i].queued_s};
        arr[i] = (replay_arrival){e, &reqs[i]};
        if (ss_llm_fits(e, reqs[i].prompt_tokens, reqs[i].output_tokens))
            ss_schedule(eng, reqs[i].arrival_s, arrive, &arr[i], 0);
    }
    memset(out, 0, sizeof *out);
    replay_ticks tk = {e, out};
    out->nticks = run->nticks;
    out->tick_running = ss_xcalloc(run->nticks + 1, sizeof *out->tick_running);
    out->tick_waiting = ss_xcalloc(run->nticks + 1, sizeof *out->tick_waiting);
    out->tick_kv = ss_xcalloc(run->nticks + 1, sizeof *out->tick_kv);
    for (size_t k = 0; k < run->nticks; k++)
        ss_schedule(eng, fmax(run->tick_s[k] - run->first_offset_s, 0), tick, &tk, k);
    ss_engine_run(eng, INFINITY);
    out->n = run->n;
    out->ttft_s = ss_xcalloc(run->n, sizeof *out->ttft_s);
    out->tpot_s = ss_xcalloc(run->n, sizeof *out->tpot_s);
    out->e2e_s = ss_xcalloc(run->n, sizeof *out->e2e_s);
    for (size_t i = 0; i < run->n; i++) {
        const ss_llm_req *r = &reqs[i];
        out->ttft_s[i] = r->first_token_s - r->arrival_s;
        out->e2e_s[i] = r->last_token_s - r->arrival_s;
        out->tpot_s[i] = r->output_tokens > 1 ? (r->last_token_s - r->first_token_s) / (r->output_tokens - 1) : NAN;
        if (r->last_token_s > out->end_s) out->end_s = r->last_token_s;
    }
    out->stats = ss_llm_stats_of(e);
    ss_llm_free(e);
    ss_engine_free(eng);
    free(reqs);
    free(arr);
}

void ss_llm_replay_free(ss_llm_replay *r)
{
    free(r->ttft_s);
    free(r->tpot_s);
    free(r->e2e_s);
    free(r->tick_running);
    free(r->tick_waiting);
    free(r->tick_kv);
    memset(r, 0, sizeof *r);
}

/* v's values that are numbers, sorted, into a new array; their count in *k. */
static double *numbers_sorted(const double *v, size_t n, size_t *k)
{
    double *w = ss_xcalloc(n ? n : 1, sizeof *w);
    *k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) w[(*k)++] = v[i];
    gsl_sort(w, 1, *k);
    return w;
}

double ss_llm_mean(const double *v, size_t n)
{
    size_t k;
    double *w = numbers_sorted(v, n, &k), m = k ? gsl_stats_mean(w, 1, k) : NAN;
    free(w);
    return m;
}

double ss_llm_quantile(const double *v, size_t n, double q)
{
    size_t k;
    double *w = numbers_sorted(v, n, &k), x = k ? gsl_stats_quantile_from_sorted_data(w, 1, k, q) : NAN;
    free(w);
    return x;
}
