/* llm_fleet.h: identical LLM engines (llm_engine.h) behind a router, fed
 * by a stream of requests with their prompt and output token counts
 * (docs/llm.md, "A fleet"), prefill/decode disaggregated or not
 * (ss_llm_disagg).  The router picks an engine per request as it
 * arrives: round-robin, or the engine with the fewest outstanding tokens
 * (the prompt and output tokens of the requests it holds, finished ones
 * gone; ties to the lowest index).  Requests are created as they arrive
 * and freed as they finish, and the latencies go into streaming
 * histograms: memory follows the requests in flight, not the stream.
 * A request the KV cache could never hold is refused and counted. */
#ifndef SS_LLM_FLEET_H
#define SS_LLM_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"
#include "core/metrics.h"
#include "llm/llm_types.h"

typedef enum { SS_LLM_ROUTE_ROUND_ROBIN = 0, SS_LLM_ROUTE_LEAST_TOKENS = 1 } ss_llm_route;

typedef struct ss_llm_arrival {
    double t_s;               /* non-decreasing from one arrival to the next */
    uint32_t prompt_tokens;   /* >= 1 */
    uint32_t output_tokens;   /* >= 1 */
} ss_llm_arrival;

/* The next arrival into *a: 1, or 0 when the stream ends. */
typedef int (*ss_llm_source_fn)(void *ctx, ss_llm_arrival *a);

typedef struct ss_llm_fleet_result {
    uint64_t arrived, served, refused;
    uint64_t measured;         /* served requests that arrived in the measured window (the stats' count) */
    uint64_t output_tokens;    /* of the measured requests */
    uint64_t steps, preemptions, tokens_prefill, tokens_decode, tokens_cached;
    double end_s;              /* the last token */
    uint64_t done_in_window;   /* requests finished in [measure_from_s, window_end_s) (ss_llm_fleet_window) */
    double busy_s;             /* the engines' seconds with a step in flight, summed */
    size_t peak_in_flight;     /* requests held at once, at most */
    ss_stat ttft, tpot, e2e;   /* seconds; TPOT of requests with two or more output tokens */
    ss_stat kv_transfer;       /* disaggregation: each KV cache's transfer, seconds */
    ss_hist *ttft_hist, *tpot_hist, *e2e_hist; /* their distributions (ss_llm_fleet_result_free) */
} ss_llm_fleet_result;

/* Prefill/decode disaggregation: engines [0, prefill_instances) prefill
 * every request's prompt and emit its first token; its KV cache (the
 * prompt's tokens x kv_bytes_per_token) then goes as a flow of the max-min
 * solver over the two engines' NICs (a link of nic_bps each, shared by every
 * transfer in or out of that engine; latency_s after the last byte) to a
 * decode engine of [prefill_instances, instances), picked by the router,
 * which decodes the rest.  A request of one output token ends at its
 * prefill.  [ASSUMPTIONS: the whole cache moves once the prefill ends (no
 * layer-by-layer overlap); a NIC's capacity is shared by both directions.] */
typedef struct ss_llm_disagg {
    uint32_t prefill_instances;  /* 0: none (every engine serves whole requests) */
    double nic_bps;              /* each engine's NIC, bits per second */
    double kv_bytes_per_token;   /* the model's KV cache per token (llm_model.h) */
    double latency_s;            /* per transfer, after its last byte */
} ss_llm_disagg;

typedef struct ss_llm_fleet ss_llm_fleet;

/* A fleet on eng: `instances` engines of cfg (>= 1), each step timed by
 * step(step_ctx, batch), fed by src from now; requests arriving from
 * measure_from_s on are counted in *out (the rest are served only).
 * ss_llm_fleet_free adds the engines' counters to *out. */
ss_llm_fleet *ss_llm_fleet_new(ss_engine *eng, const ss_llm_cfg *cfg, uint32_t instances, ss_llm_route route,
                              ss_llm_step_fn step, void *step_ctx, ss_llm_source_fn src, void *src_ctx,
                              double measure_from_s, const ss_llm_disagg *dis, ss_llm_fleet_result *out);
size_t ss_llm_fleet_in_flight(const ss_llm_fleet *f);
/* Count the requests that finish before end_s (the end of arrivals) in out->done_in_window. */
void ss_llm_fleet_window(ss_llm_fleet *f, double end_s);
/* Engine i's state now (i < the instances). */
ss_llm_stats ss_llm_fleet_engine(const ss_llm_fleet *f, uint32_t i);
void ss_llm_fleet_free(ss_llm_fleet *f);
/* The stream to its end on a fleet of its own (all counted). */
void ss_llm_fleet_run(const ss_llm_cfg *cfg, uint32_t instances, ss_llm_route route, ss_llm_step_fn step,
                      void *step_ctx, ss_llm_source_fn src, void *src_ctx, ss_llm_fleet_result *out);
void ss_llm_fleet_result_free(ss_llm_fleet_result *r);

#endif
