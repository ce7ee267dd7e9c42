/* fuzz_sweep.c: libFuzzer harness for the sweep file reader
 * (ss_sweep_load, sim/cmd/sweep.c): the input is a sweep YAML file, whose
 * base scenario is one of the repository's (`scenario:
 * scenarios/tour/load-balancers.yaml`).  Loading a sweep loads and builds
 * every point, so inputs whose axes make more than MAX_POINTS points are
 * skipped: a huge sweep is valid input, only slow.  Seeds: tests/fuzz/sweep/. */
#include <stdlib.h>

#include "cmd/sweep.h"
#include "core/cfg.h"
#include "fuzz.h"

enum { MAX_POINTS = 16 };

/* The number of points the axes ask for, as far as they can be read
 * (the product of the `values:` lengths, a bound for `mode: zip` too);
 * MAX_POINTS + 1 once it passes MAX_POINTS. */
static size_t points(const uint8_t *data, size_t size)
{
    ss_err err = {0};
    ss_doc *doc = ss_doc_parse_yaml((const char *)data, size, "sweep", &err);
    const ss_node *axes = doc ? ss_map_find(doc->root, "axes") : NULL;
    size_t n = 1;
    for (size_t i = 0; axes && axes->kind == SS_NODE_SEQ && i < axes->n && n <= MAX_POINTS; i++) {
        const ss_node *values = ss_map_find(axes->items[i], "values");
        if (values && values->kind == SS_NODE_SEQ && values->n) n *= values->n;
    }
    ss_doc_free(doc);
    return n <= MAX_POINTS ? n : MAX_POINTS + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (points(data, size) > MAX_POINTS) return 0;
    char *path = fuzz_write("sweep.yaml", data, size);
    ss_err err = {0};
    ss_sweep *sw = ss_sweep_load(path, NULL, 0, 0, &err);
    fuzz_check(sw ? 0 : -1, &err);
    if (sw) {
        char *header = ss_sweep_header(sw), *fp = ss_sweep_fingerprint(sw);
        free(header);
        free(fp);
    }
    ss_sweep_free(sw);
    free(path);
    return 0;
}
