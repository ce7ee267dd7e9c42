/* csvread.c: an RFC 4180 reader for servesim's own results files and the
 * CSV inputs people give it (see csvread.h). */
#include "core/csvread.h"

#include <stdlib.h>
#include <string.h>


/* Append the field at *arena (len bytes, unquoted in place) to r. */
static void push_field(ss_csv_row *r, char **arena, size_t len)
{
    /* room for 4 fields, then doubling: grown when n reaches a power of two */
    if (r->n == 0 || (r->n >= 4 && (r->n & (r->n - 1)) == 0))
        r->f = ss_xrealloc(r->f, (r->n ? 2 * r->n : 4) * sizeof *r->f);
    (*arena)[len] = '\0';
    r->f[r->n++] = *arena;
    *arena += len + 1;
}

static void row_free(ss_csv_row *r) { free(r->f); }

int ss_csv_read(const char *path, ss_csv *out, ss_err *err)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *text = ss_read_file(path, SS_INPUT_TABLE, &len, err);
    if (!text) return -1;
    out->path = ss_xstrdup(path);
    out->size = len;
    /* every field's unquoted text, NUL-terminated, back to back: a field is
     * no longer than its text in the file, and its NUL takes the place of
     * the comma or newline after it (or of the end of the file) */
    out->arena = ss_xmalloc(len + 1);
    char *at = out->arena;
    size_t i = 0, rows_cap = 0;
    int line = 1;
    while (i < len) {
        ss_csv_row row = {0};
        row.line = line;
        int done = 0;
        while (!done) {
            size_t b = 0;
            if (i < len && text[i] == '"') {
                i++;
                for (;;) {
                    if (i >= len) { /* the file ends inside quotes: a torn record */
                        row_free(&row);
                        out->torn = 2;
                        out->torn_line = row.line;
                        free(text);
                        return 0;
                    }
                    if (text[i] == '"') {
                        if (i + 1 < len && text[i + 1] == '"') {
                            at[b++] = '"';
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    if (text[i] == '\n') line++;
                    at[b++] = text[i++];
                }
            }
            while (i < len && text[i] != ',' && text[i] != '\n') {
                if (text[i] != '\r') at[b++] = text[i];
                i++;
            }
            push_field(&row, &at, b);
            if (i >= len) { /* no final newline: a torn record */
                out->torn = 1;
                out->torn_line = row.line;
                row_free(&row);
                done = 2;
                break;
            }
            if (text[i++] == '\n') {
                line++;
                done = 1;
            }
        }
        if (done == 2) break;
        row.end = i;
        if (out->nrows == rows_cap) {
            rows_cap = rows_cap ? 2 * rows_cap : 64;
            out->rows = ss_xrealloc(out->rows, rows_cap * sizeof *out->rows);
        }
        out->rows[out->nrows++] = row;
    }
    free(text);
    return 0;
}

int ss_csv_read_whole(const char *path, ss_csv *out, ss_err *err)
{
    if (ss_csv_read(path, out, err) < 0) return -1;
    if (!out->torn) return 0;
    int line = out->torn_line, quotes = out->torn == 2;
    ss_csv_free(out);
    return ss_err_at(err, path, line, 1, quotes ? "the file ends inside a quoted field (a '\"' missing?)"
                                                : "the last line has no newline (a truncated file?)");
}

int ss_csv_field_col(const ss_csv_row *r, size_t k)
{
    int c = 1;
    for (size_t i = 0; i < k && i < r->n; i++) c += (int)strlen(r->f[i]) + 1;
    return c;
}

void ss_csv_free(ss_csv *csv)
{
    for (size_t i = 0; i < csv->nrows; i++) row_free(&csv->rows[i]);
    free(csv->rows);
    free(csv->arena);
    free(csv->path);
    memset(csv, 0, sizeof *csv);
}

long ss_csv_col(const ss_csv_row *hdr, const char *name)
{
    for (size_t i = 0; i < hdr->n; i++)
        if (strcmp(hdr->f[i], name) == 0) return (long)i;
    return -1;
}
