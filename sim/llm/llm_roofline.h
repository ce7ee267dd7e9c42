/* llm_roofline.h: an LLM engine's step time estimated from the model's
 * shape (input/llm_model.h) and a GPU's datasheet figures alone - its dense
 * tensor throughput and its memory bandwidth - for models and GPUs nobody
 * profiled (docs/llm.md, "The roofline").  ESTIMATED: every kernel is
 * taken to run at the roofline, max(FLOPs / throughput, bytes / bandwidth).
 *
 * Per decoder layer, for a step of T tokens over S sequences: the four
 * weight matrices (qkv, o, gate_up, down), each 2 x params x T FLOPs over
 * its weights and its inputs' and outputs' bytes; attention over the
 * batch, one kernel: a prefill of c tokens after k cached 4 x heads x
 * head_dim x c x (k + (c + 1) / 2) FLOPs (causal), a decode after n cached
 * 4 x heads x head_dim x (n + 1), reading every context's keys and values;
 * the elementwise operators (two norms, rotary embedding, the gated
 * activation) as memory traffic of their activations.  Once per step: the
 * embedding gather, the final norm, lm_head over S sequences (its weights
 * read once), the sampler reading S rows of logits (fp32).  [ASSUMPTIONS:
 * datasheet peaks reached, no kernel-launch or CPU time (CUDA graphs,
 * asynchronous scheduling), weights and cache in the dtype's bytes (bf16:
 * 2), a dense model (no experts), tensor parallelism 1.] */
#ifndef SS_LLM_ROOFLINE_H
#define SS_LLM_ROOFLINE_H

#include "core/util.h"
#include "input/llm_model.h"
#include "llm/llm_types.h"

typedef struct ss_llm_gpu {
    double dense_flops_per_s;  /* dense tensor throughput in the model's dtype (no sparsity) */
    double hbm_bytes_per_s;    /* memory bandwidth */
} ss_llm_gpu;

typedef struct ss_llm_roofline {
    ss_llm_model model;
    ss_llm_gpu gpu;
    double dtype_bytes;        /* bytes per weight, activation and cached value (2: bf16) */
} ss_llm_roofline;

/* A GPU's figures from a JSON file {dense_flops_per_s, hbm_bytes_per_s, ...};
 * 0, or -1 with err at the key. */
int ss_llm_gpu_read(const char *path, ss_llm_gpu *g, ss_err *err);
/* Seconds one step of batch b takes (ss_llm_step_fn: ctx an ss_llm_roofline). */
double ss_llm_roofline_step_s(void *ctx, const ss_llm_batch *b);

#endif
