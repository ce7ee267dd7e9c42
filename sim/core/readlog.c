/* readlog.c: the process-wide log of input files read (see readlog.h). */
#include "core/readlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on;
static char **paths;
static size_t npaths;

/* Every input read, by identity, with the first path it was read by. */
typedef struct input_id {
    unsigned long long dev, ino;
    char *path;
} input_id;
static input_id *inputs;
static size_t ninputs, inputs_cap;
static int paused; /* ss_read_note_pause */

static void out_of_memory(void)
{
    fputs("servesim: out of memory\n", stderr);
    abort();
}

void ss_read_note_input(const char *path, unsigned long long dev, unsigned long long ino)
{
    if (paused || ss_read_input_path(dev, ino)) return;
    if (ninputs == inputs_cap) {
        inputs_cap = inputs_cap ? 2 * inputs_cap : 16;
        input_id *more = realloc(inputs, inputs_cap * sizeof *inputs);
        if (!more) out_of_memory();
        inputs = more;
    }
    char *copy = strdup(path);
    if (!copy) out_of_memory();
    inputs[ninputs++] = (input_id){.dev = dev, .ino = ino, .path = copy};
}

void ss_read_note_pause(int p) { paused = p; }

const char *ss_read_input_path(unsigned long long dev, unsigned long long ino)
{
    for (size_t i = 0; i < ninputs; i++)
        if (inputs[i].dev == dev && inputs[i].ino == ino) return inputs[i].path;
    return NULL;
}

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
    if (paused || !on) return;
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
