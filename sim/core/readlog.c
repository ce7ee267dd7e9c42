/* readlog.c: the process-wide log of input files read (see readlog.h). */
#include "core/readlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on;
static char **paths;
static size_t npaths;

static void drop(void)
{
    for (size_t i = 0; i < npaths; i++) free(paths[i]);
    free(paths);
    paths = NULL;
    npaths = 0;
}

void ss_read_log_start(void)
{
    drop();
    on = 1;
}

/* (Not ss_intern: util.c notes its reads here, and core/util must not
 * depend on this module both ways.) */
void ss_read_log_note(const char *path)
{
    if (!on) return;
    for (size_t i = 0; i < npaths; i++)
        if (strcmp(paths[i], path) == 0) return;
    char **grown = realloc(paths, (npaths + 1) * sizeof *paths);
    char *copy = strdup(path);
    if (!grown || !copy) {
        fputs("servesim: out of memory\n", stderr);
        abort();
    }
    paths = grown;
    paths[npaths++] = copy;
}

char **ss_read_log_take(size_t *n)
{
    char **p = paths;
    *n = npaths;
    paths = NULL;
    npaths = 0;
    on = 0;
    return p;
}
