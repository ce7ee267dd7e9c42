/* vram.c: the memory ledger of vram.h (VRAM per GPU, RAM per host). */
#include "pipeline/vram.h"

#include <stdlib.h>

#include "core/util.h"

void ss_ledger_init(ss_ledger *l, size_t n)
{
    l->n = n;
    l->cur_mib = ss_xcalloc(n ? n : 1, sizeof *l->cur_mib);
    l->peak_mib = ss_xcalloc(n ? n : 1, sizeof *l->peak_mib);
}

void ss_ledger_free(ss_ledger *l)
{
    free(l->cur_mib);
    free(l->peak_mib);
    l->cur_mib = l->peak_mib = NULL;
    l->n = 0;
}

void ss_ledger_add_mib(ss_ledger *l, size_t i, double mib)
{
    if (i >= l->n) return;
    l->cur_mib[i] += mib;
    /* Release may leave rounding dust below zero. */
    if (l->cur_mib[i] < 1e-9 && l->cur_mib[i] > -1e-6) l->cur_mib[i] = 0;
    if (l->cur_mib[i] > l->peak_mib[i]) l->peak_mib[i] = l->cur_mib[i];
}
