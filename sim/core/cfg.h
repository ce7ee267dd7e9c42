/* cfg.h: one positioned tree for every input file, and typed readers on it.
 *
 * YAML scenarios (libyaml) and JSON profiles (cJSON) both load into the same
 * ss_node tree, where every node remembers its file, line and column, so a
 * schema reader can say "scenario.yaml:12:7: rate_rps: expected a number > 0,
 * got '-3'" whatever the source format.  `--set a.b.c=value` edits the tree
 * before any reader looks at it.
 *
 * Readers check a map's keys against the list the schema allows and name the
 * nearest valid key for a typo.  Nothing here knows the scenario schema:
 * scenario.c and dist.c are the schema. */
#ifndef SS_CFG_H
#define SS_CFG_H

#include <stddef.h>
#include "core/util.h"

typedef enum ss_node_kind { SS_NODE_SCALAR, SS_NODE_MAP, SS_NODE_SEQ } ss_node_kind;

typedef struct ss_node {
    ss_node_kind kind;
    char *key;            /* key in the parent map; NULL for sequence items and the root */
    char *value;          /* scalar text (never NULL for scalars; "" for an empty scalar) */
    int quoted;           /* scalar was quoted in the source (so it is a string) */
    int is_null;          /* scalar was null/~/empty (YAML) or null (JSON) */
    const char *file;     /* path as given by the user; owned by the document */
    int line, col;        /* 1-based position of the value */
    int key_line, key_col;/* 1-based position of the key (== line/col without a key) */
    struct ss_node **items; /* map entries (each carries its key) or sequence items */
    size_t n, cap;
} ss_node;

typedef struct ss_doc {
    ss_node *root;
    char *path;  /* as given */
    char *dir;   /* directory of path, for resolving relative references */
} ss_doc;

/* Load a whole file.  YAML: one document; anchors/aliases are refused with a
 * message; duplicate keys are an error.  JSON: cJSON parses, positions come
 * from a scan of the same text.  On error: NULL and err set (file:line:col). */
ss_doc *ss_doc_load_yaml(const char *path, ss_err *err);
ss_doc *ss_doc_load_json(const char *path, ss_err *err);
/* By extension: .json -> JSON, anything else -> YAML. */
ss_doc *ss_doc_load(const char *path, ss_err *err);
/* Parse YAML from memory (used for --set values and tests); `name` stands in
 * for the file name in positions. */
ss_doc *ss_doc_parse_yaml(const char *text, size_t len, const char *name, ss_err *err);
void ss_doc_free(ss_doc *doc);

/* Apply "a.b.c=value".  Path segments name map keys; in a sequence a segment
 * is an index (0-based) or the `name:` of an item.  The value is parsed as a
 * YAML flow value (so "[1, 2]" and "{dist: exponential, mean_s: 1}" work) and
 * replaces or creates the target; positions of new nodes read
 * "--set:<index>:<col>".  A missing intermediate map key is created; the
 * schema reader later refuses it if it is not a valid key.  Errors: empty
 * path, index out of range, a scalar where a map or sequence is needed. */
int ss_doc_set(ss_doc *doc, const char *assignment, int index, ss_err *err);

/* The same edit with a node of this document as the value: `entry` is a
 * map entry whose key is the dotted path and whose value (any kind) is
 * copied to it with its positions, so later messages and relative paths
 * point into the file that wrote it (used for a variant's `set:`).  Errors
 * are positioned at the entry's key. */
int ss_doc_set_node(ss_doc *doc, const ss_node *entry, ss_err *err);

/* The same with the path and the value apart: a copy of `value` (any kind,
 * positions kept; its document must outlive every reader of this one) goes
 * to dotted `path`, and path errors are positioned at (file, line, col).
 * Used by sweep axes, whose values are items of the sweep file. */
int ss_doc_set_value(ss_doc *doc, const char *path, const ss_node *value, const char *file, int line, int col,
                     ss_err *err);

/* A node written back as one line of YAML flow text ("290", "round-robin",
 * "{dist: exponential, mean_s: 1}", "[1, 2]"); scalars that would not
 * read back as themselves are double-quoted.  Newly allocated. */
char *ss_node_flow(const ss_node *n);

/* Child of a map by key (NULL if absent or not a map). */
ss_node *ss_map_find(const ss_node *map, const char *key);

/* Refuse any key of `map` not in `allowed` (NULL-terminated):
 * "file:line:col: unknown key 'ratee' in workload (did you mean 'rate_rps'?)"
 * `where` names the section for the message.  0 ok, -1 error. */
int ss_cfg_check_keys(const ss_node *map, const char *const *allowed, const char *where, ss_err *err);

/* Flags for the typed readers. */
enum {
    SS_REQ = 1 << 0,    /* key must be present */
    SS_POS = 1 << 1,    /* number must be > 0 */
    SS_NONNEG = 1 << 2, /* number must be >= 0 */
    SS_INT = 1 << 3     /* number must be an integer */
};

/* Typed readers on a map's key.  Return 1 if read, 0 if absent (allowed
 * unless SS_REQ; *out untouched), -1 on error with a message such as
 * "file:line:col: rate_rps: expected a number > 0, got '-3'". */
int ss_cfg_num(const ss_node *map, const char *key, double *out, int flags, ss_err *err);
int ss_cfg_u64(const ss_node *map, const char *key, unsigned long long *out, int flags, ss_err *err);
/* A string that names something (a host, device, model, task, workload,
 * variant, node, scenario): as ss_cfg_str, then refused unless it is a
 * name (ss_name_problem in util.h). */
int ss_cfg_name(const ss_node *map, const char *key, const char **out, int flags, ss_err *err);
int ss_cfg_str(const ss_node *map, const char *key, const char **out, int flags, ss_err *err);
int ss_cfg_bool(const ss_node *map, const char *key, int *out, int flags, ss_err *err);
/* One of `names` (NULL-terminated); *out is its index.  A wrong word gets
 * the nearest name suggested and the full list. */
int ss_cfg_enum(const ss_node *map, const char *key, const char *const *names, int *out, int flags, ss_err *err);
/* A child that must be a map / a sequence. */
int ss_cfg_map(const ss_node *map, const char *key, ss_node **out, int flags, ss_err *err);
int ss_cfg_seq(const ss_node *map, const char *key, ss_node **out, int flags, ss_err *err);

/* The physical range of a key's numbers, told by its unit suffix (_s,
 * _bytes, _gbps, ...; cfg_range.c, docs/limits.md): [lo, hi] in
 * magnitude.  A key without a unit suffix is dimensionless: [1e-15, 1e15].
 * ss_node_num enforces it on every number it reads; readers of other
 * formats (CSV columns, options) call ss_key_range_holds themselves. */
typedef struct ss_key_range {
    const char *suffix;
    double lo, hi;
    const char *unit;
} ss_key_range;
const ss_key_range *ss_key_range_of(const char *key);
/* Is |v| at most r->hi and, unless v is 0, at least floor?  The floor is
 * r->lo (or 1 for a count) where the value divides or scales something,
 * 0 where a value may be as near 0 as measurement noise leaves it. */
int ss_key_range_holds(const ss_key_range *r, double v, double floor);

/* The same checks on a node itself (a sequence item, say); `what` names it
 * in messages.  0 ok, -1 error. */
int ss_node_num(const ss_node *n, const char *what, double *out, int flags, ss_err *err);
int ss_node_expect(const ss_node *n, ss_node_kind kind, const char *what, ss_err *err);

/* "unknown <what> '<value>' (did you mean '<nearest>'?)" at n's value,
 * the nearest of names (NULL-terminated) if one is close: returns -1. */
int ss_node_unknown(const ss_node *n, const char *what, const char *const *names, ss_err *err);

/* Report an error at a node's value position: returns -1. */
int ss_node_err(const ss_node *n, ss_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A path written in the node's file, resolved against that file's directory;
 * newly allocated. */
char *ss_node_path(const ss_node *n, const char *rel);
/* The file a scalar node names (its value, as ss_node_path resolves it), if
 * it can be read; else NULL with "<what> '<value>' not found or not
 * readable" at the node. */
char *ss_node_readable(const ss_node *n, const char *what, ss_err *err);

#endif
