/* optimize_search.h: the searches of `servesim optimize` over allocation
 * matrices (docs/ensembles.md, "Optimize"; seed E §2.3-§2.5):
 *
 * - wfd: E's Algorithm 1, worst-fit decreasing with priority to GPUs, one
 *   worker per member at the smallest allowed batch (no evaluation needed;
 *   one to report its score);
 * - greedy: E's Algorithm 2, bounded greedy over the neighbours of the
 *   matrix (one entry changed), max_neighs sampled per iteration, max_iter
 *   iterations (D - M when that is larger), stopping at the first iteration
 *   whose best sample is not strictly better;
 * - bbs: E's best-batch-size baseline, member i alone on the i-th GPU, the
 *   batch of each member chosen in turn inside the full ensemble;
 * - anneal: simulated annealing on the same neighbourhood and budget (not
 *   in E), one neighbour per step, geometric cooling, best kept.
 *
 * All are deterministic functions of the scenario, the parameters and the
 * seed (stream "optimize/<algo>" of ss_rng_stream), whatever ctx->jobs. */
#ifndef SS_OPTIMIZE_SEARCH_H
#define SS_OPTIMIZE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "search/optimize_eval.h"

typedef enum { SS_OPT_WFD, SS_OPT_GREEDY, SS_OPT_BBS, SS_OPT_ANNEAL } ss_opt_algo;

typedef struct ss_opt_params {
    ss_opt_algo algo;
    uint32_t max_neighs;    /* greedy: neighbours sampled per iteration (E: 100) */
    uint32_t max_iter;      /* greedy: iterations (E: 10; D - M when larger) */
    uint64_t seed;
    int start_scenario;     /* greedy, anneal: start from the scenario's matrix, not wfd's */
    double anneal_t0;       /* anneal: first temperature, relative to the score (default 0.05) */
    double anneal_t1;       /* anneal: last temperature (default 0.0005) */
} ss_opt_params;

typedef struct ss_opt_result {
    uint32_t *start, *best; /* D x M, malloc'd */
    double start_score, best_score; /* img/s */
    uint32_t iterations;    /* greedy: moves accepted; anneal: steps; bbs: members tuned */
} ss_opt_result;

/* Algorithm 1 on a memory table: need_bytes[d * M + m] is what member m's
 * worker holds on device d at the default batch (weights included; < 0: it
 * cannot go there), cap_bytes[d] the device's capacity (0: unbounded),
 * is_gpu[d] its kind, size_bytes[m] the member's sort key.  Members go in
 * decreasing size (ties: in order); each goes to the GPU with the most
 * memory left after placing it (ties: the first), if it fits there, else to
 * the CPU chosen the same way, else it fails.  Writes out[d * M + m] =
 * batch for the one worker of each member.  Returns -1 done, else the
 * member that fits nowhere. */
long ss_opt_wfd_table(uint32_t d, uint32_t m, const double *need_bytes, const double *cap_bytes, const int *is_gpu,
                      const double *size_bytes, uint32_t batch, uint32_t *out);
/* Algorithm 1 on a scenario: the table from the profiles (need: weights +
 * memory at the smallest allowed batch; size: the largest need over the
 * device types the member has).  0 ok, -2 with err set when a member fits
 * nowhere (bad input). */
int ss_opt_wfd(const ss_ensemble_cfg *e, const ss_scenario *sc, uint32_t *out, ss_err *err);
/* Run the search p->algo; r filled (free with ss_opt_result_free).  0 ok;
 * -1 with err set when a run failed; -2 with err set when the search cannot
 * start on the scenario's devices (Algorithm 1 places nothing, BBS lacks
 * GPUs): bad input.  Annealing with no budget bound takes max_iter x
 * max_neighs steps. */
int ss_opt_search(ss_opt_ctx *c, const ss_opt_params *p, ss_opt_result *r, ss_err *err);
void ss_opt_result_free(ss_opt_result *r);
/* Greedy's iteration bound: max_iter, or D - M when that is larger (E §2.4). */
uint32_t ss_opt_max_iter(uint32_t max_iter, uint32_t d, uint32_t m);

#endif
