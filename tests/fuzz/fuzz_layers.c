/* fuzz_layers.c: libFuzzer harness for the per-layer profile reader
 * (ss_layer_profile_load, sim/input/layerprofile.c): the input is a JSON
 * layer profile (models/<model>-layers.json).  A profile that loads must
 * keep layerprofile.h's promise: a name and a model, at least one layer,
 * each named with finite sizes and time >= 0, and finite sums over the
 * layers equal to the layers' own (what partitioning cuts).  Seeds:
 * tests/fuzz/layers/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "input/layerprofile.h"

static int ok(double v)
{
    return isfinite(v) && v >= 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("layers.json", data, size);
    ss_layer_profile lp;
    ss_err err = {0};
    int rc = ss_layer_profile_load(path, &lp, &err);
    fuzz_check(rc, &err);
    if (rc == 0) {
        double weights = 0, exec = 0;
        if (!lp.name || !lp.model || lp.nlayers == 0) {
            fputs("fuzz: a loaded layer profile without a name, model or layers\n", stderr);
            abort();
        }
        for (uint32_t i = 0; i < lp.nlayers; i++) {
            const ss_part_layer *l = &lp.layers[i];
            if (!lp.layer_names[i] || !ok(l->weights_bytes) || !ok(l->output_bytes) || !ok(l->exec_s)) {
                fprintf(stderr, "fuzz: layer %u: a size or time that is not a finite number >= 0\n", i);
                abort();
            }
            weights += l->weights_bytes;
            exec += l->exec_s;
        }
        if (!ok(lp.weights_bytes) || !ok(lp.exec_s) || weights != lp.weights_bytes || exec != lp.exec_s) {
            fprintf(stderr, "fuzz: the sums over the layers (%g bytes, %g s) are not finite or not the layers'\n",
                    lp.weights_bytes, lp.exec_s);
            abort();
        }
        ss_layer_profile_free(&lp);
    }
    free(path);
    return 0;
}
