/* flashpoint-mp.c: Flashpoint's model partitioning (seed flashpoint.md
 * §2.4-2.7): the plan with the least mean end-to-end time for the requests
 * expected to wait (FP eq. 4.14) when the scale-up adds `gpus` GPUs, over
 * every way of cutting the model into at most min(gpus, max_parts) parts.
 *
 * As FP §2.5 precalculates: per model, the plans' fronts once (the exact
 * search of partition_common.h, in place of eq. 4.10's heuristic DP); per
 * number of GPUs, the best plan against x from 1 to `search_x` (X = 3000 in
 * the thesis) by exponential search for the first x that changes it, then
 * bisection, and so on up to X: a table of intervals asked by bisection at
 * every scale-up.  Beyond X the plan of X holds.  Like the thesis it can
 * miss an interval shorter than the exponential steps that skip it.
 * Parameters: max_parts (0: one per layer at most), max_part_mb (0: no
 * cap), search_x (3000). */
#include <stdio.h>
#include <stdlib.h>

#include "partition_common.h"

typedef struct mp_interval {
    double x_from;         /* this plan from x_from on (to the next interval's start) */
    pc_pick pick;
} mp_interval;

typedef struct mp_table {
    mp_interval *iv;
    uint32_t n;
} mp_table;

typedef struct mp_model {
    pc_front *front;       /* NULL until first asked */
    mp_table *by_gpus;     /* index: GPUs added */
    uint32_t ngpus;
} mp_model;

typedef struct mp_state {
    double cap_bytes, search_x;
    uint32_t max_parts;
    mp_model *models;
    uint32_t nmodels;
} mp_state;

static const char *const mp_params[] = {"max_parts", "max_part_mb", "search_x", NULL};

static int mp_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    mp_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    int bad = 0;
    s->search_x = ss_param_double(args->params, "search_x", 3000, &bad);
    if (pc_params(args->params, 0, &s->cap_bytes, &s->max_parts, err, errlen) < 0) {
        free(s);
        return -1;
    }
    if (bad || s->search_x < 1 || s->search_x > 1e7 || s->search_x != floor(s->search_x)) {
        free(s);
        return snprintf(err, errlen, "search_x wants a whole number of requests in [1, 1e7]"), -1;
    }
    *state = s;
    return 0;
}

static void mp_fini(void *state)
{
    mp_state *s = state;
    for (uint32_t m = 0; m < s->nmodels; m++) {
        pc_free(s->models[m].front);
        for (uint32_t g = 0; g < s->models[m].ngpus; g++) free(s->models[m].by_gpus[g].iv);
        free(s->models[m].by_gpus);
    }
    free(s->models);
    free(s);
}

static int same(pc_pick a, pc_pick b) { return a.p == b.p && a.k == b.k; }

/* The intervals of x over [1, X] for `gpus` GPUs (FP §2.5's search). */
static int mp_tabulate(const mp_state *s, const pc_front *f, uint32_t gpus, mp_table *t)
{
    double X = s->search_x, x = 1;
    pc_pick cur = pc_best(f, 1, gpus, 0);
    uint32_t cap = 8;
    t->iv = malloc(cap * sizeof *t->iv);
    if (!t->iv) return -1;
    t->iv[0] = (mp_interval){1, cur};
    t->n = 1;
    while (x < X) {
        double lo = x, hi = 0, step = 1;
        for (;;) { /* exponential: the first probe whose plan differs */
            double y = x + step < X ? x + step : X;
            if (!same(pc_best(f, y, gpus, 0), cur)) {
                hi = y;
                break;
            }
            if (y >= X) break;
            lo = y;
            step *= 2;
        }
        if (hi == 0) break;
        while (hi - lo > 1) { /* bisection: the first x of the next plan */
            double mid = floor((lo + hi) / 2);
            if (same(pc_best(f, mid, gpus, 0), cur)) lo = mid;
            else hi = mid;
        }
        x = hi;
        cur = pc_best(f, x, gpus, 0);
        if (t->n == cap) {
            mp_interval *iv = realloc(t->iv, (cap *= 2) * sizeof *iv);
            if (!iv) return -1;
            t->iv = iv;
        }
        t->iv[t->n++] = (mp_interval){x, cur};
    }
    return 0;
}

static uint32_t mp_plan(void *state, const ss_part_model *m, double x, uint32_t gpus, uint32_t *cuts)
{
    mp_state *s = state;
    if (gpus < 2 || m->nlayers < 2) return 1;
    if (m->model >= s->nmodels) {
        mp_model *mm = realloc(s->models, (m->model + 1) * sizeof *mm);
        if (!mm) return 1;
        for (uint32_t k = s->nmodels; k <= m->model; k++) mm[k] = (mp_model){0};
        s->models = mm;
        s->nmodels = m->model + 1;
    }
    mp_model *mm = &s->models[m->model];
    if (!mm->front) {
        mm->front = pc_build(m, s->max_parts ? s->max_parts : m->nlayers, s->cap_bytes, 0);
        if (!mm->front) return 1;
    }
    if (gpus >= mm->ngpus) {
        mp_table *t = realloc(mm->by_gpus, (gpus + 1) * sizeof *t);
        if (!t) return 1;
        for (uint32_t g = mm->ngpus; g <= gpus; g++) t[g] = (mp_table){0};
        mm->by_gpus = t;
        mm->ngpus = gpus + 1;
    }
    mp_table *t = &mm->by_gpus[gpus];
    if (!t->iv && mp_tabulate(s, mm->front, gpus, t) < 0) return 1;
    double xi = ss_part_requests(x);
    uint32_t lo = 0, hi = t->n; /* the last interval starting at or before xi */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (t->iv[mid].x_from <= xi) lo = mid;
        else hi = mid;
    }
    return pc_cuts(mm->front, t->iv[lo].pick, cuts);
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_PARTITIONER,
    .name = "flashpoint-mp",
    .summary = "Flashpoint MP: least mean end-to-end time for the expected queue, plans precalculated against x "
               "(max_parts, max_part_mb 0, search_x 3000)",
    .params = mp_params,
    .init = mp_init,
    .fini = mp_fini,
    .ops.partitioner = {.plan = mp_plan},
};
