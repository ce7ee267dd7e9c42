/* main.c: the CUnit test runner.  Suites register themselves (test.h);
 * arguments, if any, name the suites to run.  Exit status 1 on any failure. */
#include "test.h"

#include "core/csvread.h"

#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static int wanted(const char *name, int argc, char **argv)
{
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    /* Library-level tests build worlds in this process, whose executable
     * lives in build/tests/: point the loader at the build's policies. */
    setenv("SERVESIM_PLUGIN_PATH", SS_BUILD_DIR "/policies", 0);
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    for (int i = 0; i < nsuites; i++) {
        if (!wanted(suites[i].name, argc, argv)) continue;
        CU_pSuite s = CU_add_suite(suites[i].name, NULL, NULL);
        for (const ss_test_case *c = suites[i].cases; c->name; c++) CU_add_test(s, c->name, c->fn);
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (run == 0) {
        fprintf(stderr, "no tests ran\n");
        return 1;
    }
    return failed ? 1 : 0;
}
