/* llm_serve.c: LLM engines as instances of the serving substrate
 * (llm_serve.h). */
#include "llm/llm_serve.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/util.h"
#include "input/llm_cfg.h"
#include "llm/llm_engine.h"
#include "llm/llm_perf.h"
#include "llm/llm_fit.h"
#include "llm/llm_roofline.h"
#include "net/topo.h"

/* A request in an engine: the engine's record first (its done hook gets &r). */
typedef struct serve_req {
    ss_llm_req r;
    ss_request *sr;
    ss_instance *in;
    struct ss_llm_serve *ls;
    struct serve_req *next_free;
    /* a decode model's request whose KV cache is on its way over the fabric (role decode) */
    ss_flow_id flow;
    double xfer_start_s;
    struct serve_req *xfer_prev, *xfer_next; /* in its slot's list of transfers in flight */
} serve_req;

/* What the LLM stages keep in a request's cb[] bytes (cleared when it is made: w->clear_cb). */
typedef struct llm_cb {
    uint32_t drawn_stage;     /* the stage + 1 whose tokens these are (0: none yet) */
    uint32_t prompt, output;  /* ... its tokens (kept if it is re-routed: its engine failed) */
    uint32_t prefill_device;  /* a prefill stage's: where its KV cache is, for the decode stage */
    double first_token_s;     /* ... and its first token */
    /* the per-request CSV's columns, as its stages finish (ttft_s, tpot_s NAN: not yet) */
    int served;
    double ttft_s, tpot_s;
    uint32_t preemptions, cached;
} llm_cb;

/* An LLM model: its step-time model, its token distributions' base seed, its figures. */
typedef struct llm_model {
    const ss_llm_scn *s;
    ss_llm_perf *perf;
    ss_llm_roofline roof;
    ss_llm_fit fit;           /* step_time: {fit:} (s->fit_path) */
    uint64_t seed;            /* its requests' tokens: seeded from this and the request's id */
    double kv_bytes_per_token; /* its KV cache, bf16 */
    uint64_t tokens;          /* output tokens of its requests finished, measured or not (the autoscaler's) */
    double ttft_sum_s;        /* TTFT of the requests whose first token came since the last sample */
    uint64_t ttft_n;
} llm_model;

/* A closed-loop client's conversation (a model with `conversation:`). */
typedef struct conv {
    uint32_t turn;            /* turns of the current conversation so far */
    uint32_t index;           /* conversations it has had */
    uint32_t context;         /* the current one's tokens so far: the last turn's prompt and output */
    uint64_t draws;           /* requests it has made: its token draws are seeded by this */
    uint32_t inst;            /* the instance that served its last turn, born at inst_born_s */
    double inst_born_s;
} conv;

/* The engine of the instance record of that id, while it lives. */
typedef struct slot {
    ss_llm *e;
    serve_req *xfers;         /* KV caches on their way to it */
    double born_s;            /* the instance's birth: a record reused for a new instance gets a new engine */
} slot;

struct ss_llm_serve {
    ss_world *w;
    llm_model *m;             /* per model of the scenario (s NULL: not an LLM) */
    slot *slots;              /* by instance id */
    size_t nslots;
    serve_req *free_list;
    serve_req **chunks;
    size_t nchunks;
    gsl_rng *tok;             /* reseeded per request */
    conv **conv;              /* per workload: its clients' conversations (a closed loop on a model with
                               * `conversation:`), else NULL */
    /* the measured requests' figures, all LLM models together */
    ss_stat ttft, tpot;
    ss_hist *ttft_hist, *tpot_hist;
    uint64_t output_tokens;
    uint64_t slo_judged, slo_met; /* measured requests of models with an `slo:`, and those within it */
    ss_stat kv_transfer;      /* each KV cache's transfer to its decode engine, seconds */
    /* the counters of engines freed (their records reused for new instances) */
    uint64_t preemptions, tokens_cached;
};

static const char *const cols[] = {"ttft_mean_s", "ttft_p50_s",          "ttft_p90_s",  "ttft_p99_s",
                                   "tpot_mean_s", "tpot_p50_s",          "tpot_p90_s",  "tpot_p99_s",
                                   "output_tokens_per_s", "preemptions", "prefix_cache_tokens", "slo_attainment",
                                   "goodput_rps", "kv_transfer_mean_s", NULL};

int ss_llm_serve_wanted(const ss_scenario *sc)
{
    for (size_t m = 0; m < sc->nmodels; m++)
        if (sc->models[m].llm) return 1;
    return 0;
}

static void fold(ss_llm_serve *ls, ss_llm *e)
{
    ss_llm_stats st = ss_llm_stats_of(e);
    ls->preemptions += st.preemptions;
    ls->tokens_cached += st.tokens_cached;
    ss_llm_free(e);
}

static void done(void *ctx, ss_llm_req *r);

/* The engine of instance in, made when it first serves (a record reused
 * for a new instance: the old one's engine, empty, is folded and freed). */
static ss_llm *engine_of(ss_llm_serve *ls, const ss_instance *in)
{
    ss_world *w = ls->w;
    if (in->id >= ls->nslots) {
        size_t n = ls->nslots ? 2 * ls->nslots : 64;
        while (n <= in->id) n *= 2;
        ls->slots = ss_xrealloc(ls->slots, n * sizeof *ls->slots);
        memset(ls->slots + ls->nslots, 0, (n - ls->nslots) * sizeof *ls->slots);
        ls->nslots = n;
    }
    slot *sl = &ls->slots[in->id];
    if (sl->e && sl->born_s != in->born_s) {
        fold(ls, sl->e);
        sl->e = NULL;
    }
    if (!sl->e) {
        llm_model *lm = &ls->m[in->model];
        const ss_llm_scn *s = lm->s;
        ss_llm_cfg cfg = ss_llm_cfg_of_scn(s, w->sc->deploys[in->deploy].kv_blocks);
        ss_llm_hooks h = {.step = lm->perf ? ss_llm_perf_step_s : s->fit_path ? ss_llm_fit_step_s : ss_llm_roofline_step_s,
                          .step_ctx = lm->perf ? (void *)lm->perf : s->fit_path ? (void *)&lm->fit : (void *)&lm->roof,
                          .done = done, .ctx = ls};
        sl->e = ss_llm_new(w->eng, &cfg, &h);
        sl->born_s = in->born_s;
    }
    return sl->e;
}

static serve_req *req_new(ss_llm_serve *ls)
{
    if (!ls->free_list) { /* 256 records at a time */
        serve_req *c = ss_xcalloc(256, sizeof *c);
        ls->chunks = ss_xrealloc(ls->chunks, (ls->nchunks + 1) * sizeof *ls->chunks);
        ls->chunks[ls->nchunks++] = c;
        for (int i = 0; i < 256; i++) c[i].next_free = ls->free_list, ls->free_list = &c[i];
    }
    serve_req *q = ls->free_list;
    ls->free_list = q->next_free;
    return q;
}

/* The next turn of r's client's conversation (its tokens and its content key), or a new conversation
 * when the last one had all its turns or the next would not fit the smallest KV cache of the model's
 * engines.  Drawn by the client and its count of requests, whatever the order of service. */
static uint64_t next_turn(ss_llm_serve *ls, const llm_model *lm, const ss_request *sr, ss_instance *in,
                          uint32_t *prompt, uint32_t *output)
{
    conv *c = &ls->conv[sr->workload][sr->client];
    const ss_llm_scn *s = lm->s;
    gsl_rng_set(ls->tok, (unsigned long)ss_mix64(lm->seed ^ ss_mix64(((uint64_t)sr->workload << 32 | sr->client) ^
                                                                     ss_mix64(c->draws++))));
    uint32_t follow = ss_llm_dist_draw(ls->tok, &s->followup);
    *output = ss_llm_dist_draw(ls->tok, &s->output);
    *prompt = ss_llm_dist_draw(ls->tok, &s->prompt);
    uint64_t next = (uint64_t)c->context + follow + *output; /* the next turn's tokens, its answer's included */
    double kv_tokens = s->min_kv_blocks ? (double)s->min_kv_blocks * s->block_size : INFINITY; /* its smallest cache */
    if (c->turn > 0 && c->turn < s->conv_turns && next <= kv_tokens &&
        (s->chunked_prefill || next <= s->max_num_batched_tokens)) { /* unchunked: one step recomputes it all */
        *prompt = c->context + follow; /* the conversation so far and the user's next message */
    } else {
        c->turn = 0;
        c->index++;
    }
    c->turn++;
    c->context = *prompt + *output;
    c->inst = in->id;
    c->inst_born_s = in->born_s;
    return SS_LLM_KEY_SHARED | (ss_mix64(((uint64_t)sr->workload << 32 | sr->client) ^ ss_mix64(c->index)) >> 1);
}

/* A decode engine's KV cache has arrived: it decodes from there (or, one token out, it is done). */
static void kv_arrived(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    serve_req *q = ctx;
    ss_llm_serve *ls = q->ls;
    slot *sl = &ls->slots[q->in->id];
    if (q->xfer_prev) q->xfer_prev->xfer_next = q->xfer_next;
    else sl->xfers = q->xfer_next;
    if (q->xfer_next) q->xfer_next->xfer_prev = q->xfer_prev;
    if (q->r.output_tokens <= 1) { /* one token out, at its prefill: nothing moved, nothing to decode */
        ss_request *sr = q->sr;
        ss_instance *in = q->in;
        llm_model *lm = &ls->m[in->model];
        ls->w->groups[in->model].views[in->index].tokens -= (uint64_t)q->r.prompt_tokens + q->r.output_tokens;
        lm->tokens += 1;
        if (sr->measured) {
            ls->output_tokens += 1;
            if (lm->s->slo_ttft_s > 0) { /* TTFT its prefill's; no TPOT */
                ls->slo_judged++;
                ls->slo_met += q->r.first_token_s - sr->created_s <= lm->s->slo_ttft_s;
            }
        }
        q->next_free = ls->free_list;
        ls->free_list = q;
        ss_serve_end(ls->w, in, sr);
        return;
    }
    ss_stat_add(&ls->kv_transfer, now_s - q->xfer_start_s);
    ss_llm *e = sl->e;
    ss_llm_submit_prefilled(e, &q->r);
    ss_instance_view *v = &ls->w->groups[q->in->model].views[q->in->index];
    v->kv_use = ss_llm_stats_of(e).kv_usage;
}

/* A decode model's stage: its KV cache (its prompt's tokens) moves from its prefill engine's GPU to
 * in's over the fabric, a flow of the max-min solver beside every other transfer; then it decodes. */
static void decode_start(ss_llm_serve *ls, const llm_model *lm, ss_instance *in, ss_request *sr)
{
    ss_world *w = ls->w;
    const ss_scenario *sc = w->sc;
    llm_cb cb;
    memcpy(&cb, sr->cb, sizeof cb); /* the prefill stage's tokens and where it left the cache */
    serve_req *q = req_new(ls);
    q->sr = sr;
    q->in = in;
    q->ls = ls;
    q->r = (ss_llm_req){.id = sr->id, .prompt_tokens = cb.prompt, .output_tokens = cb.output,
                        .arrival_s = ss_now(w->eng), .priority = sr->priority, .generated = 1,
                        .first_token_s = cb.first_token_s, .last_token_s = cb.first_token_s};
    (void)engine_of(ls, in); /* its slot */
    slot *sl = &ls->slots[in->id];
    q->xfer_prev = NULL;
    q->xfer_next = sl->xfers;
    if (sl->xfers) sl->xfers->xfer_prev = q;
    sl->xfers = q;
    uint32_t src = ss_topo_find(sc->topo, sc->devices[cb.prefill_device].name),
             dst = ss_topo_find(sc->topo, sc->devices[in->device].name);
    uint32_t links[64];
    double lat = 0;
    size_t n = ss_topo_route(sc->topo, src, dst, sr->id, links, 64, &lat);
    if (n > 64 || n == SS_TOPO_NO_ROUTE) n = 0; /* [unreachable: the topology's GPUs are connected] */
    ss_flow_opts o = {.latency_s = lat};
    double bytes = cb.output > 1 ? cb.prompt * lm->kv_bytes_per_token : 0;
    q->xfer_start_s = ss_now(w->eng);
    q->flow = ss_flow_start(w->fnet, links, n, bytes, &o, kv_arrived, q);
    ss_instance_view *v = &w->groups[in->model].views[in->index];
    v->tokens += (uint64_t)cb.prompt + cb.output;
}

/* The substrate hands r to in's engine (a server of in taken). */
static void start(ss_world *w, ss_instance *in, ss_request *sr)
{
    ss_llm_serve *ls = w->llms;
    llm_model *lm = &ls->m[in->model];
    if (lm->s->role == SS_LLM_DECODE) {
        decode_start(ls, lm, in, sr);
        return;
    }
    llm_cb cb;
    memcpy(&cb, sr->cb, sizeof cb);
    uint32_t prompt = 0, output = 0;
    uint64_t key = 0;
    if (cb.drawn_stage == sr->stage + 1) { /* this stage's, before it was re-routed */
        prompt = cb.prompt, output = cb.output;
    } else if (sr->stage == 0 && sr->prompt_tokens) { /* its trace row's (the task's first stage) */
        prompt = sr->prompt_tokens, output = sr->output_tokens;
    } else if (sr->client != UINT32_MAX && ls->conv && ls->conv[sr->workload]) {
        key = next_turn(ls, lm, sr, in, &prompt, &output);
    } else { /* drawn by its id (and stage) alone */
        gsl_rng_set(ls->tok, (unsigned long)ss_mix64(lm->seed ^ sr->id ^ ((uint64_t)sr->stage << 40)));
        prompt = ss_llm_dist_draw(ls->tok, &lm->s->prompt);
        output = ss_llm_dist_draw(ls->tok, &lm->s->output);
    }
    cb.drawn_stage = sr->stage + 1, cb.prompt = prompt, cb.output = output;
    memcpy(sr->cb, &cb, sizeof cb);
    serve_req *q = req_new(ls);
    q->sr = sr;
    q->in = in;
    q->ls = ls;
    q->r = (ss_llm_req){.id = sr->id, .prompt_tokens = prompt, .output_tokens = output, .arrival_s = ss_now(w->eng),
                        .prefix_key = key, .priority = sr->priority};
    if (lm->s->role == SS_LLM_PREFILL) q->r.output_tokens = 1; /* its prompt and first token: the decode stage's rest */
    ss_llm *e = engine_of(ls, in);
    ss_llm_submit(e, &q->r); /* it fits: the scenario reader checked the largest request */
    ss_instance_view *v = &w->groups[in->model].views[in->index];
    v->tokens += (uint64_t)prompt + q->r.output_tokens;
    v->kv_use = ss_llm_stats_of(e).kv_usage;
}

/* A request's last token: its figures, then the substrate ends its service. */
static void done(void *ctx, ss_llm_req *r)
{
    ss_llm_serve *ls = ctx;
    serve_req *q = (serve_req *)r; /* r is q's first member */
    ss_request *sr = q->sr;
    ss_instance *in = q->in;
    llm_model *lm = &ls->m[in->model];
    int role = lm->s->role;
    double ttft = r->first_token_s - sr->created_s;
    if (ls->w->req_csv) { /* its row's LLM columns */
        llm_cb cb;
        memcpy(&cb, sr->cb, sizeof cb);
        if (!cb.served) cb.ttft_s = cb.tpot_s = NAN;
        cb.served = 1;
        if (role != SS_LLM_DECODE) cb.ttft_s = ttft;
        if (role != SS_LLM_PREFILL && r->output_tokens > 1)
            cb.tpot_s = (r->last_token_s - r->first_token_s) / (r->output_tokens - 1);
        cb.preemptions += r->preemptions;
        cb.cached += r->cached;
        memcpy(sr->cb, &cb, sizeof cb);
    }
    if (role == SS_LLM_PREFILL) { /* its first token: where its KV cache is, for its decode stage */
        llm_cb cb;
        memcpy(&cb, sr->cb, sizeof cb);
        cb.prefill_device = in->device, cb.first_token_s = r->first_token_s;
        memcpy(sr->cb, &cb, sizeof cb);
    }
    if (role != SS_LLM_DECODE) { /* TTFT where the first token came */
        lm->ttft_sum_s += ttft;
        lm->ttft_n++;
    }
    if (role != SS_LLM_PREFILL) lm->tokens += r->output_tokens;
    if (sr->measured && role != SS_LLM_DECODE) {
        ss_stat_add(&ls->ttft, ttft);
        ss_hist_add(ls->ttft_hist, ttft);
    }
    if (sr->measured && role != SS_LLM_PREFILL) { /* the whole request's: the rest of its tokens came here */
        ls->output_tokens += r->output_tokens;
        double tpot = r->output_tokens > 1 ? (r->last_token_s - r->first_token_s) / (r->output_tokens - 1) : 0;
        if (r->output_tokens > 1) {
            ss_stat_add(&ls->tpot, tpot);
            ss_hist_add(ls->tpot_hist, tpot);
        }
        if (lm->s->slo_ttft_s > 0) {
            ls->slo_judged++;
            ls->slo_met += ttft <= lm->s->slo_ttft_s && tpot <= lm->s->slo_tpot_s;
        }
    }
    sr->service_s += r->last_token_s - sr->started_s; /* its time in the engine */
    ss_instance_view *v = &ls->w->groups[in->model].views[in->index];
    v->tokens -= (uint64_t)r->prompt_tokens + r->output_tokens;
    v->kv_use = ss_llm_stats_of(ls->slots[in->id].e).kv_usage; /* its blocks already released */
    q->next_free = ls->free_list;
    ls->free_list = q;
    ss_serve_end(ls->w, in, sr);
}

static uint64_t tokens(const ss_world *w, uint32_t m) { return w->llms->m[m].tokens; }

/* r's LLM columns in the per-request CSV. */
static void req_cols(const ss_world *w, const ss_request *r, FILE *fp)
{
    (void)w;
    llm_cb cb;
    memcpy(&cb, r->cb, sizeof cb);
    if (!cb.drawn_stage) {
        fputs(",,,,,,", fp);
        return;
    }
    fprintf(fp, ",%u,%u,", cb.prompt, cb.output);
    if (cb.served && !isnan(cb.ttft_s)) fprintf(fp, "%.9f", cb.ttft_s * 1e3);
    fputc(',', fp);
    if (cb.served && !isnan(cb.tpot_s)) fprintf(fp, "%.9f", cb.tpot_s * 1e3);
    fprintf(fp, ",%u,%u", cb.preemptions, cb.cached);
}

/* A request a failed engine let go of: its record back to the pool (the substrate re-routes it). */
static void let_go(void *ctx, ss_llm_req *r)
{
    ss_llm_serve *ls = ctx;
    serve_req *q = (serve_req *)r;
    q->next_free = ls->free_list;
    ls->free_list = q;
}

/* Instance in failed: its engine, with what it held, goes (a record reused later gets a new one). */
static void failed(ss_world *w, ss_instance *in)
{
    ss_llm_serve *ls = w->llms;
    if (in->id >= ls->nslots || !ls->slots[in->id].e) return;
    for (serve_req *q = ls->slots[in->id].xfers, *next; q; q = next) { /* KV caches on their way to it */
        next = q->xfer_next;
        ss_flow_cancel(w->fnet, q->flow);
        let_go(ls, &q->r);
    }
    ls->slots[in->id].xfers = NULL;
    ss_llm_abort(ls->slots[in->id].e, let_go, ls);
    fold(ls, ls->slots[in->id].e);
    ls->slots[in->id].e = NULL;
    ss_instance_view *v = &w->groups[in->model].views[in->index];
    v->tokens = 0;
    v->kv_use = 0;
}

/* The engine that served the last turn of r's client's conversation, if it is still that one and up. */
static uint32_t affinity(ss_world *w, const ss_request *r, uint32_t m)
{
    const ss_llm_serve *ls = w->llms;
    if (r->client == UINT32_MAX || !ls->conv || !ls->conv[r->workload]) return UINT32_MAX;
    const conv *c = &ls->conv[r->workload][r->client];
    if (c->turn == 0) return UINT32_MAX;
    const ss_group *g = &w->groups[m];
    for (uint32_t i = 0; i < g->n; i++)
        if (g->members[i]->id == c->inst && g->members[i]->born_s == c->inst_born_s && g->views[i].up) return i;
    return UINT32_MAX;
}

static double kv_use(const ss_world *w, uint32_t m)
{
    const ss_llm_serve *ls = w->llms;
    const ss_group *g = &w->groups[m];
    double sum = 0;
    uint32_t up = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const ss_instance *in = g->members[i];
        if (in->state != SS_INST_UP) continue;
        up++;
        if (in->id < ls->nslots && ls->slots[in->id].e && ls->slots[in->id].born_s == in->born_s)
            sum += ss_llm_stats_of(ls->slots[in->id].e).kv_usage;
    }
    return up ? sum / up : 0;
}

static double ttft_recent(ss_world *w, uint32_t m)
{
    llm_model *lm = &w->llms->m[m];
    double v = lm->ttft_n ? lm->ttft_sum_s / (double)lm->ttft_n : NAN;
    lm->ttft_sum_s = 0;
    lm->ttft_n = 0;
    return v;
}

ss_llm_serve *ss_llm_serve_build(ss_world *w, ss_err *err)
{
    const ss_scenario *sc = w->sc;
    ss_llm_serve *ls = ss_xcalloc(1, sizeof *ls);
    ls->w = w;
    w->llms = ls;
    ls->m = ss_xcalloc(sc->nmodels, sizeof *ls->m);
    ls->tok = gsl_rng_alloc(gsl_rng_taus2);
    ss_stat_reset(&ls->ttft);
    ss_stat_reset(&ls->tpot);
    ss_stat_reset(&ls->kv_transfer);
    ls->ttft_hist = ss_xcalloc(1, sizeof *ls->ttft_hist);
    ls->tpot_hist = ss_xcalloc(1, sizeof *ls->tpot_hist);
    ss_hist_reset(ls->ttft_hist);
    ss_hist_reset(ls->tpot_hist);
    for (size_t m = 0; m < sc->nmodels; m++) {
        const ss_llm_scn *s = sc->models[m].llm;
        if (!s) continue;
        llm_model *lm = &ls->m[m];
        lm->s = s;
        if (s->profile_dir && !(lm->perf = ss_llm_perf_load(s->profile_dir, s->model.layers, err))) return NULL;
        if (s->fit_path) lm->fit = ss_llm_fit_of(s->fit);
        lm->roof = (ss_llm_roofline){.model = s->model,
                                     .gpu = {.dense_flops_per_s = s->gpu_flops_per_s,
                                             .hbm_bytes_per_s = s->gpu_bytes_per_s},
                                     .dtype_bytes = 2};
        lm->kv_bytes_per_token = ss_llm_model_kv_bytes_per_token(&s->model, 2);
        char *name = ss_xasprintf("model/%s/tokens", sc->models[m].name);
        lm->seed = ss_mix64(ss_mix64(sc->seed ^ ss_mix64(w->rep)) ^ ss_hash_str(name));
        free(name);
    }
    w->hooks.llm_start = start;
    w->clear_cb = 1; /* its requests' cb[] (llm_cb) start zeroed */
    w->hooks.llm_tokens = tokens;
    w->hooks.llm_kv_use = kv_use;
    w->hooks.llm_ttft_recent = ttft_recent;
    w->hooks.llm_affinity = affinity;
    w->hooks.llm_failed = failed;
    w->hooks.llm_req_cols = req_cols;
    for (size_t k = 0; k < sc->nworkloads; k++) { /* closed loops on a model with conversations */
        const ss_workload_cfg *wc = &sc->workloads[k];
        const ss_llm_scn *s = sc->models[sc->tasks[wc->task].stages[0]].llm;
        if (wc->kind != SS_WL_CLOSED || !s || !s->conv_turns) continue;
        if (!ls->conv) ls->conv = ss_xcalloc(sc->nworkloads, sizeof *ls->conv);
        ls->conv[k] = ss_xcalloc(wc->clients, sizeof **ls->conv);
    }
    return ls;
}

void ss_llm_serve_declare(ss_world *w)
{
    for (size_t i = 0; cols[i]; i++) ss_world_declare_extra(w, cols[i]);
}

static double q(const ss_hist *h, const ss_stat *s, double p)
{
    return s->n ? ss_hist_quantile(h, p) : NAN;
}

void ss_llm_serve_result(ss_llm_serve *ls, ss_run_result *r)
{
    uint64_t preempt = ls->preemptions, cached = ls->tokens_cached;
    for (size_t i = 0; i < ls->nslots; i++) {
        if (!ls->slots[i].e) continue;
        ss_llm_stats st = ss_llm_stats_of(ls->slots[i].e);
        preempt += st.preemptions;
        cached += st.tokens_cached;
    }
    double window = r->window_s;
    const double v[] = {ls->ttft.n ? ss_stat_mean(&ls->ttft) : NAN, q(ls->ttft_hist, &ls->ttft, 0.5),
                        q(ls->ttft_hist, &ls->ttft, 0.9),         q(ls->ttft_hist, &ls->ttft, 0.99),
                        ls->tpot.n ? ss_stat_mean(&ls->tpot) : NAN, q(ls->tpot_hist, &ls->tpot, 0.5),
                        q(ls->tpot_hist, &ls->tpot, 0.9),         q(ls->tpot_hist, &ls->tpot, 0.99),
                        window > 0 ? (double)ls->output_tokens / window : 0, (double)preempt, (double)cached,
                        ls->slo_judged ? (double)ls->slo_met / (double)ls->slo_judged : NAN,
                        ls->slo_judged && window > 0 ? (double)ls->slo_met / window : NAN,
                        ls->kv_transfer.n ? ss_stat_mean(&ls->kv_transfer) : NAN};
    for (size_t i = 0; cols[i]; i++) ss_run_result_extra(r, cols[i], v[i]);
}

char *ss_llm_serve_check(const ss_llm_serve *ls)
{
    for (size_t i = 0; i < ls->nslots; i++) {
        if (!ls->slots[i].e) continue;
        ss_llm_stats st = ss_llm_stats_of(ls->slots[i].e);
        if (st.running || st.waiting)
            return ss_xasprintf("llm: an engine still holds %zu running and %zu waiting requests after the run",
                                st.running, st.waiting);
    }
    return NULL;
}

void ss_llm_serve_free(ss_llm_serve *ls)
{
    if (!ls) return;
    for (size_t i = 0; i < ls->nslots; i++)
        if (ls->slots[i].e) {
            ss_llm_abort(ls->slots[i].e, let_go, ls); /* what a run cut short left inside: their blocks freed */
            ss_llm_free(ls->slots[i].e);
        }
    for (size_t m = 0; m < ls->w->sc->nmodels; m++) ss_llm_perf_free(ls->m[m].perf);
    for (size_t i = 0; i < ls->nchunks; i++) free(ls->chunks[i]);
    free(ls->chunks);
    free(ls->slots);
    for (size_t k = 0; ls->conv && k < ls->w->sc->nworkloads; k++) free(ls->conv[k]);
    free(ls->conv);
    free(ls->m);
    free(ls->ttft_hist);
    free(ls->tpot_hist);
    gsl_rng_free(ls->tok);
    ls->w->llms = NULL;
    free(ls);
}
