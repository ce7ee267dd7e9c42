/* test_llm_serve.c: LLM engines as instances of the substrate
 * (sim/llm/llm_serve.h) checked by hand: one request alone through the
 * gateway, its engine and the model's queue (TTFT = the request overhead +
 * its prefill step, E2E = that + output - 1 decode steps, each step the
 * roofline's); the queue beyond max_num_seqs; the KV blocks an engine gets
 * from its GPU's memory; a serverless model on a topology cold-starting from
 * zero (download, load at the model's rate, PCIe) and scaling back to zero. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/llm_cfg.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "llm/llm_roofline.h"
#include "serve/serve.h"
#include "world/world.h"
#include "test.h"

/* The scenario text with its model and GPU files (the shipped ones) for `%s`. */
static char *scenario_text(const char *fmt)
{
    return ss_xasprintf(fmt, SS_SRC_DIR, SS_SRC_DIR);
}

/* Load yaml (one %s for the model config's folder, one for the GPU file's), run one
 * replication, fill *r; the scenario stays loaded in *sc. */
static int run_one(const char *yaml_fmt, ss_scenario *sc, ss_run_result *r)
{
    char plugins[2048];
    snprintf(plugins, sizeof plugins, "%s/policies", SS_BUILD_DIR);
    setenv("SERVESIM_PLUGIN_PATH", plugins, 1);
    char *dir = ss_test_tmpdir(), *text = scenario_text(yaml_fmt);
    char *path = ss_test_write(dir, "s.yaml", text);
    ss_err err = {0};
    int rc = ss_scenario_load(sc, path, NULL, NULL, 0, &err);
    if (rc < 0) fprintf(stderr, "\n%s\n", err.msg);
    ss_world *w = rc < 0 ? NULL : ss_world_build(sc, 0, NULL, &err);
    if (rc == 0 && !w) fprintf(stderr, "\n%s\n", err.msg);
    if (w) {
        ss_world_run(w);
        const char *broken = ss_world_broken(w);
        if (broken) fprintf(stderr, "\n%s\n", broken);
        CU_ASSERT_PTR_NULL(broken);
        memset(r, 0, sizeof *r);
        ss_world_result(w, r);
        ss_world_free(w);
    }
    free(path);
    free(text);
    ss_test_rmtree(dir);
    return w ? 0 : -1;
}

static double extra(const ss_run_result *r, const char *col)
{
    for (size_t i = 0; i < r->nextras; i++)
        if (strcmp(r->extras[i].col, col) == 0) return r->extras[i].value;
    CU_FAIL("no such column");
    return NAN;
}

/* The roofline of the shipped Llama-3.1-8B on the A10 file's figures. */
static ss_llm_roofline a10_llama(const ss_scenario *sc)
{
    const ss_llm_scn *s = sc->models[0].llm;
    return (ss_llm_roofline){.model = s->model,
                             .gpu = {.dense_flops_per_s = s->gpu_flops_per_s, .hbm_bytes_per_s = s->gpu_bytes_per_s},
                             .dtype_bytes = 2};
}

/* A request of 100 prompt and 5 output tokens alone on an engine: one prefill step of its 100
 * tokens (into *prefill_s if given), then 4 decode steps after 100, 101, 102, 103 tokens cached. */
static double alone_s(ss_llm_roofline *roof, double *prefill_s)
{
    uint32_t chunk = 100, kv0 = 0;
    ss_llm_batch pre = {.nseqs = 1, .tokens = 100, .nprefill = 1, .prefill_chunk = &chunk, .prefill_kv = &kv0};
    double t = ss_llm_roofline_step_s(roof, &pre);
    if (prefill_s) *prefill_s = t;
    for (uint32_t k = 100; k < 104; k++) {
        ss_llm_batch dec = {.nseqs = 1, .tokens = 1, .ndecode = 1, .decode_kv_sum = k};
        t += ss_llm_roofline_step_s(roof, &dec);
    }
    return t;
}

static const char one_gpu[] =
    "name: one\nseed: 1\nrequests: %s\n"
    "hosts:\n  - name: h0\n    devices:\n      - {name: gpu0, kind: gpu, vram_gib: 22.49}\n"
    "models:\n  - name: llama\n    request_overhead_s: 0.01\n    llm:\n"
    "      model: %%s/models/llm/llama-3.1-8b.json\n      step_time: {roofline: %%s/models/llm/a10.json}\n"
    "      engine: {max_num_seqs: %s, max_num_batched_tokens: 2048}\n"
    "      prompt_tokens: {mean: 100, max: 100}\n      output_tokens: {mean: 5, max: 5}\n"
    "deployment:\n  - {model: llama, device: gpu0}\n"
    "workloads:\n  - {name: w, kind: trace, target: llama, times_s: [%s]}\n";

/* one_gpu with that request count, max_num_seqs and arrival times, run; its roofline into *roof. */
static int on_one_gpu(const char *requests, const char *seqs, const char *times, ss_scenario *sc, ss_run_result *r,
                      ss_llm_roofline *roof)
{
    char *fmt = ss_xasprintf(one_gpu, requests, seqs, times);
    int rc = run_one(fmt, sc, r);
    free(fmt);
    if (rc == 0) *roof = a10_llama(sc);
    return rc;
}

/* One request alone: TTFT = overhead + one prefill step of its 100 tokens; E2E = that + 4 decode
 * steps after 100, 101, 102, 103 tokens cached; the engine's KV blocks from the A10's memory. */
static void test_one_request_alone(void)
{
    ss_scenario sc;
    ss_run_result r;
    ss_llm_roofline roof;
    CU_ASSERT_EQUAL_FATAL(on_one_gpu("1", "256", "1.0", &sc, &r, &roof), 0);
    double prefill = 0, e2e = 0.01 + alone_s(&roof, &prefill), ttft = 0.01 + prefill;
    CU_ASSERT_EQUAL(r.tasks[0].completed, 1);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "ttft_mean_s"), ttft, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_mean_s, e2e, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "tpot_mean_s"), (e2e - ttft) / 4, 1e-9);
    /* KV blocks: (22.49 GiB x 0.9 - weights - the reserve) / (16 tokens x 131,072 bytes), less vLLM's null block */
    const ss_llm_scn *s = sc.models[0].llm;
    double room = 22.49 * 1073741824.0 * 0.9 - s->weights_bytes - SS_LLM_RUNTIME_RESERVE_BYTES;
    CU_ASSERT_EQUAL(sc.deploys[0].kv_blocks, (uint32_t)floor(room / (16 * 131072.0)) - 1); /* the null block */
    CU_ASSERT_EQUAL(sc.deploys[0].servers, 256);
    ss_run_result_free(&r);
    ss_scenario_free(&sc);
}

/* A trace with each request's token counts: the row's, not the model's distributions (prompts of
 * 2,000 tokens here): one request of 100 and 5 tokens alone, the same E2E as above.  And a row no
 * KV cache of the model's engines holds is refused at its line. */
static void test_trace_tokens(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.csv", "timestamp_s,prompt_tokens,output_tokens\n1.0,100,5\n"));
    free(ss_test_write(dir, "big.csv", "timestamp_s,prompt_tokens,output_tokens\n1.0,100,5\n2.0,90000,5\n"));
    char *fmt = ss_xasprintf("name: tr\nseed: 1\nrequests: 1\n"
                             "hosts:\n  - name: h0\n    devices:\n      - {name: gpu0, kind: gpu, vram_gib: 22.49}\n"
                             "models:\n  - name: llama\n    request_overhead_s: 0.01\n    llm:\n"
                             "      model: %%s/models/llm/llama-3.1-8b.json\n"
                             "      step_time: {roofline: %%s/models/llm/a10.json}\n      engine: {max_num_seqs: 8}\n"
                             "      prompt_tokens: {mean: 2000, max: 2000}\n      output_tokens: {mean: 50, max: 50}\n"
                             "deployment:\n  - {model: llama, device: gpu0}\n"
                             "workloads:\n  - {name: w, kind: trace, target: llama, file: %s/t.csv}\n",
                             dir);
    ss_scenario sc;
    ss_run_result r;
    CU_ASSERT_EQUAL_FATAL(run_one(fmt, &sc, &r), 0);
    ss_llm_roofline roof = a10_llama(&sc);
    CU_ASSERT_EQUAL(r.tasks[0].completed, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_mean_s, 0.01 + alone_s(&roof, NULL), 1e-9);
    ss_run_result_free(&r);
    ss_scenario_free(&sc);
    free(fmt);
    char *out = NULL;
    char *yaml = ss_xasprintf("name: tr\nseed: 1\nrequests: 1\n"
                              "hosts:\n  - name: h0\n    devices:\n      - {name: gpu0, kind: gpu, vram_gib: 22.49}\n"
                              "models:\n  - name: llama\n    llm:\n      model: %s/models/llm/llama-3.1-8b.json\n"
                              "      step_time: {roofline: %s/models/llm/a10.json}\n      engine: {max_num_seqs: 8}\n"
                              "      prompt_tokens: {mean: 2000, max: 2000}\n      output_tokens: {mean: 50, max: 50}\n"
                              "deployment:\n  - {model: llama, device: gpu0}\n"
                              "workloads:\n  - {name: w, kind: trace, target: llama, file: big.csv}\n",
                              SS_SRC_DIR, SS_SRC_DIR);
    free(ss_test_write(dir, "big.yaml", yaml));
    int rc = ss_test_sh(&out, "cd %s && %s run big.yaml -o r.csv; echo rc=$?; ls", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "big.csv:3:1: a request of 90005 tokens (prompt and output): "
                                                  "model 'llama''s smallest KV cache holds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "rc=2"));
    CU_ASSERT_PTR_NULL(strstr(out ? out : "", "r.csv"));
    free(out);
    free(yaml);
    ss_test_rmtree(dir);
}

/* The engine time of one request alone whose prompt of `prompt` tokens finds `hit` of them cached,
 * with `output` tokens out: one prefill step of the rest, then output - 1 decode steps. */
static double turn_s(ss_llm_roofline *roof, uint32_t prompt, uint32_t hit, uint32_t output)
{
    uint32_t chunk = prompt - hit;
    ss_llm_batch pre = {.nseqs = 1, .tokens = chunk, .nprefill = 1, .prefill_chunk = &chunk, .prefill_kv = &hit};
    double t = ss_llm_roofline_step_s(roof, &pre);
    for (uint32_t k = prompt; k < prompt + output - 1; k++) {
        ss_llm_batch dec = {.nseqs = 1, .tokens = 1, .ndecode = 1, .decode_kv_sum = k};
        t += ss_llm_roofline_step_s(roof, &dec);
    }
    return t;
}

/* A conversation of three turns from one closed-loop client: 100 prompt tokens and 5 out; then
 * 105 + 20 = 125, finding the first turn's 6 full blocks (96 tokens) cached; then 130 + 20 = 150,
 * finding 8 (128 of the second turn's 129 computed).  224 prefix-cache tokens, each latency by hand. */
static void test_conversation_hits(void)
{
    const char *fmt = "name: conv\nseed: 1\nrequests: 3\n"
                      "hosts:\n  - name: h0\n    devices:\n      - {name: gpu0, kind: gpu, vram_gib: 22.49}\n"
                      "models:\n  - name: llama\n    request_overhead_s: 0.01\n    llm:\n"
                      "      model: %s/models/llm/llama-3.1-8b.json\n"
                      "      step_time: {roofline: %s/models/llm/a10.json}\n      engine: {max_num_seqs: 8}\n"
                      "      prompt_tokens: {mean: 100, max: 100}\n      output_tokens: {mean: 5, max: 5}\n"
                      "      conversation: {turns: 3, followup_tokens: {mean: 20, max: 20}}\n"
                      "      slo: {ttft_s: 0.036, tpot_s: 1}\n"
                      "deployment:\n  - {model: llama, device: gpu0}\n"
                      "workloads:\n  - {name: chat, kind: closed, target: llama, clients: 1}\n";
    ss_scenario sc;
    ss_run_result r;
    CU_ASSERT_EQUAL_FATAL(run_one(fmt, &sc, &r), 0);
    ss_llm_roofline roof = a10_llama(&sc);
    double l1 = turn_s(&roof, 100, 0, 5), l2 = turn_s(&roof, 125, 96, 5), l3 = turn_s(&roof, 150, 128, 5);
    CU_ASSERT_EQUAL(r.tasks[0].completed, 3);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "prefix_cache_tokens"), 224, 0);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_mean_s, 0.01 + (l1 + l2 + l3) / 3, 1e-9);
    CU_ASSERT(l2 < l1); /* 29 tokens prefilled, not 125 */
    /* goodput: the turns whose TTFT (the overhead and one prefill step) is within 36 ms: the second and third (26.6, 25.5 and 25.4 ms of prefill, memory-bound) */
    const uint32_t chunk[3] = {100, 29, 22}, kv[3] = {0, 96, 128};
    int met = 0;
    for (int k = 0; k < 3; k++) {
        ss_llm_batch pre = {.nseqs = 1, .tokens = chunk[k], .nprefill = 1, .prefill_chunk = &chunk[k],
                            .prefill_kv = &kv[k]};
        met += 0.01 + ss_llm_roofline_step_s(&roof, &pre) <= 0.036;
    }
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "slo_attainment"), met / 3.0, 1e-12);
    CU_ASSERT(met > 0 && met < 3); /* the threshold splits them: the check can fail either way */
    ss_run_result_free(&r);
    ss_scenario_free(&sc);
}

/* max_num_seqs 1: two requests at once, the second waits in the model's queue for the first's
 * last token, then runs alone: its latency is the first's E2E plus its own. */
static void test_queue_beyond_max_num_seqs(void)
{
    ss_scenario sc;
    ss_run_result r;
    ss_llm_roofline roof;
    CU_ASSERT_EQUAL_FATAL(on_one_gpu("2", "1", "1.0, 1.0", &sc, &r, &roof), 0);
    double alone = alone_s(&roof, NULL);
    CU_ASSERT_EQUAL(r.tasks[0].completed, 2);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_max_s, 0.01 + 2 * alone, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].queue_mean_s, alone / 2, 1e-9);
    ss_run_result_free(&r);
    ss_scenario_free(&sc);
}

/* Serverless: Llama-3.1-8B from zero replicas on a one-host topology; the first request waits for
 * a cold start (download from storage, load at load_bytes_per_s, send over PCIe), later ones find
 * the replica up; after the load it scales back to zero.  The cold-start CSV gives the stages. */
static void test_serverless_cold_start(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    char *yaml = ss_xasprintf(
        "name: sl\nseed: 1\nduration_s: 460\ntopology: %s/topologies/flashpoint-dc.yaml\n"
        "models:\n  - name: llama\n    load_bytes_per_s: 11.4e9\n    llm:\n"
        "      model: %s/models/llm/llama-3.1-8b.json\n      step_time: {roofline: %s/models/llm/a10.json}\n"
        "      engine: {max_num_seqs: 256, max_num_batched_tokens: 2048}\n"
        "      prompt_tokens: {mean: 500, sd: 200, max: 2000}\n      output_tokens: {mean: 100, sd: 50, max: 500}\n"
        "deployment:\n  - {model: llama, devices: \"h0/gpu*\", queue: shared, instances: 0}\n"
        "workloads:\n  - {name: w, kind: steps, target: llama, steps: [{until_s: 60, rate_rps: 2}, "
        "{until_s: 400, rate_rps: 0}, {until_s: 460, rate_rps: 2}]}\n"
        "autoscaling: {policy: {name: knative, target: 64}, period_s: 2, windows_s: [6, 60], "
        "stabilization_s: 30}\n"
        "placement: {policy: cloud}\n",
        SS_SRC_DIR, SS_SRC_DIR, SS_SRC_DIR);
    char *path = ss_test_write(dir, "s.yaml", yaml);
    int rc = ss_test_sh(&out,
                        "cd %s && %s run s.yaml -o r.csv --coldstarts-csv c.csv --timeseries-csv t.csv --quiet && "
                        "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print \"cs\", $c[\"load_s\"], "
                        "$c[\"source\"] }' c.csv && "
                        "awk -F, 'NR > 1 && $3 > 300 && $3 < 400 && $5 == 0 { z++ } END { print \"zero\", (z > 0) }' t.csv && "
                        "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"model\"] == \"all\" "
                        "{ print \"res\", $c[\"completed\"] == $c[\"arrived\"], ($c[\"ttft_p99_s\"] > 64.2) }' r.csv",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    /* the load stage: the weights at 11.4 GB/s (16.06 GB: 1.409 s), from storage */
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "cs 1.40"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "storage"));
    /* scaled to zero in the gap; every request served, the first ones after waiting for a cold start
     * whose download alone takes 16.06 GB over the storage's 2 Gbit/s link: 64.2 s */
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "zero 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "res 1 1"));
    if (out && !strstr(out, "res 1 1")) fprintf(stderr, "\n%s\n", out);
    free(out);
    free(path);
    free(yaml);
    ss_test_rmtree(dir);
}

/* The shipped LLM scenarios on the substrate: byte-identical on a rerun; cache-aware routing finds
 * more than twice the cached tokens of round-robin on the conversations (docs/llm.md says four times);
 * on the serverless tour every variant serves every request and Knative from storage storms. */
static void test_shipped_scenarios(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd %s && %s run scenarios/llm/conversations.yaml -o %s/a.csv --quiet && "
                        "%s run scenarios/llm/conversations.yaml -o %s/b.csv --quiet && cmp %s/a.csv %s/b.csv && "
                        "python3 -c \"import csv,sys; d={r['variant']: float(r['prefix_cache_tokens']) for r in "
                        "csv.DictReader(open(sys.argv[1])) if r['model'] == 'all'}; "
                        "print('hits', d['prefix-affinity'] > 2 * d['round-robin'])\" %s/a.csv && "
                        "%s run scenarios/llm/serverless-dc.yaml -o %s/s.csv --timeseries-csv %s/t.csv --quiet && "
                        "python3 -c \"import csv,sys; rs=[r for r in csv.DictReader(open(sys.argv[1])) if r['model'] == "
                        "'all']; print('served', all(r['completed'] == r['arrived'] for r in rs)); "
                        "print('storm', [r['variant'] for r in rs if float(r['ttft_mean_s']) > 1000])\" %s/s.csv && "
                        "head -1 %s/t.csv",
                        SS_SRC_DIR, SS_BIN, dir, SS_BIN, dir, dir, dir, dir, SS_BIN, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "hits True"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "served True"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "storm ['knative-cloud']"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", ",draining,kv_cache,ttft_mean_s,arrivals\n"));
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    /* the per-request CSV's LLM columns: its cached tokens sum to the run's, every row has its TTFT */
    out = NULL;
    rc = ss_test_sh(&out,
                    "cd %s && %s run scenarios/llm/conversations.yaml --variant prefix-affinity -o %s/p.csv "
                    "--requests-csv %s/q.csv --quiet && python3 -c \"import csv,sys; "
                    "q=list(csv.DictReader(open(sys.argv[1]))); r=[r for r in csv.DictReader(open(sys.argv[2])) if "
                    "r['model'] == 'all'][0]; print('cols', sum(int(x['cached_tokens']) for x in q) == "
                    "int(float(r['prefix_cache_tokens'])), all(x['ttft_ms'] != '' for x in q), len(q) > 100)\" "
                    "%s/q.csv %s/p.csv",
                    SS_SRC_DIR, SS_BIN, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "cols True True True"));
    free(out);
    ss_test_rmtree(dir);
}

/* An engine that fails at 10 s: what it held (running and waiting in the engine) goes back to the
 * model's queue and is served elsewhere, or is lost and counted; no request is left behind. */
static void test_engine_fails(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    char *base = ss_xasprintf(
        "name: f\nseed: 1\nduration_s: 30\n"
        "hosts:\n  - name: h0\n    devices:\n      - {name: gpu0, kind: gpu, vram_gib: 22.49}\n"
        "      - {name: gpu1, kind: gpu, vram_gib: 22.49}\n"
        "models:\n  - name: llama\n    llm:\n      model: %s/models/llm/llama-3.1-8b.json\n"
        "      step_time: {roofline: %s/models/llm/a10.json}\n      engine: {max_num_seqs: 16}\n"
        "      prompt_tokens: {mean: 500, sd: 100, max: 2000}\n      output_tokens: {mean: 300, sd: 10, max: 400}\n"
        "deployment:\n  - {model: llama, device: gpu0}\n  - {model: llama, device: gpu1}\n"
        "workloads:\n  - {name: w, kind: poisson, target: llama, rate_rps: 2}\n"
        "events:\n  - {at_s: 10, action: fail, instance: llama@h0/gpu0, requests: %%s}\n",
        SS_SRC_DIR, SS_SRC_DIR);
    for (int lose = 0; lose < 2; lose++) {
        char *yaml = ss_xasprintf(base, lose ? "lose" : "requeue");
        free(ss_test_write(dir, "f.yaml", yaml));
        free(out);
        out = NULL;
        int rc = ss_test_sh(&out, "cd %s && %s run f.yaml -o r.csv --quiet && python3 -c \"import csv; "
                                  "r=[r for r in csv.DictReader(open('r.csv')) if r['model'] == 'all'][0]; "
                                  "a, c, l = int(r['arrived']), int(r['completed']), float(r['lost_requests']); "
                                  "print('ok', a == c + l, l > 0)\"",
                            dir, SS_BIN);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", lose ? "ok True True" : "ok True False"));
        free(yaml);
    }
    free(out);
    free(base);
    ss_test_rmtree(dir);
}

/* Prefill/decode disaggregation on the substrate: a prefill model on h1's GPU, a decode model on h2's,
 * one 10 Gbit/s link from each host to the switch (no latencies).  One request of 100 + 5 tokens:
 * TTFT its prefill step; its KV cache, 100 x 131,072 bytes, crosses in 13.1072e6 x 8 / 1e10 =
 * 10.486 ms; E2E the prefill, the transfer and 4 decode steps.  Two at once on two prefill engines
 * (h1's and h3's): prefilled side by side, their two caches share h2's link by max-min, each 20.97 ms. */
static void test_disaggregated_over_fabric(void)
{
    const char *fmt =
        "name: pd\nseed: 1\nrequests: %s\n"
        "topology:\n  name: two-hosts\n  host_types:\n"
        "    - {name: one-a10, sockets: 1, gpus: 1, gpu_memory_gib: 22.49, gpu_link: {bandwidth_gbps: 100, latency_s: 0},\n"
        "       ram: {bandwidth_gbps: 1000, latency_s: 0}, nic: {bandwidth_gbps: 100, latency_s: 0}}\n"
        "  nodes:\n    - {name: tor, kind: leaf}\n    - {name: h1, kind: host, type: one-a10}\n"
        "    - {name: h2, kind: host, type: one-a10}\n    - {name: h3, kind: host, type: one-a10}\n"
        "  links:\n    - {a: h1, b: tor, bandwidth_gbps: 10, latency_s: 0}\n"
        "    - {a: h2, b: tor, bandwidth_gbps: 10, latency_s: 0}\n"
        "    - {a: h3, b: tor, bandwidth_gbps: 10, latency_s: 0}\n"
        "models:\n"
        "  - name: pre\n    llm: {model: %%s/models/llm/llama-3.1-8b.json, step_time: {roofline: %%s/models/llm/a10.json},\n"
        "          engine: {max_num_seqs: 8}, prompt_tokens: {mean: 100, max: 100}, output_tokens: {mean: 5, max: 5},\n"
        "          role: prefill}\n"
        "  - name: dec\n    llm: {model: %%s/models/llm/llama-3.1-8b.json, step_time: {roofline: %%s/models/llm/a10.json},\n"
        "          engine: {max_num_seqs: 8}, prompt_tokens: {mean: 100, max: 100}, output_tokens: {mean: 5, max: 5},\n"
        "          role: decode}\n"
        "tasks:\n  - {name: chat, path: [pre, dec]}\n"
        "deployment:\n  - {model: pre, device: h1/gpu0}\n  - {model: pre, device: h3/gpu0}\n"
        "  - {model: dec, device: h2/gpu0}\n"
        "workloads:\n  - {name: w, kind: trace, target: chat, times_s: [%s]}\n";
    double xfer = 100 * 131072.0 * 8 / 1e10;
    for (int two = 0; two < 2; two++) {
        char *f1 = ss_xasprintf(fmt, two ? "2" : "1", two ? "1.0, 1.0" : "1.0");
        char *f2 = ss_xasprintf(f1, SS_SRC_DIR, SS_SRC_DIR, SS_SRC_DIR, SS_SRC_DIR);
        ss_scenario sc;
        ss_run_result r;
        char *dir = ss_test_tmpdir(), *path = ss_test_write(dir, "s.yaml", f2);
        ss_err err = {0};
        int rc = ss_scenario_load(&sc, path, NULL, NULL, 0, &err);
        if (rc < 0) fprintf(stderr, "\n%s\n", err.msg);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        ss_world *w = ss_world_build(&sc, 0, NULL, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        ss_world_run(w);
        CU_ASSERT_PTR_NULL(ss_world_broken(w));
        memset(&r, 0, sizeof r);
        ss_world_result(w, &r);
        ss_world_free(w);
        ss_llm_roofline roof = a10_llama(&sc);
        double prefill = 0, alone = alone_s(&roof, &prefill);
        if (!two) {
            CU_ASSERT_DOUBLE_EQUAL(extra(&r, "ttft_mean_s"), prefill, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(extra(&r, "kv_transfer_mean_s"), xfer, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_mean_s, alone + xfer, 1e-9);
        } else {
            CU_ASSERT_EQUAL(r.tasks[0].completed, 2);
            CU_ASSERT_DOUBLE_EQUAL(extra(&r, "kv_transfer_mean_s"), 2 * xfer, 1e-9);
        }
        ss_run_result_free(&r);
        ss_scenario_free(&sc);
        free(path);
        ss_test_rmtree(dir);
        free(f1);
        free(f2);
    }
}

/* Cases a review found stalling or aborting, each now run to its end with every request served:
 * priority scheduling where the request needing a block is last in the order (it preempts itself;
 * the pass goes on), conversations without chunked prefill (a turn beyond the token budget starts
 * a new conversation), and a task of two LLM models of different caches (each stage draws its own
 * tokens).  tests/data/llm-review/. */
static void test_review_cases(void)
{
    static const char *const cases[] = {"P", "B", "T"};
    for (int k = 0; k < 3; k++) {
        char *out = NULL;
        int rc = ss_test_sh(&out, "cd %s/tests/data/llm-review && %s run %s.yaml -o - --quiet | python3 -c \"import "
                                  "csv,sys; rs=[r for r in csv.DictReader(sys.stdin) if r['model'] == 'all']; "
                                  "print('ran', len(rs))\"",
                            SS_SRC_DIR, SS_BIN, cases[k]);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "ran 1"));
        if (rc) fprintf(stderr, "\n%s: %s\n", cases[k], out ? out : "");
        free(out);
    }
}

SS_TEST_SUITE("llm-serve", {"the review's stalls and aborts run to their end", test_review_cases}, {"P/D disaggregation: KV caches over the fabric, bytes / bandwidth, shared max-min",
                            test_disaggregated_over_fabric}, {"an engine that fails: what it held re-routed or lost", test_engine_fails}, {"the shipped LLM scenarios on the substrate", test_shipped_scenarios}, {"one request alone on an engine instance: TTFT and E2E by hand", test_one_request_alone},
              {"beyond max_num_seqs a request waits in the model's queue", test_queue_beyond_max_num_seqs},
              {"a trace's token counts, and a row no engine holds refused", test_trace_tokens},
              {"a conversation's turns find the turns before cached", test_conversation_hits},
              {"a serverless LLM cold-starts from zero and is served", test_serverless_cold_start})
