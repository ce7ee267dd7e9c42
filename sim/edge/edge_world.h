/* edge_world.h: one replication of an edge-device scenario (MASA,
 * docs/masa.md; the section is input/edge_cfg.h), run by edge_world.c on
 * the world's engine, random streams and result structs. */
#ifndef SS_EDGE_WORLD_H
#define SS_EDGE_WORLD_H

#include <stdio.h>

#include "core/util.h"

struct ss_world;
struct ss_run_result;

typedef struct ss_edge_world ss_edge_world;

/* Build onto w (its engine, scenario and replication are set); declares the
 * extra result columns.  NULL with err set if the scheduler plugin fails. */
ss_edge_world *ss_edge_world_build(struct ss_world *w, ss_err *err);
void ss_edge_world_result(const ss_edge_world *e, struct ss_run_result *r);
void ss_edge_world_free(ss_edge_world *e);
/* The end-of-run checks of an edge device (world.h, ss_world_check): no job,
 * network or task left, no worker busy, the memory ledgers back to zero,
 * nothing on the compute net.  NULL if they hold, else a message to free. */
char *ss_edge_world_check(const ss_edge_world *e);
/* Write one line per task start and end to fp ("t_s,event,net,layer,task,
 * worker,used_mib"); for tests and debugging.  Call before running. */
void ss_edge_world_trace(struct ss_world *w, FILE *fp);

#endif
