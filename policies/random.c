/* random.c: load balancer that sends each request to an instance drawn
 * uniformly among the up ones.  Exactly one draw from the instance's own
 * stream per pick, whatever is up, so the stream never shifts under churn. */
#include <servesim/policy.h>
#include <stdio.h>

typedef struct rnd_state {
    ss_env env;
} rnd_state;

static int rnd_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    if (!args || !args->env.uniform_int) {
        snprintf(err, errlen, "no random stream was lent (env.uniform_int is NULL)");
        return -1;
    }
    rnd_state *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->env = args->env;
    *state = s;
    return 0;
}

static void rnd_fini(void *state)
{
    free(state);
}

static uint32_t rnd_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    const rnd_state *s = state;
    const ss_instance_view *inst = ctx->inst;
    uint32_t n = ctx->n, nup = 0;
    for (uint32_t i = 0; i < n; i++) nup += inst[i].up != 0;
    uint32_t k = (uint32_t)s->env.uniform_int(s->env.rng, nup ? nup : 1);
    if (nup == n) return k; /* the common case: nothing down, no second pass */
    for (uint32_t i = 0; i < n; i++)
        if (inst[i].up && k-- == 0) return i;
    return 0; /* unreachable: the simulator guarantees one instance is up */
}

/* Exported as `ss_policy`.  C cannot write `const ss_policy ss_policy`: the
 * typedef and the object would share one name, so the asm label names it. */
const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "random",
    .summary = "send each request to an up instance chosen uniformly at random",
    .params = NULL,
    .init = rnd_init,
    .fini = rnd_fini,
    .ops.load_balancer = {.pick = rnd_pick},
};
