/* substrate.h: the substrate's steps of building, checking, summarising
 * and freeing a world (substrate.c), for sim/world/world.c, which calls
 * them in this order with the systems' own steps between them:
 *
 *   new, policies, [cold starts], instances, [controllers], up, [pipeline],
 *   declare, [cold starts', controllers' columns], start, [autoscaler]
 *
 * An edge-device or ensemble scenario uses new only: its system runs it
 * on the world's engine. */
#ifndef SS_SUBSTRATE_H
#define SS_SUBSTRATE_H

#include <stdint.h>
#include <stdio.h>

#include "serve/serve.h"

/* A world with its engine and nothing else. */
ss_world *ss_sub_new(const ss_scenario *sc, uint32_t rep, FILE *req_csv);
/* The load balancer, the scheduler, the priority queue if some instance
 * preempts, and the compute net if some instance is ps; -1 with err set. */
int ss_sub_policies(ss_world *w, ss_err *err);
/* The model groups and their instances (created, not yet up). */
void ss_sub_instances(ss_world *w);
/* Every instance up; the task (and workload) statistics. */
void ss_sub_up(ss_world *w);
/* The life cycle's result columns (scripted events or autoscaling). */
void ss_sub_declare(ss_world *w);
/* The sources and the scripted events on the calendar. */
void ss_sub_start(ss_world *w);

/* End-of-run checks, a message (free it) or NULL: a failed run or events
 * left; then the requests, queues and compute net of the serving path. */
char *ss_sub_check_calendar(const ss_world *w);
char *ss_sub_check_serving(const ss_world *w);

/* A result: its common fields (memset first), the task rows and device
 * utilisation, the life cycle's columns. */
void ss_sub_result_head(const ss_world *w, ss_run_result *r);
void ss_sub_result_rows(const ss_world *w, ss_run_result *r);
void ss_sub_result_life(const ss_world *w, ss_run_result *r);

/* Free the serving path's state (after the systems'), then the rest. */
void ss_sub_free_serving(ss_world *w);
void ss_sub_free_rest(ss_world *w);

#endif
