/* sweep.h: sweep files - a base scenario, axes of values, replications -
 * expanded into independent runs.
 *
 * A sweep is read and every point validated before anything runs (bad
 * input: exit 2, nothing run).  The unit of work is one run: (point,
 * variant of the base scenario, replication).  Units are numbered in a
 * fixed order (points in axis order, the last axis fastest; then variants;
 * then replications), and a unit's result is a block of CSV rows that
 * depends on nothing but the unit: any driver (one process, -j worker
 * processes, MPI ranks) produces the same bytes.
 *
 * The results CSV is the `run` CSV with a leading `point` column; the
 * settings columns carry every axis value, and `seed` and `replication`
 * are columns too, so any row can be rerun alone with
 *   servesim run BASE.yaml --set KEY=VALUE... --seed S --variant V --replication R
 * docs/sweeps.md is the user-facing reference. */
#ifndef SS_SWEEP_H
#define SS_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "core/util.h"

typedef struct ss_sweep ss_sweep;

/* Read SWEEP.yaml; `sets` are command-line overrides ("key=value") of the
 * base scenario applied to every point, and horizon_s > 0 (`--duration`;
 * 0: none) every point's duration_s with its workloads' lengths
 * (input/scenario_horizon.h), after the point's own values.  Loads every
 * point's scenario and initialises its plugins once, so all bad input is
 * found here.  NULL with err set on bad input. */
ss_sweep *ss_sweep_load(const char *path, char *const *sets, size_t nsets, double horizon_s, ss_err *err);
void ss_sweep_free(ss_sweep *sw);

size_t ss_sweep_units(const ss_sweep *sw);
size_t ss_sweep_points(const ss_sweep *sw);
/* The output path: the sweep's `output:`, else results/<sweep name>.csv. */
const char *ss_sweep_output(const ss_sweep *sw);
/* The base scenario's path. */
const char *ss_sweep_base(const ss_sweep *sw);
/* What defines the sweep, one item a line (the sweep file's and base
 * scenario's bytes as hashes, the --set values, and the hash of every
 * other file the points read: model profiles, traces, topologies...;
 * --duration, where given):
 * kept beside its results so that --resume can refuse a sweep
 * that changed, naming what did.  Newly allocated. */
char *ss_sweep_fingerprint(const ss_sweep *sw);
/* The key of a unit as it appears in the CSV: point, variant, replication. */
void ss_sweep_unit_key(const ss_sweep *sw, size_t unit, size_t *point, const char **variant, unsigned *replication);
/* Index of the unit with that key, or (size_t)-1. */
size_t ss_sweep_unit_find(const ss_sweep *sw, size_t point, const char *variant, unsigned replication);
/* "point 3 (policies.load_balancer=random, workloads.images.rate_rps=250),
 * replication 1" (newly allocated). */
char *ss_sweep_unit_describe(const ss_sweep *sw, size_t unit);

/* The header line of the results CSV (with its newline), newly allocated. */
char *ss_sweep_header(const ss_sweep *sw);
/* Run one unit.  0: *text = its CSV rows (newline-terminated); -1: *text =
 * the error message.  Newly allocated either way. */
int ss_sweep_unit_run(const ss_sweep *sw, size_t unit, char **text);

#endif
