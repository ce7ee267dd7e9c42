/* test_horizon.c: `--duration` (sim/input/scenario_horizon.c, issue 43 item 5):
 * the run's duration_s and every workload's length in one flag.  Each rule
 * against the --set edits it stands for, number for number: a synthetic
 * shape drawn for the whole horizon (lead_s kept), a steps schedule
 * stretched, a Poisson workload untouched (the same bytes as --set
 * duration_s); a trace shorter than the horizon refused at its key, exit 2,
 * nothing written; the shipped scenarios take it. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define HEAD "name: h\nseed: 3\nduration_s: 20\nwarmup_s: 2\n"
#define HOSTS "hosts:\n  - name: h\n    devices:\n      - {name: d0, kind: gpu}\n"
#define MODELS "models: [{name: m, service: {dist: exponential, mean_s: 0.002}}]\n"
#define DEPLOY "deployment:\n  - {model: m, device: d0, instances: 2}\n"

/* `servesim run` in dir with args; the results CSV less its setting columns
 * (every column before `model`, but scenario ... seed), via python: the
 * numbers two ways of asking for one run must share. */
static char *numbers(const char *dir, const char *args)
{
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && rm -f r.csv && mkdir -p results && '%s' run %s -o r.csv --quiet && python3 -c '"
                        "import csv\n"
                        "r = list(csv.reader(open(\"r.csv\")))\n"
                        "m = r[0].index(\"model\")\n"
                        "for row in r: print(\",\".join(row[:4] + row[m:]))'",
                        dir, SS_BIN, args);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0) fprintf(stderr, "\n`servesim run %s`:\n%s", args, out ? out : "");
    return out ? out : strdup("");
}

/* The same numbers, asked for with --duration and with the --set edits it stands for. */
static void same(const char *dir, const char *with, const char *sets)
{
    char *a = numbers(dir, with), *b = numbers(dir, sets);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT(strlen(a) > 100); /* rows there */
    free(a);
    free(b);
}

/* A Poisson workload runs until duration_s anyway: --duration is --set
 * duration_s, byte for byte (its column too); longer runs see more arrivals. */
static void poisson(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "p.yaml", HEAD HOSTS MODELS DEPLOY
                                          "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 100}\n"));
    int rc = ss_test_sh(NULL, "cd '%s' && '%s' run p.yaml --duration 40 -o a.csv --quiet && '%s' run p.yaml --set "
                              "duration_s=40 -o b.csv --quiet && cmp a.csv b.csv && grep -q '^scenario,variant,"
                              "replication,seed,duration_s,model,' a.csv",
                        dir, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    char *out = NULL;
    rc = ss_test_sh(&out, "cd '%s' && '%s' check p.yaml --duration 40", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "p.yaml: ok: scenario 'h'"));
    free(out);
    ss_test_rmtree(dir);
}

/* A steps schedule is stretched from start_s: each rate keeps its share of
 * the run (twice the horizon: every until_s twice as far from start_s). */
static void steps(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", HEAD HOSTS MODELS DEPLOY
                                          "workloads:\n"
                                          "  - {name: w, kind: steps, target: m, start_s: 4, steps: [{until_s: 10, "
                                          "rate_rps: 50}, {until_s: 16, rate_rps: 200}, {until_s: 20, rate_rps: 0}]}\n"));
    same(dir, "s.yaml --duration 36",
         "s.yaml --set duration_s=36 --set 'workloads.w.steps=[{until_s: 16, rate_rps: 50}, {until_s: 28, rate_rps: "
         "200}, {until_s: 36, rate_rps: 0}]'");
    /* shorter: squeezed the same way (a quarter of the span from start_s) */
    same(dir, "s.yaml --duration 8",
         "s.yaml --set duration_s=8 --set 'workloads.w.steps=[{until_s: 5.5, rate_rps: 50}, {until_s: 7, rate_rps: "
         "200}, {until_s: 8, rate_rps: 0}]'");
    ss_test_rmtree(dir);
}

/* A synthetic shape is drawn for the whole horizon after its lead-in:
 * length_s = duration - start_s - lead_s, the warm-up kept. */
static void synthetic(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "y.yaml", HEAD HOSTS MODELS DEPLOY
                                          "workloads:\n"
                                          "  - {name: a, kind: synthetic, target: m, shape: twitter, median_rps: 40, "
                                          "lead_s: 3, length_s: 17, correlation_s: 2}\n"
                                          "  - {name: b, kind: synthetic, target: m, shape: azure, median_rps: 20, "
                                          "start_s: 1, length_s: 19}\n"
                                          "  - {name: c, kind: poisson, target: m, rate_rps: 10}\n"));
    same(dir, "y.yaml --duration 60",
         "y.yaml --set duration_s=60 --set workloads.a.length_s=57 --set workloads.b.length_s=59");
    ss_test_rmtree(dir);
}

/* A trace cannot stretch: a horizon past its last arrival is refused at its
 * key (exit 2, nothing written); up to its end, or no longer than the
 * scenario ran, it is taken. */
static void trace(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.csv", "timestamp_s\n0.5\n1.0\n7.25\n18.5\n"));
    const char *yaml = HEAD HOSTS MODELS DEPLOY "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n";
    free(ss_test_write(dir, "t.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' run t.yaml --duration 60 -o out/r.csv; echo rc=$?; ls", dir, SS_BIN);
    char want[256];
    snprintf(want, sizeof want,
             "t.yaml:13:%d: workload 'w': its trace ends at 18 s, before the 60 s --duration asks for: a trace "
             "cannot stretch (a longer trace or a time_scale, or a --duration of at most 18)\nrc=2\nt.csv\nt.yaml\n",
             ss_test_col_of(yaml, 13, "t.csv"));
    CU_ASSERT_STRING_EQUAL(out, want);
    free(out);
    rc = ss_test_sh(NULL, "cd '%s' && '%s' run t.yaml --duration 18 -o a.csv --quiet && '%s' run t.yaml --duration 10 "
                          "-o b.csv --quiet && '%s' run t.yaml --duration 30 --set workloads.w.time_scale=2 -o c.csv --quiet",
                    dir, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    /* the warm-up is kept: a horizon inside it is refused, positioned */
    ss_test_cmd_refused(dir, "run t.yaml --duration 2 -o out/r.csv", "t.yaml:4:11: warmup_s (2) must be shorter than "
                                                                       "duration_s (2)");
    ss_test_cmd_refused(dir, "run t.yaml --duration 1e10 -o out/r.csv",
                        "servesim run: --duration expects a number of seconds from 1e-09 to 1e+09, got '1e10'");
    ss_test_cmd_refused(dir, "check t.yaml --duration -5", "servesim check: --duration expects a number of seconds");
    rc = ss_test_sh(NULL, "test ! -e '%s/out'", dir);
    CU_ASSERT_EQUAL(rc, 0);
    ss_test_rmtree(dir);
}

/* A sweep takes it at every point, after the point's values: each row is
 * `run --duration`'s, and the fingerprint holds it (a resume with another
 * horizon is refused). */
static void sweep(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "s.yaml", HEAD HOSTS MODELS DEPLOY
                                          "workloads:\n  - {name: w, kind: steps, target: m, steps: [{until_s: 10, "
                                          "rate_rps: 50}, {until_s: 20, rate_rps: 200}]}\n"));
    free(ss_test_write(dir, "sw.yaml", "name: sw\nscenario: s.yaml\nvariants: []\naxes:\n  - key: seed\n"
                                       "    values: [3, 4]\n"));
    int rc = ss_test_sh(&out, "cd '%s' && '%s' sweep sw.yaml -j 1 -o a.csv --duration 50 --quiet && '%s' run s.yaml "
                              "--duration 50 -o r.csv --quiet && cut -d, -f2- a.csv | head -3 | cmp - r.csv && grep -qx -- '--duration 50' "
                              "a.csv.fingerprint && '%s' sweep sw.yaml -j 1 -o a.csv --duration 60 --resume",
                        dir, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, "--duration"));
    free(out);
    ss_test_rmtree(dir);
}

/* The shipped scenarios: the default one (two synthetic shapes) and
 * Flashpoint's t5-atl (a lead-in before its shape), each a --set per
 * workload before; and ROMA's steps. */
static void shipped(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    char *a = ss_xasprintf("'%s/scenarios/default.yaml' --variant locality --replications 1", SS_SRC_DIR);
    char *with = ss_xasprintf("%s --duration 900", a);
    char *sets = ss_xasprintf("%s --set duration_s=900 --set workloads.gpt2.length_s=900 --set "
                              "workloads.t5.length_s=900", a);
    same(dir, with, sets);
    free(a), free(with), free(sets);
    a = ss_xasprintf("'%s/scenarios/flashpoint/t5-atl.yaml' --variant lc", SS_SRC_DIR);
    with = ss_xasprintf("%s --duration 1500", a);
    sets = ss_xasprintf("%s --set duration_s=1500 --set workloads.twitter.length_s=900", a);
    same(dir, with, sets);
    free(a), free(with), free(sets);
    int rc = ss_test_sh(&out, "'%s' check '%s/scenarios/roma/pair-i.yaml' --duration 600", SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("horizon", {"poisson: --duration is --set duration_s", poisson},
              {"steps: stretched from start_s", steps}, {"synthetic: drawn for the horizon, lead kept", synthetic},
              {"trace: refused past its end, at its key", trace}, {"sweep: at every point", sweep},
              {"shipped scenarios", shipped})
