/* test_llm_vllm.c: the LLM engine against a measured vLLM run
 * (../shared/llm/runs/RTX4090/Llama-3.1-8B, vLLM 0.19.0, 300 requests),
 * its steps timed by the per-operator profile of that GPU and model
 * (../shared/llm/perf/RTX4090/meta-llama/Llama-3.1-8B/bf16/tp1): mean and
 * p90 of TTFT, TPOT and E2E each within 10% (issue 42's acceptance), the
 * means within 5% (its aim).
 * Skipped, saying so, where ../shared/llm is absent (a clone elsewhere).
 * docs/llm.md, "Validation", has the table this prints. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "input/vllm_run.h"
#include "llm/llm_perf.h"
#include "llm/llm_replay.h"
#include "test.h"

#define LLM_DIR SS_SRC_DIR "/../shared/llm"
#define RUN_DIR LLM_DIR "/runs/RTX4090/Llama-3.1-8B/vllm"
#define PERF_DIR LLM_DIR "/perf/RTX4090/meta-llama/Llama-3.1-8B/bf16/tp1"
#define MODEL_JSON LLM_DIR "/model/meta-llama/Llama-3.1-8B.json"

/* The model config's num_hidden_layers (0 if unreadable). */
static unsigned model_layers(const char *path)
{
    ss_err err;
    size_t len;
    char *text = ss_read_file(path, SS_INPUT_DOCUMENT, &len, &err);
    cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "num_hidden_layers");
    unsigned n = cJSON_IsNumber(l) ? (unsigned)l->valuedouble : 0;
    cJSON_Delete(j);
    return n;
}

static void test_rtx4090_llama_8b(void)
{
    if (access(RUN_DIR "/requests.jsonl", R_OK) != 0 || access(PERF_DIR "/dense.csv", R_OK) != 0) {
        printf("(skipped: %s absent) ", LLM_DIR);
        return;
    }
    ss_err err = {0};
    ss_vllm_run run;
    CU_ASSERT_EQUAL_FATAL(ss_vllm_run_read(RUN_DIR, &run, &err), 0);
    unsigned layers = model_layers(MODEL_JSON);
    CU_ASSERT_EQUAL_FATAL(layers, 32);
    ss_llm_perf *perf = ss_llm_perf_load(PERF_DIR, layers, &err);
    if (!perf) printf("%s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(perf);
    ss_llm_cfg cfg = ss_llm_cfg_of_run(&run);
    ss_llm_replay rp;
    ss_llm_replay_run(&run, &cfg, ss_llm_perf_step_s, perf, &rp);
    double *m[3], *s[3] = {rp.ttft_s, rp.tpot_s, rp.e2e_s};
    const char *name[3] = {"TTFT", "TPOT", "E2E"};
    for (int k = 0; k < 3; k++) m[k] = calloc(run.n, sizeof *m[k]);
    for (size_t i = 0; i < run.n; i++) m[0][i] = run.reqs[i].ttft_s, m[1][i] = run.reqs[i].tpot_s, m[2][i] = run.reqs[i].e2e_s;
    printf("\n    %d requests; simulated %llu steps, %llu preemptions, %llu prefill and %llu decode tokens, last token "
           "at %.2f s\n",
           (int)run.n, (unsigned long long)rp.stats.steps, (unsigned long long)rp.stats.preemptions,
           (unsigned long long)rp.stats.tokens_prefill, (unsigned long long)rp.stats.tokens_decode, rp.end_s);
    printf("    %-5s %12s %12s %8s   %12s %12s %8s\n", "ms", "mean meas.", "mean sim.", "error", "p90 meas.", "p90 sim.",
           "error");
    for (int k = 0; k < 3; k++) {
        double mm = ss_llm_mean(m[k], run.n), sm = ss_llm_mean(s[k], run.n);
        double mp = ss_llm_quantile(m[k], run.n, 0.9), sp = ss_llm_quantile(s[k], run.n, 0.9);
        printf("    %-5s %12.1f %12.1f %+7.1f%%   %12.1f %12.1f %+7.1f%%\n", name[k], 1e3 * mm, 1e3 * sm,
               100 * (sm / mm - 1), 1e3 * mp, 1e3 * sp, 100 * (sp / mp - 1));
        CU_ASSERT(fabs(sm / mm - 1) <= 0.05); /* the aim for the means (its acceptance: 10%) */
        CU_ASSERT(fabs(sp / mp - 1) <= 0.10);
    }
    for (int k = 0; k < 3; k++) free(m[k]);
    ss_llm_replay_free(&rp);
    ss_llm_perf_free(perf);
    ss_vllm_run_free(&run);
}

/* The step-time model on the profile against the same formula as
 * LLMServingSim's trace generator computes it (worked by an independent
 * Python transcription of serving/core/trace_generator.py, integer
 * nanoseconds per operator there): 1 decode after 500 cached tokens 16.78
 * ms, 38 decodes after 1500 27.54 ms, a fresh 2048-token prefill 193.0 ms,
 * a 2018-token chunk beside 30 decodes after 1200 205.3 ms. */
static void test_step_times(void)
{
    if (access(PERF_DIR "/dense.csv", R_OK) != 0) {
        printf("(skipped: %s absent) ", LLM_DIR);
        return;
    }
    ss_err err = {0};
    ss_llm_perf *perf = ss_llm_perf_load(PERF_DIR, 32, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(perf);
    uint32_t chunk = 2048, kv0 = 0, chunk2 = 2018;
    ss_llm_batch one = {.nseqs = 1, .tokens = 1, .ndecode = 1, .decode_kv_sum = 500};
    ss_llm_batch many = {.nseqs = 38, .tokens = 38, .ndecode = 38, .decode_kv_sum = 38 * 1500};
    ss_llm_batch pre = {.nseqs = 1, .tokens = 2048, .nprefill = 1, .prefill_chunk = &chunk, .prefill_kv = &kv0};
    ss_llm_batch mix = {.nseqs = 31, .tokens = 2048, .ndecode = 30, .nprefill = 1, .decode_kv_sum = 30 * 1200, .prefill_chunk = &chunk2, .prefill_kv = &kv0};
    const ss_llm_batch *b[4] = {&one, &many, &pre, &mix};
    const double want_ms[4] = {16.78, 27.54, 193.0, 205.3};
    for (int k = 0; k < 4; k++) {
        double ms = 1e3 * ss_llm_perf_step_s(perf, b[k]);
        printf("%s%.3f ms (LLMServingSim's %.2f)", k ? ", " : "\n    steps: ", ms, want_ms[k]);
        CU_ASSERT(fabs(ms / want_ms[k] - 1) < 0.005);
    }
    printf("\n");
    ss_llm_perf_free(perf);
}

/* The roofline alone (no profile) on the same run: estimated, its error
 * stated in docs/llm.md (-17% to -18% on the means); held here to where it
 * is, within 20%, so that a change to it shows. */
static void test_roofline_run(void)
{
    if (access(RUN_DIR "/requests.jsonl", R_OK) != 0) {
        printf("(skipped: %s absent) ", LLM_DIR);
        return;
    }
    char *out = NULL, *dir = ss_test_tmpdir();
    int rc = ss_test_sh(&out, "%s validate %s --llm-roofline %s/models/llm/rtx4090.json --llm-model %s -o %s/r.csv",
                        SS_BIN, RUN_DIR, SS_SRC_DIR, MODEL_JSON, dir);
    CU_ASSERT_EQUAL(rc, 1); /* beyond the profile's 10% */
    char *e2e = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&e2e, "grep '^e2e,mean,' %s/r.csv | cut -d, -f5", dir), 0);
    double err = e2e ? atof(e2e) : 1;
    printf("(E2E mean %+.1f%%) ", 100 * err);
    CU_ASSERT(fabs(err) <= 0.20);
    free(e2e);
    free(out);
    ss_test_rmtree(dir);
}

/* The same through the command line: `servesim validate RUN --llm-perf --llm-model -o`. */
static void test_cli(void)
{
    if (access(RUN_DIR "/requests.jsonl", R_OK) != 0) {
        printf("(skipped: %s absent) ", LLM_DIR);
        return;
    }
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out, "%s validate %s --llm-perf %s --llm-model %s -o %s/v.csv", SS_BIN, RUN_DIR, PERF_DIR,
                        MODEL_JSON, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "enforce_eager true profiled, false run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "0 of 8 judged errors beyond their tolerance"));
    char *rows = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&rows, "wc -l < %s/v.csv", dir), 0);
    CU_ASSERT_EQUAL(rows ? atoi(rows) : 0, 16); /* the header, 3 metrics x 4 statistics, 3 per-second series */
    free(rows);
    free(out);
    ss_test_rmtree(dir);
}

/* A scenario whose one LLM model is the measured run's engine (its settings, an RTX 4090's memory), its
 * steps timed by step_time `step` (a YAML flow map). */
static char *rtx4090_scenario(const char *step)
{
    return ss_xasprintf("name: v\nseed: 1\nduration_s: 10\n"
                        "hosts:\n  - name: h\n    devices:\n      - {name: gpu0, kind: gpu, vram_gib: 23.52}\n"
                        "models:\n  - name: llama\n    llm:\n      model: %s\n      step_time: %s\n"
                        "      engine: {max_num_seqs: 256, max_num_batched_tokens: 2048, num_gpu_blocks: 2587}\n"
                        "      prompt_tokens: {mean: 857, max: 3998}\n      output_tokens: {mean: 652, max: 1021}\n"
                        "deployment:\n  - {model: llama, device: gpu0}\n"
                        "workloads:\n  - {name: w, kind: poisson, target: llama, rate_rps: 1}\n",
                        MODEL_JSON, step);
}

/* `servesim validate RUN --llm-scenario S.yaml`: the engine of a scenario's LLM model on an RTX 4090, its
 * settings as the run's (none named) or one apart (named, and simulated); the 95% intervals over the
 * profile's interpolation hold each simulated figure and, here, each measured one. */
static void test_scenario_intervals(void)
{
    if (access(RUN_DIR "/requests.jsonl", R_OK) != 0) {
        printf("(skipped: %s absent) ", LLM_DIR);
        return;
    }
    char *dir = ss_test_tmpdir(), *out = NULL;
    char *step = ss_xasprintf("{profile: %s}", PERF_DIR), *yaml = rtx4090_scenario(step);
    free(step);
    free(ss_test_write(dir, "s.yaml", yaml));
    int rc = ss_test_sh(&out,
                        "%s validate %s --llm-scenario %s/s.yaml -o %s/v.csv && "
                        "awk -F, 'NR > 1 && $8 != \"\" { n++; in_sim += ($8 <= $4 && $4 <= $9); "
                        "in_meas += ($8 <= $3 && $3 <= $9) } END { print \"ci\", n, in_sim, in_meas }' %s/v.csv",
                        SS_BIN, RUN_DIR, dir, dir, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "none: every engine setting as in the run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "0 of 8 judged errors beyond their tolerance"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "ci 12 12 "));
    free(out);
    out = NULL;
    /* one setting apart: named before any number, and the scenario's simulated */
    rc = ss_test_sh(&out, "sed 's/max_num_seqs: 256/max_num_seqs: 128/' %s/s.yaml > %s/t.yaml && "
                          "%s validate %s --llm-scenario %s/t.yaml --intervals 0",
                    dir, dir, SS_BIN, RUN_DIR, dir);
    const char *named = strstr(out ? out : "", "max_num_seqs: 128 simulated, 256 in the run");
    CU_ASSERT_PTR_NOT_NULL(named);
    CU_ASSERT(named && named < strstr(out, "ttft  mean"));
    CU_ASSERT_PTR_NULL(strstr(out ? out : "", "95% interval"));
    free(out);
    free(yaml);
    ss_test_rmtree(dir);
}

/* servesim calibrate --llm-perf: the RTX 4090 profile fitted into coefficients, and a scenario on them
 * replays the measured run with every judged figure within its tolerance (docs/llm.md says +5% to +8%). */
static void test_fitted_step_time(void)
{
    if (access(RUN_DIR "/requests.jsonl", R_OK) != 0) {
        printf("(skipped: %s absent) ", LLM_DIR);
        return;
    }
    char *dir = ss_test_tmpdir(), *out = NULL;
    char *step = ss_xasprintf("{fit: %s/fit.json}", dir), *yaml = rtx4090_scenario(step);
    free(step);
    free(ss_test_write(dir, "s.yaml", yaml));
    int rc = ss_test_sh(&out, "%s calibrate --llm-perf %s --llm-model %s -o %s/fit.json --quiet && "
                              "%s validate %s --llm-scenario %s/s.yaml",
                        SS_BIN, PERF_DIR, MODEL_JSON, dir, SS_BIN, RUN_DIR, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "the fitted step-time model of"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "0 of 8 judged errors beyond their tolerance"));
    free(out);
    free(yaml);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("llm-vllm", {"servesim calibrate --llm-perf, then a scenario on the fit within 10%", test_fitted_step_time}, {"servesim validate --llm-perf: the run, its settings, the CSV", test_cli},
              {"validate --llm-scenario: settings named, 95% intervals over the interpolation", test_scenario_intervals},
              {"the roofline alone on the same run: its error where docs/llm.md states it", test_roofline_run}, {"the step-time model agrees with LLMServingSim's formula", test_step_times}, {"RTX 4090, Llama-3.1-8B: the measured vLLM run within 10%", test_rtx4090_llama_8b})
