/* llm_tp.c: tensor parallelism's step time (llm_tp.h). */
#include "llm/llm_tp.h"

/* A ring all-reduce of x bytes over n GPUs. */
static double all_reduce_s(const ss_llm_tp *tp, double x)
{
    double n = tp->size;
    return 2 * (n - 1) / n * x / tp->link_bytes_per_s + 2 * (n - 1) * tp->latency_s;
}

double ss_llm_tp_collectives_s(const ss_llm_tp *tp, const ss_llm_batch *b)
{
    double n = tp->size, d = tp->dtype_bytes;
    double reduce = all_reduce_s(tp, (double)b->tokens * tp->hidden * d);
    double gather = (n - 1) / n * (double)b->nseqs * tp->vocab * d / tp->link_bytes_per_s + tp->latency_s;
    return (2.0 * tp->layers + 1) * reduce + gather;
}

double ss_llm_tp_step_s(void *ctx, const ss_llm_batch *b)
{
    const ss_llm_tp *tp = ctx;
    return tp->step(tp->step_ctx, b) / tp->compute_div + ss_llm_tp_collectives_s(tp, b);
}
