/* calibrate_speed.c: the host's speed between the micro-benchmarks and the
 * end-to-end runs (tools/probe/speed.py, kind "speed" samples), reported.
 *
 * A machine shared with others (a VM on a busy host) does not keep one
 * speed: on 2026-11-27 this project's VM ran the same block chain in 85 to
 * 124 ms within minutes, with its own load average under 1
 * (docs/calibration.md, "The host's speed").  The probe times the chain at
 * batch 1 in its own process, beside the micro-benchmarks (phase micro) and
 * before and after every end-to-end run while the pipeline is idle (phase
 * e2e).  Those checks are micro-benchmarks, not end-to-end results: no
 * request of a run is in them.
 *
 * The ratio r = mean(e2e) / mean(micro) says how much faster or slower the
 * host was while the runs ran than while the micro-benchmarks the model is
 * fitted from ran; its 95% interval is the delta method's on a ratio of two
 * means, each request an observation [ASSUMPTION: requests of one check are
 * correlated in time, so the interval is narrower than it should be].  It is
 * written to the model file (host_speed) and said in the summary, with a
 * warning when the host moved by more than 5% beyond the interval: the
 * validation errors then carry it.  It is not applied to the fits: scaling
 * the micro-benchmarks by it was tried on two full measurements of
 * 2026-11-27 and helped one (36 to 16 of 52 errors beyond tolerance) and
 * hurt the other (7 to 14): the checks, a second each between runs, do not
 * see the speed the runs themselves had (docs/calibration.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calibrate_internal.h"
#include "core/util.h"

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
    *var = n > 1 ? q / (double)(n - 1) : 0;
}

int ss_cal_speed(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err)
{
    groups phase = {0}; /* g[k]: the checks of one phase, in input order */
    const ss_hwprofile *first = NULL;
    const ss_hwp_sample *first_s = NULL;
    int rc = 0;
    for (size_t f = 0; f < nprofs && rc == 0; f++)
        for (size_t i = 0; i < profs[f]->nsamples && rc == 0; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            if (s->kind != SS_HWP_SPEED) continue;
            if (!first) first = profs[f], first_s = s;
            else if (strcmp(profs[f]->machine, first->machine) != 0)
                rc = ss_err_at(err, profs[f]->path, s->line, s->col,
                               "speed: checks of two machines ('%s' in %s, '%s' here): one host's speed at a time",
                               first->machine, first->path, profs[f]->machine);
            if (rc == 0) ss_cal_add(&phase, s->phase ? "e2e" : "micro", profs[f], i, 0);
        }
    if (rc < 0 || !first) {
        ss_cal_groups_free(&phase);
        return rc;
    }
    double *v[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    for (size_t k = 0; k < phase.n; k++) {
        int e = strcmp(phase.g[k].key, "e2e") == 0;
        for (size_t r = 0; r < phase.g[k].nrefs; r++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&phase.g[k].refs[r]);
            v[e] = realloc(v[e], (n[e] + s->ntimes) * sizeof *v[e]);
            if (!v[e]) abort();
            memcpy(v[e] + n[e], s->times_s, s->ntimes * sizeof *v[e]);
            n[e] += s->ntimes;
        }
    }
    if (!n[0] || !n[1]) {
        rc = ss_err_at(err, first->path, first_s->line, first_s->col,
                       "speed: expected checks of both phases to compare (micro, beside the micro-benchmarks, and "
                       "e2e, beside the end-to-end runs); got only %s",
                       n[0] ? "micro" : "e2e");
    } else {
        double m0, v0, m1, v1;
        mean_var(v[0], n[0], &m0, &v0);
        mean_var(v[1], n[1], &m1, &v1);
        double ratio = m1 / m0,
               half = 1.96 * ratio * sqrt(v0 / ((double)n[0] * m0 * m0) + v1 / ((double)n[1] * m1 * m1));
        int moved = fabs(ratio - 1) > half + 0.05;
        cJSON *o = cJSON_AddObjectToObject(c->root, "host_speed");
        cJSON_AddStringToObject(o, "machine", first->machine);
        ss_cal_put_num(o, "ratio", ratio);
        ss_cal_put_interval(o, "ratio_ci95", ratio, half);
        ss_cal_put_num(o, "micro_mean_s", m0);
        ss_cal_put_num(o, "e2e_mean_s", m1);
        cJSON_AddNumberToObject(o, "micro_requests", (double)n[0]);
        cJSON_AddNumberToObject(o, "e2e_requests", (double)n[1]);
        cJSON_AddBoolToObject(o, "moved", moved);
        cJSON_AddStringToObject(o, "method",
                                "ratio = e2e_mean_s / micro_mean_s, delta-method interval; reported, not applied to "
                                "the fits (sim/cmd/calibrate_speed.c)");
        cJSON *from = cJSON_AddObjectToObject(o, "from");
        for (size_t k = 0; k < phase.n; k++) cJSON_AddItemToObject(from, phase.g[k].key, ss_cal_refs_json(&phase.g[k]));
        fprintf(c->sum,
                "host speed: the chain took %.2f ms beside the end-to-end runs, %.2f ms beside the micro-benchmarks "
                "(%zu and %zu requests): ratio %.4f +- %.4f\n",
                1e3 * m1, 1e3 * m0, n[1], n[0], ratio, half);
        if (moved)
            fprintf(stderr,
                    "servesim calibrate: warning: %s's speed moved by %+.1f%% between the micro-benchmarks and the "
                    "end-to-end runs (host_speed): errors of that size in validating against those runs may be the host's\n",
                    first->machine, 100 * (ratio - 1));
    }
    free(v[0]);
    free(v[1]);
    ss_cal_groups_free(&phase);
    return rc;
}
