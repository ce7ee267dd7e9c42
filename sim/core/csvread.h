/* csvread.h: reading back the CSV files servesim writes (RFC 4180: quoted
 * fields may hold commas, quotes and newlines).
 *
 * Used where results are read again: `sweep --resume` (which rows are
 * already there, and where a torn last line starts) and `compare`; and for
 * CSV inputs (Azure Functions traces, `flows` transfer lists).  The whole
 * file is read at once: these files are small next to memory. */
#ifndef SS_CSVREAD_H
#define SS_CSVREAD_H

#include <stddef.h>
#include "core/util.h"

typedef struct ss_csv_row {
    char **f;      /* fields, each NUL-terminated */
    size_t n;
    size_t end;    /* byte offset just after this record's newline */
    int line;      /* 1-based line where the record starts */
} ss_csv_row;

typedef struct ss_csv {
    char *path;
    ss_csv_row *rows;  /* rows[0] is the header if the file has one */
    size_t nrows;
    size_t size;       /* bytes in the file */
    int torn;          /* the file ends inside a record (1: no final newline, 2: inside quotes): that record is not in rows */
    int torn_line;     /* 1-based line where that record starts */
    char *arena;       /* the fields' text, all of it */
} ss_csv;

/* 0 ok; -1 with err set ("path: cannot read: reason").  A missing file is
 * an error; a file that ends inside a record (no final newline, or inside
 * quotes) is not: that record is left out and `torn` is set. */
int ss_csv_read(const char *path, ss_csv *out, ss_err *err);
/* The same for a file a person gives as input (a trace, a transfer list,
 * results to compare): a record cut short is refused at its line, "the
 * last line has no newline (a truncated file?)", not left out. */
int ss_csv_read_whole(const char *path, ss_csv *out, ss_err *err);
void ss_csv_free(ss_csv *csv);
/* 1-based column where field k of row r starts on its line (exact for
 * unquoted fields), for file:line:col messages about one field. */
int ss_csv_field_col(const ss_csv_row *r, size_t k);
/* Index of the column named `name` in row `hdr`, or -1. */
long ss_csv_col(const ss_csv_row *hdr, const char *name);

#endif
