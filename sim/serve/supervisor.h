/* supervisor.h: ROMA's per-worker supervisor (seed roma.md §2.4,
 * Algorithm 2 as reconstructed): the controllers' demands scaled to fit
 * the worker's cores (supervisor.c).  Pure arithmetic, no world. */
#ifndef SS_SUPERVISOR_H
#define SS_SUPERVISOR_H

#include <stddef.h>

/* granted[i] for demand[i] (n containers of one worker) given avail_cores
 * (ROMA's AC = MC - GC): eta = avail / sum(demand); eta < 1 scales every
 * demand by eta; eta > 1 grants u + gamma (eta - 1) u (gamma in [0, 1]:
 * 0 grants the demands, 1 fills the worker); eta = 1 grants the demands. */
void ss_supervise(const double *demand, size_t n, double avail_cores, double gamma, double *granted);

#endif
