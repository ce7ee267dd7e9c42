/* interp.h: a table of points (x increasing) read between them: linear
 * between two points, `below` at or under the first x, the last point's
 * value at or past the last x.  Shared by the tables that scenarios give as
 * points: waking after idle (pipeline.wake) and a GPU waking after idle
 * (pipeline.gpu_wake). */
#ifndef SS_INTERP_H
#define SS_INTERP_H

#include <stddef.h>

static inline double ss_interp_table(const double *x, const double *y, size_t n, double q, double below)
{
    if (q <= x[0]) return below;
    if (q >= x[n - 1]) return y[n - 1];
    size_t k = 1;
    while (x[k] < q) k++;
    return y[k - 1] + (q - x[k - 1]) / (x[k] - x[k - 1]) * (y[k] - y[k - 1]);
}

#endif
