/* plan.h: deployment planning of block pipelines - how much VRAM (and how
 * many processes, how much host RAM, how many GPUs) a task mix costs when
 * tasks share blocks (modular, with optional block fusion) or each run a
 * full model (traditional).  The BlockFlow thesis' Tables 4.5-4.6.
 *
 * The model (docs/blockflow.md, "Deployment planning"; the derivation of
 * every figure is in docs/blockflow-models.md §6):
 *  - one OS process per deployed block, or per group of consecutive blocks
 *    fused into one process; every process costs its process VRAM figure,
 *    which already includes the CUDA context (~370 MiB), and a fixed host
 *    RAM per process (~700 MiB, seed §8);
 *  - a task class shares the first `shared_blocks` blocks of the path with
 *    every other task and owns the rest (its own fine-tuned copies); a class
 *    that shares nothing runs its own unsplit model (one full-model process);
 *  - the shared prefix is deployed once, as long as the longest prefix any
 *    class present in the mix shares; owned blocks once per task;
 *  - a fusion group applies wherever all its blocks fall in the same part
 *    (the shared prefix, or one task's owned suffix); a fused process costs
 *    the figure named for it, or, without one, the sum of its blocks less
 *    one context per extra block;
 *  - traditional: one full-model process per task.
 * Figures come from a split-model profile's "vram_tables" (models/
 * *-split.json); the plan file (YAML) names them.  Pure arithmetic: no
 * engine, no randomness. */
#ifndef SS_PLAN_H
#define SS_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "core/util.h"

typedef struct ss_plan ss_plan;

/* Read and validate a plan file; NULL with err set (file:line:col) on bad
 * input, including the profiles it names.  `sets` are --set assignments. */
ss_plan *ss_plan_load(const char *path, char *const *sets, size_t nsets, ss_err *err);
void ss_plan_free(ss_plan *p);

/* One row per (model, mix, deployment) in file order: the CSV header and
 * rows (vram_mib to 0.1 MiB, savings_pct to 0.01 against the traditional
 * deployment of the same model and mix). */
void ss_plan_csv(const ss_plan *p, FILE *fp);
/* The same as a table for people. */
void ss_plan_print(const ss_plan *p, FILE *fp);

#endif
