/* blockmodel.h: one block (or fused block process) of a split DNN, read from
 * a BlockFlow split profile (models/<model>-split.json, format in
 * docs/blockflow-models.md §2.1) through the positioned cfg reader, so every
 * error is "file:line:col: message".
 *
 * A scenario model `{name: b1, split: resnet50-split, block: block1}` is a
 * block: its service distribution is the block's batch-1 compute time m_b,
 * and the fields below give the tensors it passes on (per sample, scaled by
 * the batch), its compute time as a function of batch size, and what its OS
 * process holds in VRAM and host RAM (a block without `vram:`, such as a
 * CPU process, holds none).  `kernel_fraction` (the profile's, or a block's
 * own) splits its compute on a GPU into kernel time, which processes sharing
 * the GPU time-slice, and host-side time on its host's CPU
 * (docs/blockflow.md, "GPU-busy time vs host time"). */
#ifndef SS_BLOCKMODEL_H
#define SS_BLOCKMODEL_H

#include <stdint.h>

#include "core/cfg.h"
#include "core/dist.h"

typedef struct ss_block_cfg {
    char *split;                /* the split profile's name */
    char *block;                /* block or process name in it (block1, block4_class, ...) */
    double in_bytes_per_sample;  /* tensor it receives, batch 1 */
    double out_bytes_per_sample; /* tensor it sends on, batch 1 */
    double gflop_per_sample;     /* for the batch rule */
    double gpu_eff_flops_per_s;  /* batch rule: 0 = compute time does not grow with batch */
    double mean1_s;              /* batch-1 mean compute time */
    double process_vram_mib;     /* the process: CUDA context + torch reserved (Table 4.2) */
    double context_vram_mib;     /* one CUDA context (also what a cross-GPU sender opens) */
    double host_ram_mib;         /* the process's host RAM */
    double weights_bytes;
    double kernel_fraction;      /* of the compute time on a GPU, the share that is kernels (the rest is
                                  * host-side: launch, framework, sync); (0, 1] */
    int has_kernel_fraction;     /* the profile states it (for every block of a fused process); else
                                  * kernel_fraction is 1 and a GPU block under compute: shared is refused
                                  * (pipeline_cfg.c) */
    int has_batch_law;           /* `batch_law:` given (servesim calibrate): it replaces the FLOP rule */
    double batch_fixed_s, batch_per_sample_s; /* mean(B) = fixed_s + B x per_sample_s, as fitted */
} ss_block_cfg;

/* Read the block or process named by the scalar node `block` from the split
 * profile at `path` (a process of the file's `pipeline.processes` fuses its
 * blocks: first block's input, last block's output, summed FLOPs, one
 * context).  *service gets its batch-1 compute distribution.  0 ok; -1 with
 * err set (unknown block with a suggestion, negative or missing bytes). */
int ss_blockmodel_load(const char *path, const ss_node *block, ss_block_cfg *b, ss_dist *service, ss_err *err);

/* Mean compute time at `batch` samples, by the profile's rule
 *   m_b(B) = max(m_b(1), B x gflop_per_sample x 1e9 / gpu_eff_flops_per_s)
 * (docs/blockflow-models.md §3.4), or, for a block with a fitted
 * `batch_law` (docs/profiles.md),
 *   m_b(B) = m_b(1) x (fixed_s + B x per_sample_s) / (fixed_s + per_sample_s). */
double ss_block_mean_s(const ss_block_cfg *b, double batch);

void ss_block_free(ss_block_cfg *b);

#endif
