/* optimize.c: `servesim optimize SCENARIO --algo wfd|greedy|bbs|anneal
 * [options]`: search the allocation matrices of an ensemble scenario
 * (`ensemble:` in benchmark mode) for the best throughput_img_s, by one of
 * E's algorithms or annealing (optimize_search.h), scoring each candidate
 * with an in-process run (optimize_eval.h); prints the start and the best,
 * writes the best matrix (-o) and one trace row per evaluation (--trace),
 * both atomically.  docs/ensembles.md, "Optimize".  Under mpirun, rank 0
 * searches and the batches are scored across the ranks (optimize_mpi.h).
 *
 * Exit 0 done; 1 a run or a write failed; 2 bad input (usage, a scenario
 * refused or without `ensemble:`, not in benchmark mode, Algorithm 1 or
 * BBS impossible on its devices). */
#include "search/optimize.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/optimize_eval.h"
#include "search/optimize_mpi.h"
#include "search/optimize_search.h"
#include "core/afile.h"
#include "input/scenario_load.h"

static const char usage[] =
    "usage: servesim optimize SCENARIO --algo wfd|greedy|bbs|anneal [options]\n"
    "\n"
    "Search the allocation matrices of an ensemble scenario (ensemble:, mode benchmark) for the\n"
    "best throughput_img_s.  Each candidate runs in process with its matrix substituted; one that\n"
    "does not fit in memory scores 0.  docs/ensembles.md, \"Optimize\".\n"
    "\n"
    "  --algo A            wfd: E's Algorithm 1 (worst-fit decreasing, GPUs first), scored once\n"
    "                      greedy: E's Algorithm 2 (bounded greedy from wfd's matrix)\n"
    "                      bbs: E's best-batch-size baseline (member i alone on GPU i)\n"
    "                      anneal: simulated annealing on greedy's neighbourhood and budget\n"
    "  --max-neighs K      greedy: neighbours sampled per iteration (default 100)\n"
    "  --max-iter N        greedy: iterations (default 10; D - M when larger, E §2.4)\n"
    "  --budget EVALS      evaluations at most (default: greedy/wfd/bbs unbounded; anneal\n"
    "                      1 + max-iter x max-neighs, greedy's bound)\n"
    "  --seed S            the searches' random stream (default 1)\n"
    "  --start wfd|scenario  greedy, anneal: start from Algorithm 1 (default) or the scenario's matrix\n"
    "  -j, --jobs N        score a batch of candidates in N worker processes (same results as -j 1);\n"
    "                      under mpirun (make MPI=1) a batch is spread over the ranks, N each\n"
    "  --trace PATH        CSV, one row per evaluation (eval,algorithm,iteration,matrix,...)\n"
    "  -o, --output PATH   the best matrix as YAML (and the --set that runs it)\n"
    "  --set KEY=VALUE     override a scenario key (repeatable);  --variant NAME\n"
    "  --quiet             print only the best score and matrix\n"
    "Exit 0 done, 1 a run or write failed, 2 bad input.\n";

/* An unsigned decimal in [lo, hi]; 0 ok, else the usage error (exit 2). */
static int uint_opt(const char *opt, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = v && v[0] >= '0' && v[0] <= '9' ? ss_strtou64(v, &end) : 0;
    if (!v || !end || *end || errno || x < lo || x > hi) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s expects a whole number from %" PRIu64 " to %" PRIu64 ", got '%%s'", opt, lo, hi);
        return ss_bad_usage("optimize", msg, v ? v : "");
    }
    *out = x;
    return 0;
}

static const char *const algos[] = {"wfd", "greedy", "bbs", "anneal", NULL};

/* The best matrix as YAML rows, with the devices and members named. */
static void write_matrix(FILE *fp, const ss_scenario *sc, const ss_ensemble_cfg *e, const uint32_t *a)
{
    fputs("matrix:            # rows:", fp);
    for (uint32_t d = 0; d < e->ndevices; d++) fprintf(fp, "%s %s", d ? "," : "", sc->devices[d].name);
    fputs("; columns:", fp);
    for (uint32_t m = 0; m < e->nmembers; m++) fprintf(fp, "%s %s", m ? "," : "", e->members[m].name);
    fputc('\n', fp);
    for (uint32_t d = 0; d < e->ndevices; d++) {
        fputs("  - [", fp);
        for (uint32_t m = 0; m < e->nmembers; m++) fprintf(fp, "%s%u", m ? ", " : "", a[d * e->nmembers + m]);
        fputs("]\n", fp);
    }
}

/* The --set that puts matrix a in the scenario; malloc'd. */
static char *set_arg(const ss_ensemble_cfg *e, const uint32_t *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&buf, &len);
    fputs("ensemble.matrix=[", fp);
    for (uint32_t d = 0; d < e->ndevices; d++) {
        fprintf(fp, "%s[", d ? "," : "");
        for (uint32_t m = 0; m < e->nmembers; m++) fprintf(fp, "%s%u", m ? "," : "", a[d * e->nmembers + m]);
        fputc(']', fp);
    }
    fputc(']', fp);
    fclose(fp);
    return buf;
}

static int optimize(int argc, char **argv)
{
    ss_cli c = {0};
    const char *variant = NULL, *trace = NULL, *algo = NULL, *start = "wfd";
    uint64_t max_neighs = 100, max_iter = 10, budget = 0, seed = 1, jobs = 1;
    int rc = 0, have_budget = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        int t = ss_cli_take(&c, "optimize", argc, argv, &i);
        if (t == 1) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (t) rc = t;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            ss_cli_free(&c);
            return 0;
        } else if (!v && (strcmp(a, "--algo") == 0 || strcmp(a, "--variant") == 0 || strcmp(a, "--trace") == 0 ||
                          strcmp(a, "--start") == 0))
            rc = ss_bad_usage("optimize", "%s needs a value", a);
        else if (strcmp(a, "--algo") == 0) algo = argv[++i];
        else if (strcmp(a, "--variant") == 0) variant = argv[++i];
        else if (strcmp(a, "--trace") == 0) trace = argv[++i];
        else if (strcmp(a, "--start") == 0) start = argv[++i];
        else if (strcmp(a, "--max-neighs") == 0) rc = uint_opt(a, v, 1, 1000000, &max_neighs), i++;
        else if (strcmp(a, "--max-iter") == 0) rc = uint_opt(a, v, 1, 1000000, &max_iter), i++;
        else if (strcmp(a, "--budget") == 0) rc = uint_opt(a, v, 1, 1000000000, &budget), i++, have_budget = 1;
        else if (strcmp(a, "--seed") == 0) rc = uint_opt(a, v, 0, UINT64_MAX, &seed), i++;
        else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) rc = uint_opt("-j", v, 1, 4096, &jobs), i++;
        else rc = ss_bad_usage("optimize", "unknown option '%s'", a);
    }
    ss_opt_params p = {.max_neighs = 0, .anneal_t0 = 0.05, .anneal_t1 = 0.0005};
    if (rc == 0 && !c.path) rc = ss_bad_usage("optimize", "%s", "missing SCENARIO");
    if (rc == 0 && !algo) rc = ss_bad_usage("optimize", "%s", "missing --algo (wfd, greedy, bbs or anneal)");
    if (rc == 0) {
        size_t k = 0;
        while (algos[k] && strcmp(algos[k], algo) != 0) k++;
        if (!algos[k]) {
            const char *near = ss_suggest(algo, algos);
            char msg[200];
            snprintf(msg, sizeof msg, "--algo: unknown algorithm '%%s' (wfd, greedy, bbs or anneal%s%s%s)",
                     near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            rc = ss_bad_usage("optimize", msg, algo);
        } else
            p.algo = (ss_opt_algo)k;
    }
    if (rc == 0 && strcmp(start, "wfd") != 0 && strcmp(start, "scenario") != 0)
        rc = ss_bad_usage("optimize", "--start expects wfd or scenario, got '%s'", start);
    if (rc) {
        ss_cli_free(&c);
        return rc;
    }
    p.max_neighs = (uint32_t)max_neighs;
    p.max_iter = (uint32_t)max_iter;
    p.seed = seed;
    p.start_scenario = strcmp(start, "scenario") == 0;

    ss_err err = {0};
    ss_scenario sc;
    if (ss_scenario_load(&sc, c.path, variant, c.sets, c.nsets, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        ss_scenario_free(&sc);
        ss_cli_free(&c);
        return 2;
    }
    if (!sc.ensemble || sc.ensemble->mode != SS_ENS_BENCHMARK) {
        fprintf(stderr, "%s:1:1: optimize: %s\n", sc.path,
                !sc.ensemble ? "the scenario has no 'ensemble:' section: optimize searches an ensemble's allocation "
                               "matrix (docs/ensembles.md)"
                             : "the ensemble is in mode deploy: optimize scores benchmark throughput (set "
                               "ensemble.mode: benchmark)");
        ss_scenario_free(&sc);
        ss_cli_free(&c);
        return 2;
    }
    /* The outputs are refused now (an input, a folder, a FIFO, a device; afile.h), before the search. */
    if ((c.output && ss_afile_check(c.output, &err) < 0) || (trace && ss_afile_check(trace, &err) < 0)) {
        fprintf(stderr, "%s\n", err.msg);
        ss_scenario_free(&sc);
        ss_cli_free(&c);
        return 2;
    }
    ss_ensemble_cfg *e = sc.ensemble;
    ss_opt_ctx ctx = {.sc = &sc, .e = e, .ndev = e->ndevices, .nmem = e->nmembers, .jobs = (unsigned)jobs,
                      .budget = SIZE_MAX, .algo = algo};
    uint32_t bound = ss_opt_max_iter(p.max_iter, e->ndevices, e->nmembers);
    if (have_budget) ctx.budget = budget;
    else if (p.algo == SS_OPT_ANNEAL) ctx.budget = 1 + (size_t)bound * p.max_neighs;
    ss_opt_result r = {0};
    ss_afile tf = {0};
    int worker_rc = ss_opt_mpi_begin(&ctx); /* ranks > 0 of mpirun score rank 0's batches, then stop here */
    if (worker_rc >= 0) {
        rc = worker_rc;
        goto out;
    }
    if (trace) {
        if (ss_afile_open(&tf, trace, &err) < 0) {
            fprintf(stderr, "%s\n", err.msg);
            rc = 2; /* the path named: bad input (afile.h) */
            goto out;
        }
        fputs(ss_opt_trace_header, tf.fp);
        ctx.trace = tf.fp;
    }
    rc = ss_opt_search(&ctx, &p, &r, &err);
    if (rc < 0) {
        fprintf(stderr, "%s\n", err.msg);
        if (trace) ss_afile_abort(&tf);
        rc = rc == -2 ? 2 : 1; /* a search that cannot start on these devices is bad input; a failed run is not */
        goto out;
    }
    char *best = ss_opt_matrix_str(r.best, e->ndevices, e->nmembers);
    char *first = ss_opt_matrix_str(r.start, e->ndevices, e->nmembers);
    char *set = set_arg(e, r.best);
    if (c.quiet) printf("%.6f %s\n", r.best_score, best);
    else {
        printf("optimize %s: %s, seed %" PRIu64 ", %zu evaluations (%zu out of memory), %u %s\n", sc.path, algo, seed,
               ctx.used, ctx.infeasible, r.iterations,
               p.algo == SS_OPT_BBS ? "members tuned" : p.algo == SS_OPT_ANNEAL ? "steps" : "moves");
        printf("start %12.3f img/s  %s\n", r.start_score, first);
        printf("best  %12.3f img/s  %s\n", r.best_score, best);
        printf("run it: servesim run %s --set '%s'\n", c.path, set);
    }
    /* The trace and the best matrix together: both appear, or neither (afile.h). */
    ss_afile of = {0}, *all[2];
    size_t nall = 0;
    if (trace) all[nall++] = &tf;
    if (c.output) {
        if (ss_afile_open(&of, c.output, &err) < 0) rc = 2; /* the path named: bad input (afile.h) */
        else {
            fprintf(of.fp, "# servesim optimize %s --algo %s --seed %" PRIu64 ": the best of %zu evaluations\n",
                    c.path, algo, seed, ctx.used);
            fprintf(of.fp, "# throughput_img_s: %.6f (start %.6f)\n", r.best_score, r.start_score);
            fprintf(of.fp, "# run it: servesim run %s --set '%s'\n", c.path, set);
            write_matrix(of.fp, &sc, e, r.best);
            all[nall++] = &of;
        }
    }
    if (rc) {
        for (size_t k = 0; k < nall; k++) ss_afile_abort(all[k]);
    } else if (ss_afile_commit_all(all, nall, &err) < 0) {
        rc = 1;
    }
    if (rc) fprintf(stderr, "%s\n", err.msg);
    free(best);
    free(first);
    free(set);
out:
    ss_opt_result_free(&r);
    ss_scenario_free(&sc);
    ss_cli_free(&c);
    return rc;
}

int ss_cmd_optimize(int argc, char **argv)
{
    ss_opt_mpi_start(); /* under mpirun: every rank checks the input, rank 0 searches (optimize_mpi.h) */
    int rc = optimize(argc, argv);
    ss_opt_mpi_end(rc);
    return rc;
}
