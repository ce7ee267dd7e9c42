/* llm_fit.c: the fitted step-time model (llm_fit.h). */
#include "llm/llm_fit.h"

#include <gsl/gsl_multifit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "core/util.h"

const char *const ss_llm_fit_names[SS_LLM_FIT_N] = {
    "layers",        "token_knee",      "dense_s",        "dense_per_token_s", "attention_s",
    "attention_per_decode_s", "attention_per_decode_kv_s", "attention_per_prefill_token_s",
    "attention_per_prefill_work_s", "once_s", "once_per_token_s", "per_sequence_s", "per_sequence_each_s"};

/* The attention part's features of b. */
static void attn_features(const ss_llm_batch *b, double x[5])
{
    double tok = 0, work = 0;
    for (uint32_t i = 0; i < b->nprefill; i++) {
        double c = b->prefill_chunk[i], k = b->prefill_kv[i];
        tok += c;
        work += c * (k + (c + 1) / 2);
    }
    x[0] = b->nseqs > 0, x[1] = b->ndecode, x[2] = (double)b->decode_kv_sum, x[3] = tok, x[4] = work;
}

double ss_llm_fit_step_s(void *ctx, const ss_llm_batch *b)
{
    const double *c = ((const ss_llm_fit *)ctx)->c;
    double a[5], T = b->tokens;
    attn_features(b, a);
    double dense = c[SS_FIT_D0] + c[SS_FIT_D1] * fmax(T, c[SS_FIT_KNEE]);
    double attn = c[SS_FIT_A0] * a[0] + c[SS_FIT_ADEC] * a[1] + c[SS_FIT_AKV] * a[2] + c[SS_FIT_ATOK] * a[3] +
                  c[SS_FIT_APRE] * a[4];
    double t = c[SS_FIT_LAYERS] * (dense + attn) + c[SS_FIT_E0] + c[SS_FIT_E1] * T + c[SS_FIT_S0] +
               c[SS_FIT_S1] * b->nseqs;
    return t > 1e-6 ? t : 1e-6;
}

/* Weighted least squares of the relative error: y ~ X c (n rows, k columns); mean |relative error|. */
static double lsq(const double *X, const double *y, size_t n, size_t k, double *c)
{
    gsl_matrix *A = gsl_matrix_alloc(n, k), *cov = gsl_matrix_alloc(k, k);
    gsl_vector *v = gsl_vector_alloc(n), *w = gsl_vector_alloc(n), *cv = gsl_vector_alloc(k);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < k; j++) gsl_matrix_set(A, i, j, X[i * k + j]);
        gsl_vector_set(v, i, y[i]);
        gsl_vector_set(w, i, 1 / (y[i] * y[i]));
    }
    double chisq, err = INFINITY;
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, k);
    if (gsl_multifit_wlinear(A, w, v, cv, cov, &chisq, ws) == 0) {
        err = 0;
        for (size_t j = 0; j < k; j++) c[j] = gsl_vector_get(cv, j);
        for (size_t i = 0; i < n; i++) {
            double f = 0;
            for (size_t j = 0; j < k; j++) f += c[j] * X[i * k + j];
            err += fabs(f / y[i] - 1) / (double)n;
        }
    }
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(A);
    gsl_matrix_free(cov);
    gsl_vector_free(v);
    gsl_vector_free(w);
    gsl_vector_free(cv);
    return err;
}

enum { SAMPLES = 4000 };

int ss_llm_fit_perf(ss_llm_perf *p, uint32_t layers, uint32_t budget, ss_llm_fit *out, ss_llm_fit_stats *st)
{
    double *c = out->c, part[4];
    for (int k = 0; k < SS_LLM_FIT_N; k++) c[k] = 0;
    c[SS_FIT_LAYERS] = layers;
    /* dense and once: by tokens, 1 to the budget */
    size_t nt = budget, ns = 256;
    double *X = ss_xcalloc(SAMPLES * 5 + nt * 2 + 1, sizeof *X), *y = ss_xcalloc(SAMPLES + nt + 1, sizeof *y),
           *y2 = ss_xcalloc(nt + 1, sizeof *y2);
    static const double knees[] = {0, 16, 32, 64, 96, 128, 192, 256, 384, 512};
    double best = INFINITY, cc[5];
    for (size_t q = 0; q < sizeof knees / sizeof knees[0]; q++) {
        for (size_t i = 0; i < nt; i++) {
            ss_llm_batch b = {.tokens = (uint32_t)(i + 1), .nseqs = 1};
            ss_llm_perf_parts(p, &b, part);
            X[i * 2] = 1, X[i * 2 + 1] = fmax((double)(i + 1), knees[q]);
            y[i] = part[0], y2[i] = part[2];
        }
        double e = lsq(X, y, nt, 2, cc);
        if (e < best) best = e, c[SS_FIT_KNEE] = knees[q], c[SS_FIT_D0] = cc[0], c[SS_FIT_D1] = cc[1];
    }
    for (size_t i = 0; i < nt; i++) X[i * 2] = 1, X[i * 2 + 1] = (double)(i + 1);
    if (!isfinite(best) || !isfinite(lsq(X, y2, nt, 2, cc))) goto fail;
    c[SS_FIT_E0] = cc[0], c[SS_FIT_E1] = cc[1];
    /* per sequence: 1 to 256 */
    for (size_t i = 0; i < ns; i++) {
        ss_llm_batch b = {.tokens = (uint32_t)(i + 1), .nseqs = (uint32_t)(i + 1)};
        ss_llm_perf_parts(p, &b, part);
        X[i * 2] = 1, X[i * 2 + 1] = (double)(i + 1);
        y[i] = part[3];
    }
    if (!isfinite(lsq(X, y, ns, 2, cc))) goto fail;
    c[SS_FIT_S0] = cc[0], c[SS_FIT_S1] = cc[1];
    /* attention: sampled batches */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(rng, 1);
    ss_llm_batch *bs = ss_xcalloc(SAMPLES, sizeof *bs);
    uint32_t(*chunk)[2] = ss_xcalloc(SAMPLES, sizeof *chunk), (*kv)[2] = ss_xcalloc(SAMPLES, sizeof *kv);
    for (size_t i = 0; i < SAMPLES; i++) {
        ss_llm_batch *b = &bs[i];
        uint32_t nd = gsl_rng_uniform_int(rng, 4) == 0 ? 0 : (uint32_t)floor(exp(gsl_rng_uniform(rng) * log(257.0)));
        if (nd > 256) nd = 256;
        if (nd > budget) nd = budget;
        for (uint32_t k = 0; k < nd; k++) b->decode_kv_sum += 16 + gsl_rng_uniform_int(rng, 4081);
        b->ndecode = nd;
        uint32_t np = (uint32_t)gsl_rng_uniform_int(rng, 3), left = budget - nd;
        if (nd == 0 && np == 0) np = 1;
        for (uint32_t k = 0; k < np && left > 0; k++) {
            uint32_t cch = (uint32_t)floor(exp(gsl_rng_uniform(rng) * log((double)left + 1)));
            if (cch < 1) cch = 1;
            if (cch > left) cch = left;
            chunk[i][b->nprefill] = cch;
            kv[i][b->nprefill] = gsl_rng_uniform_int(rng, 2) ? 0 : (uint32_t)gsl_rng_uniform_int(rng, 4097);
            b->nprefill++;
            left -= cch;
        }
        b->prefill_chunk = chunk[i], b->prefill_kv = kv[i];
        b->nseqs = nd + b->nprefill;
        b->tokens = nd;
        for (uint32_t k = 0; k < b->nprefill; k++) b->tokens += chunk[i][k];
        ss_llm_perf_parts(p, b, part);
        attn_features(b, &X[i * 5]);
        y[i] = part[1];
    }
    double ae = lsq(X, y, SAMPLES, 5, cc);
    for (int k = 0; k < 5; k++) c[SS_FIT_A0 + k] = cc[k];
    *st = (ss_llm_fit_stats){.samples = SAMPLES, .budget = budget};
    for (size_t i = 0; isfinite(ae) && i < SAMPLES; i++) { /* the whole step's error */
        double e = fabs(ss_llm_fit_step_s(out, &bs[i]) / ss_llm_perf_step_s(p, &bs[i]) - 1);
        st->mean_abs_rel += e / SAMPLES;
        if (e > st->max_abs_rel) st->max_abs_rel = e;
    }
    gsl_rng_free(rng);
    free(bs);
    free(chunk);
    free(kv);
    free(X);
    free(y);
    free(y2);
    return isfinite(ae) ? 0 : -1;
fail:
    free(X);
    free(y);
    free(y2);
    return -1;
}
