/* ensemble.h: one replication of an ensemble scenario (docs/ensembles.md;
 * the section is input/ensemble_cfg.h), run by ensemble.c on the world's
 * engine, random streams and result structs, as edge_world.c runs an edge
 * device.
 *
 * A request of n images is cut into segments of N; every segment is
 * broadcast to every member's FIFO queue; the workers of a member (one per
 * non-zero matrix entry) pull segments from that queue first come first
 * served, split each into ceil(len / b) batches of their batch size b, run
 * them one after the other on their device, and send the segment's
 * predictions to the accumulator; the request is done when all M x
 * segments predictions are in.  Co-located workers share their device on a
 * compute net by the interference law of docs/ensembles.md. */
#ifndef SS_ENSEMBLE_H
#define SS_ENSEMBLE_H

#include <stdio.h>

#include "core/util.h"

struct ss_world;
struct ss_run_result;

typedef struct ss_ens_world ss_ens_world;

/* Build onto w (engine, scenario with `ensemble:`, replication set);
 * declares the extra result columns and schedules the first request. */
ss_ens_world *ss_ens_world_build(struct ss_world *w, ss_err *err);
void ss_ens_world_result(const ss_ens_world *e, struct ss_run_result *r);
/* End-of-run checks: no request, segment or batch left, every queue empty,
 * every worker idle, nothing on the compute net.  NULL if they hold, else a
 * message to free. */
char *ss_ens_world_check(const ss_ens_world *e);
void ss_ens_world_free(ss_ens_world *e);
/* Write one line per batch end and per prediction message to fp
 * ("t_s,event,worker,member,device,request,segment,images"); for tests and
 * debugging.  Call before running. */
void ss_ens_world_trace(struct ss_world *w, FILE *fp);

#endif
