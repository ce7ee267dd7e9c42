/* test_layers.c: the layering of sim/ (docs/architecture.md) holds -
 * folders as layers with includes pointing down only (never into another
 * room of the same layer), no circle between modules, and no call circle
 * between files (tools/check-layers.sh, tools/check_calls.py) - and the
 * checker itself catches a breach of each rule, on a copy of the tree. */
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

static void sideways_include_caught(void)
{
    breach("echo '#include \"pipeline/pipeline.h\"' >> sim/elastic/autoscale.c",
           "elastic/ includes pipeline/pipeline.h from pipeline/, another room of its layer");
}

/* The core's random streams call up into the serving path, which calls
 * them: a circle of calls across two folders, with no include upwards
 * (the prototype is written in the file, as a careless edit would). */
static void cross_folder_call_circle_caught(void)
{
    breach("printf 'void ss_serve_pull(void *w, void *in, double now);\\n"
           "void ss_rng_probe(void);\\nvoid ss_rng_probe(void) { ss_serve_pull(0, 0, 0); }\\n' >> sim/core/rng.c",
           "call circle across folders core, serve: core/rng.c");
}

/* Inside a room: the engine calls the flow model, which schedules on it. */
static void room_call_circle_caught(void)
{
    breach("printf 'void ss_engine_probe(void);\\nvoid ss_engine_probe(void) { ss_flownet_free(0); }\\n' >> "
           "sim/core/engine.c",
           "call circle inside core/: core/engine.c core/flow.c");
}

/* A circle listed as debt that no longer exists must come off the list. */
static void stale_allowed_circle_caught(void)
{
    breach("echo 'core/engine.c core/rng.c # a test' >> tools/layers-allowed-circles", "no longer exists");
}

static void bare_include_caught(void)
{
    breach("echo '#include \"util.h\"' >> sim/core/engine.c", "without its folder");
}

SS_TEST_SUITE("layers", {"the tree's includes point down, with no circle", tree_holds},
              {"an include upwards is caught", upward_include_caught}, {"a module circle is caught", circle_caught},
              {"an include without its folder is caught", bare_include_caught},
              {"an include into another room of the layer is caught", sideways_include_caught},
              {"a call circle across folders is caught", cross_folder_call_circle_caught},
              {"a call circle inside a room is caught", room_call_circle_caught},
              {"a stale entry of the allowed circles is caught", stale_allowed_circle_caught})
