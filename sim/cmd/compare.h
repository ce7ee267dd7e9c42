/* compare.h: `servesim compare` - policies in a results CSV against a
 * baseline, per point and in aggregate, with 95% confidence intervals.
 *
 * A point is a combination of the identity columns (the columns before
 * `model`, and `model`), leaving out the compared column (--by), `point`,
 * `replication`, `seed` and `replications`.  Within a point, each policy's
 * replications are paired with the baseline's by replication number: runs
 * on one seed and replication see the same arrivals (common random
 * numbers), so the paired ratio x_policy / x_baseline has a much tighter
 * interval than two independent means would.  The aggregate over points is
 * the mean of the per-point ratios, its interval a Student t interval over
 * points.  Statistics:
 *   ratio   mean of x_policy / x_baseline
 *   change  (ratio - 1), printed in percent: plain relative change
 *   thesis  the Flashpoint thesis's summary: the mean over points (models)
 *           of the compared policy's latency over the new policy's (the
 *           baseline), reported as 1 - 1/mean: "the new policy cuts latency
 *           by that fraction"
 * docs/sweeps.md shows examples. */
#ifndef SS_COMPARE_H
#define SS_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "core/util.h"

/* The statistics, in the order of --stat's words. */
enum { SS_COMPARE_RATIO, SS_COMPARE_CHANGE, SS_COMPARE_THESIS };

/* A results CSV read for comparison, with its columns found. */
typedef struct ss_compare ss_compare;

/* Read the results CSV at `path` and find the compared column `by` and the
 * metric columns (a unique suffix after a dot or a unique part is enough).
 * NULL with err set ("file:line:col: message"): unreadable, a record cut
 * short, no header and row, a column missing or ambiguous. */
ss_compare *ss_compare_read(const char *path, const char *by, const char *const *metrics, size_t nmetrics,
                            ss_err *err);
/* Compare every metric against `baseline` (rows of `model`; "*": each
 * model) with statistic `stat`, as a table or (csv) CSV on fp.  0; or 2 on
 * bad input, with err set (a short row, a value not a number) or the
 * message written to diag (the baseline is not a value of the column, or
 * no point holds it and another value).  Notes (pairs left out) go to diag. */
int ss_compare_write(ss_compare *c, const char *baseline, const char *model, int stat, int csv, FILE *fp, FILE *diag,
                     ss_err *err);
void ss_compare_free(ss_compare *c);

/* The whole command: argv after "compare".  Exit status 0, or 2 on bad
 * input (unknown column, baseline not in the column, a non-number). */
int ss_cmd_compare(int argc, char **argv);

#endif
