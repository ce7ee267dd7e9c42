/* vram.h: a memory ledger - one running total and its peak per slot (a GPU's
 * VRAM, a host's RAM).  Fixed amounts (a process's CUDA context and torch
 * reserve, its 700 MiB of RAM) are added once; items in queues hold bytes
 * and release them.  Amounts in MiB (2^20 bytes) as the thesis' tracker. */
#ifndef SS_VRAM_H
#define SS_VRAM_H

#include <stddef.h>

typedef struct ss_ledger {
    size_t n;
    double *cur_mib, *peak_mib;
} ss_ledger;

void ss_ledger_init(ss_ledger *l, size_t n);
void ss_ledger_free(ss_ledger *l);
/* Add (or with a negative amount, release) MiB in slot i; the peak follows. */
void ss_ledger_add_mib(ss_ledger *l, size_t i, double mib);
static inline void ss_ledger_add_bytes(ss_ledger *l, size_t i, double bytes)
{
    ss_ledger_add_mib(l, i, bytes / 1048576.0);
}

#endif
