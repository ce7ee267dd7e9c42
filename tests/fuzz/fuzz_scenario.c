/* fuzz_scenario.c: libFuzzer harness for the scenario loader
 * (ss_scenario_load, sim/input/scenario_load.c): the input is a scenario
 * YAML file; it is loaded as it is and then with each of its first
 * variants.  Seeds: tests/fuzz/scenario/. */
#include <stdlib.h>

#include "fuzz.h"
#include "input/scenario_load.h"

enum { MAX_VARIANTS = 2 };

static void load(const char *path, const char *variant)
{
    ss_scenario sc;
    ss_err err = {0};
    fuzz_check(ss_scenario_load(&sc, path, variant, NULL, 0, &err), &err);
    ss_scenario_free(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("scenario.yaml", data, size);
    load(path, NULL);
    char **names;
    size_t n;
    ss_err err = {0};
    int rc = ss_scenario_variants(path, &names, &n, &err);
    fuzz_check(rc, &err);
    for (size_t i = 0; rc == 0 && i < n && i < MAX_VARIANTS; i++) load(path, names[i]);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    free(path);
    return 0;
}
