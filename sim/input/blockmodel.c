/* blockmodel.c: reads one block, or one fused block process, of a BlockFlow
 * split profile (models/<model>-split.json) into an ss_block_cfg and its
 * compute-time distribution.  Only the keys the simulator uses are read; the
 * profile's other keys (citations, VRAM tables for the planner) are data for
 * people and for `servesim plan`. */
#include "input/blockmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

static const ss_node *find_named(const ss_node *seq, const char *name)
{
    for (size_t i = 0; seq && i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        const ss_node *n = it->kind == SS_NODE_MAP ? ss_map_find(it, "name") : NULL;
        if (n && n->kind == SS_NODE_SCALAR && strcmp(n->value, name) == 0) return it;
    }
    return NULL;
}

/* The names of blocks and processes, for "did you mean". */
static char **names_of(const ss_node *blocks, const ss_node *procs)
{
    size_t n = (blocks ? blocks->n : 0) + (procs ? procs->n : 0), k = 0;
    char **names = ss_xcalloc(n + 1, sizeof *names);
    const ss_node *seqs[2] = {blocks, procs};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; seqs[s] && i < seqs[s]->n; i++) {
            const ss_node *nm = seqs[s]->items[i]->kind == SS_NODE_MAP ? ss_map_find(seqs[s]->items[i], "name") : NULL;
            if (nm && nm->kind == SS_NODE_SCALAR) names[k++] = nm->value;
        }
    return names;
}

/* `kernel_fraction` of map n (the profile's root or a block), in (0, 1]:
 * 1 if given, 0 (and *f untouched) when absent, -1 on error. */
static int read_kernel_fraction(const ss_node *n, double *f, ss_err *err)
{
    double v = *f;
    int has;
    TRY(has = ss_cfg_num(n, "kernel_fraction", &v, SS_POS, err));
    if (has && v > 1)
        return ss_node_err(ss_map_find(n, "kernel_fraction"), err,
                           "kernel_fraction: expected a number in (0, 1] (the share of the block's GPU compute time "
                           "that is kernel time), got '%g'",
                           v);
    *f = v;
    return has;
}

/* A block's kernel fraction (its own, else the profile's, root_f) and the mean
 * of its service, for a fused process's weighted fraction; 1 if either gives
 * it, 0 if neither (root_has: the profile's root does), -1 on error. */
static int block_kernel_share(const ss_node *blk, double root_f, int root_has, double *f, double *mean_s, ss_err *err)
{
    *f = root_f;
    *mean_s = 0;
    int has;
    TRY(has = read_kernel_fraction(blk, f, err));
    const ss_node *svc = ss_map_find(blk, "service");
    if (svc) {
        ss_dist d;
        TRY(ss_dist_read(svc, "service", &d, err));
        *mean_s = ss_dist_mean(&d);
        ss_dist_free(&d);
    }
    return has || root_has;
}

/* One block entry's numbers, added into *b (so fused processes sum). */
static int read_block(const ss_node *blk, int first, int last, ss_block_cfg *b, ss_err *err)
{
    double in = 0, out = 0, gflop = 0, wb = 0, proc = 0;
    TRY(ss_cfg_num(blk, "in_bytes_per_sample", &in, SS_REQ | SS_NONNEG, err));
    TRY(ss_cfg_num(blk, "out_bytes_per_sample", &out, SS_REQ | SS_NONNEG, err));
    TRY(ss_cfg_num(blk, "gflop_per_sample", &gflop, SS_NONNEG, err));
    TRY(ss_cfg_num(blk, "weights_bytes", &wb, SS_NONNEG, err));
    ss_node *vram = NULL;
    TRY(ss_cfg_map(blk, "vram", &vram, 0, err)); /* none: a process that holds no VRAM (a CPU block) */
    if (vram) TRY(ss_cfg_num(vram, "process_mib", &proc, SS_REQ | SS_POS, err));
    if (first) b->in_bytes_per_sample = in;
    if (last) b->out_bytes_per_sample = out;
    b->gflop_per_sample += gflop;
    b->weights_bytes += wb;
    /* Fused: one process, so one context for all its blocks. */
    if (vram) b->process_vram_mib += first ? proc : proc - b->context_vram_mib;
    return 0;
}

/* `batch_law: {fixed_s, per_sample_s}` (written by servesim calibrate,
 * docs/profiles.md): the mean compute time's affine law in the batch size. */
static int read_batch_law(const ss_node *blk, ss_block_cfg *b, ss_err *err)
{
    static const char *const keys[] = {"fixed_s", "per_sample_s", NULL};
    ss_node *law = NULL;
    TRY(ss_cfg_map(blk, "batch_law", &law, 0, err));
    if (!law) return 0;
    TRY(ss_cfg_check_keys(law, keys, "batch_law", err));
    TRY(ss_cfg_num(law, "fixed_s", &b->batch_fixed_s, SS_REQ, err));
    TRY(ss_cfg_num(law, "per_sample_s", &b->batch_per_sample_s, SS_REQ | SS_NONNEG, err));
    if (!(b->batch_fixed_s + b->batch_per_sample_s > 0))
        return ss_node_err(law, err, "batch_law: fixed_s + per_sample_s (the batch-1 mean) must be > 0");
    b->has_batch_law = 1;
    return 0;
}

static int load(const ss_doc *doc, const ss_node *where, ss_block_cfg *b, ss_dist *service, ss_err *err)
{
    const ss_node *root = doc->root;
    TRY(ss_node_expect(root, SS_NODE_MAP, "split profile", err));
    const char *name;
    TRY(ss_cfg_str(root, "name", &name, SS_REQ, err));
    b->split = ss_xstrdup(name);
    ss_node *process, *blocks, *pipeline = NULL, *procs = NULL;
    TRY(ss_cfg_map(root, "process", &process, SS_REQ, err));
    TRY(ss_cfg_num(process, "context_vram_mib", &b->context_vram_mib, SS_REQ | SS_NONNEG, err));
    TRY(ss_cfg_num(process, "host_ram_mib", &b->host_ram_mib, SS_REQ | SS_NONNEG, err));
    TRY(ss_cfg_seq(root, "blocks", &blocks, SS_REQ, err));
    TRY(ss_cfg_map(root, "pipeline", &pipeline, 0, err));
    if (pipeline) TRY(ss_cfg_seq(pipeline, "processes", &procs, 0, err));
    TRY(ss_cfg_num(root, "gpu_eff_flops_per_s", &b->gpu_eff_flops_per_s, SS_NONNEG, err));
    double root_f = 1; /* silent: the whole compute as kernel time, and has_kernel_fraction 0 */
    int root_has;
    TRY(root_has = read_kernel_fraction(root, &root_f, err));

    const char *want = where->value;
    const ss_node *blk = find_named(blocks, want), *proc = blk ? NULL : find_named(procs, want);
    if (!blk && !proc) {
        char **names = names_of(blocks, procs);
        const char *near = ss_suggest(want, (const char *const *)names);
        int rc = near ? ss_node_err(where, err, "split model '%s' has no block or process '%s' (did you mean '%s'?)",
                                    b->split, want, near)
                      : ss_node_err(where, err, "split model '%s' has no block or process '%s'", b->split, want);
        free(names);
        return rc;
    }
    b->block = ss_xstrdup(want);
    const ss_node *svc;
    if (blk) {
        TRY(read_block(blk, 1, 1, b, err));
        double mean_s;
        TRY(b->has_kernel_fraction = block_kernel_share(blk, root_f, root_has, &b->kernel_fraction, &mean_s, err));
        svc = ss_map_find(blk, "service");
        if (!svc) return ss_node_err(blk, err, "block '%s': missing key 'service'", want);
        TRY(read_batch_law(blk, b, err));
    } else {
        ss_node *members;
        TRY(ss_cfg_seq(proc, "blocks", &members, SS_REQ, err));
        if (members->n == 0) return ss_node_err(members, err, "blocks: a process needs at least one block");
        /* fused: the blocks' fractions weighted by their mean times (equally if none has a service) */
        double kernel_s = 0, all_s = 0, sum_f = 0;
        b->has_kernel_fraction = 1;
        for (size_t i = 0; i < members->n; i++) {
            const ss_node *m = members->items[i];
            TRY(ss_node_expect(m, SS_NODE_SCALAR, "block name", err));
            const ss_node *mb = find_named(blocks, m->value);
            if (!mb) return ss_node_err(m, err, "process '%s' names unknown block '%s'", want, m->value);
            TRY(read_block(mb, i == 0, i + 1 == members->n, b, err));
            double f, mean_s;
            int has;
            TRY(has = block_kernel_share(mb, root_f, root_has, &f, &mean_s, err));
            b->has_kernel_fraction &= has;
            kernel_s += f * mean_s;
            all_s += mean_s;
            sum_f += f;
        }
        b->kernel_fraction = all_s > 0 ? kernel_s / all_s : sum_f / (double)members->n;
        svc = ss_map_find(proc, "service");
        if (!svc && members->n == 1) svc = ss_map_find(find_named(blocks, members->items[0]->value), "service");
        if (!svc) return ss_node_err(proc, err, "process '%s' fuses blocks: it needs its own 'service'", want);
    }
    TRY(ss_dist_read(svc, "service", service, err));
    b->mean1_s = ss_dist_mean(service);
    return 0;
}

int ss_blockmodel_load(const char *path, const ss_node *block, ss_block_cfg *b, ss_dist *service, ss_err *err)
{
    memset(b, 0, sizeof *b);
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return -1;
    int rc = load(doc, block, b, service, err);
    ss_doc_free(doc);
    return rc;
}

double ss_block_mean_s(const ss_block_cfg *b, double batch)
{
    if (b->has_batch_law) /* the law's shape, scaled to the measured batch-1 mean */
        return b->mean1_s * (b->batch_fixed_s + b->batch_per_sample_s * batch) /
               (b->batch_fixed_s + b->batch_per_sample_s);
    if (!(b->gpu_eff_flops_per_s > 0)) return b->mean1_s;
    double bound = batch * b->gflop_per_sample * 1e9 / b->gpu_eff_flops_per_s;
    return bound > b->mean1_s ? bound : b->mean1_s;
}

void ss_block_free(ss_block_cfg *b)
{
    if (!b) return;
    free(b->split);
    free(b->block);
    memset(b, 0, sizeof *b);
}
