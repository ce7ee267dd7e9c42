/* supervisor.c: ROMA's supervisor (seed roma.md §2.4, Algorithm 2 as
 * reconstructed there): when the containers of a worker ask for more cores
 * than it has, every demand is scaled by the same factor; when they ask for
 * less, gamma of the spare is shared in proportion to the demands. */
#include "serve/supervisor.h"

void ss_supervise(const double *demand, size_t n, double avail_cores, double gamma, double *granted)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += demand[i];
    double eta = sum > 0 ? avail_cores / sum : 1;
    for (size_t i = 0; i < n; i++) {
        if (eta < 1) granted[i] = eta * demand[i];
        else if (eta > 1) granted[i] = demand[i] + gamma * (eta - 1) * demand[i];
        else granted[i] = demand[i];
    }
}
