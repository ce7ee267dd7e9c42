/* validate_speed.h: each end-to-end run's host speed for `servesim validate`
 * (validation.host_speed, docs/validation.md): the per-run time factors
 * `servesim calibrate` wrote into a model file's host_speed.runs
 * (cmd/calibrate_speed.c), read with their positions. */
#ifndef SS_VALIDATE_SPEED_H
#define SS_VALIDATE_SPEED_H

#include <stddef.h>

#include "core/cfg.h"

typedef struct ss_val_speed {
    char *path;            /* the model file */
    char **run;            /* run ids, in the file's order */
    double *time_factor;   /* per run: its CPU work's time over the model's (> 0) */
    size_t n;
} ss_val_speed;

/* Read the model file that `model` (validation.host_speed.model, a path
 * relative to its scenario) names.  0, or -1 with a positioned error: the
 * file not readable, no host_speed.runs in it (calibrate it from speed
 * checks that name their runs), an entry without a run or with a factor
 * that is not a number > 0, a run listed twice. */
int ss_val_speed_read(const ss_node *model, ss_val_speed *out, ss_err *err);
/* Run `id`'s time factor, or NAN if the file has none for it. */
double ss_val_speed_of(const ss_val_speed *s, const char *id);
void ss_val_speed_free(ss_val_speed *s);

#endif
