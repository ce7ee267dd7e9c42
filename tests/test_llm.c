/* test_llm.c: the LLM engine (sim/llm/llm_engine.h) checked by hand: one
 * request alone, a chunked prefill, preemption when the KV cache is full,
 * the sequence cap; the KV ledger.  Every step takes 0.01 + 1e-4 x its
 * tokens seconds, so each time below is a sum written out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llm/kv_cache.h"
#include "llm/llm_engine.h"
#include "llm/llm_fleet.h"
#include "llm/llm_roofline.h"
#include "llm/llm_fit.h"
#include "llm/llm_tp.h"
#include "test.h"

static double affine_step(void *ctx, const ss_llm_batch *b)
{
    (void)ctx;
    return 0.01 + 1e-4 * b->tokens;
}

typedef struct arrival {
    ss_llm *e;
    ss_llm_req *r;
} arrival;

static void arrive(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)eng;
    (void)arg;
    arrival *a = ctx;
    ss_llm_submit(a->e, a->r);
}

/* Run reqs (arriving at their arrival_s) on an engine of cfg to the end. */
static ss_llm_stats run(const ss_llm_cfg *cfg, ss_llm_req *reqs, size_t n)
{
    ss_engine *eng = ss_engine_new();
    ss_llm_hooks h = {.step = affine_step};
    ss_llm *e = ss_llm_new(eng, cfg, &h);
    arrival *a = calloc(n, sizeof *a);
    for (size_t i = 0; i < n; i++) {
        a[i] = (arrival){e, &reqs[i]};
        ss_schedule(eng, reqs[i].arrival_s, arrive, &a[i], 0);
    }
    ss_engine_run(eng, 1e9);
    ss_llm_stats st = ss_llm_stats_of(e);
    ss_llm_free(e);
    ss_engine_free(eng);
    free(a);
    return st;
}

static const ss_llm_cfg big = {.max_num_seqs = 256, .max_num_batched_tokens = 2048, .block_size = 16,
                               .num_gpu_blocks = 2588, .chunked_prefill = 1};

static void test_one_request_alone(void)
{
    /* prefill 100 tokens: 0.02 s (TTFT); 4 decodes of 0.0101 s: E2E 0.0604 s */
    ss_llm_req r = {.id = 1, .prompt_tokens = 100, .output_tokens = 5};
    ss_llm_stats st = run(&big, &r, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.first_token_s, 0.02, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.last_token_s, 0.02 + 4 * 0.0101, 1e-12);
    CU_ASSERT_EQUAL(r.generated, 5);
    CU_ASSERT_EQUAL(st.steps, 5);
    CU_ASSERT_EQUAL(st.tokens_prefill, 100);
    CU_ASSERT_EQUAL(st.tokens_decode, 4);
    CU_ASSERT_EQUAL(st.running, 0);
    CU_ASSERT_DOUBLE_EQUAL(st.kv_usage, 0, 1e-15); /* its blocks given back */
}

static void test_chunked_prefill(void)
{
    /* 5000 prompt tokens under a budget of 2048: chunks 2048, 2048, 904
     * (0.2148 + 0.2148 + 0.1004 = 0.53 s to the first token), one decode */
    ss_llm_req r = {.id = 1, .prompt_tokens = 5000, .output_tokens = 2};
    ss_llm_stats st = run(&big, &r, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.first_token_s, 0.53, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.last_token_s, 0.5401, 1e-12);
    CU_ASSERT_EQUAL(st.steps, 4);
    /* with a per-prefill cap of 1000 (long_prefill_token_threshold): five chunks, 0.11 s each */
    ss_llm_cfg c = big;
    c.long_prefill_token_threshold = 1000;
    st = run(&c, &r, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.first_token_s, 5 * 0.11, 1e-12);
    CU_ASSERT_EQUAL(st.steps, 6);
}

static void test_full_cache_preempts_newest(void)
{
    /* 10 blocks of 16 tokens; A and B (64-token prompts, 60 output tokens each) arrive
     * together.  Step 1 prefills both (128 tokens, 0.0228 s: both first tokens).  16
     * two-request decodes (0.0102 s each) take them to 80 tokens in 5 blocks each, the
     * cache full; at the 81st token A needs a sixth block: the newest, B, is preempted
     * (its blocks freed, its 17 tokens out kept), and A decodes alone its 43 remaining
     * tokens (0.0101 s each) to 0.6203 s - B, needing 6 blocks again, never fits beside
     * it.  Then B recomputes its 81 tokens (0.0181 s) and decodes its 42 last. */
    ss_llm_cfg c = big;
    c.num_gpu_blocks = 10;
    ss_llm_req r[2] = {{.id = 1, .prompt_tokens = 64, .output_tokens = 60},
                       {.id = 2, .prompt_tokens = 64, .output_tokens = 60}};
    ss_llm_stats st = run(&c, r, 2);
    double t1 = 0.0228, t17 = t1 + 16 * 0.0102, a_end = t17 + 43 * 0.0101;
    CU_ASSERT_DOUBLE_EQUAL(r[0].first_token_s, t1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[1].first_token_s, t1, 1e-12); /* TTFT is the first time, not the recompute's */
    CU_ASSERT_DOUBLE_EQUAL(r[0].last_token_s, a_end, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[1].last_token_s, a_end + 0.0181 + 42 * 0.0101, 1e-12);
    CU_ASSERT_EQUAL(r[0].preemptions, 0);
    CU_ASSERT_EQUAL(r[1].preemptions, 1);
    CU_ASSERT_EQUAL(st.preemptions, 1);
    CU_ASSERT_EQUAL(r[1].generated, 60);
}

/* The same with prefix caching: B's five full blocks wait in the free queue, its last first; A's
 * three new blocks (its 81st, 97th and 113th tokens) evict B's blocks 4, 3 and 2; when A ends, B
 * finds blocks 0 and 1 (32 tokens) and recomputes only 49 (0.0149 s). */
static void test_preempted_request_finds_its_prefix(void)
{
    ss_llm_cfg c = big;
    c.num_gpu_blocks = 10;
    c.prefix_caching = 1;
    ss_llm_req r[2] = {{.id = 1, .prompt_tokens = 64, .output_tokens = 60},
                       {.id = 2, .prompt_tokens = 64, .output_tokens = 60}};
    ss_llm_stats st = run(&c, r, 2);
    double a_end = 0.0228 + 16 * 0.0102 + 43 * 0.0101;
    CU_ASSERT_DOUBLE_EQUAL(r[0].last_token_s, a_end, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[1].last_token_s, a_end + 0.0149 + 42 * 0.0101, 1e-12);
    CU_ASSERT_EQUAL(st.tokens_cached, 32);
    CU_ASSERT_EQUAL(st.tokens_prefill, 128 + 49);
}

/* scheduling_policy: one sequence at a time; A (priority 5) runs from 0, B (5) and C (1) wait from
 * 1 ms, C with the shorter prompt.  FCFS serves B then C, `priority` and `shortest-prompt` C then B;
 * each request alone takes a prefill and one decode.  And under `priority` the cache-full preemption
 * of test_full_cache_preempts_newest takes the less urgent A, not the newest B. */
static void test_scheduling_policies(void)
{
    ss_llm_cfg c = big;
    c.max_num_seqs = 1;
    for (int pol = SS_LLM_FCFS; pol <= SS_LLM_SHORTEST_PROMPT; pol++) {
        c.policy = pol;
        ss_llm_req r[3] = {{.id = 1, .prompt_tokens = 20, .output_tokens = 2, .priority = 5},
                           {.id = 2, .prompt_tokens = 30, .output_tokens = 2, .priority = 5, .arrival_s = 0.001},
                           {.id = 3, .prompt_tokens = 10, .output_tokens = 2, .priority = 1, .arrival_s = 0.001}};
        run(&c, r, 3);
        double a = 0.012 + 0.0101, b = 0.013 + 0.0101, cc = 0.011 + 0.0101;
        CU_ASSERT_DOUBLE_EQUAL(r[0].last_token_s, a, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(r[1].last_token_s, pol == SS_LLM_FCFS ? a + b : a + cc + b, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(r[2].last_token_s, pol == SS_LLM_FCFS ? a + b + cc : a + cc, 1e-12);
    }
    c = big;
    c.num_gpu_blocks = 10;
    c.policy = SS_LLM_PRIORITY;
    ss_llm_req r[2] = {{.id = 1, .prompt_tokens = 64, .output_tokens = 60, .priority = 1},
                       {.id = 2, .prompt_tokens = 64, .output_tokens = 60, .priority = 0}};
    run(&c, r, 2);
    double b_end = 0.0228 + 16 * 0.0102 + 43 * 0.0101;
    CU_ASSERT_EQUAL(r[0].preemptions, 1);
    CU_ASSERT_EQUAL(r[1].preemptions, 0);
    CU_ASSERT_DOUBLE_EQUAL(r[1].last_token_s, b_end, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[0].last_token_s, b_end + 0.0181 + 42 * 0.0101, 1e-12);
}

static void test_sequence_cap(void)
{
    /* max_num_seqs 2: of three requests arriving together (10-token prompts, 2 output
     * tokens), the third waits until the first two finish: prefill 20 tokens (0.012 s),
     * a decode of two (0.0102 s), then the third alone (0.011 + 0.0101 s). */
    ss_llm_cfg c = big;
    c.max_num_seqs = 2;
    ss_llm_req r[3];
    for (int i = 0; i < 3; i++) r[i] = (ss_llm_req){.id = (uint64_t)i, .prompt_tokens = 10, .output_tokens = 2};
    run(&c, r, 3);
    CU_ASSERT_DOUBLE_EQUAL(r[0].last_token_s, 0.0222, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[2].first_token_s, 0.0222 + 0.011, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[2].last_token_s, 0.0222 + 0.011 + 0.0101, 1e-12);
}

static void test_kv_ledger(void)
{
    ss_kv_cache kv;
    ss_kv_init(&kv, 16, 4, 1);
    ss_kv_held a = {0}, b = {0};
    CU_ASSERT_EQUAL(ss_kv_blocks_for(&kv, 16), 1);
    CU_ASSERT_EQUAL(ss_kv_blocks_for(&kv, 17), 2);
    CU_ASSERT_TRUE(ss_kv_grow(&kv, &a, 40)); /* 3 blocks: 0, 1, 2 */
    CU_ASSERT_EQUAL(a.n, 3);
    CU_ASSERT_FALSE(ss_kv_grow(&kv, &b, 17)); /* 2 wanted, 1 free: nothing changes */
    CU_ASSERT_EQUAL(b.n, 0);
    CU_ASSERT_EQUAL(kv.free_blocks, 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_kv_usage(&kv), 0.75, 1e-15);
    /* a (owner 7) gives back 40 computed tokens: blocks 0 and 1 full (cached), 2 not; the free
     * queue is now 3 (never used), then 2, 1, 0 (the last block first) */
    ss_kv_release(&kv, &a, 40, 7);
    CU_ASSERT_EQUAL(kv.free_blocks, 4);
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &a, 7, 10), 2);
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &a, 8, 10), 0); /* another request's content does not hit */
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &a, 7, 1), 1);  /* capped */
    /* b takes two blocks from the head: 3 and 2 - a's prefix still whole */
    CU_ASSERT_TRUE(ss_kv_grow(&kv, &b, 17));
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &a, 7, 10), 2);
    /* one more block for b evicts block 1: a's prefix now only block 0 */
    CU_ASSERT_TRUE(ss_kv_grow(&kv, &b, 33));
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &a, 7, 10), 1);
    ss_kv_touch(&kv, &a, 7, 1);
    CU_ASSERT_EQUAL(a.n, 1);
    CU_ASSERT_EQUAL(kv.free_blocks, 0);
    /* a shared key (a conversation's): one request's full blocks are another's hits, found by content */
    ss_kv_release(&kv, &a, 16, 7);
    ss_kv_release(&kv, &b, 0, 9);
    ss_kv_held c = {0}, d = {0};
    uint64_t conv = SS_KV_SHARED | 42;
    CU_ASSERT_TRUE(ss_kv_grow(&kv, &c, 48)); /* 3 blocks */
    ss_kv_release(&kv, &c, 48, conv);
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &d, conv, 10), 3); /* d held nothing: the table finds them */
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &d, SS_KV_SHARED | 43, 10), 0);
    ss_kv_touch(&kv, &d, conv, 2);
    CU_ASSERT_EQUAL(d.n, 2);
    CU_ASSERT_EQUAL(ss_kv_hits(&kv, &c, conv, 10), 0); /* its first block is held now: no hit past it */
    ss_kv_held_free(&c);
    ss_kv_held_free(&d);
    ss_kv_held_free(&a);
    ss_kv_held_free(&b);
    ss_kv_free(&kv);
}

/* The roofline by hand: one layer of hidden 4 (one head of 4, one KV head),
 * MLP 8, vocabulary 10, bf16; one decode after 3 cached tokens.  Memory
 * bound (1e9 B/s, FLOPs free): the matrices' weights and activations
 * 128 + 48 + 168 + 88 bytes, attention 80 (keys and values of 4 tokens,
 * query and output), the elementwise operators 112, embedding and final
 * norm 16, lm_head 108, the sampler's logits 40: 788 bytes, 788 ns.
 * Compute bound (1 FLOP/s, bytes free): 2 x 160 weights + 64 attention + 80
 * lm_head = 464 FLOPs, 464 s. */
static void test_roofline_by_hand(void)
{
    ss_llm_roofline r = {.model = {.layers = 1, .hidden = 4, .heads = 1, .kv_heads = 1, .head_dim = 4,
                                   .intermediate = 8, .vocab = 10},
                         .gpu = {.dense_flops_per_s = 1e30, .hbm_bytes_per_s = 1e9},
                         .dtype_bytes = 2};
    ss_llm_batch b = {.nseqs = 1, .tokens = 1, .ndecode = 1, .decode_kv_sum = 3};
    CU_ASSERT_DOUBLE_EQUAL(ss_llm_roofline_step_s(&r, &b), 788e-9, 1e-18);
    r.gpu = (ss_llm_gpu){.dense_flops_per_s = 1, .hbm_bytes_per_s = 1e30};
    CU_ASSERT_DOUBLE_EQUAL(ss_llm_roofline_step_s(&r, &b), 464, 1e-9);
}

/* Tensor parallelism by hand: 2 GPUs, links of 1e9 B/s and 10 us, 2 layers of hidden 4, vocabulary 10,
 * bf16; a step of 100 tokens over 1 sequence.  Each all-reduce moves 2 x 1/2 x 800 B (0.8 us) in
 * 2 x 1 x 10 us: 20.8 us, five of them (two per layer and the embedding's): 104 us; the logits'
 * gather 1/2 x 20 B (0.01 us) and 10 us; the compute 0.02 s, one GPU's (a tp<N> profile's). */
static void test_tensor_parallel_by_hand(void)
{
    ss_llm_tp tp = {.step = affine_step, .compute_div = 1, .size = 2, .link_bytes_per_s = 1e9, .latency_s = 1e-5,
                    .layers = 2, .hidden = 4, .vocab = 10, .dtype_bytes = 2};
    ss_llm_batch b = {.nseqs = 1, .tokens = 100, .nprefill = 1};
    CU_ASSERT_DOUBLE_EQUAL(ss_llm_tp_collectives_s(&tp, &b), 5 * 20.8e-6 + 10.01e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ss_llm_tp_step_s(&tp, &b), 0.02 + 5 * 20.8e-6 + 10.01e-6, 1e-15);
    tp.compute_div = 2; /* a whole-model step time (the roofline's) shared by the two GPUs */
    CU_ASSERT_DOUBLE_EQUAL(ss_llm_tp_step_s(&tp, &b), 0.01 + 5 * 20.8e-6 + 10.01e-6, 1e-15);
}

/* The fitted step time by hand: 2 layers, a knee of 100 tokens; a step of one decode after 50 cached
 * tokens and one prefill of 30 after 10: T 31, S 2.  dense 1e-4 + 1e-6 x max(31, 100) = 2e-4;
 * attention 1e-5 + 1e-6 x 1 + 1e-8 x 50 + 1e-7 x 30 + 1e-9 x 30 (10 + 15.5) = 1.42765e-5; once
 * 1e-5 + 1e-7 x 31; per sequence 1e-3 + 1e-6 x 2. */
static void test_fit_by_hand(void)
{
    ss_llm_fit f = {.c = {[SS_FIT_LAYERS] = 2, [SS_FIT_KNEE] = 100, [SS_FIT_D0] = 1e-4, [SS_FIT_D1] = 1e-6,
                          [SS_FIT_A0] = 1e-5, [SS_FIT_ADEC] = 1e-6, [SS_FIT_AKV] = 1e-8, [SS_FIT_ATOK] = 1e-7,
                          [SS_FIT_APRE] = 1e-9, [SS_FIT_E0] = 1e-5, [SS_FIT_E1] = 1e-7, [SS_FIT_S0] = 1e-3,
                          [SS_FIT_S1] = 1e-6}};
    uint32_t chunk = 30, kv = 10;
    ss_llm_batch b = {.nseqs = 2, .tokens = 31, .ndecode = 1, .decode_kv_sum = 50, .nprefill = 1,
                      .prefill_chunk = &chunk, .prefill_kv = &kv};
    double attn = 1e-5 + 1e-6 + 1e-8 * 50 + 1e-7 * 30 + 1e-9 * 30 * (10 + 15.5);
    CU_ASSERT_DOUBLE_EQUAL(ss_llm_fit_step_s(&f, &b), 2 * (2e-4 + attn) + 1e-5 + 1e-7 * 31 + 1e-3 + 2e-6, 1e-15);
}

/* A fleet's stream: arrivals from an array. */
typedef struct arr_src {
    const ss_llm_arrival *a;
    size_t n, i;
} arr_src;

static int from_array(void *ctx, ss_llm_arrival *a)
{
    arr_src *s = ctx;
    if (s->i == s->n) return 0;
    *a = s->a[s->i++];
    return 1;
}

static void fleet_case(uint32_t n, ss_llm_route route, const ss_llm_arrival *a, size_t na, ss_llm_fleet_result *r)
{
    arr_src s = {a, na, 0};
    ss_llm_fleet_run(&big, n, route, affine_step, NULL, from_array, &s, r);
}

static void test_fleet_routing(void)
{
    ss_llm_fleet_result r;
    /* two requests at once (100-token prompts, 5 out): on two engines each alone (0.0604 s);
     * on one, together: a 200-token prefill (0.03 s) and four decodes of two (0.0102 s) */
    const ss_llm_arrival two[2] = {{0, 100, 5}, {0, 100, 5}};
    fleet_case(2, SS_LLM_ROUTE_ROUND_ROBIN, two, 2, &r);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&r.e2e), 0.0604, 1e-12);
    CU_ASSERT_EQUAL(r.served, 2);
    ss_llm_fleet_result_free(&r);
    fleet_case(1, SS_LLM_ROUTE_ROUND_ROBIN, two, 2, &r);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&r.e2e), 0.0708, 1e-12);
    ss_llm_fleet_result_free(&r);
    /* A (1000 tokens, 10 out), B and C (10, 2) at once on two engines.  Least outstanding tokens:
     * A alone on engine 0 (0.11 + 9 x 0.0101 = 0.2009 s), B and C together on engine 1 (0.012 +
     * 0.0102 = 0.0222 s).  Round-robin puts C beside A: C at 0.111 + 0.0102 = 0.1212 s, A at 0.1212
     * + 8 x 0.0101 = 0.202 s, B alone 0.011 + 0.0101 = 0.0211 s. */
    const ss_llm_arrival abc[3] = {{0, 1000, 10}, {0, 10, 2}, {0, 10, 2}};
    fleet_case(2, SS_LLM_ROUTE_LEAST_TOKENS, abc, 3, &r);
    CU_ASSERT_DOUBLE_EQUAL(r.e2e.max, 0.2009, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.e2e.min, 0.0222, 1e-12);
    ss_llm_fleet_result_free(&r);
    fleet_case(2, SS_LLM_ROUTE_ROUND_ROBIN, abc, 3, &r);
    CU_ASSERT_DOUBLE_EQUAL(r.e2e.max, 0.202, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.e2e.min, 0.0211, 1e-12);
    ss_llm_fleet_result_free(&r);
}

static void test_fleet_refuses_and_streams(void)
{
    /* a request of 5,000 tokens on a cache of 10 blocks of 16 is refused; the rest, 1,000 spaced
     * 1 s apart, never overlap: one request in flight at a time */
    ss_llm_arrival *a = calloc(1001, sizeof *a);
    a[0] = (ss_llm_arrival){0, 4990, 10};
    for (int i = 1; i <= 1000; i++) a[i] = (ss_llm_arrival){(double)i, 100, 5};
    ss_llm_cfg c = big;
    c.num_gpu_blocks = 10;
    arr_src s = {a, 1001, 0};
    ss_llm_fleet_result r;
    ss_llm_fleet_run(&c, 1, SS_LLM_ROUTE_ROUND_ROBIN, affine_step, NULL, from_array, &s, &r);
    CU_ASSERT_EQUAL(r.arrived, 1001);
    CU_ASSERT_EQUAL(r.refused, 1);
    CU_ASSERT_EQUAL(r.served, 1000);
    CU_ASSERT_EQUAL(r.peak_in_flight, 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&r.ttft), 0.02, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_hist_quantile(r.e2e_hist, 0.5), 0.0604, 0.0604 * ss_hist_rel_error());
    ss_llm_fleet_result_free(&r);
    free(a);
}

/* Prefill/decode disaggregation, by hand: the KV cache of a 100-token prompt at 1 MB a token
 * (1e8 B) over NICs of 800 Mbit/s.  One prefill and one decode engine, one request (100 in, 5
 * out): its prefill 0.02 s (the first token), the transfer 1e8 x 8 / 8e8 = 1 s on the idle
 * fabric, then four decodes of 0.0101 s on the decode engine: 1.0604 s.  Two prefill engines
 * and one decode engine, two such requests at once: both transfers share the decode engine's
 * NIC max-min (4e8 each: 2 s), then four decodes of two (0.0102 s): 2.0608 s. */
static void test_disaggregated_kv_transfer(void)
{
    ss_llm_disagg d = {.prefill_instances = 1, .nic_bps = 8e8, .kv_bytes_per_token = 1e6};
    const ss_llm_arrival one[1] = {{0, 100, 5}}, two[2] = {{0, 100, 5}, {0, 100, 5}};
    ss_llm_fleet_result r;
    for (int k = 0; k < 2; k++) {
        ss_engine *eng = ss_engine_new();
        arr_src s = {k ? two : one, (size_t)k + 1, 0};
        d.prefill_instances = (uint32_t)k + 1;
        ss_llm_fleet *f = ss_llm_fleet_new(eng, &big, (uint32_t)k + 2, SS_LLM_ROUTE_ROUND_ROBIN, affine_step, NULL,
                                           from_array, &s, 0, &d, &r);
        ss_engine_run(eng, INFINITY);
        ss_llm_fleet_free(f);
        ss_engine_free(eng);
        CU_ASSERT_EQUAL(r.served, (uint64_t)k + 1);
        CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&r.ttft), 0.02, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(ss_stat_mean(&r.kv_transfer), k ? 2.0 : 1.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(r.e2e.max, k ? 2.0608 : 1.0604, 1e-9);
        ss_llm_fleet_result_free(&r);
    }
}

/* The shipped LLM scenario through `servesim run`: byte-identical on a rerun, both routers served
 * every measured request of the same arrivals, the LLM columns there and sane. */
static void test_scenario_runs(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd %s && %s run scenarios/llm/rtx4090-synthetic.yaml -o %s/a.csv --quiet && "
                        "%s run scenarios/llm/rtx4090-synthetic.yaml -o %s/b.csv --quiet && cmp %s/a.csv %s/b.csv && "
                        "python3 -c \"import csv,sys\n"
                        "for r in csv.DictReader(open(sys.argv[1])): print(r['variant'], r['arrived'], r['completed'], "
                        "int(float(r['ttft_mean_s']) > 0), int(0.005 < float(r['tpot_mean_s']) < 0.1), "
                        "int(float(r['refused'])))\" %s/a.csv",
                        SS_SRC_DIR, SS_BIN, dir, SS_BIN, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    /* two variants, the same arrivals; every request measured is completed (none refused) */
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "least-tokens"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "round-robin"));
    CU_ASSERT_PTR_NULL(strstr(out ? out : "", " 0 0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", " 1 1 0\n"));
    free(out);
    /* with a time series: one row per engine and second, its KV use; the results unchanged */
    out = NULL;
    rc = ss_test_sh(&out,
                    "cd %s && %s run scenarios/llm/rtx4090-synthetic.yaml -o %s/c.csv --timeseries-csv %s/ts.csv "
                    "--quiet && cmp %s/a.csv %s/c.csv && head -1 %s/ts.csv && grep -c ',engine1,1,' %s/ts.csv",
                    SS_SRC_DIR, SS_BIN, dir, dir, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", ",draining,kv_cache\n"));
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("llm", {"the shipped LLM scenario runs, reruns byte for byte, both routers", test_scenario_runs},
              {"P/D disaggregation: a KV transfer takes bytes / bandwidth, and shares a busy NIC max-min",
               test_disaggregated_kv_transfer}, {"a fleet routes round-robin or to the fewest outstanding tokens", test_fleet_routing},
              {"a fleet refuses what no cache holds, holds only what is in flight", test_fleet_refuses_and_streams}, {"the roofline step time by hand", test_roofline_by_hand},
              {"tensor parallelism's collectives by hand", test_tensor_parallel_by_hand},
              {"the fitted step time by hand", test_fit_by_hand}, {"one request alone: TTFT its prefill, E2E plus output - 1 decodes", test_one_request_alone},
              {"chunked prefill splits a long prompt by the token budget", test_chunked_prefill},
              {"a full KV cache preempts the newest request, which recomputes", test_full_cache_preempts_newest},
              {"max_num_seqs holds the rest waiting", test_sequence_cap},
              {"scheduling_policy: FCFS, priority, shortest prompt; priority's preemption", test_scheduling_policies},
              {"prefix caching: a preempted request finds its blocks not yet evicted", test_preempted_request_finds_its_prefix},
              {"the KV block ledger", test_kv_ledger})
