/* test_cfg.c: the positioned config tree (sim/core/cfg.h): YAML and JSON loading
 * with file:line:col, --set edits, and the typed readers' messages. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cfg.h"

/* Write `text` to a fresh temporary file, load it, and remove the file
 * again; *pathp (if given) receives the path, which error messages use. */
static ss_doc *load_text(const char *name, const char *text, ss_err *err, char **pathp)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = ss_test_write(dir, name, text);
    ss_doc *doc = ss_doc_load(path, err);
    unlink(path);
    rmdir(dir);
    free(dir);
    if (pathp) *pathp = path;
    else free(path);
    return doc;
}

static ss_doc *mem(const char *text, ss_err *err)
{
    return ss_doc_parse_yaml(text, strlen(text), "mem.yaml", err);
}

/* err->msg must be exactly "<prefix>:<rest>". */
static void expect_msg(const ss_err *err, const char *prefix, const char *rest)
{
    char want[1200];
    snprintf(want, sizeof want, "%s:%s", prefix, rest);
    CU_ASSERT_EQUAL(err->set, 1);
    CU_ASSERT_STRING_EQUAL(err->msg, want);
    if (strcmp(err->msg, want) != 0) fprintf(stderr, "\n  got:  %s\n  want: %s\n", err->msg, want);
}

static void expect_pos(const ss_node *n, int line, int col)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_EQUAL(n->line, line);
    CU_ASSERT_EQUAL(n->col, col);
}

static const char SCEN[] =
    "name: demo\n"
    "seed: 42\n"
    "workloads:\n"
    "  - name: chat\n"
    "    rate_rps: 5\n"
    "    service: {dist: exponential, mean_s: 1e-3}\n"
    "  - name: batch\n"
    "    rate_rps: \"7\"\n"
    "tags: [a, 'b', ~]\n"
    "empty:\n";

static void test_yaml_nested(void)
{
    ss_err err = {0};
    char *path;
    ss_doc *d = load_text("s.yaml", SCEN, &err, &path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(d->path, path);
    CU_ASSERT_EQUAL(d->root->kind, SS_NODE_MAP);
    CU_ASSERT_EQUAL(d->root->n, 5);
    ss_node *w = ss_map_find(d->root, "workloads");
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->kind, SS_NODE_SEQ);
    CU_ASSERT_EQUAL(w->n, 2);
    CU_ASSERT_EQUAL(w->key_line, 3);
    CU_ASSERT_EQUAL(w->key_col, 1);
    ss_node *svc = ss_map_find(w->items[0], "service");
    expect_pos(svc, 6, 14);
    ss_node *mean = ss_map_find(svc, "mean_s");
    expect_pos(mean, 6, 42);
    CU_ASSERT_EQUAL(mean->key_line, 6);
    CU_ASSERT_EQUAL(mean->key_col, 34);
    CU_ASSERT_STRING_EQUAL(mean->value, "1e-3");
    CU_ASSERT_STRING_EQUAL(mean->file, path);
    ss_node *r2 = ss_map_find(w->items[1], "rate_rps");
    expect_pos(r2, 8, 15);
    CU_ASSERT_EQUAL(r2->quoted, 1);
    CU_ASSERT_EQUAL(ss_map_find(w->items[0], "rate_rps")->quoted, 0);
    ss_node *tags = ss_map_find(d->root, "tags");
    CU_ASSERT_EQUAL_FATAL(tags->n, 3);
    CU_ASSERT_EQUAL(tags->items[0]->quoted, 0);
    CU_ASSERT_EQUAL(tags->items[1]->quoted, 1);
    CU_ASSERT_EQUAL(tags->items[2]->is_null, 1);
    CU_ASSERT_PTR_NULL(tags->items[2]->key);
    ss_doc *q = mem("a: ''\nb: \"null\"\nc: '~'\nd: NULL\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL(q->root->items[0]->is_null, 0);  /* quoted: a string, even if empty */
    CU_ASSERT_EQUAL(q->root->items[1]->is_null, 0);
    CU_ASSERT_EQUAL(q->root->items[2]->is_null, 0);
    CU_ASSERT_EQUAL(q->root->items[3]->is_null, 1);
    ss_doc_free(q);
    ss_node *empty = ss_map_find(d->root, "empty");
    CU_ASSERT_EQUAL(empty->kind, SS_NODE_SCALAR);
    CU_ASSERT_EQUAL(empty->is_null, 1);
    CU_ASSERT_STRING_EQUAL(empty->value, "");
    CU_ASSERT_PTR_NULL(ss_map_find(d->root, "nope"));
    CU_ASSERT_PTR_NULL(ss_map_find(w, "name"));  /* not a map */
    ss_doc_free(d);
    free(path);
}

static void test_yaml_syntax_error(void)
{
    ss_err err = {0};
    char *path;
    ss_doc *d = load_text("bad.yaml", "a: 1\nb: [1, 2\nc: 3\n", &err, &path);
    CU_ASSERT_PTR_NULL(d);
    expect_msg(&err, path, "3:2: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)");
    free(path);

    ss_err e2 = {0};
    CU_ASSERT_PTR_NULL(mem("a: 1\n  b: 2\n", &e2));
    expect_msg(&e2, "mem.yaml", "2:4: YAML syntax error: mapping values are not allowed in this context");
}

static void test_yaml_empty_and_missing(void)
{
    ss_err err = {0};
    ss_doc *d = load_text("e.yaml", "", &err, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->root->kind, SS_NODE_MAP);
    CU_ASSERT_EQUAL(d->root->n, 0);
    ss_doc_free(d);
    d = mem("# just a comment\n---\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->root->kind, SS_NODE_MAP);
    ss_doc_free(d);
    CU_ASSERT_EQUAL(err.set, 0);

    CU_ASSERT_PTR_NULL(ss_doc_load("/nonexistent/servesim/x.yaml", &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/servesim/x.yaml: cannot read: No such file or directory");
    ss_err e2 = {0};
    CU_ASSERT_PTR_NULL(ss_doc_load("/nonexistent/servesim/x.json", &e2));
    CU_ASSERT_STRING_EQUAL(e2.msg, "/nonexistent/servesim/x.json: cannot read: No such file or directory");
}

static void test_yaml_refusals(void)
{
    ss_err err = {0};
    CU_ASSERT_PTR_NULL(mem("a: &x 1\nb: *x\n", &err));
    expect_msg(&err, "mem.yaml", "1:4: anchors (&x) are not supported; write the value out in full");
    ss_err e2 = {0};
    CU_ASSERT_PTR_NULL(mem("a: [1, *y]\n", &e2));
    expect_msg(&e2, "mem.yaml", "1:8: aliases (*y) are not supported; write the value out in full");
    ss_err e3 = {0};
    CU_ASSERT_PTR_NULL(mem("a: 1\nb:\n  c: 2\n  d: 0\n  c: 3\n", &e3));
    expect_msg(&e3, "mem.yaml", "5:3: duplicate key 'c' (first at line 3)");
    ss_err e4 = {0};
    CU_ASSERT_PTR_NULL(mem("a: 1\n---\nb: 2\n", &e4));
    expect_msg(&e4, "mem.yaml", "2:1: more than one YAML document in one file is not supported");
    ss_err e6 = {0};
    char deep[2 * 1001 + 1];
    memset(deep, '[', 1001);
    memset(deep + 1001, ']', 1001);
    deep[2002] = '\0';
    CU_ASSERT_PTR_NULL(mem(deep, &e6));
    expect_msg(&e6, "mem.yaml", "1:1001: nesting deeper than 1000 levels");
    ss_err e5 = {0};
    CU_ASSERT_PTR_NULL(mem("x: 1\n[a, b]: 2\n", &e5));
    expect_msg(&e5, "mem.yaml", "2:1: map keys must be plain values, not maps or lists");
}

static const char *const WL_KEYS[] = {"name", "rate_rps", "service", NULL};

static void test_check_keys(void)
{
    ss_err err = {0};
    ss_doc *d = mem("workload:\n  name: a\n  rate_rsp: 5\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    ss_node *w = ss_map_find(d->root, "workload");
    CU_ASSERT_EQUAL(ss_cfg_check_keys(w, WL_KEYS, "workload", &err), -1);
    expect_msg(&err, "mem.yaml", "3:3: unknown key 'rate_rsp' in workload (did you mean 'rate_rps'?)");
    ss_doc_free(d);

    ss_err e2 = {0};
    d = mem("workload: {name: a, colour: red}\n", &e2);
    w = ss_map_find(d->root, "workload");
    CU_ASSERT_EQUAL(ss_cfg_check_keys(w, WL_KEYS, "workload", &e2), -1);
    expect_msg(&e2, "mem.yaml", "1:21: unknown key 'colour' in workload; valid keys: name, rate_rps, service");
    ss_doc_free(d);

    ss_err e3 = {0};
    d = mem("workload: {name: a, service: 1}\n", &e3);
    CU_ASSERT_EQUAL(ss_cfg_check_keys(ss_map_find(d->root, "workload"), WL_KEYS, "workload", &e3), 0);
    CU_ASSERT_EQUAL(e3.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_check_keys(ss_map_find(d->root, "workload")->items[0], WL_KEYS, "name", &e3), -1);
    expect_msg(&e3, "mem.yaml", "1:18: name: expected a map, got 'a'");
    ss_doc_free(d);
}

static void test_num_types(void)
{
    ss_err err = {0};
    ss_doc *d = mem("m: {a: 1}\nq: \"5\"\nj: 5x\nn: .nan\ni: 1e999\nz:\nok: -2.5e-1\nhex: 0x10\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    double v = 99;
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "m", &v, 0, &err), -1);
    expect_msg(&err, "mem.yaml", "1:4: m: expected a number, got a map");
    ss_err e2 = {0};
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "q", &v, 0, &e2), -1);
    expect_msg(&e2, "mem.yaml", "2:4: q: expected a number, got string '5'");
    ss_err e3 = {0};
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "j", &v, 0, &e3), -1);
    expect_msg(&e3, "mem.yaml", "3:4: j: expected a number, got '5x'");
    ss_err e4 = {0};
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "n", &v, 0, &e4), -1);
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "i", &v, 0, &e4), -1);
    CU_ASSERT_EQUAL(v, 99);
    ss_err e5 = {0};  /* `z:` is "use the default" unless required */
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "z", &v, 0, &e5), 0);
    CU_ASSERT_EQUAL(e5.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "z", &v, SS_REQ, &e5), -1);
    expect_msg(&e5, "mem.yaml", "6:3: z: expected a number, got nothing");
    ss_err e6 = {0};
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "absent", &v, 0, &e6), 0);
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "ok", &v, 0, &e6), 1);
    CU_ASSERT_DOUBLE_EQUAL(v, -0.25, 1e-15);
    CU_ASSERT_EQUAL(e6.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "absent", &v, SS_REQ, &e6), -1);
    expect_msg(&e6, "mem.yaml", "1:1: missing required key 'absent'");
    ss_err e7 = {0}; /* decimal only (issue 40): hexadecimal is refused, at its position */
    CU_ASSERT_EQUAL(ss_cfg_num(d->root, "hex", &v, SS_INT, &e7), -1);
    expect_msg(&e7, "mem.yaml", "8:6: hex: expected an integer, got '0x10'");
    ss_doc_free(d);
}

static void test_num_bounds(void)
{
    ss_err err = {0};
    ss_doc *d = mem("w:\n  rate_rps: -3\n  zero: 0\n  half: 1.5\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    ss_node *w = ss_map_find(d->root, "w");
    double v;
    CU_ASSERT_EQUAL(ss_cfg_num(w, "rate_rps", &v, SS_REQ | SS_POS, &err), -1);
    expect_msg(&err, "mem.yaml", "2:13: rate_rps: expected a number > 0, got '-3'");
    ss_err e2 = {0};
    CU_ASSERT_EQUAL(ss_cfg_num(w, "zero", &v, SS_NONNEG, &e2), 1);
    CU_ASSERT_EQUAL(ss_cfg_num(w, "zero", &v, SS_POS, &e2), -1);
    expect_msg(&e2, "mem.yaml", "3:9: zero: expected a number > 0, got '0'");
    ss_err e3 = {0};
    CU_ASSERT_EQUAL(ss_cfg_num(w, "half", &v, SS_INT | SS_NONNEG, &e3), -1);
    expect_msg(&e3, "mem.yaml", "4:9: half: expected an integer >= 0, got '1.5'");
    ss_err e4 = {0};
    CU_ASSERT_EQUAL(ss_node_num(ss_map_find(w, "rate_rps"), "rate", &v, SS_NONNEG, &e4), -1);
    expect_msg(&e4, "mem.yaml", "2:13: rate: expected a number >= 0, got '-3'");
    ss_doc_free(d);
}

static void test_u64(void)
{
    ss_err err = {0};
    ss_doc *d = mem("a: 1e6\nb: 18446744073709551615\nc: -1\nd: 2.5\ne: 18446744073709551616\nf: 0\ng: 2e19\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    unsigned long long u = 7;
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "a", &u, 0, &err), 1);
    CU_ASSERT_EQUAL(u, 1000000ull);
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "b", &u, 0, &err), 1);
    CU_ASSERT_EQUAL(u, 18446744073709551615ull);
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "f", &u, 0, &err), 1);
    CU_ASSERT_EQUAL(u, 0);
    CU_ASSERT_EQUAL(err.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "c", &u, 0, &err), -1);
    expect_msg(&err, "mem.yaml", "3:4: c: expected an integer >= 0, got '-1'");
    ss_err e2 = {0};
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "d", &u, 0, &e2), -1);
    ss_err e3 = {0};
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "e", &u, 0, &e3), -1);
    ss_err e7 = {0};  /* through strtod, but still at most 2^64 - 1 */
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "g", &u, 0, &e7), -1);
    expect_msg(&e7, "mem.yaml", "7:4: g: expected an integer >= 0, got '2e19'");
    ss_err e4 = {0};
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "f", &u, SS_POS, &e4), -1);
    expect_msg(&e4, "mem.yaml", "6:4: f: expected an integer > 0, got '0'");
    CU_ASSERT_EQUAL(u, 0);
    ss_doc_free(d);
}

static void test_str_bool_kinds(void)
{
    ss_err err = {0};
    ss_doc *d = mem("s: hello\nt: yes\nf: False\nq: \"true\"\nm: maybe\nl: [1]\nk: {x: 1}\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    const char *s = NULL;
    CU_ASSERT_EQUAL(ss_cfg_str(d->root, "s", &s, SS_REQ, &err), 1);
    CU_ASSERT_STRING_EQUAL(s, "hello");
    int b = -1;
    CU_ASSERT_EQUAL(ss_cfg_bool(d->root, "t", &b, 0, &err), 1);
    CU_ASSERT_EQUAL(b, 1);
    CU_ASSERT_EQUAL(ss_cfg_bool(d->root, "f", &b, 0, &err), 1);
    CU_ASSERT_EQUAL(b, 0);
    CU_ASSERT_EQUAL(err.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_bool(d->root, "q", &b, 0, &err), -1);
    expect_msg(&err, "mem.yaml", "4:4: q: expected true or false, got string 'true'");
    ss_err e2 = {0};
    CU_ASSERT_EQUAL(ss_cfg_bool(d->root, "m", &b, 0, &e2), -1);
    expect_msg(&e2, "mem.yaml", "5:4: m: expected true or false, got 'maybe'");
    ss_err e3 = {0};
    CU_ASSERT_EQUAL(ss_cfg_str(d->root, "l", &s, 0, &e3), -1);
    expect_msg(&e3, "mem.yaml", "6:4: l: expected a string, got a list");
    ss_node *n = NULL;
    ss_err e4 = {0};
    CU_ASSERT_EQUAL(ss_cfg_map(d->root, "k", &n, SS_REQ, &e4), 1);
    CU_ASSERT_PTR_EQUAL(n, ss_map_find(d->root, "k"));
    CU_ASSERT_EQUAL(ss_cfg_seq(d->root, "l", &n, 0, &e4), 1);
    CU_ASSERT_EQUAL(e4.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_seq(d->root, "k", &n, 0, &e4), -1);
    expect_msg(&e4, "mem.yaml", "7:4: k: expected a list, got a map");
    ss_err e5 = {0};
    CU_ASSERT_EQUAL(ss_cfg_map(d->root, "s", &n, 0, &e5), -1);
    expect_msg(&e5, "mem.yaml", "1:4: s: expected a map, got 'hello'");
    ss_err e6 = {0};
    CU_ASSERT_EQUAL(ss_node_expect(d->root, SS_NODE_SEQ, "root", &e6), -1);
    expect_msg(&e6, "mem.yaml", "1:1: root: expected a list, got a map");
    ss_doc_free(d);
}

static void test_enum(void)
{
    static const char *const kinds[] = {"poisson", "gamma", "trace", NULL};
    ss_err err = {0};
    ss_doc *d = mem("kind: posson\nk2: banana\nk3: \"trace\"\nk4:\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int i = -1;
    CU_ASSERT_EQUAL(ss_cfg_enum(d->root, "kind", kinds, &i, SS_REQ, &err), -1);
    expect_msg(&err, "mem.yaml",
               "1:7: kind: unknown value 'posson' (did you mean 'poisson'?); expected one of: poisson, gamma, trace");
    CU_ASSERT_EQUAL(i, -1);
    ss_err e2 = {0};
    CU_ASSERT_EQUAL(ss_cfg_enum(d->root, "k2", kinds, &i, 0, &e2), -1);
    expect_msg(&e2, "mem.yaml", "2:5: k2: unknown value 'banana'; expected one of: poisson, gamma, trace");
    ss_err e3 = {0};
    CU_ASSERT_EQUAL(ss_cfg_enum(d->root, "k3", kinds, &i, 0, &e3), 1);
    CU_ASSERT_EQUAL(i, 2);
    CU_ASSERT_EQUAL(e3.set, 0);
    CU_ASSERT_EQUAL(ss_cfg_enum(d->root, "k4", kinds, &i, 0, &e3), 0);
    CU_ASSERT_EQUAL(ss_cfg_enum(d->root, "k4", kinds, &i, SS_REQ, &e3), -1);
    expect_msg(&e3, "mem.yaml", "4:4: k4: expected one of: poisson, gamma, trace, got nothing");
    ss_doc_free(d);
}

static const char PROFILE[] =
    "{\n"
    "  \"name\": \"gpu-a\",\n"
    "  \"latency\": {\"base_s\": 1e-3,\n"
    "              \"per_token_s\": [0.5, -2E+2]},\n"
    "  \"on\": true, \"off\": false, \"nil\": null\n"
    "}\n";

static void test_json_positions(void)
{
    ss_err err = {0};
    char *path;
    ss_doc *d = load_text("p.json", PROFILE, &err, &path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(err.set, 0);
    ss_node *name = ss_map_find(d->root, "name");
    expect_pos(name, 2, 11);
    CU_ASSERT_EQUAL(name->quoted, 1);
    CU_ASSERT_STRING_EQUAL(name->value, "gpu-a");
    ss_node *lat = ss_map_find(d->root, "latency");
    expect_pos(lat, 3, 14);
    ss_node *base = ss_map_find(lat, "base_s");
    expect_pos(base, 3, 25);
    CU_ASSERT_EQUAL(base->key_line, 3);
    CU_ASSERT_EQUAL(base->key_col, 15);
    CU_ASSERT_STRING_EQUAL(base->value, "1e-3");
    CU_ASSERT_EQUAL(base->quoted, 0);
    ss_node *pt = ss_map_find(lat, "per_token_s");
    CU_ASSERT_EQUAL_FATAL(pt->n, 2);
    expect_pos(pt->items[1], 4, 36);
    CU_ASSERT_STRING_EQUAL(pt->items[1]->value, "-2E+2");
    CU_ASSERT_STRING_EQUAL(pt->items[1]->file, path);
    int b = 0;
    CU_ASSERT_EQUAL(ss_cfg_bool(d->root, "on", &b, 0, &err), 1);
    CU_ASSERT_EQUAL(b, 1);
    ss_node *nil = ss_map_find(d->root, "nil");
    CU_ASSERT_EQUAL(nil->is_null, 1);
    expect_pos(nil, 5, 36);
    double v;
    CU_ASSERT_EQUAL(ss_node_num(pt->items[1], "per_token_s", &v, SS_POS, &err), -1);
    char where[600];
    snprintf(where, sizeof where, "%s", path);
    expect_msg(&err, where, "4:36: per_token_s: expected a number > 0, got '-2E+2'");
    ss_doc_free(d);
    free(path);
}

static void test_json_errors(void)
{
    ss_err err = {0};
    char *path;
    CU_ASSERT_PTR_NULL(load_text("b.json", "{\"a\": 1,\n \"b\": [1, 2,]\n}\n", &err, &path));
    expect_msg(&err, path,
               "2:13: JSON syntax error: expected a value (a string, number, object, array, true, false or null), "
               "got ']'");
    free(path);
    ss_err e2 = {0};
    CU_ASSERT_PTR_NULL(load_text("d.json", "{\"a\": 1,\n \"b\": {\"x\": 1, \"x\": 2}}", &e2, &path));
    expect_msg(&e2, path, "2:16: duplicate key 'x' (first at line 2)");
    free(path);
    ss_err e3 = {0};
    CU_ASSERT_PTR_NULL(load_text("t.json", "{\"a\": 1}\n  x", &e3, &path));
    expect_msg(&e3, path, "2:3: JSON syntax error: unexpected text after the value");
    free(path);
    ss_err e4 = {0};
    CU_ASSERT_PTR_NULL(load_text("e.json", "\n", &e4, &path));
    expect_msg(&e4, path, "1:1: JSON syntax error: the file is empty");
    free(path);
}

static void test_set_map_key(void)
{
    ss_err err = {0};
    ss_doc *d = mem(SCEN, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(ss_doc_set(d, "seed=7", 0, &err), 0);
    ss_node *seed = ss_map_find(d->root, "seed");
    CU_ASSERT_STRING_EQUAL(seed->value, "7");
    CU_ASSERT_STRING_EQUAL(seed->file, "--set");
    expect_pos(seed, 1, 6);
    CU_ASSERT_EQUAL(seed->key_line, 2);  /* the key stays where the file had it */
    CU_ASSERT_EQUAL(seed->key_col, 1);
    CU_ASSERT_EQUAL(d->root->n, 5);
    unsigned long long u;
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "seed", &u, 0, &err), 1);
    CU_ASSERT_EQUAL(u, 7);
    /* a quoted value stays a string */
    CU_ASSERT_EQUAL(ss_doc_set(d, "name='x y'", 2, &err), 0);
    CU_ASSERT_EQUAL(ss_map_find(d->root, "name")->quoted, 1);
    CU_ASSERT_STRING_EQUAL(ss_map_find(d->root, "name")->value, "x y");
    /* errors in --set values point into the command line */
    CU_ASSERT_EQUAL(ss_doc_set(d, "seed=-1", 3, &err), 0);
    CU_ASSERT_EQUAL(ss_cfg_u64(d->root, "seed", &u, 0, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--set:4:6: seed: expected an integer >= 0, got '-1'");
    ss_doc_free(d);
}

static void test_set_seq(void)
{
    ss_err err = {0};
    ss_doc *d = mem(SCEN, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(ss_doc_set(d, "workloads.1.rate_rps=9", 0, &err), 0);
    ss_node *w = ss_map_find(d->root, "workloads");
    ss_node *r = ss_map_find(w->items[1], "rate_rps");
    CU_ASSERT_STRING_EQUAL(r->value, "9");
    CU_ASSERT_EQUAL(r->quoted, 0);
    expect_pos(r, 1, 22);
    CU_ASSERT_EQUAL(ss_doc_set(d, "workloads.chat.rate_rps=2.5", 1, &err), 0);
    r = ss_map_find(w->items[0], "rate_rps");
    CU_ASSERT_STRING_EQUAL(r->value, "2.5");
    expect_pos(r, 2, 25);
    CU_ASSERT_EQUAL(r->key_line, 5);
    /* replacing a whole item by index */
    CU_ASSERT_EQUAL(ss_doc_set(d, "tags.0=z", 2, &err), 0);
    ss_node *tags = ss_map_find(d->root, "tags");
    CU_ASSERT_STRING_EQUAL(tags->items[0]->value, "z");
    CU_ASSERT_PTR_NULL(tags->items[0]->key);
    CU_ASSERT_EQUAL(tags->n, 3);
    CU_ASSERT_EQUAL(err.set, 0);
    ss_doc_free(d);
}

static void test_set_new_and_flow(void)
{
    ss_err err = {0};
    ss_doc *d = mem(SCEN, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(ss_doc_set(d, "slo.p99.ttft_s=0.5", 0, &err), 0);
    ss_node *slo = ss_map_find(d->root, "slo");
    CU_ASSERT_PTR_NOT_NULL_FATAL(slo);
    CU_ASSERT_EQUAL(slo->kind, SS_NODE_MAP);
    ss_node *p99 = ss_map_find(slo, "p99");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p99);
    CU_ASSERT_EQUAL(p99->key_col, 5);
    ss_node *t = ss_map_find(p99, "ttft_s");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->key_line, 1);
    CU_ASSERT_EQUAL(t->key_col, 9);
    expect_pos(t, 1, 16);
    /* an empty (null) key can be descended into too */
    CU_ASSERT_EQUAL(ss_doc_set(d, "empty.x=1", 1, &err), 0);
    CU_ASSERT_EQUAL(ss_map_find(d->root, "empty")->kind, SS_NODE_MAP);
    CU_ASSERT_EQUAL(ss_map_find(d->root, "empty")->key_line, 10);

    CU_ASSERT_EQUAL(ss_doc_set(d, "workloads.chat.service={dist: normal, mean_s: 2, sd_s: 0.5}", 2, &err), 0);
    ss_node *svc = ss_map_find(ss_map_find(d->root, "workloads")->items[0], "service");
    CU_ASSERT_EQUAL_FATAL(svc->kind, SS_NODE_MAP);
    CU_ASSERT_EQUAL(svc->n, 3);
    CU_ASSERT_EQUAL(svc->key_line, 6);
    expect_pos(svc, 3, 24);
    ss_node *mean = ss_map_find(svc, "mean_s");
    CU_ASSERT_STRING_EQUAL(mean->value, "2");
    expect_pos(mean, 3, 47);
    CU_ASSERT_EQUAL(mean->key_col, 39);
    CU_ASSERT_STRING_EQUAL(mean->file, "--set");

    CU_ASSERT_EQUAL(ss_doc_set(d, "tags=[1, 2]", 3, &err), 0);
    ss_node *tags = ss_map_find(d->root, "tags");
    CU_ASSERT_EQUAL(tags->kind, SS_NODE_SEQ);
    CU_ASSERT_EQUAL_FATAL(tags->n, 2);
    expect_pos(tags->items[1], 4, 10);
    CU_ASSERT_EQUAL(ss_doc_set(d, "tags=", 4, &err), 0);
    CU_ASSERT_EQUAL(ss_map_find(d->root, "tags")->is_null, 1);
    CU_ASSERT_EQUAL(err.set, 0);
    ss_doc_free(d);
}

/* Each bad assignment fails with a positioned message and changes nothing. */
static void set_fails(ss_doc *d, const char *assign, int index, const char *msg)
{
    ss_err err = {0};
    size_t n = d->root->n;
    CU_ASSERT_EQUAL(ss_doc_set(d, assign, index, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    if (strcmp(err.msg, msg) != 0) fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, msg);
    CU_ASSERT_EQUAL(d->root->n, n);
}

static void test_set_errors(void)
{
    ss_err err = {0};
    ss_doc *d = mem(SCEN, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    set_fails(d, "seed", 0, "--set:1:1: expected path=value, got 'seed'");
    set_fails(d, "=5", 1, "--set:2:1: empty path before '=' in '=5'");
    set_fails(d, "new..x=5", 2, "--set:3:5: empty path segment in 'new..x'");
    set_fails(d, "new.x.=5", 0, "--set:1:7: empty path segment in 'new.x.'");
    set_fails(d, "workloads.2.rate_rps=1", 3, "--set:4:11: index 2 out of range in workloads (2 items)");
    set_fails(d, "workloads.chta.rate_rps=1", 4, "--set:5:11: no item named 'chta' in workloads");
    set_fails(d, "seed.x=1", 5, "--set:6:6: cannot descend into seed: it is a plain value ('42' at mem.yaml:2:7)");
    set_fails(d, "new.x=[1,", 6, "--set:7:10: YAML syntax error: did not find expected node content "
                                 "(while parsing a flow node)");
    set_fails(d, "new.x=*a", 7, "--set:8:7: aliases (*a) are not supported; write the value out in full");
    CU_ASSERT_STRING_EQUAL(ss_map_find(d->root, "seed")->value, "42");
    ss_doc_free(d);
}

static void test_node_path(void)
{
    ss_err err = {0};
    ss_doc *d = ss_doc_parse_yaml("trace: t.csv\n", 13, "scen/dir/a.yaml", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(d->dir, "scen/dir");
    ss_node *t = ss_map_find(d->root, "trace");
    char *p = ss_node_path(t, t->value);
    CU_ASSERT_STRING_EQUAL(p, "scen/dir/t.csv");
    free(p);
    p = ss_node_path(t, "/abs/t.csv");
    CU_ASSERT_STRING_EQUAL(p, "/abs/t.csv");
    free(p);
    CU_ASSERT_EQUAL(ss_doc_set(d, "trace=other/u.csv", 0, &err), 0);
    t = ss_map_find(d->root, "trace");
    p = ss_node_path(t, t->value);
    CU_ASSERT_STRING_EQUAL(p, "other/u.csv");  /* typed in the shell: relative to it */
    free(p);
    ss_doc_free(d);

    d = mem("x: y\n", &err);
    p = ss_node_path(d->root->items[0], "y");
    CU_ASSERT_STRING_EQUAL(p, "y");
    free(p);
    ss_doc_free(d);
}

SS_TEST_SUITE("cfg",
              {"yaml_nested", test_yaml_nested},
              {"yaml_syntax_error", test_yaml_syntax_error},
              {"yaml_empty_and_missing", test_yaml_empty_and_missing},
              {"yaml_refusals", test_yaml_refusals},
              {"check_keys", test_check_keys},
              {"num_types", test_num_types},
              {"num_bounds", test_num_bounds},
              {"u64", test_u64},
              {"str_bool_kinds", test_str_bool_kinds},
              {"enum", test_enum},
              {"json_positions", test_json_positions},
              {"json_errors", test_json_errors},
              {"set_map_key", test_set_map_key},
              {"set_seq", test_set_seq},
              {"set_new_and_flow", test_set_new_and_flow},
              {"set_errors", test_set_errors},
              {"node_path", test_node_path})
