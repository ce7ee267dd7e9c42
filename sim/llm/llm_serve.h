/* llm_serve.h: LLM engines as instances of the serving substrate
 * (docs/llm.md, "Serverless LLMs").  A model of `models:` with an `llm:`
 * key is served token by token: each of its instances is an engine
 * (llm_engine.h) on its GPU, which holds up to max_num_seqs requests (the
 * instance's servers) and batches them step by step as vLLM's scheduler
 * does; the requests beyond wait in the model's queue.  Everything else is
 * the substrate's and its systems': the shared queue, the load balancer,
 * the life cycle (an engine cold-starts, serves, drains and stops like any
 * replica), the autoscaler (which also sees tokens per second and KV-cache
 * use) and the cold starts' stages and tiers (sim/elastic), which move the
 * model's weights (its config's, in bf16).
 *
 * A request's prompt and output token counts are drawn from the model's
 * distributions by its id alone (its own generator seeded from the
 * scenario's seed, the replication, the model and the id), so policies
 * compared on one seed see the same requests with the same tokens whatever
 * order they serve them in.  Its TTFT runs from its creation (the gateway,
 * before the request overhead and the queue) to its first token; its E2E
 * is the substrate's latency. */
#ifndef SS_LLM_SERVE_H
#define SS_LLM_SERVE_H

#include "serve/serve.h"

typedef struct ss_llm_serve ss_llm_serve;

/* Does sc have a model with `llm:`? */
int ss_llm_serve_wanted(const ss_scenario *sc);
/* Set up w's LLM models (the hooks, the step-time models) once its groups
 * are made (ss_sub_instances sets their g->llm) and before any instance
 * comes up or a request is made; NULL with err on failure. */
ss_llm_serve *ss_llm_serve_build(ss_world *w, ss_err *err);
/* Its result columns (after the substrate's). */
void ss_llm_serve_declare(ss_world *w);
void ss_llm_serve_result(ss_llm_serve *ls, ss_run_result *r);
/* Every engine empty at the end of the run?  NULL, or what is wrong. */
char *ss_llm_serve_check(const ss_llm_serve *ls);
void ss_llm_serve_free(ss_llm_serve *ls);

#endif
