/* test_progress.c: a long `run` shows a progress line on a terminal (issue
 * 12 item 14): how far, requests per second, the time left; none when
 * stderr is not a terminal (the banner line alone); the same results either way.  The terminal is
 * script(1)'s pseudo-terminal. */
#include "test.h"

#include <stdlib.h>

static void progress_line(void)
{
    char *dir = ss_test_tmpdir();
    ss_test_sh(NULL, "cd '%s' && cp '%s/scenarios/tour/load-balancers.yaml' s.yaml && mkdir models && cp '%s/models/resnet50.json' models/",
               dir, SS_SRC_DIR, SS_SRC_DIR);
    if (ss_test_sh(NULL, "command -v script >/dev/null") != 0) {
        fprintf(stderr, " SKIPPED (no script(1)) ");
        ss_test_sh(NULL, "rm -rf '%s'", dir);
        free(dir);
        return;
    }
    char *out = NULL;
    const char *run = "run s.yaml --variant random --set replications=1 --set duration_s=100000";
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && script -qec \"'%s/servesim' %s -o a.csv\" /dev/null | tr '\\r' '\\n'", dir,
                               SS_BUILD_DIR, run),
                    0);
    CU_ASSERT(ss_test_has(out, "random rep 0: "));
    CU_ASSERT(ss_test_has(out, "M requests/s"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' %s -o b.csv 2>&1 >/dev/null", dir, SS_BUILD_DIR, run), 0);
    /* not a terminal: no progress, the banner alone */
    CU_ASSERT_STRING_EQUAL(out ? out : "x", "servesim: default, seed 1, 1 variant x 1 replication -> b.csv\n");
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && cmp a.csv b.csv", dir), 0);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

SS_TEST_SUITE("progress", {"a progress line on a terminal only, results unchanged", progress_line})
