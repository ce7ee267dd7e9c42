/* validate_cmd.h: `servesim validate SCENARIO|PROFILE... [-o FILE.csv]`
 * (the matching and runs are in validate.h; docs/validation.md). */
#ifndef SS_VALIDATE_CMD_H
#define SS_VALIDATE_CMD_H

#include <stddef.h>
#include <stdint.h>

/* argv after "validate".  Exit status 0 (every judged error within its
 * tolerance), 1 (one beyond it, or the CSV could not be written) or 2 on
 * bad input (nothing run or written). */
int ss_cmd_validate(int argc, char **argv);

/* validate_transfer.c: --transfer-law MODEL.json: the profiles' transfer runs
 * of use validate against the model file's transfer law; output: a CSV or
 * NULL.  Exit status as above. */
int ss_val_transfer(const char *const *files, size_t nfiles, const char *law_path, const char *output, int quiet);

/* validate_llm.c: RUN_DIR --llm-perf PERF_DIR (or --llm-roofline GPU.json:
 * perf_dir NULL) --llm-model CONFIG.json, or RUN_DIR --llm-scenario S.yaml
 * (scenario; the others NULL): a measured vLLM run replayed on the
 * simulated LLM engine, with 95% intervals over a per-operator profile's
 * interpolation from reps replays (0: none); output: a CSV or NULL.  Exit
 * status as above. */
int ss_val_llm(const char *run_dir, const char *perf_dir, const char *gpu_path, const char *model_path,
               const char *scenario, uint32_t reps, const char *output, int quiet);

#endif
