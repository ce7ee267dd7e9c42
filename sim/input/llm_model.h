/* llm_model.h: a decoder-only transformer's shape from its Hugging Face
 * config.json (the `model/<org>/<model>.json` files of the shared LLM
 * data), for the LLM engine's step-time models (llm/llm_perf.h: its layer
 * count; llm/llm_roofline.h: everything) and the KV cache's bytes per
 * token (docs/llm.md). */
#ifndef SS_LLM_MODEL_H
#define SS_LLM_MODEL_H

#include <stdint.h>

#include "core/cfg.h"
#include "core/util.h"

typedef struct ss_llm_model {
    uint32_t layers;        /* num_hidden_layers */
    uint32_t hidden;        /* hidden_size */
    uint32_t heads;         /* num_attention_heads */
    uint32_t kv_heads;      /* num_key_value_heads (heads when absent: no grouped-query attention) */
    uint32_t head_dim;      /* head_dim (hidden / heads when absent) */
    uint32_t intermediate;  /* intermediate_size (the gated MLP's) */
    uint32_t vocab;         /* vocab_size */
    int tied;               /* tie_word_embeddings */
    int moe;                /* the config names experts (num_experts / num_local_experts): a mixture of experts */
} ss_llm_model;

/* The whole number at key of map m into *v (left as it is when the key is
 * absent and not required), from lo to hi; 0, or -1 with err at the key.
 * The counts of llm_model.c and llm_cfg.c. */
int ss_llm_count(const ss_node *m, const char *key, uint32_t *v, unsigned long long lo, unsigned long long hi,
                 int required, ss_err *err);
/* Read path.  0, or -1 with err at the key that is missing or out of range. */
int ss_llm_model_read(const char *path, ss_llm_model *m, ss_err *err);
/* Bytes of keys and values one token holds in the cache, all layers (dtype_bytes each value). */
double ss_llm_model_kv_bytes_per_token(const ss_llm_model *m, double dtype_bytes);
/* Bytes of its weights (dtype_bytes each): per layer the attention's
 * projections (q, k, v, o) and the gated MLP's three matrices, and the
 * embedding and output head (one matrix when tied); norms and biases left
 * out (under 0.01% of Llama-3.1-8B's). */
double ss_llm_model_weights_bytes(const ss_llm_model *m, double dtype_bytes);

#endif
