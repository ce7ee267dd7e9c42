/* least-loaded.c: join-the-shortest-queue load balancer: the up instance
 * with the fewest requests queued + in service.  Ties go to the lowest index
 * (deterministic, the default) or, with `ties: random`, to a uniform draw. */
#include <servesim/policy.h>
#include <stdio.h>
#include <string.h>

typedef struct ll_state {
    int random_ties;
    ss_env env;
} ll_state;

static const char *const ll_params[] = {"ties", NULL};

static int ll_init(void **state, const ss_policy_init *args, char *err, size_t errlen)
{
    const char *ties = args ? ss_param_get(args->params, "ties") : NULL;
    int random_ties = 0;
    if (ties && strcmp(ties, "random") == 0) {
        random_ties = 1;
    } else if (ties && strcmp(ties, "first") != 0) {
        snprintf(err, errlen, "ties: expected 'first' or 'random', got '%s'", ties);
        return -1;
    }
    if (random_ties && !args->env.uniform_int) {
        snprintf(err, errlen, "ties: random needs a random stream, and none was lent");
        return -1;
    }
    ll_state *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->random_ties = random_ties;
    if (args) s->env = args->env;
    else memset(&s->env, 0, sizeof s->env);
    *state = s;
    return 0;
}

static void ll_fini(void *state)
{
    free(state);
}

static uint32_t ll_pick(void *state, const ss_lb_ctx *ctx, const ss_qitem *req)
{
    const ll_state *s = state;
    const ss_instance_view *inst = ctx->inst;
    uint32_t n = ctx->n, best = 0, nbest = 0;
    uint64_t min = UINT64_MAX; /* 64-bit: queued + busy cannot overflow */
    for (uint32_t i = 0; i < n; i++) {
        if (!inst[i].up) continue;
        uint64_t load = (uint64_t)inst[i].queued + inst[i].busy;
        if (load < min) {
            min = load;
            best = i;
            nbest = 1;
        } else if (load == min) {
            nbest++;
        }
    }
    /* Draw only when there is a real tie, so `ties: random` consumes the
     * stream only when it changes the outcome. */
    if (!s->random_ties || nbest < 2) return best;
    uint32_t k = (uint32_t)s->env.uniform_int(s->env.rng, nbest);
    for (uint32_t i = best; i < n; i++)
        if (inst[i].up && (uint64_t)inst[i].queued + inst[i].busy == min && k-- == 0) return i;
    return best;
}

/* Exported as `ss_policy`.  C cannot write `const ss_policy ss_policy`: the
 * typedef and the object would share one name, so the asm label names it. */
const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_LOAD_BALANCER,
    .name = "least-loaded",
    .summary = "join the shortest queue: fewest queued + busy requests (ties: first|random)",
    .params = ll_params,
    .init = ll_init,
    .fini = ll_fini,
    .ops.load_balancer = {.pick = ll_pick},
};
