/* llm_engine.c: an LLM engine's step loop on the event engine
 * (llm_engine.h): a step starts when work is waiting and none is in
 * flight, lasts what the step-time model says, and at its end emits the
 * tokens of every request that has caught up, finishes those with all
 * their output, and starts the next step at once. */
#include "llm/llm_engine.h"
#include "llm/llm_sched.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "core/util.h"

ss_llm_cfg ss_llm_cfg_of_scn(const ss_llm_scn *s, uint32_t num_gpu_blocks)
{
    return (ss_llm_cfg){.max_num_seqs = s->max_num_seqs, .max_num_batched_tokens = s->max_num_batched_tokens,
                        .block_size = s->block_size, .num_gpu_blocks = num_gpu_blocks,
                        .long_prefill_token_threshold = s->long_prefill_token_threshold,
                        .chunked_prefill = s->chunked_prefill, .prefix_caching = s->prefix_caching,
                        .reserve_full_isl = s->reserve_full_isl, .policy = s->policy};
}

ss_llm *ss_llm_new(ss_engine *eng, const ss_llm_cfg *cfg, const ss_llm_hooks *hooks)
{
    assert(cfg->max_num_seqs >= 1 && cfg->max_num_batched_tokens >= 1 && hooks->step);
    ss_llm *e = ss_xcalloc(1, sizeof *e);
    e->eng = eng;
    e->cfg = *cfg;
    e->hooks = *hooks;
    ss_kv_init(&e->kv, cfg->block_size, cfg->num_gpu_blocks, cfg->prefix_caching);
    return e;
}

void ss_llm_free(ss_llm *e)
{
    if (!e) return;
    ss_kv_free(&e->kv);
    free(e->run);
    free(e->wait);
    free(e->chunk);
    free(e->chunk_kv);
    free(e);
}

int ss_llm_fits(const ss_llm *e, uint32_t prompt_tokens, uint32_t output_tokens)
{
    return ss_kv_blocks_for(&e->kv, (uint64_t)prompt_tokens + output_tokens) <= e->kv.num_blocks;
}

static void step_start(ss_engine *eng, void *ctx, uint64_t arg);

/* A step at now unless one is in flight or already due. */
static void kick(ss_llm *e)
{
    if (e->busy) return;
    e->busy = 1;
    e->ev = ss_schedule(e->eng, ss_now(e->eng), step_start, e, 0);
}

void ss_llm_submit(ss_llm *e, ss_llm_req *r)
{
    assert(r->prompt_tokens >= 1 && r->output_tokens >= 1 && ss_llm_fits(e, r->prompt_tokens, r->output_tokens));
    r->computed = r->generated = r->scheduled = r->preemptions = r->cached = 0;
    r->kv = (ss_kv_held){0};
    r->first_token_s = r->last_token_s = NAN;
    ss_llm_wait_push_back(e, r);
    kick(e);
}

void ss_llm_submit_prefilled(ss_llm *e, ss_llm_req *r)
{
    assert(r->generated >= 1 && r->generated < r->output_tokens && ss_llm_fits(e, r->prompt_tokens, r->output_tokens));
    r->computed = r->prompt_tokens + r->generated - 1;
    r->scheduled = 0;
    r->kv = (ss_kv_held){0};
    ss_llm_wait_push_back(e, r);
    kick(e);
}

static void step_end(ss_engine *eng, void *ctx, uint64_t arg);

static void step_start(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    ss_llm *e = ctx;
    ss_llm_batch b;
    if (ss_llm_schedule(e, &b) == 0) { /* nothing can run: idle until a request arrives */
        e->busy = 0;
        return;
    }
    double d = e->hooks.step(e->hooks.step_ctx, &b);
    assert(d > 0 && isfinite(d));
    e->st.steps++;
    e->st.tokens_decode += b.ndecode;
    e->st.tokens_prefill += b.tokens - b.ndecode;
    e->step_start_s = ss_now(eng);
    e->ev = ss_schedule(eng, ss_now(eng) + d, step_end, e, 0);
}

static void step_end(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    ss_llm *e = ctx;
    double now = ss_now(eng);
    e->st.busy_s += now - e->step_start_s;
    size_t keep = 0;
    for (size_t i = 0; i < e->nrun; i++) {
        ss_llm_req *r = e->run[i];
        if (r->scheduled) {
            r->computed += r->scheduled;
            r->scheduled = 0;
            if (r->computed == r->prompt_tokens + r->generated) { /* caught up: the next token */
                r->generated++;
                if (isnan(r->first_token_s)) r->first_token_s = now;
                r->last_token_s = now;
                if (e->hooks.token) e->hooks.token(e->hooks.ctx, r, now);
            }
        }
        if (r->generated >= r->output_tokens) {
            ss_kv_release(&e->kv, &r->kv, r->computed, ss_llm_key(r));
            ss_kv_held_free(&r->kv);
            if (e->hooks.done) e->hooks.done(e->hooks.ctx, r);
        } else {
            e->run[keep++] = r;
        }
    }
    e->nrun = keep;
    step_start(eng, e, 0);
}

void ss_llm_abort(ss_llm *e, void (*each)(void *ctx, ss_llm_req *r), void *ctx)
{
    if (e->busy) ss_cancel(e->eng, e->ev);
    e->busy = 0;
    for (size_t i = 0; i < e->nrun; i++) {
        ss_kv_release(&e->kv, &e->run[i]->kv, 0, 0); /* nothing kept: the GPU's memory is gone with it */
        ss_kv_held_free(&e->run[i]->kv);
        each(ctx, e->run[i]);
    }
    e->nrun = 0;
    for (; e->nwait; e->nwait--, e->whead = (e->whead + 1) % e->capwait) {
        ss_llm_req *r = e->wait[e->whead];
        ss_kv_held_free(&r->kv);
        each(ctx, r);
    }
}

ss_llm_stats ss_llm_stats_of(const ss_llm *e)
{
    ss_llm_stats s = e->st;
    s.running = e->nrun;
    s.waiting = e->nwait;
    s.kv_usage = ss_kv_usage(&e->kv);
    return s;
}
