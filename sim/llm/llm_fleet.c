/* llm_fleet.c: engines behind a router, a request stream, streaming
 * results (llm_fleet.h). */
#include "llm/llm_fleet.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/flow.h"
#include "core/util.h"
#include "llm/llm_engine.h"

typedef struct fleet_req {
    ss_llm_req r;             /* first: the engine's done hook gets &r */
    uint32_t engine;
    int measured;
    int prefill_only;         /* on a prefill engine, for its first token only (disaggregation) */
    uint32_t output_tokens;   /* its real output length */
    uint32_t dest;            /* the decode engine its KV cache goes to */
    double xfer_start_s;
    struct ss_llm_fleet *f;
    struct fleet_req *next_free;
} fleet_req;

struct ss_llm_fleet {
    ss_engine *eng;
    ss_llm **e;
    uint32_t n, rr, rr_decode;
    uint64_t *outstanding;    /* per engine: tokens of the requests it holds */
    ss_llm_route route;
    ss_llm_source_fn src;
    void *src_ctx;
    ss_llm_arrival next;
    fleet_req *free_list;
    fleet_req **chunks;       /* every record allocated, to free them */
    size_t nchunks, in_flight;
    uint64_t ids;
    ss_llm_fleet_result *out;
    double measure_from_s;    /* requests arriving before are served, not counted */
    double window_end_s;      /* completions before this count in done_in_window (0: none) */
    ss_llm_disagg dis;        /* prefill_instances 0: every engine serves whole requests */
    ss_flownet *net;          /* disaggregation: one link per engine, its NIC */
};
typedef struct ss_llm_fleet fleet;

static fleet_req *req_new(fleet *f)
{
    if (!f->free_list) { /* a chunk of 256 records at a time */
        fleet_req *c = ss_xcalloc(256, sizeof *c);
        f->chunks = ss_xrealloc(f->chunks, (f->nchunks + 1) * sizeof *f->chunks);
        f->chunks[f->nchunks++] = c;
        for (int i = 0; i < 256; i++) c[i].next_free = f->free_list, f->free_list = &c[i];
    }
    fleet_req *q = f->free_list;
    f->free_list = q->next_free;
    return q;
}

/* An engine of [lo, hi) by the router (round-robin keeps one turn per range). */
static uint32_t pick_in(fleet *f, uint32_t lo, uint32_t hi, uint32_t *turn)
{
    if (f->route == SS_LLM_ROUTE_ROUND_ROBIN) return lo + (*turn)++ % (hi - lo);
    uint32_t best = lo;
    for (uint32_t i = lo + 1; i < hi; i++)
        if (f->outstanding[i] < f->outstanding[best]) best = i;
    return best;
}

static uint32_t pick(fleet *f)
{
    return pick_in(f, 0, f->dis.prefill_instances ? f->dis.prefill_instances : f->n, &f->rr);
}

static void arrive(ss_engine *eng, void *ctx, uint64_t arg);

/* The stream's next arrival, scheduled (nothing when it ends). */
static void pull(fleet *f)
{
    if (f->src(f->src_ctx, &f->next)) ss_schedule(f->eng, f->next.t_s, arrive, f, 0);
}

static void arrive(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    fleet *f = ctx;
    ss_llm_arrival a = f->next;
    /* the next arrival first: one at this same instant then comes before the step this one
     * starts, and joins its batch (as every request queued when an engine schedules does) */
    pull(f);
    f->out->arrived++;
    uint32_t i = pick(f);
    if (a.prompt_tokens < 1 || a.output_tokens < 1 || !ss_llm_fits(f->e[i], a.prompt_tokens, a.output_tokens)) {
        f->out->refused++;
    } else {
        fleet_req *q = req_new(f);
        q->prefill_only = f->dis.prefill_instances > 0 && a.output_tokens > 1;
        q->output_tokens = a.output_tokens;
        q->f = f;
        q->r = (ss_llm_req){.id = f->ids++, .prompt_tokens = a.prompt_tokens,
                            .output_tokens = q->prefill_only ? 1 : a.output_tokens, .arrival_s = ss_now(eng)};
        q->measured = q->r.arrival_s >= f->measure_from_s;
        q->engine = i;
        f->outstanding[i] += (uint64_t)a.prompt_tokens + q->r.output_tokens;
        if (++f->in_flight > f->out->peak_in_flight) f->out->peak_in_flight = f->in_flight;
        ss_llm_submit(f->e[i], &q->r);
    }
}

/* Its KV cache has reached its decode engine: it decodes there. */
static void kv_arrived(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng;
    (void)id;
    fleet_req *q = ctx;
    fleet *f = q->f;
    ss_stat_add(&f->out->kv_transfer, now_s - q->xfer_start_s);
    q->engine = q->dest;
    ss_llm_submit_prefilled(f->e[q->dest], &q->r);
}

static void done(void *ctx, ss_llm_req *r)
{
    fleet *f = ctx;
    fleet_req *q = (fleet_req *)r; /* r is q's first member */
    ss_llm_fleet_result *o = f->out;
    if (q->prefill_only) { /* its prompt is in: its KV cache goes to a decode engine over their NICs */
        f->outstanding[q->engine] -= (uint64_t)r->prompt_tokens + 1;
        q->prefill_only = 0;
        q->dest = pick_in(f, f->dis.prefill_instances, f->n, &f->rr_decode);
        f->outstanding[q->dest] += (uint64_t)r->prompt_tokens + q->output_tokens;
        r->output_tokens = q->output_tokens;
        q->xfer_start_s = ss_now(f->eng);
        uint32_t route[2] = {q->engine, q->dest};
        ss_flow_opts o2 = {.latency_s = f->dis.latency_s};
        ss_flow_start(f->net, route, 2, (double)r->prompt_tokens * f->dis.kv_bytes_per_token, &o2, kv_arrived, q);
        return;
    }
    double ttft = r->first_token_s - r->arrival_s, e2e = r->last_token_s - r->arrival_s;
    double now = ss_now(f->eng);
    if (now >= f->measure_from_s && now < f->window_end_s) o->done_in_window++;
    f->outstanding[q->engine] -= (uint64_t)r->prompt_tokens + r->output_tokens;
    f->in_flight--;
    if (r->last_token_s > o->end_s) o->end_s = r->last_token_s;
    o->served++;
    if (!q->measured) {
        q->next_free = f->free_list;
        f->free_list = q;
        return;
    }
    o->measured++;
    o->output_tokens += r->output_tokens;
    ss_stat_add(&o->ttft, ttft);
    ss_hist_add(o->ttft_hist, ttft);
    ss_stat_add(&o->e2e, e2e);
    ss_hist_add(o->e2e_hist, e2e);
    if (r->output_tokens > 1) {
        double tpot = (r->last_token_s - r->first_token_s) / (r->output_tokens - 1);
        ss_stat_add(&o->tpot, tpot);
        ss_hist_add(o->tpot_hist, tpot);
    }
    q->next_free = f->free_list;
    f->free_list = q;
}

ss_llm_fleet *ss_llm_fleet_new(ss_engine *eng, const ss_llm_cfg *cfg, uint32_t instances, ss_llm_route route,
                              ss_llm_step_fn step, void *step_ctx, ss_llm_source_fn src, void *src_ctx,
                              double measure_from_s, const ss_llm_disagg *dis, ss_llm_fleet_result *out)
{
    memset(out, 0, sizeof *out);
    ss_stat_reset(&out->ttft);
    ss_stat_reset(&out->tpot);
    ss_stat_reset(&out->e2e);
    ss_stat_reset(&out->kv_transfer);
    out->ttft_hist = ss_xcalloc(1, sizeof *out->ttft_hist);
    out->tpot_hist = ss_xcalloc(1, sizeof *out->tpot_hist);
    out->e2e_hist = ss_xcalloc(1, sizeof *out->e2e_hist);
    fleet *f = ss_xcalloc(1, sizeof *f);
    *f = (fleet){.eng = eng, .n = instances, .route = route, .src = src, .src_ctx = src_ctx, .out = out,
                 .measure_from_s = measure_from_s};
    if (dis && dis->prefill_instances) {
        assert(dis->prefill_instances < instances && dis->nic_bps > 0 && dis->kv_bytes_per_token > 0);
        f->dis = *dis;
        double *cap = ss_xcalloc(instances, sizeof *cap);
        for (uint32_t i = 0; i < instances; i++) cap[i] = dis->nic_bps;
        f->net = ss_flownet_new(eng, instances, cap);
        free(cap);
    }
    f->e = ss_xcalloc(instances, sizeof *f->e);
    f->outstanding = ss_xcalloc(instances, sizeof *f->outstanding);
    ss_llm_hooks h = {.step = step, .step_ctx = step_ctx, .done = done, .ctx = f};
    for (uint32_t i = 0; i < instances; i++) f->e[i] = ss_llm_new(eng, cfg, &h);
    pull(f);
    return f;
}

void ss_llm_fleet_window(ss_llm_fleet *f, double end_s) { f->window_end_s = end_s; }

size_t ss_llm_fleet_in_flight(const ss_llm_fleet *f)
{
    return f->in_flight;
}

ss_llm_stats ss_llm_fleet_engine(const ss_llm_fleet *f, uint32_t i)
{
    return ss_llm_stats_of(f->e[i]);
}

void ss_llm_fleet_free(ss_llm_fleet *f)
{
    if (!f) return;
    ss_llm_fleet_result *out = f->out;
    for (uint32_t i = 0; i < f->n; i++) {
        ss_llm_stats s = ss_llm_stats_of(f->e[i]);
        out->steps += s.steps;
        out->preemptions += s.preemptions;
        out->tokens_prefill += s.tokens_prefill;
        out->tokens_decode += s.tokens_decode;
        out->tokens_cached += s.tokens_cached;
        out->busy_s += s.busy_s;
        ss_llm_free(f->e[i]);
    }
    for (size_t i = 0; i < f->nchunks; i++) free(f->chunks[i]);
    free(f->chunks);
    ss_flownet_free(f->net);
    free(f->e);
    free(f->outstanding);
    free(f);
}

void ss_llm_fleet_run(const ss_llm_cfg *cfg, uint32_t instances, ss_llm_route route, ss_llm_step_fn step,
                      void *step_ctx, ss_llm_source_fn src, void *src_ctx, ss_llm_fleet_result *out)
{
    ss_engine *eng = ss_engine_new();
    ss_llm_fleet *f = ss_llm_fleet_new(eng, cfg, instances, route, step, step_ctx, src, src_ctx, 0, NULL, out);
    ss_engine_run(eng, INFINITY);
    ss_llm_fleet_free(f);
    ss_engine_free(eng);
}

void ss_llm_fleet_result_free(ss_llm_fleet_result *r)
{
    free(r->ttft_hist);
    free(r->tpot_hist);
    free(r->e2e_hist);
    r->ttft_hist = r->tpot_hist = r->e2e_hist = NULL;
}
