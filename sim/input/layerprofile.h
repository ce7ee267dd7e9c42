/* layerprofile.h: a model as a chain of layers, read from a per-layer
 * profile (models/<model>-layers.json, written by tools/flashpoint_layers.py;
 * derivation in docs/flashpoint-layers.md) through the positioned cfg
 * reader, so every error is "file:line:col: message".  What model
 * partitioning cuts (servesim/partition.h). */
#ifndef SS_LAYERPROFILE_H
#define SS_LAYERPROFILE_H

#include <stdint.h>

#include <servesim/policy.h>

#include "core/util.h"

typedef struct ss_layer_profile {
    char *name;             /* the profile's name (t5-3b-layers) */
    char *model;            /* the whole-model profile it splits (t5-3b) */
    uint32_t nlayers;
    char **layer_names;     /* per layer, in execution order */
    ss_part_layer *layers;  /* bytes, what crosses a cut after it, execution time */
    double weights_bytes;   /* the sums over the layers */
    double exec_s;
} ss_layer_profile;

/* 0, or -1 with err set: a missing or non-numeric field, a negative size
 * or time, an empty layer list, a key it does not know. */
int ss_layer_profile_load(const char *path, ss_layer_profile *lp, ss_err *err);
void ss_layer_profile_free(ss_layer_profile *lp);

#endif
