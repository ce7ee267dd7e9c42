/* kv_cache.c: the paged KV cache's free queue, holdings and prefix hits
 * (kv_cache.h). */
#include "llm/kv_cache.h"

#include <assert.h>
#include <stdlib.h>

#include "core/util.h"

#define NONE UINT32_MAX

/* A block's content: a request's own key and the index, exactly (below 2^63: keys below 2^39,
 * 2^24 blocks a request); a shared key's hashed, the top bit set (two contents meet with odds of
 * 2^-63 a pair).  0 is no content. */
static uint64_t tag_of(uint64_t key, uint32_t index)
{
    if (!(key & SS_KV_SHARED)) return ((key + 1) << 24) | index;
    return SS_KV_SHARED | ss_mix64(ss_mix64(key) ^ index);
}

/* ---- the content table -------------------------------------------------------- */

static uint32_t map_find(const ss_kv_cache *kv, uint64_t t)
{
    if (!kv->map_tag) return NONE;
    for (uint32_t i = (uint32_t)t & kv->map_mask;; i = (i + 1) & kv->map_mask) {
        if (kv->map_tag[i] == t) return kv->map_block[i];
        if (kv->map_tag[i] == 0) return NONE;
    }
}

/* Content t in block b, unless some block has it already (that one stays): 1 if put. */
static int map_put(ss_kv_cache *kv, uint64_t t, uint32_t b)
{
    if (!kv->map_tag) { /* made on the first shared content: a run without conversations never pays for it */
        uint32_t slots = 16;
        while (slots < 2ull * kv->num_blocks) slots *= 2;
        kv->map_tag = ss_xcalloc(slots, sizeof *kv->map_tag);
        kv->map_block = ss_xcalloc(slots, sizeof *kv->map_block);
        kv->map_mask = slots - 1;
    }
    uint32_t i = (uint32_t)t & kv->map_mask;
    for (; kv->map_tag[i]; i = (i + 1) & kv->map_mask)
        if (kv->map_tag[i] == t) return 0;
    kv->map_tag[i] = t;
    kv->map_block[i] = b;
    return 1;
}

/* Remove t (linear probing's backward shift: no tombstones). */
static void map_del(ss_kv_cache *kv, uint64_t t)
{
    uint32_t i = (uint32_t)t & kv->map_mask;
    while (kv->map_tag[i] != t) i = (i + 1) & kv->map_mask;
    for (uint32_t j = (i + 1) & kv->map_mask; kv->map_tag[j]; j = (j + 1) & kv->map_mask) {
        uint32_t home = (uint32_t)kv->map_tag[j] & kv->map_mask;
        /* j's entry may move to i if its home is not in (i, j], cyclically */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            kv->map_tag[i] = kv->map_tag[j];
            kv->map_block[i] = kv->map_block[j];
            i = j;
        }
    }
    kv->map_tag[i] = 0;
}

static void push_tail(ss_kv_cache *kv, uint32_t b)
{
    kv->prev[b] = kv->tail;
    kv->next[b] = NONE;
    if (kv->tail != NONE) kv->next[kv->tail] = b;
    else kv->head = b;
    kv->tail = b;
    kv->in_free[b] = 1;
    kv->free_blocks++;
}

static void unlink_block(ss_kv_cache *kv, uint32_t b)
{
    assert(kv->in_free[b]);
    if (kv->prev[b] != NONE) kv->next[kv->prev[b]] = kv->next[b];
    else kv->head = kv->next[b];
    if (kv->next[b] != NONE) kv->prev[kv->next[b]] = kv->prev[b];
    else kv->tail = kv->prev[b];
    kv->in_free[b] = 0;
    kv->free_blocks--;
}

void ss_kv_init(ss_kv_cache *kv, uint32_t block_size, uint32_t num_blocks, int caching)
{
    assert(block_size >= 1 && num_blocks >= 1);
    *kv = (ss_kv_cache){.block_size = block_size, .num_blocks = num_blocks, .caching = caching, .head = NONE,
                        .tail = NONE};
    kv->tag = ss_xcalloc(num_blocks, sizeof *kv->tag);
    kv->prev = ss_xcalloc(num_blocks, sizeof *kv->prev);
    kv->next = ss_xcalloc(num_blocks, sizeof *kv->next);
    kv->in_free = ss_xcalloc(num_blocks, 1);
    for (uint32_t b = 0; b < num_blocks; b++) push_tail(kv, b);
}

void ss_kv_free(ss_kv_cache *kv)
{
    free(kv->tag);
    free(kv->prev);
    free(kv->next);
    free(kv->in_free);
    free(kv->map_tag);
    free(kv->map_block);
}

uint32_t ss_kv_blocks_for(const ss_kv_cache *kv, uint64_t tokens)
{
    uint64_t b = (tokens + kv->block_size - 1) / kv->block_size;
    return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

int ss_kv_grow(ss_kv_cache *kv, ss_kv_held *h, uint64_t tokens)
{
    uint32_t want = ss_kv_blocks_for(kv, tokens);
    if (want <= h->n) return 1;
    uint32_t more = want - h->n;
    if (more > kv->free_blocks) return 0;
    if (want > h->cap) {
        h->cap = want > 2 * h->cap ? want : 2 * h->cap;
        h->ids = ss_xrealloc(h->ids, h->cap * sizeof *h->ids);
    }
    while (h->n < want) {
        uint32_t b = kv->head;
        unlink_block(kv, b);
        if (kv->tag[b] & SS_KV_SHARED) map_del(kv, kv->tag[b]); /* evicted */
        kv->tag[b] = 0;
        h->ids[h->n++] = b;
    }
    if (h->kept < h->n) h->kept = h->n;
    return 1;
}

void ss_kv_release(ss_kv_cache *kv, ss_kv_held *h, uint64_t computed, uint64_t key)
{
    for (uint32_t i = h->n; i-- > 0;) {
        uint32_t b = h->ids[i];
        int full = (uint64_t)(i + 1) * kv->block_size <= computed;
        uint64_t t = kv->caching && full ? tag_of(key, i) : 0;
        if (t != kv->tag[b]) { /* a block it found cached keeps its content (and its entry) */
            if (kv->tag[b] & SS_KV_SHARED) map_del(kv, kv->tag[b]);
            kv->tag[b] = (t & SS_KV_SHARED) && !map_put(kv, t, b) ? 0 : t;
        }
        push_tail(kv, b);
    }
    h->kept = h->n;
    h->n = 0;
}

uint32_t ss_kv_hits(const ss_kv_cache *kv, const ss_kv_held *h, uint64_t key, uint32_t max)
{
    if (!kv->caching) return 0;
    uint32_t k = 0, b;
    if (!(key & SS_KV_SHARED)) { /* its own blocks, where it left them */
        while (k < h->kept && k < max && kv->in_free[h->ids[k]] && kv->tag[h->ids[k]] == tag_of(key, k)) k++;
        return k;
    }
    while (k < max && (b = map_find(kv, tag_of(key, k))) != NONE && kv->in_free[b]) k++;
    return k;
}

void ss_kv_touch(ss_kv_cache *kv, ss_kv_held *h, uint64_t key, uint32_t hits)
{
    assert(h->n == 0);
    if (!(key & SS_KV_SHARED)) {
        assert(hits <= h->kept);
        for (uint32_t i = 0; i < hits; i++) unlink_block(kv, h->ids[i]);
        h->n = hits;
        return;
    }
    if (hits > h->cap) {
        h->cap = hits;
        h->ids = ss_xrealloc(h->ids, h->cap * sizeof *h->ids);
    }
    for (uint32_t i = 0; i < hits; i++) {
        uint32_t b = map_find(kv, tag_of(key, i));
        assert(b != NONE && kv->in_free[b]);
        unlink_block(kv, b);
        h->ids[i] = b;
    }
    h->n = h->kept = hits;
}

void ss_kv_held_free(ss_kv_held *h)
{
    free(h->ids);
    *h = (ss_kv_held){0};
}

double ss_kv_usage(const ss_kv_cache *kv)
{
    return (double)(kv->num_blocks - kv->free_blocks) / kv->num_blocks;
}
