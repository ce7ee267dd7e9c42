/* partition_common.h: what the partitioner plugins share (header-only, so
 * a plugin links nothing of ours): the exact search over a model's cuts.
 *
 * FP §2.6 extends the log-cutting dynamic program, but its objective does
 * not decompose (a plan's cost has two maxima and a sum: C, max(E, N) and
 * IN, servesim/partition.h), so a DP over one value per cell is only a
 * heuristic.  This one is exact: the cell (j, i), "the first i layers in j
 * parts", keeps every (C, B, IN) that no other plan of that cell beats in
 * all three (its Pareto front), B being max(E, N) so far.  A plan's mean
 * end-to-end time is C + I(1) + IN + w B with w >= 0 fixed by x, the GPUs
 * and p (eq. 4.5-4.8), increasing in each of the three, so the best plan
 * with p parts is on the front of cell (p, L) for every x and every number
 * of GPUs: the fronts are computed once per model and every query after
 * that is a scan of them.  Parts larger than a cap (`max_part_bytes`: the
 * 250 MB of a Lambda function for Gillis and SerFer) are never formed.
 * Layer models are regular (identical blocks), so the fronts stay small:
 * T5-3B's 52 layers in up to 52 parts take milliseconds (docs/partitioning.md). */
#ifndef SS_PARTITION_COMMON_H
#define SS_PARTITION_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <servesim/partition.h>
#include <servesim/policy.h>

typedef struct pc_elem {
    double c, b, s;        /* the longest cold start, the bottleneck max(E, N), the transfers' sum */
    uint32_t parent, from; /* in cell (j - 1, from): the plan this one extends by the part [from, i) */
} pc_elem;

typedef struct pc_cell {
    pc_elem *e;
    uint32_t n, cap;
} pc_cell;

typedef struct pc_front {
    uint32_t nlayers, pmax;
    pc_cell *cells;        /* (pmax + 1) x (nlayers + 1) */
    double i1_s;           /* I(1) */
} pc_front;

static inline pc_cell *pc_at(const pc_front *f, uint32_t j, uint32_t i) { return &f->cells[(size_t)j * (f->nlayers + 1) + i]; }

/* Keep x in the cell unless a plan there is as good in all three; drop the ones x beats.  0 on no memory. */
static inline int pc_insert(pc_cell *cell, pc_elem x)
{
    for (uint32_t k = 0; k < cell->n; k++)
        if (cell->e[k].c <= x.c && cell->e[k].b <= x.b && cell->e[k].s <= x.s) return 1;
    uint32_t n = 0;
    for (uint32_t k = 0; k < cell->n; k++)
        if (!(x.c <= cell->e[k].c && x.b <= cell->e[k].b && x.s <= cell->e[k].s)) cell->e[n++] = cell->e[k];
    cell->n = n;
    if (cell->n == cell->cap) {
        uint32_t cap = cell->cap ? 2 * cell->cap : 4;
        pc_elem *e = realloc(cell->e, cap * sizeof *e);
        if (!e) return 0;
        cell->e = e;
        cell->cap = cap;
    }
    cell->e[cell->n++] = x;
    return 1;
}

static inline void pc_free(pc_front *f)
{
    if (!f) return;
    if (f->cells)
        for (size_t k = 0; k < (size_t)(f->pmax + 1) * (f->nlayers + 1); k++) free(f->cells[k].e);
    free(f->cells);
    free(f);
}

/* The cap in force: no lower than the largest layer (0: none). */
static inline double pc_cap(const ss_part_model *m, double cap_bytes)
{
    if (cap_bytes <= 0) return 0;
    for (uint32_t l = 0; l < m->nlayers; l++)
        if (m->layers[l].weights_bytes > cap_bytes) cap_bytes = m->layers[l].weights_bytes;
    return cap_bytes;
}

/* The fronts of m's plans of up to pmax parts, no part over cap_bytes (0:
 * no cap); with ignore_net the cuts cost nothing (SerFer).  NULL on no memory. */
static inline pc_front *pc_build(const ss_part_model *m, uint32_t pmax, double cap_bytes, int ignore_net)
{
    uint32_t L = m->nlayers;
    if (pmax > L) pmax = L;
    pc_front *f = calloc(1, sizeof *f);
    double *bytes = calloc(L + 1, sizeof *bytes), *exec = calloc(L + 1, sizeof *exec); /* prefix sums */
    if (!f || !bytes || !exec) goto oom;
    f->nlayers = L;
    f->pmax = pmax;
    f->cells = calloc((size_t)(pmax + 1) * (L + 1), sizeof *f->cells);
    if (!f->cells) goto oom;
    for (uint32_t l = 0; l < L; l++) {
        bytes[l + 1] = bytes[l] + m->layers[l].weights_bytes;
        exec[l + 1] = exec[l] + m->layers[l].exec_s;
    }
    f->i1_s = exec[L];
    cap_bytes = pc_cap(m, cap_bytes);
    for (uint32_t i = 1; i <= L; i++)
        if (cap_bytes <= 0 || bytes[i] <= cap_bytes)
            if (!pc_insert(pc_at(f, 1, i), (pc_elem){ss_part_cold_s(m, bytes[i]), exec[i], 0, 0, 0})) goto oom;
    for (uint32_t j = 2; j <= pmax; j++)
        for (uint32_t i = j; i <= L; i++)
            for (uint32_t from = i; from-- > j - 1;) { /* the last part is [from, i) */
                double pb = bytes[i] - bytes[from];
                if (cap_bytes > 0 && pb > cap_bytes) break; /* longer parts only grow */
                double cold = ss_part_cold_s(m, pb), ex = exec[i] - exec[from];
                double n = ignore_net ? 0 : ss_part_net_s(m, from - 1);
                const pc_cell *prev = pc_at(f, j - 1, from);
                for (uint32_t k = 0; k < prev->n; k++) {
                    const pc_elem *e = &prev->e[k];
                    double b = e->b > ex ? e->b : ex;
                    if (n > b) b = n;
                    pc_elem x = {e->c > cold ? e->c : cold, b, e->s + n, k, from};
                    if (!pc_insert(pc_at(f, j, i), x)) goto oom;
                }
            }
    free(bytes);
    free(exec);
    return f;
oom:
    free(bytes);
    free(exec);
    pc_free(f);
    return NULL;
}

/* A plan on the fronts: its part count and its place in cell (p, L). */
typedef struct pc_pick {
    uint32_t p, k;
    double value_s;        /* its mean end-to-end time (servesim/partition.h) */
} pc_pick;

/* The plan of at most `gpus` parts with the least mean end-to-end time
 * for x requests (as the fronts were built); ties go to fewer
 * parts, or to more with more_on_tie.  p = 0 if no plan fits. */
static inline pc_pick pc_best(const pc_front *f, double x, uint32_t gpus, int more_on_tie)
{
    pc_pick best = {0, 0, INFINITY};
    x = ss_part_requests(x);
    for (uint32_t p = 1; p <= f->pmax && p <= gpus; p++) {
        const pc_cell *cell = pc_at(f, p, f->nlayers);
        double w = ss_part_wait_periods(x, gpus / p) / x;
        for (uint32_t k = 0; k < cell->n; k++) {
            const pc_elem *e = &cell->e[k];
            double v = e->c + f->i1_s + e->s + w * e->b;
            if (v < best.value_s || (more_on_tie && v == best.value_s)) best = (pc_pick){p, k, v};
        }
    }
    return best;
}

/* The cuts of a picked plan, increasing, into cuts (p - 1 of them); returns p. */
static inline uint32_t pc_cuts(const pc_front *f, pc_pick pick, uint32_t *cuts)
{
    if (pick.p == 0) return 1;
    uint32_t i = f->nlayers, k = pick.k;
    for (uint32_t j = pick.p; j > 1; j--) {
        const pc_elem *e = &pc_at(f, j, i)->e[k];
        cuts[j - 2] = e->from - 1;
        i = e->from;
        k = e->parent;
    }
    return pick.p;
}

/* The model's part-size cap and part-count limit from the plugin's parameters. */
static inline int pc_params(const ss_params *params, double def_cap_bytes, double *cap_bytes, uint32_t *max_parts,
                            char *err, size_t errlen)
{
    int bad = 0;
    double cap_mb = ss_param_double(params, "max_part_mb", def_cap_bytes / 1e6, &bad);
    double mp = ss_param_double(params, "max_parts", 0, &bad);
    if (bad || cap_mb < 0 || mp < 0 || mp != floor(mp) || mp > 1e6) {
        snprintf(err, errlen, "max_part_mb wants a number of megabytes >= 0 (0: no cap), max_parts a whole "
                              "number >= 0 (0: one part per layer at most)");
        return -1;
    }
    *cap_bytes = cap_mb * 1e6;
    *max_parts = (uint32_t)mp;
    return 0;
}

#endif /* SS_PARTITION_COMMON_H */
