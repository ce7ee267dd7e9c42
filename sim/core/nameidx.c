/* nameidx.c: names to indices by open addressing (contract in nameidx.h). */
#include "core/nameidx.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The slot holding name, or the empty slot where it would go.  FNV-1a's
 * low bits depend on the low bits of the bytes only (its multiply carries
 * upwards), so the hash is mixed before it is masked: names that differ in a
 * digit's high bits would otherwise cluster. */
static ss_nameidx_slot *find_slot(const ss_nameidx *ix, const char *name)
{
    size_t mask = ix->nslots - 1, i = (size_t)ss_mix64(ss_hash_str(name)) & mask;
    while (ix->slots[i].name && strcmp(ix->slots[i].name, name) != 0) i = (i + 1) & mask;
    return &ix->slots[i];
}

uint32_t ss_nameidx_get(const ss_nameidx *ix, const char *name)
{
    if (ix->n == 0) return SS_NAMEIDX_NONE;
    const ss_nameidx_slot *s = find_slot(ix, name);
    return s->name ? s->index : SS_NAMEIDX_NONE;
}

static void grow(ss_nameidx *ix)
{
    ss_nameidx old = *ix;
    ix->nslots = old.nslots ? 2 * old.nslots : 64;
    ix->slots = ss_xcalloc(ix->nslots, sizeof *ix->slots);
    for (size_t i = 0; i < old.nslots; i++)
        if (old.slots[i].name) *find_slot(ix, old.slots[i].name) = old.slots[i];
    free(old.slots);
}

/* The slot of name, made (index SS_NAMEIDX_NONE) if it was not there. */
static ss_nameidx_slot *slot_of(ss_nameidx *ix, const char *name)
{
    if (2 * (ix->n + 1) > ix->nslots) grow(ix); /* keep the load factor under 1/2 */
    ss_nameidx_slot *s = find_slot(ix, name);
    if (!s->name) {
        *s = (ss_nameidx_slot){name, SS_NAMEIDX_NONE};
        ix->n++;
    }
    return s;
}

uint32_t ss_nameidx_put(ss_nameidx *ix, const char *name, uint32_t index)
{
    ss_nameidx_slot *s = slot_of(ix, name);
    uint32_t had = s->index;
    if (had == SS_NAMEIDX_NONE) s->index = index;
    return had;
}

void ss_nameidx_set(ss_nameidx *ix, const char *name, uint32_t index)
{
    slot_of(ix, name)->index = index;
}

void ss_nameidx_free(ss_nameidx *ix)
{
    free(ix->slots);
    *ix = (ss_nameidx)SS_NAMEIDX_INIT;
}
