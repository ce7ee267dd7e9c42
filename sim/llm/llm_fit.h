/* llm_fit.h: an LLM engine's step time as a few coefficients fitted to a
 * per-operator profile (llm_perf.h) by `servesim calibrate --llm-perf`
 * (docs/llm.md, "A fitted step time") - as BLIS fits its per-model,
 * per-GPU coefficients - so that a scenario carries the profile's step
 * times without the profile's tables.  The model keeps the profile's
 * structure, each part fitted to that part of the profile alone:
 *
 *   step = L x (dense(T) + attention) + once(T) + per_sequence(S)
 *   dense(T)        = d0 + d1 max(T, knee)       one layer's GEMMs and norms: flat
 *                                                  (memory-bound) below `knee` tokens
 *   attention       = a0 [any] + a_dec nd + a_kv sum_decodes k + a_tok sum_prefills c
 *                     + a_pre sum_prefills c (k + (c + 1) / 2)
 *   once(T)         = e0 + e1 T                   the embedding and final norm
 *   per_sequence(S) = s0 + s1 S                   lm_head and the sampler
 *
 * for a step of T tokens over S sequences, L decoder layers, nd decodes
 * reading k cached tokens each, prefill chunks of c tokens after k cached.
 * Least squares of the relative error (GSL): dense and once over T = 1 to
 * the budget, per_sequence over S = 1 to 256, attention over sampled
 * batches (decodes 0 to 256 with contexts 16 to 4,096, up to two prefill
 * chunks within the budget after 0 to 4,096 cached); the knee is the
 * candidate (0 to 512) whose dense fit has the least mean relative error. */
#ifndef SS_LLM_FIT_H
#define SS_LLM_FIT_H

#include <stdint.h>

#include "llm/llm_perf.h"
#include "llm/llm_types.h"

/* The coefficients, in the file's order. */
enum { SS_FIT_LAYERS, SS_FIT_KNEE, SS_FIT_D0, SS_FIT_D1, SS_FIT_A0, SS_FIT_ADEC, SS_FIT_AKV, SS_FIT_ATOK,
       SS_FIT_APRE, SS_FIT_E0, SS_FIT_E1, SS_FIT_S0, SS_FIT_S1, SS_LLM_FIT_N };
extern const char *const ss_llm_fit_names[SS_LLM_FIT_N];

typedef struct ss_llm_fit {
    double c[SS_LLM_FIT_N];
} ss_llm_fit;

typedef struct ss_llm_fit_stats {
    uint32_t samples, budget;
    double mean_abs_rel, max_abs_rel; /* the whole step's relative error over the sampled batches */
} ss_llm_fit_stats;

/* The fit a scenario's step_time: {fit:} file gave (input/llm_cfg.h's fit[], in this order). */
static inline ss_llm_fit ss_llm_fit_of(const double coef[SS_LLM_FIT_N])
{
    ss_llm_fit f;
    for (int k = 0; k < SS_LLM_FIT_N; k++) f.c[k] = coef[k];
    return f;
}

/* Seconds one step of batch b takes (ss_llm_step_fn: ctx an ss_llm_fit); at least 1 us. */
double ss_llm_fit_step_s(void *ctx, const ss_llm_batch *b);
/* Fit to profile p of a model of `layers` decoder layers, for a token budget of `budget` per step;
 * 0, or -1 if a fit failed. */
int ss_llm_fit_perf(ss_llm_perf *p, uint32_t layers, uint32_t budget, ss_llm_fit *out, ss_llm_fit_stats *st);

#endif
