/* cfg_doc.c: the positioned node tree and its documents, as both
 * front-ends build them (cfg.c for YAML and --set, cfg_json.c for JSON):
 * nodes made, appended and freed, documents made and freed. */
#include "core/cfg_internal.h"

#include <stdlib.h>

#include "core/util.h"

ss_node *ss_cfg_node_new(ss_node_kind kind, const char *file, int line, int col)
{
    ss_node *n = ss_xcalloc(1, sizeof *n);
    n->kind = kind;
    n->file = file;
    n->line = n->key_line = line;
    n->col = n->key_col = col;
    return n;
}

void ss_cfg_node_free(ss_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->n; i++) ss_cfg_node_free(n->items[i]);
    free(n->items);
    free(n->key);
    free(n->value);
    free(n);
}

void ss_cfg_node_append(ss_node *parent, ss_node *child)
{
    if (parent->n == parent->cap) {
        parent->cap = parent->cap ? parent->cap * 2 : 4;
        parent->items = ss_xrealloc(parent->items, parent->cap * sizeof *parent->items);
    }
    parent->items[parent->n++] = child;
}

void ss_doc_free(ss_doc *doc)
{
    if (!doc) return;
    ss_cfg_node_free(doc->root);
    free(doc->path);
    free(doc->dir);
    free(doc);
}

ss_doc *ss_cfg_doc_new(const char *path)
{
    ss_doc *doc = ss_xcalloc(1, sizeof *doc);
    doc->path = ss_xstrdup(path);
    doc->dir = ss_dirname(path);
    return doc;
}
