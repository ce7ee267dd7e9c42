/* optimize.h: `servesim optimize` (optimize.c): search for the allocation
 * matrix of an ensemble scenario with the best benchmark throughput. */
#ifndef SS_OPTIMIZE_H
#define SS_OPTIMIZE_H

int ss_cmd_optimize(int argc, char **argv);

#endif
