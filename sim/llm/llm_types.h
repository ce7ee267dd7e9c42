/* llm_types.h: the LLM engine's public records (llm_engine.h): its
 * settings, a request, a step's batch, the hooks it calls, its statistics. */
#ifndef SS_LLM_TYPES_H
#define SS_LLM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "llm/kv_cache.h"

typedef struct ss_llm ss_llm;

/* The engine's settings (vLLM's names). */
enum { SS_LLM_FCFS, SS_LLM_PRIORITY, SS_LLM_SHORTEST_PROMPT };

typedef struct ss_llm_cfg {
    uint32_t max_num_seqs;           /* requests in one step, at most */
    uint32_t max_num_batched_tokens; /* tokens in one step, at most (the token budget) */
    uint32_t block_size;             /* tokens per KV block */
    uint32_t num_gpu_blocks;         /* KV blocks */
    uint32_t long_prefill_token_threshold; /* a prefill's chunk per step, at most (0: the budget only) */
    int chunked_prefill;             /* 1: a prompt may be split over steps; 0: whole or not at all */
    int prefix_caching;              /* enable_prefix_caching: a resumed request's blocks still cached are hits */
    int reserve_full_isl;            /* scheduler_reserve_full_isl: a waiting request is admitted only if
                                      * blocks for its whole sequence so far are free (its first chunk's
                                      * are allocated) */
    int policy;                      /* scheduling_policy: the waiting queue's order and who is preempted
                                      * (SS_LLM_FCFS, SS_LLM_PRIORITY, SS_LLM_SHORTEST_PROMPT; llm_sched.c) */
} ss_llm_cfg;

#define SS_LLM_KEY_SHARED SS_KV_SHARED

typedef struct ss_llm_req {
    uint64_t id;
    uint32_t prompt_tokens;   /* >= 1 */
    uint32_t output_tokens;   /* >= 1 */
    double arrival_s;
    double priority;          /* smaller first under SS_LLM_PRIORITY (its workload's: an SLO class) */
    uint64_t prefix_key;      /* the token sequence it extends (its KV blocks' content key): 0, its own (its
                               * id); a conversation's turns share one, top bit set (SS_LLM_KEY_SHARED) */
    /* kept by the engine */
    uint32_t computed;        /* tokens whose keys and values are in the cache */
    uint32_t generated;       /* output tokens emitted */
    ss_kv_held kv;            /* KV blocks held (and, after a preemption, those it held) */
    uint32_t scheduled;       /* tokens in the step in flight (0: none) */
    uint32_t preemptions;
    uint32_t cached;          /* prompt tokens found in the prefix cache, over its admissions */
    double first_token_s;     /* its first output token (NAN before) */
    double last_token_s;      /* its latest output token */
} ss_llm_req;

/* What a step computes, for the step-time model: nseqs requests, tokens in
 * all; ndecode of them decode one token each after decode_kv_sum tokens
 * already cached between them; the
 * nprefill others compute prefill_chunk[i] tokens after prefill_kv[i]
 * already cached. */
typedef struct ss_llm_batch {
    uint32_t nseqs, tokens, ndecode, nprefill;
    uint64_t decode_kv_sum;
    const uint32_t *prefill_chunk, *prefill_kv;
} ss_llm_batch;

/* Seconds one step of batch b takes (> 0). */
typedef double (*ss_llm_step_fn)(void *ctx, const ss_llm_batch *b);
/* A request's output token was emitted at now (r->generated counts it). */
typedef void (*ss_llm_token_fn)(void *ctx, ss_llm_req *r, double now_s);
/* A request finished (all its tokens out): the caller may free it. */
typedef void (*ss_llm_done_fn)(void *ctx, ss_llm_req *r);

typedef struct ss_llm_hooks {
    ss_llm_step_fn step;
    void *step_ctx;
    ss_llm_token_fn token; /* may be NULL */
    ss_llm_done_fn done;   /* may be NULL */
    void *ctx;
} ss_llm_hooks;

/* An engine's state (ss_llm_stats_of). */
typedef struct ss_llm_stats {
    size_t running, waiting;
    double kv_usage;          /* the fraction of KV blocks held */
    uint64_t steps, preemptions, tokens_prefill, tokens_decode;
    uint64_t tokens_cached;   /* prompt tokens found in the prefix cache, not computed */
    double busy_s;            /* seconds with a step in flight */
} ss_llm_stats;

#endif
