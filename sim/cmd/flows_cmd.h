/* flows_cmd.h: `servesim flows` - transfer-list replay on a topology with
 * the max-min flow model (see flows_cmd.c for the formats). */
#ifndef SS_FLOWS_CMD_H
#define SS_FLOWS_CMD_H

/* argv after "flows".  Exit status 0, 1 (an output could not be written),
 * or 2 on bad input. */
int ss_cmd_flows(int argc, char **argv);

#endif
