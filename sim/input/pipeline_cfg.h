/* pipeline_cfg.h: the `pipeline:` section of a scenario (block pipelines,
 * BlockFlow; docs/blockflow.md) as plain structs, read by pipeline_cfg.c.
 * The serving side is serve/pipeline.h. */
#ifndef SS_PIPELINE_CFG_H
#define SS_PIPELINE_CFG_H

#include <stdint.h>

#include "core/cfg.h"
#include "input/scenario.h"

typedef struct ss_pipeline_cfg {
    ss_policy_cfg transport;   /* plugin and its parameters (profile figures first, then the scenario's) */
    uint32_t batch;            /* samples per client tensor (>= 1) */
    int has_dispatcher;
    uint32_t dispatcher_device;
    int has_client_device;     /* else the client sits on the GPU of whatever it talks to */
    uint32_t client_device;
    double contention;         /* compute slowdown per other busy process on the GPU; 1 = none */
    uint32_t *max_batch;       /* per model (>= 1) */
    double *max_wait_s;        /* per model (>= 0) */
} ss_pipeline_cfg;

/* Read the scenario's `pipeline:` section, if any, into sc->pipeline (after
 * models, tasks, deployment and workloads are read).  0 ok (also when
 * absent), -1 with a positioned error. */
int ss_pipeline_read(ss_scenario *sc, const ss_node *root, ss_err *err);
void ss_pipeline_free(ss_pipeline_cfg *p);

/* Per-request pipeline state, kept in ss_request (serve.h). */

#endif
