/* fuzz_trace.c: libFuzzer harness for the arrival-trace reader
 * (ss_trace_load, sim/input/trace.c): the input is a trace CSV (servesim
 * or Azure format).  A trace that loads must keep trace.h's promise:
 * finite times from 0, never decreasing.  Seeds: tests/fuzz/trace/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "input/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("trace.csv", data, size);
    double *times_s = NULL;
    size_t n = 0;
    ss_err err = {0};
    int rc = ss_trace_load(path, 1.0, &times_s, &n, &err);
    fuzz_check(rc, &err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!isfinite(times_s[i]) || times_s[i] < (i ? times_s[i - 1] : 0.0)) {
            fprintf(stderr, "fuzz: arrival %zu at %g s breaks trace.h's promise\n", i, times_s[i]);
            abort();
        }
    }
    free(times_s);
    free(path);
    return 0;
}
