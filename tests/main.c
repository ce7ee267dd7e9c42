/* main.c: the CUnit test runner.  Suites register themselves (test.h);
 * arguments, if any, name the suites to run; each suite ends with one line,
 * [k/N] suite NAME: T tests ok (S s), and its failed assertions (usage below).
 * Exit status 1 on any failure, 2 on bad usage. */
#include "test.h"

#include "core/csvread.h"
#include "core/util.h"

#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SUITES 128
static struct {
    const char *name;
    const ss_test_case *cases;
} suites[MAX_SUITES];
static int nsuites;

void ss_test_register(const char *suite, const ss_test_case *cases)
{
    if (nsuites == MAX_SUITES) {
        fprintf(stderr, "too many test suites\n");
        exit(2);
    }
    suites[nsuites].name = suite;
    suites[nsuites].cases = cases;
    nsuites++;
}

int ss_test_sh(char **out, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char full[8300];
    snprintf(full, sizeof full, "( %s ) 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p) return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += r;
        if (cap - len < 1024) buf = realloc(buf, cap *= 2);
    }
    if (buf) buf[len] = '\0';
    int st = pclose(p);
    if (out) *out = buf;
    else free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *ss_test_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/servesim-test-XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

char *ss_test_write(const char *dir, const char *name, const char *text)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    for (char *slash = path + strlen(dir) + 1; (slash = strchr(slash, '/')); slash++) { /* folders in name */
        *slash = '\0';
        mkdir(path, 0777);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

void ss_test_rmtree(char *dir)
{
    if (dir) ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

size_t ss_test_finished_in(const ss_csv *csv, double from_s, double to_s)
{
    long fin = ss_csv_col(&csv->rows[0], "finish_s"), drop = ss_csv_col(&csv->rows[0], "dropped");
    size_t n = 0;
    for (size_t r = 1; r < csv->nrows; r++) {
        double t = atof(csv->rows[r].f[fin]);
        n += strcmp(csv->rows[r].f[drop], "0") == 0 && t >= from_s && t < to_s;
    }
    return n;
}

int ss_test_sweep_reproduces(const char *sweep, const char *reference)
{
    char *dir = ss_test_tmpdir();
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' sweep '%s' -j 2 --quiet -o '%s/sweep.csv' 2>&1 && cmp '%s/sweep.csv' '%s' 2>&1",
                        SS_SRC_DIR, SS_BIN, sweep, dir, dir, reference);
    if (rc) fprintf(stderr, "\n  %s differs (intended? then `make reference`): %s\n", reference, out ? out : "");
    free(out);
    ss_test_rmtree(dir);
    return rc == 0;
}

void ss_test_cmd_refused(const char *dir, const char *args, const char *said)
{
    char *out = NULL;
    ss_test_sh(&out, "cd '%s' && timeout 20 '%s' %s; echo \"rc=$?\"", dir, SS_BIN, args);
    int ok = out && strstr(out, "rc=2\n") && strstr(out, said);
    CU_ASSERT(ok);
    if (!ok) fprintf(stderr, "\n`servesim %s`: expected exit 2 saying '%s':\n%s", args, said, out ? out : "");
    free(out);
}

int ss_test_has(const char *hay, const char *needle)
{
    int ok = hay && strstr(hay, needle) != NULL;
    if (!ok) fprintf(stderr, "\n  missing: %s\n  in:      %s\n", needle, hay ? hay : "(null)");
    return ok;
}

void ss_test_refused(const char *yaml, const char *msg) { ss_test_refused_at(yaml, 0, msg); }

void ss_test_refused_at(const char *yaml, int line, const char *msg)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv", dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    if (line > 0) {
        char at[32];
        snprintf(at, sizeof at, "s.yaml:%d:", line);
        CU_ASSERT(ss_test_has(out, at));
    }
    CU_ASSERT(ss_test_has(out, msg));
    char r[1024];
    snprintf(r, sizeof r, "%s/r.csv", dir);
    CU_ASSERT_NOT_EQUAL(access(r, F_OK), 0);
    free(out);
    ss_test_rmtree(dir);
}

int ss_test_col_of(const char *text, int line, const char *needle)
{
    const char *p = text;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) return 0;
    const char *eol = strchr(p, '\n');
    const char *hit = strstr(p, needle);
    if (!hit || (eol && hit > eol)) return 0;
    return (int)(hit - p) + 1;
}

static const char usage[] =
    "usage: run_tests [-v] [SUITE ...] [-x SUITE ...]\n"
    "       run_tests --list | --help\n"
    "\n"
    "Runs the CUnit suites named (default: every suite, in the order --list gives) and prints a\n"
    "line per suite as it ends, [k/N] suite NAME: T tests ok (S s), with each failed assertion\n"
    "under it as file:line; on a terminal the suite running is shown meanwhile.\n"
    "\n"
    "  -x, --exclude SUITE  leave this suite out (repeatable; make test-quick leaves out the slow ones)\n"
    "  --list               the suites selected, one a line, with their number of tests\n"
    "  -v, --verbose        also every test's name and result as it runs\n"
    "  -h, --help           this text\n"
    "\n"
    "From make: make test TESTS=\"SUITE ...\" (the named suites), make test-quick (the edit loop's\n"
    "fast suites), make test (all of them, the doc test included; what CI runs).\n"
    "Exit status: 0 all passed, 1 a test failed, 2 bad usage (an unknown suite or option).\n";

/* The suites selected by argv (every one without names), in registration
 * order; -1 with a message on an unknown name. */
static int select_suites(int argc, char **argv, int *picked)
{
    const char **names = calloc((size_t)nsuites + 1, sizeof *names);
    int *left_out = calloc((size_t)nsuites + 1, sizeof *left_out);
    for (int i = 0; i < nsuites; i++) names[i] = suites[i].name;
    int any = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        int exclude = strcmp(argv[a], "-x") == 0 || strcmp(argv[a], "--exclude") == 0;
        if (exclude) a++; /* main checked that a name follows */
        else if (argv[a][0] == '-') continue;
        else any = 1;
        int found = 0;
        for (int i = 0; i < nsuites; i++)
            if (strcmp(suites[i].name, argv[a]) == 0) {
                found = 1;
                if (exclude) left_out[i] = 1;
                else picked[i] = 1;
            }
        if (!found) {
            const char *near = ss_suggest(argv[a], names);
            fprintf(stderr, "run_tests: no suite named '%s'%s%s%s (run_tests --list names them)\n", argv[a],
                    near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            bad = 1;
        }
    }
    free(names);
    for (int i = 0; i < nsuites; i++) picked[i] = (picked[i] || !any) && !left_out[i];
    free(left_out);
    return bad ? -1 : 0;
}

/* What the tests print (stdout and stderr, and their children's through the
 * descriptors they inherit) passes through one pipe to the real stderr, and
 * the runner's own lines go to the real stdout (`out`): the runner then knows
 * whether the tests left a line open, and a suite's line starts a line of
 * its own.  A sync marker written down the pipe tells when all before it is
 * out.  The relay writes with write(2) only, so a test that forks (sweep
 * workers) copies no lock held. */
static FILE *out;
static int relay_out = -1, relay_in = -1;
static pthread_mutex_t relay_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t relay_cv = PTHREAD_COND_INITIALIZER;
static unsigned relay_synced;  /* sync markers seen */
static int relay_mid_line;     /* the last byte out was not a newline */
static const char relay_mark[] = "\x01ss-test-sync\x01";

static void relay_write(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(relay_out, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void *relay(void *arg)
{
    char in[4096], buf[4096 + sizeof relay_mark];
    size_t matched = 0, mark = sizeof relay_mark - 1;
    for (;;) {
        ssize_t n = read(relay_in, in, sizeof in);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return arg;
        size_t o = 0;
        unsigned seen = 0;
        for (ssize_t i = 0; i < n; i++) {
            if (in[i] == relay_mark[matched]) {
                if (++matched == mark) matched = 0, seen++;
                continue;
            }
            memcpy(buf + o, relay_mark, matched); /* a partial marker was text after all */
            o += matched;
            matched = in[i] == relay_mark[0];
            if (!matched) buf[o++] = in[i];
        }
        relay_write(buf, o);
        pthread_mutex_lock(&relay_mu);
        if (o) relay_mid_line = buf[o - 1] != '\n';
        relay_synced += seen;
        pthread_cond_broadcast(&relay_cv);
        pthread_mutex_unlock(&relay_mu);
    }
}

static void relay_start(void)
{
    out = stdout;
    int fd[2], so = dup(1);
    pthread_t t;
    if (so < 0 || (relay_out = dup(2)) < 0 || pipe(fd) < 0) return;
    FILE *f = fdopen(so, "w");
    if (!f) return;
    relay_in = fd[0];
    fcntl(relay_in, F_SETFD, FD_CLOEXEC);
    fcntl(relay_out, F_SETFD, FD_CLOEXEC);
    fcntl(so, F_SETFD, FD_CLOEXEC);
    if (dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0 || pthread_create(&t, NULL, relay, NULL) != 0) {
        dup2(so, 1);
        dup2(relay_out, 2);
        relay_in = -1;
        fclose(f);
    } else {
        out = f;
        setvbuf(out, NULL, _IOLBF, 0);
        setvbuf(stdout, NULL, _IOLBF, 0);
    }
    close(fd[1]);
}

/* Wait until everything written to stderr so far is out; then end a line
 * left open. */
static void relay_sync(void)
{
    if (relay_in < 0) return;
    fflush(stdout);
    fflush(stderr);
    pthread_mutex_lock(&relay_mu);
    unsigned want = relay_synced + 1;
    pthread_mutex_unlock(&relay_mu);
    if (write(2, relay_mark, sizeof relay_mark - 1) < 0) return;
    pthread_mutex_lock(&relay_mu);
    while (relay_synced < want) pthread_cond_wait(&relay_cv, &relay_mu);
    if (relay_mid_line) relay_write("\n", 1);
    relay_mid_line = 0;
    pthread_mutex_unlock(&relay_mu);
}

/* -v: each test's name as it starts, and its result. */
static void test_started(const CU_pTest test, const CU_pSuite suite)
{
    fprintf(out, "  %s: %s ... ", suite->pName, test->pName);
    fflush(out);
}

static void test_done(const CU_pTest test, const CU_pSuite suite, const CU_pFailureRecord failure)
{
    fprintf(out, "%s\n", failure ? "FAILED" : "ok");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int list = 0, verbose = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(argv[a], "--list") == 0) {
            list = 1;
        } else if (strcmp(argv[a], "-v") == 0 || strcmp(argv[a], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[a], "-x") == 0 || strcmp(argv[a], "--exclude") == 0) {
            if (++a == argc) {
                fprintf(stderr, "run_tests: %s needs a suite's name\n%s", argv[a - 1], usage);
                return 2;
            }
        } else if (argv[a][0] == '-') {
            fprintf(stderr, "run_tests: unknown option '%s'\n%s", argv[a], usage);
            return 2;
        }
    }
    int *picked = calloc((size_t)nsuites + 1, sizeof *picked);
    if (select_suites(argc, argv, picked) < 0) {
        free(picked);
        return 2;
    }
    if (list) {
        for (int i = 0; i < nsuites; i++) {
            if (!picked[i]) continue;
            int n = 0;
            for (const ss_test_case *c = suites[i].cases; c->name; c++) n++;
            printf("%-20s %3d test%s\n", suites[i].name, n, n == 1 ? "" : "s");
        }
        free(picked);
        return 0;
    }
    /* Library-level tests build worlds in this process, whose executable
     * lives in build/tests/: point the loader at the build's policies. */
    setenv("SERVESIM_PLUGIN_PATH", SS_BUILD_DIR "/policies", 0);
    /* The tables the tests read are servesim's under a UTF-8 locale (a test
     * of the ASCII fallback sets its own), whatever the caller's. */
    setenv("LC_ALL", "C.UTF-8", 1);
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    relay_start();
    CU_pSuite *run = calloc((size_t)nsuites + 1, sizeof *run);
    int nrun = 0;
    for (int i = 0; i < nsuites; i++) {
        if (!picked[i]) continue;
        CU_pSuite s = CU_add_suite(suites[i].name, NULL, NULL);
        for (const ss_test_case *c = suites[i].cases; c->name; c++) CU_add_test(s, c->name, c->fn);
        run[nrun++] = s;
    }
    if (verbose) {
        CU_set_test_start_handler(test_started);
        CU_set_test_complete_handler(test_done);
    }
    int tty = isatty(fileno(out)), wide = nrun >= 100 ? 3 : nrun >= 10 ? 2 : 1;
    unsigned tests = 0, failed_tests = 0;
    char failed_names[4096] = "";
    double t0 = now_s();
    for (int k = 0; k < nrun; k++) {
        /* On a terminal, the suite running until its line replaces it (what a
         * test prints meanwhile overwrites it from the left). */
        if (tty && !verbose) {
            fprintf(out, "[%*d/%d] suite %s ...\r", wide, k + 1, nrun, run[k]->pName);
            fflush(out);
        }
        double ts = now_s();
        CU_run_suite(run[k]);
        double took = now_s() - ts;
        relay_sync();
        CU_pRunSummary sum = CU_get_run_summary();
        unsigned n = sum->nTestsRun, f = sum->nTestsFailed;
        tests += n;
        failed_tests += f;
        fprintf(out, "%s[%*d/%d] suite %s: ", tty && !verbose ? "\033[K" : "", wide, k + 1, nrun, run[k]->pName);
        if (f) fprintf(out, "%u of %u test%s FAILED (%.1f s)\n", f, n, n == 1 ? "" : "s", took);
        else fprintf(out, "%u test%s ok (%.1f s)\n", n, n == 1 ? "" : "s", took);
        for (CU_pFailureRecord r = CU_get_failure_list(); r; r = r->pNext)
            fprintf(out, "    %s:%u: %s: %s\n", r->strFileName ? r->strFileName : "?", r->uiLineNumber,
                    r->pTest ? r->pTest->pName : "?", r->strCondition ? r->strCondition : "?");
        if (f && strlen(failed_names) + strlen(run[k]->pName) + 2 < sizeof failed_names) {
            if (failed_names[0]) strcat(failed_names, " ");
            strcat(failed_names, run[k]->pName);
        }
        fflush(out);
    }
    CU_cleanup_registry();
    free(run);
    free(picked);
    relay_sync();
    if (tests == 0) {
        fprintf(out, "run_tests: no tests ran\n");
        return 1;
    }
    fprintf(out, "run_tests: %d suite%s, %u tests, %u failed (%.1f s)\n", nrun, nrun == 1 ? "" : "s", tests,
            failed_tests, now_s() - t0);
    if (failed_tests) fprintf(out, "run_tests: to run the failed suites again: make test TESTS=\"%s\"\n", failed_names);
    return failed_tests ? 1 : 0;
}
