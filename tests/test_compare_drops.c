/* test_compare_drops.c: `compare` says what it leaves out (issue 12 item 3):
 * a pair whose baseline value is 0 is named on stderr and left out of the
 * baseline's mean as of the ratio (n = 2 of 3); comparing by a column whose
 * values never share a point (each variant also sets the compared policy)
 * is refused with the reason (exit 2); and by the setting itself it works,
 * the variant being only its name. */
#include "test.h"

#include <stdlib.h>

static void drops_said(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "z.csv",
                       "scenario,variant,replication,seed,lb,model,latency_mean_ms\n"
                       "s,,0,1,a,all,0\ns,,0,1,b,all,5\n"
                       "s,,1,1,a,all,2\ns,,1,1,b,all,4\n"
                       "s,,2,1,a,all,4\ns,,2,1,b,all,8\n"));
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' compare z.csv --by lb --baseline a", dir, SS_BUILD_DIR), 0);
    CU_ASSERT(ss_test_has(out, "b: 1 of 3 pairs left out: the baseline's latency_mean_ms is 0 there"));
    CU_ASSERT(ss_test_has(out, "3 ±")); /* the baseline's mean over the two kept pairs (2 and 4), not 2 with the zero */
    CU_ASSERT(ss_test_has(out, "n=2"));
    free(out);
    free(ss_test_write(dir, "v.csv",
                       "scenario,variant,replication,seed,policies.lb,model,latency_mean_ms\n"
                       "s,x,0,1,a,all,1\ns,y,0,1,b,all,2\ns,x,1,1,a,all,1\ns,y,1,1,b,all,3\n"));
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' compare v.csv --by variant --baseline x", dir, SS_BUILD_DIR), 2);
    CU_ASSERT(ss_test_has(out, "no point has both 'x' and another value of column 'variant'"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' compare v.csv --by policies.lb --baseline a", dir, SS_BUILD_DIR), 0);
    CU_ASSERT(ss_test_has(out, "2.5  [")); /* b / a over the two replications: 2 and 3 */
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

SS_TEST_SUITE("compare-drops", {"zero baselines and unpaired columns are said, not dropped silently", drops_said})
