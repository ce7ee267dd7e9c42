/* llm_perf.h: an LLM engine's step time from per-operator GPU profiles
 * (the `perf/<GPU>/<org>/<model>/<dtype>/tp<N>/` format of
 * ../shared/llm, LLMServingSim's profiler: docs/llm.md, "Step time").
 *
 * The profiles time one decoder layer's operators on the GPU (CUDA kernel
 * time, summed per module): dense operators by the step's tokens
 * (dense.csv), the per-sequence ones by its sequences (per_sequence.csv),
 * attention by a mixed batch's shape (attention.csv).  A step of T tokens
 * over S sequences, whose prefills compute pc tokens after kp already
 * cached (sums over the prefills) beside nd decodes of mean cached context
 * kd (floor), takes
 *
 *   L x [2 layernorm(T) + qkv_proj(T) + rotary_emb(T) + o_proj(T)
 *        + gate_up_proj(T) + act_fn(T) + down_proj(T) + attention(pc, kp, nd, kd)]
 *   + embedding(T) + final_layernorm(T) + lm_head(S) + sampler(S)
 *
 * with L the model's decoder layers (its config's num_hidden_layers), the
 * way LLMServingSim (casys-kaist/LLMServingSim serving/core/trace_generator.py)
 * reads these files: 1-D tables linear between their points, the first
 * point's value below it, extrapolated from the last two above; attention
 * linear over the (pc, nd) corners of the grid and, in each, over (kp, kd),
 * a missing corner replaced by the nearest profiled (pc, nd), extrapolated
 * above the grid.  [ASSUMPTION: no time between steps (the engine's CPU
 * work overlaps the GPU: vLLM's async scheduling and CUDA graphs); no
 * correction for uneven context lengths (the profile's skew fit is off);
 * tensor parallelism 1.] */
#ifndef SS_LLM_PERF_H
#define SS_LLM_PERF_H

#include <stdint.h>

#include "core/util.h"
#include "llm/llm_engine.h"

typedef struct ss_llm_perf ss_llm_perf;

/* The tables in folder dir (dense.csv, per_sequence.csv, attention.csv)
 * for a model of `layers` decoder layers; NULL with err at the file, line
 * and column of what is wrong. */
ss_llm_perf *ss_llm_perf_load(const char *dir, uint32_t layers, ss_err *err);
void ss_llm_perf_free(ss_llm_perf *p);
/* Seconds one step of batch b takes (ss_llm_step_fn: ctx is the model). */
double ss_llm_perf_step_s(void *ctx, const ss_llm_batch *b);

/* A step's parts, each as the profile times it: one layer's dense operators
 * (part[0]) and attention (part[1]), the once-per-step embedding and final
 * norm (part[2]) and per-sequence operators (part[3]); unscaled. */
void ss_llm_perf_parts(const ss_llm_perf *p, const ss_llm_batch *b, double part[4]);

/* The three classes of the profile's tables: the dense operators (by
 * tokens), the per-sequence ones (by sequences), attention (by the batch's
 * shape). */
enum { SS_LLM_PERF_DENSE, SS_LLM_PERF_SEQUENCE, SS_LLM_PERF_ATTENTION, SS_LLM_PERF_CLASSES };
/* Multiply each class's times by k[class] from now on (all 1 when loaded):
 * the interpolation's uncertainty drawn per replication (docs/llm.md,
 * "Intervals"). */
void ss_llm_perf_scale(ss_llm_perf *p, const double k[SS_LLM_PERF_CLASSES]);
/* Leave-one-out residuals of class cls's interpolation: every interior
 * point of a table (of attention: of a line along kv_decode) predicted
 * linearly from its two neighbours, relative to its profiled time, less 1,
 * into *out (malloc'd; the caller frees it); how many. */
size_t ss_llm_perf_loo(const ss_llm_perf *p, int cls, double **out);

#endif
