/* util.h: error reports with file:line:col, checked allocation, and the
 * "did you mean" helper shared by every input reader.
 *
 * Error philosophy: bad input is reported once, as "file:line:col: message",
 * through an ss_err the caller owns; functions return -1 after setting it.
 * Running out of memory is not bad input: the x-allocators abort. */
#ifndef SS_UTIL_H
#define SS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/limits.h"

typedef struct ss_err {
    int set;         /* 1 once a message is recorded; later ones are ignored */
    char msg[1024];  /* "file:line:col: message" */
} ss_err;

/* Record "file:line:col: fmt..." (line/col 0 are omitted) unless an error is
 * already recorded.  Always returns -1 so callers can `return ss_err_at(...)`. */
int ss_err_at(ss_err *e, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same with a va_list, for a module's own positioned-error helpers. */
int ss_err_vat(ss_err *e, const char *file, int line, int col, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

void *ss_xmalloc(size_t n);
void *ss_xcalloc(size_t n, size_t size);
void *ss_xrealloc(void *p, size_t n);
char *ss_xstrdup(const char *s);
char *ss_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* open_memstream(3) that aborts when it cannot allocate: text built with
 * stdio into *buf (NUL-terminated, *len bytes once the stream is closed). */
FILE *ss_xmemstream(char **buf, size_t *len);

/* A command-line usage error: prints "servesim CMD: <fmt with arg>" and
 * "(try 'servesim CMD --help')" to stderr; returns 2, the bad-input exit
 * status, so commands can `return ss_bad_usage(...)`. */
int ss_bad_usage(const char *cmd, const char *fmt, const char *arg);

/* The arguments shared by commands that read one FILE (sweep, plan):
 * FILE, -o/--output PATH, --set KEY=VALUE (repeatable; also --set=...) and
 * --quiet.  ss_cli_take looks at argv[*i]: 1 if it took it (and its value:
 * *i then points at the value), 0 if it is none of these (the command's
 * own option, or an unknown one), or 2 after printing a usage error (a
 * missing value, a second FILE). */
typedef struct ss_cli {
    const char *path, *output;
    char **sets;  /* pointers into argv */
    size_t nsets;
    int quiet;
} ss_cli;
int ss_cli_take(ss_cli *c, const char *cmd, int argc, char **argv, int *i);
void ss_cli_free(ss_cli *c);

/* An input file opened for reading, noted as an input (readlog.h); NULL
 * with err set ("path: cannot read: reason") when it cannot be opened or
 * is not a regular file: a folder, a FIFO (whose read would wait for a
 * writer), a device (/dev/zero would never end) or a socket is refused
 * before a byte is read, and so is a file larger than its kind's cap
 * (limits.h). */
FILE *ss_open_input(const char *path, ss_input_kind kind, ss_err *err);
/* What a file of mode `mode` is, in words ("a FIFO", "a character device",
 * ...), for a message; NULL for a regular file. */
const char *ss_file_kind(unsigned mode);
/* The whole file, NUL-terminated, length in *len; NULL with err set
 * ("path: cannot read: reason").  Opened by ss_open_input. */
char *ss_read_file(const char *path, ss_input_kind kind, size_t *len, ss_err *err);

/* Index of string s in list[0..*n-1], appending a copy first if it is not
 * there (first-seen order; linear, for the short lists of column names). */
size_t ss_intern(char ***list, size_t *n, const char *s);

/* Are a and b the same string, or both NULL (an optional field)? */
int ss_same_str(const char *a, const char *b);

/* Edit distance (Levenshtein) between two strings. */
size_t ss_edit_distance(const char *a, const char *b);

/* The candidate nearest to `word` if it is close enough to be a plausible
 * typo (distance <= max(2, len/3)), else NULL.  `cands` is NULL-terminated. */
const char *ss_suggest(const char *word, const char *const *cands);

/* 64-bit mixing (splitmix64 finaliser) and FNV-1a string hash: used to derive
 * independent stream seeds from (scenario seed, stream name). */
uint64_t ss_mix64(uint64_t x);
uint64_t ss_hash_str(const char *s);
/* FNV-1a of n bytes (ss_hash_str is this over the string's bytes): for
 * noticing changed files and rows. */
uint64_t ss_hash_bytes(const void *p, size_t n);

/* x with `decimals` (0..9) digits after the point, exactly as
 * printf("%.*f", decimals, x) writes it (round to nearest, ties to even),
 * but without printf's multi-precision arithmetic for the common case
 * 0 <= x < 2^53 / 10^decimals.  buf holds at least SS_FMT_FIXED_MAX bytes;
 * returns the length written (NUL not counted). */
#define SS_FMT_FIXED_MAX 400
int ss_fmt_fixed(char *buf, double x, int decimals);

/* Directory part of a path ("." if none), newly allocated. */
char *ss_dirname(const char *path);
/* Do two paths name one file?  Both existing: the same device and inode
 * (hard links and symbolic links included); otherwise the same canonical
 * folder and name.  For refusing an output that would overwrite an input or
 * another output. */
int ss_same_file(const char *a, const char *b);
/* The first output of outs[0..nout-1] (NULL entries skipped) that names
 * the same file as an input or as another output: 0 if none, else -1 with
 * err set ("out: is also the <what> 'in': choose another output path"). */
int ss_check_outputs(const char *const *ins, const char *const *in_what, size_t nin, const char *const *outs,
                     const char *const *out_what, size_t nout, ss_err *err);
/* The one number syntax of every input (YAML, JSON, CSV, traces, --set and
 * the command line): decimal only.  ss_strtod is strtod restricted to
 * [space][sign]digits[.digits][(e|E)[sign]digits] (".5" and "5." too):
 * hexadecimal numbers and floats, "inf", "nan" and "infinity" convert
 * nothing (*end == s), so each caller's "expected a number" refuses them
 * as it refuses any other text.  ss_strtou64 is strtoull restricted to
 * plain decimal digits: no space, no sign ("-1" is not 2^64 - 1), errno
 * ERANGE past 2^64 - 1. */
double ss_strtod(const char *s, char **end);
unsigned long long ss_strtou64(const char *s, char **end);
/* What keeps s from being a name, in words for "expected a name, got ...",
 * or NULL if it is one: non-empty, at most SS_NAME_MAX bytes, valid UTF-8
 * with no control character, and no '/' (it separates a host from its
 * device, and a name may become part of an output path). */
enum { SS_NAME_MAX = 256 };
const char *ss_name_problem(const char *s);
/* `rel` resolved against directory `dir` unless absolute; newly allocated. */
char *ss_path_join(const char *dir, const char *rel);

#endif
