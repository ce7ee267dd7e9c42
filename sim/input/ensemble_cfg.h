/* ensemble_cfg.h: the `ensemble:` section of a scenario (docs/ensembles.md,
 * seed E = ../shared/seeds/ensembles.md) and its allocation matrix.
 *
 * An ensemble of M member models answers each request of n images by
 * averaging their predictions.  The allocation matrix A has one row per
 * device of `hosts:` (in the order written) and one column per member:
 * A[d][m] is the batch size of the worker of member m on device d, 0 for
 * none (E §1.2).  Each member has a latency profile (models/ensemble/
 * <name>.json): per device type, per batch size, the latency of one batch
 * and the memory a worker holds at that batch (activations, workspace) on
 * top of the member's weights.
 *
 * The matrix helpers below (counts of E's Eq. 1 and Eq. 2, neighbours,
 * memory fit) are pure functions of the matrix, so the optimizer can call
 * them on candidates that no scenario file holds.
 *
 * Units: seconds (_s), bytes (_bytes); images are counts. */
#ifndef SS_ENSEMBLE_CFG_H
#define SS_ENSEMBLE_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "core/cfg.h"
#include "core/dist.h"
#include "input/resident.h"
#include "input/scenario.h"

/* One profiled batch size of a member on a device type. */
typedef struct ss_ens_point {
    uint32_t batch;
    double latency_s;     /* one batch of `batch` images, the device to itself */
    double memory_bytes;  /* what a worker holds at this batch on top of the weights */
} ss_ens_point;

/* A member's profile on one device type: points sorted by batch. */
typedef struct ss_ens_curve {
    char *type;           /* matches ss_device_cfg.type */
    ss_ens_point *pts;
    uint32_t npts;
} ss_ens_curve;

typedef struct ss_ens_member {
    char *name;
    char *profile;        /* path of its JSON profile */
    char *source;         /* what the numbers come from (the profile's `source`), or NULL */
    double weights_bytes; /* held by every worker of the member, whatever its batch */
    ss_ens_curve *curves;
    uint32_t ncurves;
} ss_ens_member;

typedef enum { SS_ENS_BENCHMARK, SS_ENS_DEPLOY } ss_ens_mode;

typedef struct ss_ensemble_cfg {
    ss_ens_member *members;
    uint32_t nmembers;            /* M */
    uint32_t ndevices;            /* D: the scenario's devices */
    uint32_t *matrix;             /* D x M, row-major: matrix[d * M + m] */
    uint32_t *batches;            /* allowed non-zero batch sizes, ascending (B of them) */
    uint32_t nbatches;
    uint32_t segment_images;      /* N (E §1.3) */
    double interference;          /* alpha of the co-location law (docs/ensembles.md), in [0, 1] */
    ss_ens_mode mode;
    uint64_t images;              /* benchmark: the calibration set, one request at t = 0 */
    uint64_t images_per_request;  /* deploy: images of each request */
    ss_dist interarrival;         /* deploy: open-loop inter-arrival times */
    const ss_ens_curve **curve;   /* D x M: member m's curve on device d's type, for every pair (NULL
                                   * where the profile lacks that type); a worker uses its entry's */
    ss_resident_cfg resident;     /* `resident:`: the memory beside the members' (input/resident.h) */
    unsigned char *dev_gpu;       /* D: device d is a GPU */
    double *dev_capacity_bytes;   /* D: vram (GPU) or ram (CPU), 0 = not bounded */
    int32_t *host_ram;            /* D: the CPU device whose RAM holds device d's host's processes (the
                                   * host's first device of kind cpu), -1 if the host has none */
} ss_ensemble_cfg;

/* Read `ensemble:` (map `sec`) of scenario sc, whose devices are read;
 * profiles are found from the scenario's folder (ss_scenario_find_profile,
 * "ensemble/<name>").  0 ok, -1 with a positioned message. */
int ss_ensemble_cfg_read(ss_ensemble_cfg **out, const ss_scenario *sc, const ss_node *sec, ss_err *err);
void ss_ensemble_cfg_free(ss_ensemble_cfg *e);

/* ---- the matrix as numbers (E §1.3, §2.1, §2.2) ------------------------ */

/* Segments of a request of `images` images cut into segments of n (the last
 * holds the remainder), and the length of segment s. */
uint64_t ss_ens_segments(uint64_t images, uint32_t n);
uint32_t ss_ens_segment_len(uint64_t images, uint32_t n, uint64_t s);
/* Eq. 1: valid matrices, ((B + 1)^D - 1)^M, as a double (1.3e31 overflows integers). */
double ss_ens_total_matrices(uint32_t b, uint32_t d, uint32_t m);
/* Eq. 2 as printed: (B + 1) D M - F. */
uint64_t ss_ens_total_neighs(uint32_t b, uint32_t d, uint32_t m, uint32_t f);
/* F of a matrix: the columns with exactly one non-zero entry (setting it to
 * 0 would leave the column empty, a forbidden neighbour). */
uint32_t ss_ens_forbidden(const uint32_t *a, uint32_t d, uint32_t m);
/* The distinct valid neighbours of a (E §2.2's semantics: one entry changed
 * to another value of {0} + batches, every column non-zero), written to
 * out[k * D * M ...] when out is not NULL; how many. */
size_t ss_ens_neighbours(const uint32_t *a, uint32_t d, uint32_t m, const uint32_t *batches, uint32_t nb,
                         uint32_t *out);
/* A matrix is valid: every column has a non-zero entry and every entry is 0
 * or an allowed batch.  -1 if so, else the index of the first bad entry, or
 * of a bad column's first entry (d = 0) when the column is all zero. */
long ss_ens_invalid(const uint32_t *a, uint32_t d, uint32_t m, const uint32_t *batches, uint32_t nb);
/* The memory device d needs under matrix a (docs/memory.md):
 *   - a GPU: per worker (in member order) its CUDA context and what its
 *     framework reserves: `growth` its weights + memory at its batch;
 *     `fraction` gpu_memory_fraction of the GPU; `all` what is free after
 *     the workers before it and its context, less TensorFlow's system share
 *     (ss_resident_tf_min_system_bytes); INFINITY when a worker's weights +
 *     memory exceed that reservation (its out-of-memory);
 *   - a CPU: its workers' weights + memory at their batch, and, if it holds
 *     its host's RAM, the host's os_reserve_bytes and framework_rss_bytes
 *     for every worker process on the host (on any of its devices).
 * A worker whose batch the curve lacks counts the interpolated memory. */
double ss_ens_device_bytes(const ss_ensemble_cfg *e, const uint32_t *a, uint32_t d);
/* The first device of sc (with a memory capacity: vram for a GPU, ram for a
 * CPU; 0 = not bounded) that matrix a overfills, or -1 if a fits (fit_mem). */
long ss_ens_overfull(const ss_ensemble_cfg *e, const ss_scenario *sc, const uint32_t *a);
/* Capacity of a device for ensemble workers: vram (GPU) or ram (CPU),
 * bytes; 0 = not bounded. */
double ss_ens_capacity_bytes(const ss_device_cfg *dv);
/* The first entry (d * M + m) of matrix a that places a member on a device
 * whose type its profile lacks, or -1 if every worker has a curve. */
long ss_ens_unplaceable(const ss_ensemble_cfg *e, const uint32_t *a);
/* Substitute matrix a (D x M, valid and placeable: the caller checks) for
 * e's, so that the next world built from the scenario runs it (optimize). */
void ss_ens_set_matrix(ss_ensemble_cfg *e, const uint32_t *a);
/* Latency of a batch of k images on a curve: linear between profiled
 * points, proportional to k below the smallest, linear extrapolation from
 * the last two above the largest (docs/ensembles.md, "Partial batches"). */
double ss_ens_latency_s(const ss_ens_curve *c, uint32_t k);

#endif
