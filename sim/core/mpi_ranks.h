/* mpi_ranks.h: MPI started, asked and stopped for the commands that spread
 * work over ranks (`servesim sweep`, sweep_mpi.c; `servesim optimize`,
 * optimize_mpi.c).  Built with `make MPI=1` (SS_MPI, mpicc); otherwise
 * these say one process. */
#ifndef SS_MPI_RANKS_H
#define SS_MPI_RANKS_H

/* Initialise MPI only when started by a launcher (mpirun, srun: it reads
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK) and return the number of
 * ranks; 1 otherwise, MPI untouched. */
int ss_mpi_start(int *argc, char ***argv);
/* This process's rank (0 when MPI is not started). */
int ss_mpi_rank(void);
/* MPI_Finalize, if ss_mpi_start initialised MPI. */
void ss_mpi_stop(void);

#endif
