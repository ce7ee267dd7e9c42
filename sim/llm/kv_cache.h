/* kv_cache.h: an LLM engine's paged KV cache as a ledger of fixed-size
 * blocks (vLLM's KVCacheManager without the prefix cache): each request
 * holds ceil(tokens / block_size) blocks for the tokens whose keys and
 * values are in the cache; blocks are allocated before a step computes
 * them and all freed when the request finishes or is preempted.
 * (docs/llm.md, "The KV cache".)  Counts only: which block holds what does
 * not change a step's time. */
#ifndef SS_LLM_KV_CACHE_H
#define SS_LLM_KV_CACHE_H

#include <stdint.h>

typedef struct ss_kv_cache {
    uint32_t block_size;   /* tokens per block (>= 1) */
    uint32_t num_blocks;   /* blocks in the cache (>= 1) */
    uint32_t free_blocks;
} ss_kv_cache;

void ss_kv_init(ss_kv_cache *kv, uint32_t block_size, uint32_t num_blocks);
/* Blocks that hold `tokens` tokens. */
uint32_t ss_kv_blocks_for(const ss_kv_cache *kv, uint64_t tokens);
/* Grow a request holding *held blocks to hold `tokens` tokens: 1 and *held
 * updated, or 0 (nothing changed) when the free blocks do not suffice. */
int ss_kv_grow(ss_kv_cache *kv, uint32_t *held, uint64_t tokens);
/* Give back every block a request holds (*held set to 0). */
void ss_kv_release(ss_kv_cache *kv, uint32_t *held);
/* The fraction of blocks in use (0 to 1). */
double ss_kv_usage(const ss_kv_cache *kv);

#endif
