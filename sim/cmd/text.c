/* text.c: the locale's character set, read once, for the tables' one
 * non-ASCII sign (text.h). */
#include "cmd/text.h"

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "UTF-8", "utf8", "en_US.UTF-8", "C.utf8": the name says UTF-8. */
static int names_utf8(const char *s)
{
    for (; s && *s; s++)
        if (strncasecmp(s, "utf-8", 5) == 0 || strncasecmp(s, "utf8", 4) == 0) return 1;
    return 0;
}

int ss_text_utf8(void)
{
    static int known = -1;
    if (known >= 0) return known;
    /* nl_langinfo answers for the locale set, so set the user's for a moment
     * (a name this system lacks fails: then the variables' names decide). */
    const char *was = setlocale(LC_CTYPE, NULL);
    char *saved = was ? strdup(was) : NULL;
    if (setlocale(LC_CTYPE, "")) {
        known = names_utf8(nl_langinfo(CODESET));
    } else {
        const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"}, *name = NULL;
        for (size_t i = 0; i < 3 && !name; i++) {
            const char *v = getenv(vars[i]);
            if (v && *v) name = v;
        }
        known = names_utf8(name);
    }
    setlocale(LC_CTYPE, saved ? saved : "C");
    free(saved);
    return known;
}

const char *ss_text_pm(void) { return ss_text_utf8() ? "\xc2\xb1" : "+/-"; }

size_t ss_text_cols(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}
