/* resident.c: the resident memory beside a model (resident.h): the law of a
 * process's resident set, read from a model file, and a scenario's resident
 * terms, read from its `resident:` map. */
#include "input/resident.h"

#include <math.h>
#include <string.h>

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

double ss_resident_predict(const ss_resident_law *l, double weights_bytes, double activation_bytes)
{
    double fwd = activation_bytes > 0 ? l->workspace_bytes + l->activation_factor * activation_bytes : 0;
    return l->framework_rss_bytes + l->weights_factor * weights_bytes + fwd;
}

int ss_resident_law_load(const char *path, ss_resident_law *l, ss_err *err)
{
    ss_doc *doc = ss_doc_load_json(path, err);
    if (!doc) return -1;
    ss_node *r = NULL;
    int rc = ss_node_expect(doc->root, SS_NODE_MAP, "model file", err);
    if (rc == 0) rc = ss_cfg_map(doc->root, "resident", &r, SS_REQ, err) < 0 ? -1 : 0;
    static const char *const keys[] = {"framework_rss_bytes", "weights_factor", "workspace_bytes",
                                       "activation_factor"};
    double *out[] = {&l->framework_rss_bytes, &l->weights_factor, &l->workspace_bytes, &l->activation_factor};
    for (int i = 0; rc == 0 && i < 4; i++) rc = ss_cfg_num(r, keys[i], out[i], SS_REQ | SS_NONNEG, err) < 0 ? -1 : 0;
    ss_doc_free(doc);
    return rc;
}

double ss_resident_tf_min_system_bytes(double free_bytes)
{
    const double mib = 1048576.0;
    if (free_bytes < 2147483648.0) return 225 * mib;
    return fmax(300 * mib, 0.05 * free_bytes);
}

int ss_resident_cfg_read(ss_resident_cfg *r, const ss_node *n, ss_err *err)
{
    memset(r, 0, sizeof *r);
    r->gpu_allocator = SS_GPU_ALLOC_GROWTH;
    if (!n) return 0;
    TRY(ss_node_expect(n, SS_NODE_MAP, "resident (os_reserve_bytes, framework_rss_bytes, cuda_context_bytes, "
                                       "gpu_allocator, gpu_memory_fraction)", err));
    static const char *const keys[] = {"os_reserve_bytes", "framework_rss_bytes", "cuda_context_bytes",
                                       "gpu_allocator",    "gpu_memory_fraction", NULL};
    TRY(ss_cfg_check_keys(n, keys, "resident", err));
    TRY(ss_cfg_num(n, "os_reserve_bytes", &r->os_reserve_bytes, SS_NONNEG, err));
    TRY(ss_cfg_num(n, "framework_rss_bytes", &r->framework_rss_bytes, SS_NONNEG, err));
    TRY(ss_cfg_num(n, "cuda_context_bytes", &r->cuda_context_bytes, SS_NONNEG, err));
    static const char *const allocs[] = {"growth", "fraction", "all", NULL};
    int a = SS_GPU_ALLOC_GROWTH;
    TRY(ss_cfg_enum(n, "gpu_allocator", allocs, &a, 0, err));
    r->gpu_allocator = (ss_gpu_alloc)a;
    const ss_node *f = ss_map_find(n, "gpu_memory_fraction");
    if (a == SS_GPU_ALLOC_FRACTION && !f)
        return ss_node_err(ss_map_find(n, "gpu_allocator"), err, "gpu_allocator: fraction needs gpu_memory_fraction "
                           "(each GPU worker's share of its GPU, in (0, 1])");
    if (f && a != SS_GPU_ALLOC_FRACTION)
        return ss_node_err(f, err, "gpu_memory_fraction: only with gpu_allocator: fraction (TensorFlow's "
                           "per_process_gpu_memory_fraction)");
    if (f) {
        TRY(ss_node_num(f, "gpu_memory_fraction", &r->gpu_memory_fraction, SS_POS, err));
        if (r->gpu_memory_fraction > 1)
            return ss_node_err(f, err, "gpu_memory_fraction: expected a fraction in (0, 1], got %s", f->value);
    }
    return 0;
}
