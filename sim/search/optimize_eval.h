/* optimize_eval.h: scoring candidate allocation matrices for `servesim
 * optimize` (docs/ensembles.md, "Optimize"; seed E §2.4's bench()).
 *
 * A candidate is scored by running the scenario's ensemble world in
 * benchmark mode in this process with the candidate substituted for the
 * scenario's matrix: the score is throughput_img_s, the mean over the
 * scenario's replications.  A candidate that does not fit in memory
 * (ss_ens_overfull) scores 0 and is marked infeasible, as E's bench()
 * returns 0, instead of being refused.  An invalid candidate (an all-zero
 * column, a batch not allowed, a member on a device type its profile lacks)
 * is a caller's error: the searches never propose one.
 *
 * A batch of candidates is scored in forked worker processes when jobs > 1
 * (each a contiguous share, scores sent back through a pipe), and first
 * spread over MPI ranks when the context has a `spread` (optimize_mpi.h:
 * each rank a contiguous share, scored here with ss_opt_score); the world
 * is deterministic and shares nothing between runs, so the scores, and the
 * trace, are the same for every jobs and ranks.  Every evaluation counts
 * against the budget and writes one trace row. */
#ifndef SS_OPTIMIZE_EVAL_H
#define SS_OPTIMIZE_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"
#include "input/ensemble_cfg.h"
#include "input/scenario.h"

typedef struct ss_opt_ctx {
    ss_scenario *sc;        /* loaded, with `ensemble:` in benchmark mode */
    ss_ensemble_cfg *e;     /* sc->ensemble; its matrix is overwritten by each evaluation */
    uint32_t ndev, nmem;    /* D, M */
    unsigned jobs;          /* worker processes for a batch (1: in this process) */
    size_t budget;          /* evaluations allowed (SIZE_MAX: no bound) */
    size_t used;            /* evaluations done */
    size_t infeasible;      /* of which out of memory */
    FILE *trace;            /* CSV rows, or NULL */
    const char *algo;       /* the trace's algorithm column */
    /* NULL: a batch is scored in this process (ss_opt_score); else a
     * batch of more than one is handed to it (ss_opt_mpi_spread): scores
     * in order, 0 or -1 with err set, as ss_opt_score. */
    int (*spread)(struct ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err);
} ss_opt_ctx;

/* The CSV header of a trace. */
extern const char ss_opt_trace_header[];

/* Score the first min(n, budget left) candidates as[k * D * M ...] at
 * search iteration `iter` (a trace column): scores[k] (img/s, 0 when out of
 * memory).  Returns how many were scored, or -1 with err set (an invalid
 * candidate, a world that failed, a worker that died). */
long ss_opt_eval(ss_opt_ctx *c, const uint32_t *as, size_t n, long iter, double *scores, ss_err *err);
/* Score candidates as[0 .. n-1], all valid, on this machine: in `jobs`
 * forked workers when jobs > 1 and n > 1, else in this process; no budget,
 * no trace.  scores[k] NAN (err set where known) for a run that failed; 0,
 * or -1 with err set when a worker process could not start or died. */
int ss_opt_score(ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err);
/* Budget left. */
size_t ss_opt_left(const ss_opt_ctx *c);
/* Matrix a as a compact string, rows joined by '/', entries by ':'
 * ("0:0/16:8/0:32"); malloc'd. */
char *ss_opt_matrix_str(const uint32_t *a, uint32_t d, uint32_t m);

#endif
