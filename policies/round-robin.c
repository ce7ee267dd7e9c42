/* round-robin.c: load balancer that cycles through a model's instances,
 * skipping those that are down.  One cursor per instance group, so models
 * sharing this policy instance do not disturb each other's rotation. */
#include <servesim/policy.h>
#include <stdio.h>

typedef struct rr_state {
    uint32_t ngroups;
    uint32_t cur[]; /* next index to try, per group */
} rr_state;

static int rr_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    uint32_t ng = args && args->ngroups ? args->ngroups : 1;
    rr_state *s = calloc(1, sizeof *s + (size_t)ng * sizeof s->cur[0]);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->ngroups = ng;
    *state = s;
    return 0;
}

static void rr_fini(void *state)
{
    free(state);
}

static uint32_t rr_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    rr_state *s = state;
    const ss_instance_view *inst = ctx->inst;
    uint32_t n = ctx->n;
    /* A group id outside the promise of init is folded in rather than read
     * out of bounds: a shared rotation beats a crash. */
    uint32_t g = ctx->group < s->ngroups ? ctx->group : ctx->group % s->ngroups;
    uint32_t i = s->cur[g];
    if (i >= n) i = 0; /* the group shrank since the last pick */
    for (uint32_t k = 0; k < n; k++) {
        if (inst[i].up) {
            s->cur[g] = i + 1 < n ? i + 1 : 0;
            return i;
        }
        i = i + 1 < n ? i + 1 : 0;
    }
    return 0; /* unreachable: the simulator guarantees one instance is up */
}

/* Exported as `ss_policy`.  C cannot write `const ss_policy ss_policy`: the
 * typedef and the object would share one name, so the asm label names it. */
const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "round-robin",
    .summary = "cycle through the up instances of each model in turn",
    .params = NULL,
    .init = rr_init,
    .fini = rr_fini,
    .ops.load_balancer = {.pick = rr_pick},
};
