/* llm_replay.h: a measured vLLM run replayed on one simulated engine (its
 * arrivals at their queued times, their prompt and output tokens), giving
 * every request's simulated TTFT, TPOT and E2E beside the measured ones
 * (docs/llm.md, "Validation"). */
#ifndef SS_LLM_REPLAY_H
#define SS_LLM_REPLAY_H

#include <stddef.h>

#include "input/vllm_run.h"
#include "llm/llm_engine.h"

typedef struct ss_llm_replay {
    double *ttft_s, *tpot_s, *e2e_s; /* per request, in the run's order (tpot NAN for one output token) */
    size_t n;
    ss_llm_stats stats;              /* the engine's at the end */
    double *tick_running, *tick_waiting, *tick_kv; /* at the run's ticks (its timeseries), where it has them */
    size_t nticks;
    double end_s;                    /* the last token */
} ss_llm_replay;

/* Replay run on an engine of cfg whose steps take step(step_ctx, batch);
 * the engine's running and waiting requests and KV use are read at the run's
 * ticks, moved by the first request's offset from the run's start (the
 * replay starts at the first queued request). */
void ss_llm_replay_run(const ss_vllm_run *run, const ss_llm_cfg *cfg, ss_llm_step_fn step, void *step_ctx,
                       ss_llm_replay *out);
void ss_llm_replay_free(ss_llm_replay *r);
/* The engine settings a measured run states (its meta.json), as vLLM uses
 * them: one of its GPU blocks is the null block, never allocated. */
ss_llm_cfg ss_llm_cfg_of_run(const ss_vllm_run *run);

/* The mean of v[0..n) (NANs left out), and its q-quantile (0..1, linear
 * between order statistics: numpy's default). */
double ss_llm_mean(const double *v, size_t n);
double ss_llm_quantile(const double *v, size_t n, double q);

#endif
