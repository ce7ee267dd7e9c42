/* supervisor.c: ROMA's per-worker Supervisor (seed roma.md §2.4; the
 * paper's Algorithm 2 is garbled in the source, this is the seed's
 * reconstruction, consistent with every sentence of the text): eta = AC /
 * the sum of the demands; below 1 every demand is scaled by eta, above 1
 * each grows by gamma (eta - 1) of itself (gamma = 0, the paper's setting,
 * keeps the demands; gamma = 1 uses all AC cores), at 1 it is kept.  The
 * rule is continuous at eta = 1, so the floating-point test of equality
 * decides nothing that matters.  Nothing asked (a sum of 0): eta is
 * undefined and nothing is granted - a demand of 0 is already below any
 * container's minimum, which the simulator's clamp enforces before this.
 * The controllers then learn what was granted (anti-windup); that is the
 * caller's business.  No world: the caller passes the numbers. */
#include "control/supervisor.h"

void ss_supervise(const double *demand, size_t n, double avail_cores, double gamma, double *granted)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += demand[i];
    if (!(sum > 0)) {
        for (size_t i = 0; i < n; i++) granted[i] = 0;
        return;
    }
    double eta = avail_cores / sum;
    for (size_t i = 0; i < n; i++) {
        double u = demand[i];
        granted[i] = eta < 1 ? eta * u : eta > 1 ? u + gamma * (eta - 1) * u : u;
    }
}
