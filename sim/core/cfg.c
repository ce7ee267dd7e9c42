/* cfg.c: the YAML front-end (libyaml events -> positioned ss_node tree),
 * `--set` edits, and the typed readers that every schema module uses.
 * The JSON front-end lives in cfg_json.c and builds the same tree (nodes:
 * cfg_doc.c); cfg_load.c picks the front-end by the file's name. */
#include "core/cfg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "core/cfg_internal.h"

/* File name of nodes created by --set; ss_node_path recognises it. */
static const char SET_FILE[] = "--set";

/* The whole file, NUL-terminated; errors carry no line because there is
 * no text to point into. */

/* ---- YAML ----------------------------------------------------------- */

/* As deep as cJSON allows for JSON. */
#define MAX_DEPTH 1000

typedef struct yframe {
    ss_node *node;
    char *key;  /* pending key of a map, waiting for its value */
    int kline, kcol;
} yframe;

typedef struct ybuild {
    const char *file;
    int line0, col0;  /* where the text starts: 1:1 for files, the value's column for --set */
    int end_col;      /* > 0 for a --set value: its one line ends here */
    yframe *st;
    size_t depth, cap;
    ss_node *root;
    int ndocs;
    ss_err *err;
} ybuild;

static void ypos(const ybuild *b, yaml_mark_t m, int *line, int *col)
{
    /* libyaml ends the stream on a line of its own; a --set value has only
     * its one line, so that (and any embedded newline) maps to its end */
    if (b->end_col > 0 && m.line > 0) {
        *line = b->line0;
        *col = b->end_col;
        return;
    }
    *line = b->line0 + (int)m.line;
    *col = (m.line == 0 ? b->col0 : 1) + (int)m.column;
}

static int yerr(ybuild *b, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int yerr(ybuild *b, yaml_mark_t m, const char *fmt, ...)
{
    int line, col;
    ypos(b, m, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    ss_err_vat(b->err, b->file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* Hang a finished node under the innermost open container, or make it the
 * root.  In a map, every other node is a key and only parks in the frame. */
static int yattach(ybuild *b, ss_node *n)
{
    if (b->depth == 0) {
        b->root = n;
        return 0;
    }
    yframe *top = &b->st[b->depth - 1];
    if (top->node->kind == SS_NODE_SEQ) {
        ss_cfg_node_append(top->node, n);
        return 0;
    }
    if (!top->key) {
        for (size_t i = 0; i < top->node->n; i++) {
            const ss_node *o = top->node->items[i];
            if (strcmp(o->key, n->value) == 0) {
                ss_err_at(b->err, b->file, n->line, n->col, "duplicate key '%s' (first at line %d)", n->value,
                          o->key_line);
                ss_cfg_node_free(n);
                return -1;
            }
        }
        top->key = n->value;
        top->kline = n->line;
        top->kcol = n->col;
        n->value = NULL;
        ss_cfg_node_free(n);
        return 0;
    }
    n->key = top->key;
    n->key_line = top->kline;
    n->key_col = top->kcol;
    top->key = NULL;
    ss_cfg_node_append(top->node, n);
    return 0;
}

static int is_null_word(const char *s)
{
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* 1 at the end of the stream, 0 to go on, -1 on error. */
static int yevent(ybuild *b, const yaml_event_t *ev)
{
    const unsigned char *anchor = NULL;
    int line, col;
    ypos(b, ev->start_mark, &line, &col);
    switch (ev->type) {
    case YAML_STREAM_END_EVENT:
        return 1;
    case YAML_DOCUMENT_START_EVENT:
        if (++b->ndocs > 1)
            return yerr(b, ev->start_mark, "more than one YAML document in one file is not supported");
        return 0;
    case YAML_ALIAS_EVENT:
        return yerr(b, ev->start_mark, "aliases (*%s) are not supported; write the value out in full",
                    (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT: {
        anchor = ev->data.scalar.anchor;
        if (anchor) break;
        const char *tag = (const char *)ev->data.scalar.tag;
        int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) /* "\0" in a quoted string */
            return yerr(b, ev->start_mark, "a NUL byte inside a value: every value is text without NUL");
        ss_node *n = ss_cfg_node_new(SS_NODE_SCALAR, b->file, line, col);
        n->value = ss_xmalloc(ev->data.scalar.length + 1);
        memcpy(n->value, ev->data.scalar.value, ev->data.scalar.length);
        n->value[ev->data.scalar.length] = '\0';
        /* `!!str 5` is YAML's explicit way to say "a string": treat like quotes */
        n->quoted = !plain || (tag && !strcmp(tag, YAML_STR_TAG));
        n->is_null = !n->quoted && is_null_word(n->value);
        return yattach(b, n);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        int map = ev->type == YAML_MAPPING_START_EVENT;
        anchor = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
        if (anchor) break;
        if (b->depth > 0 && b->st[b->depth - 1].node->kind == SS_NODE_MAP && !b->st[b->depth - 1].key)
            return yerr(b, ev->start_mark, "map keys must be plain values, not maps or lists");
        if (b->depth >= MAX_DEPTH)  /* the tree is freed recursively: keep the C stack safe */
            return yerr(b, ev->start_mark, "nesting deeper than %d levels", MAX_DEPTH);
        if (b->depth == b->cap) {
            b->cap = b->cap ? b->cap * 2 : 8;
            b->st = ss_xrealloc(b->st, b->cap * sizeof *b->st);
        }
        b->st[b->depth++] = (yframe){ss_cfg_node_new(map ? SS_NODE_MAP : SS_NODE_SEQ, b->file, line, col), NULL, 0, 0};
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        ss_node *n = b->st[--b->depth].node;
        return yattach(b, n);
    }
    default:
        return 0;
    }
    /* only an anchored node breaks out of the switch: anchors would only be
     * useful with aliases, and a tree with shared nodes cannot be edited by
     * --set or freed simply */
    return yerr(b, ev->start_mark, "anchors (&%s) are not supported; write the value out in full",
                (const char *)anchor);
}

/* Line and column (1-based, counting UTF-8 characters) of byte `off`. */
static void text_pos(const char *t, size_t off, int line0, int col0, int *line, int *col)
{
    int l = line0, c = col0;
    for (size_t i = 0; i < off && t[i]; i++) {
        if (t[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)t[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* Parse YAML text into *root (NULL if the text holds no document).  Node
 * file names point at `file`; positions are offset by line0/col0. */
static int yaml_parse(const char *text, size_t len, const char *file, int line0, int col0, int one_line,
                      ss_node **root, ss_err *err)
{
    ybuild b = {.file = file, .line0 = line0, .col0 = col0, .err = err};
    if (one_line) {
        b.end_col = col0;
        for (size_t i = 0; i < len; i++) b.end_col += ((unsigned char)text[i] & 0xC0) != 0x80;
    }
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return ss_err_at(err, file, 0, 0, "cannot start the YAML parser");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int rc;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            int line, col;
            if (p.error == YAML_READER_ERROR)  /* the reader only knows a byte offset */
                text_pos(text, p.problem_offset, line0, col0, &line, &col);
            else
                ypos(&b, p.problem_mark, &line, &col);
            const char *prob = p.problem ? p.problem : "unknown error";
            if (p.context)
                ss_err_at(err, file, line, col, "YAML syntax error: %s (%s)", prob, p.context);
            else
                ss_err_at(err, file, line, col, "YAML syntax error: %s", prob);
            rc = -1;
            break;
        }
        rc = yevent(&b, &ev);
        yaml_event_delete(&ev);
        if (rc) break;
    }
    yaml_parser_delete(&p);
    for (size_t i = 0; i < b.depth; i++) {
        ss_cfg_node_free(b.st[i].node);
        free(b.st[i].key);
    }
    free(b.st);
    if (rc < 0) {
        ss_cfg_node_free(b.root);
        return -1;
    }
    *root = b.root;
    return 0;
}

ss_doc *ss_doc_parse_yaml(const char *text, size_t len, const char *name, ss_err *err)
{
    ss_doc *doc = ss_cfg_doc_new(name);
    if (yaml_parse(text, len, doc->path, 1, 1, 0, &doc->root, err) < 0) {
        ss_doc_free(doc);
        return NULL;
    }
    /* An empty file (or a bare "---" / "~") is an empty map, so readers see
     * "missing key" rather than "expected a map". */
    if (doc->root && doc->root->kind == SS_NODE_SCALAR && doc->root->is_null) {
        ss_cfg_node_free(doc->root);
        doc->root = NULL;
    }
    if (!doc->root) doc->root = ss_cfg_node_new(SS_NODE_MAP, doc->path, 1, 1);
    return doc;
}

ss_doc *ss_doc_load_yaml(const char *path, ss_err *err)
{
    size_t len;
    char *text = ss_read_file(path, SS_INPUT_DOCUMENT, &len, err);
    if (!text) return NULL;
    ss_doc *doc = ss_doc_parse_yaml(text, len, path, err);
    free(text);
    return doc;
}

/* ---- --set ---------------------------------------------------------- */

ss_node *ss_map_find(const ss_node *map, const char *key)
{
    if (!map || map->kind != SS_NODE_MAP) return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->items[i]->key, key) == 0) return map->items[i];
    return NULL;
}

static const char *kind_word(ss_node_kind k)
{
    return k == SS_NODE_MAP ? "a map" : k == SS_NODE_SEQ ? "a list" : "a value";
}

/* Index of the child `seg` names in container `c`, or -1 (err set).
 * `where` is the path so far, `line`/`col` the segment's --set position. */
static long set_find(const ss_node *c, const char *seg, const char *where, const char *file, int line, int col,
                     ss_err *err)
{
    if (c->kind == SS_NODE_MAP) {
        for (size_t i = 0; i < c->n; i++)
            if (strcmp(c->items[i]->key, seg) == 0) return (long)i;
        return (long)c->n;  /* not there: the caller creates it */
    }
    if (seg[strspn(seg, "0123456789")] == '\0') {
        errno = 0;
        unsigned long long i = ss_strtou64(seg, NULL);
        if (errno || i >= c->n)
            return ss_err_at(err, file, line, col, "index %s out of range in %s (%zu item%s)", seg, where, c->n,
                             c->n == 1 ? "" : "s");
        return (long)i;
    }
    for (size_t i = 0; i < c->n; i++) {
        const ss_node *name = ss_map_find(c->items[i], "name");
        if (name && name->kind == SS_NODE_SCALAR && strcmp(name->value, seg) == 0) return (long)i;
    }
    return ss_err_at(err, file, line, col, "no item named '%s' in %s", seg, where);
}

/* Put `val` (owned from here on) at dotted `path` (NUL-terminated, already
 * checked for empty segments).  Errors are positioned at (file, line,
 * col0 + offset of the segment); a failure leaves the tree as it was. */
static int set_at(ss_doc *doc, const char *path_in, ss_node *val, const char *file, int line, int col0, ss_err *err)
{
    if (!doc->root) doc->root = ss_cfg_node_new(SS_NODE_MAP, doc->path, 1, 1);
    ss_node *cur = doc->root;
    char *path = ss_xstrdup(path_in);
    int rc = -1;
    for (char *seg = path;;) {
        char *dot = strchr(seg, '.');
        int last = dot == NULL;
        if (dot) *dot = '\0';
        int col = col0 + (int)(seg - path);
        /* the path up to this segment, for messages */
        char *where = seg == path ? ss_xstrdup("the top level") : ss_xasprintf("%.*s", (int)(seg - path - 1), path);
        if (cur->kind == SS_NODE_SCALAR) {
            ss_err_at(err, file, line, col, "cannot descend into %s: it is a plain value ('%s' at %s:%d:%d)",
                      where, cur->value, cur->file, cur->line, cur->col);
            free(where);
            break;
        }
        long i = set_find(cur, seg, where, file, line, col, err);
        free(where);
        if (i < 0) break;
        ss_node *old = (size_t)i < cur->n ? cur->items[i] : NULL;
        if (last) {
            if (old) {
                val->key = old->key;  /* the key keeps its place in the file */
                val->key_line = old->key_line;
                val->key_col = old->key_col;
                old->key = NULL;
                ss_cfg_node_free(old);
                cur->items[i] = val;
            } else {
                val->key = ss_xstrdup(seg);
                val->key_line = line;
                val->key_col = col;
                ss_cfg_node_append(cur, val);
            }
            val = NULL;
            rc = 0;
            break;
        }
        if (!old || (old->kind == SS_NODE_SCALAR && old->is_null)) {
            /* a missing (or empty) intermediate key becomes a map */
            ss_node *m = ss_cfg_node_new(SS_NODE_MAP, file, line, col);
            if (old) {
                m->key = old->key;
                m->key_line = old->key_line;
                m->key_col = old->key_col;
                old->key = NULL;
                ss_cfg_node_free(old);
                cur->items[i] = m;
            } else {
                m->key = ss_xstrdup(seg);
                ss_cfg_node_append(cur, m);
            }
            old = m;
        }
        cur = old;
        *dot = '.';
        seg = dot + 1;
    }
    free(path);
    ss_cfg_node_free(val);
    return rc;
}

/* Empty segments ("a..b", ".a", "a.") refused at (file, line, col0 + offset). */
static int check_segments(const char *path, size_t len, const char *file, int line, int col0, ss_err *err)
{
    for (size_t k = 0; k <= len; k++) {
        char c = k < len ? path[k] : '=';
        if ((k == 0 || path[k - 1] == '.') && (c == '.' || c == '='))
            return ss_err_at(err, file, line, col0 + (int)k, "empty path segment in '%.*s'", (int)len, path);
    }
    return 0;
}

int ss_doc_set(ss_doc *doc, const char *assignment, int index, ss_err *err)
{
    int line = index + 1;
    const char *eq = strchr(assignment, '=');
    if (!eq) return ss_err_at(err, SET_FILE, line, 1, "expected path=value, got '%s'", assignment);
    if (eq == assignment) return ss_err_at(err, SET_FILE, line, 1, "empty path before '=' in '%s'", assignment);
    int vcol = (int)(eq - assignment) + 2;
    /* Check the whole path and parse the value before touching the tree, so
     * a bad assignment leaves it as it was. */
    if (check_segments(assignment, (size_t)(eq - assignment), SET_FILE, line, 1, err) < 0) return -1;
    ss_node *val = NULL;
    const char *vtext = eq + 1;
    if (yaml_parse(vtext, strlen(vtext), SET_FILE, line, vcol, 1, &val, err) < 0) return -1;
    if (!val) {  /* "key=" (nothing after '='): an explicit null */
        val = ss_cfg_node_new(SS_NODE_SCALAR, SET_FILE, line, vcol);
        val->value = ss_xstrdup("");
        val->is_null = 1;
    }
    char *path = ss_xmalloc((size_t)(eq - assignment) + 1);
    memcpy(path, assignment, (size_t)(eq - assignment));
    path[eq - assignment] = '\0';
    int rc = set_at(doc, path, val, SET_FILE, line, 1, err);
    free(path);
    return rc;
}

/* A deep copy keeping positions; `file` pointers are shared, so the copy
 * must live in the document the original came from. */
static ss_node *node_copy(const ss_node *n)
{
    ss_node *c = ss_cfg_node_new(n->kind, n->file, n->line, n->col);
    c->value = n->value ? ss_xstrdup(n->value) : NULL;
    c->quoted = n->quoted;
    c->is_null = n->is_null;
    c->key_line = n->key_line;
    c->key_col = n->key_col;
    c->key = n->key ? ss_xstrdup(n->key) : NULL;
    for (size_t i = 0; i < n->n; i++) ss_cfg_node_append(c, node_copy(n->items[i]));
    return c;
}

int ss_doc_set_value(ss_doc *doc, const char *path, const ss_node *value, const char *file, int line, int col,
                     ss_err *err)
{
    if (!path || !path[0]) return ss_err_at(err, file, line, col, "expected a key path");
    if (check_segments(path, strlen(path), file, line, col, err) < 0) return -1;
    ss_node *val = node_copy(value);
    free(val->key);
    val->key = NULL;
    return set_at(doc, path, val, file, line, col, err);
}

int ss_doc_set_node(ss_doc *doc, const ss_node *entry, ss_err *err)
{
    if (!entry->key || !entry->key[0]) return ss_node_err(entry, err, "expected a key path");
    return ss_doc_set_value(doc, entry->key, entry, entry->file, entry->key_line, entry->key_col, err);
}

/* ---- typed readers -------------------------------------------------- */

int ss_node_err(const ss_node *n, ss_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (n) ss_err_vat(err, n->file, n->line, n->col, fmt, ap);
    else ss_err_vat(err, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int ss_node_unknown(const ss_node *n, const char *what, const char *const *names, ss_err *err)
{
    const char *near = ss_suggest(n->value, names);
    return near ? ss_node_err(n, err, "unknown %s '%s' (did you mean '%s'?)", what, n->value, near)
                : ss_node_err(n, err, "unknown %s '%s'", what, n->value);
}

/* What a node is, for "expected X, got Y". */
static void describe(const ss_node *n, char *buf, size_t size)
{
    if (n->kind != SS_NODE_SCALAR)
        snprintf(buf, size, "%s", kind_word(n->kind));
    else if (n->is_null)
        snprintf(buf, size, "nothing");
    else if (n->quoted)
        snprintf(buf, size, "string '%s'", n->value);
    else
        snprintf(buf, size, "'%s'", n->value);
}

static int expected(const ss_node *n, const char *what, const char *want, ss_err *err)
{
    char got[256];
    describe(n, got, sizeof got);
    return ss_node_err(n, err, "%s: expected %s, got %s", what, want, got);
}

int ss_node_expect(const ss_node *n, ss_node_kind kind, const char *what, ss_err *err)
{
    if (n && n->kind == kind) return 0;
    if (!n) return ss_err_at(err, NULL, 0, 0, "%s: missing", what);
    return expected(n, what, kind_word(kind), err);
}

/* The whole text as a finite number (strtod syntax). */
static int parse_double(const char *s, double *out)
{
    if (!*s || strchr(" \t\n\r\f\v", *s)) return -1;
    char *end;
    double v = ss_strtod(s, &end);
    if (*end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int ss_node_num(const ss_node *n, const char *what, double *out, int flags, ss_err *err)
{
    const char *want = flags & SS_INT ? "an integer" : "a number";
    const char *bound = flags & SS_POS ? " > 0" : flags & SS_NONNEG ? " >= 0" : "";
    char wbuf[160];
    snprintf(wbuf, sizeof wbuf, "%s%s", want, bound);
    double v;
    if (!n || n->kind != SS_NODE_SCALAR || n->is_null || n->quoted || parse_double(n->value, &v) < 0 ||
        ((flags & SS_INT) && v != floor(v)) || ((flags & SS_POS) && !(v > 0)) || ((flags & SS_NONNEG) && v < 0))
        return n ? expected(n, what, wbuf, err) : ss_node_expect(n, SS_NODE_SCALAR, what, err);
    /* The floor guards what divides or scales (a key that must be > 0); a
     * key that may be 0 may also be as near 0 as measurement noise leaves
     * it (a fitted -4e-16 s).  The ceiling holds for every key. */
    const ss_key_range *r = ss_key_range_of(what);
    double lo = flags & SS_INT && r->lo < 1 ? 1 : r->lo; /* a count's smallest step */
    if (!ss_key_range_holds(r, v, flags & (SS_POS | SS_INT) ? lo : 0)) {
        snprintf(wbuf, sizeof wbuf, "%s%s%s %g to %g%s%s", want, bound, flags & SS_POS ? ", from" : ": 0 or from", lo,
                 r->hi, *r->unit ? " " : "", r->unit);
        return expected(n, what, wbuf, err);
    }
    *out = v;
    return 0;
}

/* The node under `key`: 1 found (non-null), 0 absent or null (error if
 * SS_REQ), -1 error.  A `key:` with nothing is "use the default". */
static int lookup(const ss_node *map, const char *key, const char *want, int flags, ss_node **out, ss_err *err)
{
    ss_node *n = ss_map_find(map, key);
    if (n && !(n->kind == SS_NODE_SCALAR && n->is_null)) {
        *out = n;
        return 1;
    }
    if (!(flags & SS_REQ)) return 0;
    if (n)
        expected(n, key, want, err);
    else
        ss_node_err(map, err, "missing required key '%s'", key);
    return -1;
}

int ss_cfg_num(const ss_node *map, const char *key, double *out, int flags, ss_err *err)
{
    ss_node *n = NULL;
    int r = lookup(map, key, "a number", flags, &n, err);
    if (r <= 0) return r;
    return ss_node_num(n, key, out, flags, err) < 0 ? -1 : 1;
}

int ss_cfg_u64(const ss_node *map, const char *key, unsigned long long *out, int flags, ss_err *err)
{
    const char *want = flags & SS_POS ? "an integer > 0" : "an integer >= 0";
    ss_node *n = NULL;
    int r = lookup(map, key, want, flags, &n, err);
    if (r <= 0) return r;
    unsigned long long u = 0;
    int ok = n->kind == SS_NODE_SCALAR && !n->quoted;
    if (ok && n->value[0] >= '0' && n->value[0] <= '9' && !n->value[strspn(n->value, "0123456789")]) {
        errno = 0;  /* plain digits: exact, even above 2^53 */
        u = ss_strtou64(n->value, NULL);
        ok = errno == 0;
    } else if (ok) {
        double v;  /* 1e6 and friends */
        ok = parse_double(n->value, &v) == 0 && v >= 0 && v == floor(v) && v < 18446744073709551616.0;
        if (ok) u = (unsigned long long)v;
    }
    if (!ok || ((flags & SS_POS) && u == 0)) return expected(n, key, want, err);
    *out = u;
    return 1;
}

int ss_cfg_str(const ss_node *map, const char *key, const char **out, int flags, ss_err *err)
{
    ss_node *n = NULL;
    int r = lookup(map, key, "a string", flags, &n, err);
    if (r <= 0) return r;
    if (n->kind != SS_NODE_SCALAR) return expected(n, key, "a string", err);
    *out = n->value;
    return 1;
}

int ss_cfg_name(const ss_node *map, const char *key, const char **out, int flags, ss_err *err)
{
    const char *s;
    int r = ss_cfg_str(map, key, &s, flags, err);
    if (r <= 0) return r;
    const ss_node *n = ss_map_find(map, key);
    const char *why = ss_name_problem(s);
    if (why) return ss_node_err(n, err, "%s: expected a name, got %s", key, why);
    *out = s;
    return 1;
}

int ss_cfg_bool(const ss_node *map, const char *key, int *out, int flags, ss_err *err)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", NULL};
    ss_node *n = NULL;
    int r = lookup(map, key, "true or false", flags, &n, err);
    if (r <= 0) return r;
    if (n->kind == SS_NODE_SCALAR && !n->quoted) {
        for (int i = 0; yes[i]; i++) {
            if (!strcmp(n->value, yes[i]) || !strcmp(n->value, no[i])) {
                *out = !strcmp(n->value, yes[i]);
                return 1;
            }
        }
    }
    return expected(n, key, "true or false", err);
}

/* "a, b, c" into buf. */
static void join(const char *const *names, char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; names && names[i] && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", names[i]);
}

int ss_cfg_enum(const ss_node *map, const char *key, const char *const *names, int *out, int flags, ss_err *err)
{
    char list[768], want[800];
    join(names, list, sizeof list);
    snprintf(want, sizeof want, "one of: %s", list);
    ss_node *n = NULL;
    int r = lookup(map, key, want, flags, &n, err);
    if (r <= 0) return r;
    if (n->kind != SS_NODE_SCALAR) return expected(n, key, want, err);
    for (int i = 0; names[i]; i++) {
        if (!strcmp(n->value, names[i])) {
            *out = i;
            return 1;
        }
    }
    const char *sug = ss_suggest(n->value, names);
    if (sug)
        return ss_node_err(n, err, "%s: unknown value '%s' (did you mean '%s'?); expected one of: %s", key,
                           n->value, sug, list);
    return ss_node_err(n, err, "%s: unknown value '%s'; expected one of: %s", key, n->value, list);
}

int ss_cfg_map(const ss_node *map, const char *key, ss_node **out, int flags, ss_err *err)
{
    ss_node *n = NULL;
    int r = lookup(map, key, "a map", flags, &n, err);
    if (r <= 0) return r;
    if (ss_node_expect(n, SS_NODE_MAP, key, err) < 0) return -1;
    *out = n;
    return 1;
}

int ss_cfg_seq(const ss_node *map, const char *key, ss_node **out, int flags, ss_err *err)
{
    ss_node *n = NULL;
    int r = lookup(map, key, "a list", flags, &n, err);
    if (r <= 0) return r;
    if (ss_node_expect(n, SS_NODE_SEQ, key, err) < 0) return -1;
    *out = n;
    return 1;
}

int ss_cfg_check_keys(const ss_node *map, const char *const *allowed, const char *where, ss_err *err)
{
    if (!map) return 0;
    if (ss_node_expect(map, SS_NODE_MAP, where, err) < 0) return -1;
    for (size_t i = 0; i < map->n; i++) {
        const ss_node *e = map->items[i];
        int ok = 0;
        for (int j = 0; allowed && allowed[j] && !ok; j++) ok = !strcmp(e->key, allowed[j]);
        if (ok) continue;
        const char *sug = ss_suggest(e->key, allowed);
        if (sug)
            return ss_err_at(err, e->file, e->key_line, e->key_col, "unknown key '%s' in %s (did you mean '%s'?)",
                             e->key, where, sug);
        char list[768];
        join(allowed, list, sizeof list);
        return ss_err_at(err, e->file, e->key_line, e->key_col, "unknown key '%s' in %s; valid keys: %s", e->key,
                         where, list);
    }
    return 0;
}

char *ss_node_path(const ss_node *n, const char *rel)
{
    /* --set values are typed in the shell, so they are relative to it */
    if (!n || !n->file || strcmp(n->file, SET_FILE) == 0) return ss_xstrdup(rel);
    char *dir = ss_dirname(n->file);
    char *p = ss_path_join(dir, rel);
    free(dir);
    return p;
}

char *ss_node_readable(const ss_node *n, const char *what, ss_err *err)
{
    char *p = ss_node_path(n, n->value);
    struct stat st;
    int dir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    if (!dir && access(p, R_OK) == 0) return p;
    if (dir) {
        ss_node_err(n, err, "%s '%s' is a directory: expected a file", what, n->value);
    } else {
        /* Name the file as resolved, and the base it was resolved against. */
        const char *base = n->value[0] == '/'                          ? ""
                           : !n->file || strcmp(n->file, SET_FILE) == 0 ? " (a path in --set is relative to the working folder)"
                                                                        : " (a path in a file is relative to that file's folder)";
        ss_node_err(n, err, "%s '%s' not found or not readable: looked for '%s'%s", what, n->value, p, base);
    }
    free(p);
    return NULL;
}

/* ---- writing a node back as flow text ------------------------------------ */

static int plain_ok(const ss_node *n)
{
    const char *s = n->value;
    if (n->quoted || !s[0] || n->is_null) return 0;
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-", *p)) return 0;
    return 1;
}

static void flow_write(FILE *fp, const ss_node *n)
{
    if (n->kind == SS_NODE_SCALAR) {
        if (n->is_null && !n->quoted) {
            fputs("null", fp);
        } else if (plain_ok(n)) {
            fputs(n->value, fp);
        } else {
            fputc('"', fp);
            for (const char *p = n->value; *p; p++) {
                if (*p == '"' || *p == '\\') fputc('\\', fp);
                if (*p == '\n') fputs("\\n", fp);
                else fputc(*p, fp);
            }
            fputc('"', fp);
        }
        return;
    }
    fputc(n->kind == SS_NODE_MAP ? '{' : '[', fp);
    for (size_t i = 0; i < n->n; i++) {
        if (i) fputs(", ", fp);
        if (n->kind == SS_NODE_MAP) fprintf(fp, "%s: ", n->items[i]->key);
        flow_write(fp, n->items[i]);
    }
    fputc(n->kind == SS_NODE_MAP ? '}' : ']', fp);
}

char *ss_node_flow(const ss_node *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&buf, &len);
    flow_write(fp, n);
    fclose(fp);
    return buf;
}
