/* limits.c: the process-wide limits of limits.h and the options that raise
 * them.  The defaults are fixed, not read from the machine, so that
 * whether a scenario is refused does not depend on where it runs: a
 * YAML or JSON document of 64 MiB is far past any hand-written scenario
 * or measured profile (the largest shipped is under 1 MiB); a CSV read
 * whole of 1 GiB, a trace of 4 GiB (streamed: it costs 8 bytes of memory
 * per arrival, not its text); 8 GiB of estimated memory. */
#include "core/limits.h"

#include <string.h>

static uint64_t input_cap[SS_INPUT_KINDS] = {64ull << 20, 1ull << 30, 4ull << 30};
static double memory_cap_bytes = 8.0 * (1ull << 30);

uint64_t ss_limit_input_bytes(ss_input_kind kind) { return input_cap[kind]; }

const char *ss_input_kind_words(ss_input_kind kind)
{
    static const char *const words[] = {"a YAML or JSON file", "a CSV file", "a trace"};
    return words[kind];
}

double ss_limit_memory_bytes(void) { return memory_cap_bytes; }

/* SIZE: decimal digits, optionally K, M, G or T (binary), optionally
 * followed by "iB" or "B"; at least 1, at most 2^60.  0 ok, -1 bad. */
static int parse_size(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9') return -1;
    uint64_t v = 0;
    const char *end = s;
    for (; *end >= '0' && *end <= '9'; end++) {
        if (v > (1ull << 60)) return -1;
        v = 10 * v + (uint64_t)(*end - '0');
    }
    unsigned shift = 0;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (u) {
        shift = 10u * (unsigned)(u - units + 1);
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0) end += strlen(end);
    } else if (strcmp(end, "B") == 0) {
        end++;
    }
    if (*end || v == 0 || v > (1ull << 60) >> shift) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int ss_limits_take_args(int *argc, char **argv, int first, const char **opt, const char **val_out)
{
    static const char *const opts[] = {"--max-input-bytes", "--max-memory"};
    int w = first;
    for (int i = first; i < *argc; i++) {
        int which = -1;
        const char *val = NULL;
        for (int k = 0; k < 2 && which < 0; k++) {
            size_t n = strlen(opts[k]);
            if (strcmp(argv[i], opts[k]) == 0) {
                which = k;
                if (i + 1 < *argc) val = argv[++i];
            } else if (strncmp(argv[i], opts[k], n) == 0 && argv[i][n] == '=') {
                which = k;
                val = argv[i] + n + 1;
            }
        }
        if (which < 0) {
            argv[w++] = argv[i];
            continue;
        }
        uint64_t size;
        if (!val || parse_size(val, &size) < 0) {
            *opt = opts[which];
            *val_out = val;
            return -1;
        }
        if (which == 0)
            for (int k = 0; k < SS_INPUT_KINDS; k++) input_cap[k] = size;
        else
            memory_cap_bytes = (double)size;
    }
    *argc = w;
    argv[w] = NULL;
    return 0;
}
