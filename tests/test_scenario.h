/* test_scenario.h: helpers shared by the scenario suites (test_scenario.c,
 * test_trace.c, test_nameidx.c); defined in test_scenario.c. */
#ifndef SS_TEST_SCENARIO_H
#define SS_TEST_SCENARIO_H

#include <stddef.h>

#include "input/scenario.h"
#include "input/scenario_load.h"

/* A fresh temporary folder (fails the test if none). */
char *xdir(void);
/* Write text to dir/name; the malloc'd path. */
char *put(const char *dir, const char *name, const char *text);
/* err->msg must be exactly "<file>:<line>:<col>: <rest>". */
void expect_err(const ss_err *err, const char *file, int line, int col, const char *rest);
/* Load `text` written as DIR/s.yaml expecting failure at line:col of it. */
void scenario_refused(const char *text, int line, int col, const char *rest);
/* ss_scenario_load, printing the message if it fails. */
int load(ss_scenario *sc, const char *path, const char *variant, char *const *sets, size_t nsets);

#endif
