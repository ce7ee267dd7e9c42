/* test_install.c: `make install PREFIX=DIR` after a build made for another
 * prefix installs a binary that finds its plugins and model profiles
 * there (issue 12 item 10; the ensembles' member profiles too): they are looked for beside the binary
 * (<bin>/../lib/servesim/policies, <bin>/../share/servesim/models) before
 * the prefix compiled in.  It installs from a copy of the test build, so a
 * rebuild for the other prefix (sources changed while the tests ran) never
 * touches the build the other suites use.  And an install stands alone (issue
 * 43 item 4, tests/install-tour.sh): from /, a shipped scenario by name, the
 * man page, bash completion, a plugin built with pkg-config, the README's
 * tour from another folder, and make uninstall leaving the prefix empty. */
#include "test.h"

#include <stdlib.h>

static void installed_binary_works(void)
{
    char *dir = ss_test_tmpdir();
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cp -a '%s' '%s/build' && make -s -C '%s' install PREFIX='%s/prefix' BUILD='%s/build' >/dev/null && "
                        "mkdir -p '%s/elsewhere' && cp '%s/scenarios/tour/load-balancers.yaml' '%s/elsewhere/s.yaml' && "
                        "cd '%s/elsewhere' && env -u SERVESIM_PLUGIN_PATH -u SERVESIM_MODEL_PATH '%s/prefix/bin/servesim' run s.yaml "
                        "-o r.csv --set replications=1 --set duration_s=3 --set warmup_s=1 && "
                        "cp '%s/scenarios/ensemble/imn1-1gpu.yaml' e.yaml && "
                        "env -u SERVESIM_PLUGIN_PATH -u SERVESIM_MODEL_PATH '%s/prefix/bin/servesim' run e.yaml -o e.csv",
                        SS_BUILD_DIR, dir, SS_SRC_DIR, dir, dir, dir, SS_SRC_DIR, dir, dir, dir, SS_SRC_DIR, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "least-loaded  resnet50  "));
    CU_ASSERT(ss_test_has(out, "imn1-1gpu, seed 1")); /* an ensemble's member profiles, installed */
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void install_stands_alone(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out, "'%s/tests/install-tour.sh' '%s' '%s' '%s' 2>&1", SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "install-tour: ok"));
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("install", {"an install to any prefix finds its plugins and models", installed_binary_works},
              {"an install stands alone: by name, man, completion, pkg-config, the tour, uninstall", install_stands_alone})
