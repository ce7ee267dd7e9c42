/* test_topo.h: helpers shared by the topology suites (test_topo.c,
 * test_topo_errors.c); defined in test_topo.c. */
#ifndef SS_TEST_TOPO_H
#define SS_TEST_TOPO_H

#include "net/topo.h"
#include "core/util.h"

/* Write `text` as DIR/t.yaml in a fresh folder and load it; *dirp and
 * *pathp get the folder and the file (free both; remove the folder). */
ss_topo *load_text(const char *text, char **dirp, char **pathp, ss_err *err);
/* Loading `text` fails with exactly "<its path>:line:col: rest". */
void expect_refused(const char *text, int line, int col, const char *rest);

#endif
