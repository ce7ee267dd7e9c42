/* cfg_internal.h: node and document helpers (cfg_doc.c) shared by the two
 * front-ends of cfg.h (cfg.c for YAML and --set, cfg_json.c for JSON) and
 * by nothing else. */
#ifndef SS_CFG_INTERNAL_H
#define SS_CFG_INTERNAL_H

#include <stddef.h>
#include "core/cfg.h"

/* A node at (file, line, col); the key position starts equal to it. */
ss_node *ss_cfg_node_new(ss_node_kind kind, const char *file, int line, int col);
/* A subtree and everything it owns (NULL is fine). */
void ss_cfg_node_free(ss_node *n);
void ss_cfg_node_append(ss_node *parent, ss_node *child);
/* An empty document for `path` (path and dir set, no root). */
ss_doc *ss_cfg_doc_new(const char *path);

#endif
