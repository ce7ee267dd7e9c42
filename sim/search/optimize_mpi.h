/* optimize_mpi.h: `servesim optimize` across MPI ranks (optimize_mpi.c;
 * docs/ensembles.md, "Optimize").
 *
 * Under `mpirun -np K` (a `make MPI=1` build) every rank parses the
 * command line and loads and checks the scenario itself; ranks > 0 are
 * silent meanwhile, so bad input stops all of them with rank 0's message
 * alone.  Rank 0 then runs the search; each batch of more than one
 * candidate is spread over the ranks, rank 0 included, in contiguous
 * shares (rank r scores candidates [n r / K, n (r+1) / K)), and the scores
 * are gathered back in candidate order, so the trace is byte-identical to
 * -j 1's.  With -j N each rank scores its share in N forked workers
 * (optimize_eval.h), K x N processes in all.  Ranks > 0 print nothing and
 * write no file; they exit with rank 0's status.
 *
 * Without SS_MPI, or without a launcher, there is one rank and none of
 * this changes anything. */
#ifndef SS_OPTIMIZE_MPI_H
#define SS_OPTIMIZE_MPI_H

#include "search/optimize_eval.h"

/* Start MPI under a launcher (ss_mpi_start); on ranks > 0 point stdout at
 * /dev/null for good and stderr until ss_opt_mpi_begin.  The number of
 * ranks. */
int ss_opt_mpi_start(void);
/* Once the input is checked, with c set up (no trace), on every rank.
 * Rank 0: sets c->spread when there are several ranks and returns -1 (go
 * on with the search).  Ranks > 0: score the shares rank 0 sends until it
 * says stop, and return the exit status it sends. */
int ss_opt_mpi_begin(ss_opt_ctx *c);
/* Rank 0's batch spread over the ranks (the ctx's spread): as
 * ss_opt_score, scores in candidate order. */
int ss_opt_mpi_spread(ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err);
/* On every rank, last: rank 0, if ss_opt_mpi_begin let the others wait,
 * tells them to stop with exit status rc; then MPI is finalised. */
void ss_opt_mpi_end(int rc);

#endif
