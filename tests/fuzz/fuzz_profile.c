/* fuzz_profile.c: libFuzzer harness for the JSON model profile readers:
 * the input is a JSON profile, read as a whole-model profile (through a
 * fixed scenario whose model `fuzz` names it: ss_doc_load_json and
 * scenario_load.c's profile reader) and as a BlockFlow split profile
 * (ss_blockmodel_load, sim/input/blockmodel.c) for a block and for a fused
 * process.  Per-layer profiles and profiles of real runs have their own
 * harnesses (fuzz_layers.c, fuzz_hwprofile.c, fuzz_calibrate.c).  Seeds:
 * tests/fuzz/profile/. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "input/blockmodel.h"
#include "input/scenario_load.h"

static const char scenario_yaml[] =
    "duration_s: 1\n"
    "hosts: [{name: h, devices: [{name: g, kind: gpu, type: GV100, vram_gib: 32}]}]\n"
    "models: [{name: fuzz, profile: fuzz.json}]\n"
    "deployment: [{model: fuzz, device: g}]\n"
    "workloads: [{name: w, kind: poisson, target: fuzz, rate_rps: 1}]\n";

/* Blocks and processes the split seeds name. */
static const char *const parts[] = {"block1", "block4_class"};

static void load_split(const char *path, const char *part)
{
    ss_err err = {0};
    ss_doc *name = ss_doc_parse_yaml(part, strlen(part), "part", &err);
    ss_block_cfg b;
    ss_dist service = {0};
    fuzz_check(ss_blockmodel_load(path, name->root, &b, &service, &err), &err);
    ss_block_free(&b);
    ss_dist_free(&service);
    ss_doc_free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *scenario;
    if (!scenario) scenario = fuzz_write("scenario.yaml", (const uint8_t *)scenario_yaml, strlen(scenario_yaml));
    char *path = fuzz_write("fuzz.json", data, size);
    ss_scenario sc;
    ss_err err = {0};
    fuzz_check(ss_scenario_load(&sc, scenario, NULL, NULL, 0, &err), &err);
    ss_scenario_free(&sc);
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) load_split(path, parts[i]);
    free(path);
    return 0;
}
