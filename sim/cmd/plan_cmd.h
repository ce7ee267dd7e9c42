/* plan_cmd.h: `servesim plan` - VRAM, processes, host RAM and GPUs of block
 * deployments for task mixes (the model is in plan.h). */
#ifndef SS_PLAN_CMD_H
#define SS_PLAN_CMD_H

/* argv after "plan".  Exit status 0, 1 (the CSV could not be written), or 2
 * on bad input. */
int ss_cmd_plan(int argc, char **argv);

#endif
