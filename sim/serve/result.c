/* result.c: the results of one run (result.h): freeing them, and adding
 * run-level extra columns. */
#include "serve/result.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void ss_run_result_free(ss_run_result *r)
{
    for (size_t i = 0; i < r->ntasks; i++) free(r->tasks[i].name);
    free(r->tasks);
    free(r->util);
    for (size_t i = 0; i < r->nextras; i++) free(r->extras[i].col);
    free(r->extras);
    memset(r, 0, sizeof *r);
}

void ss_run_result_extra(ss_run_result *r, const char *col, double value)
{
    r->extras = ss_xrealloc(r->extras, (r->nextras + 1) * sizeof *r->extras);
    r->extras[r->nextras++] = (ss_extra){ss_xstrdup(col), value};
}
