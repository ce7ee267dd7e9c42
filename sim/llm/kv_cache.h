/* kv_cache.h: an LLM engine's paged KV cache (vLLM's BlockPool and
 * KVCacheManager, one attention group): num_blocks blocks of block_size
 * tokens.  A request holds ceil(tokens / block_size) blocks for its computed
 * tokens, taken from the head of the free queue before the step that
 * computes them; when it finishes or is preempted its blocks go back to the
 * free queue's tail, the last block first (so that a request's tail is
 * evicted before its head).  With prefix caching a full block keeps its
 * content while it waits there, until it is taken again (evicted): its
 * content is (key, index), the key naming a token sequence - a request's
 * own, or a conversation's, whose every turn extends the tokens of the turn
 * before (a key with SS_KV_SHARED set).  A request's own blocks are found
 * where it left them (the ids it held); a shared key's through a table
 * from content to block (vLLM's cached_block_hash_to_block), which only
 * shared contents enter.  A request that starts (a preempted
 * one resumed, a conversation's next turn) finds the blocks of its key's
 * prefix still there: those are hits, taken out of the free queue, not
 * computed again.  (docs/llm.md, "The KV cache".)  [ASSUMPTIONS: no two
 * sequences share content unless they share a key; a block another running
 * request holds is not shared (vLLM would share it by reference count).] */
#ifndef SS_LLM_KV_CACHE_H
#define SS_LLM_KV_CACHE_H

#include <stdint.h>

typedef struct ss_kv_cache {
    uint32_t block_size;   /* tokens per block (>= 1) */
    uint32_t num_blocks;   /* blocks in the cache (>= 1) */
    uint32_t free_blocks;  /* in the free queue (cached or empty) */
    int caching;           /* prefix caching: freed full blocks keep their content */
    uint64_t *tag;         /* per block: its content (key and index, hashed), 0: none */
    uint64_t *map_tag;     /* content -> block: open addressing, linear probing (0: empty slot) */
    uint32_t *map_block;
    uint32_t map_mask;     /* slots - 1 (slots: a power of two >= 2 x num_blocks); NULL tables until a shared
                            * content is first cached */
    uint32_t *prev, *next; /* the free queue, doubly linked (UINT32_MAX: none) */
    uint8_t *in_free;
    uint32_t head, tail;
} ss_kv_cache;

/* A key that several requests share (a conversation's): its blocks are found through the table. */
#define SS_KV_SHARED (1ull << 63)

/* The blocks a request holds (ids[0..n)), and after it gave them back the
 * ones it held (ids[0..kept)), for its own hits when it comes back. */
typedef struct ss_kv_held {
    uint32_t *ids;
    uint32_t n, kept, cap;
} ss_kv_held;

void ss_kv_init(ss_kv_cache *kv, uint32_t block_size, uint32_t num_blocks, int caching);
void ss_kv_free(ss_kv_cache *kv);
/* Blocks that hold `tokens` tokens. */
uint32_t ss_kv_blocks_for(const ss_kv_cache *kv, uint64_t tokens);
/* Grow h to hold `tokens` tokens from the free queue's head: 1, or 0
 * (nothing changed) when the free blocks do not suffice. */
int ss_kv_grow(ss_kv_cache *kv, ss_kv_held *h, uint64_t tokens);
/* Give back every block h holds, the last first; with caching the ones
 * full of its `computed` tokens keep their content as key's (a content
 * some other cached block has already stays that block's). */
void ss_kv_release(ss_kv_cache *kv, ss_kv_held *h, uint64_t computed, uint64_t key);
/* How many blocks of key's prefix, at most max, wait cached in the free queue (h: the request's
 * holdings, where its own blocks are). */
uint32_t ss_kv_hits(const ss_kv_cache *kv, const ss_kv_held *h, uint64_t key, uint32_t max);
/* Take those `hits` blocks out of the free queue: h (holding none) holds them. */
void ss_kv_touch(ss_kv_cache *kv, ss_kv_held *h, uint64_t key, uint32_t hits);
void ss_kv_held_free(ss_kv_held *h);
/* The fraction of blocks held (0 to 1). */
double ss_kv_usage(const ss_kv_cache *kv);

#endif
