/* sweep_mpi.c: spreads a sweep's units over MPI ranks (see sweep_run.h).
 *
 * Rank 0 is the master: it owns the results file and hands out units one
 * at a time (dynamic scheduling, so slow points do not hold up a rank
 * that has finished); ranks 1..K-1 run them.  Messages: a worker sends
 * READY once, then RESULT (status byte '+' or '-' and the text) after each
 * unit; the master answers each with WORK (the unit number) or STOP.
 * Every rank reads and validates the sweep itself, so bad input stops all
 * of them with the same message (printed by rank 0 only).
 *
 * Built only with `make MPI=1` (SS_MPI defined, mpicc; MPI is started in
 * mpi_ranks.c); without it the master says so and the worker does nothing. */
#include "cmd/sweep_run.h"

#include <stdlib.h>
#include <string.h>

#ifdef SS_MPI
#include <mpi.h>

enum { TAG_READY = 1, TAG_RESULT, TAG_WORK, TAG_STOP };

int ss_sweep_run_mpi_master(const ss_sweep *sw, ss_sweep_sink *sink, ss_err *err)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = ss_sweep_units(sw), next = 0;
    int active = size - 1, rc = 0;
    while (active > 0) {
        MPI_Status st;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int len;
        MPI_Get_count(&st, MPI_CHAR, &len);
        char *buf = ss_xmalloc((size_t)len + 1);
        MPI_Recv(buf, len, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        buf[len] = '\0';
        if (st.MPI_TAG == TAG_RESULT && len >= 9 && sink) {
            unsigned long long unit;
            memcpy(&unit, buf, 8);
            char *text = ss_xstrdup(buf + 9);
            if (ss_sweep_sink_put(sink, (size_t)unit, buf[8] == '+', text, err) < 0) rc = -1;
        }
        free(buf);
        while (sink && rc == 0 && next < n && ss_sweep_sink_has(sink, next)) next++;
        if (sink && rc == 0 && next < n) {
            unsigned long long unit = next++;
            MPI_Send(&unit, 8, MPI_CHAR, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        } else {
            MPI_Send(NULL, 0, MPI_CHAR, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            active--;
        }
    }
    return rc;
}

void ss_sweep_run_mpi_worker(const ss_sweep *sw)
{
    MPI_Send(NULL, 0, MPI_CHAR, 0, TAG_READY, MPI_COMM_WORLD);
    for (;;) {
        unsigned long long unit;
        MPI_Status st;
        MPI_Recv(&unit, 8, MPI_CHAR, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG != TAG_WORK) break;
        char *text = NULL;
        int ok = ss_sweep_unit_run(sw, (size_t)unit, &text) == 0;
        size_t len = strlen(text);
        char *msg = ss_xmalloc(len + 9);
        memcpy(msg, &unit, 8);
        msg[8] = ok ? '+' : '-';
        memcpy(msg + 9, text, len);
        MPI_Send(msg, (int)(len + 9), MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(msg);
        free(text);
    }
}

#else /* !SS_MPI */

int ss_sweep_run_mpi_master(const ss_sweep *sw, ss_sweep_sink *sink, ss_err *err)
{
    return ss_err_at(err, NULL, 0, 0, "this servesim was built without MPI (build it with make MPI=1)");
}

void ss_sweep_run_mpi_worker(const ss_sweep *sw) {}

#endif
