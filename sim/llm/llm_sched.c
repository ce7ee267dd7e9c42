/* llm_sched.c: one step's batch, as vLLM's V1 scheduler forms it
 * (vllm/v1/core/sched/scheduler.py, Scheduler.schedule, first come first
 * served; docs/llm.md, "The scheduler"):
 *
 *  1. The running requests, in order, while tokens are left in the budget:
 *     each gets its tokens not yet computed (prompt and output so far, less
 *     the computed ones: 1 for a decode), at most long_prefill_token_threshold
 *     (when set) and at most what is left of the budget.  Its KV blocks for
 *     them are allocated; when the cache is short, the newest running request
 *     is preempted (its blocks freed, its computed tokens forgotten, back at
 *     the head of the waiting queue) and the allocation tried again; if the
 *     newest is the request itself, it is preempted and the running pass
 *     stops.
 *  2. Only if nothing was preempted: waiting requests from the head, while
 *     tokens are left and fewer than max_num_seqs run: each its tokens not
 *     computed, capped as above (without chunked prefill a prompt longer than
 *     what is left waits); it stops at the first that the cache cannot hold
 *     (with reserve_full_isl: whose whole sequence so far it cannot hold).
 * With scheduling_policy `priority` (vLLM's) the waiting queue is ordered by
 * (priority, arrival) - smaller first, a preempted request back in its
 * place - and the request preempted is the running one last in that order,
 * not the newest; `shortest-prompt` (not vLLM's: shortest job first by the
 * prompt) does the same by (prompt tokens, arrival).
 * [ASSUMPTION: no speculative decoding.] */
#include "llm/llm_sched.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "core/ring.h"
#include "core/util.h"

/* Under an ordered policy: does a come before b (its key, then arrival, then id)? */
static int before(const ss_llm *e, const ss_llm_req *a, const ss_llm_req *b)
{
    double ka = e->cfg.policy == SS_LLM_PRIORITY ? a->priority : a->prompt_tokens,
           kb = e->cfg.policy == SS_LLM_PRIORITY ? b->priority : b->prompt_tokens;
    if (ka != kb) return ka < kb;
    if (a->arrival_s != b->arrival_s) return a->arrival_s < b->arrival_s;
    return a->id < b->id;
}

/* Into its place in the ordered waiting queue (a linear walk from the tail: arrivals mostly go last). */
static void wait_insert(ss_llm *e, ss_llm_req *r)
{
    size_t k = e->nwait++;
    while (k > 0 && before(e, r, e->wait[(e->whead + k - 1) % e->capwait])) {
        e->wait[(e->whead + k) % e->capwait] = e->wait[(e->whead + k - 1) % e->capwait];
        k--;
    }
    e->wait[(e->whead + k) % e->capwait] = r;
}

void ss_llm_wait_push_back(ss_llm *e, ss_llm_req *r)
{
    ss_ring_grow((void **)&e->wait, sizeof *e->wait, &e->whead, e->nwait, &e->capwait, 16);
    if (e->cfg.policy != SS_LLM_FCFS) {
        wait_insert(e, r);
        return;
    }
    e->wait[(e->whead + e->nwait++) % e->capwait] = r;
}

void ss_llm_wait_push_front(ss_llm *e, ss_llm_req *r)
{
    ss_ring_grow((void **)&e->wait, sizeof *e->wait, &e->whead, e->nwait, &e->capwait, 16);
    if (e->cfg.policy != SS_LLM_FCFS) {
        wait_insert(e, r);
        return;
    }
    e->whead = (e->whead + e->capwait - 1) % e->capwait;
    e->wait[e->whead] = r;
    e->nwait++;
}

/* The running request to preempt: the newest (FCFS), else the last in the policy's order. */
static size_t victim(const ss_llm *e)
{
    size_t v = e->nrun - 1;
    if (e->cfg.policy == SS_LLM_FCFS) return v;
    for (size_t k = 0; k + 1 < e->nrun; k++)
        if (before(e, e->run[v], e->run[k])) v = k;
    return v;
}

static ss_llm_req *wait_pop(ss_llm *e)
{
    ss_llm_req *r = e->wait[e->whead];
    e->whead = (e->whead + 1) % e->capwait;
    e->nwait--;
    return r;
}

/* Tokens r would compute now: not yet computed, capped by the threshold and the budget. */
static uint32_t tokens_for(const ss_llm *e, const ss_llm_req *r, uint32_t budget)
{
    uint32_t n = r->prompt_tokens + r->generated - r->computed;
    uint32_t thr = e->cfg.long_prefill_token_threshold;
    if (thr && n > thr && e->cfg.chunked_prefill) n = thr;
    return n < budget ? n : budget;
}

static void preempt(ss_llm *e, ss_llm_req *r)
{
    ss_kv_release(&e->kv, &r->kv, r->computed, ss_llm_key(r));
    r->computed = 0;
    r->scheduled = 0;
    r->preemptions++;
    e->st.preemptions++;
    ss_llm_wait_push_front(e, r);
}

static void add_prefill(ss_llm *e, ss_llm_batch *b, uint32_t n, uint32_t kv)
{
    if (b->nprefill == e->capchunk) {
        e->capchunk = e->capchunk ? 2 * e->capchunk : 16;
        e->chunk = ss_xrealloc(e->chunk, e->capchunk * sizeof *e->chunk);
        e->chunk_kv = ss_xrealloc(e->chunk_kv, e->capchunk * sizeof *e->chunk_kv);
    }
    e->chunk[b->nprefill] = n;
    e->chunk_kv[b->nprefill++] = kv;
}

/* v, counted in this step, leaves it (preempted by a later request of the pass, under an ordered
 * policy): its tokens out of b, as vLLM gives back their budget.  The tokens it had. */
static uint32_t uncount(ss_llm *e, ss_llm_batch *b, ss_llm_req *v)
{
    uint32_t n = v->scheduled;
    b->nseqs--;
    b->tokens -= n;
    if (n == 1) {
        b->ndecode--;
        b->decode_kv_sum -= v->computed;
    } else { /* its prefill entry (any of equal chunk and cache is the same to the step-time model) */
        for (uint32_t k = 0; k < b->nprefill; k++)
            if (e->chunk[k] == n && e->chunk_kv[k] == v->computed) {
                e->chunk[k] = e->chunk[b->nprefill - 1];
                e->chunk_kv[k] = e->chunk_kv[b->nprefill - 1];
                b->nprefill--;
                break;
            }
    }
    v->scheduled = 0;
    return n;
}

/* r computes n tokens this step: into the batch's description. */
static void count(ss_llm *e, ss_llm_batch *b, ss_llm_req *r, uint32_t n)
{
    r->scheduled = n;
    b->nseqs++;
    b->tokens += n;
    if (n == 1) { /* one token is a decode to the step-time model (LLMServingSim's rule), whatever produced it */
        b->ndecode++;
        b->decode_kv_sum += r->computed;
    } else {
        add_prefill(e, b, n, r->computed);
    }
}

uint32_t ss_llm_schedule(ss_llm *e, ss_llm_batch *b)
{
    *b = (ss_llm_batch){0};
    uint32_t budget = e->cfg.max_num_batched_tokens;
    int preempted = 0;
    for (size_t i = 0; i < e->nrun && budget > 0;) {
        ss_llm_req *r = e->run[i];
        uint32_t n = tokens_for(e, r, budget);
        if (n == 0) {
            i++;
            continue;
        }
        int self = 0;
        while (!ss_kv_grow(&e->kv, &r->kv, (uint64_t)r->computed + n)) {
            size_t vi = victim(e);
            ss_llm_req *v = e->run[vi];
            for (size_t k = vi; k + 1 < e->nrun; k++) e->run[k] = e->run[k + 1];
            e->nrun--;
            if (v->scheduled) budget += uncount(e, b, v); /* counted in this step already: out of it */
            preempt(e, v);
            preempted = 1;
            if (v == r) {
                self = 1;
                break;
            }
            if (vi < i) i--; /* r moved down one */
        }
        /* FCFS: r was the newest, the pass ends (vLLM's); an ordered policy goes on with the next */
        if (self && e->cfg.policy == SS_LLM_FCFS) break;
        if (self) continue;
        count(e, b, r, n);
        budget -= n;
        i++;
    }
    while (!preempted && e->nwait > 0 && budget > 0 && e->nrun < e->cfg.max_num_seqs) {
        ss_llm_req *r = e->wait[e->whead];
        uint32_t total = r->prompt_tokens + r->generated, bs = e->kv.block_size;
        /* its prefix still cached (a resumed request's own blocks, a conversation's earlier turns): at
         * least one token is computed */
        uint32_t hits = r->computed == 0 ? ss_kv_hits(&e->kv, &r->kv, ss_llm_key(r), (total - 1) / bs) : 0;
        uint32_t done = r->computed + hits * bs, want = total - done;
        if (!e->cfg.chunked_prefill && want > budget) break;
        /* the hit blocks wait in the free queue: what is taken is all of the blocks less what r holds */
        if (e->cfg.reserve_full_isl && ss_kv_blocks_for(&e->kv, total) > r->kv.n + e->kv.free_blocks) break;
        uint32_t n = want < budget ? want : budget;
        uint32_t thr = e->cfg.long_prefill_token_threshold;
        if (thr && n > thr && e->cfg.chunked_prefill) n = thr;
        if (ss_kv_blocks_for(&e->kv, (uint64_t)done + n) > r->kv.n + e->kv.free_blocks) break;
        if (hits) {
            ss_kv_touch(&e->kv, &r->kv, ss_llm_key(r), hits);
            r->computed = done;
            e->st.tokens_cached += (uint64_t)hits * bs;
            r->cached += hits * bs;
        }
        int grown = ss_kv_grow(&e->kv, &r->kv, (uint64_t)done + n);
        assert(grown);
        (void)grown;
        wait_pop(e);
        if (e->nrun == e->caprun) {
            e->caprun = e->caprun ? 2 * e->caprun : 16;
            e->run = ss_xrealloc(e->run, e->caprun * sizeof *e->run);
        }
        e->run[e->nrun++] = r;
        count(e, b, r, n);
        budget -= n;
    }
    b->prefill_chunk = e->chunk;
    b->prefill_kv = e->chunk_kv;
    return b->tokens;
}
