/* partition_cmd.h: `servesim partition` - a model's partition plans for
 * queue lengths and GPUs added, by a partitioner plugin, with the cost FP
 * §2.4's latency model gives each (servesim/partition.h). */
#ifndef SS_PARTITION_CMD_H
#define SS_PARTITION_CMD_H

/* argv after "partition".  Exit 0, 1 (the CSV could not be written), 2 on bad input. */
int ss_cmd_partition(int argc, char **argv);

#endif
