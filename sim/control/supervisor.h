/* supervisor.h: ROMA's per-worker Supervisor (seed roma.md §2.4, Algorithm
 * 2 as reconstructed there), a pure function: it fits the controllers'
 * demands for one worker to the cores it can give (AC = MC - GC). */
#ifndef SS_SUPERVISOR_H
#define SS_SUPERVISOR_H

#include <stddef.h>

/* demand[0..n) (cores, >= 0; the simulator has clamped them) into
 * granted[0..n) (may be the same array), with eta = avail_cores / the sum:
 *   eta < 1: granted = eta x demand             (scaled down, sum = avail_cores)
 *   eta > 1: granted = demand + gamma (eta - 1) demand  (gamma in [0, 1]: 0 keeps
 *            the demand, 1 hands out every available core)
 *   eta = 1: granted = demand.
 * A sum of 0 (nothing asked, eta undefined): every grant is 0. */
void ss_supervise(const double *demand, size_t n, double avail_cores, double gamma, double *granted);

#endif
