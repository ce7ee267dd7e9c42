/* elastic.h: serverless replicas that come and go - the autoscaler
 * (autoscale.c), cold starts on a topology's GPUs under a placement plugin
 * (coldstart*.c) and partitioned replicas (coldstart_parts.c) - as
 * sim/world/world.c builds them and the files of this room call each
 * other.  The substrate reaches them through the hooks they set
 * (ss_hooks, serve/serve.h). */
#ifndef SS_ELASTIC_H
#define SS_ELASTIC_H

#include <stdio.h>

#include "serve/serve.h"

/* autoscale.c: the autoscaler (scenario `autoscaling:`), and the
 * measurements it takes of a model's shared queue (call only when g->as). */
int ss_autoscaler_build(ss_world *w, ss_err *err);
void ss_autoscaler_free(ss_world *w);
void ss_as_enqueue(ss_group *g, double now, uint64_t seq, double enqueued_s); /* a request joins the queue */
void ss_as_dequeue(ss_group *g, double now, uint64_t seq);                   /* ... and leaves it */
void ss_as_start(ss_group *g, double wait_s);                                /* a service starts */
void ss_as_arrive(ss_group *g);                                              /* a request arrives */
void ss_as_done(ss_group *g);                                                /* a service ends */

/* coldstart.c: replicas that cold-start on a topology's GPUs (scenario
 * `placement:`): the placement plugin, the stages as flows, the host RAM
 * and GPU VRAM ledgers, the cold-start metrics.  Call the hooks only when
 * w->cs is set. */
int ss_cs_build(ss_world *w, ss_err *err);
void ss_cs_free(ss_world *w);
int ss_cs_places(const ss_world *w, uint32_t m);    /* model m's replicas cold-start */
/* Start up to k replicas of m where the placement plugin says; how many started. */
uint32_t ss_cs_grow(ss_world *w, uint32_t m, uint32_t k);
void ss_cs_born(ss_world *w, ss_instance *in);      /* an instance was created */
/* ... stopped (scaled down: it may sleep) or failed; a cold start in progress is abandoned */
void ss_cs_gone(ss_world *w, ss_instance *in, int stopped);
char *ss_cs_check(const ss_world *w);               /* end-of-run ledgers; NULL if they hold */
void ss_cs_declare(ss_world *w);                    /* its result columns, after the life cycle's */
void ss_cs_result(const ss_world *w, ss_run_result *r);

/* coldstart_parts.c: partitioned replicas (scenario `partitioning:`,
 * docs/partitioning.md): p parts of a model on p GPUs, cold-starting in
 * parallel and serving as one pipeline.  Call the ss_pp_* hooks only for
 * an instance with in->pp set. */
int ss_cs_parts(const ss_world *w, uint32_t m);        /* model m's scale-ups may be partitioned */
double ss_pp_exec_s(const ss_instance *in, const ss_request *r); /* the part's share of r's demand */
void ss_pp_started(ss_world *w, ss_instance *in);      /* the first part took a request */
void ss_pp_exec_done(ss_world *w, ss_instance *in, ss_request *r); /* a part finished its share of r */
int ss_pp_pull(ss_world *w, ss_instance *in);          /* a part is free: 1 if it took care of it */
int ss_pp_may_stop(const ss_instance *in);             /* a draining part may stop (its pipeline is empty) */
void ss_pp_gone(ss_world *w, ss_instance *in);         /* a part stopped */
/* Drain model m's partitioned replicas first (most GPUs first, no more
 * than k GPUs in all, FP §2.7); the GPUs drained. */
uint32_t ss_pp_shrink(ss_world *w, uint32_t m, uint32_t k);
/* autoscale.c: model m's arrival rate over the shortest window at the last tick. */
double ss_as_rate_rps(const ss_group *g);

/* One row per cold start into fp (coldstart.c), for a scenario with
 * `placement:`; call between ss_world_build and ss_world_run. */
void ss_world_coldstarts(ss_world *w, FILE *fp);
void ss_world_coldstarts_header(FILE *fp);

#endif
