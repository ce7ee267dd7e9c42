/* test_cli.c: the real servesim command line (SS_BIN, with its plugins in the
 * build folder beside it): determinism of the results CSV, one test per kind
 * of bad input (exit status 2, one file:line:col message that says what was
 * expected, and no result file left behind), `check`, `plugins`, `--help`,
 * the shipped default scenario, and where output goes: the table alone on
 * stdout, ASCII under a locale that is not UTF-8, no folder made that the
 * command line does not name. */
#include "test.h"

#include <servesim/policy.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <servesim/policy.h>

/* ---- scenario text ------------------------------------------------------ */

/* A small valid scenario; the line numbers below are what the error tests
 * count on (1-3 head, 4-7 hosts, 8 models, 9-10 deployment, 11-12 workloads). */
#define HEAD "name: t\nseed: 1\nrequests: 2000\n"
#define HOSTS "hosts:\n  - name: h\n    devices:\n      - {name: d0, kind: gpu}\n"
#define MODELS "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"
#define DEPLOY "deployment:\n  - {model: m, device: d0, instances: 2}\n"
#define WL "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 50}\n"
#define GOOD HEAD HOSTS MODELS DEPLOY WL

/* Two variants differing in load balancer, three replications. */
#define VARIANTS                                                   \
    "replications: 3\n"                                            \
    "variants:\n"                                                  \
    "  - {name: rr, set: {policies.load_balancer: round-robin}}\n" \
    "  - {name: ll, set: {policies.load_balancer: least-loaded}}\n"

/* ---- helpers ------------------------------------------------------------- */

static char *xdir(void)
{
    char *d = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    return d;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    free(ss_test_write(dir, name, text));
}

/* Does a file exist? */
static int exists(const char *dir, const char *name)
{
    return ss_test_sh(NULL, "test -e '%s/%s'", dir, name) == 0;
}

/* The listing of dir (ls -A), malloc'd ("" when empty). */
static char *listing(const char *dir)
{
    char *out = NULL;
    ss_test_sh(&out, "ls -A '%s' 2>&1", dir);
    return out ? out : strdup("?");
}

static int starts(const char *s, const char *prefix)
{
    int ok = s && strncmp(s, prefix, strlen(prefix)) == 0;
    if (!ok) fprintf(stderr, "\n  want prefix: %s\n  got:         %s\n", prefix, s ? s : "(null)");
    return ok;
}

/* Number of lines in s. */
static int nlines(const char *s)
{
    int n = 0;
    for (; s && *s; s++) n += *s == '\n';
    return n;
}

/* Run `servesim run DIR/SCEN -o DIR/out/out.csv EXTRA` in DIR with env ENV
 * prefixed (may be ""), expecting bad input: exit 2, stderr (only) exactly
 * one line starting with "WHERE:LINE:COL: " (WHERE relative to DIR unless
 * it starts with '/' or '-') and holding each of the NULL-terminated
 * `needles`, nothing on stdout, and DIR/out left empty (no result, summary
 * or *.tmp.* file). */
static void expect_bad_run(const char *dir, const char *scen, const char *env, const char *extra,
                           const char *where, int line, int col, const char *const *needles)
{
    ss_test_sh(NULL, "rm -rf '%s/out' && mkdir '%s/out' && rm -f '%s/stdout'", dir, dir, dir);
    char *err = NULL;
    int rc = ss_test_sh(&err, "cd '%s' && %s '%s' run '%s/%s' -o '%s/out/out.csv' %s 2>&1 >'%s/stdout'", dir, env,
                        SS_BIN, dir, scen, dir, extra, dir);
    CU_ASSERT_EQUAL(rc, 2);
    if (rc != 2) fprintf(stderr, "\n  exit %d, stderr: %s\n", rc, err ? err : "");
    char prefix[1200];
    if (where[0] == '/' || where[0] == '-')
        snprintf(prefix, sizeof prefix, "%s:%d:%d: ", where, line, col);
    else
        snprintf(prefix, sizeof prefix, "%s/%s:%d:%d: ", dir, where, line, col);
    CU_ASSERT_TRUE(starts(err, prefix));
    CU_ASSERT_EQUAL(nlines(err), 1);
    for (size_t i = 0; needles && needles[i]; i++) CU_ASSERT_TRUE(ss_test_has(err, needles[i]));
    char *o = NULL;
    ss_test_sh(&o, "cat '%s/stdout'", dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "?", "");
    char lsout[600];
    snprintf(lsout, sizeof lsout, "%s/out", dir);
    char *ls = listing(lsout);
    CU_ASSERT_STRING_EQUAL(ls, "");
    if (strcmp(ls, "") != 0) fprintf(stderr, "\n  left in out/: %s\n", ls);
    free(ls);
    free(o);
    free(err);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Write `text` as DIR/e.yaml and expect it refused at e.yaml:line:col. */
static void bad_scenario(const char *text, int line, int col, const char *const *needles)
{
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    expect_bad_run(dir, "e.yaml", "", "", "e.yaml", line, col, needles);
    /* `check` refuses it the same way */
    char *err = NULL;
    int rc = ss_test_sh(&err, "cd '%s' && '%s' check '%s/e.yaml' 2>&1 >/dev/null", dir, SS_BIN, dir);
    CU_ASSERT_EQUAL(rc, 2);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s/e.yaml:%d:%d: ", dir, line, col);
    CU_ASSERT_TRUE(starts(err, prefix));
    free(err);
    ss_test_rmtree(dir);
}

/* Run a scenario into DIR/OUT (quiet); asserts exit 0. */
static void run_ok(const char *dir, const char *scen, const char *out, const char *extra)
{
    char *o = NULL;
    int rc = ss_test_sh(&o, "cd '%s' && '%s' run '%s/%s' -o '%s/%s' --quiet %s", dir, SS_BIN, dir, scen, dir, out,
                        extra);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0) fprintf(stderr, "\n  run failed (%d): %s\n", rc, o ? o : "");
    free(o);
}

static int same_file(const char *dir, const char *a, const char *b)
{
    return ss_test_sh(NULL, "cmp -s '%s/%s' '%s/%s'", dir, a, dir, b) == 0;
}

/* ---- 1. determinism --------------------------------------------------------- */

static void test_determinism_seed(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    run_ok(dir, "s.yaml", "a/out.csv", "");
    run_ok(dir, "s.yaml", "b/out.csv", "");
    run_ok(dir, "s.yaml", "c/out.csv", "--seed 2");
    CU_ASSERT_TRUE(exists(dir, "a/out.csv"));
    CU_ASSERT_TRUE(same_file(dir, "a/out.csv", "b/out.csv"));
    CU_ASSERT_FALSE(same_file(dir, "a/out.csv", "c/out.csv"));
    /* the header plus one row per model plus the "all" row */
    char *o = NULL;
    ss_test_sh(&o, "wc -l < '%s/a/out.csv'", dir);
    CU_ASSERT_EQUAL(o ? atoi(o) : -1, 3);
    free(o);
    /* the seed is recorded in the rows: 1 and 2 */
    ss_test_sh(&o, "head -1 '%s/a/out.csv' | cut -d, -f4; tail -n +2 '%s/a/out.csv' | cut -d, -f4 | sort -u; "
                   "tail -n +2 '%s/c/out.csv' | cut -d, -f4 | sort -u", dir, dir, dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "seed\n1\n2\n");
    free(o);
    /* one replication: no summary CSV */
    CU_ASSERT_FALSE(exists(dir, "a/out.summary.csv"));
    ss_test_rmtree(dir);
}

static void test_determinism_variants(void)
{
    char *dir = xdir();
    write_file(dir, "v.yaml", GOOD VARIANTS);
    run_ok(dir, "v.yaml", "a/out.csv", "");
    run_ok(dir, "v.yaml", "b/out.csv", "");
    CU_ASSERT_TRUE(exists(dir, "a/out.csv") && exists(dir, "a/out.summary.csv"));
    CU_ASSERT_TRUE(same_file(dir, "a/out.csv", "b/out.csv"));
    CU_ASSERT_TRUE(same_file(dir, "a/out.summary.csv", "b/out.summary.csv"));
    /* 2 variants x 3 replications x (m, all) rows + header; summary 2 x 2 + header */
    char *o = NULL;
    ss_test_sh(&o, "wc -l < '%s/a/out.csv'; wc -l < '%s/a/out.summary.csv'", dir, dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "13\n5\n");
    free(o);
    /* each variant's rows name it, and the variant's setting is a column */
    ss_test_sh(&o, "cut -d, -f2 '%s/a/out.csv' | sort | uniq -c | tr -s ' '", dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", " 6 ll\n 6 rr\n 1 variant\n");
    free(o);
    ss_test_sh(&o, "head -1 '%s/a/out.summary.csv'", dir);
    CU_ASSERT_TRUE(ss_test_has(o, "policies.load_balancer"));
    free(o);
    /* a different seed changes both */
    run_ok(dir, "v.yaml", "c/out.csv", "--seed 2");
    CU_ASSERT_FALSE(same_file(dir, "a/out.csv", "c/out.csv"));
    CU_ASSERT_FALSE(same_file(dir, "a/out.summary.csv", "c/out.summary.csv"));
    /* one replication into the same file: the earlier summary would be stale, so it goes */
    run_ok(dir, "v.yaml", "c/out.csv", "--set replications=1");
    CU_ASSERT_TRUE(exists(dir, "c/out.csv"));
    CU_ASSERT_FALSE(exists(dir, "c/out.summary.csv"));
    ss_test_rmtree(dir);
}

/* (replication, request, arrival_s) of each row of a per-request CSV, found
 * by the header's column names, sorted: written to DIR/OUT. */
static void arrivals(const char *dir, const char *csv, const char *out)
{
    ss_test_sh(NULL,
               "cd '%s' && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }"
               " { print $c[\"replication\"] \",\" $c[\"request\"] \",\" $c[\"arrival_s\"] }' '%s' | sort > '%s'",
               dir, csv, out);
}

/* Common random numbers: each variant alone, on one seed, sees the same
 * arrivals (all 3 replications), although the runs differ otherwise. */
static void test_variants_same_arrivals(void)
{
    char *dir = xdir();
    write_file(dir, "v.yaml", GOOD VARIANTS);
    run_ok(dir, "v.yaml", "rr.csv", "--variant rr --requests-csv rr.req.csv");
    run_ok(dir, "v.yaml", "ll.csv", "--variant ll --requests-csv ll.req.csv");
    char *o = NULL;
    ss_test_sh(&o, "head -1 '%s/rr.req.csv' | tr ',' '\\n' | grep -cx 'replication\\|request\\|arrival_s'", dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "3\n");
    free(o);
    arrivals(dir, "rr.req.csv", "rr.arr");
    arrivals(dir, "ll.req.csv", "ll.arr");
    CU_ASSERT_TRUE(same_file(dir, "rr.arr", "ll.arr"));
    /* 2000 requests in each of replications 0, 1, 2; every arrival time set */
    ss_test_sh(&o, "wc -l < '%s/rr.arr'; cut -d, -f1 '%s/rr.arr' | sort -u | tr '\\n' ' '; grep -c ',$' '%s/rr.arr'",
               dir, dir, dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "6000\n0 1 2 0\n");
    free(o);
    /* the replications differ from one another */
    ss_test_sh(&o, "cd '%s' && grep '^0,' rr.arr | cut -d, -f2- | sort > r0; grep '^1,' rr.arr | cut -d, -f2- | sort > r1;"
                   " cmp -s r0 r1 && echo same || echo differ", dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "differ\n");
    free(o);
    /* ...and the policies did differ: the per-request results are not identical */
    CU_ASSERT_FALSE(same_file(dir, "rr.req.csv", "ll.req.csv"));
    /* both variants in one run write the same arrivals too: each
     * (replication, request, arrival) twice, and the same set as alone */
    run_ok(dir, "v.yaml", "both.csv", "--requests-csv both.req.csv");
    arrivals(dir, "both.req.csv", "both.arr");
    ss_test_sh(&o, "cd '%s' && uniq -c both.arr | tr -s ' ' | cut -d' ' -f2 | sort -u", dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "2\n");
    free(o);
    ss_test_sh(&o, "cd '%s' && uniq both.arr | cmp - rr.arr && echo same", dir);
    CU_ASSERT_STRING_EQUAL(o ? o : "", "same\n");
    free(o);
    ss_test_rmtree(dir);
}

/* ---- 2. bad input ------------------------------------------------------------ */

static void test_bad_yaml_unclosed(void)
{
    /* the `[` of line 8 is never closed: libyaml notices at the start of line 9 */
    bad_scenario(HEAD HOSTS "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}\n" DEPLOY WL, 9, 1,
                 NEEDLES("YAML syntax error", "did not find expected ',' or ']'"));
}

static void test_bad_yaml_indent(void)
{
    /* `devices:` indented deeper than `name:` of the same host */
    static const char text[] = HEAD "hosts:\n  - name: h\n     devices:\n      - {name: d0, kind: gpu}\n" MODELS DEPLOY WL;
    bad_scenario(text, 6, ss_test_col_of(text, 6, ":"),
                 NEEDLES("YAML syntax error", "mapping values are not allowed"));
}

static void test_bad_unknown_key(void)
{
    static const char text[] = HEAD "duraton_s: 10\n" HOSTS MODELS DEPLOY WL;
    bad_scenario(text, 4, 1, NEEDLES("unknown key 'duraton_s' in scenario", "(did you mean 'duration_s'?)"));
}

static void test_bad_unknown_workload_key(void)
{
    static const char text[] = HEAD HOSTS MODELS DEPLOY "workloads:\n  - {name: w, kind: poisson, target: m, rate_rsp: 50}\n";
    bad_scenario(text, 12, ss_test_col_of(text, 12, "rate_rsp"),
                 NEEDLES("unknown key 'rate_rsp' in poisson workload", "(did you mean 'rate_rps'?)"));
}

static void test_bad_type_number(void)
{
    static const char text[] = HEAD "duration_s: abc\n" HOSTS MODELS DEPLOY WL;
    bad_scenario(text, 4, ss_test_col_of(text, 4, "abc"), NEEDLES("duration_s: expected a number > 0, got 'abc'"));
}

static void test_bad_type_list(void)
{
    static const char text[] = HEAD "hosts: 5\n" MODELS DEPLOY WL;
    bad_scenario(text, 4, ss_test_col_of(text, 4, "5"), NEEDLES("hosts: expected a list, got '5'"));
}

static void test_bad_negative_rate(void)
{
    static const char text[] = HEAD HOSTS MODELS DEPLOY "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: -3}\n";
    bad_scenario(text, 12, ss_test_col_of(text, 12, "-3"), NEEDLES("rate_rps: expected a number > 0, got '-3'"));
}

static void test_bad_missing_profile(void)
{
    static const char text[] = HEAD HOSTS "models: [{name: m, profile: nothere.json}]\n" DEPLOY WL;
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    char want[600];
    snprintf(want, sizeof want, "model profile '%s/nothere.json' not found or not readable", dir);
    expect_bad_run(dir, "e.yaml", "", "", "e.yaml", 8, ss_test_col_of(text, 8, "nothere"), NEEDLES(want));
    ss_test_rmtree(dir);
}

static void test_bad_bare_model(void)
{
    /* a name no models/ folder above /tmp holds */
    static const char text[] = HEAD HOSTS "models: [no-such-model-xq7]\n"
                                          "deployment:\n  - {model: no-such-model-xq7, device: d0}\n"
                                          "workloads:\n  - {name: w, kind: poisson, target: no-such-model-xq7, rate_rps: 5}\n";
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    expect_bad_run(dir, "e.yaml", "env -u SERVESIM_MODEL_PATH", "", "e.yaml", 8, ss_test_col_of(text, 8, "no-such"),
                   NEEDLES("no profile for model 'no-such-model-xq7'", "models/no-such-model-xq7.json"));
    ss_test_rmtree(dir);
}

static void test_bad_missing_trace(void)
{
    static const char text[] = HEAD HOSTS MODELS DEPLOY "workloads:\n  - {name: w, kind: trace, target: m, file: nothere.csv}\n";
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    char want[600];
    snprintf(want, sizeof want, "trace file 'nothere.csv' not found or not readable: looked for '%s/nothere.csv'", dir);
    expect_bad_run(dir, "e.yaml", "", "", "e.yaml", 12, ss_test_col_of(text, 12, "nothere"), NEEDLES(want));
    ss_test_rmtree(dir);
}

static void test_bad_plugin_missing(void)
{
    static const char text[] = GOOD "policies: {load_balancer: rund-robin}\n";
    bad_scenario(text, 13, ss_test_col_of(text, 13, "rund"),
                 NEEDLES("no policy plugin 'rund-robin' (did you mean 'round-robin'?)", "searched: ",
                         SS_BUILD_DIR "/policies"));
}

static void test_bad_plugin_abi(void)
{
    static const char text[] = GOOD "policies: {load_balancer: bad-abi}\n";
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    char speaks[128];
    snprintf(speaks, sizeof speaks, "was built for policy ABI 999, this servesim speaks ABI %u: rebuild it",
             (unsigned)SS_POLICY_ABI);
    expect_bad_run(dir, "e.yaml", "SERVESIM_PLUGIN_PATH='" SS_BUILD_DIR "/tests/plugins'", "", "e.yaml", 13,
                   ss_test_col_of(text, 13, "bad-abi"),
                   NEEDLES("plugin 'bad-abi' (" SS_BUILD_DIR "/tests/plugins/bad-abi.so)", speaks));
    ss_test_rmtree(dir);
}

static void test_bad_plugin_kind(void)
{
    static const char text[] = GOOD "policies: {load_balancer: fifo}\n";
    bad_scenario(text, 13, ss_test_col_of(text, 13, "fifo"),
                 NEEDLES("policy 'fifo' (" SS_BUILD_DIR "/policies/fifo.so) is a scheduler, expected a load_balancer"));
}

static void test_bad_policy_param(void)
{
    static const char text[] = GOOD "policies: {load_balancer: {name: least-loaded, tiez: random}}\n";
    bad_scenario(text, 13, ss_test_col_of(text, 13, "tiez"),
                 NEEDLES("policy 'least-loaded' has no parameter 'tiez' (did you mean 'ties'?)"));
}

static void test_bad_trace_line(void)
{
    static const char text[] = HEAD HOSTS MODELS DEPLOY "workloads:\n  - {name: w, kind: trace, target: m, file: tr.csv}\n";
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    write_file(dir, "tr.csv", "timestamp_s\n0.5\nabc\n");
    char where[600];
    snprintf(where, sizeof where, "%s/tr.csv", dir);
    expect_bad_run(dir, "e.yaml", "", "", where, 3, 1, NEEDLES("expected a time in seconds, got 'abc'"));
    ss_test_rmtree(dir);
}

static void test_bad_json_profile(void)
{
    static const char text[] = HEAD HOSTS "models: [{name: m, profile: p.json}]\n" DEPLOY WL;
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    char where[600];
    snprintf(where, sizeof where, "%s/p.json", dir);
    /* a missing comma: the unexpected key starts line 4, column 3 */
    write_file(dir, "p.json", "{\n  \"name\": \"m\",\n  \"service\": {\"dist\": \"exponential\", \"mean_s\": 0.01}\n"
                              "  \"weights_bytes\": 1\n}\n");
    expect_bad_run(dir, "e.yaml", "", "", where, 4, 3, NEEDLES("JSON syntax error"));
    /* well-formed JSON, but a negative mean: positioned at the value in the JSON file */
    static const char neg[] = "{\n  \"name\": \"m\",\n  \"service\": {\"dist\": \"exponential\", \"mean_s\": -0.01}\n}\n";
    write_file(dir, "p.json", neg);
    expect_bad_run(dir, "e.yaml", "", "", where, 3, ss_test_col_of(neg, 3, "-0.01"),
                   NEEDLES("mean_s: expected a number > 0, got '-0.01'"));
    /* an unknown key in the profile, with a suggestion */
    static const char typo[] = "{\n  \"name\": \"m\",\n  \"servise\": {\"dist\": \"exponential\", \"mean_s\": 0.01}\n}\n";
    write_file(dir, "p.json", typo);
    expect_bad_run(dir, "e.yaml", "", "", where, 3, ss_test_col_of(typo, 3, "\"servise\""),
                   NEEDLES("unknown key 'servise' in model profile", "(did you mean 'service'?)"));
    ss_test_rmtree(dir);
}

/* A trailing comma in a JSON profile: the position must be on the comma or
 * on the `}` that follows it, not past the end of the line. */
static void test_bad_json_trailing_comma(void)
{
    static const char text[] = HEAD HOSTS "models: [{name: m, profile: p.json}]\n" DEPLOY WL;
    static const char json[] = "{\n  \"name\": \"m\",\n  \"service\": {\"dist\": \"exponential\", \"mean_s\": 0.01,}\n}\n";
    char *dir = xdir();
    write_file(dir, "e.yaml", text);
    write_file(dir, "p.json", json);
    char *err = NULL;
    int rc = ss_test_sh(&err, "cd '%s' && '%s' check '%s/e.yaml' 2>&1 >/dev/null", dir, SS_BIN, dir);
    CU_ASSERT_EQUAL(rc, 2);
    char where[600];
    snprintf(where, sizeof where, "%s/p.json:3:", dir);
    CU_ASSERT_TRUE(starts(err, where));
    int col = err && strlen(err) > strlen(where) ? atoi(err + strlen(where)) : -1;
    int comma = ss_test_col_of(json, 3, ",}"), brace = comma + 1;
    CU_ASSERT_TRUE(col == comma || col == brace);
    if (col != comma && col != brace)
        fprintf(stderr, "\n  column %d: want %d (the ',') or %d (the '}'); the line has %d characters\n", col, comma,
                brace, brace);
    CU_ASSERT_TRUE(ss_test_has(err, "JSON syntax error"));
    free(err);
    ss_test_rmtree(dir);
}

static void test_bad_set(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    expect_bad_run(dir, "s.yaml", "", "--set workloads.nope.rate_rps=5", "--set", 1, 11,
                   NEEDLES("no item named 'nope' in workloads"));
    expect_bad_run(dir, "s.yaml", "", "--set duration_s=-1", "--set", 1, 12,
                   NEEDLES("duration_s: expected a number > 0, got '-1'"));
    /* the second assignment on the command line is --set:2 */
    expect_bad_run(dir, "s.yaml", "", "--set seed=3 --set workloads.w.rate_rps=abc", "--set", 2, 22,
                   NEEDLES("rate_rps: expected a number > 0, got 'abc'"));
    /* a key the schema does not know, set from the command line */
    expect_bad_run(dir, "s.yaml", "", "--set duraton_s=5", "--set", 1, 1,
                   NEEDLES("unknown key 'duraton_s' in scenario (did you mean 'duration_s'?)"));
    ss_test_rmtree(dir);
}

/* A variant's `set:` is part of the scenario file: its mistakes are
 * positioned there, not on the command line. */
static void test_bad_variant_set(void)
{
    static const char text[] = GOOD "variants:\n  - {name: a, set: {policies.load_balancer: random}}\n"
                                    "  - {name: b, set: {duration_s: -5}}\n";
    bad_scenario(text, 15, ss_test_col_of(text, 15, "-5"), NEEDLES("duration_s: expected a number > 0, got '-5'"));
}

static void test_bad_variant_name(void)
{
    char *dir = xdir();
    write_file(dir, "v.yaml", GOOD VARIANTS);
    char *err = NULL;
    int rc = ss_test_sh(&err, "cd '%s' && '%s' run v.yaml --variant lll -o out/out.csv 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "v.yaml"));
    CU_ASSERT_TRUE(ss_test_has(err, "no variant named 'lll' (did you mean 'll'?)"));
    CU_ASSERT_FALSE(exists(dir, "out"));
    free(err);
    /* a scenario without variants has none to name: blamed on its first line */
    write_file(dir, "s.yaml", GOOD);
    rc = ss_test_sh(&err, "cd '%s' && '%s' run s.yaml --variant rr -o out/out.csv 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_STRING_EQUAL(err ? err : "", "s.yaml:1:1: no variant named 'rr'\n");
    CU_ASSERT_FALSE(exists(dir, "out"));
    free(err);
    ss_test_rmtree(dir);
}

static void test_bad_command_and_option(void)
{
    char *err = NULL;
    int rc = ss_test_sh(&err, "'%s' chek x.yaml 2>&1 >/dev/null", SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "servesim: unknown command 'chek' (did you mean 'check'?)\n"));
    CU_ASSERT_TRUE(ss_test_has(err, "usage: servesim <command>"));
    free(err);
    rc = ss_test_sh(&err, "'%s' frobnicate 2>&1 >/dev/null", SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "servesim: unknown command 'frobnicate'"));
    free(err);
    rc = ss_test_sh(&err, "'%s' 2>&1 >/dev/null", SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "usage: servesim <command>"));
    free(err);

    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    rc = ss_test_sh(&err, "cd '%s' && '%s' run s.yaml --frob -o out/out.csv 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_STRING_EQUAL(err ? err : "", "servesim run: unknown option '--frob'\n(try 'servesim run --help')\n");
    free(err);
    rc = ss_test_sh(&err, "cd '%s' && '%s' run s.yaml -o 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "servesim run: -o needs a value"));
    free(err);
    rc = ss_test_sh(&err, "cd '%s' && '%s' check s.yaml -o out/out.csv 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "servesim check: unknown option '-o'"));
    free(err);
    rc = ss_test_sh(&err, "cd '%s' && '%s' run 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "servesim run: missing SCENARIO.yaml"));
    free(err);
    rc = ss_test_sh(&err, "cd '%s' && '%s' run s.yaml s.yaml 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, "servesim run: unexpected argument 's.yaml'"));
    free(err);
    /* nothing ran: no results folder appeared */
    CU_ASSERT_FALSE(exists(dir, "out"));
    CU_ASSERT_FALSE(exists(dir, "results"));
    ss_test_rmtree(dir);
}

static void test_bad_output_path(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    char *out = NULL;
    /* stdout only: nothing ran, so no table */
    int rc = ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o /proc/forbidden/x.csv 2>/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_STRING_EQUAL(out ? out : "?", "");
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o /proc/forbidden/x.csv --stats 2>&1 >/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(out, "/proc/forbidden/x.csv: cannot create"));
    CU_ASSERT_EQUAL(nlines(out), 1);
    CU_ASSERT_TRUE(out && !strstr(out, "stats:")); /* --stats prints only after a run */
    free(out);
    /* a writable results CSV with an unwritable per-request CSV: neither
     * the results nor a temporary file is left */
    ss_test_sh(NULL, "mkdir '%s/out'", dir);
    rc = ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o out/out.csv --requests-csv /proc/forbidden/r.csv 2>&1 >/dev/null",
                    dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(out, "/proc/forbidden/r.csv: cannot create"));
    free(out);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/out", dir);
    char *ls = listing(sub);
    CU_ASSERT_STRING_EQUAL(ls, "");
    free(ls);
    /* and the other way round */
    rc = ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o /proc/forbidden/x.csv --requests-csv out/r.csv 2>&1 >/dev/null",
                    dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    free(out);
    ls = listing(sub);
    CU_ASSERT_STRING_EQUAL(ls, "");
    free(ls);
    /* no default results/ either */
    CU_ASSERT_FALSE(exists(dir, "results"));
    ss_test_rmtree(dir);
}

/* A bad input does not clobber an earlier result at the same path. */
static void test_bad_keeps_old_result(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    run_ok(dir, "s.yaml", "out/out.csv", "");
    ss_test_sh(NULL, "cp '%s/out/out.csv' '%s/keep.csv'", dir, dir);
    char *err = NULL;
    int rc = ss_test_sh(&err, "cd '%s' && '%s' run s.yaml -o out/out.csv --set workloads.w.rate_rps=-1 2>&1", dir,
                        SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    free(err);
    CU_ASSERT_TRUE(ss_test_sh(NULL, "cmp -s '%s/out/out.csv' '%s/keep.csv'", dir, dir) == 0);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/out", dir);
    char *ls = listing(sub);
    CU_ASSERT_STRING_EQUAL(ls, "out.csv\n");
    free(ls);
    ss_test_rmtree(dir);
}

/* ---- 3. check ---------------------------------------------------------------- */

static void test_check(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    write_file(dir, "v.yaml", GOOD VARIANTS);
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' check s.yaml", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "",
                           "s.yaml: ok: scenario 't', 1 device, 1 model, 2 instances, 1 workload, "
                           "load balancer round-robin, scheduler fifo\n");
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' check v.yaml", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, ": ok: ") && ss_test_has(out, ", variants: rr ll\n"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' check v.yaml --variant ll --set workloads.w.rate_rps=10", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "load balancer least-loaded") && ss_test_has(out, "variants: ll\n"));
    free(out);
    /* check runs nothing and writes nothing */
    CU_ASSERT_FALSE(exists(dir, "results"));

    /* a few bad inputs: exit 2 and a positioned message */
    rc = ss_test_sh(&out, "cd '%s' && '%s' check s.yaml --set workloads.w.rate_rps=-3 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(out, "--set:1:22: rate_rps: expected a number > 0"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' check s.yaml --set policies.scheduler=round-robin 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "is a load_balancer, expected a scheduler"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' check nothere.yaml 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(out, "nothere.yaml"));
    free(out);
    write_file(dir, "e.yaml", HEAD "warmup_s: 1\n" HOSTS MODELS DEPLOY WL);
    rc = ss_test_sh(&out, "cd '%s' && '%s' check e.yaml --set duration_s=1 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(out, "e.yaml:4:11: warmup_s (1) must be shorter than duration_s (1)"));
    free(out);
    ss_test_rmtree(dir);
}

/* ---- 4. plugins ----------------------------------------------------------------- */

static void test_plugins(void)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd / && '%s' plugins 2>&1", SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "search path:\n"));
    CU_ASSERT_TRUE(ss_test_has(out, SS_BUILD_DIR "/policies\n"));
    static const char *const want[][2] = {{"fifo", "scheduler"},          {"priority", "scheduler"},
                                          {"random", "load_balancer"},    {"round-robin", "load_balancer"},
                                          {"least-loaded", "load_balancer"}, {"tensormq", "transport"},
                                          {"zmq-copy", "transport"},        {"http", "transport"},
                                          {"masa", "layer_scheduler"},      {"masa-repo", "layer_scheduler"},
                                          {"bulk", "layer_scheduler"},      {"deepeye", "layer_scheduler"},
                                          {"deepeye-frugal", "layer_scheduler"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int found = 0;
        for (char *line = out; line && *line;) {
            char name[64], kind[64];
            unsigned abi = 0;
            if (sscanf(line, "%63s %63s %u", name, kind, &abi) == 3 && strcmp(name, want[i][0]) == 0) {
                found = 1;
                CU_ASSERT_STRING_EQUAL(kind, want[i][1]);
                CU_ASSERT_EQUAL(abi, SS_POLICY_ABI);
            }
            line = strchr(line, '\n');
            if (line) line++;
        }
        CU_ASSERT_TRUE(found);
        if (!found) fprintf(stderr, "\n  plugin %s not listed in:\n%s\n", want[i][0], out);
        char path[600];
        snprintf(path, sizeof path, SS_BUILD_DIR "/policies/%s.so\n", want[i][0]);
        CU_ASSERT_TRUE(ss_test_has(out, path));
    }
    free(out);
    /* $SERVESIM_PLUGIN_PATH adds the test plugins; the bad ones are reported, not listed */
    rc = ss_test_sh(&out, "cd / && SERVESIM_PLUGIN_PATH='" SS_BUILD_DIR "/tests/plugins' '%s' plugins 2>/dev/null",
                    SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, SS_BUILD_DIR "/tests/plugins\n"));
    CU_ASSERT_TRUE(out && !strstr(out, "\nbad-abi "));
    free(out);
    rc = ss_test_sh(&out, "'%s' plugins a.yaml b.yaml 2>&1 >/dev/null", SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    free(out);
}

/* ---- 5. help --------------------------------------------------------------------- */

static void test_help(void)
{
    static const char *const cmds[][2] = {{"run", "usage: servesim run SCENARIO.yaml"},
                                          {"check", "usage: servesim check SCENARIO.yaml"},
                                          {"plugins", "usage: servesim plugins"}};
    for (size_t i = 0; i < 3; i++) {
        for (int h = 0; h < 2; h++) {
            char *out = NULL;
            /* stdout only, and nothing on stderr */
            int rc = ss_test_sh(&out, "'%s' %s %s 2>/dev/null", SS_BIN, cmds[i][0], h ? "-h" : "--help");
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_TRUE(starts(out, cmds[i][1]));
            free(out);
            rc = ss_test_sh(&out, "'%s' %s %s 2>&1 >/dev/null", SS_BIN, cmds[i][0], h ? "-h" : "--help");
            CU_ASSERT_STRING_EQUAL(out ? out : "?", "");
            free(out);
        }
    }
    char *out = NULL;
    int rc = ss_test_sh(&out, "'%s' --help 2>/dev/null", SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(starts(out, "usage: servesim <command>"));
    CU_ASSERT_TRUE(ss_test_has(out, "  run SCENARIO.yaml") && ss_test_has(out, "  check SCENARIO.yaml") && ss_test_has(out, "  plugins"));
    free(out);
    rc = ss_test_sh(&out, "'%s' run --help", SS_BIN);
    CU_ASSERT_TRUE(ss_test_has(out, "--set KEY.PATH=VALUE") && ss_test_has(out, "--seed N") && ss_test_has(out, "--variant NAME") &&
                   ss_test_has(out, "--requests-csv PATH") && ss_test_has(out, "-o, --output PATH"));
    free(out);
    rc = ss_test_sh(&out, "'%s' --version", SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    char version[64];
    snprintf(version, sizeof version, "servesim 0.1.0 (policy ABI %u)", (unsigned)SS_POLICY_ABI);
    CU_ASSERT_TRUE(starts(out, version));
    free(out);
}

/* ---- 6. the shipped default scenario ------------------------------------------------ */

/* `make run`'s scenario checks from anywhere (its models and topology found
 * from its own folder), and a short run of it prints the autoscaling table:
 * end-to-end latency, cold starts and replica-seconds, every variant and
 * model.  The load-balancer comparison it replaced is a tour example. */
static void test_default_scenario(void)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd / && env -u SERVESIM_MODEL_PATH '%s' check '%s/scenarios/default.yaml'", SS_BIN,
                        SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "default.yaml: ok: scenario 'serverless', 1600 devices, 2 models, 0 instances, "
                                    "2 workloads, load balancer round-robin, scheduler fifo, model gpt2-xl: one shared "
                                    "queue, model t5-3b: one shared queue, autoscaler atl every 1 s for 2 models, "
                                    "replicas cold-start placed by cloud from storage 's3', variants: baseline locality "
                                    "multicast flashpoint\n"));
    CU_ASSERT_TRUE(ss_test_has(out, "topology 'flashpoint-dc': 2616 nodes"));
    free(out);
    char *dir = ss_test_tmpdir();
    rc = ss_test_sh(&out, "cd '%s' && '%s' run '%s/scenarios/default.yaml' -o r.csv --timeseries-csv ts.csv "
                          "--set duration_s=300 --set replications=2",
                    dir, SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "servesim: serverless, seed 1, 4 variants x 2 replications -> r.csv\n"
                                    "variant     model    completed  dropped  tput/s        e2e mean s          e2e "
                                    "p99 s  cold starts   cold mean s    replicas  replica-s  dev util\n"));
    static const char *const variants[] = {"baseline", "locality", "multicast", "flashpoint"};
    static const char *const models[] = {"gpt2-xl", "t5-3b", "all"};
    for (size_t v = 0; v < 4; v++)
        for (size_t m = 0; m < 3; m++) {
            char row[64];
            snprintf(row, sizeof row, "\n%-10s  %-7s  ", variants[v], models[m]);
            CU_ASSERT_TRUE(ss_test_has(out, row));
        }
    CU_ASSERT_TRUE(ss_test_has(out, "(e2e = arrival to completion, waits for cold starts included; cold starts = "
                                    "replicas started and up, cold mean s = their mean start-up time; replica-s = "
                                    "replica-seconds in the measured window, replicas = replica-s / the window)\n"));
    free(out);
    ss_test_rmtree(dir);
    /* the load-balancer comparison, as it was */
    rc = ss_test_sh(&out, "cd / && env -u SERVESIM_MODEL_PATH '%s' check '%s/scenarios/tour/load-balancers.yaml'",
                    SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "load-balancers.yaml: ok: scenario 'default', 4 devices, 1 model, 4 instances, "
                                    "1 workload, load balancer round-robin, scheduler fifo, variants: round-robin random "
                                    "least-loaded\n"));
    free(out);
}

/* ---- 7. streams, locale and output folders (issue 43 item 3) -------------------------- */

/* The text of dir/name ("" if absent), malloc'd. */
static char *slurp(const char *dir, const char *name)
{
    char *out = NULL;
    ss_test_sh(&out, "cat '%s/%s' 2>/dev/null", dir, name);
    return out ? out : strdup("");
}

static int ascii(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s >= 0x80) return 0;
    return s != NULL;
}

/* Data on stdout, every log line on stderr: `run > t.txt` keeps the table
 * alone, the banner is stderr's one line; a sweep's closing line is stderr's. */
static void test_streams(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    int rc = ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o out/r.csv > t.txt 2> e.txt", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    char *t = slurp(dir, "t.txt"), *e = slurp(dir, "e.txt");
    CU_ASSERT_TRUE(starts(t, "variant  model "));
    CU_ASSERT_PTR_NULL(strstr(t, "servesim"));
    CU_ASSERT_STRING_EQUAL(e, "servesim: t, seed 1, 1 variant x 1 replication -> out/r.csv\n");
    free(t);
    free(e);
    /* -o - --quiet: the CSV alone, the same bytes as the file, and a silent stderr */
    rc = ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o - --quiet > c.csv 2> e.txt && cmp -s c.csv out/r.csv && ! test -s e.txt",
                    dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    write_file(dir, "sw.yaml", "name: sw\nscenario: s.yaml\nvariants: []\naxes:\n  - key: seed\n    values: [1, 2]\n");
    rc = ss_test_sh(NULL, "cd '%s' && '%s' sweep sw.yaml -j 1 -o out/sw.csv > so.txt 2> se.txt", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    t = slurp(dir, "so.txt");
    e = slurp(dir, "se.txt");
    CU_ASSERT_STRING_EQUAL(t, "");
    CU_ASSERT_TRUE(ss_test_has(e, "sweep: 2 points, 2 runs (0 already there, 0 failed) -> out/sw.csv\n"));
    free(t);
    free(e);
    ss_test_rmtree(dir);
}

/* Under a locale that is not UTF-8 the table is ASCII (+/-) and stays
 * aligned; under UTF-8 it keeps its sign; the CSVs are the same bytes. */
static void test_ascii_table(void)
{
    char *dir = xdir();
    write_file(dir, "v.yaml", GOOD VARIANTS);
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && env -u LC_ALL -u LC_CTYPE LANG=C '%s' run v.yaml -o a/r.csv 2>/dev/null",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ascii(out));
    CU_ASSERT_TRUE(ss_test_has(out, " +/-"));
    CU_ASSERT_TRUE(ss_test_has(out, "(3 replications per variant; +/- is the 95% confidence half-width)"));
    const char *hdr = out && strstr(out, "variant ") ? strstr(out, "variant ") : "";
    size_t w = strcspn(hdr, "\n");
    for (const char *l = strchr(hdr, '\n'); l && l[1] && l[1] != '('; l = strchr(l + 1, '\n'))
        CU_ASSERT_EQUAL(strcspn(l + 1, "\n"), w); /* every row as wide as the header */
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && env -u LC_ALL -u LC_CTYPE -u LANG '%s' compare a/r.csv --by load_balancer --baseline round-robin",
                    dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ascii(out) && ss_test_has(out, " +/-"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && LC_ALL=C.UTF-8 '%s' run v.yaml -o u/r.csv 2>/dev/null", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, " \xc2\xb1"));
    free(out);
    rc = ss_test_sh(NULL, "cd '%s' && cmp a/r.csv u/r.csv && cmp a/r.summary.csv u/r.summary.csv", dir);
    CU_ASSERT_EQUAL(rc, 0);
    ss_test_rmtree(dir);
}

/* `servesim CMD ARGS` in dir: exit 2, stderr (alone) one line starting
 * with `prefix` and holding `said`, nothing on stdout. */
static void refused_alone(const char *dir, const char *args, const char *prefix, const char *said)
{
    char *err = NULL;
    int rc = ss_test_sh(&err, "cd '%s' && '%s' %s 2>&1 >stdout.txt", dir, SS_BIN, args);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(starts(err, prefix));
    CU_ASSERT_TRUE(ss_test_has(err, said));
    CU_ASSERT_EQUAL(nlines(err), 1);
    char *o = slurp(dir, "stdout.txt");
    CU_ASSERT_STRING_EQUAL(o, "");
    free(o);
    free(err);
}

/* Without -o, run writes the scenario's outputs.csv, else results/<name>.csv,
 * only into a folder that is there: else exit 2 before any work and no
 * folder made.  The folders of a path the command line names are made. */
static void test_output_folders(void)
{
    char *dir = xdir();
    write_file(dir, "s.yaml", GOOD);
    refused_alone(dir, "run s.yaml", "s.yaml: the results CSV goes to results/t.csv (results/<name>.csv: the scenario "
                                     "names no outputs.csv), but there is no folder 'results' in ",
                  "servesim makes only the folders the command line names: make it, or give -o PATH");
    CU_ASSERT_FALSE(exists(dir, "results"));
    ss_test_sh(NULL, "mkdir '%s/results'", dir);
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml --quiet", dir, SS_BIN), 0);
    CU_ASSERT_TRUE(exists(dir, "results/t.csv"));
    /* a scenario's outputs: positioned at their key, with the option that names another path */
    write_file(dir, "o.yaml", GOOD "outputs:\n  csv: sub/o.csv\n");
    refused_alone(dir, "run o.yaml", "o.yaml:14:8: outputs.csv: the results CSV (sub/o.csv): there is no folder 'sub'",
                  "give -o PATH");
    write_file(dir, "ts.yaml", GOOD "outputs:\n  timeseries_csv: sub/ts.csv\n");
    refused_alone(dir, "run ts.yaml -o r.csv",
                  "ts.yaml:14:19: outputs.timeseries_csv: the time-series CSV (sub/ts.csv): there is no folder 'sub'",
                  "give --timeseries-csv PATH (--set outputs.timeseries_csv= for none)");
    write_file(dir, "f.yaml", GOOD "outputs:\n  csv: s.yaml/o.csv\n");
    refused_alone(dir, "run f.yaml", "f.yaml:14:8: outputs.csv: the results CSV (s.yaml/o.csv): 's.yaml' in ",
                  "is not a folder");
    CU_ASSERT_FALSE(exists(dir, "sub"));
    CU_ASSERT_FALSE(exists(dir, "r.csv"));
    /* named on the command line: made */
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s' run o.yaml --quiet --set outputs.csv=made/o.csv", dir, SS_BIN), 0);
    CU_ASSERT_TRUE(exists(dir, "made/o.csv"));
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s' run ts.yaml --quiet -o deep/er/r.csv --timeseries-csv t/ts.csv",
                               dir, SS_BIN),
                    0);
    CU_ASSERT_TRUE(exists(dir, "deep/er/r.csv") && exists(dir, "t/ts.csv"));
    /* a sweep's output: the same rule */
    write_file(dir, "sw.yaml", "name: sw\nscenario: s.yaml\nvariants: []\naxes:\n  - key: seed\n    values: [1, 2]\n"
                               "output: swout/sw.csv\n");
    refused_alone(dir, "sweep sw.yaml -j 1", "sw.yaml:7:9: output: the results CSV (swout/sw.csv): there is no folder 'swout'",
                  "give -o PATH");
    CU_ASSERT_FALSE(exists(dir, "swout"));
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s' sweep sw.yaml -j 1 --quiet -o swo/sw.csv", dir, SS_BIN), 0);
    CU_ASSERT_TRUE(exists(dir, "swo/sw.csv"));
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("cli",
              {"determinism_seed", test_determinism_seed},
              {"determinism_variants", test_determinism_variants},
              {"variants_same_arrivals", test_variants_same_arrivals},
              {"bad_yaml_unclosed", test_bad_yaml_unclosed},
              {"bad_yaml_indent", test_bad_yaml_indent},
              {"bad_unknown_key", test_bad_unknown_key},
              {"bad_unknown_workload_key", test_bad_unknown_workload_key},
              {"bad_type_number", test_bad_type_number},
              {"bad_type_list", test_bad_type_list},
              {"bad_negative_rate", test_bad_negative_rate},
              {"bad_missing_profile", test_bad_missing_profile},
              {"bad_bare_model", test_bad_bare_model},
              {"bad_missing_trace", test_bad_missing_trace},
              {"bad_plugin_missing", test_bad_plugin_missing},
              {"bad_plugin_abi", test_bad_plugin_abi},
              {"bad_plugin_kind", test_bad_plugin_kind},
              {"bad_policy_param", test_bad_policy_param},
              {"bad_trace_line", test_bad_trace_line},
              {"bad_json_profile", test_bad_json_profile},
              {"bad_json_trailing_comma", test_bad_json_trailing_comma},
              {"bad_set", test_bad_set},
              {"bad_variant_set", test_bad_variant_set},
              {"bad_variant_name", test_bad_variant_name},
              {"bad_command_and_option", test_bad_command_and_option},
              {"bad_output_path", test_bad_output_path},
              {"bad_keeps_old_result", test_bad_keeps_old_result},
              {"check", test_check},
              {"plugins", test_plugins},
              {"help", test_help},
              {"default_scenario", test_default_scenario},
              {"streams", test_streams},
              {"ascii_table", test_ascii_table},
              {"output_folders", test_output_folders})
