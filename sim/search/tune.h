/* tune.h: `servesim tune` (tune.c): equal-resource tuning of an autoscaler
 * threshold against a reference variant. */
#ifndef SS_TUNE_H
#define SS_TUNE_H

int ss_cmd_tune(int argc, char **argv);

#endif
