/* llm_cfg.h: the `llm:` section of a scenario (docs/llm.md, "In a
 * scenario"): LLM engines behind a router and their request stream, read
 * into plain structs by llm_cfg.c and run by sim/llm/llm_world.c.  A
 * scenario with `llm:` takes its model, GPUs, engines and workload from it
 * (the serving keys are refused beside it).  Checked here: every engine
 * setting in its range; the model's weights and the KV cache within the
 * GPU's memory (where the GPU file gives it); every request of the
 * workload within the KV cache (and within the token budget without
 * chunked prefill). */
#ifndef SS_LLM_CFG_H
#define SS_LLM_CFG_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/cfg.h"
#include "input/llm_model.h"

typedef struct ss_llm_dist {
    double mean, sd;         /* a lognormal of this mean and sd (sd 0: the mean itself), */
    uint32_t max;            /* rounded to a whole number and clipped to [1, max] */
} ss_llm_dist;

/* A model's `role:` (ss_llm_scn.role). */
enum { SS_LLM_WHOLE, SS_LLM_PREFILL, SS_LLM_DECODE };

/* One draw of d from rng: a lognormal of its mean and sd, rounded and clipped to [1, max]. */
uint32_t ss_llm_dist_draw(gsl_rng *rng, const ss_llm_dist *d);

typedef struct ss_llm_scn {
    ss_llm_model model;
    char *model_path;
    char *gpu_path;          /* step_time: {roofline: GPU.json} (or NULL) */
    char *profile_dir;       /* step_time: {profile: PERF_DIR} (or NULL) */
    char *fit_path;          /* step_time: {fit: FIT.json} (or NULL): servesim calibrate --llm-perf's coefficients */
    double fit[13];          /* ... its coefficients in llm/llm_fit.h's order (ss_llm_fit_names) */
    double gpu_flops_per_s, gpu_bytes_per_s, gpu_memory_bytes; /* the GPU file's (memory 0: not given) */
    uint32_t instances;
    int router;              /* 0 round-robin, 1 least-tokens */
    uint32_t prefill_instances; /* disaggregation: the first ones prefill, the rest decode; 0: none */
    uint32_t tp_size;        /* tensor_parallel.size: GPUs per engine (1: none) */
    double tp_link_bps, tp_latency_s; /* ... their links' bandwidth (bits/s) and per-message latency */
    double nic_bps, kv_latency_s; /* ... each engine's NIC, and a KV transfer's latency */
    /* the engines' settings (vLLM's names) */
    uint32_t max_num_seqs, max_num_batched_tokens, block_size, num_gpu_blocks, long_prefill_token_threshold;
    int chunked_prefill, prefix_caching, reserve_full_isl;
    int policy;              /* scheduling_policy: 0 fcfs, 1 priority, 2 shortest-prompt (llm_types.h's order) */
    /* the workload: a trace (times scaled) or Poisson arrivals with token distributions */
    char *trace_path;
    double time_scale;
    double *trace_s;
    uint32_t *trace_prompt, *trace_output;
    size_t ntrace;
    double rate_rps;
    ss_llm_dist prompt, output;
    /* a model of `models:` served by LLM engines on the substrate (ss_llm_model_key_read) */
    double weights_bytes;          /* the config's weights in bf16 (ss_llm_model_weights_bytes) */
    double gpu_memory_utilization; /* the share of its GPU's memory an engine takes (vLLM's, default 0.9) */
    double runtime_reserve_bytes;  /* of that share, neither weights nor KV cache: activations, CUDA graphs,
                                    * the CUDA context (default SS_LLM_RUNTIME_RESERVE_BYTES) */
    /* `conversation:` (0 turns: none): a closed-loop client's requests are the turns of a conversation,
     * each turn's prompt the one before's prompt and output and a follow-up message, for up to
     * conv_turns turns (then a new one) */
    uint32_t conv_turns;
    ss_llm_dist followup;
    /* `role:` (a model's): 0 whole requests; 1 prefill (a request's prompt and first token, then its next
     * stage); 2 decode (the rest, its KV cache first moved over the fabric from its prefill engine) */
    int role;
    uint32_t min_kv_blocks;  /* the smallest KV cache of its engines (its deployment entries'), 0: deployed nowhere */
    /* `slo: {ttft_s, tpot_s}` (0: none): a request meets it with a TTFT and a TPOT within both (goodput) */
    double slo_ttft_s, slo_tpot_s;
} ss_llm_scn;

/* runtime_reserve_bytes's default, derived from the measured vLLM 0.19 run of
 * Llama-3.1-8B on an RTX 4090 (the shared LLM data's meta.json): the card's
 * 25,250,627,584 bytes x gpu_memory_utilization 0.9, less the weights'
 * 16,059,990,016 bytes (ss_llm_model_weights_bytes: norms left out) and the 2,588 KV blocks
 * of 16 tokens x 131,072 bytes vLLM allocated: 1,238,145,434 bytes.
 * [ASSUMPTION: the same for other models, GPUs and token budgets; vLLM
 * profiles it per engine (its peak activations grow with
 * max_num_batched_tokens).] */
#define SS_LLM_RUNTIME_RESERVE_BYTES 1238145434.0

/* Read `llm:` (node n) of a scenario; 0, or -1 with a positioned error. */
int ss_llm_scn_read(ss_llm_scn **out, const ss_node *n, ss_err *err);
/* Read a model's `llm:` key (node n) in `models:` (docs/llm.md,
 * "Serverless LLMs"): model, step_time, engine, prompt_tokens,
 * output_tokens, gpu_memory_utilization, runtime_reserve_bytes,
 * conversation: {turns, followup_tokens}.  Its KV
 * blocks (engine.num_gpu_blocks when not given) come from the GPUs it is
 * deployed on: ss_llm_deploy_fit. */
int ss_llm_model_key_read(ss_llm_scn **out, const ss_node *n, ss_err *err);
/* An engine of s on a GPU of vram_bytes (0: not given): its KV blocks into
 * *blocks (engine.num_gpu_blocks if given, else what the GPU's share holds
 * beside the weights and the reserve, less vLLM's null block) and the memory beside the weights it
 * takes into *runtime_bytes; 0, or -1 with the reason in why[] (the
 * request that does not fit, the weights or the cache beyond the GPU). */
int ss_llm_deploy_fit(const ss_llm_scn *s, double vram_bytes, uint32_t *blocks, double *runtime_bytes, char *why,
                      size_t nwhy);
void ss_llm_scn_free(ss_llm_scn *s);

#endif
