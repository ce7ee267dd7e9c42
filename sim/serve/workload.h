/* workload.h: request sources (workload.c) - open loop, steps, trace
 * replay, closed-loop clients - started on a built world. */
#ifndef SS_WORKLOAD_H
#define SS_WORKLOAD_H

#include "serve/serve.h"

/* Schedule every workload's first arrivals (and set w->client_done). */
void ss_sources_start(ss_world *w);
void ss_sources_free(ss_world *w);

#endif
