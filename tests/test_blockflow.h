/* test_blockflow.h: what the block-pipeline suites share (test_blockflow.c,
 * test_pipeline_compute.c); defined in test_blockflow.c. */
#ifndef SS_TEST_BLOCKFLOW_H
#define SS_TEST_BLOCKFLOW_H

#include <stddef.h>

#define SCN SS_SRC_DIR "/scenarios/blockflow/"

/* Run the scenario at path (variant, --set assignments) for all its
 * replications: the mean of extra column `col` (or of the `all` row's
 * latency_mean_ms / throughput_rps), its 95% half-width in *ci (may be NULL);
 * NAN where absent. */
double run_extra(const char *path, const char *variant, char *const *sets, size_t nsets, const char *col,
                 double *ci);

#endif
