/* kv_cache.c: the block ledger of an LLM engine's KV cache (kv_cache.h). */
#include "llm/kv_cache.h"

#include <assert.h>

void ss_kv_init(ss_kv_cache *kv, uint32_t block_size, uint32_t num_blocks)
{
    assert(block_size >= 1 && num_blocks >= 1);
    *kv = (ss_kv_cache){.block_size = block_size, .num_blocks = num_blocks, .free_blocks = num_blocks};
}

uint32_t ss_kv_blocks_for(const ss_kv_cache *kv, uint64_t tokens)
{
    uint64_t b = (tokens + kv->block_size - 1) / kv->block_size;
    return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

int ss_kv_grow(ss_kv_cache *kv, uint32_t *held, uint64_t tokens)
{
    uint32_t want = ss_kv_blocks_for(kv, tokens);
    if (want <= *held) return 1;
    uint32_t more = want - *held;
    if (more > kv->free_blocks) return 0;
    kv->free_blocks -= more;
    *held = want;
    return 1;
}

void ss_kv_release(ss_kv_cache *kv, uint32_t *held)
{
    kv->free_blocks += *held;
    assert(kv->free_blocks <= kv->num_blocks);
    *held = 0;
}

double ss_kv_usage(const ss_kv_cache *kv)
{
    return (double)(kv->num_blocks - kv->free_blocks) / kv->num_blocks;
}
