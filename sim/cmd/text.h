/* text.h: the tables a person reads (the run table, compare's table) under any
 * locale.  Under a UTF-8 locale they keep their one non-ASCII sign, the
 * plus-minus of a confidence interval; under any other (LANG=C, POSIX, Latin-1)
 * they are plain ASCII, "+/-".  CSV and every file servesim writes are ASCII
 * whatever the locale, so the locale never changes a result's bytes. */
#ifndef SS_TEXT_H
#define SS_TEXT_H

#include <stddef.h>

/* 1 if the user's locale (LC_ALL, else LC_CTYPE, else LANG, as
 * setlocale(LC_CTYPE, "") reads them) has the UTF-8 character set.  Read
 * once; the process's own locale is left as it was. */
int ss_text_utf8(void);
/* The plus-minus sign for a table: "\u00b1" under UTF-8, else "+/-". */
const char *ss_text_pm(void);
/* Display columns of UTF-8 text: its characters (bytes less continuation bytes). */
size_t ss_text_cols(const char *s);

#endif
