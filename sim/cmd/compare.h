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

/* The whole command: argv after "compare".  Exit status 0, or 2 on bad
 * input (unknown column, baseline not in the column, a non-number). */
int ss_cmd_compare(int argc, char **argv);

#endif
