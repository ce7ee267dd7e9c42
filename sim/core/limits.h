/* limits.h: what one command may ask of the machine, process-wide: the
 * largest input file of each kind and the memory a scenario may be
 * estimated to need (docs/limits.md).  Every command takes the same two
 * options to raise them: --max-input-bytes SIZE and --max-memory SIZE
 * (SIZE: bytes, or with a unit K, M, G, T = KiB, MiB, GiB, TiB). */
#ifndef SS_LIMITS_H
#define SS_LIMITS_H

#include <stdint.h>

/* The kinds of input a size cap applies to. */
typedef enum ss_input_kind {
    SS_INPUT_DOCUMENT, /* YAML or JSON: scenario, profile, plan, topology, sweep */
    SS_INPUT_TABLE,    /* CSV read whole: transfers, results to compare, a sweep's own results */
    SS_INPUT_TRACE,    /* an arrival trace, read line by line */
    SS_INPUT_KINDS
} ss_input_kind;

/* The cap on a file of that kind, in bytes, and its words for a message. */
uint64_t ss_limit_input_bytes(ss_input_kind kind);
const char *ss_input_kind_words(ss_input_kind kind);
/* The memory a scenario may be estimated to need, in bytes. */
double ss_limit_memory_bytes(void);

/* The longest line a line-by-line reader accepts, in bytes. */
#define SS_MAX_LINE_BYTES (1u << 20)

/* Take --max-input-bytes SIZE and --max-memory SIZE (also --opt=SIZE) out
 * of argv[first..*argc-1], wherever they are, setting the limits; the rest
 * keep their order.  0, or -1 with *opt the option whose value (*val,
 * NULL if missing) is not a size. */
int ss_limits_take_args(int *argc, char **argv, int first, const char **opt, const char **val);

#endif
