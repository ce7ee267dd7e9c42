/* test_runner.c: the test runner itself (tests/main.c), run as a command:
 * --help and --list say what it runs without running it, an unknown suite is
 * refused with the nearest name (exit 2), -x leaves a suite out, and a run
 * prints a [k/N] line per suite with its time and a closing count; a line a
 * test leaves open is ended before the suite's line. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define RUNNER SS_BUILD_DIR "/tests/run_tests"

static void test_help_and_list(void)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "'%s' --help", RUNNER);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "usage: run_tests [-v] [SUITE ...] [-x SUITE ...]\n"));
    CU_ASSERT_TRUE(ss_test_has(out, "make test TESTS=\"SUITE ...\""));
    CU_ASSERT_TRUE(ss_test_has(out, "make test-quick"));
    CU_ASSERT_TRUE(out && !strstr(out, "[1/")); /* runs nothing */
    free(out);
    rc = ss_test_sh(&out, "'%s' --list", RUNNER);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "\ncli ") && ss_test_has(out, "\nrunner ") && ss_test_has(out, "\ndocs "));
    CU_ASSERT_TRUE(out && !strstr(out, "[1/"));
    free(out);
    rc = ss_test_sh(&out, "'%s' --list engine cfg -x cfg", RUNNER);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(out && strncmp(out, "engine ", 7) == 0 && !strstr(out, "cfg"));
    free(out);
}

static void test_unknown_suite(void)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "'%s' engin", RUNNER);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "run_tests: no suite named 'engin'; did you mean 'engine'?"));
    free(out);
    rc = ss_test_sh(&out, "'%s' -x", RUNNER);
    CU_ASSERT_EQUAL(rc, 2);
    free(out);
    rc = ss_test_sh(&out, "'%s' --frob", RUNNER);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "run_tests: unknown option '--frob'"));
    free(out);
}

static void test_progress_lines(void)
{
    char *out = NULL;
    /* stdout alone: the runner's lines; the tests' own prints go to stderr */
    int rc = ss_test_sh(&out, "'%s' engine cfg 2>/dev/null", RUNNER);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "[1/2] suite cfg: ") && ss_test_has(out, "[2/2] suite engine: 6 tests ok ("));
    CU_ASSERT_TRUE(ss_test_has(out, " s)\nrun_tests: 2 suites, "));
    CU_ASSERT_TRUE(ss_test_has(out, ", 0 failed ("));
    free(out);
    /* a test's print left without its newline (optimize's) is ended before the suite's line */
    rc = ss_test_sh(&out, "'%s' optimize", RUNNER);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "\n[1/1] suite optimize: "));
    free(out);
}

SS_TEST_SUITE("runner", {"--help and --list run nothing", test_help_and_list},
              {"an unknown suite or option: exit 2", test_unknown_suite},
              {"a [k/N] line per suite, and the count", test_progress_lines})
