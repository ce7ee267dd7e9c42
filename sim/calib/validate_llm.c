/* validate_llm.c: `servesim validate RUN_DIR --llm-perf PERF_DIR --llm-model
 * CONFIG.json`: a measured vLLM run (requests.jsonl and meta.json:
 * input/vllm_run.h) replayed on the simulated LLM engine (llm/llm_replay.h)
 * of the run's own settings, its steps timed by the per-operator profile in
 * PERF_DIR (llm/llm_perf.h) for a model of CONFIG.json's num_hidden_layers,
 * or with --llm-roofline GPU.json by the roofline of CONFIG.json's shape on
 * that GPU's datasheet figures (llm/llm_roofline.h, estimated).
 *
 * Before any number it names every setting in which the profile (PERF_DIR's
 * parent's meta.yaml, LLMServingSim's profiler) and the run differ, and
 * what the simulator does about it.  Then TTFT, TPOT and E2E, mean, p50, p90
 * and p99, measured and simulated; the means and p90s are judged at 10%
 * (issue 42's acceptance).  Exit 0 all within, 1 one beyond, 2 bad input
 * (nothing written).
 *
 * `servesim validate RUN_DIR --llm-scenario S.yaml` does the same for the
 * engine a scenario describes (its `llm:` section, or its first model with
 * `llm:` on its first GPU): its model, step-time model and settings, each
 * setting that differs from the run's named first.
 *
 * With a per-operator profile, each simulated figure carries a 95% interval
 * over the profile's interpolation: `reps` replays, each with every class
 * of the profile's times (dense, per-sequence, attention) multiplied by
 * 1 + a residual drawn from that class's leave-one-out residuals
 * (ss_llm_perf_loo), the interval their 2.5th to 97.5th percentiles.  The
 * replay's inputs are the run's own arrivals and lengths, so seeds add
 * nothing to it (docs/llm.md, "Intervals"). */
#include "calib/validate_cmd.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/cfg.h"
#include "core/util.h"
#include "input/llm_cfg.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "input/vllm_run.h"
#include "input/llm_model.h"
#include "llm/llm_engine.h"
#include "llm/llm_fit.h"
#include "llm/llm_perf.h"
#include "llm/llm_replay.h"
#include "llm/llm_roofline.h"

#define LLM_TOL 0.10
#define SERIES_TOL 0.15 /* per-second running and waiting: sum |sim - meas| / sum meas (issue 42) */

/* The profiler's settings (PERF_DIR/../meta.yaml), where there. */
typedef struct prof_meta {
    int have;
    char vllm[64];
    int enforce_eager, prefix_caching, skew_fit;
    unsigned long long block_size, mnbt, mns;
} prof_meta;

static void read_prof_meta(const char *perf_dir, prof_meta *m)
{
    memset(m, 0, sizeof *m);
    char *up = ss_path_join(perf_dir, "../meta.yaml");
    ss_err err = {0};
    ss_doc *doc = ss_doc_load_yaml(up, &err);
    free(up);
    if (!doc) return;
    const char *v = NULL;
    ss_node *eng = NULL, *skew = NULL;
    ss_err ignore = {0};
    (void)ss_cfg_str(doc->root, "vllm_version", &v, 0, &ignore);
    snprintf(m->vllm, sizeof m->vllm, "%s", v ? v : "?");
    (void)ss_cfg_map(doc->root, "engine_effective", &eng, 0, &ignore);
    (void)ss_cfg_map(doc->root, "skew_fit", &skew, 0, &ignore);
    if (eng) {
        (void)ss_cfg_bool(eng, "enforce_eager", &m->enforce_eager, 0, &ignore);
        (void)ss_cfg_bool(eng, "enable_prefix_caching", &m->prefix_caching, 0, &ignore);
        (void)ss_cfg_u64(eng, "block_size", &m->block_size, 0, &ignore);
        (void)ss_cfg_u64(eng, "max_num_batched_tokens", &m->mnbt, 0, &ignore);
        (void)ss_cfg_u64(eng, "max_num_seqs", &m->mns, 0, &ignore);
    }
    if (skew) (void)ss_cfg_bool(skew, "enabled", &m->skew_fit, 0, &ignore);
    m->have = 1;
    ss_doc_free(doc);
}

/* Every difference between the profile's engine and the run's, with what the simulator does. */
static void settings(const prof_meta *m, const ss_vllm_run *run)
{
    printf("validate: settings of the profile (its meta.yaml) and of the run (meta.json):\n");
    if (!m->have) {
        printf("  the profile has no meta.yaml beside it: its engine cannot be compared\n");
    } else {
        if (strcmp(m->vllm, run->vllm_version) != 0)
            printf("  vLLM %s profiled, %s run\n", m->vllm, run->vllm_version);
        if (m->enforce_eager != run->enforce_eager)
            printf("  enforce_eager %s profiled, %s run: the profile's kernels ran %s; CUDA graphs and kernel fusion "
                   "are not in the step times\n",
                   m->enforce_eager ? "true" : "false", run->enforce_eager ? "true" : "false",
                   m->enforce_eager ? "eagerly" : "in CUDA graphs");
        if (m->block_size && m->block_size != run->block_size)
            printf("  block_size %llu profiled, %u run: the run's is simulated\n", m->block_size, run->block_size);
        if (m->mnbt && m->mnbt != run->max_num_batched_tokens)
            printf("  max_num_batched_tokens %llu profiled, %u run: the run's is simulated\n", m->mnbt,
                   run->max_num_batched_tokens);
        if (m->mns && m->mns != run->max_num_seqs)
            printf("  max_num_seqs %llu profiled, %u run: the run's is simulated\n", m->mns, run->max_num_seqs);
        if (m->skew_fit) printf("  the profile has a skew fit: not applied (uneven contexts use the mean)\n");
    }
    if (run->enable_prefix_caching)
        printf("  prefix caching on in the run: simulated for a request's own blocks (a resumed request finds its prefix); "
               "no prompt is shared between requests\n");
    if (run->async_scheduling)
        printf("  asynchronous scheduling in the run: simulated as no time between steps (its one-step lag in "
               "freeing blocks is not)\n");
    printf("  simulated: max_num_seqs %u, max_num_batched_tokens %u, %u blocks of %u tokens (the null block left "
           "out), chunked prefill %s, reserve_full_isl %s\n",
           run->max_num_seqs, run->max_num_batched_tokens, run->num_gpu_blocks - 1, run->block_size,
           run->enable_chunked_prefill ? "on" : "off", run->reserve_full_isl ? "on" : "off");
}

/* Every engine setting in which the scenario (what is simulated) and the run differ. */
static void scenario_settings(const char *path, const ss_llm_cfg *c, const ss_vllm_run *run)
{
    printf("validate: settings of the scenario (%s, simulated) and of the run (meta.json):\n", path);
    size_t n = 0;
    const struct {
        const char *name;
        unsigned long long sim, meas;
    } u[] = {{"max_num_seqs", c->max_num_seqs, run->max_num_seqs},
             {"max_num_batched_tokens", c->max_num_batched_tokens, run->max_num_batched_tokens},
             {"block_size", c->block_size, run->block_size},
             {"num_gpu_blocks (the null block left out)", c->num_gpu_blocks, run->num_gpu_blocks - 1ull},
             {"long_prefill_token_threshold", c->long_prefill_token_threshold, run->long_prefill_token_threshold},
             {"chunked_prefill", (unsigned long long)c->chunked_prefill, (unsigned long long)run->enable_chunked_prefill},
             {"prefix_caching", (unsigned long long)c->prefix_caching, (unsigned long long)run->enable_prefix_caching},
             {"reserve_full_isl", (unsigned long long)c->reserve_full_isl, (unsigned long long)run->reserve_full_isl},
             /* vLLM's scheduling_policy, fcfs unless the run says otherwise (meta.json does not) */
             {"scheduling_policy (0 fcfs, 1 priority, 2 shortest-prompt)", (unsigned long long)c->policy, 0}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (u[i].sim != u[i].meas) printf("  %s: %llu simulated, %llu in the run\n", u[i].name, u[i].sim, u[i].meas), n++;
    if (!n) printf("  none: every engine setting as in the run\n");
}

/* The engine a scenario describes: its `llm:` section, or its first model with `llm:` (on its first
 * deployment entry's GPU); NULL with err if it has none. */
static const ss_llm_scn *scenario_engine(const ss_scenario *sc, ss_llm_cfg *cfg, ss_err *err)
{
    const ss_llm_scn *s = sc->llm;
    uint32_t blocks = s ? s->num_gpu_blocks : 0;
    for (size_t m = 0; !s && m < sc->nmodels; m++)
        if (sc->models[m].llm) {
            s = sc->models[m].llm;
            for (size_t d = 0; d < sc->ndeploys && !blocks; d++)
                if (sc->deploys[d].model == m) blocks = sc->deploys[d].kv_blocks;
        }
    if (!s) {
        ss_err_at(err, sc->path, 1, 1, "%s", "no LLM engine here: expected an llm: section or a model with llm: "
                                             "(docs/llm.md)");
        return NULL;
    }
    if (s->tp_size > 1) {
        ss_err_at(err, sc->path, 1, 1, "its engine is on %u GPUs (tensor_parallel): a measured run is replayed on "
                                       "one engine of one GPU here", s->tp_size);
        return NULL;
    }
    if (!blocks) {
        ss_err_at(err, sc->path, 1, 1, "%s", "its LLM model is deployed nowhere: the KV cache's size comes from its GPU");
        return NULL;
    }
    *cfg = ss_llm_cfg_of_scn(s, blocks);
    return s;
}

/* The figures of one replay: per metric (TTFT, TPOT, E2E) the mean, p50, p90, p99. */
static void figures(const ss_llm_replay *rp, size_t n, double v[3][4])
{
    const double *sim[3] = {rp->ttft_s, rp->tpot_s, rp->e2e_s};
    static const double q[4] = {NAN, 0.5, 0.9, 0.99};
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 4; s++) v[k][s] = s == 0 ? ss_llm_mean(sim[k], n) : ss_llm_quantile(sim[k], n, q[s]);
}

/* The 95% intervals of the figures over the profile's interpolation (the file's head comment) into lo, hi. */
static void intervals(const ss_vllm_run *run, const ss_llm_cfg *cfg, ss_llm_perf *perf, uint32_t reps,
                      double lo[3][4], double hi[3][4])
{
    double *res[SS_LLM_PERF_CLASSES];
    size_t nres[SS_LLM_PERF_CLASSES];
    for (int c = 0; c < SS_LLM_PERF_CLASSES; c++) nres[c] = ss_llm_perf_loo(perf, c, &res[c]);
    double *all = ss_xcalloc((size_t)reps * 12, sizeof *all);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(rng, 1);
    for (uint32_t r = 0; r < reps; r++) {
        double k[SS_LLM_PERF_CLASSES];
        for (int c = 0; c < SS_LLM_PERF_CLASSES; c++)
            k[c] = nres[c] ? fmax(1 + res[c][gsl_rng_uniform_int(rng, nres[c])], 0.01) : 1;
        ss_llm_perf_scale(perf, k);
        ss_llm_replay rp = {0};
        ss_llm_replay_run(run, cfg, ss_llm_perf_step_s, perf, &rp);
        double v[3][4];
        figures(&rp, run->n, v);
        for (int i = 0; i < 12; i++) all[(size_t)i * reps + r] = v[i / 4][i % 4];
        ss_llm_replay_free(&rp);
    }
    const double one[SS_LLM_PERF_CLASSES] = {1, 1, 1};
    ss_llm_perf_scale(perf, one);
    for (int i = 0; i < 12; i++) {
        lo[i / 4][i % 4] = ss_llm_quantile(all + (size_t)i * reps, reps, 0.025);
        hi[i / 4][i % 4] = ss_llm_quantile(all + (size_t)i * reps, reps, 0.975);
    }
    gsl_rng_free(rng);
    free(all);
    for (int c = 0; c < SS_LLM_PERF_CLASSES; c++) free(res[c]);
}

int ss_val_llm(const char *run_dir, const char *perf_dir, const char *gpu_path, const char *model_path,
               const char *scenario, uint32_t reps, const char *output, int quiet)
{
    ss_err err = {0};
    ss_vllm_run run = {0};
    ss_llm_perf *perf = NULL;
    ss_afile f = {0};
    ss_llm_replay rp = {0};
    int rc = 2, open = 0, have_run = 0;
    ss_llm_model model;
    ss_llm_roofline roof = {0};
    ss_scenario sc;
    int have_sc = 0;
    ss_llm_fit fit = {0};
    const char *fit_path = NULL;
    ss_llm_cfg cfg;
    if (ss_vllm_run_read(run_dir, &run, &err) < 0) goto out;
    have_run = 1;
    if (scenario) { /* the scenario's engine: its model, step-time model and settings */
        if (ss_scenario_load(&sc, scenario, NULL, NULL, 0, &err) < 0) goto out;
        have_sc = 1;
        const ss_llm_scn *spec = scenario_engine(&sc, &cfg, &err);
        if (!spec) goto out;
        perf_dir = spec->profile_dir, gpu_path = spec->gpu_path, model_path = spec->model_path;
        model = spec->model;
        if (spec->fit_path) fit = ss_llm_fit_of(spec->fit), fit_path = spec->fit_path;
        /* the GPU file the scenario read, for a roofline */
        roof.gpu = (ss_llm_gpu){.dense_flops_per_s = spec->gpu_flops_per_s, .hbm_bytes_per_s = spec->gpu_bytes_per_s};
    } else {
        if (ss_llm_model_read(model_path, &model, &err) < 0) goto out;
        cfg = ss_llm_cfg_of_run(&run);
    }
    if (perf_dir && !(perf = ss_llm_perf_load(perf_dir, model.layers, &err))) goto out;
    if (!perf_dir && !fit_path) {
        if (model.moe) {
            ss_err_at(&err, model_path, 1, 1, "%s", "a mixture of experts (num_experts): the roofline models dense "
                                                    "decoders only; use a per-operator profile (--llm-perf)");
            goto out;
        }
        if (!scenario && ss_llm_gpu_read(gpu_path, &roof.gpu, &err) < 0) goto out;
        roof.model = model;
        roof.dtype_bytes = 2; /* bf16 [ASSUMPTION: the runs are bf16, as the shared data's] */
    }
    for (size_t i = 0; i < run.n; i++) { /* a request the cache cannot hold would never be served */
        uint64_t tokens = (uint64_t)run.reqs[i].prompt_tokens + run.reqs[i].output_tokens;
        if (!cfg.chunked_prefill && run.reqs[i].prompt_tokens > cfg.max_num_batched_tokens) {
            char *rq = ss_path_join(run_dir, "requests.jsonl");
            ss_err_at(&err, rq, run.reqs[i].line, 1,
                      "a prompt of %u tokens without chunked prefill: more than the token budget (%s's "
                      "max_num_batched_tokens, %u): no engine of these settings serves it",
                      run.reqs[i].prompt_tokens, scenario ? "the scenario" : "meta.json", cfg.max_num_batched_tokens);
            free(rq);
            goto out;
        }
        if ((tokens + cfg.block_size - 1) / cfg.block_size > cfg.num_gpu_blocks) {
            char *rq = ss_path_join(run_dir, "requests.jsonl");
            ss_err_at(&err, rq, run.reqs[i].line, 1,
                      "a request of %llu tokens (prompt and output) needs more than the KV cache's %u blocks of %u "
                      "tokens (%s): no engine of these settings serves it",
                      (unsigned long long)tokens, cfg.num_gpu_blocks, cfg.block_size,
                      scenario ? "the scenario's engine" : "meta.json's num_gpu_blocks less the null block");
            free(rq);
            goto out;
        }
    }
    if (output) {
        char *rq = ss_path_join(run_dir, "requests.jsonl"), *mt = ss_path_join(run_dir, "meta.json");
        char *dn = perf_dir ? ss_path_join(perf_dir, "dense.csv") : ss_xstrdup(gpu_path),
             *ps = perf_dir ? ss_path_join(perf_dir, "per_sequence.csv") : ss_xstrdup(gpu_path),
             *at = perf_dir ? ss_path_join(perf_dir, "attention.csv") : ss_xstrdup(gpu_path);
        const char *ins[] = {rq, mt, dn, ps, at, model_path, scenario ? scenario : model_path};
        static const char *const what[] = {"requests", "run metadata", "profile", "profile", "profile", "model config",
                                           "scenario"};
        static const char *const out_what[] = {"validation CSV"};
        int bad = ss_check_outputs(ins, what, 7, &output, out_what, 1, &err) < 0 || ss_afile_open(&f, output, &err) < 0;
        free(rq), free(mt), free(dn), free(ps), free(at);
        if (bad) goto out;
        open = 1;
        fputs("metric,statistic,measured_s,simulated_s,rel_error,tolerance,within,interval_lo_s,interval_hi_s\n", f.fp);
    }
    prof_meta pm;
    if (perf_dir) read_prof_meta(perf_dir, &pm);
    if (!quiet && scenario) scenario_settings(scenario, &cfg, &run);
    if (!quiet && perf_dir && !scenario) settings(&pm, &run);
    if (!quiet && fit_path)
        printf("validate: the fitted step-time model of %s (servesim calibrate --llm-perf)\n", fit_path);
    if (!quiet && !perf_dir && !fit_path)
        printf("validate: the roofline step-time model (ESTIMATED): %s's datasheet, %.4g TFLOP/s and %.4g GB/s, for %u "
               "layers of hidden size %u\n",
               gpu_path, roof.gpu.dense_flops_per_s / 1e12, roof.gpu.hbm_bytes_per_s / 1e9, model.layers, model.hidden);
    if (perf) ss_llm_replay_run(&run, &cfg, ss_llm_perf_step_s, perf, &rp);
    else if (fit_path) ss_llm_replay_run(&run, &cfg, ss_llm_fit_step_s, &fit, &rp);
    else ss_llm_replay_run(&run, &cfg, ss_llm_roofline_step_s, &roof, &rp);
    double *meas[3];
    for (int k = 0; k < 3; k++) meas[k] = ss_xcalloc(run.n, sizeof *meas[k]);
    for (size_t i = 0; i < run.n; i++)
        meas[0][i] = run.reqs[i].ttft_s, meas[1][i] = run.reqs[i].tpot_s, meas[2][i] = run.reqs[i].e2e_s;
    static const char *const metric[3] = {"ttft", "tpot", "e2e"};
    static const char *const stat[4] = {"mean", "p50", "p90", "p99"};
    static const double q[4] = {NAN, 0.5, 0.9, 0.99};
    double simv[3][4], lo[3][4], hi[3][4];
    figures(&rp, run.n, simv);
    int have_ci = perf && reps >= 2;
    if (have_ci) intervals(&run, &cfg, perf, reps, lo, hi);
    size_t bad = 0, judged = 0;
    if (!quiet)
        printf("validate: %zu requests of %s replayed: %llu steps, %llu preemptions, %llu tokens found in the prefix "
               "cache, last token at %.2f s\n"
               "%-5s %-5s %12s %12s %8s%s\n",
               run.n, run_dir, (unsigned long long)rp.stats.steps, (unsigned long long)rp.stats.preemptions,
               (unsigned long long)rp.stats.tokens_cached, rp.end_s,
               "ms", "", "measured", "simulated", "error", have_ci ? "   95% interval (interpolation)" : "");
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 4; s++) {
            double mv = s == 0 ? ss_llm_mean(meas[k], run.n) : ss_llm_quantile(meas[k], run.n, q[s]);
            double sv = simv[k][s];
            double e = (sv - mv) / mv;
            int judge = s == 0 || s == 2, ok = !judge || fabs(e) <= LLM_TOL;
            judged += judge;
            bad += !ok;
            char ci[64] = "";
            if (have_ci) snprintf(ci, sizeof ci, "   [%.1f, %.1f]", 1e3 * lo[k][s], 1e3 * hi[k][s]);
            if (!quiet || !ok)
                printf("%-5s %-5s %12.1f %12.1f %+7.1f%%%s%s\n", metric[k], stat[s], 1e3 * mv, 1e3 * sv, 100 * e, ci,
                       !judge ? "" : ok ? "" : "  beyond");
            if (open) {
                fprintf(f.fp, "%s,%s,%.9g,%.9g,%.6g,%s,%s,", metric[k], stat[s], mv, sv, e, judge ? "0.1" : "",
                        judge ? (ok ? "yes" : "no") : "");
                if (have_ci) fprintf(f.fp, "%.9g,%.9g", lo[k][s], hi[k][s]);
                else fputc(',', f.fp);
                fputc('\n', f.fp);
            }
        }
    for (int k = 0; k < 3; k++) free(meas[k]);
    size_t unserved = 0;
    for (size_t i = 0; i < run.n; i++) unserved += isnan(rp.e2e_s[i]);
    if (unserved) { /* the checks above leave none: a broken engine, judged as such */
        printf("validate: %zu of %zu requests never finished in the simulation\n", unserved, run.n);
        bad += unserved;
    }
    /* the per-second series: mean measured and simulated, and the average error: sum |sim - meas| over sum meas */
    static const char *const series[3] = {"running", "waiting", "kv_cache"};
    const double *ms[3] = {run.tick_running, run.tick_waiting, run.tick_kv}, *ss[3] = {rp.tick_running, rp.tick_waiting,
                                                                                       rp.tick_kv};
    for (int k = 0; k < 3 && run.nticks; k++) {
        double sm = 0, sd = 0, ssum = 0;
        for (size_t i = 0; i < run.nticks; i++) sm += ms[k][i], ssum += ss[k][i], sd += fabs(ss[k][i] - ms[k][i]);
        double e = sm > 0 ? sd / sm : 0;
        int judge = k < 2, ok = !judge || e <= SERIES_TOL;
        judged += judge;
        bad += !ok;
        if (!quiet || !ok)
            printf("%-8s per second: mean measured %.3g, simulated %.3g, average error %.1f%% over %zu ticks%s\n",
                   series[k], sm / run.nticks, ssum / run.nticks, 100 * e, run.nticks, !judge ? "" : ok ? "" : "  beyond");
        if (open)
            fprintf(f.fp, "%s,per_second_mean,%.9g,%.9g,%.6g,%s,%s,,\n", series[k], sm / run.nticks, ssum / run.nticks, e,
                    judge ? "0.15" : "", judge ? (ok ? "yes" : "no") : "");
    }
    printf("validate: %zu of %zu judged errors beyond their tolerance (TTFT, TPOT and E2E: mean and p90 at 10%%; "
           "running and waiting per second at 15%%)%s%s\n",
           bad, judged, output ? " -> " : "", output ? output : "");
    rc = bad ? 1 : 0;
    if (open) {
        open = 0;
        if (ss_afile_commit(&f, &err) < 0) rc = 2;
    }
out:
    if (open) ss_afile_abort(&f);
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    ss_llm_replay_free(&rp);
    ss_llm_perf_free(perf);
    if (have_run) ss_vllm_run_free(&run);
    if (have_sc) ss_scenario_free(&sc);
    return rc;
}
