/* llm_tp.h: an LLM engine on N GPUs by tensor parallelism (Megatron-style,
 * as vLLM shards a decoder: attention heads and the MLP's columns split
 * over the GPUs), its step time = one GPU's share of the compute + the
 * collectives between them (docs/llm.md, "Tensor parallelism").
 *
 * One GPU's compute: a per-operator profile measured at that degree (the
 * shared data's `tp<N>` folders time one GPU's shard), or the roofline of
 * the whole model divided by N [ASSUMPTION: every operator shards evenly;
 * the norms, the embedding and the sampler do not, and are small].  The
 * collectives of a step of T tokens over S sequences, in the model's dtype
 * (d bytes), on a ring of N GPUs over links of bandwidth B with a
 * per-message latency a (NCCL's ring algorithm):
 *
 *   all-reduce of x bytes:  2 (N-1)/N x / B + 2 (N-1) a
 *   per step:               (2 L + 1) all-reduces of T x hidden x d bytes
 *                           (after each layer's attention output and MLP
 *                           down projection, and the vocabulary-parallel
 *                           embedding) + a gather of the logits,
 *                           (N-1)/N x S x vocab x d / B + a
 *
 * [ASSUMPTIONS: the links are the engine's own (NVLink, or PCIe between
 * the GPUs of one host): no other traffic shares them, so the flow model
 * reduces to this closed form; no overlap of the collectives with
 * compute (vLLM's default).] */
#ifndef SS_LLM_TP_H
#define SS_LLM_TP_H

#include <stdint.h>

#include "llm/llm_types.h"

typedef struct ss_llm_tp {
    ss_llm_step_fn step;     /* one GPU's share of a step's compute ... */
    void *step_ctx;
    double compute_div;      /* ... divided by this (N for a whole-model roofline, 1 for a tp<N> profile) */
    uint32_t size;           /* N >= 2 */
    double link_bytes_per_s; /* B */
    double latency_s;        /* a */
    uint32_t layers, hidden, vocab;
    double dtype_bytes;
} ss_llm_tp;

/* Seconds one step of batch b takes on the N GPUs (ss_llm_step_fn: ctx an ss_llm_tp). */
double ss_llm_tp_step_s(void *ctx, const ss_llm_batch *b);
/* The collectives' part alone. */
double ss_llm_tp_collectives_s(const ss_llm_tp *tp, const ss_llm_batch *b);

#endif
