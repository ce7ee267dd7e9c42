/* sweep_sink.h: where finished sweep units go - the results file as a
 * crash-safe journal, the progress line and the failure reports.
 *
 * Rows reach the file in unit order, whatever order the units finish in
 * (a unit that finishes early waits in memory for the ones before it), one
 * write(2) per unit followed by fsync, so a kill at any moment leaves a
 * header plus a prefix of whole units, at worst followed by one torn line.
 * `--resume` reads that file back, cuts a torn or unfinished tail, skips
 * the units present, and appends the rest in order: an interrupted and
 * resumed sweep ends with the same bytes as an uninterrupted one.  A failed
 * unit writes no rows (a resume runs it again); when a resume fills such a
 * gap, closing rewrites the file (atomically) in unit order, so it too ends
 * with the uninterrupted bytes.
 *
 * Beside the file: <path>.fingerprint (what defines the sweep, with every
 * input file's hash: a resume of a changed sweep is refused, naming what
 * changed) and <path>.sums (a checksum of every line written after the
 * header, appended after its unit's rows: a resume checks every row and
 * refuses a file with a row edited, removed or damaged, naming its line). */
#ifndef SS_SWEEP_SINK_H
#define SS_SWEEP_SINK_H

#include <stddef.h>
#include "cmd/sweep.h"

typedef struct ss_sweep_sink ss_sweep_sink;

/* Open `path` for the sweep: fresh (the header is written atomically over
 * any old file), or with `resume` the existing file checked against this
 * sweep's header and cut after its last whole unit (a missing file starts
 * fresh).  Fresh over an existing file that holds a sweep's results (its
 * fingerprint beside it) only with `force`: a rerun without --resume must
 * not lose what a resume would have kept.  `progress`: draw a progress line
 * on stderr.  NULL with err set (unwritable path, a file from another sweep,
 * results not to be replaced). */
ss_sweep_sink *ss_sweep_sink_open(const ss_sweep *sw, const char *path, int resume, int force, int progress,
                                  ss_err *err);
/* 1 if the unit's rows are already in the file (resume). */
int ss_sweep_sink_has(const ss_sweep_sink *s, size_t unit);
/* Units already in the file. */
size_t ss_sweep_sink_present(const ss_sweep_sink *s);
/* A finished unit: ok = 1 with its CSV rows, or 0 with an error message;
 * `text` is taken over.  0, or -1 with err set if the file cannot be
 * written. */
int ss_sweep_sink_put(ss_sweep_sink *s, size_t unit, int ok, char *text, ss_err *err);
/* Close the file and end the progress line; returns the number of units
 * that failed.  Frees s. */
size_t ss_sweep_sink_close(ss_sweep_sink *s);

#endif
