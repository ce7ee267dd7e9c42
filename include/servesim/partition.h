/* servesim/partition.h: the partition latency model of Flashpoint's model
 * partitioning (seed flashpoint.md §2.3-2.4, cited FP §n), header-only so
 * that partitioner plugins, `servesim partition` and the tests compute a
 * plan's cost the same way.
 *
 * A plan cuts a model's chain of layers into p parts.  Of a plan (FP Table
 * 4.1): C the longest cold start of any part, E the longest execution of
 * any part, N the longest transfer across a cut, IN the sum of the
 * transfers, I(1) the whole model's execution.  With P GPUs added there
 * are k = floor(P / p) pipelines; the y-th of x requests waiting is served
 * after (ceil(y / k) - 1) bottleneck periods (FP eq. 4.5), the bottleneck
 * being max(E, N) when the parts pipeline and the whole inference I = I(1)
 * + IN when they do not.  The mean end-to-end time of the x requests
 * (FP eq. 4.8, summing T(p, y, P) over y as the consistent reading has it):
 *
 *     T(x) = C + I + bottleneck x S(x, k) / x,
 *     S(x, k) = sum_{y=1..x} (ceil(y / k) - 1) = k q (q - 1) / 2 + r q,  q = floor(x / k), r = x - q k.
 *
 * FP §4.1.3's example (8 requests, 2 GPUs, 4 s each, cold start 24 s or
 * 12 s per half, 1 s transfer) gives 34 s whole, 34.5 s in two parts
 * without pipelining and 24 s with it (tests/test_partition.c). */
#ifndef SERVESIM_PARTITION_H
#define SERVESIM_PARTITION_H

#include <math.h>
#include <stdint.h>

#include <servesim/policy.h>

/* What a plan costs, in seconds (FP Table 4.1). */
typedef struct ss_part_cost {
    uint32_t parts;
    double c_s;   /* C: the longest cold start of a part */
    double e_s;   /* E: the longest execution of a part */
    double n_s;   /* N: the longest transfer across a cut (0 without cuts) */
    double in_s;  /* IN: all transfers of one request */
    double i1_s;  /* I(1): the whole model's execution */
} ss_part_cost;

/* A part's cold start and a cut's transfer under the model's coefficients. */
static inline double ss_part_cold_s(const ss_part_model *m, double bytes)
{
    return m->cold_fixed_s + m->cold_s_per_byte * bytes;
}

static inline double ss_part_net_s(const ss_part_model *m, uint32_t after_layer)
{
    return m->net_fixed_s + m->net_s_per_byte * m->layers[after_layer].output_bytes;
}

/* The cost of cutting m right after layers cuts[0] < cuts[1] < ... (ncuts of them). */
static inline void ss_part_cost_of(const ss_part_model *m, const uint32_t *cuts, uint32_t ncuts, ss_part_cost *c)
{
    c->parts = ncuts + 1;
    c->c_s = c->e_s = c->n_s = c->in_s = c->i1_s = 0;
    uint32_t from = 0;
    for (uint32_t k = 0; k <= ncuts; k++) {
        uint32_t to = k < ncuts ? cuts[k] + 1 : m->nlayers; /* the part is layers [from, to) */
        double bytes = 0, exec = 0;
        for (uint32_t l = from; l < to; l++) {
            bytes += m->layers[l].weights_bytes;
            exec += m->layers[l].exec_s;
        }
        double cold = ss_part_cold_s(m, bytes);
        if (cold > c->c_s) c->c_s = cold;
        if (exec > c->e_s) c->e_s = exec;
        c->i1_s += exec;
        if (k < ncuts) {
            double n = ss_part_net_s(m, cuts[k]);
            if (n > c->n_s) c->n_s = n;
            c->in_s += n;
        }
        from = to;
    }
}

/* Is a partitioner's answer a plan of m for `gpus` GPUs: 1 to min(gpus,
 * layers) parts, its parts - 1 cuts increasing and inside the chain? */
static inline int ss_part_plan_ok(const ss_part_model *m, const uint32_t *cuts, uint32_t parts, uint32_t gpus)
{
    if (parts < 1 || parts > gpus || parts > m->nlayers) return 0;
    for (uint32_t j = 0; j + 1 < parts; j++)
        if (cuts[j] + 1 >= m->nlayers || (j && cuts[j] <= cuts[j - 1])) return 0;
    return 1;
}

/* S(x, k): bottleneck periods waited, summed over the requests y = 1..x of k pipelines. */
static inline double ss_part_wait_periods(double x, uint32_t k)
{
    double q = floor(x / k), r = x - q * k;
    return k * q * (q - 1) / 2 + r * q;
}

/* The requests a plan is chosen for: FP eq. 4.14's E(x) as a count, at least one. */
static inline double ss_part_requests(double x) { return x < 1 || x != x ? 1 : ceil(x); }

/* T(x): the mean end-to-end time of x waiting requests served by the plan
 * on `gpus` GPUs (FP eqs. 4.5-4.8); INFINITY if the plan has more parts
 * than GPUs. */
static inline double ss_part_mean_s(const ss_part_cost *c, double x, uint32_t gpus, int pipelined)
{
    if (c->parts == 0 || c->parts > gpus) return INFINITY;
    x = ss_part_requests(x);
    uint32_t k = gpus / c->parts;
    double inference = c->i1_s + c->in_s;
    double bottleneck = pipelined ? (c->e_s > c->n_s ? c->e_s : c->n_s) : inference;
    return c->c_s + inference + bottleneck * ss_part_wait_periods(x, k) / x;
}

#endif /* SERVESIM_PARTITION_H */
