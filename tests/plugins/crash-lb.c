/* crash-lb.c: test plugin - a load balancer that aborts the process after
 * `crash_after` picks, so that a sweep's handling of a run that dies (the
 * run fails, the other runs go on, exit status 1) can be exercised. */
#include <servesim/policy.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct crash_state {
    double left;  /* picks until the crash */
} crash_state;

static const char *const crash_params[] = {"crash_after", NULL};

static int crash_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    int bad = 0;
    double n = ss_param_double(args ? args->params : NULL, "crash_after", 100, &bad);
    if (bad) {
        snprintf(err, errlen, "crash_after: expected a number");
        return -1;
    }
    crash_state *s = malloc(sizeof *s);
    if (!s) return -1;
    s->left = n;
    *state = s;
    return 0;
}

static void crash_fini(void *state) { free(state); }

static uint32_t crash_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    crash_state *s = state;
    if (--s->left < 0) abort();
    return 0;
}

const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "crash-lb",
    .summary = "test plugin: aborts after crash_after picks",
    .params = crash_params,
    .init = crash_init,
    .fini = crash_fini,
    .ops.load_balancer = {.pick = crash_pick},
};
