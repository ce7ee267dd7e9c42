/* sweep_run.h: the drivers that spread a sweep's units over processes:
 * forked workers on this machine (sweep_local.c) or MPI ranks across
 * machines (sweep_mpi.c).  Every driver hands finished units to one
 * ss_sweep_sink, which alone writes the results file; since a unit's rows
 * depend only on the unit, all drivers write the same bytes. */
#ifndef SS_SWEEP_RUN_H
#define SS_SWEEP_RUN_H

#include "core/mpi_ranks.h"
#include "cmd/sweep.h"
#include "cmd/sweep_sink.h"

/* Run every unit not already in the sink with at most `jobs` worker
 * processes at once.  0 when all units have finished (some may have
 * failed: the sink counts them); -1 with err set if the driver itself
 * failed (no fork, no pipe, results file unwritable). */
int ss_sweep_run_local(const ss_sweep *sw, ss_sweep_sink *sink, unsigned jobs, ss_err *err);

/* MPI (built with `make MPI=1`), started by ss_mpi_start (mpi_ranks.h). */
/* Rank 0: hand units to ranks 1..K-1 and collect their rows into the sink.
 * With sink NULL (rank 0 could not open the results file) it only tells
 * every worker to stop.  Same return as ss_sweep_run_local. */
int ss_sweep_run_mpi_master(const ss_sweep *sw, ss_sweep_sink *sink, ss_err *err);
/* Ranks > 0: run the units rank 0 sends until it says stop. */
void ss_sweep_run_mpi_worker(const ss_sweep *sw);

#endif
