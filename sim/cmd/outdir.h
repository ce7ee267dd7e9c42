/* outdir.h: where a command writes when its command line names no output.
 *
 * The rule (servesim run --help, docs/running.md "Where a run writes"): an
 * output path is relative to the working directory; the folders of a path
 * the command line names (-o, --requests-csv, ..., or --set outputs.KEY=...)
 * are made, but a path that comes from the scenario or the sweep file (their
 * outputs, or the default results/<name>.csv) is written only into a folder
 * that is already there.  Otherwise the command stops before any work (exit
 * 2), saying so: a run never makes a folder, ./results/ included, that the
 * user did not name. */
#ifndef SS_OUTDIR_H
#define SS_OUTDIR_H

#include "core/util.h"

/* 0 if the folder of `path` (an output the command line did not name) is
 * there, or path is NULL or "-"; else -1 with err set: positioned at the
 * scalar `section.key` (or `key` at the top with section NULL) of the file
 * `doc` where that holds `path`, else at `doc` alone, and saying that `what`
 * (say "the results CSV") went unwritten and that `flag` ("-o PATH") names
 * another path.
 * `dflt` describes a path no key gave (say "results/<name>.csv"), or NULL. */
int ss_outdir_check(const char *path, const char *doc, const char *section, const char *key, const char *what,
                    const char *flag, const char *dflt, ss_err *err);

/* `run`'s outputs that only scenario sc (its first variant) names: the results
 * CSV unless -o gave `csv`, the requests and time-series CSVs unless their
 * options gave them, each unless --set outputs.KEY=... (one of sets[]) did.
 * 0, or -1 with err set as ss_outdir_check says. */
struct ss_scenario;
int ss_outdir_scenario(const struct ss_scenario *sc, const char *csv, const char *requests_csv,
                       const char *timeseries_csv, char *const *sets, size_t nsets, ss_err *err);

#endif
