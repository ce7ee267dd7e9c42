/* llm_roofline.c: the roofline step-time model (llm_roofline.h). */
#include "llm/llm_roofline.h"

#include <math.h>

#include "core/cfg.h"

int ss_llm_gpu_read(const char *path, ss_llm_gpu *g, ss_err *err)
{
    ss_doc *doc = ss_doc_load_json(path, err);
    if (!doc) return -1;
    int rc = ss_cfg_num(doc->root, "dense_flops_per_s", &g->dense_flops_per_s, SS_REQ | SS_POS, err);
    if (rc >= 0) rc = ss_cfg_num(doc->root, "hbm_bytes_per_s", &g->hbm_bytes_per_s, SS_REQ | SS_POS, err);
    ss_doc_free(doc);
    return rc < 0 ? -1 : 0;
}

/* One kernel at the roofline. */
static double kernel_s(const ss_llm_roofline *r, double flops, double bytes)
{
    return fmax(flops / r->gpu.dense_flops_per_s, bytes / r->gpu.hbm_bytes_per_s);
}

/* A weight matrix of in x out applied to T tokens. */
static double matmul_s(const ss_llm_roofline *r, double in, double out, double T)
{
    return kernel_s(r, 2 * in * out * T, r->dtype_bytes * (in * out + T * (in + out)));
}

double ss_llm_roofline_step_s(void *ctx, const ss_llm_batch *b)
{
    const ss_llm_roofline *r = ctx;
    const ss_llm_model *m = &r->model;
    double T = b->tokens, S = b->nseqs, db = r->dtype_bytes;
    double q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim, h = m->hidden,
           ff = m->intermediate;
    double linear = matmul_s(r, h, q + 2 * kv, T) + matmul_s(r, q, h, T) + matmul_s(r, h, 2 * ff, T) +
                    matmul_s(r, ff, h, T);
    double aflops = 0, abytes = 0;
    for (uint32_t i = 0; i < b->nprefill; i++) {
        double c = b->prefill_chunk[i], k = b->prefill_kv[i];
        aflops += 4 * q * c * (k + (c + 1) / 2);
        abytes += db * (2 * kv * (k + c) + 2 * q * c);
    }
    double ctxs = (double)b->decode_kv_sum + b->ndecode; /* each decode's context with its new token */
    aflops += 4 * q * ctxs;
    abytes += db * (2 * kv * ctxs + 2 * q * b->ndecode);
    double attention = kernel_s(r, aflops, abytes);
    /* two norms (read and write T x hidden each), rotary embedding (q and k), the gated activation */
    double elementwise = kernel_s(r, 0, db * T * (4 * h + 2 * (q + kv) + 3 * ff));
    double once = kernel_s(r, 0, db * 2 * T * h) /* embedding gather and final norm */ +
                  matmul_s(r, h, m->vocab, S) /* lm_head */ + kernel_s(r, 0, 4 * S * m->vocab) /* sampler */;
    return m->layers * (linear + attention + elementwise) + once;
}
