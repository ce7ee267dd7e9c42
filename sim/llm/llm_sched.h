/* llm_sched.h: an LLM engine's scheduler (llm_sched.c): the waiting queue
 * and each step's batch, as vLLM's V1 scheduler forms it. */
#ifndef SS_LLM_SCHED_H
#define SS_LLM_SCHED_H

#include "llm/llm_state.h"

/* Schedule the next step (llm_sched.c): set every chosen request's
 * `scheduled` tokens, preempting as vLLM does; fill b.  The tokens
 * scheduled (0: nothing can run). */
uint32_t ss_llm_schedule(ss_llm *e, ss_llm_batch *b);
void ss_llm_wait_push_front(ss_llm *e, ss_llm_req *r);
void ss_llm_wait_push_back(ss_llm *e, ss_llm_req *r);

#endif
