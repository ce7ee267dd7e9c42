/* gillis.c: Gillis' partitioning as Flashpoint compares against it (seed
 * flashpoint.md §5): parts of at most 250 MB (a Lambda function's limit,
 * `max_part_mb`), as few of them as that allows (it minimises the network
 * transfers), and among those cuts the ones whose transfers sum least.  It
 * does not depend on the queue.  A layer over the cap goes alone in its
 * part (a layer is not cut).  If the fewest parts are more than the GPUs
 * added, it serves the whole model.
 * Parameter: max_part_mb (250). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "partition_common.h"

typedef struct gl_state {
    double cap_bytes;
} gl_state;

static const char *const gl_params[] = {"max_part_mb", NULL};

static int gl_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    gl_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    uint32_t unused;
    if (pc_params(args->params, 250e6, &s->cap_bytes, &unused, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void gl_fini(void *state) { free(state); }

static uint32_t gl_plan(void *state, const ss_part_model *m, double x, uint32_t gpus, uint32_t *cuts)
{
    (void)x;
    const gl_state *s = state;
    uint32_t L = m->nlayers;
    double cap = s->cap_bytes > 0 ? pc_cap(m, s->cap_bytes) : INFINITY;
    /* fewest parts: fill each part greedily */
    uint32_t pmin = 0;
    for (uint32_t l = 0; l < L;) {
        double b = 0;
        while (l < L && b + m->layers[l].weights_bytes <= cap) b += m->layers[l++].weights_bytes;
        pmin++;
    }
    if (pmin <= 1 || pmin > gpus) return 1;
    /* least transfer sum over pmin parts: best[j][i] = the first i layers in j parts */
    double *best = malloc((size_t)(pmin + 1) * (L + 1) * sizeof *best), *pre = calloc(L + 1, sizeof *pre);
    uint32_t *from = malloc((size_t)(pmin + 1) * (L + 1) * sizeof *from);
    if (!best || !pre || !from) {
        free(best);
        free(pre);
        free(from);
        return 1;
    }
    for (uint32_t l = 0; l < L; l++) pre[l + 1] = pre[l] + m->layers[l].weights_bytes;
#define AT(j, i) ((size_t)(j) * (L + 1) + (i))
    for (size_t k = 0; k < (size_t)(pmin + 1) * (L + 1); k++) best[k] = INFINITY;
    for (uint32_t i = 1; i <= L && pre[i] <= cap; i++) best[AT(1, i)] = 0;
    for (uint32_t j = 2; j <= pmin; j++)
        for (uint32_t i = j; i <= L; i++)
            for (uint32_t f = i; f-- > j - 1 && pre[i] - pre[f] <= cap;) {
                double v = best[AT(j - 1, f)] + ss_part_net_s(m, f - 1);
                if (v < best[AT(j, i)]) {
                    best[AT(j, i)] = v;
                    from[AT(j, i)] = f;
                }
            }
    uint32_t i = L;
    for (uint32_t j = pmin; j > 1; j--) {
        cuts[j - 2] = from[AT(j, i)] - 1;
        i = from[AT(j, i)];
    }
#undef AT
    free(best);
    free(pre);
    free(from);
    return pmin;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PARTITIONER,
    .name = "gillis",
    .summary = "Gillis: the fewest parts of at most max_part_mb (250), cut where the transfers sum least",
    .params = gl_params,
    .init = gl_init,
    .fini = gl_fini,
    .ops.partitioner = {.plan = gl_plan},
};
