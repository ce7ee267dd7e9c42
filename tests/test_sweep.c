/* test_sweep.c: `servesim sweep` and `servesim compare` through the real
 * command line: the same CSV from -j 1, -j 2 and MPI ranks; a sweep killed
 * halfway and resumed equals an uninterrupted one (real kill -9, and cuts
 * at many byte offsets); a run that crashes fails alone; any row reruns
 * alone with `run --set ... --replication`; bad input (axis key not in the
 * scenario, empty axis, unwritable output, ...) exits 2 with nothing run;
 * compare's statistics on a CSV whose answer is known by hand. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE                                                                               \
    "name: t\nseed: 7\nreplications: 2\nrequests: %d\n"                                    \
    "hosts: [{name: h, devices: [{name: d0, kind: gpu}, {name: d1, kind: gpu}]}]\n"        \
    "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"                    \
    "deployment: [{model: m, device: d0}, {model: m, device: d1}]\n"                       \
    "workloads: [{name: w, kind: poisson, target: m, rate_rps: 100}]\n"

/* 3 policies x 5 loads x 3 replications = 45 runs */
#define SWEEP                                                 \
    "scenario: base.yaml\n"                                   \
    "replications: 3\n"                                       \
    "axes:\n"                                                 \
    "  - key: policies.load_balancer\n"                       \
    "    values: [round-robin, random, least-loaded]\n"       \
    "  - key: workloads.w.rate_rps\n"                         \
    "    values: [40, 80, 120, 160, 180]\n"                   \
    "output: out/sweep.csv\n"

static char *setup(int requests)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char base[1024];
    snprintf(base, sizeof base, BASE, requests);
    free(ss_test_write(dir, "base.yaml", base));
    free(ss_test_write(dir, "sweep.yaml", SWEEP));
    ss_test_sh(NULL, "mkdir '%s/out'", dir); /* the sweep file's output: folder (no run makes it) */
    return dir;
}

static int sweep(const char *dir, const char *args)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' sweep sweep.yaml %s 2>&1", dir, SS_BIN, args);
    if (rc != 0) fprintf(stderr, "\n  sweep %s: exit %d: %s\n", args, rc, out ? out : "");
    free(out);
    return rc;
}

static int same(const char *dir, const char *a, const char *b)
{
    int rc = ss_test_sh(NULL, "cd '%s' && cmp '%s' '%s'", dir, a, b);
    return rc == 0;
}

static int lines_of(const char *dir, const char *file)
{
    char *out = NULL;
    ss_test_sh(&out, "cd '%s' && wc -l < '%s'", dir, file);
    int n = out ? atoi(out) : -1;
    free(out);
    return n;
}

static void test_jobs_same_csv(void)
{
    char *dir = setup(3000);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet"), 0);
    CU_ASSERT_EQUAL(sweep(dir, "-j 1 --quiet -o out/j1.csv"), 0);
    CU_ASSERT_TRUE(same(dir, "out/sweep.csv", "out/j1.csv"));
    /* header + 45 runs x (model m + all) */
    CU_ASSERT_EQUAL(lines_of(dir, "out/sweep.csv"), 1 + 45 * 2);
    char *hdr = NULL;
    ss_test_sh(&hdr, "cd '%s' && head -1 out/sweep.csv", dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(hdr ? hdr : "", "point,scenario,variant,replication,seed,"
                                                  "policies.load_balancer,workloads.w.rate_rps,model,"));
    free(hdr);
    /* a different seed changes the numbers */
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet --set seed=8 -o out/s8.csv"), 0);
    CU_ASSERT_FALSE(same(dir, "out/sweep.csv", "out/s8.csv"));
    ss_test_rmtree(dir);
}

static void test_mpi_same_csv(void)
{
    char *dir = setup(3000);
    if (ss_test_sh(NULL, "test -x '%s/mpi/servesim' && command -v mpirun >/dev/null", SS_BUILD_DIR) != 0) {
        fprintf(stderr, "\n  SKIPPED: no %s/mpi/servesim or mpirun (make test builds it when mpicc exists)\n",
                SS_BUILD_DIR);
        ss_test_rmtree(dir);
        return;
    }
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet -o out/j2.csv"), 0);
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
                        "mpirun --oversubscribe -np 2 '%s/mpi/servesim' sweep sweep.yaml --quiet -o out/mpi.csv 2>&1",
                        dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) fprintf(stderr, "\n  mpirun: exit %d: %s\n", rc, out ? out : "");
    free(out);
    CU_ASSERT_TRUE(same(dir, "out/j2.csv", "out/mpi.csv"));
    ss_test_rmtree(dir);
}

static void test_kill_and_resume(void)
{
    /* Runs of 150,000 requests take tens of milliseconds each: kill -9 the
     * sweep once a few runs are in the file, then resume. */
    char *dir = setup(150000);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet -o out/full.csv"), 0);
    int full = lines_of(dir, "out/full.csv");
    int rc = ss_test_sh(NULL,
                        "cd '%s' && { '%s' sweep sweep.yaml -j 2 --quiet & pid=$!; "
                        "while [ ! -f out/sweep.csv ] || [ $(wc -l < out/sweep.csv) -lt 12 ]; do sleep 0.01; done; "
                        "kill -9 $pid; wait $pid; } 2>/dev/null",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 128 + 9);
    int part = lines_of(dir, "out/sweep.csv");
    CU_ASSERT_TRUE(part >= 12 && part < full);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet --resume"), 0);
    CU_ASSERT_TRUE(same(dir, "out/sweep.csv", "out/full.csv"));
    /* resuming a finished sweep runs nothing and changes nothing */
    char *out = NULL;
    ss_test_sh(&out, "cd '%s' && '%s' sweep sweep.yaml --resume 2>&1", dir, SS_BIN);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "45 runs (45 already there, 0 failed)"));
    free(out);
    CU_ASSERT_TRUE(same(dir, "out/sweep.csv", "out/full.csv"));
    ss_test_rmtree(dir);
}

static void test_resume_any_cut(void)
{
    /* Cut the finished file at many byte offsets (torn lines, half-written
     * runs, the bare header): every resume ends with identical bytes. */
    char *dir = setup(2000);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet -o out/full.csv"), 0);
    char *sz = NULL;
    ss_test_sh(&sz, "cd '%s' && stat -c %%s out/full.csv", dir);
    long size = sz ? atol(sz) : 0;
    free(sz);
    CU_ASSERT_TRUE(size > 1000);
    int bad = 0;
    for (long cut = 1; cut < size; cut += size / 13 + 1) {
        ss_test_sh(NULL, "cd '%s' && head -c %ld out/full.csv > out/cut.csv", dir, cut);
        if (sweep(dir, "-j 2 --quiet --resume -o out/cut.csv") != 0 || !same(dir, "out/cut.csv", "out/full.csv")) {
            fprintf(stderr, "\n  resume after a cut at byte %ld differs\n", cut);
            bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* Gaps (runs that failed, or rows removed): the resume runs them and
     * puts them back in run order, so the bytes are the uninterrupted ones. */
    ss_test_sh(NULL, "cd '%s' && awk -F, 'NR == 1 || ($1 != 1 && $1 != 6 && !($1 == 9 && $4 == 1))' out/full.csv "
                     "> out/gaps.csv", dir);
    CU_ASSERT_TRUE(lines_of(dir, "out/gaps.csv") < lines_of(dir, "out/full.csv"));
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet --resume -o out/gaps.csv"), 0);
    CU_ASSERT_TRUE(same(dir, "out/gaps.csv", "out/full.csv"));
    /* a results file from another sweep is refused, and left alone */
    free(ss_test_write(dir, "other.csv", "a,b\n1,2\n"));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' sweep sweep.yaml --resume -o other.csv 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "other.csv:1:1: --resume: this file's header is not this sweep's"));
    free(out);
    CU_ASSERT_EQUAL(lines_of(dir, "other.csv"), 2);
    /* the sweep file changed since the results were started: refused, the
     * file left alone (the fingerprint beside it says what changed) */
    ss_test_sh(NULL, "cd '%s' && echo '# edited' >> sweep.yaml", dir);
    rc = ss_test_sh(&out, "cd '%s' && '%s' sweep sweep.yaml --resume -o out/full.csv 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "--resume: the sweep is not the one this file was started with: was "
                                                  "'sweep file sweep.yaml"));
    free(out);
    CU_ASSERT_TRUE(same(dir, "out/gaps.csv", "out/full.csv"));
    ss_test_rmtree(dir);
}

/* A resume refused with exit 2 and `msg` on stderr, `file` left as it was. */
static void refused(const char *dir, const char *file, const char *msg)
{
    char *out = NULL;
    ss_test_sh(NULL, "cd '%s' && cp '%s' out/before.csv", dir, file);
    int rc = ss_test_sh(&out, "cd '%s' && '%s' sweep sweep.yaml -j 2 --quiet --resume -o '%s' 2>&1", dir, SS_BIN, file);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, msg));
    free(out);
    CU_ASSERT_TRUE(same(dir, file, "out/before.csv"));
}

static void test_resume_checks_rows(void)
{
    /* Every row the sweep wrote has a checksum in <out>.sums: a row edited,
     * shortened or removed in the middle is found, naming its line. */
    char *dir = setup(2000);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet -o out/full.csv"), 0);
    ss_test_sh(NULL, "cd '%s' && cp out/full.csv out/t.csv && cp out/full.csv.fingerprint out/t.csv.fingerprint && "
                     "cp out/full.csv.sums out/t.csv.sums", dir);
    /* a value edited in line 40 (its last field) */
    ss_test_sh(NULL, "cd '%s' && sed -i '40s/[0-9]$/&1/' out/t.csv", dir);
    refused(dir, "out/t.csv", "out/t.csv:40: --resume: this row is not the one the sweep wrote here");
    /* line 23 cut short, and the file whole again */
    ss_test_sh(NULL, "cd '%s' && cp out/full.csv out/t.csv && sed -i '23s/,[^,]*,[^,]*$//' out/t.csv", dir);
    refused(dir, "out/t.csv", "out/t.csv:23: --resume: this row is not the one the sweep wrote here");
    /* line 11 removed (a whole unit's rows shift up) */
    ss_test_sh(NULL, "cd '%s' && cp out/full.csv out/t.csv && sed -i '11d' out/t.csv", dir);
    refused(dir, "out/t.csv", "out/t.csv:11: --resume: this row is not the one the sweep wrote here");
    /* untouched, or only cut at the end: resumed to the same bytes */
    ss_test_sh(NULL, "cd '%s' && head -c 5000 out/full.csv > out/t.csv", dir);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet --resume -o out/t.csv"), 0);
    CU_ASSERT_TRUE(same(dir, "out/t.csv", "out/full.csv"));
    CU_ASSERT_TRUE(same(dir, "out/t.csv.sums", "out/full.csv.sums"));
    ss_test_rmtree(dir);
}

static void test_resume_checks_inputs(void)
{
    /* The fingerprint covers every file the points read: an edited trace
     * refuses the resume, naming the trace. */
    char *dir = setup(2000);
    free(ss_test_write(dir, "arrivals.csv", "timestamp_s\n0\n0.5\n1\n1.25\n2\n"));
    ss_test_sh(NULL, "cd '%s' && sed -i 's/workloads: .*/workloads: [{name: w, kind: trace, target: m, file: "
                     "arrivals.csv}]/; s/^requests: .*/duration_s: 3/' base.yaml && sed -i 's/workloads.w.rate_rps/seed/' sweep.yaml",
               dir);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet"), 0);
    char *fp = NULL;
    ss_test_sh(&fp, "cd '%s' && cat out/sweep.csv.fingerprint", dir);
    CU_ASSERT_TRUE(ss_test_has(fp, "input file arrivals.csv "));
    free(fp);
    ss_test_sh(NULL, "cd '%s' && echo 3 >> arrivals.csv", dir);
    refused(dir, "out/sweep.csv",
            "out/sweep.csv: --resume: the sweep is not the one this file was started with: was 'input file "
            "arrivals.csv ");
    ss_test_rmtree(dir);
}

static void test_failed_run_alone(void)
{
    char *dir = setup(2000);
    free(ss_test_write(dir, "crash.yaml",
                       "scenario: base.yaml\nreplications: 1\naxes:\n"
                       "  - key: policies.load_balancer\n"
                       "    values: [round-robin, {name: crash-lb, crash_after: 50}, random]\n"
                       "output: out/crash.csv\n"));
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && SERVESIM_PLUGIN_PATH='" SS_BUILD_DIR "/tests/plugins' '%s' sweep crash.yaml -j 2 "
                        "2>&1",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "point 1 (policies.load_balancer={name: crash-lb, crash_after: 50}), "
                                                  "replication 0 failed: worker process killed by signal 6"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "3 runs (0 already there, 1 failed)"));
    free(out);
    /* the two other points are there */
    CU_ASSERT_EQUAL(lines_of(dir, "out/crash.csv"), 1 + 2 * 2);
    ss_test_rmtree(dir);
}

static void test_rerun_one_row(void)
{
    char *dir = setup(3000);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet"), 0);
    /* point 13 = least-loaded (index 2) at 160 rps (index 3), replication 2 */
    char *row = NULL, *again = NULL;
    ss_test_sh(&row, "cd '%s' && awk -F, '$1 == 13 && $4 == 2 && $8 == \"all\"' out/sweep.csv | cut -d, -f9-", dir);
    int rc = ss_test_sh(NULL,
                        "cd '%s' && '%s' run base.yaml --set policies.load_balancer=least-loaded "
                        "--set workloads.w.rate_rps=160 --seed 7 --replications 3 --replication 2 -o out/one.csv "
                        "--quiet",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    ss_test_sh(&again, "cd '%s' && awk -F, '$3 == 2 && $7 == \"all\"' out/one.csv | cut -d, -f8-", dir);
    CU_ASSERT_TRUE(row && strlen(row) > 50);
    CU_ASSERT_STRING_EQUAL(row ? row : "?", again ? again : "!");
    free(row);
    free(again);
    ss_test_rmtree(dir);
}

/* Expect `sweep FILE` refused: exit 2, message starting with where, no output. */
static void bad_sweep(const char *text, const char *args, const char *want)
{
    char *dir = setup(1000);
    free(ss_test_write(dir, "bad.yaml", text));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' sweep bad.yaml %s 2>&1", dir, SS_BIN, args);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", want));
    if (!out || !strstr(out, want)) fprintf(stderr, "\n  want: %s\n  got:  %s\n", want, out ? out : "");
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && test -z \"$(ls -A out)\" && test ! -e results", dir), 0); /* nothing written */
    free(out);
    ss_test_rmtree(dir);
}

static void test_bad_input(void)
{
    /* an axis key that does not exist in the scenario: at the axis key */
    bad_sweep("scenario: base.yaml\naxes:\n  - key: requets\n    values: [1, 2]\noutput: out/x.csv\n", "",
              "bad.yaml:3:10: unknown key 'requets' in scenario (did you mean 'requests'?)");
    bad_sweep("scenario: base.yaml\naxes:\n  - key: workloads.nope.rate_rps\n    values: [1, 2]\noutput: out/x.csv\n",
              "", "bad.yaml:3:20: no item named 'nope' in workloads");
    /* an empty axis */
    bad_sweep("scenario: base.yaml\naxes:\n  - key: requests\n    values: []\noutput: out/x.csv\n", "",
              "bad.yaml:4:13: values of axis 'requests': expected at least one value");
    /* a bad value: positioned at the value in the sweep file */
    bad_sweep("scenario: base.yaml\naxes:\n  - key: workloads.w.rate_rps\n    values: [10, -3]\noutput: out/x.csv\n",
              "", "bad.yaml:4:18: rate_rps: expected a number > 0, got '-3'");
    /* zip needs equal lengths */
    bad_sweep("scenario: base.yaml\nmode: zip\naxes:\n  - {key: requests, values: [1000, 2000]}\n"
              "  - {key: seed, values: [1]}\noutput: out/x.csv\n",
              "", "bad.yaml:5:25: mode zip: axis 'seed' has 1 values, axis 'requests' has 2");
    /* unknown sweep key, missing base */
    bad_sweep("scenario: base.yaml\naxis: []\n", "", "bad.yaml:2:1: unknown key 'axis' in sweep (did you mean 'axes'?)");
    bad_sweep("scenario: nothere.yaml\naxes: [{key: seed, values: [1]}]\n", "", "bad.yaml:1:11: scenario file 'nothere.yaml' not found or not readable");
    /* an unwritable output path */
    bad_sweep("scenario: base.yaml\naxes: [{key: seed, values: [1]}]\n", "-o /proc/nonexistent/x.csv",
              "/proc/nonexistent/x.csv: cannot create");
    bad_sweep("scenario: base.yaml\naxes: [{key: seed, values: [1]}]\n", "-j 0", "-j expects a number of jobs");
}

/* compare on a CSV whose answers are known: at point a the old policy
 * takes 1.5x the new one's latency in both replications, at point b 3x. */
static const char cmp_csv[] =
    "point,variant,replication,seed,pol,x,model,latency_mean_ms\n"
    "0,,0,1,new,a,all,10\n0,,1,1,new,a,all,20\n0,,0,1,old,a,all,15\n0,,1,1,old,a,all,30\n"
    "1,,0,1,new,b,all,10\n1,,1,1,new,b,all,10\n1,,0,1,old,b,all,30\n1,,1,1,old,b,all,30\n";

static void test_compare_known(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "r.csv", cmp_csv));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' compare r.csv --by pol --baseline new --stat thesis --csv", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    /* per point: ratio 1.5 (thesis 1 - 1/1.5) and 3; aggregate: mean ratio
     * 2.25, thesis 1 - 1/2.25 = 0.555556; t(0.975, 1) = 12.7062 over two
     * points with sd 1.06066 gives a half-width of 9.52965, so the interval of the ratio reaches below 0
     * and the thesis statistic has no finite lower end */
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "kind,x,policy,metric,n,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "point,a,old,latency_mean_ms,2,15,63.531,22.5,95.2965,1.5,0,0.333333,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "point,b,old,latency_mean_ms,2,10,0,30,0,3,0,0.666667"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "aggregate,,old,latency_mean_ms,2,,,,,2.25,9.52965,0.555556,-inf,0.915108\n"));
    if (!out || !strstr(out, "aggregate,,old")) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' compare r.csv --by pol --baseline new --stat change", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "125%"));
    free(out);
    /* bad input */
    rc = ss_test_sh(&out, "cd '%s' && '%s' compare r.csv --by poll --baseline new 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "r.csv:1:1: no column 'poll' (did you mean 'pol'?)"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' compare r.csv --by pol --baseline newer 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "baseline 'newer' is not a value of column 'pol'; values: new old"));
    free(out);
    ss_test_rmtree(dir);
}

static void test_compare_sweep(void)
{
    char *dir = setup(3000);
    CU_ASSERT_EQUAL(sweep(dir, "-j 2 --quiet"), 0);
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' compare out/sweep.csv --by load_balancer --baseline round-robin", dir,
                        SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "latency_mean_ms by policies.load_balancer against round-robin"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "workloads.w.rate_rps=180"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "aggregate over 5 points"));
    free(out);
    ss_test_rmtree(dir);
}

/* The committed reference sweep (results/reference/lb-load.csv, made by
 * `make reference`) comes out byte for byte: any change of behaviour shows
 * here, and an intended one is committed with `make reference`. */
static void test_reference_reproduces(void)
{
    CU_ASSERT_TRUE(ss_test_sweep_reproduces("scenarios/sweeps/lb-load.yaml", "results/reference/lb-load.csv"));
}

SS_TEST_SUITE("sweep", {"the reference sweep reproduces results/reference/lb-load.csv", test_reference_reproduces}, {"-j 1 and -j 2 write the same CSV", test_jobs_same_csv},
              {"mpirun -np 2 writes the same CSV as -j 2", test_mpi_same_csv},
              {"kill -9 halfway, --resume: identical CSV", test_kill_and_resume},
              {"resume after a cut at any byte", test_resume_any_cut},
              {"--resume finds a row edited in the middle", test_resume_checks_rows},
              {"--resume refuses an edited trace", test_resume_checks_inputs},
              {"a crashing run fails alone", test_failed_run_alone},
              {"one row reruns alone with run --replication", test_rerun_one_row},
              {"bad input: exit 2, nothing run", test_bad_input},
              {"compare: known ratios, thesis, change", test_compare_known},
              {"compare on a sweep", test_compare_sweep})
