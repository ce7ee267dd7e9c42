/* llm_engine.h: one LLM serving engine (an instance of vLLM on its GPUs),
 * stepped token by token on the event engine (docs/llm.md).
 *
 * Each step the scheduler (llm_sched.c) forms a batch, as vLLM's V1
 * scheduler does: the running requests first, in order, each its remaining
 * prompt (a chunked prefill, capped by the token budget) or one decode
 * token; then waiting requests, first come first served, while the token
 * budget (max_num_batched_tokens), the sequence cap (max_num_seqs) and the
 * KV cache (kv_cache.h) allow.  A running request whose KV blocks cannot be
 * allocated preempts the newest running request (its blocks freed, its
 * tokens recomputed later as a prefill; waiting requests wait that step).
 * The step lasts what the step-time model says for that batch; at its end
 * every request whose prefill (or recompute) has caught up emits a token,
 * and a request with all its output tokens finishes.  So one request alone
 * has TTFT = its prefill steps and E2E = those plus output - 1 decode steps.
 *
 * The engine does not own requests: the caller keeps each ss_llm_req alive
 * from submit until its `done` callback.  Memory: the requests in flight. */
#ifndef SS_LLM_ENGINE_H
#define SS_LLM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"
#include "input/llm_cfg.h"
#include "llm/llm_types.h"

/* The settings a scenario's `llm:` states (input/llm_cfg.h), its KV cache num_gpu_blocks. */
ss_llm_cfg ss_llm_cfg_of_scn(const ss_llm_scn *s, uint32_t num_gpu_blocks);

/* An engine on eng.  The settings are checked by the caller (the scenario
 * reader): every count >= 1. */
ss_llm *ss_llm_new(ss_engine *eng, const ss_llm_cfg *cfg, const ss_llm_hooks *hooks);
void ss_llm_free(ss_llm *e);
/* Could the engine ever serve r (its prompt and output in the KV cache)? */
int ss_llm_fits(const ss_llm *e, uint32_t prompt_tokens, uint32_t output_tokens);
/* A request arrives now (r->arrival_s is the caller's; the engine sets the
 * rest).  It must fit (ss_llm_fits). */
void ss_llm_submit(ss_llm *e, ss_llm_req *r);
/* A request whose prompt was prefilled elsewhere and whose KV cache has just
 * arrived (prefill/decode disaggregation, llm_fleet.h): r->generated output
 * tokens out (>= 1), the prompt and all but the last of them cached: it
 * waits for blocks to hold them and decodes from there; first_token_s as
 * the caller set it. */
void ss_llm_submit_prefilled(ss_llm *e, ss_llm_req *r);

/* The engine fails: every request it holds leaves it at once, each handed
 * to each(ctx, r) (no token and no done hook), its KV blocks freed; the
 * step in flight is cancelled. */
void ss_llm_abort(ss_llm *e, void (*each)(void *ctx, ss_llm_req *r), void *ctx);

/* Its state now. */
ss_llm_stats ss_llm_stats_of(const ss_llm *e);

#endif
