/* fuzz.h: what every libFuzzer harness of tests/fuzz/ shares (fuzz.c).
 *
 * The loaders read files by path, so a harness writes each input into a
 * private scratch folder (under /dev/shm, else $TMPDIR or /tmp; removed at
 * exit) and hands the loader that path.  The folder holds links to the
 * repository's models/, scenarios/, traces/, topologies/ and
 * topologies/hosts/ (as hosts/), so inputs may name them relatively
 * ("scenarios/tour/load-balancers.yaml", "traces/example-bursty.csv",
 * "hosts/dgx1-v100.yaml"), as the seed corpora do.
 *
 * Reproducing a finding: run the harness on the file libFuzzer saved,
 * `build/fuzz/fuzz_scenario build/fuzz/scenario-crash-<sha1>`
 * (docs/fuzzing.md). */
#ifndef SS_FUZZ_H
#define SS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "input/hwprofile.h"

/* The entry point libFuzzer calls (defined by each harness). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scratch folder, made on first use. */
const char *fuzz_dir(void);

/* Write `size` bytes to `name` in the scratch folder (replacing it);
 * returns the path (newly allocated).  Aborts if the write fails: that is
 * the harness's fault, not the input's. */
char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* Abort (a finding) if a loader failed without saying why: every refusal
 * of bad input must carry a "file:line:col: message".  With SS_FUZZ_VERBOSE
 * set in the environment, prints that message (or "loaded") to stderr:
 * what an input does, when reproducing or checking seeds. */
void fuzz_check(int rc, const ss_err *err);

/* Write the input as profile.json and read it as a profile of real runs
 * (ss_hwprofile_load), a refusal checked by fuzz_check: 0 with *p loaded
 * (free it with ss_hwprofile_free), or -1.  For fuzz_hwprofile and
 * fuzz_calibrate. */
int fuzz_hwprofile(const uint8_t *data, size_t size, ss_hwprofile *p);

#endif
