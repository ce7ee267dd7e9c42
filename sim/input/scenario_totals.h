/* scenario_totals.h: what a read scenario asks of the machine, summed
 * before anything runs (issue 40 item 3; docs/limits.md). */
#ifndef SS_SCENARIO_TOTALS_H
#define SS_SCENARIO_TOTALS_H

#include "core/cfg.h"
#include "input/scenario.h"

/* The totals of a serving scenario and the peak memory they are estimated
 * to need. */
typedef struct ss_sc_totals {
    double instances;    /* deployed, scripted (events: add) and at most autoscaled */
    double clients;      /* closed-loop clients */
    double devices;
    double events;       /* scripted events */
    double arrivals;     /* trace arrivals held in memory */
    double tasks;        /* tasks, one per model included: each keeps its statistics */
    double memory_bytes; /* the estimate: each of the above times its bytes */
} ss_sc_totals;

void ss_sc_totals_of(const ss_scenario *sc, ss_sc_totals *t);

/* The most ticks a periodic decision (autoscaler, controller) may take
 * over a run. */
#define SS_MAX_TICKS 1e7
/* The most runs (replications x variants) one scenario may ask for. */
#define SS_MAX_RUNS 1e6

/* Refuse (-1, at the key that adds most) a scenario whose estimate is
 * above ss_limit_memory_bytes() (--max-memory), or whose autoscaler or
 * controller would tick more than SS_MAX_TICKS times.  `root` is the scenario's
 * document root, for positions. */
int ss_sc_check_totals(const ss_scenario *sc, const ss_node *root, ss_err *err);

#endif
