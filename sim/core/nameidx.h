/* nameidx.h: names to indices in expected constant time, so that readers
 * look a name up or refuse a duplicate without a scan of everything read
 * before (issue 40: input checks in linear time).
 *
 * An open-addressing hash table (FNV-1a of the name, linear probing, load
 * kept under 1/2) of (name, index) pairs.  The index does not copy the
 * names: each must stay where it is, unchanged, while the index holds it
 * (the caller's own strings: node names, device names).  Zero-initialised
 * (SS_NAMEIDX_INIT) is an empty index. */
#ifndef SS_NAMEIDX_H
#define SS_NAMEIDX_H

#include <stddef.h>
#include <stdint.h>

#define SS_NAMEIDX_NONE UINT32_MAX /* no such name */

typedef struct ss_nameidx_slot {
    const char *name; /* NULL: empty */
    uint32_t index;
} ss_nameidx_slot;

typedef struct ss_nameidx {
    ss_nameidx_slot *slots;
    size_t nslots, n; /* nslots: 0 or a power of two */
} ss_nameidx;

#define SS_NAMEIDX_INIT {0}

/* The index stored under name, or SS_NAMEIDX_NONE. */
uint32_t ss_nameidx_get(const ss_nameidx *ix, const char *name);
/* Store index under name if the name is not there yet, and return
 * SS_NAMEIDX_NONE; if it is, change nothing and return the index it has. */
uint32_t ss_nameidx_put(ss_nameidx *ix, const char *name, uint32_t index);
/* Store index under name, in place of what it had if it was there. */
void ss_nameidx_set(ss_nameidx *ix, const char *name, uint32_t index);
/* Back to empty, memory released. */
void ss_nameidx_free(ss_nameidx *ix);

#endif
