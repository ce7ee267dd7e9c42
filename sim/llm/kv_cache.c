/* kv_cache.c: the paged KV cache's free queue, holdings and prefix hits
 * (kv_cache.h). */
#include "llm/kv_cache.h"

#include <assert.h>
#include <stdlib.h>

#include "core/util.h"

#define NONE UINT32_MAX

static uint64_t tag_of(uint64_t owner, uint32_t index)
{
    return ((owner + 1) << 24) | index; /* 0 is no content; up to 2^24 blocks a request */
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
        kv->tag[b] = 0; /* evicted */
        h->ids[h->n++] = b;
    }
    if (h->kept < h->n) h->kept = h->n;
    return 1;
}

void ss_kv_release(ss_kv_cache *kv, ss_kv_held *h, uint64_t computed, uint64_t owner)
{
    for (uint32_t i = h->n; i-- > 0;) {
        uint32_t b = h->ids[i];
        int full = (uint64_t)(i + 1) * kv->block_size <= computed;
        kv->tag[b] = kv->caching && full ? tag_of(owner, i) : 0;
        push_tail(kv, b);
    }
    h->kept = h->n;
    h->n = 0;
}

uint32_t ss_kv_hits(const ss_kv_cache *kv, const ss_kv_held *h, uint64_t owner, uint32_t max)
{
    if (!kv->caching) return 0;
    uint32_t k = 0;
    while (k < h->kept && k < max && kv->in_free[h->ids[k]] && kv->tag[h->ids[k]] == tag_of(owner, k)) k++;
    return k;
}

void ss_kv_touch(ss_kv_cache *kv, ss_kv_held *h, uint32_t hits)
{
    assert(h->n == 0 && hits <= h->kept);
    for (uint32_t i = 0; i < hits; i++) unlink_block(kv, h->ids[i]);
    h->n = hits;
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
