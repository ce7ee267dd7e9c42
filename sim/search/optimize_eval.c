/* optimize_eval.c: scores candidate allocation matrices by running the
 * ensemble world in process, in forked workers for a batch when jobs > 1
 * (or hands the batch to the context's spread, MPI ranks), and writes one
 * trace row per evaluation (optimize_eval.h). */
#include "search/optimize_eval.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/afile.h"
#include "serve/result.h"
#include "world/world.h"

const char ss_opt_trace_header[] = "eval,algorithm,iteration,matrix,throughput_img_s,feasible\n";

size_t ss_opt_left(const ss_opt_ctx *c) { return c->budget > c->used ? c->budget - c->used : 0; }

char *ss_opt_matrix_str(const uint32_t *a, uint32_t d, uint32_t m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&buf, &len);
    for (uint32_t i = 0; i < d; i++)
        for (uint32_t j = 0; j < m; j++) fprintf(fp, "%s%u", j ? ":" : i ? "/" : "", a[i * m + j]);
    fclose(fp);
    return buf;
}

/* Score one valid candidate in this process: throughput (mean over the
 * replications), 0 when out of memory; NAN with err set on a failure. */
static double score_one(ss_opt_ctx *c, const uint32_t *a, ss_err *err)
{
    if (ss_ens_overfull(c->e, c->sc, a) >= 0) return 0;
    ss_ens_set_matrix(c->e, a);
    double sum = 0;
    for (uint32_t r = 0; r < c->sc->replications; r++) {
        ss_world *w = ss_world_build(c->sc, r, NULL, err);
        if (!w) return NAN;
        ss_world_run(w);
        ss_run_result res;
        ss_world_result(w, &res);
        double v = NAN;
        for (size_t k = 0; k < res.nextras; k++)
            if (strcmp(res.extras[k].col, "throughput_img_s") == 0) v = res.extras[k].value;
        ss_run_result_free(&res);
        ss_world_free(w);
        if (!(v >= 0)) {
            ss_err_at(err, c->sc->path, 1, 1, "optimize: a run reported no throughput_img_s");
            return NAN;
        }
        sum += v;
    }
    return sum / c->sc->replications;
}

/* In a forked worker: score candidates [lo, hi) and send the doubles. */
static void child(ss_opt_ctx *c, const uint32_t *as, size_t lo, size_t hi, int fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4);
    ss_afile_forget();
    size_t dm = (size_t)c->ndev * c->nmem;
    for (size_t k = lo; k < hi; k++) {
        ss_err err = {0};
        double s = score_one(c, as + k * dm, &err);
        const char *p = (const char *)&s;
        for (size_t off = 0; off < sizeof s;) {
            ssize_t w = write(fd, p + off, sizeof s - off);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) _exit(3);
            off += (size_t)w;
        }
    }
    _exit(0);
}

/* Score candidates [0, n) in `jobs` workers, contiguous shares in order. */
static int score_forked(ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err)
{
    unsigned j = c->jobs < n ? c->jobs : (unsigned)n;
    pid_t *pid = ss_xcalloc(j, sizeof *pid);
    int *fd = ss_xcalloc(j, sizeof *fd);
    size_t *lo = ss_xcalloc(j + 1, sizeof *lo);
    for (unsigned w = 0; w <= j; w++) lo[w] = n * w / j;
    int rc = 0;
    unsigned started = 0;
    fflush(NULL); /* nothing buffered twice */
    for (; started < j; started++) {
        int p[2];
        if (pipe(p) != 0) {
            rc = ss_err_at(err, NULL, 0, 0, "optimize: cannot make a pipe: %s", strerror(errno));
            break;
        }
        pid_t parent = getpid(), k = fork();
        if (k < 0) {
            close(p[0]);
            close(p[1]);
            rc = ss_err_at(err, NULL, 0, 0, "optimize: cannot start a worker process: %s", strerror(errno));
            break;
        }
        if (k == 0) {
            close(p[0]);
            child(c, as, lo[started], lo[started + 1], p[1], parent);
        }
        close(p[1]);
        pid[started] = k;
        fd[started] = p[0];
    }
    /* Read each worker's scores to the end, in order; a worker blocked on a
     * full pipe resumes when its turn comes. */
    for (unsigned w = 0; w < started; w++) {
        size_t want = (lo[w + 1] - lo[w]) * sizeof(double), got = 0;
        char *dst = (char *)(scores + lo[w]);
        while (got < want) {
            ssize_t r = read(fd[w], dst + got, want - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        close(fd[w]);
        int st = 0;
        while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR) {}
        if (rc == 0 && (got < want || !WIFEXITED(st) || WEXITSTATUS(st) != 0))
            rc = ss_err_at(err, NULL, 0, 0, "optimize: a worker process failed (%s)",
                           WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "no scores");
    }
    free(pid);
    free(fd);
    free(lo);
    return rc;
}

int ss_opt_score(ss_opt_ctx *c, const uint32_t *as, size_t n, double *scores, ss_err *err)
{
    if (c->jobs > 1 && n > 1) return score_forked(c, as, n, scores, err);
    size_t dm = (size_t)c->ndev * c->nmem;
    for (size_t k = 0; k < n; k++) scores[k] = score_one(c, as + k * dm, err);
    return 0;
}

long ss_opt_eval(ss_opt_ctx *c, const uint32_t *as, size_t n, long iter, double *scores, ss_err *err)
{
    size_t left = ss_opt_left(c);
    if (n > left) n = left;
    size_t dm = (size_t)c->ndev * c->nmem;
    for (size_t k = 0; k < n; k++) {
        const uint32_t *a = as + k * dm;
        long bad = ss_ens_invalid(a, c->ndev, c->nmem, c->e->batches, c->e->nbatches);
        if (bad < 0) bad = ss_ens_unplaceable(c->e, a);
        if (bad >= 0) {
            char *s = ss_opt_matrix_str(a, c->ndev, c->nmem);
            ss_err_at(err, c->sc->path, 1, 1, "optimize: internal: candidate %s is invalid at entry %ld", s, bad);
            free(s);
            return -1;
        }
    }
    if (n == 0) return 0;
    if ((c->spread && n > 1 ? c->spread(c, as, n, scores, err) : ss_opt_score(c, as, n, scores, err)) < 0) return -1;
    for (size_t k = 0; k < n; k++) {
        if (isnan(scores[k])) {
            if (!err->set) ss_err_at(err, c->sc->path, 1, 1, "optimize: a candidate's run failed");
            return -1;
        }
        int feasible = ss_ens_overfull(c->e, c->sc, as + k * dm) < 0;
        c->infeasible += !feasible;
        if (c->trace) {
            char *s = ss_opt_matrix_str(as + k * dm, c->ndev, c->nmem);
            fprintf(c->trace, "%zu,%s,%ld,%s,%.9g,%d\n", c->used + k, c->algo, iter, s, scores[k], feasible);
            free(s);
        }
    }
    c->used += n;
    return (long)n;
}
