/* test_layers.c: the layering of sim/ (docs/architecture.md) holds -
 * folders as layers with includes pointing down or sideways only, and no
 * circle between modules (tools/check-layers.sh) - and the checker itself
 * catches a breach of each rule, on a copy of the tree. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

static void tree_holds(void)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "sh '%s/tools/check-layers.sh'", SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0 && out) fprintf(stderr, "\n%s", out);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "no include upwards, no circle"));
    free(out);
}

/* Copy tools/ and sim/ to a temp folder, break a rule there, and expect the
 * checker to name it. */
static void breach(const char *edit, const char *expect)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *out = NULL;
    int rc = ss_test_sh(&out, "cp -r '%s/tools' '%s/sim' '%s/' && cd '%s' && %s && sh tools/check-layers.sh",
                        SS_SRC_DIR, SS_SRC_DIR, dir, dir, edit);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, expect));
    if (!(out && strstr(out, expect))) fprintf(stderr, "\nexpected '%s' in:\n%s", expect, out ? out : "");
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void upward_include_caught(void)
{
    breach("echo '#include \"serve/serve.h\"' >> sim/core/rng.c", "core/ includes serve/serve.h from serve/, a layer above");
}

static void circle_caught(void)
{
    breach("echo '#include \"input/scenario_load.h\"' >> sim/input/section.c", "input contains a loop");
}

static void bare_include_caught(void)
{
    breach("echo '#include \"util.h\"' >> sim/core/engine.c", "without its folder");
}

SS_TEST_SUITE("layers", {"the tree's includes point down, with no circle", tree_holds},
              {"an include upwards is caught", upward_include_caught}, {"a module circle is caught", circle_caught},
              {"an include without its folder is caught", bare_include_caught})
