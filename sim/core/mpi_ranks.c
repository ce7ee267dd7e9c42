/* mpi_ranks.c: MPI started only under a launcher, this process's rank, MPI
 * finalised (mpi_ranks.h).  Without SS_MPI: one process. */
#include "core/mpi_ranks.h"

#include <stdlib.h>

#ifdef SS_MPI
#include <mpi.h>

static int started;

int ss_mpi_start(int *argc, char ***argv)
{
    /* Only under a launcher: a plain `servesim sweep` of an MPI build
     * must not try to reach an MPI runtime. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return 1;
    MPI_Init(argc, argv);
    started = 1;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

int ss_mpi_rank(void)
{
    int rank = 0;
    if (started) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

void ss_mpi_stop(void)
{
    if (started) MPI_Finalize();
    started = 0;
}

#else /* !SS_MPI */

int ss_mpi_start(int *argc, char ***argv) { return 1; }
int ss_mpi_rank(void) { return 0; }
void ss_mpi_stop(void) {}

#endif
