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

#include "core/cfg.h"
#include "input/llm_model.h"

typedef struct ss_llm_dist {
    double mean, sd;         /* a lognormal of this mean and sd (sd 0: the mean itself), */
    uint32_t max;            /* rounded to a whole number and clipped to [1, max] */
} ss_llm_dist;

typedef struct ss_llm_scn {
    ss_llm_model model;
    char *model_path;
    char *gpu_path;          /* step_time: {roofline: GPU.json} (or NULL) */
    char *profile_dir;       /* step_time: {profile: PERF_DIR} (or NULL) */
    double gpu_flops_per_s, gpu_bytes_per_s, gpu_memory_bytes; /* the GPU file's (memory 0: not given) */
    uint32_t instances;
    int router;              /* 0 round-robin, 1 least-tokens */
    uint32_t prefill_instances; /* disaggregation: the first ones prefill, the rest decode; 0: none */
    double nic_bps, kv_latency_s; /* ... each engine's NIC, and a KV transfer's latency */
    /* the engines' settings (vLLM's names) */
    uint32_t max_num_seqs, max_num_batched_tokens, block_size, num_gpu_blocks, long_prefill_token_threshold;
    int chunked_prefill, prefix_caching, reserve_full_isl;
    /* the workload: a trace (times scaled) or Poisson arrivals with token distributions */
    char *trace_path;
    double time_scale;
    double *trace_s;
    uint32_t *trace_prompt, *trace_output;
    size_t ntrace;
    double rate_rps;
    ss_llm_dist prompt, output;
} ss_llm_scn;

/* Read `llm:` (node n) of a scenario; 0, or -1 with a positioned error. */
int ss_llm_scn_read(ss_llm_scn **out, const ss_node *n, ss_err *err);
void ss_llm_scn_free(ss_llm_scn *s);

#endif
