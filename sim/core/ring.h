/* ring.h: growing a FIFO ring buffer (an array used circularly from `head`,
 * `len` items, `cap` slots) when it is full: a buffer twice as large (or
 * `first` slots), the items unrolled to start at 0.  One helper for the
 * queues of the pipeline, its threads, its slot rings and the ensemble. */
#ifndef SS_RING_H
#define SS_RING_H

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* If len == *cap: grow *v (elements of `size` bytes) and reset *head to 0.
 * Returns 1 if it grew. */
static inline int ss_ring_grow(void **v, size_t size, size_t *head, size_t len, size_t *cap, size_t first)
{
    if (len < *cap) return 0;
    size_t ncap = *cap ? 2 * *cap : first;
    char *nv = ss_xcalloc(ncap, size), *old = *v;
    for (size_t i = 0; i < len; i++) memcpy(nv + i * size, old + ((*head + i) % *cap) * size, size);
    free(old);
    *v = nv;
    *cap = ncap;
    *head = 0;
    return 1;
}

#endif
