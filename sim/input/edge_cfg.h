/* edge_cfg.h: the edge device of issue 5 (MASA, docs/masa.md): a CPU device with
 * a pool of worker threads, a RAM budget, weights loaded from storage layer
 * by layer, and paging when the memory in use exceeds the budget.
 *
 * A scenario with a top-level `edge:` section is an edge scenario: edge_cfg.c
 * reads that section (and the layer profiles in models/masa/<name>.json it
 * names) into ss_edge_cfg; world.c hands such a scenario to edge_world.c,
 * which runs it on the same engine, random streams and result structs as a
 * serving scenario.  The layer scheduler is a plugin (ss_layer_sched_ops).
 *
 * Units: seconds (_s), bytes (_bytes); the YAML speaks MiB (_mib). */
#ifndef SS_EDGE_CFG_H
#define SS_EDGE_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <servesim/policy.h>
#include "core/cfg.h"
#include "input/scenario.h"

/* One layer of a network: its load task L and execute task E. */
typedef struct ss_edge_layer {
    double load_s, exec_s;          /* at the profile device's speed (scaled when read) */
    double mem_load_bytes;          /* m^L: weights, held from L's start to E's end */
    double mem_exec_bytes;          /* m^E: output + scratch, held from E's start to the next E's end */
    uint8_t part;                   /* SS_PART_CONV or SS_PART_FC (the released code's split) */
    uint8_t fc;                     /* paging class of E: 1 for fully-connected layers (type fc) */
} ss_edge_layer;

/* One network (a models/masa/<name>.json profile, or an inline `networks:` item). */
typedef struct ss_edge_net {
    char *name;
    ss_edge_layer *layers;
    uint32_t nlayers;
    double peak_bytes;    /* whole-network peak (Table I); Σ (m^L + m^E) when absent */
    double admit_bytes;   /* the released code's admission memory (max-memory-valgrind); peak when absent */
    double mean_exec_s;   /* the released code's SNF key (mean-execution-time); duration_s when absent */
    double duration_s;    /* Σ load_s + Σ exec_s: one inference alone, without paging or overhead */
} ss_edge_net;

typedef enum { SS_EDGE_PERIODIC, SS_EDGE_SCENARIO1, SS_EDGE_SCENARIO2 } ss_edge_wl_kind;

/* Images (jobs) and the networks each one requests. */
typedef struct ss_edge_workload {
    ss_edge_wl_kind kind;
    uint32_t *nets;         /* periodic: the job's networks, in order; otherwise the candidates */
    uint32_t nnets;
    uint32_t per_image_min, per_image_max; /* scenario2: networks per image, uniform (distinct networks) */
    double intensity;       /* E[T_job] / E[IAT] (paper direction: higher is harder) */
    double job_service_s;   /* E[T_job]: networks per image x mean duration_s of the candidates */
    double iat_mean_s;      /* periodic and scenario2: the period; scenario1: the normal's mean */
    double iat_sd_s;        /* scenario1: the normal's standard deviation (truncated at 0) */
    double deadline_s;      /* after generation; the period (scenario1: the mean IAT) */
} ss_edge_workload;

/* Paging slowdown s_k(x) = 1 + a_k x^b_k, x = max(0, U/C - 1) (docs/masa.md §3). */
enum { SS_EDGE_CONV = 0, SS_EDGE_FC = 1, SS_EDGE_LOADC = 2 };
typedef struct ss_edge_paging {
    double a[3], b[3];        /* per class: conv exec, fc exec, load */
    double disk_contention;   /* kappa: concurrent loads share the disk at 1/(n (1 + kappa)) each */
} ss_edge_paging;

/* Power model (docs/masa.md §5): P = idle + per busy worker + while over-committed. */
typedef struct ss_edge_power {
    double idle_w, worker_w, swap_w;
} ss_edge_power;

typedef struct ss_edge_cfg {
    uint32_t workers;
    uint32_t cores;           /* the device's CPU cores, shared by busy workers (docs/masa.md) */
    double capacity_bytes;    /* RAM limit C */
    double reserved_bytes;    /* held from the start: reserved_mib (EdgeCaffe itself: 4.87 MB in the released
                               * code) + os_reserve_bytes + framework_rss_bytes */
    double os_reserve_bytes;  /* the OS and runtime resident set inside the limit (0: the limit is the
                               * process's, as MASA's cgroup, seed §4a) */
    double framework_rss_bytes; /* the serving process's framework resident set (docs/memory.md) */
    double mem_estimate;      /* factor on the memory the scheduler is told (not on the true use) */
    double load_scale, exec_scale; /* device speed relative to the profile device */
    int load_chain;           /* -1: as the scheduler asks (its flags); 0: loads unchained; 1: chained */
    int release_network;      /* 0: the per-layer release rule; 1: hold everything until the network ends */
    ss_edge_paging paging;
    ss_edge_power power;
    ss_policy_cfg scheduler;  /* a layer_scheduler plugin */
    ss_edge_net *nets;        /* the networks the workload names (and inline ones) */
    size_t nnets;
    ss_edge_workload wl;
} ss_edge_cfg;

/* Read an `edge:` map (scenario_dir locates models/masa/).  0, or -1 with a
 * file:line:col message. */
int ss_edge_cfg_read(ss_edge_cfg **out, const ss_node *edge, const char *scenario_dir, ss_err *err);
void ss_edge_cfg_free(ss_edge_cfg *e);

/* s_k(x) for paging class k at over-commit x = max(0, U/C - 1). */
double ss_edge_slowdown(const ss_edge_paging *p, int cls, double x);

/* ---- the edge world (edge_world.c), driven through ss_world_* ---------- */

#endif
