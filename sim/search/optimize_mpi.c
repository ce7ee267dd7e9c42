/* optimize_mpi.c: scores `servesim optimize`'s batches across MPI ranks
 * (see optimize_mpi.h).
 *
 * Rank 0 runs the search; ranks 1..K-1 wait in ss_opt_mpi_begin.  All
 * messages are collectives on MPI_COMM_WORLD, rooted at rank 0, in this
 * order for each batch: a header broadcast (n candidates, D x M, exit
 * status), the matrices scattered in contiguous shares (MPI_Scatterv), each
 * rank's scores gathered at their candidates' places (MPI_Gatherv).  A
 * header with n = 0 is the stop, carrying rank 0's exit status.  Shares are
 * static, not handed out as they finish like sweep_mpi.c's units: a
 * batch's candidates take about the same time, and the search waits for
 * the whole batch anyway.
 *
 * Built only with `make MPI=1` (SS_MPI defined, mpicc; MPI is started in
 * mpi_ranks.c); without it there is one rank. */
#include "search/optimize_mpi.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/mpi_ranks.h"

static int ranks = 1, rank;
static int saved_err = -1; /* ranks > 0: stderr while the input is checked */

/* Ranks > 0: stderr back. */
static void unhush(void)
{
    if (saved_err < 0) return;
    fflush(stderr);
    dup2(saved_err, 2);
    close(saved_err);
    saved_err = -1;
}

int ss_opt_mpi_start(void)
{
    ranks = ss_mpi_start(NULL, NULL);
    rank = ss_mpi_rank();
    if (rank > 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            fflush(stdout);
            dup2(nul, 1);
            saved_err = dup(2);
            dup2(nul, 2);
            close(nul);
        }
    }
    return ranks;
}

#ifdef SS_MPI
#include <mpi.h>

static int waiting; /* rank 0 owes ranks > 0 a stop */

/* The header of a batch: candidates (0: stop), entries per matrix, the exit status with a stop. */
enum { H_N, H_DM, H_RC, H_LEN };

/* Rank r's share of n candidates: [lo, hi). */
static void share(size_t n, int r, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)r / (size_t)ranks;
    *hi = n * (size_t)(r + 1) / (size_t)ranks;
}

/* The share counts and offsets of every rank, in units of `per` (entries
 * per candidate); malloc'd. */
static void layout(size_t n, size_t per, int **cnt, int **off)
{
    *cnt = ss_xcalloc((size_t)ranks, sizeof **cnt);
    *off = ss_xcalloc((size_t)ranks, sizeof **off);
    for (int r = 0; r < ranks; r++) {
        size_t lo, hi;
        share(n, r, &lo, &hi);
        (*cnt)[r] = (int)((hi - lo) * per);
        (*off)[r] = (int)(lo * per);
    }
}

int ss_opt_mpi_spread(ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err)
{
    size_t dm = (size_t)c->ndev * c->nmem, lo, hi;
    if (n * dm > (size_t)0x7fffffff) /* MPI counts are ints: score here */
        return ss_opt_score(c, as, n, scores, err);
    unsigned long long h[H_LEN] = {[H_N] = n, [H_DM] = dm};
    MPI_Bcast(h, H_LEN, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int *cnt, *off;
    layout(n, dm, &cnt, &off);
    MPI_Scatterv(as, cnt, off, MPI_UINT32_T, MPI_IN_PLACE, cnt[0], MPI_UINT32_T, 0, MPI_COMM_WORLD);
    share(n, 0, &lo, &hi);
    int rc = ss_opt_score(c, as + lo * dm, hi - lo, scores + lo, err);
    for (int r = 0; r < ranks; r++) {
        cnt[r] /= (int)dm;
        off[r] /= (int)dm;
    }
    MPI_Gatherv(MPI_IN_PLACE, cnt[0], MPI_DOUBLE, scores, cnt, off, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(cnt);
    free(off);
    size_t k = 0;
    while (k < n && !isnan(scores[k])) k++;
    if (rc == 0 && k < n && k >= hi) { /* the first failure is another rank's (it printed why) */
        int r = 1;
        while (r + 1 < ranks && k >= n * (size_t)(r + 1) / (size_t)ranks) r++;
        rc = ss_err_at(err, c->sc->path, 1, 1, "optimize: a candidate's run failed on MPI rank %d", r);
    }
    return rc;
}

/* Ranks > 0: score the shares of each batch until the stop. */
static int worker(ss_opt_ctx *c)
{
    size_t dm = (size_t)c->ndev * c->nmem;
    for (;;) {
        unsigned long long h[H_LEN];
        MPI_Bcast(h, H_LEN, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        if (h[H_N] == 0) return (int)h[H_RC];
        if (h[H_DM] != dm) { /* the ranks read different scenarios */
            fprintf(stderr, "servesim optimize: MPI rank %d: the scenario has %zu matrix entries here, %llu on rank 0 "
                    "(the same files must be at the same paths on every node)\n", rank, dm, h[H_DM]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        size_t n = (size_t)h[H_N], lo, hi;
        share(n, rank, &lo, &hi);
        uint32_t *mine = ss_xcalloc((hi - lo) * dm + 1, sizeof *mine);
        double *s = ss_xcalloc(hi - lo + 1, sizeof *s);
        MPI_Scatterv(NULL, NULL, NULL, MPI_UINT32_T, mine, (int)((hi - lo) * dm), MPI_UINT32_T, 0, MPI_COMM_WORLD);
        ss_err err = {0};
        if (ss_opt_score(c, mine, hi - lo, s, &err) < 0) /* a worker process failed: NANs to rank 0 */
            for (size_t k = 0; k < hi - lo; k++) s[k] = NAN;
        if (err.set) fprintf(stderr, "servesim optimize: MPI rank %d: %s\n", rank, err.msg);
        MPI_Gatherv(s, (int)(hi - lo), MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        free(mine);
        free(s);
    }
}

int ss_opt_mpi_begin(ss_opt_ctx *c)
{
    unhush();
    if (rank > 0) return worker(c);
    if (ranks > 1) {
        c->spread = ss_opt_mpi_spread;
        waiting = 1;
    }
    return -1;
}

void ss_opt_mpi_end(int rc)
{
    unhush();
    if (waiting) {
        unsigned long long h[H_LEN] = {[H_N] = 0, [H_RC] = (unsigned long long)rc};
        MPI_Bcast(h, H_LEN, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        waiting = 0;
    }
    ss_mpi_stop();
}

#else /* !SS_MPI */

int ss_opt_mpi_spread(ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err)
{
    return ss_opt_score(c, as, n, scores, err);
}

int ss_opt_mpi_begin(ss_opt_ctx *c)
{
    unhush();
    return -1;
}

void ss_opt_mpi_end(int rc) { unhush(); }

#endif
