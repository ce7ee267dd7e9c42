/* cfg_json.c: the JSON front-end of cfg.h.  cJSON parses and validates;
 * cJSON forgets positions, so a small scanner walks the same text in step
 * with the parsed tree to put file:line:col on every node. */
#include "core/cfg.h"
#include "core/cfg_internal.h"

#include <cjson/cJSON.h>
#include <ctype.h>
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

/* ---- saying what was expected -------------------------------------------- */

/* cJSON says only where it stopped, and not always where the text went
 * wrong (`[1, 2}` stops at the 2).  A text it refused is walked again by
 * this small validator, which stops at the first byte the grammar does not
 * allow and says what it wanted there. */
typedef struct jcheck {
    const char *t;
    size_t len, pos;
    const char *want;
} jcheck;

#define JWANT_VALUE "a value (a string, number, object, array, true, false or null)"

static int jc_fail(jcheck *v, const char *want)
{
    v->want = want;
    return -1;
}

static void jc_ws(jcheck *v)
{
    while (v->pos < v->len && (unsigned char)v->t[v->pos] <= ' ') v->pos++; /* cJSON's notion */
}

static int jc_at(jcheck *v, char c)
{
    jc_ws(v);
    return v->pos < v->len && v->t[v->pos] == c;
}

static int jc_string(jcheck *v)
{
    for (v->pos++; v->pos < v->len; v->pos++) {
        unsigned char c = (unsigned char)v->t[v->pos];
        if (c == '"') {
            v->pos++;
            return 0;
        }
        if (c < ' ') break;
        if (c == '\\' && (++v->pos >= v->len || !strchr("\"\\/bfnrtu", v->t[v->pos])))
            return jc_fail(v, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    }
    return jc_fail(v, "'\"' to close the string");
}

static int jc_value(jcheck *v, int depth)
{
    jc_ws(v);
    if (v->pos >= v->len) return jc_fail(v, JWANT_VALUE);
    char c = v->t[v->pos];
    if (c == '"') return jc_string(v);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        v->pos++;
        if (jc_at(v, close)) return v->pos++, 0;
        for (;;) {
            if (c == '{') {
                if (!jc_at(v, '"')) return jc_fail(v, "a quoted key");
                if (jc_string(v) < 0) return -1;
                if (!jc_at(v, ':')) return jc_fail(v, "':' after the key");
                v->pos++;
            }
            if (depth >= 1000) return jc_fail(v, "less nesting (at most 1000 levels)");
            if (jc_value(v, depth + 1) < 0) return -1;
            if (jc_at(v, ',')) {
                v->pos++;
                continue;
            }
            if (jc_at(v, close)) return v->pos++, 0;
            return jc_fail(v, c == '{' ? "',' or '}'" : "',' or ']'");
        }
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++)
        if (strncmp(v->t + v->pos, words[k], strlen(words[k])) == 0) return v->pos += strlen(words[k]), 0;
    /* a number as cJSON reads one: the run of these characters, by strtod */
    char num[64];
    size_t n = 0;
    while (v->pos + n < v->len && n < sizeof num - 1 && strchr("+-0123456789.eE", v->t[v->pos + n]) && v->t[v->pos + n])
        n++;
    if (n == 0 || (c != '-' && !isdigit((unsigned char)c))) return jc_fail(v, JWANT_VALUE);
    memcpy(num, v->t + v->pos, n);
    num[n] = '\0';
    char *end;
    ss_strtod(num, &end);
    if (end == num) return jc_fail(v, JWANT_VALUE);
    v->pos += (size_t)(end - num);
    return 0;
}

/* What stands at `off`, for a message: a word, a character or a byte. */
static void jfound(const char *t, size_t len, size_t off, char *out, size_t cap)
{
    unsigned char c = off < len ? (unsigned char)t[off] : 0;
    size_t n = 0;
    while (off + n < len && n < 20 && isalnum((unsigned char)t[off + n])) n++;
    if (off >= len) snprintf(out, cap, "the end of the file");
    else if (n) snprintf(out, cap, "'%.*s'", (int)n, t + off);
    else if (c > ' ' && c < 0x7f) snprintf(out, cap, "'%c'", c);
    else snprintf(out, cap, "byte 0x%02x", c);
}

/* The offset of the first \u0000 escape inside a string of valid JSON
 * text t, or len if none: cJSON would end the string there and drop the
 * rest unseen (issue 40: "res\u0000net50" read as "res"). */
static size_t nul_escape(const char *t, size_t len)
{
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '"') in_str = !in_str;
        else if (in_str && t[i] == '\\' && i + 1 < len) {
            if (t[i + 1] == 'u' && i + 5 < len && memcmp(t + i + 2, "0000", 4) == 0) return i;
            i++; /* the escaped character */
        }
    }
    return len;
}

ss_doc *ss_doc_load_json(const char *path, ss_err *err)
{
    size_t len;
    char *text = ss_read_file(path, SS_INPUT_DOCUMENT, &len, err);
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
    size_t ws = bom;
    while (ws < len && (unsigned char)text[ws] <= ' ') ws++;
    jcheck v = {.t = text, .len = len, .pos = bom};
    if (!j && ws < len && jc_value(&v, 0) < 0) off = v.pos; /* else cJSON's place, said plainly */
    size_t nul = j && off >= len ? nul_escape(text, len) : len;
    if (nul < len) {
        int line, col;
        jpos(&s, nul, &line, &col);
        ss_err_at(err, path, line, col, "a NUL character (\\u0000) in a string: no name, path or text may hold one");
        cJSON_Delete(j);
        free(text);
        ss_doc_free(doc);
        return NULL;
    }
    if (!j || off < len) {
        int line, col;
        jpos(&s, off, &line, &col);
        char found[64];
        jfound(text, len, off, found, sizeof found);
        if (j) ss_err_at(err, path, line, col, "JSON syntax error: unexpected text after the value");
        else if (ws == len) ss_err_at(err, path, line, col, "JSON syntax error: the file is empty");
        else if (v.want) ss_err_at(err, path, line, col, "JSON syntax error: expected %s, got %s", v.want, found);
        else ss_err_at(err, path, line, col, "JSON syntax error");
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
