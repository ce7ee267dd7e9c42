/* test_optimize.c: `servesim optimize` (issue 17, step 2; sim/search/
 * optimize*.c; seed E = ../shared/seeds/ensembles.md §2.3-§2.5).
 *
 * - Algorithm 1 on a hand-built memory table gives the matrix worked by
 *   hand below (decreasing size, worst fit, GPUs first, the CPU when no GPU
 *   fits, a failure when nothing fits);
 * - Algorithm 2 never returns a worse matrix than its start (several
 *   seeds, a start that is not Algorithm 1's, memory tight enough that some
 *   neighbours score 0) and stays within max_iter x max_neighs + 1;
 * - the same seed gives a byte-identical trace; -j 2 gives the trace of -j 1;
 * - under mpirun (optimize_mpi.c) 2 ranks, and 3 ranks of -j 2, give -j 1's
 *   trace bytes; bad input there exits 2 with one message;
 * - annealing and greedy on the same budget both run and report;
 * - the D - M rule; bad input exits 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/optimize_eval.h"
#include "search/optimize_search.h"
#include "input/scenario_load.h"
#include "test.h"

/* Algorithm 1 by hand.  Devices: cpu (64), gpu0 (10), gpu1 (8), gpu2 (10);
 * the same need on every device: m0 6, m1 3, m2 5, m3 4, m4 5, m5 4, m6 2.
 * Order (decreasing, ties in order): m0 m2 m4 m3 m5 m1 m6.  Left after
 * placing on (gpu0, gpu1, gpu2):
 *   m0: (4, 2, 4)   -> gpu0 (first of the tie)   used (6, 0, 0)
 *   m2: (-1, 3, 5)  -> gpu2                      used (6, 0, 5)
 *   m4: (-1, 3, 0)  -> gpu1                      used (6, 5, 5)
 *   m3: (0, -1, 1)  -> gpu2                      used (6, 5, 9)
 *   m5: (0, -1, -3) -> gpu0 (fits exactly)       used (10, 5, 9)
 *   m1: (-3, 0, -2) -> gpu1 (fits exactly)       used (10, 8, 9)
 *   m6: (-2, -2, -1) -> gpu2 does not fit: the CPU. */
static void wfd_by_hand(void)
{
    enum { D = 4, M = 7 };
    double sz[M] = {6, 3, 5, 4, 5, 4, 2}, need[D * M], cap[D] = {64, 10, 8, 10};
    int gpu[D] = {0, 1, 1, 1};
    for (int d = 0; d < D; d++)
        for (int m = 0; m < M; m++) need[d * M + m] = sz[m];
    uint32_t a[D * M];
    CU_ASSERT_EQUAL(ss_opt_wfd_table(D, M, need, cap, gpu, sz, 8, a), -1);
    static const uint32_t want[D * M] = {0, 0, 0, 0, 0, 0, 8, /* cpu: m6 */
                                         8, 0, 0, 0, 0, 8, 0, /* gpu0: m0 m5 */
                                         0, 8, 0, 0, 8, 0, 0, /* gpu1: m1 m4 */
                                         0, 0, 8, 8, 0, 0, 0}; /* gpu2: m2 m3 */
    CU_ASSERT_EQUAL(memcmp(a, want, sizeof want), 0);
    /* A member that cannot go on a GPU (no profile there) goes to the CPU;
     * one that fits nowhere fails Algorithm 1 (E §2.3 line 24). */
    for (int d = 1; d < D; d++) need[d * M + 1] = -1;
    CU_ASSERT_EQUAL(ss_opt_wfd_table(D, M, need, cap, gpu, sz, 8, a), -1);
    CU_ASSERT_EQUAL(a[0 * M + 1], 8);
    CU_ASSERT_EQUAL(a[2 * M + 6], 8); /* m6 then fits on gpu1, which m1 left */
    for (int d = 1; d < D; d++) need[d * M + 6] = -1;
    cap[0] = 4; /* the CPU takes m1 (3), then m6 (2, CPU only) fits nowhere */
    CU_ASSERT_EQUAL(ss_opt_wfd_table(D, M, need, cap, gpu, sz, 8, a), 6);
}

/* The D - M rule (E §2.4): IMN1 on 12 GPUs + CPU gives 12, IMN4 keeps 10. */
static void d_minus_m(void)
{
    CU_ASSERT_EQUAL(ss_opt_max_iter(10, 13, 1), 12);
    CU_ASSERT_EQUAL(ss_opt_max_iter(10, 13, 4), 10);
    CU_ASSERT_EQUAL(ss_opt_max_iter(10, 3, 5), 10);
}

/* Load the shipped tiny ensemble, with extra sets. */
static int load(ss_scenario *sc, const char *const *sets, size_t nsets)
{
    char *path = ss_xasprintf("%s/scenarios/ensemble/tiny-benchmark.yaml", SS_SRC_DIR);
    ss_err err = {0};
    int rc = ss_scenario_load(sc, path, NULL, (char *const *)sets, nsets, &err);
    if (rc < 0) fprintf(stderr, "\n%s\n", err.msg);
    free(path);
    return rc;
}

/* Run a search on the tiny ensemble; its trace (malloc'd) and result. */
static int search(ss_opt_params p, unsigned jobs, size_t budget, const char *const *sets, size_t nsets, char **trace,
                  ss_opt_result *r, ss_opt_ctx *out)
{
    ss_scenario sc;
    if (load(&sc, sets, nsets) < 0) {
        ss_scenario_free(&sc);
        return -1;
    }
    size_t len = 0;
    FILE *fp = open_memstream(trace, &len);
    ss_opt_ctx c = {.sc = &sc, .e = sc.ensemble, .ndev = sc.ensemble->ndevices, .nmem = sc.ensemble->nmembers,
                    .jobs = jobs, .budget = budget, .trace = fp, .algo = "t"};
    ss_err err = {0};
    int rc = ss_opt_search(&c, &p, r, &err);
    if (rc < 0) fprintf(stderr, "\n%s\n", err.msg);
    fclose(fp);
    if (out) *out = c;
    ss_scenario_free(&sc);
    return rc;
}

static const char *const tight[] = {"hosts.n0.devices.gpu0.vram_gib=2", "hosts.n0.devices.gpu1.vram_gib=2"};

static void greedy_never_worse(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        ss_opt_params p = {.algo = SS_OPT_GREEDY, .max_neighs = 3, .max_iter = 10, .seed = seed, .start_scenario = 1};
        ss_opt_result r = {0};
        char *tr = NULL;
        ss_opt_ctx c;
        CU_ASSERT_EQUAL_FATAL(search(p, 1, SIZE_MAX, tight, 2, &tr, &r, &c), 0);
        CU_ASSERT(r.best_score >= r.start_score);
        CU_ASSERT(r.start_score > 0);
        CU_ASSERT(c.used <= 1 + 10 * 3);
        /* the start is the scenario's matrix, and it is the trace's first row */
        CU_ASSERT_EQUAL(strncmp(tr, "0,t,0,0:0/16:8/0:32,", 20), 0);
        free(tr);
        ss_opt_result_free(&r);
    }
    /* From Algorithm 1's start, the whole neighbourhood: some neighbours do not fit and score 0. */
    ss_opt_params p = {.algo = SS_OPT_GREEDY, .max_neighs = 100, .max_iter = 10, .seed = 1};
    ss_opt_result r = {0};
    char *tr = NULL;
    ss_opt_ctx c;
    CU_ASSERT_EQUAL_FATAL(search(p, 1, SIZE_MAX, tight, 2, &tr, &r, &c), 0);
    CU_ASSERT(r.best_score > r.start_score);
    CU_ASSERT(c.infeasible > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(tr, ",0,0\n")); /* a row scoring 0, infeasible */
    free(tr);
    ss_opt_result_free(&r);
}

static void same_seed_same_trace(void)
{
    for (int algo = SS_OPT_GREEDY; algo <= SS_OPT_ANNEAL; algo++) {
        ss_opt_params p = {.algo = (ss_opt_algo)algo, .max_neighs = 5, .max_iter = 10, .seed = 42,
                           .anneal_t0 = 0.05, .anneal_t1 = 0.0005};
        ss_opt_result r1 = {0}, r2 = {0};
        char *t1 = NULL, *t2 = NULL;
        CU_ASSERT_EQUAL_FATAL(search(p, 1, 60, tight, 2, &t1, &r1, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(search(p, 1, 60, tight, 2, &t2, &r2, NULL), 0);
        CU_ASSERT_STRING_EQUAL(t1, t2);
        free(t1);
        free(t2);
        ss_opt_result_free(&r1);
        ss_opt_result_free(&r2);
    }
}

static void jobs_same(void)
{
    for (int algo = SS_OPT_GREEDY; algo <= SS_OPT_ANNEAL; algo++) {
        ss_opt_params p = {.algo = (ss_opt_algo)algo, .max_neighs = 20, .max_iter = 10, .seed = 3,
                           .anneal_t0 = 0.05, .anneal_t1 = 0.0005}; /* anneal unbounded: 10 x 20 steps */
        ss_opt_result r1 = {0}, r2 = {0};
        char *t1 = NULL, *t2 = NULL;
        CU_ASSERT_EQUAL_FATAL(search(p, 1, SIZE_MAX, tight, 2, &t1, &r1, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(search(p, 2, SIZE_MAX, tight, 2, &t2, &r2, NULL), 0);
        CU_ASSERT_STRING_EQUAL(t1, t2);
        CU_ASSERT_EQUAL(r1.best_score, r2.best_score);
        free(t1);
        free(t2);
        ss_opt_result_free(&r1);
        ss_opt_result_free(&r2);
    }
}

/* Annealing and greedy on the same budget: both run, both report a best no
 * worse than the shared start (Algorithm 1's), annealing spends it all. */
static void anneal_vs_greedy(void)
{
    size_t budget = 1 + 10 * 8;
    ss_opt_params g = {.algo = SS_OPT_GREEDY, .max_neighs = 8, .max_iter = 10, .seed = 7};
    ss_opt_params a = g;
    a.algo = SS_OPT_ANNEAL;
    a.anneal_t0 = 0.05;
    a.anneal_t1 = 0.0005;
    ss_opt_result rg = {0}, ra = {0};
    char *tg = NULL, *ta = NULL;
    ss_opt_ctx cg, ca;
    CU_ASSERT_EQUAL_FATAL(search(g, 1, budget, NULL, 0, &tg, &rg, &cg), 0);
    CU_ASSERT_EQUAL_FATAL(search(a, 1, budget, NULL, 0, &ta, &ra, &ca), 0);
    CU_ASSERT_EQUAL(rg.start_score, ra.start_score);
    CU_ASSERT(rg.best_score >= rg.start_score && ra.best_score >= ra.start_score);
    CU_ASSERT(cg.used <= budget);
    CU_ASSERT_EQUAL(ca.used, budget);
    printf("\n    same budget %zu: greedy %.1f img/s in %zu evaluations, anneal %.1f img/s (start %.1f) ", budget,
           rg.best_score, cg.used, ra.best_score, ra.start_score);
    free(tg);
    free(ta);
    ss_opt_result_free(&rg);
    ss_opt_result_free(&ra);
}

/* The command: bad input exits 2 with a message; a good run writes its files. */
static void cli(void)
{
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"scenarios/ensemble/tiny-benchmark.yaml --algo gredy", "did you mean 'greedy'"},
        {"scenarios/ensemble/tiny-benchmark.yaml --algo greedy --budget 0", "--budget expects"},
        {"scenarios/ensemble/tiny-benchmark.yaml --algo greedy -j 0", "-j expects"},
        {"scenarios/ensemble/tiny-benchmark.yaml", "missing --algo"},
        {"bench/mm1.yaml --algo greedy", "bench/mm1.yaml:1:1: optimize: the scenario has no 'ensemble:'"},
        {"scenarios/ensemble/tiny-benchmark.yaml --algo bbs --set hosts.n0.devices.gpu1.kind=cpu", "bbs needs one GPU"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' optimize %s 2>&1", SS_SRC_DIR, SS_BUILD_DIR, bad[i].args);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT(ss_test_has(out, bad[i].msg));
        free(out);
    }
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' optimize scenarios/ensemble/tiny-benchmark.yaml --algo greedy "
                        "--max-neighs 10 --seed 2 -j 2 --trace '%s/t.csv' -o '%s/best.yaml' && head -1 '%s/t.csv' && "
                        "grep -c '^  - \\[' '%s/best.yaml'",
                        SS_SRC_DIR, SS_BUILD_DIR, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "eval,algorithm,iteration,matrix,throughput_img_s,feasible\n3\n"));
    free(out);
    /* The same seed again, at -j 1, and annealing twice: byte-identical trace files. */
    rc = ss_test_sh(NULL, "cd '%s' && s='%s/servesim' && $s optimize scenarios/ensemble/tiny-benchmark.yaml --algo greedy "
                    "--max-neighs 10 --seed 2 --trace '%s/u.csv' --quiet && cmp '%s/t.csv' '%s/u.csv' && "
                    "$s optimize scenarios/ensemble/tiny-benchmark.yaml --algo anneal --budget 50 --seed 9 "
                    "--trace '%s/a1.csv' --quiet && $s optimize scenarios/ensemble/tiny-benchmark.yaml --algo anneal "
                    "--budget 50 --seed 9 -j 2 --trace '%s/a2.csv' --quiet && cmp '%s/a1.csv' '%s/a2.csv' && "
                    "test $(wc -l < '%s/a1.csv') = 51",
                    SS_SRC_DIR, SS_BUILD_DIR, dir, dir, dir, dir, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    ss_test_rmtree(dir);
}

/* The MPI build beside the plain one (make test makes $(BUILD)/mpi when
 * mpicc is there); as the sweep's MPI test, root allowed (CI runs as root)
 * and shared memory only. */
static int have_mpi(void)
{
    if (ss_test_sh(NULL, "test -x '%s/mpi/servesim' && command -v mpirun >/dev/null", SS_BUILD_DIR) == 0) return 1;
    fprintf(stderr, "\n  SKIPPED: no %s/mpi/servesim or mpirun (make test builds it when mpicc exists)\n",
            SS_BUILD_DIR);
    return 0;
}

#define MPIRUN                                                                                                        \
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader mpirun --oversubscribe"

/* How many times needle is in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* mpirun -np K (-j J on each rank) writes the trace of -j 1 byte for byte,
 * and prints what -j 1 prints, once.  The batches score differently from
 * candidate to candidate (checked), so scores gathered out of order, or
 * from the wrong rank's share, change the trace. */
static void mpi_same_trace(void)
{
    if (!have_mpi()) return;
    static const struct {
        const char *algo;
        int np, jobs;
    } runs[] = {{"greedy", 2, 1}, {"bbs", 2, 1}, {"greedy", 3, 2}};
    char *dir = ss_test_tmpdir();
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        char *one = NULL, *many = NULL, *distinct = NULL;
        int rc = ss_test_sh(&one, "cd '%s' && '%s/servesim' optimize scenarios/ensemble/tiny-benchmark.yaml --algo %s "
                            "--seed 3 -j 1 --trace '%s/j1-%zu.csv' --quiet 2>&1",
                            SS_SRC_DIR, SS_BUILD_DIR, runs[i].algo, dir, i);
        CU_ASSERT_EQUAL(rc, 0);
        rc = ss_test_sh(&many, "cd '%s' && " MPIRUN " -np %d '%s/mpi/servesim' optimize "
                        "scenarios/ensemble/tiny-benchmark.yaml --algo %s --seed 3 -j %d --trace '%s/mpi-%zu.csv' "
                        "--quiet 2>&1",
                        SS_SRC_DIR, runs[i].np, SS_BUILD_DIR, runs[i].algo, runs[i].jobs, dir, i);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc) fprintf(stderr, "\n  mpirun -np %d: exit %d: %s\n", runs[i].np, rc, many ? many : "");
        CU_ASSERT_STRING_EQUAL(many ? many : "", one ? one : "-");
        CU_ASSERT_EQUAL(ss_test_sh(NULL, "cmp '%s/j1-%zu.csv' '%s/mpi-%zu.csv'", dir, i, dir, i), 0);
        /* some batch (one iteration's rows) holds at least 3 different scores */
        ss_test_sh(&distinct, "awk -F, 'NR > 1 {print $3 \",\" $5}' '%s/j1-%zu.csv' | sort -u | cut -d, -f1 | uniq -c "
                   "| sort -rn | awk 'NR == 1 {print $1}'", dir, i);
        CU_ASSERT(distinct && atoi(distinct) >= 3);
        free(one);
        free(many);
        free(distinct);
    }
    ss_test_rmtree(dir);
}

/* Under mpirun, bad input (found while every rank checks it, or by rank 0's
 * search alone) exits 2 with the message printed once. */
static void mpi_bad_input(void)
{
    if (!have_mpi()) return;
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"scenarios/ensemble/tiny-benchmark.yaml --algo gredy", "did you mean 'greedy'"},
        {"bench/mm1.yaml --algo greedy", "bench/mm1.yaml:1:1: optimize: the scenario has no 'ensemble:'"},
        {"scenarios/ensemble/tiny-benchmark.yaml --algo bbs --set hosts.n0.devices.gpu1.kind=cpu", "bbs needs one GPU"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        int rc = ss_test_sh(&out, "cd '%s' && " MPIRUN " -np 2 '%s/mpi/servesim' optimize %s 2>&1", SS_SRC_DIR,
                            SS_BUILD_DIR, bad[i].args);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_EQUAL(count_of(out, bad[i].msg), 1);
        if (rc != 2 || count_of(out, bad[i].msg) != 1) fprintf(stderr, "\n  mpirun: exit %d: %s\n", rc, out);
        free(out);
    }
}

SS_TEST_SUITE("optimize", {"Algorithm 1 on a memory table gives the matrix worked by hand", wfd_by_hand},
              {"the D - M rule", d_minus_m},
              {"Algorithm 2 never returns a worse matrix than its start", greedy_never_worse},
              {"the same seed gives a byte-identical trace", same_seed_same_trace},
              {"-j 2 gives the trace of -j 1", jobs_same},
              {"annealing and greedy on the same budget", anneal_vs_greedy}, {"the command's input and files", cli},
              {"mpirun -np 2 (and 3 ranks of -j 2) writes the trace of -j 1", mpi_same_trace},
              {"under mpirun, bad input exits 2 with one message", mpi_bad_input})
