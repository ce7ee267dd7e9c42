/* cfg_json.c: the JSON front-end of cfg.h.  cJSON parses and validates;
 * cJSON forgets positions, so a small scanner walks the same text in step
 * with the parsed tree to put file:line:col on every node. */
#include "core/cfg.h"
#include "core/cfg_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jscan {
    const char *t;
    size_t len, pos;
    /* a cursor for offset -> line:col; offsets only grow during the walk */
    size_t at;
    int line, col;
    const char *file;
    ss_err *err;
} jscan;

/* Line and column (1-based, in UTF-8 characters like libyaml) of `off`. */
static void jpos(jscan *s, size_t off, int *line, int *col)
{
    for (; s->at < off && s->at < s->len; s->at++) {
        if (s->t[s->at] == '\n') {
            s->line++;
            s->col = 1;
        } else if (((unsigned char)s->t[s->at] & 0xC0) != 0x80) {
            s->col++;
        }
    }
    *line = s->line;
    *col = s->col;
}

static void jskip_ws(jscan *s)
{
    while (s->pos < s->len && (unsigned char)s->t[s->pos] <= ' ') s->pos++;  /* cJSON's notion */
}

static void jskip_string(jscan *s)
{
    for (s->pos++; s->pos < s->len && s->t[s->pos] != '"'; s->pos++)
        if (s->t[s->pos] == '\\') s->pos++;
    s->pos++;
}

/* Step over `c` (which cJSON has already checked is there). */
static int jexpect(jscan *s, char c)
{
    jskip_ws(s);
    if (s->pos >= s->len || s->t[s->pos] != c) {
        int line, col;
        jpos(s, s->pos, &line, &col);
        return ss_err_at(s->err, s->file, line, col, "JSON scanner lost its place (expected '%c')", c);
    }
    s->pos++;
    return 0;
}

static ss_node *jbuild(jscan *s, const cJSON *j);

static ss_node *jcontainer(jscan *s, const cJSON *j, ss_node *n)
{
    int obj = cJSON_IsObject(j);
    if (jexpect(s, obj ? '{' : '[') < 0) goto fail;
    for (const cJSON *c = j->child; c; c = c->next) {
        if (c != j->child && jexpect(s, ',') < 0) goto fail;
        int kline = 0, kcol = 0;
        if (obj) {
            jskip_ws(s);
            jpos(s, s->pos, &kline, &kcol);
            for (size_t i = 0; i < n->n; i++) {
                if (strcmp(n->items[i]->key, c->string) == 0) {
                    ss_err_at(s->err, s->file, kline, kcol, "duplicate key '%s' (first at line %d)", c->string,
                              n->items[i]->key_line);
                    goto fail;
                }
            }
            jskip_string(s);
            if (jexpect(s, ':') < 0) goto fail;
        }
        ss_node *v = jbuild(s, c);
        if (!v) goto fail;
        if (obj) {
            v->key = ss_xstrdup(c->string);
            v->key_line = kline;
            v->key_col = kcol;
        }
        ss_cfg_node_append(n, v);
    }
    if (jexpect(s, obj ? '}' : ']') < 0) goto fail;
    return n;
fail:
    ss_cfg_node_free(n);
    return NULL;
}

static ss_node *jbuild(jscan *s, const cJSON *j)
{
    int line, col;
    jskip_ws(s);
    jpos(s, s->pos, &line, &col);
    if (cJSON_IsObject(j) || cJSON_IsArray(j))
        return jcontainer(s, j, ss_cfg_node_new(cJSON_IsObject(j) ? SS_NODE_MAP : SS_NODE_SEQ, s->file, line, col));
    ss_node *n = ss_cfg_node_new(SS_NODE_SCALAR, s->file, line, col);
    size_t start = s->pos;
    if (cJSON_IsString(j)) {
        n->value = ss_xstrdup(j->valuestring);
        n->quoted = 1;
        jskip_string(s);
        return n;
    }
    if (cJSON_IsNumber(j)) {
        /* the source text, so "1e-3" reads back as written, not as cJSON reprints it */
        while (s->pos < s->len && s->t[s->pos] && strchr("+-0123456789.eE", s->t[s->pos])) s->pos++;
    } else {
        s->pos += cJSON_IsTrue(j) ? 4 : cJSON_IsFalse(j) ? 5 : 4;
        n->is_null = cJSON_IsNull(j);
    }
    if (s->pos > s->len) s->pos = s->len;
    n->value = ss_xmalloc(s->pos - start + 1);
    memcpy(n->value, s->t + start, s->pos - start);
    n->value[s->pos - start] = '\0';
    return n;
}

ss_doc *ss_doc_load_json(const char *path, ss_err *err)
{
    size_t len;
    char *text = ss_read_file(path, &len, err);
    if (!text) return NULL;
    ss_doc *doc = ss_cfg_doc_new(path);
    jscan s = {.t = text, .len = len, .line = 1, .col = 1, .file = doc->path, .err = err};
    size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;  /* cJSON skips a BOM too */
    s.pos = s.at = bom;

    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    size_t off = end ? (size_t)(end - text) : 0;
    if (j) {  /* cJSON stops after one value; anything but space after it is an error */
        while (off < len && (unsigned char)text[off] <= ' ') off++;
    }
    /* Where an object key should start but no '"' does (`{"a": 1,}`),
     * cJSON's error points one past the offending character: step back. */
    int want_key = 0;
    if (!j && off > 0 && off <= len && text[off - 1] != '"' && (unsigned char)text[off - 1] > ' ') {
        size_t k = off - 1;
        while (k > 0 && (unsigned char)text[k - 1] <= ' ') k--;
        if (k > 0 && (text[k - 1] == ',' || text[k - 1] == '{')) {
            off--;
            want_key = 1;
        }
    }
    if (!j || off < len) {
        int line, col;
        jpos(&s, off, &line, &col);
        /* (cJSON reports a truncated text at its last byte, so "unexpected
         * end" cannot be told from an error there; only emptiness is said) */
        size_t ws = bom;
        while (ws < len && (unsigned char)text[ws] <= ' ') ws++;
        ss_err_at(err, path, line, col, "JSON syntax error%s",
                  j ? ": unexpected text after the value"
                    : ws == len ? ": the file is empty"
                    : want_key ? ": expected a quoted key" : "");
        cJSON_Delete(j);
        free(text);
        ss_doc_free(doc);
        return NULL;
    }
    doc->root = jbuild(&s, j);
    cJSON_Delete(j);
    free(text);
    if (!doc->root) {
        ss_doc_free(doc);
        return NULL;
    }
    return doc;
}
