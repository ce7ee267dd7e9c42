/* bad-abi.c: test plugin exporting an otherwise valid load balancer that
 * claims policy ABI 999, so the loader's ABI refusal can be exercised. */
#include <servesim/policy.h>

static uint32_t pick_first(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    return 0;
}

/* Exported as `ss_policy`.  C cannot write `const ss_policy ss_policy`: the
 * typedef and the object would share one name, so the asm label names it. */
const ss_policy servesim_policy = {
    .abi = 999,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "bad-abi",
    .summary = "test plugin built for a future policy ABI",
    .ops.load_balancer = {.pick = pick_first},
};
