/* roma.c: ROMA's GPU scheduler (seed roma.md §2.3, Algorithm 1 as
 * reconstructed there), a device scheduler: when a time-shared device frees
 * up it serves the model whose weighted response time most exceeds its set
 * point.  For each model m with a queue:
 *   E_m  = mean over the queued requests n = 0..q-1 (0 = the head) of
 *          (waited_n + n x P_Gm) = wait_sum_s / q + exec_s x (q - 1) / 2
 *          (the estimate excludes the request's own service, as written);
 *   R_m  = rt_mean_s, its measured mean response time over the simulator's
 *          window (dispatch.window_s);
 *   W_m  = beta x E_m + (1 - beta) x R_m         (line 19, beta as the text says)
 *   SP_m = alpha x sla_s                          (line 20, the set point of §2.2)
 *   eps_m = 0 if W_m < SP_m, else (W_m - SP_m) / SP_m
 * and it picks argmax eps_m.  Parameters: alpha (0.8) and beta (0.5), each
 * in [0, 1].
 *
 * The seed's gaps, decided here:
 *   - an empty queue: the model is skipped (it cannot be served);
 *   - no completions in the window yet (rt_mean_s NAN or completed = 0):
 *     W_m = E_m, the queue estimate alone;
 *   - a model without an SLA (sla_s <= 0): it has no set point to exceed,
 *     so eps_m = 0 - it is served when no model with an SLA is late, by
 *     the fallback below;
 *   - alpha = 0 (SP_m = 0 for every model): (W - SP) / SP is undefined; as
 *     alpha -> 0 the ranking of (W/(alpha SLA) - 1) is the ranking of
 *     W/SLA, so eps_m = W_m / sla_s (only the order matters);
 *   - ties, all eps = 0 in particular: the longest queue (the related code
 *     of the seed's Appendix A does this), then the lowest index.
 */
#include <math.h>
#include <stdlib.h>

#include "autoscale_common.h" /* as_param */

typedef struct roma_state {
    double alpha, beta;
} roma_state;

static const char *const roma_params[] = {"alpha", "beta", NULL};

static int roma_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    roma_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    if (as_param(args, "alpha", 0.8, 0, 1, &s->alpha, err, errlen) < 0 ||
        as_param(args, "beta", 0.5, 0, 1, &s->beta, err, errlen) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void roma_fini(void *state) { free(state); }

/* The model's distance above its set point (>= 0); q->queued > 0. */
static double roma_eps(const roma_state *s, const ss_dqueue_view *q)
{
    if (!(q->sla_s > 0)) return 0;
    double n = (double)q->queued;
    double est_s = q->wait_sum_s / n + q->exec_s * (n - 1) / 2;
    double w_s = isnan(q->rt_mean_s) || q->completed == 0 ? est_s : s->beta * est_s + (1 - s->beta) * q->rt_mean_s;
    double sp_s = s->alpha * q->sla_s;
    if (sp_s <= 0) return w_s > 0 ? w_s / q->sla_s : 0;
    return w_s < sp_s ? 0 : (w_s - sp_s) / sp_s;
}

static uint32_t roma_pick(void *state, const ss_dsched_ctx *ctx)
{
    const roma_state *s = state;
    uint32_t best = ctx->n; /* none yet */
    double best_eps = 0;
    for (uint32_t i = 0; i < ctx->n; i++) {
        const ss_dqueue_view *q = &ctx->q[i];
        if (q->queued == 0) continue;
        double eps = roma_eps(s, q);
        if (best == ctx->n || eps > best_eps || (eps == best_eps && q->queued > ctx->q[best].queued)) {
            best = i;
            best_eps = eps;
        }
    }
    return best < ctx->n ? best : 0; /* 0: no queue held a request (the simulator never asks then) */
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_DEVICE_SCHEDULER,
    .name = "roma",
    .summary = "ROMA Algorithm 1: the queue whose beta-weighted estimated/measured RT most exceeds alpha x SLA "
               "(alpha 0.8, beta 0.5)",
    .params = roma_params,
    .init = roma_init,
    .fini = roma_fini,
    .ops.device_scheduler = {.pick = roma_pick},
};
