/* llm_world.h: one replication of an LLM-serving scenario (`llm:`, the
 * section is input/llm_cfg.h; docs/llm.md, "In a scenario"): a fleet of
 * engines (llm_fleet.h) on the world's engine, fed by the scenario's
 * workload, its results as the run's "all" row (latency is end to end) and
 * extra columns (engine_busy_frac: the engines' mean share of time with a
 * step in flight): TTFT and TPOT (mean, p50, p90, p99), output tokens per
 * second, preemptions, prefix-cache hits, requests refused. */
#ifndef SS_LLM_WORLD_H
#define SS_LLM_WORLD_H

#include "core/util.h"

struct ss_world;
struct ss_run_result;

typedef struct ss_llm_world ss_llm_world;

/* Build onto w (its engine, scenario and replication are set).  NULL with
 * err set if the step-time profile cannot be read. */
ss_llm_world *ss_llm_world_build(struct ss_world *w, ss_err *err);
void ss_llm_world_result(ss_llm_world *l, struct ss_run_result *r);
/* No request left in flight after the run: NULL, else a message to free. */
char *ss_llm_world_check(const ss_llm_world *l);
void ss_llm_world_free(ss_llm_world *l);

#endif
