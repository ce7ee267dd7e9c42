/* scenpath.h: a scenario (or sweep) named on the command line - a file as
 * given, else a shipped one by name (`servesim run default`), looked for in
 * the search path that docs/running.md and servesim(1) give. */
#ifndef SS_SCENPATH_H
#define SS_SCENPATH_H

/* arg itself when a file has that name (or nothing is found: its own error
 * then says so); else the first of DIR/arg and DIR/arg.yaml that is a file,
 * DIR each folder of $SERVESIM_SCENARIO_PATH, then <bin>/../share/servesim/
 * scenarios and <bin>/../share/servesim (an install, wherever it went),
 * <bin>/../scenarios and <bin>/.. (a build folder in the source tree), and
 * SS_DATA_DIR/scenarios and SS_DATA_DIR (the prefix compiled in).  The
 * path returned lives until the next call. */
const char *ss_scenario_locate(const char *arg);

#endif
