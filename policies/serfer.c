/* serfer.c: SerFer's partitioning as Flashpoint compares against it (seed
 * flashpoint.md §5): parts of at most 250 MB (a Lambda function's limit,
 * `max_part_mb`), chosen for the least mean end-to-end time while the
 * transfers between parts are taken to cost nothing, so it cuts into as
 * many parts as it may (ties go to more parts); a layer over the cap goes
 * alone in its part.  With no plan under the cap
 * within the GPUs added it serves the whole model.  Parameters:
 * max_part_mb (250), max_parts (0: one per layer at most). */
#include <stdio.h>
#include <stdlib.h>

#include "partition_common.h"

typedef struct sf_state {
    double cap_bytes;
    uint32_t max_parts;
    pc_front **fronts;     /* per model, built when first asked */
    uint32_t n;
} sf_state;

static const char *const sf_params[] = {"max_part_mb", "max_parts", NULL};

static int sf_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    sf_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (pc_params(args->params, 250e6, &s->cap_bytes, &s->max_parts, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void sf_fini(void *state)
{
    sf_state *s = state;
    for (uint32_t m = 0; m < s->n; m++) pc_free(s->fronts[m]);
    free(s->fronts);
    free(s);
}

static uint32_t sf_plan(void *state, const ss_part_model *m, double x, uint32_t gpus, uint32_t *cuts)
{
    sf_state *s = state;
    if (m->model >= s->n) {
        pc_front **f = realloc(s->fronts, (m->model + 1) * sizeof *f);
        if (!f) return 1;
        for (uint32_t k = s->n; k <= m->model; k++) f[k] = NULL;
        s->fronts = f;
        s->n = m->model + 1;
    }
    if (!s->fronts[m->model]) {
        s->fronts[m->model] = pc_build(m, s->max_parts ? s->max_parts : m->nlayers, s->cap_bytes, 1);
        if (!s->fronts[m->model]) return 1;
    }
    return pc_cuts(s->fronts[m->model], pc_best(s->fronts[m->model], x, gpus, 1), cuts);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PARTITIONER,
    .name = "serfer",
    .summary = "SerFer: parts of at most max_part_mb (250), transfers taken as free: as many parts as it may",
    .params = sf_params,
    .init = sf_init,
    .fini = sf_fini,
    .ops.partitioner = {.plan = sf_plan},
};
