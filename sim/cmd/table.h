/* table.h: a text table for a person to read (table.c): each column as wide
 * as its widest cell or title, in display columns (cmd/text.h), two spaces
 * between columns; names left-aligned, numbers right-aligned, and a cell's
 * 95% half-width after the locale's plus-minus sign (text.h), aligned under
 * the others of its column.  Every line of a table is as wide as its header.
 * The run's summary table is one (report.c). */
#ifndef SS_TABLE_H
#define SS_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef struct ss_table ss_table;

ss_table *ss_table_new(void);
/* A column titled `title`, its cells left-aligned (left 1) or right-aligned;
 * its index.  Columns come before the first row. */
size_t ss_table_col(ss_table *t, const char *title, int left);
/* A new row, empty: its cells are set by ss_table_cell. */
void ss_table_row(ss_table *t);
/* Cell `col` of the last row: `text`, and `pm` (NULL: none) the half-width
 * printed after the sign.  Both copied. */
void ss_table_cell(ss_table *t, size_t col, const char *text, const char *pm);
/* The header line, then every row. */
void ss_table_print(const ss_table *t, FILE *fp);
void ss_table_free(ss_table *t);

#endif
