/* calibrate_cmd.h: `servesim calibrate PROFILE... -o MODEL.json` (the fits are
 * in calibrate.h, the profile format in docs/profiles.md). */
#ifndef SS_CALIBRATE_CMD_H
#define SS_CALIBRATE_CMD_H

/* argv after "calibrate".  Exit status 0, 1 (the model file could not be
 * written) or 2 on bad input (nothing written). */
int ss_cmd_calibrate(int argc, char **argv);
/* calibrate_llm.c: a per-operator LLM profile fitted into llm/llm_fit.h's coefficients, written to output. */
int ss_cal_llm(const char *perf_dir, const char *model_path, unsigned budget, const char *output, int quiet);

#endif
