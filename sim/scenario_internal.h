/* scenario_internal.h: helpers of the scenario schema shared by
 * scenario.c and scenario_workload.c, and by nothing else. */
#ifndef SS_SCENARIO_INTERNAL_H
#define SS_SCENARIO_INTERNAL_H

#include "cfg.h"
#include "scenario.h"

#define TRY(x)                     \
    do {                           \
        if ((x) < 0) return -1;    \
    } while (0)

/* Index of `name` in names[0..n-1], or -1. */
int ss_sc_find_name(char *const *names, size_t n, const char *name);
/* Required non-empty string naming something ("name" keys, references). */
int ss_sc_read_name(const ss_node *map, const char *key, char **out, ss_err *err);
/* The task names, NULL-terminated (free the array, not the names). */
char **ss_sc_task_names(const ss_scenario *sc);
/* "unknown <what> 'x' (did you mean 'y'?)" at n; frees names; returns -1. */
int ss_sc_unknown_ref(const ss_node *n, const char *what, char **names, ss_err *err);
/* The `workloads:` sequence (scenario_workload.c), after tasks are read. */
int ss_sc_read_workloads(ss_scenario *sc, const ss_node *seq, ss_err *err);

#endif
