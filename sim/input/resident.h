/* resident.h: the memory a serving process holds beside its model's own
 * bytes (issue 44 item 1; docs/memory.md), and the law that predicts a
 * process's resident set from a model's weights and activations.
 *
 * A device's memory ledger holds, beside each worker's weights and
 * activations:
 *   - the operating system and runtime resident set of the machine (an edge
 *     device's reserve; a host's on its CPU device's RAM): os_reserve_bytes;
 *   - per serving process, the framework's resident set (interpreter,
 *     libraries, allocator pools) on the host's RAM: framework_rss_bytes;
 *   - per process on a GPU, the CUDA context (driver, kernels, cuDNN/cuBLAS
 *     handles): cuda_context_bytes; and the framework's allocator reservation,
 *     by its policy: `growth` reserves what the worker uses (TensorFlow's
 *     allow_growth, PyTorch's caching allocator), `fraction` reserves
 *     gpu_memory_fraction of the GPU whatever the worker uses (TensorFlow's
 *     per_process_gpu_memory_fraction), `all` reserves what is free less the
 *     system's share (TensorFlow 1.x's default: MinSystemMemory).
 *
 * The law (fitted by `servesim calibrate` from tools/probe/memory.py's
 * samples, sim/calib/calibrate_resident.c):
 *   peak resident = framework_rss_bytes + weights_factor x weights_bytes
 *                   + workspace_bytes + activation_factor x activation_bytes
 * Units: bytes; the factors are pure numbers. */
#ifndef SS_RESIDENT_H
#define SS_RESIDENT_H

#include "core/cfg.h"
#include "core/util.h"

/* The law of a process's peak resident set (a model file's `resident`). */
typedef struct ss_resident_law {
    double framework_rss_bytes; /* the framework and a built model's code, no weights */
    double weights_factor;      /* resident bytes per byte of weights */
    double workspace_bytes;     /* a forward's fixed extra (allocator pools, kernels' scratch) */
    double activation_factor;   /* resident bytes per byte of the forward's peak activations */
} ss_resident_law;

/* The predicted peak resident set of one process holding weights_bytes of
 * weights and running a forward whose operators hold activation_bytes at
 * most (0: no forward yet). */
double ss_resident_predict(const ss_resident_law *l, double weights_bytes, double activation_bytes);

/* Read the `resident` map of the model file at path (what calibrate writes).
 * 0 ok; -1 with a positioned message (a missing key, a negative number). */
int ss_resident_law_load(const char *path, ss_resident_law *l, ss_err *err);

/* How a GPU worker's framework reserves the GPU's memory. */
typedef enum { SS_GPU_ALLOC_GROWTH, SS_GPU_ALLOC_FRACTION, SS_GPU_ALLOC_ALL } ss_gpu_alloc;

/* A scenario's resident terms (`resident:` of an `ensemble:` section;
 * every term 0 and `growth` when absent: the ledger of weights and
 * activations alone). */
typedef struct ss_resident_cfg {
    double os_reserve_bytes;    /* per host, on its CPU device's memory */
    double framework_rss_bytes; /* per worker process, on its host's CPU device's memory */
    double cuda_context_bytes;  /* per worker process on a GPU, on that GPU */
    ss_gpu_alloc gpu_allocator;
    double gpu_memory_fraction; /* fraction: of the GPU's memory, per worker, in (0, 1] */
} ss_resident_cfg;

/* Read the map n (NULL: the defaults).  Keys os_reserve_bytes,
 * framework_rss_bytes, cuda_context_bytes (>= 0), gpu_allocator (growth,
 * fraction, all), gpu_memory_fraction (in (0, 1], with fraction and only
 * then).  0 ok; -1 with a positioned message. */
int ss_resident_cfg_read(ss_resident_cfg *r, const ss_node *n, ss_err *err);

/* TensorFlow 1.x's share of free GPU memory left to the system when it
 * reserves all the rest (gpu_device.cc, MinSystemMemory): 225 MiB below
 * 2 GiB free, else max(300 MiB, 5% of the free memory). */
double ss_resident_tf_min_system_bytes(double free_bytes);

#endif
