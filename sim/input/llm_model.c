/* llm_model.c: reading a Hugging Face config.json (llm_model.h). */
#include "input/llm_model.h"

#include "core/cfg.h"

int ss_llm_count(const ss_node *m, const char *key, uint32_t *v, unsigned long long lo, unsigned long long hi,
                 int required, ss_err *err)
{
    unsigned long long x = *v;
    int rc = ss_cfg_u64(m, key, &x, required ? SS_REQ : 0, err);
    if (rc < 0) return -1;
    if (rc > 0 && (x < lo || x > hi))
        return ss_node_err(ss_map_find(m, key), err, "%s: expected %llu to %llu, got %llu", key, lo, hi, x);
    *v = (uint32_t)x;
    return 0;
}


int ss_llm_model_read(const char *path, ss_llm_model *m, ss_err *err)
{
    *m = (ss_llm_model){0};
    ss_doc *doc = ss_doc_load_json(path, err);
    if (!doc) return -1;
    const ss_node *r = doc->root;
    int rc = 0;
    if (ss_llm_count(r, "num_hidden_layers", &m->layers, 1, 1000, 1, err) < 0 ||
        ss_llm_count(r, "hidden_size", &m->hidden, 1, 1u << 20, 1, err) < 0 ||
        ss_llm_count(r, "num_attention_heads", &m->heads, 1, 4096, 1, err) < 0 ||
        ss_llm_count(r, "intermediate_size", &m->intermediate, 1, 1u << 24, 1, err) < 0 ||
        ss_llm_count(r, "vocab_size", &m->vocab, 1, 1u << 24, 1, err) < 0)
        rc = -1;
    m->kv_heads = m->heads;
    if (rc == 0 && ss_llm_count(r, "num_key_value_heads", &m->kv_heads, 1, 4096, 0, err) < 0) rc = -1;
    if (rc == 0 && m->heads) m->head_dim = m->hidden / m->heads;
    if (rc == 0 && ss_llm_count(r, "head_dim", &m->head_dim, 1, 65536, 0, err) < 0) rc = -1;
    if (rc == 0 && ss_map_find(r, "tie_word_embeddings")) rc = ss_cfg_bool(r, "tie_word_embeddings", &m->tied, 0, err);
    m->moe = ss_map_find(r, "num_experts") || ss_map_find(r, "num_local_experts");
    ss_doc_free(doc);
    return rc < 0 ? -1 : 0;
}

double ss_llm_model_kv_bytes_per_token(const ss_llm_model *m, double dtype_bytes)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * dtype_bytes;
}

double ss_llm_model_weights_bytes(const ss_llm_model *m, double dtype_bytes)
{
    double q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
    double per_layer = (double)m->hidden * (q + 2 * kv) + q * m->hidden + 3.0 * m->hidden * m->intermediate;
    return dtype_bytes * (m->layers * per_layer + (m->tied ? 1.0 : 2.0) * m->vocab * m->hidden);
}
