/* test_plugin.c: the plugin loader (search order, refusals and their
 * messages, scanning) and the shipped policies driven through their ops,
 * loaded from the build folder exactly as the simulator loads them. */
#include "test.h"

#include "serve/plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POL_DIR SS_BUILD_DIR "/policies"
#define TPL_DIR SS_BUILD_DIR "/tests/plugins"

/* ---- a tiny deterministic env (splitmix64), independent of the sim's rng -- */

typedef struct trng {
    uint64_t s;
} trng;

static uint64_t trng_next(trng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double t_uniform(void *r)
{
    return (double)(trng_next(r) >> 11) * 0x1.0p-53;
}

static uint64_t t_uniform_int(void *r, uint64_t n)
{
    return trng_next(r) % n;
}

/* ---- helpers ---------------------------------------------------------- */

static int load(ss_plugin *p, const char *name, ss_policy_kind kind, const char *dir, ss_err *err)
{
    memset(err, 0, sizeof *err);
    return ss_plugin_load(p, name, kind, dir, "scn.yaml", 3, 7, err);
}

/* Run the policy's init (if any) with the given parameters and stream. */
static int init_policy(const ss_plugin *p, void **state, const ss_params *params, trng *r, uint32_t ngroups,
                       char *err, size_t errlen)
{
    *state = NULL;
    if (!p->pol->init) return 0;
    ss_policy_init args = {.params = params,
                           .env = {.rng = r, .uniform = t_uniform, .uniform_int = t_uniform_int},
                           .ngroups = ngroups};
    return p->pol->init(state, &args, err, errlen);
}

static void fini_policy(const ss_plugin *p, void *state)
{
    if (p->pol->fini) p->pol->fini(state);
}

/* SERVESIM_PLUGIN_PATH is process-wide: every test that sets it restores it
 * so suites that run later see the caller's environment. */
static char *saved_path;
static int saved_path_set;

static void path_set(const char *v)
{
    const char *old = getenv("SERVESIM_PLUGIN_PATH");
    saved_path_set = old != NULL;
    saved_path = old ? strdup(old) : NULL;
    if (v) setenv("SERVESIM_PLUGIN_PATH", v, 1);
    else unsetenv("SERVESIM_PLUGIN_PATH");
}

static void path_restore(void)
{
    if (saved_path_set) setenv("SERVESIM_PLUGIN_PATH", saved_path, 1);
    else unsetenv("SERVESIM_PLUGIN_PATH");
    free(saved_path);
    saved_path = NULL;
}

static int contains(const char *hay, const char *needle)
{
    int ok = hay && strstr(hay, needle) != NULL;
    if (!ok) fprintf(stderr, "\n  expected '%s' in: %s\n", needle, hay ? hay : "(null)");
    return ok;
}

/* ---- schedulers ------------------------------------------------------- */

static void test_fifo_order(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL_FATAL(load(&p, "fifo", SS_KIND_SCHEDULER, POL_DIR, &err), 0);
    const ss_scheduler_ops *o = &p.pol->ops.scheduler;
    void *state;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, NULL, 1, msg, sizeof msg), 0);
    void *q = o->queue_new(state);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    ss_qitem it, out;
    CU_ASSERT_EQUAL(o->pop(q, 0.0, &out), 0);
    CU_ASSERT_EQUAL(o->len(q), 0);

    /* Many pushes first: forces several growths with the ring wrapped. */
    uint64_t seq = 0, want = 0;
    for (int i = 0; i < 5; i++) {
        it = (ss_qitem){.req = (void *)(uintptr_t)(seq + 1), .enqueued_s = (double)seq, .priority = 5 - i,
                        .seq = seq};
        seq++;
        CU_ASSERT_EQUAL(o->push(q, &it), 0);
    }
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(o->pop(q, 0.0, &out), 1);
        CU_ASSERT_EQUAL(out.seq, want);
        want++;
    }
    for (int i = 0; i < 1000; i++) {
        it = (ss_qitem){.req = (void *)(uintptr_t)(seq + 1), .enqueued_s = (double)seq, .seq = seq};
        seq++;
        CU_ASSERT_EQUAL(o->push(q, &it), 0);
    }
    CU_ASSERT_EQUAL(o->len(q), seq - want);
    /* Steady state: one in, one out, the ring wrapping many times. */
    for (int i = 0; i < 5000; i++) {
        it = (ss_qitem){.req = (void *)(uintptr_t)(seq + 1), .enqueued_s = (double)seq, .seq = seq};
        seq++;
        CU_ASSERT_EQUAL(o->push(q, &it), 0);
        CU_ASSERT_EQUAL(o->pop(q, 0.0, &out), 1);
        CU_ASSERT_EQUAL(out.seq, want);
        want++;
    }
    while (o->pop(q, 0.0, &out) == 1) {
        CU_ASSERT_EQUAL(out.seq, want);
        CU_ASSERT_PTR_EQUAL(out.req, (void *)(uintptr_t)(want + 1));
        CU_ASSERT_EQUAL(out.enqueued_s, (double)want);
        want++;
    }
    CU_ASSERT_EQUAL(want, seq);
    CU_ASSERT_EQUAL(o->len(q), 0);
    o->queue_free(q);
    fini_policy(&p, state);
    ss_plugin_unload(&p);
}

static int by_prio_seq(const void *a, const void *b)
{
    const ss_qitem *x = a, *y = b;
    if (x->priority != y->priority) return x->priority < y->priority ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void test_priority_order(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL_FATAL(load(&p, "priority", SS_KIND_SCHEDULER, POL_DIR, &err), 0);
    const ss_scheduler_ops *o = &p.pol->ops.scheduler;
    void *state;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, NULL, 1, msg, sizeof msg), 0);
    void *q = o->queue_new(state);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);

    /* Few distinct priorities (negative and fractional too) so ties abound. */
    enum { N = 2000 };
    static const double prios[] = {3, -1, 0.5, 0, 2, 0.5};
    ss_qitem *ref = calloc(N, sizeof *ref);
    trng r = {7};
    for (uint64_t i = 0; i < N; i++) {
        ref[i] = (ss_qitem){.req = &ref[i], .priority = prios[trng_next(&r) % 6], .seq = i};
        CU_ASSERT_EQUAL(o->push(q, &ref[i]), 0);
    }
    CU_ASSERT_EQUAL(o->len(q), N);
    qsort(ref, N, sizeof *ref, by_prio_seq);
    ss_qitem out;
    int mismatches = 0;
    for (size_t i = 0; i < N; i++) {
        CU_ASSERT_EQUAL_FATAL(o->pop(q, 0.0, &out), 1);
        mismatches += out.seq != ref[i].seq || out.priority != ref[i].priority;
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT_EQUAL(o->pop(q, 0.0, &out), 0);
    CU_ASSERT_EQUAL(o->len(q), 0);

    /* Interleaved: an urgent late arrival overtakes, equals keep FIFO order. */
    ss_qitem a = {.priority = 1, .seq = 10}, b = {.priority = 1, .seq = 11}, c = {.priority = 0, .seq = 12},
             d = {.priority = 1, .seq = 13};
    o->push(q, &a);
    o->push(q, &b);
    CU_ASSERT(o->pop(q, 0.0, &out) == 1 && out.seq == 10);
    o->push(q, &c);
    o->push(q, &d);
    CU_ASSERT(o->pop(q, 0.0, &out) == 1 && out.seq == 12);
    CU_ASSERT(o->pop(q, 0.0, &out) == 1 && out.seq == 11);
    CU_ASSERT(o->pop(q, 0.0, &out) == 1 && out.seq == 13);
    CU_ASSERT_EQUAL(o->pop(q, 0.0, &out), 0);

    free(ref);
    o->queue_free(q);
    fini_policy(&p, state);
    ss_plugin_unload(&p);
}

/* ---- load balancers --------------------------------------------------- */

static void test_round_robin(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL_FATAL(load(&p, "round-robin", SS_KIND_LOAD_BALANCER, POL_DIR, &err), 0);
    void *state;
    char msg[256] = "";
    trng r = {1};
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, &r, 2, msg, sizeof msg), 0);
    uint32_t (*pick)(void *, const ss_lb_ctx *, const ss_qitem *) = p.pol->ops.load_balancer.pick;
    ss_qitem req = {0};

    ss_instance_view up4[4] = {{.up = 1}, {.up = 1}, {.up = 1}, {.up = 1}};
    ss_lb_ctx g0 = {.inst = up4, .n = 4, .group = 0};
    ss_lb_ctx g1 = {.inst = up4, .n = 4, .group = 1};
    static const uint32_t cycle[] = {0, 1, 2, 3, 0, 1, 2, 3, 0};
    for (size_t i = 0; i < sizeof cycle / sizeof cycle[0]; i++) CU_ASSERT_EQUAL(pick(state, &g0, &req), cycle[i]);
    /* Group 1 has its own cursor: it starts at 0 whatever group 0 did. */
    CU_ASSERT_EQUAL(pick(state, &g1, &req), 0);
    CU_ASSERT_EQUAL(pick(state, &g1, &req), 1);
    CU_ASSERT_EQUAL(pick(state, &g0, &req), 1);

    /* Down instances are skipped, the rotation continues among the rest. */
    ss_instance_view some[5] = {{.up = 1}, {.up = 0}, {.up = 0}, {.up = 1}, {.up = 1, .queued = 9}};
    ss_lb_ctx s1 = {.inst = some, .n = 5, .group = 1};
    static const uint32_t skip[] = {3, 4, 0, 3, 4, 0};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) CU_ASSERT_EQUAL(pick(state, &s1, &req), skip[i]);
    /* A single up instance is always the answer. */
    ss_instance_view one[3] = {{.up = 0}, {.up = 0}, {.up = 1}};
    ss_lb_ctx o1 = {.inst = one, .n = 3, .group = 1};
    for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(pick(state, &o1, &req), 2);

    fini_policy(&p, state);
    ss_plugin_unload(&p);
}

/* The load balancers over LLM engines by hand: least-tokens, kv-aware, prefix-affinity (its cached
 * engine while loads are balanced, the least loaded past both thresholds, the fewest tokens without
 * a cached engine). */
static void test_llm_balancers(void)
{
    ss_plugin p;
    ss_err err;
    ss_qitem req = {0};
    char msg[256] = "";
    trng r = {3};
    void *state;
    ss_instance_view v[4] = {{.up = 0, .tokens = 1},
                             {.up = 1, .busy = 3, .tokens = 900, .kv_use = 0.2},
                             {.up = 1, .busy = 1, .tokens = 500, .kv_use = 0.6},
                             {.up = 1, .busy = 2, .tokens = 500, .kv_use = 0.4}};
    ss_lb_ctx ctx = {.inst = v, .n = 4, .affinity = UINT32_MAX};
    CU_ASSERT_EQUAL_FATAL(load(&p, "least-tokens", SS_KIND_LOAD_BALANCER, POL_DIR, &err), 0);
    CU_ASSERT_EQUAL(p.pol->ops.load_balancer.pick(NULL, &ctx, &req), 2); /* 500 tokens, then 1 request < 2 */
    ss_plugin_unload(&p);
    CU_ASSERT_EQUAL_FATAL(load(&p, "kv-aware", SS_KIND_LOAD_BALANCER, POL_DIR, &err), 0);
    CU_ASSERT_EQUAL(p.pol->ops.load_balancer.pick(NULL, &ctx, &req), 1); /* KV 0.2 */
    ss_plugin_unload(&p);
    CU_ASSERT_EQUAL_FATAL(load(&p, "prefix-affinity", SS_KIND_LOAD_BALANCER, POL_DIR, &err), 0);
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, &r, 1, msg, sizeof msg), 0);
    uint32_t (*pick)(void *, const ss_lb_ctx *, const ss_qitem *) = p.pol->ops.load_balancer.pick;
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 2); /* none cached: the fewest tokens */
    ctx.affinity = 1;
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 1); /* balanced (3 - 1 <= 64): its cached engine */
    v[1].busy = 66;                              /* 66 - 1 > 64 and 66 > 1.5 x 1: the least loaded */
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 2);
    v[2].busy = 50, v[3].busy = 50;              /* 66 - 50 <= 64: balanced again */
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 1);
    ctx.affinity = 0;                            /* a cached engine that is down is no answer */
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 2);
    fini_policy(&p, state);
    ss_plugin_unload(&p);
}

/* Admission by hand: a token bucket of 5 tokens/s and a burst of 1 refuses every other arrival at
 * 10/s; a cap of 3 in flight refuses the fourth.  And through a scenario: deterministic arrivals at
 * 10/s for 10 s under the bucket, 50 of the 100 get in, the rest dropped. */
static void test_admission(void)
{
    ss_plugin p;
    ss_err err;
    ss_qitem req = {0};
    char msg[256] = "";
    trng r = {3};
    void *state;
    CU_ASSERT_EQUAL_FATAL(load(&p, "token-bucket", SS_KIND_ADMISSION, POL_DIR, &err), 0);
    ss_param kv[2] = {{"rate_rps", "5"}, {"burst", "1"}};
    ss_params pp = {kv, 2};
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, &pp, &r, 1, msg, sizeof msg), 0);
    int in = 0;
    for (int k = 1; k <= 10; k++) {
        ss_admission_view v = {.model = 0, .now_s = 0.1 * k};
        int a = p.pol->ops.admission.admit(state, &v, &req);
        CU_ASSERT_EQUAL(a, k % 2); /* full at 0.1 s, half a token at 0.2 s, one again at 0.3 s ... */
        in += a;
    }
    CU_ASSERT_EQUAL(in, 5);
    fini_policy(&p, state);
    ss_plugin_unload(&p);
    CU_ASSERT_EQUAL_FATAL(load(&p, "max-in-flight", SS_KIND_ADMISSION, POL_DIR, &err), 0);
    ss_param lim = {"limit", "3"};
    ss_params pl = {&lim, 1};
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, &pl, &r, 1, msg, sizeof msg), 0);
    ss_admission_view v2 = {.in_flight = 2};
    CU_ASSERT_EQUAL(p.pol->ops.admission.admit(state, &v2, &req), 1);
    v2.in_flight = 3;
    CU_ASSERT_EQUAL(p.pol->ops.admission.admit(state, &v2, &req), 0);
    fini_policy(&p, state);
    ss_plugin_unload(&p);
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "a.yaml",
                       "name: a\nseed: 1\nduration_s: 10.05\n"
                       "hosts:\n  - name: h\n    devices:\n      - {name: gpu0, kind: gpu}\n"
                       "models:\n  - {name: m, service: {dist: deterministic, value_s: 0.01}}\n"
                       "deployment:\n  - {model: m, device: gpu0}\n"
                       "workloads:\n  - {name: w, kind: deterministic, target: m, rate_rps: 10}\n"
                       "policies:\n  admission: {name: token-bucket, rate_rps: 5, burst: 1}\n"));
    int rc = ss_test_sh(&out, "cd %s && %s run a.yaml -o r.csv --quiet && python3 -c \"import csv; "
                              "r=[r for r in csv.DictReader(open('r.csv')) if r['model'] == 'all'][0]; "
                              "print('adm', r['arrived'], r['completed'], r['dropped'])\"",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "adm 100 50 50"));
    if (!strstr(out ? out : "", "adm 100 50 50")) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    ss_test_rmtree(dir);
}

static void test_least_loaded(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL_FATAL(load(&p, "least-loaded", SS_KIND_LOAD_BALANCER, POL_DIR, &err), 0);
    uint32_t (*pick)(void *, const ss_lb_ctx *, const ss_qitem *) = p.pol->ops.load_balancer.pick;
    ss_qitem req = {0};
    char msg[256] = "";
    trng r = {3};
    void *state;

    CU_ASSERT_PTR_NOT_NULL_FATAL(p.pol->params);
    CU_ASSERT_STRING_EQUAL(p.pol->params[0], "ties");
    CU_ASSERT_PTR_NULL(p.pol->params[1]);

    /* Default: the minimum of queued + busy, the lowest index on ties; the
     * down instance 0 has the smallest load and must be ignored. */
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, &r, 1, msg, sizeof msg), 0);
    ss_instance_view v[5] = {{.queued = 0, .busy = 0, .up = 0},
                             {.queued = 2, .busy = 1, .up = 1},
                             {.queued = 1, .busy = 1, .up = 1},
                             {.queued = 0, .busy = 2, .up = 1},
                             {.queued = 0, .busy = 4, .up = 1}};
    ss_lb_ctx ctx = {.inst = v, .n = 5};
    for (int i = 0; i < 10; i++) CU_ASSERT_EQUAL(pick(state, &ctx, &req), 2);
    v[4].busy = 1;
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 4);
    v[4].busy = 2;
    fini_policy(&p, state);

    /* ties: first is the same as the default. */
    ss_param first = {"ties", "first"};
    ss_params pf = {&first, 1};
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, &pf, &r, 1, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 2);
    fini_policy(&p, state);

    /* ties: random: every tied minimum and nothing else. */
    ss_param rnd = {"ties", "random"};
    ss_params pr = {&rnd, 1};
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, &pr, &r, 1, msg, sizeof msg), 0);
    int seen[5] = {0};
    for (int i = 0; i < 300; i++) {
        uint32_t k = pick(state, &ctx, &req);
        CU_ASSERT_FATAL(k < 5);
        seen[k]++;
    }
    CU_ASSERT_EQUAL(seen[0], 0);
    CU_ASSERT_EQUAL(seen[1], 0);
    CU_ASSERT(seen[2] > 50 && seen[3] > 50 && seen[4] > 50);
    /* No tie, no draw: the stream is left alone. */
    v[2].queued = 0;
    uint64_t before = r.s;
    CU_ASSERT_EQUAL(pick(state, &ctx, &req), 2);
    CU_ASSERT_EQUAL(r.s, before);
    fini_policy(&p, state);

    /* A bad value is refused by init with a message naming the key. */
    ss_param bad = {"ties", "sometimes"};
    ss_params pb = {&bad, 1};
    state = NULL;
    CU_ASSERT_EQUAL(init_policy(&p, &state, &pb, &r, 1, msg, sizeof msg), -1);
    CU_ASSERT(contains(msg, "ties"));
    CU_ASSERT(contains(msg, "sometimes"));
    CU_ASSERT_PTR_NULL(state);
    ss_plugin_unload(&p);
}

static void test_random(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL_FATAL(load(&p, "random", SS_KIND_LOAD_BALANCER, POL_DIR, &err), 0);
    uint32_t (*pick)(void *, const ss_lb_ctx *, const ss_qitem *) = p.pol->ops.load_balancer.pick;
    ss_qitem req = {0};
    char msg[256] = "";

    ss_instance_view v[6] = {{.up = 1}, {.up = 0}, {.up = 1}, {.up = 1, .queued = 100}, {.up = 0}, {.up = 1}};
    ss_lb_ctx ctx = {.inst = v, .n = 6};
    trng r = {42};
    void *state;
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, &r, 1, msg, sizeof msg), 0);
    enum { PICKS = 4000 };
    int seen[6] = {0};
    for (int i = 0; i < PICKS; i++) {
        uint32_t k = pick(state, &ctx, &req);
        CU_ASSERT_FATAL(k < 6);
        seen[k]++;
    }
    CU_ASSERT_EQUAL(seen[1], 0);
    CU_ASSERT_EQUAL(seen[4], 0);
    /* Uniform among the 4 up ones: 1000 each expected, allow a wide margin. */
    CU_ASSERT(seen[0] > 850 && seen[2] > 850 && seen[3] > 850 && seen[5] > 850);
    CU_ASSERT(seen[0] < 1150 && seen[2] < 1150 && seen[3] < 1150 && seen[5] < 1150);
    fini_policy(&p, state);

    /* All up: every instance reachable (the no-second-pass path). */
    ss_instance_view all[3] = {{.up = 1}, {.up = 1}, {.up = 1}};
    ss_lb_ctx actx = {.inst = all, .n = 3};
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &state, NULL, &r, 1, msg, sizeof msg), 0);
    int aseen[3] = {0};
    for (int i = 0; i < 300; i++) aseen[pick(state, &actx, &req) % 3]++;
    CU_ASSERT(aseen[0] > 0 && aseen[1] > 0 && aseen[2] > 0);
    fini_policy(&p, state);

    /* Deterministic for a given stream; a different stream differs.  One
     * draw per pick, so the stream advances exactly as a reference copy. */
    trng ra = {99}, rb = {99}, rc = {100}, ref = {99};
    void *sa, *sb, *sc;
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &sa, NULL, &ra, 1, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &sb, NULL, &rb, 1, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(init_policy(&p, &sc, NULL, &rc, 1, msg, sizeof msg), 0);
    int same = 1, differs = 0;
    for (int i = 0; i < 200; i++) {
        uint32_t a = pick(sa, &ctx, &req), b = pick(sb, &ctx, &req), c = pick(sc, &ctx, &req);
        same &= a == b;
        differs |= a != c;
        trng_next(&ref);
    }
    CU_ASSERT(same);
    CU_ASSERT(differs);
    CU_ASSERT_EQUAL(ra.s, ref.s);
    fini_policy(&p, sa);
    fini_policy(&p, sb);
    fini_policy(&p, sc);

    /* No stream lent: refused, not a crash on the first pick. */
    ss_policy_init noenv = {0};
    state = NULL;
    CU_ASSERT_EQUAL(p.pol->init(&state, &noenv, msg, sizeof msg), -1);
    CU_ASSERT(contains(msg, "random stream"));
    ss_plugin_unload(&p);
}

/* ---- loader errors ---------------------------------------------------- */

static void test_not_found(void)
{
    ss_plugin p;
    ss_err err;
    path_set("/nonexistent/servesim-a:/nonexistent/servesim-b");
    CU_ASSERT_EQUAL(load(&p, "round-robn", SS_KIND_LOAD_BALANCER, POL_DIR, &err), -1);
    CU_ASSERT_PTR_NULL(p.pol);
    CU_ASSERT(err.set);
    CU_ASSERT(contains(err.msg, "scn.yaml:3:7: no policy plugin 'round-robn'"));
    CU_ASSERT(contains(err.msg, "(did you mean 'round-robin'?)"));
    CU_ASSERT(contains(err.msg, "searched: " POL_DIR ", /nonexistent/servesim-a, /nonexistent/servesim-b, "));

    /* Nothing near: no suggestion, still the directories. */
    CU_ASSERT_EQUAL(load(&p, "zzqqxxjj", SS_KIND_LOAD_BALANCER, POL_DIR, &err), -1);
    CU_ASSERT(contains(err.msg, "no policy plugin 'zzqqxxjj'; searched: " POL_DIR));
    CU_ASSERT(strstr(err.msg, "did you mean") == NULL);
    path_restore();

    /* Names are stems, never paths. */
    static const char *const bad[] = {"../policies/fifo", "policies/fifo", ".fifo", "", NULL};
    for (int i = 0; bad[i]; i++) {
        CU_ASSERT_EQUAL(load(&p, bad[i], SS_KIND_SCHEDULER, POL_DIR, &err), -1);
        CU_ASSERT(contains(err.msg, "invalid policy name"));
    }
}

static void test_wrong_kind(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL(load(&p, "fifo", SS_KIND_LOAD_BALANCER, POL_DIR, &err), -1);
    CU_ASSERT_PTR_NULL(p.pol);
    CU_ASSERT(contains(err.msg, "scn.yaml:3:7: policy 'fifo' (" POL_DIR "/fifo.so) is a scheduler, expected a "
                                "load_balancer"));
    CU_ASSERT_EQUAL(load(&p, "round-robin", SS_KIND_SCHEDULER, POL_DIR, &err), -1);
    CU_ASSERT(contains(err.msg, "is a load_balancer, expected a scheduler"));
    CU_ASSERT_EQUAL(load(&p, "round-robin", SS_KIND_AUTOSCALER, POL_DIR, &err), -1);
    CU_ASSERT(contains(err.msg, "expected an autoscaler"));
}

static void test_bad_abi(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL(load(&p, "bad-abi", SS_KIND_LOAD_BALANCER, TPL_DIR, &err), -1);
    CU_ASSERT_PTR_NULL(p.pol);
    char want[512];
    snprintf(want, sizeof want,
             "scn.yaml:3:7: plugin 'bad-abi' (" TPL_DIR "/bad-abi.so) was built for policy ABI 999, this servesim "
             "speaks ABI %u: rebuild it",
             (unsigned)SS_POLICY_ABI);
    CU_ASSERT(contains(err.msg, want));
}

static void test_no_symbol(void)
{
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL(load(&p, "no-symbol", SS_KIND_LOAD_BALANCER, TPL_DIR, &err), -1);
    CU_ASSERT_PTR_NULL(p.pol);
    CU_ASSERT(contains(err.msg,
                       "scn.yaml:3:7: '" TPL_DIR "/no-symbol.so' is not a servesim policy (no servesim_policy symbol)"));
}

static int copy_file(const char *from, const char *to)
{
    return ss_test_sh(NULL, "cp '%s' '%s'", from, to);
}

static void test_not_loadable(void)
{
    /* Not an ELF object at all: dlopen's own reason must reach the user. */
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    free(ss_test_write(dir, "junk.so", "this is not a shared object\n"));
    ss_plugin p;
    ss_err err;
    CU_ASSERT_EQUAL(load(&p, "junk", SS_KIND_SCHEDULER, dir, &err), -1);
    CU_ASSERT(contains(err.msg, "plugin 'junk' ("));
    CU_ASSERT(contains(err.msg, "/junk.so) could not be loaded: "));
    CU_ASSERT(contains(err.msg, "junk.so: "));  /* dlerror() names the file, then why */

    /* A policy renamed on disk no longer matches its declared name. */
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/fifo.so", POL_DIR);
    snprintf(to, sizeof to, "%s/fifo2.so", dir);
    CU_ASSERT_EQUAL_FATAL(copy_file(from, to), 0);
    CU_ASSERT_EQUAL(load(&p, "fifo2", SS_KIND_SCHEDULER, dir, &err), -1);
    CU_ASSERT(contains(err.msg, "plugin 'fifo2' ("));
    CU_ASSERT(contains(err.msg, "calls itself 'fifo'"));
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* Build a throw-away plugin from source, for descriptors no shipped file has. */
static int build_plugin(const char *dir, const char *stem, const char *body)
{
    char name[128];
    snprintf(name, sizeof name, "%s.c", stem);
    char *src = ss_test_write(dir, name, body);
    char *out = NULL;
    int rc = ss_test_sh(&out, "${CC:-cc} -std=c11 -shared -fPIC -I'%s/include' -o '%s/%s.so' '%s'", SS_SRC_DIR,
                        dir, stem, src);
    if (rc != 0) fprintf(stderr, "\n  building %s failed:\n%s\n", stem, out ? out : "");
    free(out);
    free(src);
    return rc;
}

#define DESC_HEAD                                                                                           \
    "#include <servesim/policy.h>\n"                                                                        \
    "static uint32_t pick(void *s, const ss_lb_ctx *c, const ss_qitem *r) { (void)s; (void)c; (void)r; "    \
    "return 0; }\n"                                                                                         \
    "static void *qn(void *s) { return s; }\n"                                                              \
    "static void qf(void *q) { (void)q; }\n"                                                                \
    "static int qpush(void *q, const ss_qitem *i) { (void)q; (void)i; return 0; }\n"                      \
    "static int qpop(void *q, double now_s, ss_qitem *o) { (void)q; (void)o; return 0; }\n"                             \
    "const ss_policy servesim_policy = {.abi = SS_POLICY_ABI, "

static void test_bad_descriptor(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    static const struct {
        const char *stem, *fields, *want;
    } cases[] = {
        {"no-pick", ".kind = SS_KIND_LOAD_BALANCER, .name = \"no-pick\", .summary = \"x\"};\n",
         "is a load_balancer without ops.load_balancer.pick"},
        {"no-len",
         ".kind = SS_KIND_SCHEDULER, .name = \"no-len\", .summary = \"x\", .ops.scheduler = {qn, qf, qpush, "
         "qpop, 0}};\n",
         "is a scheduler without ops.scheduler.len"},
        {"odd-kind", ".kind = (ss_policy_kind)42, .name = \"odd-kind\", .summary = \"x\"};\n", "unknown kind 42"},
        {"no-name", ".kind = SS_KIND_LOAD_BALANCER, .summary = \"x\", .ops.load_balancer = {pick}};\n",
         "has no name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[2048];
        snprintf(src, sizeof src, "%s%s", DESC_HEAD, cases[i].fields);
        if (build_plugin(dir, cases[i].stem, src) != 0) {
            CU_FAIL("could not build a test plugin");
            continue;
        }
        ss_plugin p;
        ss_err err;
        CU_ASSERT_EQUAL(load(&p, cases[i].stem, SS_KIND_LOAD_BALANCER, dir, &err), -1);
        CU_ASSERT(contains(err.msg, cases[i].want));
    }
    /* The same scaffolding with every required field is accepted, so the
     * refusals above are about the field each case leaves out. */
    char src[2048];
    snprintf(src, sizeof src, "%s%s", DESC_HEAD,
             ".kind = SS_KIND_LOAD_BALANCER, .name = \"good\", .summary = \"x\", .ops.load_balancer = {pick}};\n");
    if (build_plugin(dir, "good", src) == 0) {
        ss_plugin p;
        ss_err err;
        CU_ASSERT_EQUAL(load(&p, "good", SS_KIND_LOAD_BALANCER, dir, &err), 0);
        ss_plugin_unload(&p);
    } else {
        CU_FAIL("could not build a test plugin");
    }
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* ---- search path ------------------------------------------------------ */

static void test_search_dirs(void)
{
    path_set("/p/one::/p/two:");
    char **d = ss_plugin_dirs("/scen");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    size_t n = 0;
    while (d[n]) n++;
    CU_ASSERT_EQUAL(n, 6); /* scenario, two from the path, build, install beside the binary, compiled-in */
    if (n != 6) {
        ss_plugin_dirs_free(d);
        path_restore();
        return;
    }
    CU_ASSERT_STRING_EQUAL(d[0], "/scen");
    CU_ASSERT_STRING_EQUAL(d[1], "/p/one");
    CU_ASSERT_STRING_EQUAL(d[2], "/p/two");
    size_t l3 = strlen(d[3]);
    CU_ASSERT(l3 > 9 && strcmp(d[3] + l3 - 9, "/policies") == 0 && d[3][0] == '/');
    size_t l4 = strlen(d[4]);
    CU_ASSERT(l4 > 25 && strcmp(d[4] + l4 - 25, "/../lib/servesim/policies") == 0);
    ss_plugin_dirs_free(d);

    /* No scenario directory, no path: build folder and install folders only. */
    unsetenv("SERVESIM_PLUGIN_PATH");
    d = ss_plugin_dirs(NULL);
    n = 0;
    while (d[n]) n++;
    CU_ASSERT_EQUAL(n, 3);
    ss_plugin_dirs_free(d);
    path_restore();
}

static void test_plugin_path_env(void)
{
    ss_plugin p;
    ss_err err;
    /* bad-abi.so lives only in the test plugin folder: finding it (and
     * saying so) proves the variable was searched. */
    path_set(NULL);
    CU_ASSERT_EQUAL(load(&p, "bad-abi", SS_KIND_LOAD_BALANCER, NULL, &err), -1);
    CU_ASSERT(contains(err.msg, "no policy plugin 'bad-abi'"));
    path_restore();

    path_set("/nonexistent/servesim:" TPL_DIR);
    CU_ASSERT_EQUAL(load(&p, "bad-abi", SS_KIND_LOAD_BALANCER, NULL, &err), -1);
    CU_ASSERT(contains(err.msg, "(" TPL_DIR "/bad-abi.so) was built for policy ABI 999"));
    path_restore();

    /* The path comes before the build folder: a copy of fifo there wins... */
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/fifo.so", POL_DIR);
    snprintf(to, sizeof to, "%s/fifo.so", dir);
    CU_ASSERT_EQUAL_FATAL(copy_file(from, to), 0);
    path_set(dir);
    CU_ASSERT_EQUAL(load(&p, "fifo", SS_KIND_SCHEDULER, NULL, &err), 0);
    CU_ASSERT(p.path && strcmp(p.path, to) == 0);
    ss_plugin_unload(&p);
    /* ...and the scenario's directory comes before the path. */
    CU_ASSERT_EQUAL(load(&p, "fifo", SS_KIND_SCHEDULER, POL_DIR, &err), 0);
    CU_ASSERT(p.path && strcmp(p.path, from) == 0);
    ss_plugin_unload(&p);
    path_restore();
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* ---- scanning --------------------------------------------------------- */

static const ss_plugin *find(const ss_plugin *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].pol->name, name) == 0) return &v[i];
    return NULL;
}

static void free_scan(ss_plugin *v, size_t n)
{
    for (size_t i = 0; i < n; i++) ss_plugin_unload(&v[i]);
    free(v);
}

static void test_scan(void)
{
    /* The test plugins are on the path too: both broken ones are skipped. */
    path_set(TPL_DIR);
    ss_plugin *v = NULL;
    size_t n = ss_plugin_scan(POL_DIR, &v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT(n >= 5);
    static const struct {
        const char *name;
        ss_policy_kind kind;
    } shipped[] = {{"fifo", SS_KIND_SCHEDULER},
                   {"least-loaded", SS_KIND_LOAD_BALANCER},
                   {"priority", SS_KIND_SCHEDULER},
                   {"random", SS_KIND_LOAD_BALANCER},
                   {"round-robin", SS_KIND_LOAD_BALANCER}};
    for (size_t i = 0; i < 5; i++) {
        const ss_plugin *p = find(v, n, shipped[i].name);
        CU_ASSERT_PTR_NOT_NULL(p);
        if (!p) continue;
        CU_ASSERT_EQUAL(p->pol->kind, shipped[i].kind);
        CU_ASSERT(p->pol->summary && p->pol->summary[0]);
        CU_ASSERT(strncmp(p->path, POL_DIR "/", strlen(POL_DIR) + 1) == 0);
    }
    CU_ASSERT_PTR_NULL(find(v, n, "bad-abi"));
    CU_ASSERT_PTR_NULL(find(v, n, "no-symbol"));
    for (size_t i = 1; i < n; i++) CU_ASSERT(strcmp(v[i - 1].pol->name, v[i].pol->name) < 0);
    free_scan(v, n);
    path_restore();

    /* First occurrence wins: a copy in the scenario directory shadows the
     * build folder's, as it would for ss_plugin_load. */
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/priority.so", POL_DIR);
    snprintf(to, sizeof to, "%s/priority.so", dir);
    CU_ASSERT_EQUAL_FATAL(copy_file(from, to), 0);
    path_set(POL_DIR);
    n = ss_plugin_scan(dir, &v);
    const ss_plugin *pr = find(v, n, "priority");
    CU_ASSERT(pr && strcmp(pr->path, to) == 0);
    CU_ASSERT_PTR_NOT_NULL(find(v, n, "fifo"));
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += strcmp(v[i].pol->name, "priority") == 0;
    CU_ASSERT_EQUAL(count, 1);
    free_scan(v, n);
    path_restore();
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void test_kind_names(void)
{
    CU_ASSERT_STRING_EQUAL(ss_policy_kind_name(SS_KIND_SCHEDULER), "scheduler");
    CU_ASSERT_STRING_EQUAL(ss_policy_kind_name(SS_KIND_LOAD_BALANCER), "load_balancer");
    CU_ASSERT_STRING_EQUAL(ss_policy_kind_name(SS_KIND_CONTROLLER), "controller");
    CU_ASSERT_STRING_EQUAL(ss_policy_kind_name(SS_KIND_LAYER_SCHEDULER), "layer_scheduler");
    CU_ASSERT_PTR_NULL(ss_policy_kind_name((ss_policy_kind)0));
    CU_ASSERT_PTR_NULL(ss_policy_kind_name((ss_policy_kind)99));
}

SS_TEST_SUITE("plugin", {"fifo_order", test_fifo_order}, {"priority_order", test_priority_order},
              {"round_robin", test_round_robin}, {"least_loaded", test_least_loaded},
              {"the load balancers over LLM engines", test_llm_balancers}, {"admission", test_admission}, {"random", test_random},
              {"not_found", test_not_found}, {"wrong_kind", test_wrong_kind}, {"bad_abi", test_bad_abi},
              {"no_symbol", test_no_symbol}, {"not_loadable", test_not_loadable},
              {"bad_descriptor", test_bad_descriptor}, {"search_dirs", test_search_dirs},
              {"plugin_path_env", test_plugin_path_env}, {"scan", test_scan}, {"kind_names", test_kind_names})
