/* fuzz_calibrate.c: libFuzzer harness for `servesim calibrate` on a profile
 * of real runs: the input is a JSON hardware profile (ss_hwprofile_load,
 * sim/input/hwprofile.c), fitted as calibrate fits it (ss_calibrate,
 * sim/calib/calibrate*.c) three ways: as it is, without batch laws and at
 * run speed, and as a whole-model profile (ss_calibrate_model).  What
 * calibrate writes must be a JSON model file the loaders read back
 * (ss_doc_load_json) under the name it was given, and the same bytes when
 * fitted again (calib.h; not checked at run speed, which scales the
 * profile's times in place: that fit comes last).  Seeds: tests/fuzz/calibrate/ (profiles that
 * calibrate fits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "core/cfg.h"
#include "fuzz.h"

/* `servesim calibrate` with options o: the model file in *json, or -1. */
static int calibrate(ss_hwprofile *p, const ss_calib_opts *o, char **json, ss_err *err)
{
    char *summary = NULL;
    int rc = o->model_profile ? ss_calibrate_model(&p, 1, o, json, &summary, err)
                              : ss_calibrate(&p, 1, o, json, &summary, err);
    free(summary);
    return rc;
}

/* Fit the profile with options o; abort if what comes out is not a model
 * file named o->name, or (with twice) not the same on a second fit. */
static void fit(ss_hwprofile *p, const ss_calib_opts *o, int twice)
{
    char *json = NULL;
    ss_err err = {0};
    int rc = calibrate(p, o, &json, &err);
    fuzz_check(rc, &err);
    if (rc < 0) return;
    char *path = fuzz_write("calibrated.json", (const uint8_t *)json, strlen(json));
    ss_doc *doc = ss_doc_load_json(path, &err);
    const ss_node *name = doc ? ss_map_find(doc->root, "name") : NULL;
    if (!name || name->kind != SS_NODE_SCALAR || strcmp(name->value, o->name) != 0) {
        fprintf(stderr, "fuzz: calibrate wrote a model file that does not read back as '%s': %s\n", o->name,
                doc ? "no such name" : err.msg);
        abort();
    }
    ss_doc_free(doc);
    free(path);
    if (twice) {
        char *again = NULL;
        if (calibrate(p, o, &again, &err) < 0 || strcmp(json, again) != 0) {
            fputs("fuzz: a second fit of the same profile wrote other bytes\n", stderr);
            abort();
        }
        free(again);
    }
    free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ss_hwprofile p;
    if (fuzz_hwprofile(data, size, &p) == 0) {
        const ss_calib_opts as_is = {.name = "fuzz"}, lenient = {.name = "fuzz", .no_batch_law = 1, .at_run_speed = 1},
                            model = {.name = "fuzz", .model_profile = 1};
        fit(&p, &as_is, 1);
        fit(&p, &model, 1);
        fit(&p, &lenient, 0);
        ss_hwprofile_free(&p);
    }
    return 0;
}
