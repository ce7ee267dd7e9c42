/* llm_cfg.c: reading a scenario's `llm:` section (llm_cfg.h). */
#include "input/llm_cfg.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "input/section.h"
#include "input/trace.h"

static int read_gpu(ss_llm_scn *s, const ss_node *g, ss_err *err)
{
    char *path = ss_node_readable(g, "roofline GPU file", err);
    if (!path) return -1;
    s->gpu_path = path;
    ss_doc *doc = ss_doc_load_json(path, err);
    if (!doc) return -1;
    int rc = ss_cfg_num(doc->root, "dense_flops_per_s", &s->gpu_flops_per_s, SS_REQ | SS_POS, err);
    if (rc >= 0) rc = ss_cfg_num(doc->root, "hbm_bytes_per_s", &s->gpu_bytes_per_s, SS_REQ | SS_POS, err);
    if (rc >= 0) rc = ss_cfg_num(doc->root, "memory_bytes", &s->gpu_memory_bytes, SS_POS, err);
    ss_doc_free(doc);
    return rc < 0 ? -1 : 0;
}

/* A fitted step time's coefficients (servesim calibrate --llm-perf's file). */
static int read_fit(ss_llm_scn *s, const ss_node *f, ss_err *err)
{
    char *path = ss_node_readable(f, "fitted step time", err);
    if (!path) return -1;
    s->fit_path = path;
    ss_doc *doc = ss_doc_load_json(path, err);
    if (!doc) return -1;
    /* llm/llm_fit.h's coefficients, in its order (the input layer cannot include it: the names again) */
    static const char *const keys[] = {"layers", "token_knee", "dense_s", "dense_per_token_s", "attention_s",
                                       "attention_per_decode_s", "attention_per_decode_kv_s",
                                       "attention_per_prefill_token_s", "attention_per_prefill_work_s", "once_s",
                                       "once_per_token_s", "per_sequence_s", "per_sequence_each_s"};
    int rc = 0;
    for (int k = 0; k < 13 && rc >= 0; k++) {
        rc = ss_cfg_num(doc->root, keys[k], &s->fit[k], SS_REQ, err);
        if (rc >= 0 && (!isfinite(s->fit[k]) || fabs(s->fit[k]) > 1e6 || (k < 2 && s->fit[k] < 0)))
            rc = ss_node_err(ss_map_find(doc->root, keys[k]), err, "%s: expected a finite number%s, got %g", keys[k],
                             k < 2 ? " >= 0" : "", s->fit[k]);
    }
    if (rc >= 0 && s->fit[0] != s->model.layers)
        rc = ss_node_err(ss_map_find(doc->root, "layers"), err, "layers: fitted for %g decoder layers, and the model "
                                                               "has %u", s->fit[0], s->model.layers);
    ss_doc_free(doc);
    return rc < 0 ? -1 : 0;
}

static int read_step_time(ss_llm_scn *s, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"roofline", "profile", "fit", NULL};
    TRY(ss_node_expect(m, SS_NODE_MAP, "step_time", err));
    TRY(ss_cfg_check_keys(m, keys, "step_time", err));
    const ss_node *roof = ss_map_find(m, "roofline"), *prof = ss_map_find(m, "profile"), *fit = ss_map_find(m, "fit");
    if (!!roof + !!prof + !!fit != 1)
        return ss_node_err(m, err, "step_time: expected one of roofline (a GPU file: models/llm/*.json), profile (a "
                                   "per-operator profile folder) or fit (servesim calibrate --llm-perf's file)");
    if (roof) return read_gpu(s, roof, err);
    if (fit) return read_fit(s, fit, err);
    TRY(ss_node_expect(prof, SS_NODE_SCALAR, "profile", err));
    s->profile_dir = ss_node_path(prof, prof->value);
    return 0;
}

/* num_gpu_blocks is required where no GPU memory gives it (required_blocks). */
static int read_engine(ss_llm_scn *s, const ss_node *m, int required_blocks, ss_err *err)
{
    static const char *const keys[] = {"max_num_seqs", "max_num_batched_tokens", "block_size", "num_gpu_blocks",
                                       "long_prefill_token_threshold", "chunked_prefill", "prefix_caching",
                                       "reserve_full_isl", "scheduling_policy", NULL};
    static const char *const policies[] = {"fcfs", "priority", "shortest-prompt", NULL};
    TRY(ss_node_expect(m, SS_NODE_MAP, "engine", err));
    TRY(ss_cfg_check_keys(m, keys, "engine", err));
    s->max_num_seqs = 256, s->max_num_batched_tokens = 2048, s->block_size = 16; /* vLLM's defaults */
    s->chunked_prefill = s->prefix_caching = s->reserve_full_isl = 1;
    TRY(ss_llm_count(m, "max_num_seqs", &s->max_num_seqs, 1, 65536, 0, err));
    TRY(ss_llm_count(m, "max_num_batched_tokens", &s->max_num_batched_tokens, 1, 1u << 24, 0, err));
    TRY(ss_llm_count(m, "block_size", &s->block_size, 1, 1024, 0, err));
    TRY(ss_llm_count(m, "num_gpu_blocks", &s->num_gpu_blocks, 1, 1u << 26, required_blocks, err));
    TRY(ss_llm_count(m, "long_prefill_token_threshold", &s->long_prefill_token_threshold, 0, 1u << 24, 0, err));
    TRY(ss_cfg_bool(m, "chunked_prefill", &s->chunked_prefill, 0, err));
    TRY(ss_cfg_bool(m, "prefix_caching", &s->prefix_caching, 0, err));
    TRY(ss_cfg_bool(m, "reserve_full_isl", &s->reserve_full_isl, 0, err));
    TRY(ss_cfg_enum(m, "scheduling_policy", policies, &s->policy, 0, err));
    return 0;
}

uint32_t ss_llm_dist_draw(gsl_rng *rng, const ss_llm_dist *d)
{
    double x = d->mean;
    if (d->sd > 0) {
        double s2 = log(1 + (d->sd * d->sd) / (d->mean * d->mean));
        x = gsl_ran_lognormal(rng, log(d->mean) - s2 / 2, sqrt(s2));
    }
    x = floor(x + 0.5);
    return x < 1 ? 1 : x > d->max ? d->max : (uint32_t)x;
}

static int read_dist(const ss_node *w, const char *key, ss_llm_dist *d, ss_err *err)
{
    static const char *const keys[] = {"mean", "sd", "max", NULL};
    ss_node *m;
    TRY(ss_cfg_map(w, key, &m, SS_REQ, err));
    TRY(ss_cfg_check_keys(m, keys, key, err));
    TRY(ss_cfg_num(m, "mean", &d->mean, SS_REQ | SS_POS, err));
    d->sd = 0;
    TRY(ss_cfg_num(m, "sd", &d->sd, SS_NONNEG, err));
    TRY(ss_llm_count(m, "max", &d->max, 1, 1000000000, 1, err));
    if (d->mean > d->max) return ss_node_err(ss_map_find(m, "mean"), err, "mean: expected at most max (%u)", d->max);
    return 0;
}

static int read_workload(ss_llm_scn *s, const ss_node *w, ss_err *err)
{
    static const char *const keys[] = {"trace", "time_scale", "rate_rps", "prompt_tokens", "output_tokens", NULL};
    TRY(ss_node_expect(w, SS_NODE_MAP, "workload", err));
    TRY(ss_cfg_check_keys(w, keys, "workload", err));
    const ss_node *tr = ss_map_find(w, "trace");
    if (!!tr == !!ss_map_find(w, "rate_rps"))
        return ss_node_err(w, err, "workload: expected a trace (with each request's token counts) or rate_rps with "
                                   "prompt_tokens and output_tokens");
    if (tr) {
        s->time_scale = 1;
        TRY(ss_cfg_num(w, "time_scale", &s->time_scale, SS_POS, err));
        char *path = ss_node_readable(tr, "trace", err);
        if (!path) return -1;
        s->trace_path = path;
        return ss_trace_load_tokens(path, s->time_scale, &s->trace_s, &s->trace_prompt, &s->trace_output, &s->ntrace,
                                    err);
    }
    TRY(ss_cfg_num(w, "rate_rps", &s->rate_rps, SS_REQ | SS_POS, err));
    TRY(read_dist(w, "prompt_tokens", &s->prompt, err));
    return read_dist(w, "output_tokens", &s->output, err);
}

/* Without chunked prefill a request preempted after its n-th output token recomputes its prompt
 * and those tokens in one step: vLLM then requires max_num_batched_tokens >= max_model_len. */
#define NO_CHUNK_MSG                                                                                             \
    "prompt_tokens.max + output_tokens.max (%u) without chunked prefill: more than the token budget (%u), "     \
    "which a preempted request recomputes in one step (vLLM requires max_num_batched_tokens >= max_model_len)"

/* What no engine of these settings could serve, refused before the run. */
static int check_fit(const ss_llm_scn *s, const ss_node *n, ss_err *err)
{
    double kv_tokens = (double)s->num_gpu_blocks * s->block_size;
    const ss_node *eng = ss_map_find(n, "engine");
    if (s->gpu_memory_bytes > 0) {
        const ss_llm_model *m = &s->model;
        double weights = ss_llm_model_weights_bytes(m, 2) / s->tp_size; /* one GPU's shard */
        double cache = kv_tokens * ss_llm_model_kv_bytes_per_token(m, 2) / s->tp_size;
        if (weights > s->gpu_memory_bytes)
            return ss_node_err(ss_map_find(n, "model"), err,
                               "model: its weights take %.4g GB in bf16%s, more than the GPU's %.4g GB (%s)",
                               weights / 1e9, s->tp_size > 1 ? " on each of its GPUs" : "", s->gpu_memory_bytes / 1e9,
                               s->gpu_path);
        if (weights + cache > s->gpu_memory_bytes)
            return ss_node_err(ss_map_find(eng, "num_gpu_blocks"), err,
                               "num_gpu_blocks: %u blocks of %u tokens take %.4g GB of KV cache, which with the "
                               "weights' %.4g GB is more than the GPU's %.4g GB",
                               s->num_gpu_blocks, s->block_size, cache / 1e9, weights / 1e9, s->gpu_memory_bytes / 1e9);
    }
    const ss_node *w = ss_map_find(n, "workload");
    for (size_t i = 0; i < s->ntrace; i++) {
        double need = (double)s->trace_prompt[i] + s->trace_output[i];
        if (need > kv_tokens || (!s->chunked_prefill && need > s->max_num_batched_tokens))
            return ss_err_at(err, s->trace_path, (int)(i + 2), 1,
                             need > kv_tokens ? "a request of %.0f tokens (prompt and output): the KV cache holds %.0f "
                                                "(engine.num_gpu_blocks x block_size)"
                                              : "a request of %.0f tokens (prompt and output) without chunked prefill: "
                                                "more than the token budget (%.0f, engine.max_num_batched_tokens), which "
                                                "a preempted request recomputes in one step",
                             need, need > kv_tokens ? kv_tokens : (double)s->max_num_batched_tokens);
    }
    if (!s->trace_path && (double)s->prompt.max + s->output.max > kv_tokens)
        return ss_node_err(ss_map_find(w, "prompt_tokens"), err,
                           "prompt_tokens.max + output_tokens.max (%u): a request that long does not fit the KV "
                           "cache's %.0f tokens (engine.num_gpu_blocks x block_size)",
                           s->prompt.max + s->output.max, kv_tokens);
    if (!s->trace_path && !s->chunked_prefill && (double)s->prompt.max + s->output.max > s->max_num_batched_tokens)
        return ss_node_err(ss_map_find(w, "prompt_tokens"), err, NO_CHUNK_MSG, s->prompt.max + s->output.max,
                           s->max_num_batched_tokens);
    return 0;
}

/* `model` (its config) and `step_time` of map n, for an `llm:` section and a model's `llm:` key. */
static int read_model_and_step(ss_llm_scn *s, const ss_node *n, ss_err *err)
{
    const ss_node *mp = ss_map_find(n, "model");
    if (!mp) return ss_node_err(n, err, "llm: missing key 'model' (a Hugging Face config.json: models/llm/*.json)");
    s->model_path = ss_node_readable(mp, "model config", err);
    if (!s->model_path) return -1;
    TRY(ss_llm_model_read(s->model_path, &s->model, err));
    ss_node *st;
    TRY(ss_cfg_map(n, "step_time", &st, SS_REQ, err));
    TRY(read_step_time(s, st, err));
    if (s->gpu_path && s->model.moe)
        return ss_node_err(mp, err, "model: a mixture of experts (num_experts): the roofline models dense decoders "
                                    "only; give step_time.profile");
    return 0;
}

int ss_llm_scn_read(ss_llm_scn **out, const ss_node *n, ss_err *err)
{
    static const char *const keys[] = {"model", "step_time", "instances", "router", "engine", "workload",
                                       "disaggregation", "tensor_parallel", NULL};
    static const char *const routers[] = {"round-robin", "least-tokens", NULL};
    TRY(ss_node_expect(n, SS_NODE_MAP, "llm", err));
    TRY(ss_cfg_check_keys(n, keys, "llm", err));
    ss_llm_scn *s = ss_xcalloc(1, sizeof *s);
    *out = s;
    TRY(read_model_and_step(s, n, err));
    ss_node *eng, *wl;
    s->instances = 1;
    TRY(ss_llm_count(n, "instances", &s->instances, 1, 100000, 0, err));
    TRY(ss_cfg_enum(n, "router", routers, &s->router, 0, err));
    TRY(ss_cfg_map(n, "engine", &eng, SS_REQ, err));
    TRY(read_engine(s, eng, 1, err));
    ss_node *dg = NULL;
    TRY(ss_cfg_map(n, "disaggregation", &dg, 0, err));
    if (dg) {
        static const char *const dkeys[] = {"prefill_instances", "nic_gbps", "latency_s", NULL};
        TRY(ss_cfg_check_keys(dg, dkeys, "disaggregation", err));
        TRY(ss_llm_count(dg, "prefill_instances", &s->prefill_instances, 1, 100000, 1, err));
        if (s->prefill_instances >= s->instances)
            return ss_node_err(ss_map_find(dg, "prefill_instances"), err,
                               "prefill_instances: expected fewer than the instances (%u): the rest decode",
                               s->instances);
        double gbps = 0;
        TRY(ss_cfg_num(dg, "nic_gbps", &gbps, SS_REQ | SS_POS, err));
        s->nic_bps = gbps * 1e9;
        TRY(ss_cfg_num(dg, "latency_s", &s->kv_latency_s, SS_NONNEG, err));
    }
    s->tp_size = 1;
    ss_node *tp = NULL;
    TRY(ss_cfg_map(n, "tensor_parallel", &tp, 0, err));
    if (tp) {
        static const char *const tkeys[] = {"size", "link_gbps", "latency_s", NULL};
        TRY(ss_cfg_check_keys(tp, tkeys, "tensor_parallel", err));
        TRY(ss_llm_count(tp, "size", &s->tp_size, 2, 64, 1, err));
        double gbps = 0;
        TRY(ss_cfg_num(tp, "link_gbps", &gbps, SS_REQ | SS_POS, err));
        s->tp_link_bps = gbps * 1e9;
        TRY(ss_cfg_num(tp, "latency_s", &s->tp_latency_s, SS_NONNEG, err));
        const ss_llm_model *m = &s->model;
        if (m->heads % s->tp_size || m->kv_heads % s->tp_size || m->intermediate % s->tp_size)
            return ss_node_err(ss_map_find(tp, "size"), err,
                               "size: %u GPUs do not divide the model's %u attention heads, %u KV heads and MLP of "
                               "%u evenly", s->tp_size, m->heads, m->kv_heads, m->intermediate);
    }
    TRY(ss_cfg_map(n, "workload", &wl, SS_REQ, err));
    TRY(read_workload(s, wl, err));
    return check_fit(s, n, err);
}

int ss_llm_model_key_read(ss_llm_scn **out, const ss_node *n, ss_err *err)
{
    static const char *const keys[] = {"model",         "step_time",     "engine",       "prompt_tokens",
                                       "output_tokens", "gpu_memory_utilization", "runtime_reserve_bytes",
                                       "conversation", "slo", "role", NULL};
    static const char *const roles[] = {"whole", "prefill", "decode", NULL};
    TRY(ss_node_expect(n, SS_NODE_MAP, "llm", err));
    TRY(ss_cfg_check_keys(n, keys, "a model's llm", err));
    ss_llm_scn *s = ss_xcalloc(1, sizeof *s);
    *out = s;
    TRY(read_model_and_step(s, n, err));
    ss_node *eng;
    TRY(ss_cfg_map(n, "engine", &eng, SS_REQ, err));
    TRY(read_engine(s, eng, 0, err));
    TRY(read_dist(n, "prompt_tokens", &s->prompt, err));
    TRY(read_dist(n, "output_tokens", &s->output, err));
    if (!s->chunked_prefill && (double)s->prompt.max + s->output.max > s->max_num_batched_tokens)
        return ss_node_err(ss_map_find(n, "prompt_tokens"), err, NO_CHUNK_MSG, s->prompt.max + s->output.max,
                           s->max_num_batched_tokens);
    s->gpu_memory_utilization = 0.9; /* vLLM's default */
    TRY(ss_cfg_num(n, "gpu_memory_utilization", &s->gpu_memory_utilization, SS_POS, err));
    if (s->gpu_memory_utilization > 1)
        return ss_node_err(ss_map_find(n, "gpu_memory_utilization"), err,
                           "gpu_memory_utilization: expected a share of the GPU's memory in (0, 1], got %g",
                           s->gpu_memory_utilization);
    s->runtime_reserve_bytes = SS_LLM_RUNTIME_RESERVE_BYTES;
    TRY(ss_cfg_num(n, "runtime_reserve_bytes", &s->runtime_reserve_bytes, SS_NONNEG, err));
    s->weights_bytes = ss_llm_model_weights_bytes(&s->model, 2);
    s->instances = 1;
    s->tp_size = 1;
    TRY(ss_cfg_enum(n, "role", roles, &s->role, 0, err));
    ss_node *slo = NULL;
    TRY(ss_cfg_map(n, "slo", &slo, 0, err));
    if (slo) {
        static const char *const skeys[] = {"ttft_s", "tpot_s", NULL};
        TRY(ss_cfg_check_keys(slo, skeys, "slo", err));
        TRY(ss_cfg_num(slo, "ttft_s", &s->slo_ttft_s, SS_REQ | SS_POS, err));
        TRY(ss_cfg_num(slo, "tpot_s", &s->slo_tpot_s, SS_REQ | SS_POS, err));
    }
    ss_node *cv = NULL;
    TRY(ss_cfg_map(n, "conversation", &cv, 0, err));
    if (cv) {
        static const char *const ckeys[] = {"turns", "followup_tokens", NULL};
        TRY(ss_cfg_check_keys(cv, ckeys, "conversation", err));
        TRY(ss_llm_count(cv, "turns", &s->conv_turns, 1, 100000, 1, err));
        if (s->role != 0)
            return ss_node_err(cv, err, "conversation: not with a role (prefill/decode disaggregation): a "
                                        "conversation's turns are served whole here");
        TRY(read_dist(cv, "followup_tokens", &s->followup, err));
    }
    return 0;
}

int ss_llm_deploy_fit(const ss_llm_scn *s, double vram_bytes, uint32_t *blocks, double *runtime_bytes, char *why,
                      size_t nwhy)
{
    double block_bytes = s->block_size * ss_llm_model_kv_bytes_per_token(&s->model, 2);
    double share = vram_bytes * s->gpu_memory_utilization;
    uint32_t b = s->num_gpu_blocks;
    if (vram_bytes > 0 && s->weights_bytes > share) {
        snprintf(why, nwhy, "its weights take %.4g GB in bf16, more than %.4g of the GPU's %.4g GB "
                            "(gpu_memory_utilization)", s->weights_bytes / 1e9, s->gpu_memory_utilization,
                 vram_bytes / 1e9);
        return -1;
    }
    if (b == 0) {
        if (vram_bytes <= 0) {
            snprintf(why, nwhy, "its GPU's memory is not given: give the model's llm.engine.num_gpu_blocks");
            return -1;
        }
        double room = share - s->weights_bytes - s->runtime_reserve_bytes, nb = floor(room / block_bytes) - 1;
        b = nb > 0 ? (uint32_t)fmin(nb, 1u << 26) : 0; /* less vLLM's null block, never allocated */
    } else if (vram_bytes > 0 && s->weights_bytes + s->runtime_reserve_bytes + b * block_bytes > share) {
        snprintf(why, nwhy, "engine.num_gpu_blocks: %u blocks take %.4g GB, which with the weights' %.4g GB and the "
                            "reserve's %.4g GB is more than %.4g of the GPU's %.4g GB", b, b * block_bytes / 1e9,
                 s->weights_bytes / 1e9, s->runtime_reserve_bytes / 1e9, s->gpu_memory_utilization, vram_bytes / 1e9);
        return -1;
    }
    double kv_tokens = (double)b * s->block_size;
    if ((double)s->prompt.max + s->output.max > kv_tokens) {
        snprintf(why, nwhy, "prompt_tokens.max + output_tokens.max (%u): a request that long does not fit the KV "
                            "cache's %.0f tokens (%u blocks of %u)", s->prompt.max + s->output.max, kv_tokens, b,
                 s->block_size);
        return -1;
    }
    *blocks = b;
    *runtime_bytes = s->runtime_reserve_bytes + b * block_bytes;
    return 0;
}

void ss_llm_scn_free(ss_llm_scn *s)
{
    if (!s) return;
    free(s->model_path);
    free(s->gpu_path);
    free(s->profile_dir);
    free(s->fit_path);
    free(s->trace_path);
    free(s->trace_s);
    free(s->trace_prompt);
    free(s->trace_output);
    free(s);
}
