/* validate_means.c: `servesim validate --means` - the runs that repeat one
 * condition judged by their means (validate.h).
 *
 * On a shared machine one measurement of a condition does not reproduce to
 * the tolerance (docs/calibration.md, "The host's speed"); the probe's
 * --passes repeats every condition, interleaved over a session.  Runs
 * repeat one condition when they were matched to the same scenario and
 * their conditions are the same (model, transport, arrival, rate or
 * clients, batch, placement, window, warm-up, and the replayed arrivals),
 * whatever their background_cores, which the host chose, not the
 * experiment.  Per group: the mean of the measured and of the simulated
 * metrics, the error of the means, the tolerances of the group's first run
 * (its regime), and the measured spread, (largest - smallest) / mean. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/validate.h"
#include "core/util.h"

static int same_condition(const ss_val_result *x, const ss_val_result *y)
{
    const ss_hwp_run *a = x->run, *b = y->run;
    if (strcmp(x->scenario, y->scenario) != 0 || !ss_same_str(a->model, b->model) ||
        !ss_same_str(a->transport, b->transport) || !ss_same_str(a->arrival, b->arrival) ||
        !ss_same_str(a->placement, b->placement) || a->rate_per_s != b->rate_per_s || a->clients != b->clients ||
        a->batch != b->batch || a->duration_s != b->duration_s || a->warmup_s != b->warmup_s ||
        a->narrivals != b->narrivals)
        return 0;
    return a->narrivals == 0 || memcmp(a->arrivals_s, b->arrivals_s, a->narrivals * sizeof *a->arrivals_s) == 0;
}

size_t ss_val_means(const ss_val_result *res, size_t n, ss_val_mean **out)
{
    ss_val_mean *g = ss_xcalloc(n + 1, sizeof *g);
    size_t *of = ss_xcalloc(n + 1, sizeof *of), ng = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < ng && !same_condition(g[k].first, &res[i])) k++;
        if (k == ng) g[ng++].first = &res[i];
        of[i] = k;
        g[k].nruns++;
    }
    for (size_t k = 0; k < ng; k++) {
        ss_val_mean *m = &g[k];
        m->r = *m->first;
        for (int j = 0; j < SS_VAL_NMETRICS; j++) {
            double sum_m = 0, sum_s = 0, lo = INFINITY, hi = -INFINITY;
            for (size_t i = 0; i < n; i++) {
                if (of[i] != k) continue;
                double v = res[i].measured[j];
                sum_m += v;
                sum_s += res[i].simulated[j];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            m->r.measured[j] = sum_m / (double)m->nruns;
            m->r.simulated[j] = sum_s / (double)m->nruns;
            m->r.rel_error[j] = (m->r.simulated[j] - m->r.measured[j]) / m->r.measured[j];
            m->spread[j] = (hi - lo) / m->r.measured[j];
        }
    }
    free(of);
    *out = g;
    return ng;
}
