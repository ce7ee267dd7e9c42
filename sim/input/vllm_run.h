/* vllm_run.h: a measured vLLM run in the layout of ../shared/llm/runs
 * (`requests.jsonl`: one JSON object per request; `meta.json`: the engine's
 * settings), read into plain arrays for `servesim validate` and the LLM
 * replay (docs/llm.md, "Validation").
 *
 * Per request: input_toks, output_toks and vLLM's RequestStateStats
 * timestamps queued_ts, scheduled_ts, first_token_ts, last_token_ts (the
 * engine core's monotonic clock, seconds).  Arrivals are taken at queued_ts
 * (when the engine core queued the request), as LLMServingSim's validation
 * does: TTFT = first_token_ts - queued_ts, E2E = last_token_ts - queued_ts,
 * TPOT = (last - first) / (output_toks - 1) for output_toks > 1. */
#ifndef SS_VLLM_RUN_H
#define SS_VLLM_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

typedef struct ss_vllm_req {
    uint32_t prompt_tokens, output_tokens;
    double queued_s;        /* from the first request's queued_ts */
    double ttft_s, e2e_s, tpot_s; /* measured; tpot_s NAN for one output token */
    int line;               /* its line in requests.jsonl */
} ss_vllm_req;

typedef struct ss_vllm_run {
    ss_vllm_req *reqs;      /* in queued order */
    size_t n;
    /* meta.json's engine settings (0 where absent) */
    char *vllm_version;
    uint32_t max_num_seqs, max_num_batched_tokens, block_size, num_gpu_blocks;
    int enable_chunked_prefill, enable_prefix_caching, async_scheduling, reserve_full_isl, enforce_eager;
    uint32_t long_prefill_token_threshold;
    /* timeseries.csv, where there: per tick, at t_s from the benchmark's start (meta.json's
     * started_at), the engine's running and waiting requests and KV cache use (0 to 1) */
    double *tick_s, *tick_running, *tick_waiting, *tick_kv;
    size_t nticks;
    double first_offset_s; /* the first request's arrival after started_at (0 where either is missing) */
} ss_vllm_run;

/* Read dir/requests.jsonl and dir/meta.json.  0, or -1 with err at the
 * file, line and column of what is wrong. */
int ss_vllm_run_read(const char *dir, ss_vllm_run *run, ss_err *err);
void ss_vllm_run_free(ss_vllm_run *run);

#endif
