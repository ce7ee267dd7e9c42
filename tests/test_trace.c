/* test_trace.c: arrival traces (sim/input/trace.h) - the servesim CSV and Azure
 * LLM formats turned into relative arrival times, the real Azure traces of
 * ../shared/traces when present, and a `trace` workload in a scenario. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "test_scenario.h"
#include "input/trace.h"

#define EPS 1e-12

/* ---- traces ------------------------------------------------------------------------ */

static void test_trace_servesim(void)
{
    char *dir = xdir();
    char *p = put(dir, "t.csv", "timestamp_s,model\r\n100.25,a\r\n100.5,b\r\n101.25,c\r\n");
    double *t = NULL;
    size_t n = 0;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_trace_load(p, 1.0, &t, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(t[0], 0.0);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 0.25, EPS);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 1.0, EPS);
    free(t);
    /* time_scale 2: twice as slow */
    CU_ASSERT_EQUAL_FATAL(ss_trace_load(p, 2.0, &t, &n, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 0.5, EPS);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 2.0, EPS);
    free(t);
    free(p);

    /* equal timestamps are fine, decreasing ones are refused at their line */
    p = put(dir, "eq.csv", "timestamp_s\n1\n1\n2\n");
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 3);
    free(t);
    free(p);
    p = put(dir, "dec.csv", "timestamp_s\n1\n3\n2\n");
    t = NULL;
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    expect_err(&err, p, 4, 1, "timestamps must not decrease (2 after 3)");
    CU_ASSERT_PTR_NULL(t);
    free(p);

    p = put(dir, "bad.csv", "timestamp_s\n0.5\nabc\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    expect_err(&err, p, 3, 1, "expected a time in seconds, got 'abc'");
    free(p);
    p = put(dir, "bad2.csv", "timestamp_s\n0.5\n0.75x,1\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    expect_err(&err, p, 3, 5, "expected a time in seconds, got '0.75x,1'");
    free(p);
    p = put(dir, "hdr.csv", "time\n1\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    expect_err(&err, p, 1, 1,
               "unknown trace format: expected a header starting with 'timestamp_s' (servesim) or 'TIMESTAMP' (Azure)");
    free(p);
    /* each time finite, the span from the first one not (found with fuzz_trace) */
    p = put(dir, "span.csv", "timestamp_s\n-1e308\n1e308\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    expect_err(&err, p, 3, 1, "inf s after the first line, times time_scale 1, is past 1e15 s");
    free(p);
    p = put(dir, "none.csv", "timestamp_s\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    CU_ASSERT_TRUE(strstr(err.msg, "trace holds no arrivals") != NULL);
    free(p);
    ss_test_rmtree(dir);
}

static void test_trace_azure(void)
{
    char *dir = xdir();
    char *p = put(dir, "az.csv",
                  "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                  "2023-11-16 18:17:03.9799600,4808,10\n"
                  "2023-11-16 18:17:04.0319600,3180,8\n");
    double *t = NULL;
    size_t n = 0;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_trace_load(p, 1.0, &t, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 0.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 0.052, 1e-9);
    free(t);
    CU_ASSERT_EQUAL_FATAL(ss_trace_load(p, 0.5, &t, &n, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 0.026, 1e-9);
    free(t);
    free(p);
    /* across midnight and a month's end (UTC, no time zone) */
    p = put(dir, "mid.csv",
            "TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2024-02-28 23:59:59.5000000,1,1\n"
            "2024-02-29 00:00:00.2500000,1,1\n"
            "2024-03-01 00:00:00.2500000,1,1\n");
    CU_ASSERT_EQUAL_FATAL(ss_trace_load(p, 1.0, &t, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 0.75, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 86400.75, 1e-9);
    free(t);
    free(p);
    /* malformed and decreasing */
    p = put(dir, "bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,1,1\n2023-11-16 18-17:04,1,1\n");
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    expect_err(&err, p, 3, 14, "expected a timestamp 'YYYY-MM-DD HH:MM:SS.fffffff', got '2023-11-16 18-17:04,1,1'");
    free(p);
    p = put(dir, "dec.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:04.5,1,1\n2023-11-16 18:17:04.25,1,1\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_trace_load(p, 1.0, &t, &n, &err), -1);
    CU_ASSERT_TRUE(strncmp(err.msg, p, strlen(p)) == 0 && strstr(err.msg, ":3:1: timestamps must not decrease") != NULL);
    if (!strstr(err.msg, ":3:1: timestamps must not decrease")) fprintf(stderr, "\n  got: %s\n", err.msg);
    free(p);
    ss_test_rmtree(dir);
}

/* The real Azure code trace, as published, when ../shared/traces has it. */
static void test_trace_azure_real(void)
{
    const char *path = SS_SRC_DIR "/../shared/traces/azure_llm_code_2023.csv";
    if (access(path, R_OK) != 0) {
        printf("(skipped: %s absent) ", path);
        return;
    }
    /* Count the data rows independently: every row starts with its date.
     * (`wc -l` says one less: the file's last line has no newline.) */
    char *out = NULL;
    ss_test_sh(&out, "grep -c '^2023-' '%s'", path);
    long rows = out ? atol(out) : -1;
    free(out);
    CU_ASSERT_EQUAL(rows, 8819);
    double *t = NULL;
    size_t n = 0;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_trace_load(path, 1.0, &t, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 8819);
    CU_ASSERT_EQUAL((long)n, rows);
    CU_ASSERT_EQUAL(t[0], 0.0);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 0.052, 1e-9);
    /* 18:17:03.9799600 to 19:14:19.9280160 */
    CU_ASSERT_DOUBLE_EQUAL(t[n - 1], 3435.948056, 1e-6);
    int sorted = 1;
    for (size_t i = 1; i < n; i++) sorted &= t[i] >= t[i - 1];
    CU_ASSERT_TRUE(sorted);
    free(t);
}

/* A trace workload in a scenario: the trace's errors are positioned in the
 * trace file, a missing file at the scenario's `file:`. */
static void test_trace_in_scenario(void)
{
    static const char text[] = "duration_s: 10\n"
                               "hosts: [{name: h, devices: [{name: d, kind: cpu}]}]\n"
                               "models: [{name: m, service: 0.01}]\n"
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: trace, target: m, file: sub/tr.csv, start_s: 1}]\n";
    char *dir = xdir();
    ss_test_sh(NULL, "mkdir '%s/sub'", dir);
    char *path = put(dir, "s.yaml", text);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), -1);
    char want[700];
    snprintf(want, sizeof want,
             "trace file 'sub/tr.csv' not found or not readable: looked for '%s/sub/tr.csv' (a path in a file is relative "
             "to that file's folder)", dir);
    expect_err(&err, path, 5, ss_test_col_of(text, 5, "sub/"), want);
    ss_scenario_free(&sc);
    char *tr = put(dir, "sub/tr.csv", "timestamp_s\n5\n4\n");
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), -1);
    expect_err(&err, tr, 3, 1, "timestamps must not decrease (4 after 5)");
    ss_scenario_free(&sc);
    free(tr);
    tr = put(dir, "sub/tr.csv", "timestamp_s\n5\n7\n");
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, NULL, 0), 0);
    CU_ASSERT_EQUAL(sc.workloads[0].kind, SS_WL_TRACE);
    CU_ASSERT_EQUAL(sc.workloads[0].start_s, 1.0);
    CU_ASSERT_EQUAL_FATAL(sc.workloads[0].ntimes, 2);
    CU_ASSERT_DOUBLE_EQUAL(sc.workloads[0].times_s[1], 2.0, EPS);
    ss_scenario_free(&sc);
    /* time_scale must be > 0 */
    char *sets[] = {"workloads.w.time_scale=0"};
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, sets, 1, &err), -1);
    expect_err(&err, "--set", 1, 24, "time_scale: expected a number > 0, got '0'");
    ss_scenario_free(&sc);
    free(tr);
    free(path);
    ss_test_rmtree(dir);
}

/* Inline `times_s`: arrivals at start_s + each time as written (not from the
 * first, as a file's), time_scale applied; the run replays exactly those. */
static void test_trace_inline(void)
{
    static const char text[] = "duration_s: 10\n"
                               "hosts: [{name: h, devices: [{name: d, kind: cpu}]}]\n"
                               "models: [{name: m, service: 0.01}]\n"
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: trace, target: m, times_s: [0.5, 1, 1, 2.25], start_s: 1}]\n";
    char *dir = xdir();
    char *path = put(dir, "s.yaml", text);
    ss_scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(sc.workloads[0].ntimes, 4);
    CU_ASSERT_EQUAL(sc.workloads[0].times_s[0], 0.5);
    CU_ASSERT_EQUAL(sc.workloads[0].times_s[3], 2.25);
    ss_scenario_free(&sc);
    char *sets[] = {"workloads.w.time_scale=2"};
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, sets, 1), 0);
    CU_ASSERT_EQUAL(sc.workloads[0].times_s[0], 1.0);
    CU_ASSERT_EQUAL(sc.workloads[0].times_s[3], 4.5);
    ss_scenario_free(&sc);
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "%s run '%s' -o '%s/o.csv' --requests-csv '%s/r.csv' --quiet && cut -d, -f6 '%s/r.csv'",
                               SS_BIN, path, dir, dir, dir), 0);
    CU_ASSERT(out && strcmp(out, "arrival_s\n1.500000000\n2.000000000\n2.000000000\n3.250000000\n") == 0);
    free(out);
    free(path);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("trace",
              {"trace_inline", test_trace_inline},
              {"trace_servesim", test_trace_servesim},
              {"trace_azure", test_trace_azure},
              {"trace_azure_real", test_trace_azure_real},
              {"trace_in_scenario", test_trace_in_scenario})
