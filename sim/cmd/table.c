/* table.c: columns sized to their contents, half-widths aligned (table.h). */
#include "cmd/table.h"

#include <stdlib.h>

#include "cmd/text.h"
#include "core/util.h"

typedef struct cell {
    char *text, *pm;
} cell;

typedef struct column {
    char *title;
    int left;
} column;

struct ss_table {
    column *cols;
    size_t ncols;
    cell *cells; /* row-major, ncols a row */
    size_t nrows;
};

ss_table *ss_table_new(void) { return ss_xcalloc(1, sizeof(ss_table)); }

size_t ss_table_col(ss_table *t, const char *title, int left)
{
    t->cols = ss_xrealloc(t->cols, (t->ncols + 1) * sizeof *t->cols);
    t->cols[t->ncols] = (column){ss_xstrdup(title), left};
    return t->ncols++;
}

void ss_table_row(ss_table *t)
{
    t->cells = ss_xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof *t->cells);
    for (size_t c = 0; c < t->ncols; c++) t->cells[t->nrows * t->ncols + c] = (cell){NULL, NULL};
    t->nrows++;
}

void ss_table_cell(ss_table *t, size_t col, const char *text, const char *pm)
{
    cell *x = &t->cells[(t->nrows - 1) * t->ncols + col];
    free(x->text);
    free(x->pm);
    x->text = ss_xstrdup(text);
    x->pm = pm ? ss_xstrdup(pm) : NULL;
}

static size_t cols_of(const char *s) { return s ? ss_text_cols(s) : 0; }

static void pad(FILE *fp, size_t n)
{
    while (n--) fputc(' ', fp);
}

void ss_table_print(const ss_table *t, FILE *fp)
{
    size_t *wtext = ss_xcalloc(t->ncols + 1, sizeof *wtext), *wpm = ss_xcalloc(t->ncols + 1, sizeof *wpm),
           *width = ss_xcalloc(t->ncols + 1, sizeof *width);
    size_t sign = ss_text_cols(ss_text_pm()) + 2; /* " ± " */
    for (size_t c = 0; c < t->ncols; c++) {
        for (size_t r = 0; r < t->nrows; r++) {
            const cell *x = &t->cells[r * t->ncols + c];
            if (cols_of(x->text) > wtext[c]) wtext[c] = cols_of(x->text);
            if (cols_of(x->pm) > wpm[c]) wpm[c] = cols_of(x->pm);
        }
        width[c] = wtext[c] + (wpm[c] ? sign + wpm[c] : 0);
        if (cols_of(t->cols[c].title) > width[c]) width[c] = cols_of(t->cols[c].title);
    }
    for (size_t c = 0; c < t->ncols; c++) {
        const column *k = &t->cols[c];
        size_t gap = width[c] - cols_of(k->title);
        if (c) fputs("  ", fp);
        if (!k->left) pad(fp, gap);
        fputs(k->title, fp);
        if (k->left && c + 1 < t->ncols) pad(fp, gap);
    }
    fputc('\n', fp);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const cell *x = &t->cells[r * t->ncols + c];
            const char *text = x->text ? x->text : "";
            if (c) fputs("  ", fp);
            if (t->cols[c].left) {
                fputs(text, fp);
                if (c + 1 < t->ncols) pad(fp, width[c] - cols_of(text));
                continue;
            }
            /* the block (text, sign, half-width) right-aligned, the texts aligned within it */
            size_t block = wtext[c] + (wpm[c] ? sign + wpm[c] : 0);
            pad(fp, width[c] - block + wtext[c] - cols_of(text));
            fputs(text, fp);
            if (!wpm[c]) continue;
            if (x->pm) {
                fprintf(fp, " %s ", ss_text_pm());
                pad(fp, wpm[c] - cols_of(x->pm));
                fputs(x->pm, fp);
            } else {
                pad(fp, sign + wpm[c]);
            }
        }
        fputc('\n', fp);
    }
    free(wtext);
    free(wpm);
    free(width);
}

void ss_table_free(ss_table *t)
{
    if (!t) return;
    for (size_t c = 0; c < t->ncols; c++) free(t->cols[c].title);
    for (size_t i = 0; i < t->nrows * t->ncols; i++) {
        free(t->cells[i].text);
        free(t->cells[i].pm);
    }
    free(t->cols);
    free(t->cells);
    free(t);
}
