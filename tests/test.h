/* test.h: CUnit glue.  Each tests/test_X.c ends with
 *   SS_TEST_SUITE("X", {"name", fn}, ...)
 * which registers its cases at start-up; tests/main.c runs them all (or the
 * suites named on the command line). */
#ifndef SS_TEST_H
#define SS_TEST_H

#include <CUnit/CUnit.h>

typedef struct ss_test_case {
    const char *name;
    void (*fn)(void);
} ss_test_case;

void ss_test_register(const char *suite, const ss_test_case *cases);

/* Paths for tests that run the real CLI or read shipped files. */
#ifndef SS_BUILD_DIR
#define SS_BUILD_DIR "build"
#endif
#ifndef SS_SRC_DIR
#define SS_SRC_DIR "."
#endif
#define SS_BIN SS_BUILD_DIR "/servesim"

/* Run a shell command, capturing stdout+stderr into *out (malloc'd, may be
 * NULL) and returning the exit status (or -1). */
int ss_test_sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A fresh empty temporary directory (malloc'd path). */
char *ss_test_tmpdir(void);
/* Write text to dir/name (folders in name are made); returns the malloc'd path. */
char *ss_test_write(const char *dir, const char *name, const char *text);
/* Remove a directory tree and free its (malloc'd) path; NULL is fine. */
void ss_test_rmtree(char *dir);
/* 1 if `servesim sweep SWEEP -j 2`, run in the source tree, writes exactly
 * the committed file REFERENCE (both relative to the source tree);
 * otherwise 0, with the difference printed. */
int ss_test_sweep_reproduces(const char *sweep, const char *reference);
/* Completions in a requests file (`--requests-csv`, read with ss_csv_read):
 * the rows not dropped whose finish_s is inside [from_s, to_s). */
struct ss_csv;
size_t ss_test_finished_in(const struct ss_csv *csv, double from_s, double to_s);
/* 1 if `needle` occurs in `hay`; otherwise 0, with both printed to stderr
 * so a failed assertion shows what was there instead. */
int ss_test_has(const char *hay, const char *needle);
/* Bad input: `servesim run` on the scenario text `yaml` (written as s.yaml
 * in a fresh folder) exits 2, prints msg, and writes no output file. */
void ss_test_refused(const char *yaml, const char *msg);
/* The same, and the message is positioned on line `line` of s.yaml (s.yaml:line:). */
void ss_test_refused_at(const char *yaml, int line, const char *msg);
/* `servesim ARGS` run in dir (within 20 s) exits 2 and prints `said`
 * (asserted; the command and its output printed when not). */
void ss_test_cmd_refused(const char *dir, const char *args, const char *said);
/* 1-based column of the first `needle` on 1-based line `line` of `text`
 * (0 if absent): expected positions are computed from the text a test
 * wrote, not typed in by hand. */
int ss_test_col_of(const char *text, int line, const char *needle);

#define SS_TEST_SUITE(suite_name, ...)                                              \
    static const ss_test_case ss_test_cases_[] = {__VA_ARGS__, {0, 0}};             \
    __attribute__((constructor)) static void ss_test_register_(void)                 \
    {                                                                                \
        ss_test_register(suite_name, ss_test_cases_);                                \
    }

#endif
