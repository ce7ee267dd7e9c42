/* llm_state.h: an LLM engine's record, shared by its step loop
 * (llm_engine.c) and its scheduler (llm_sched.c). */
#ifndef SS_LLM_STATE_H
#define SS_LLM_STATE_H

#include "core/engine.h"
#include "llm/kv_cache.h"
#include "llm/llm_types.h"

struct ss_llm {
    ss_engine *eng;
    ss_llm_cfg cfg;
    ss_llm_hooks hooks;
    ss_kv_cache kv;
    ss_llm_req **run;        /* running, in the order they were scheduled first */
    size_t nrun, caprun;
    ss_llm_req **wait;       /* waiting: a ring, head first (preempted requests go back to its head) */
    size_t whead, nwait, capwait;
    int busy;                /* a step is in flight (or its start is scheduled) */
    ss_event_id ev;          /* ... that event (its start, or its end) */
    double step_start_s;
    uint32_t *chunk, *chunk_kv; /* the step's prefills, for the step-time model */
    size_t capchunk;
    ss_llm_stats st;
};

/* The content key of r's KV blocks (kv_cache.h). */
static inline uint64_t ss_llm_key(const ss_llm_req *r)
{
    return r->prefix_key ? r->prefix_key : r->id;
}

#endif
