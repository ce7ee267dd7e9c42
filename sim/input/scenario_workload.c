/* scenario_workload.c: the `workloads:` part of the scenario schema - open
 * loop (poisson, deterministic, normal, gamma, interarrival), steps of
 * rates, closed-loop clients and arrival traces - read into
 * ss_workload_cfg with positioned errors.  The rest of the schema is
 * scenario.c; docs/scenarios.md documents both for users. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/scenario.h"
#include "input/scenario_workload.h"
#include "input/llm_cfg.h"
#include "input/section.h"
#include "input/trace.h"
#include "input/trace_synth.h"

/* ---- workloads ---------------------------------------------------------- */

static const char *const wl_kinds[] = {"poisson", "deterministic", "normal", "gamma", "interarrival",
                                       "steps", "closed", "trace", "synthetic", "azure_functions", NULL};

/* `synthetic`: a shape (trace_synth.c) - presets after Flashpoint's traces
 * (seed flashpoint.md §3.5), every figure overridable. */
static int read_synthetic(ss_scenario *sc, ss_workload_cfg *w, const ss_node *it, ss_err *err)
{
    static const char *const shapes[] = {"twitter", "azure", NULL};
    static const double median[] = {57, 18}, peak[] = {4.68, 2.54};
    int shape = 0;
    TRY(ss_cfg_enum(it, "shape", shapes, &shape, 0, err));
    ss_synth p = {.median_rps = median[shape], .peak_to_median = peak[shape], .length_s = 3600, .step_s = 1,
                  .correlation_s = 60, .scale = 1};
    TRY(ss_cfg_num(it, "median_rps", &p.median_rps, SS_POS, err));
    TRY(ss_cfg_num(it, "peak_to_median", &p.peak_to_median, SS_POS, err));
    if (p.peak_to_median < 1)
        return ss_node_err(ss_map_find(it, "peak_to_median"), err, "peak_to_median: expected at least 1, got %g",
                           p.peak_to_median);
    TRY(ss_cfg_num(it, "length_s", &p.length_s, SS_POS, err));
    TRY(ss_cfg_num(it, "step_s", &p.step_s, SS_POS, err));
    TRY(ss_cfg_num(it, "correlation_s", &p.correlation_s, SS_POS, err));
    TRY(ss_cfg_num(it, "scale", &p.scale, SS_NONNEG, err)); /* 0: no requests */
    TRY(ss_cfg_num(it, "lead_s", &p.lead_s, SS_NONNEG, err));
    if (p.length_s / p.step_s > 1e7)
        return ss_node_err(ss_map_find(it, "length_s"), err, "length_s / step_s: at most 1e7 steps, got %g",
                           p.length_s / p.step_s);
    w->shape = ss_synth_shape_new(&p, sc->seed, w->name, w->start_s, &w->nsteps);
    return 0;
}

/* `azure_functions`: per-minute counts of the Azure Functions 2019 trace. */
static int read_azure(ss_workload_cfg *w, const ss_node *it, ss_err *err)
{
    const char *file, *function = "all";
    double scale = 1, from = 1, minutes = 0;
    TRY(ss_cfg_str(it, "file", &file, SS_REQ, err));
    TRY(ss_cfg_str(it, "function", &function, 0, err));
    TRY(ss_cfg_num(it, "from_minute", &from, SS_POS | SS_INT, err));
    TRY(ss_cfg_num(it, "minutes", &minutes, SS_POS | SS_INT, err));
    TRY(ss_cfg_num(it, "scale", &scale, SS_NONNEG, err)); /* 0: no requests */
    if (from > 1e6 || minutes > 1e6)
        return ss_node_err(it, err, "from_minute, minutes: at most 1000000");
    const ss_node *fn = ss_map_find(it, "file");
    char *path = ss_node_readable(fn, "trace file", err);
    if (!path) return -1;
    int rc = ss_azure_fn_steps(path, it, function, (long)from, (long)minutes, scale, w->start_s, &w->steps,
                               &w->nsteps, err);
    free(path);
    return rc;
}

static int read_steps(ss_workload_cfg *w, const ss_node *it, ss_err *err)
{
    static const char *const step_keys[] = {"until_s", "rate_rps", NULL};
    ss_node *seq;
    TRY(ss_cfg_seq(it, "steps", &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "steps: expected at least one {until_s, rate_rps}");
    w->steps = ss_xcalloc(seq->n, sizeof *w->steps);
    double prev = w->start_s;
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *s = seq->items[i];
        TRY(ss_node_expect(s, SS_NODE_MAP, "step", err));
        TRY(ss_cfg_check_keys(s, step_keys, "step", err));
        ss_rate_step *st = &w->steps[i];
        TRY(ss_cfg_num(s, "until_s", &st->until_s, SS_REQ | SS_POS, err));
        TRY(ss_cfg_num(s, "rate_rps", &st->rate_rps, SS_REQ | SS_NONNEG, err));
        if (st->until_s <= prev)
            return ss_node_err(ss_map_find(s, "until_s"), err,
                               "until_s: steps must end in increasing order after start_s (%g <= %g)", st->until_s, prev);
        prev = st->until_s;
        w->nsteps = i + 1;
    }
    double scale = 1; /* every rate multiplied: one shape at several loads (a sweep's axis) */
    TRY(ss_cfg_num(it, "scale", &scale, SS_NONNEG, err));
    for (size_t i = 0; i < w->nsteps; i++) w->steps[i].rate_rps *= scale;
    return 0;
}

/* An LLM model's role in the stages of task t (a workload's target, at node at): a decode model
 * only right after a prefill model of the same KV cache's shape, a prefill model only right before
 * a decode one, and the KV cache needs the fabric (a topology) between them. */
static int llm_roles_fit(const ss_scenario *sc, uint32_t t, const ss_node *at, ss_err *err)
{
    const ss_task_cfg *task = &sc->tasks[t];
    for (uint32_t k = 0; k < task->nstages; k++) {
        const ss_model_cfg *m = &sc->models[task->stages[k]];
        const ss_llm_scn *s = m->llm;
        if (!s || s->role == SS_LLM_WHOLE) continue;
        const ss_model_cfg *other = s->role == SS_LLM_DECODE ? (k ? &sc->models[task->stages[k - 1]] : NULL)
                                                             : (k + 1 < task->nstages ? &sc->models[task->stages[k + 1]]
                                                                                      : NULL);
        int want = s->role == SS_LLM_DECODE ? SS_LLM_PREFILL : SS_LLM_DECODE;
        if (!other || !other->llm || other->llm->role != want)
            return ss_node_err(at, err, "task '%s': LLM model '%s' (role %s) needs a %s model %s it in the task's "
                                        "path (docs/llm.md, \"Disaggregation on the substrate\")",
                               task->name, m->name, s->role == SS_LLM_DECODE ? "decode" : "prefill",
                               want == SS_LLM_PREFILL ? "prefill" : "decode", want == SS_LLM_PREFILL ? "right before"
                                                                                                    : "right after");
        if (ss_llm_model_kv_bytes_per_token(&s->model, 2) != ss_llm_model_kv_bytes_per_token(&other->llm->model, 2))
            return ss_node_err(at, err, "task '%s': models '%s' and '%s' hand a KV cache over, but their configs' "
                                        "caches differ in shape", task->name, m->name, other->name);
        if (!sc->topo)
            return ss_node_err(at, err, "task '%s': the KV cache of model '%s' crosses the fabric to '%s': the "
                                        "scenario needs a topology", task->name, m->name, other->name);
        const ss_llm_scn *p = other->llm; /* the decode engines hold what the prefill model's requests may be */
        if (s->role == SS_LLM_DECODE && s->min_kv_blocks &&
            (double)p->prompt.max + p->output.max > (double)s->min_kv_blocks * s->block_size)
            return ss_node_err(at, err, "task '%s': a request of model '%s' may hold %u tokens, more than "
                                        "the KV cache of its decode engines of '%s' (%u blocks of %u)",
                               task->name, other->name, p->prompt.max + p->output.max, m->name, s->min_kv_blocks,
                               s->block_size);
    }
    return 0;
}

/* Every row of an LLM model's trace within the smallest KV cache of its
 * engines (and, without chunked prefill, within the token budget). */
static int llm_rows_fit(const ss_scenario *sc, uint32_t m, const ss_workload_cfg *w, const char *path, ss_err *err)
{
    const ss_llm_scn *s = sc->models[m].llm;
    double kv_tokens = s->min_kv_blocks ? (double)s->min_kv_blocks * s->block_size : INFINITY;
    for (size_t i = 0; i < w->ntimes; i++) {
        double need = (double)w->prompt_tokens[i] + w->output_tokens[i];
        if (need > kv_tokens)
            return ss_err_at(err, path, (int)(i + 2), 1,
                             "a request of %.0f tokens (prompt and output): model '%s''s smallest KV cache holds %.0f",
                             need, sc->models[m].name, kv_tokens);
        if (!s->chunked_prefill && need > s->max_num_batched_tokens)
            return ss_err_at(err, path, (int)(i + 2), 1,
                             "a request of %.0f tokens (prompt and output) without chunked prefill: more than model "
                             "'%s''s token budget (%u), which a preempted request recomputes in one step",
                             need, sc->models[m].name, s->max_num_batched_tokens);
    }
    return 0;
}

/* `trace`: arrivals from a CSV `file` (times from its first arrival) or
 * written inline as `times_s` (from start_s, as written: an end-to-end run's
 * measured send instants, `servesim validate`); one of the two. */
static int read_trace(const ss_scenario *sc, ss_workload_cfg *w, const ss_node *it, ss_err *err)
{
    double scale = 1.0;
    TRY(ss_cfg_num(it, "time_scale", &scale, SS_POS, err));
    const ss_node *fn = ss_map_find(it, "file"), *tn = ss_map_find(it, "times_s");
    if (fn && tn) return ss_node_err(tn, err, "times_s: a trace has a file or inline times_s, not both");
    if (!fn && !tn) return ss_node_err(it, err, "trace workload: expected 'file' (a CSV trace) or 'times_s' (a list)");
    if (tn) {
        ss_node *seq;
        TRY(ss_cfg_seq(it, "times_s", &seq, SS_REQ, err));
        if (seq->n == 0) return ss_node_err(seq, err, "times_s: expected at least one arrival time");
        w->times_s = ss_xcalloc(seq->n, sizeof *w->times_s);
        for (size_t i = 0; i < seq->n; i++) {
            char what[48];
            double t;
            snprintf(what, sizeof what, "times_s[%zu]", i);
            TRY(ss_node_num(seq->items[i], what, &t, SS_NONNEG, err));
            t *= scale;
            if (i && t < w->times_s[i - 1])
                return ss_node_err(seq->items[i], err, "%s: expected times in order, got %s after %s", what,
                                   seq->items[i]->value, seq->items[i - 1]->value);
            w->times_s[w->ntimes++] = t;
        }
        return 0;
    }
    const char *file;
    TRY(ss_cfg_str(it, "file", &file, SS_REQ, err));
    char *path = ss_node_readable(fn, "trace file", err);
    if (!path) return -1;
    /* An LLM model's requests take their token counts from a trace that has them (docs/llm.md). */
    uint32_t m = sc->tasks[w->task].stages[0];
    int rc = sc->models[m].llm && ss_trace_has_tokens(path)
                 ? ss_trace_load_tokens(path, scale, &w->times_s, &w->prompt_tokens, &w->output_tokens, &w->ntimes, err)
                 : ss_trace_load(path, scale, &w->times_s, &w->ntimes, err);
    /* the rows' tokens are the first stage's, and a decode stage's right after it (later stages draw their own) */
    const ss_task_cfg *tk = &sc->tasks[w->task];
    for (uint32_t k = 0; rc == 0 && w->prompt_tokens && k < tk->nstages; k++) {
        const ss_llm_scn *ks = sc->models[tk->stages[k]].llm;
        if (k > 0 && (!ks || ks->role != SS_LLM_DECODE)) break;
        rc = llm_rows_fit(sc, tk->stages[k], w, path, err);
    }
    free(path);
    return rc;
}

static int read_workload(ss_scenario *sc, ss_workload_cfg *w, const ss_node *it, ss_err *err)
{
    static const char *const common[] = {"name", "kind", "target", "priority", "start_s"};
    static const char *const extra[][8] = {
        [SS_WL_POISSON] = {"rate_rps"},
        [SS_WL_DETERMINISTIC] = {"rate_rps"},
        [SS_WL_NORMAL] = {"rate_rps", "sd_s"},
        [SS_WL_GAMMA] = {"rate_rps", "cv"},
        [SS_WL_INTERARRIVAL] = {"interarrival"},
        [SS_WL_STEPS] = {"steps", "scale"},
        [SS_WL_CLOSED] = {"clients", "think"},
        [SS_WL_TRACE] = {"file", "times_s", "time_scale"},
        [SS_WL_SYNTHETIC] = {"shape", "median_rps", "peak_to_median", "length_s", "step_s", "correlation_s", "scale",
                             "lead_s"},
        [SS_WL_AZURE_FN] = {"file", "function", "from_minute", "minutes", "scale"},
    };
    TRY(ss_node_expect(it, SS_NODE_MAP, "workload", err));
    int kind;
    TRY(ss_cfg_enum(it, "kind", wl_kinds, &kind, SS_REQ, err));
    w->kind = (ss_workload_kind)kind;
    const char *allowed[16];
    size_t na = 0;
    for (size_t i = 0; i < sizeof common / sizeof *common; i++) allowed[na++] = common[i];
    for (size_t i = 0; i < 8 && extra[kind][i]; i++) allowed[na++] = extra[kind][i];
    allowed[na] = NULL;
    char *where = ss_xasprintf("%s workload", wl_kinds[kind]);
    int rc = ss_cfg_check_keys(it, allowed, where, err);
    free(where);
    TRY(rc);
    TRY(ss_sc_read_name(it, "name", &w->name, err));
    const char *target;
    TRY(ss_cfg_str(it, "target", &target, SS_REQ, err));
    uint32_t t = ss_nameidx_get(&sc->task_names, target);
    if (t == SS_NAMEIDX_NONE) return ss_sc_unknown_ref(ss_map_find(it, "target"), "model or task", ss_sc_task_names(sc), err);
    w->task = t;
    TRY(llm_roles_fit(sc, t, ss_map_find(it, "target"), err));
    TRY(ss_cfg_num(it, "priority", &w->priority, 0, err));
    TRY(ss_cfg_num(it, "start_s", &w->start_s, SS_NONNEG, err));
    double rate = 0;
    if (kind <= SS_WL_GAMMA) TRY(ss_cfg_num(it, "rate_rps", &rate, SS_REQ | SS_POS, err));
    switch (w->kind) {
    case SS_WL_POISSON: ss_dist_exponential(&w->interarrival, 1.0 / rate); break;
    case SS_WL_DETERMINISTIC: ss_dist_deterministic(&w->interarrival, 1.0 / rate); break;
    case SS_WL_NORMAL: {
        double sd = 0;
        TRY(ss_cfg_num(it, "sd_s", &sd, SS_REQ | SS_NONNEG, err));
        w->interarrival = (ss_dist){.kind = SS_DIST_NORMAL, .p1 = 1.0 / rate, .p2 = sd};
        break;
    }
    case SS_WL_GAMMA: {
        double cv = 0;
        TRY(ss_cfg_num(it, "cv", &cv, SS_REQ | SS_POS, err));
        double shape = 1.0 / (cv * cv);
        w->interarrival = (ss_dist){.kind = SS_DIST_GAMMA, .p1 = shape, .p2 = 1.0 / rate / shape};
        break;
    }
    case SS_WL_INTERARRIVAL: {
        const ss_node *d = ss_map_find(it, "interarrival");
        if (!d) return ss_node_err(it, err, "interarrival workload: missing key 'interarrival' (a distribution)");
        TRY(ss_dist_read(d, "interarrival", &w->interarrival, err));
        if (ss_dist_mean(&w->interarrival) <= 0)
            return ss_node_err(d, err, "interarrival: the mean must be > 0");
        break;
    }
    case SS_WL_STEPS: TRY(read_steps(w, it, err)); break;
    case SS_WL_SYNTHETIC:
    case SS_WL_AZURE_FN:
        TRY(w->kind == SS_WL_SYNTHETIC ? read_synthetic(sc, w, it, err) : read_azure(w, it, err));
        w->kind = SS_WL_STEPS; /* from here on, Poisson steps */
        break;
    case SS_WL_CLOSED: {
        unsigned long long clients = 0;
        TRY(ss_cfg_u64(it, "clients", &clients, SS_REQ, err));
        if (clients == 0 || clients > 10000000)
            return ss_node_err(ss_map_find(it, "clients"), err, "clients: expected 1 to 10000000, got %llu", clients);
        w->clients = (uint32_t)clients;
        const ss_node *th = ss_map_find(it, "think");
        if (th) TRY(ss_dist_read(th, "think", &w->think, err));
        else ss_dist_deterministic(&w->think, 0.0);
        break;
    }
    case SS_WL_TRACE: TRY(read_trace(sc, w, it, err)); break;
    }
    return 0;
}

int ss_sc_read_workloads(ss_scenario *sc, const ss_node *seq, ss_err *err)
{
    if (seq->n == 0) return ss_node_err(seq, err, "workloads: expected at least one workload");
    sc->workloads = ss_xcalloc(seq->n, sizeof *sc->workloads);
    ss_nameidx names = SS_NAMEIDX_INIT;
    int rc = 0;
    for (size_t i = 0; i < seq->n && rc == 0; i++) {
        sc->nworkloads = i + 1;
        rc = read_workload(sc, &sc->workloads[i], seq->items[i], err);
        if (rc == 0 && ss_nameidx_put(&names, sc->workloads[i].name, (uint32_t)i) != SS_NAMEIDX_NONE)
            rc = ss_node_err(ss_map_find(seq->items[i], "name"), err, "duplicate workload '%s'", sc->workloads[i].name);
    }
    ss_nameidx_free(&names);
    return rc < 0 ? -1 : 0;
}

