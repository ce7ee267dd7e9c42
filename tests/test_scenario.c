/* test_scenario.c: the scenario schema through the library (sim/input/scenario.h):
 * a full scenario's values, --set overrides and recorded settings, variants,
 * and the schema's refusals with their exact file:line:col messages.  Trace
 * loading is in test_trace.c. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/scenario.h"
#include "input/scenario_load.h"
#include "test_scenario.h"

#define EPS 1e-12

/* ---- helpers ------------------------------------------------------------- */

char *xdir(void)
{
    char *d = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    return d;
}

char *put(const char *dir, const char *name, const char *text)
{
    return ss_test_write(dir, name, text);
}

/* err->msg must be exactly "<file>:<line>:<col>: <rest>". */
void expect_err(const ss_err *err, const char *file, int line, int col, const char *rest)
{
    char want[1200];
    snprintf(want, sizeof want, "%s:%d:%d: %s", file, line, col, rest);
    CU_ASSERT_EQUAL(err->set, 1);
    CU_ASSERT_STRING_EQUAL(err->msg, want);
    if (strcmp(err->msg, want) != 0) fprintf(stderr, "\n  got:  %s\n  want: %s\n", err->msg, want);
}

/* Load `text` written as DIR/s.yaml expecting failure at line:col of it. */
void scenario_refused(const char *text, int line, int col, const char *rest)
{
    char *dir = xdir();
    char *path = put(dir, "s.yaml", text);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), -1);
    expect_err(&err, path, line, col, rest);
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

/* ---- a full scenario ------------------------------------------------------ */

static const char FULL[] =
    "name: full\n"                                                                      /* 1 */
    "seed: 7\n"                                                                         /* 2 */
    "replications: 2\n"                                                                 /* 3 */
    "duration_s: 100\n"                                                                 /* 4 */
    "warmup_s: 5\n"                                                                     /* 5 */
    "hosts:\n"                                                                          /* 6 */
    "  - name: h1\n"                                                                    /* 7 */
    "    devices:\n"                                                                    /* 8 */
    "      - {name: g0, kind: gpu, type: GV100, vram_gib: 32}\n"                        /* 9 */
    "      - {name: c0, kind: cpu, ram_gib: 64, cores: 16}\n"                           /* 10 */
    "  - name: h2\n"                                                                    /* 11 */
    "    devices:\n"                                                                    /* 12 */
    "      - {name: g0, kind: gpu}\n"                                                   /* 13 */
    "models:\n"                                                                         /* 14 */
    "  - {name: inl, service: {dist: exponential, mean_s: 0.01}, weights_bytes: 1000}\n" /* 15 */
    "  - {name: prof, profile: prof.json}\n"                                            /* 16 */
    "  - bare\n"                                                                        /* 17 */
    "tasks:\n"                                                                          /* 18 */
    "  - {name: pipe, path: [inl, prof]}\n"                                             /* 19 */
    "deployment:\n"                                                                     /* 20 */
    "  - {model: inl, device: h1/g0, instances: 2, servers: 3, queue_capacity: 10}\n"   /* 21 */
    "  - {model: prof, device: c0}\n"                                                   /* 22 */
    "  - {model: bare, device: h2/g0}\n"                                                /* 23 */
    "workloads:\n"                                                                      /* 24 */
    "  - {name: p, kind: poisson, target: inl, rate_rps: 50, priority: 1, start_s: 2}\n" /* 25 */
    "  - {name: d, kind: deterministic, target: prof, rate_rps: 20}\n"                  /* 26 */
    "  - {name: n, kind: normal, target: pipe, rate_rps: 10, sd_s: 0.01}\n"             /* 27 */
    "  - {name: g, kind: gamma, target: bare, rate_rps: 4, cv: 2}\n"                    /* 28 */
    "  - name: i\n"                                                                     /* 29 */
    "    kind: interarrival\n"                                                          /* 30 */
    "    target: inl\n"                                                                 /* 31 */
    "    interarrival: {dist: uniform, min_s: 0.1, max_s: 0.3}\n"                       /* 32 */
    "  - name: s\n"                                                                     /* 33 */
    "    kind: steps\n"                                                                 /* 34 */
    "    target: inl\n"                                                                 /* 35 */
    "    steps: [{until_s: 10, rate_rps: 5}, {until_s: 20, rate_rps: 0}]\n"             /* 36 */
    "  - {name: c, kind: closed, target: pipe, clients: 4, think: {dist: exponential, mean_s: 0.5}}\n" /* 37 */
    "  - {name: t, kind: trace, target: bare, file: tr.csv, time_scale: 0.5}\n"         /* 38 */
    "policies:\n"                                                                       /* 39 */
    "  load_balancer: {name: least-loaded, ties: random}\n"                             /* 40 */
    "  scheduler: priority\n"                                                           /* 41 */
    "outputs: {csv: out/x.csv, requests_csv: out/r.csv}\n"                              /* 42 */
    "variants:\n"                                                                       /* 43 */
    "  - {name: rnd, set: {policies.load_balancer: random, workloads.p.rate_rps: 80}}\n" /* 44 */
    "  - {name: short, set: {duration_s: 30, seed: 9}}\n"                              /* 45 */
    "  - {name: quoted, set: {seed: '9'}}\n";                                           /* 46 */

static const char PROF[] = "{\n"
                           "  \"name\": \"prof\",\n"
                           "  \"description\": \"a profiled model\",\n"
                           "  \"source\": \"measured on a test bench\",\n"
                           "  \"service\": {\"dist\": \"lognormal\", \"mean_s\": 0.02, \"sd_s\": 0.004},\n"
                           "  \"weights_bytes\": 2048\n"
                           "}\n";

static const char BARE[] = "{\"service\": {\"dist\": \"deterministic\", \"value_s\": 0.005}}\n";

/* DIR with s.yaml = FULL, prof.json, models/bare.json and tr.csv; returns the
 * scenario's path. */
static char *full_dir(char **dirp)
{
    char *dir = xdir();
    free(put(dir, "prof.json", PROF));
    ss_test_sh(NULL, "mkdir '%s/models'", dir);
    free(put(dir, "models/bare.json", BARE));
    free(put(dir, "tr.csv", "timestamp_s,extra\n10,a\n10.5,b\n\n12,c\n"));
    *dirp = dir;
    return put(dir, "s.yaml", FULL);
}

int load(ss_scenario *sc, const char *path, const char *variant, char *const *sets, size_t nsets)
{
    ss_err err = {0};
    int rc = ss_scenario_load(sc, path, variant, sets, nsets, &err);
    if (rc != 0) fprintf(stderr, "\n  load failed: %s\n", err.msg);
    CU_ASSERT_EQUAL(err.set, rc != 0);
    return rc;
}

static void test_full(void)
{
    char *dir;
    char *path = full_dir(&dir);
    ss_scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, NULL, 0), 0);

    CU_ASSERT_STRING_EQUAL(sc.path, path);
    CU_ASSERT_STRING_EQUAL(sc.dir, dir);
    CU_ASSERT_STRING_EQUAL(sc.name, "full");
    CU_ASSERT_STRING_EQUAL(sc.variant, "");
    CU_ASSERT_EQUAL(sc.seed, 7);
    CU_ASSERT_EQUAL(sc.replications, 2);
    CU_ASSERT_EQUAL(sc.duration_s, 100.0);
    CU_ASSERT_EQUAL(sc.max_requests, UINT64_MAX);
    CU_ASSERT_EQUAL(sc.warmup_s, 5.0);
    CU_ASSERT_EQUAL(sc.warmup_requests, 0);
    CU_ASSERT_EQUAL(sc.nsettings, 0);

    /* devices */
    CU_ASSERT_EQUAL_FATAL(sc.ndevices, 3);
    CU_ASSERT_STRING_EQUAL(sc.devices[0].name, "h1/g0");
    CU_ASSERT_STRING_EQUAL(sc.devices[1].name, "h1/c0");
    CU_ASSERT_STRING_EQUAL(sc.devices[2].name, "h2/g0");
    CU_ASSERT_EQUAL(sc.devices[0].kind, SS_DEV_GPU);
    CU_ASSERT_EQUAL(sc.devices[1].kind, SS_DEV_CPU);
    CU_ASSERT_STRING_EQUAL(sc.devices[0].type, "GV100");
    CU_ASSERT_STRING_EQUAL(sc.devices[2].type, "");
    CU_ASSERT_EQUAL(sc.devices[0].vram_bytes, 32.0 * 1024 * 1024 * 1024);
    CU_ASSERT_EQUAL(sc.devices[1].ram_bytes, 64.0 * 1024 * 1024 * 1024);
    CU_ASSERT_EQUAL(sc.devices[1].cores, 16);
    CU_ASSERT_EQUAL(sc.devices[0].cores, 1);

    /* models: inline, from prof.json, and bare (models/bare.json) */
    CU_ASSERT_EQUAL_FATAL(sc.nmodels, 3);
    const ss_model_cfg *m = sc.models;
    CU_ASSERT_STRING_EQUAL(m[0].name, "inl");
    CU_ASSERT_PTR_NULL(m[0].profile);
    CU_ASSERT_PTR_NULL(m[0].source);
    CU_ASSERT_EQUAL(m[0].service.kind, SS_DIST_EXPONENTIAL);
    CU_ASSERT_DOUBLE_EQUAL(m[0].service.p1, 0.01, EPS);
    CU_ASSERT_EQUAL(m[0].weights_bytes, 1000.0);
    char want[600];
    CU_ASSERT_STRING_EQUAL(m[1].name, "prof");
    snprintf(want, sizeof want, "%s/prof.json", dir);
    CU_ASSERT_STRING_EQUAL(m[1].profile ? m[1].profile : "", want);
    CU_ASSERT_STRING_EQUAL(m[1].source ? m[1].source : "", "measured on a test bench");
    CU_ASSERT_EQUAL(m[1].service.kind, SS_DIST_LOGNORMAL);
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_mean(&m[1].service), 0.02, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_scv(&m[1].service), 0.04, 1e-12);
    CU_ASSERT_EQUAL(m[1].weights_bytes, 2048.0);
    CU_ASSERT_STRING_EQUAL(m[2].name, "bare");
    snprintf(want, sizeof want, "%s/models/bare.json", dir);
    CU_ASSERT_STRING_EQUAL(m[2].profile ? m[2].profile : "", want);
    CU_ASSERT_EQUAL(m[2].service.kind, SS_DIST_DETERMINISTIC);
    CU_ASSERT_DOUBLE_EQUAL(m[2].service.p1, 0.005, EPS);
    CU_ASSERT_EQUAL(m[2].weights_bytes, 0.0);

    /* tasks: one implicit per model, then pipe = inl -> prof */
    CU_ASSERT_EQUAL_FATAL(sc.ntasks, 4);
    for (uint32_t i = 0; i < 3; i++) {
        CU_ASSERT_STRING_EQUAL(sc.tasks[i].name, m[i].name);
        CU_ASSERT_EQUAL(sc.tasks[i].nstages, 1);
        CU_ASSERT_EQUAL(sc.tasks[i].stages[0], i);
    }
    CU_ASSERT_STRING_EQUAL(sc.tasks[3].name, "pipe");
    CU_ASSERT_EQUAL_FATAL(sc.tasks[3].nstages, 2);
    CU_ASSERT_EQUAL(sc.tasks[3].stages[0], 0);
    CU_ASSERT_EQUAL(sc.tasks[3].stages[1], 1);

    /* deployment; "c0" is unique across hosts, so it needs no host */
    CU_ASSERT_EQUAL_FATAL(sc.ndeploys, 3);
    CU_ASSERT_EQUAL(sc.deploys[0].model, 0);
    CU_ASSERT_EQUAL(sc.deploys[0].device, 0);
    CU_ASSERT_EQUAL(sc.deploys[0].instances, 2);
    CU_ASSERT_EQUAL(sc.deploys[0].servers, 3);
    CU_ASSERT_EQUAL(sc.deploys[0].queue_capacity, 10);
    CU_ASSERT_EQUAL(sc.deploys[1].model, 1);
    CU_ASSERT_EQUAL(sc.deploys[1].device, 1);
    CU_ASSERT_EQUAL(sc.deploys[1].instances, 1);
    CU_ASSERT_EQUAL(sc.deploys[1].servers, 1);
    CU_ASSERT_EQUAL(sc.deploys[1].queue_capacity, UINT64_MAX);
    CU_ASSERT_EQUAL(sc.deploys[2].model, 2);
    CU_ASSERT_EQUAL(sc.deploys[2].device, 2);

    /* workloads, one of each kind */
    CU_ASSERT_EQUAL_FATAL(sc.nworkloads, 8);
    const ss_workload_cfg *w = sc.workloads;
    static const char *const names[] = {"p", "d", "n", "g", "i", "s", "c", "t"};
    static const ss_workload_kind kinds[] = {SS_WL_POISSON,      SS_WL_DETERMINISTIC, SS_WL_NORMAL, SS_WL_GAMMA,
                                             SS_WL_INTERARRIVAL, SS_WL_STEPS,         SS_WL_CLOSED, SS_WL_TRACE};
    static const uint32_t tasks[] = {0, 1, 3, 2, 0, 0, 3, 2};
    for (size_t i = 0; i < 8; i++) {
        CU_ASSERT_STRING_EQUAL(w[i].name, names[i]);
        CU_ASSERT_EQUAL(w[i].kind, kinds[i]);
        CU_ASSERT_EQUAL(w[i].task, tasks[i]);
    }
    CU_ASSERT_EQUAL(w[0].priority, 1.0);
    CU_ASSERT_EQUAL(w[0].start_s, 2.0);
    CU_ASSERT_EQUAL(w[1].priority, 0.0);
    CU_ASSERT_EQUAL(w[1].start_s, 0.0);
    CU_ASSERT_EQUAL(w[0].interarrival.kind, SS_DIST_EXPONENTIAL);
    CU_ASSERT_DOUBLE_EQUAL(w[0].interarrival.p1, 1.0 / 50, EPS);
    CU_ASSERT_EQUAL(w[1].interarrival.kind, SS_DIST_DETERMINISTIC);
    CU_ASSERT_DOUBLE_EQUAL(w[1].interarrival.p1, 1.0 / 20, EPS);
    CU_ASSERT_EQUAL(w[2].interarrival.kind, SS_DIST_NORMAL);
    CU_ASSERT_DOUBLE_EQUAL(w[2].interarrival.p1, 0.1, EPS);
    CU_ASSERT_DOUBLE_EQUAL(w[2].interarrival.p2, 0.01, EPS);
    CU_ASSERT_EQUAL(w[3].interarrival.kind, SS_DIST_GAMMA);
    CU_ASSERT_DOUBLE_EQUAL(w[3].interarrival.p1, 0.25, EPS); /* shape 1/cv^2 */
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_mean(&w[3].interarrival), 0.25, EPS);
    CU_ASSERT_DOUBLE_EQUAL(ss_dist_scv(&w[3].interarrival), 4.0, 1e-9);
    CU_ASSERT_EQUAL(w[4].interarrival.kind, SS_DIST_UNIFORM);
    CU_ASSERT_DOUBLE_EQUAL(w[4].interarrival.p1, 0.1, EPS);
    CU_ASSERT_DOUBLE_EQUAL(w[4].interarrival.p2, 0.3, EPS);
    CU_ASSERT_EQUAL_FATAL(w[5].nsteps, 2);
    CU_ASSERT_EQUAL(w[5].steps[0].until_s, 10.0);
    CU_ASSERT_EQUAL(w[5].steps[0].rate_rps, 5.0);
    CU_ASSERT_EQUAL(w[5].steps[1].until_s, 20.0);
    CU_ASSERT_EQUAL(w[5].steps[1].rate_rps, 0.0);
    CU_ASSERT_EQUAL(w[6].clients, 4);
    CU_ASSERT_EQUAL(w[6].think.kind, SS_DIST_EXPONENTIAL);
    CU_ASSERT_DOUBLE_EQUAL(w[6].think.p1, 0.5, EPS);
    /* trace: relative to the first arrival, halved; the blank line skipped */
    CU_ASSERT_EQUAL_FATAL(w[7].ntimes, 3);
    CU_ASSERT_DOUBLE_EQUAL(w[7].times_s[0], 0.0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(w[7].times_s[1], 0.25, EPS);
    CU_ASSERT_DOUBLE_EQUAL(w[7].times_s[2], 1.0, EPS);

    /* policies, with where they were named */
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.name, "least-loaded");
    CU_ASSERT_EQUAL_FATAL(sc.load_balancer.nparams, 1);
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.params[0].key, "ties");
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.params[0].value, "random");
    CU_ASSERT_EQUAL(sc.load_balancer.param_pos[0][0], 40);
    CU_ASSERT_EQUAL(sc.load_balancer.param_pos[0][1], ss_test_col_of(FULL, 40, "ties"));
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.file, path);
    CU_ASSERT_EQUAL(sc.load_balancer.line, 40);
    CU_ASSERT_EQUAL(sc.load_balancer.col, ss_test_col_of(FULL, 40, "{"));
    CU_ASSERT_STRING_EQUAL(sc.scheduler.name, "priority");
    CU_ASSERT_EQUAL(sc.scheduler.nparams, 0);
    CU_ASSERT_EQUAL(sc.scheduler.line, 41);
    CU_ASSERT_EQUAL(sc.scheduler.col, ss_test_col_of(FULL, 41, "priority"));

    CU_ASSERT_STRING_EQUAL(sc.csv_path, "out/x.csv");
    CU_ASSERT_STRING_EQUAL(sc.requests_csv_path ? sc.requests_csv_path : "", "out/r.csv");
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

/* Defaults: name from the file, results/<name>.csv, round-robin and fifo
 * (positioned at the scenario), no duration bound with `requests`. */
static void test_defaults(void)
{
    char *dir = xdir();
    char *path = put(dir, "my-scen.v2.yaml",
                     "requests: 100\n"
                     "hosts: [{name: h, devices: [{name: d, kind: cpu}]}]\n"
                     "models: [{name: m, service: 0.01}]\n"
                     "deployment: [{model: m, device: d}]\n"
                     "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n");
    ss_scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, NULL, 0), 0);
    CU_ASSERT_STRING_EQUAL(sc.name, "my-scen.v2");
    CU_ASSERT_EQUAL(sc.seed, 1);
    CU_ASSERT_EQUAL(sc.replications, 1);
    CU_ASSERT_TRUE(isinf(sc.duration_s));
    CU_ASSERT_EQUAL(sc.max_requests, 100);
    CU_ASSERT_EQUAL(sc.warmup_s, 0.0);
    CU_ASSERT_STRING_EQUAL(sc.devices[0].name, "h/d");
    CU_ASSERT_EQUAL(sc.models[0].service.kind, SS_DIST_DETERMINISTIC);
    CU_ASSERT_DOUBLE_EQUAL(sc.models[0].service.p1, 0.01, EPS);
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.name, "round-robin");
    CU_ASSERT_STRING_EQUAL(sc.scheduler.name, "fifo");
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.file, path);
    CU_ASSERT_STRING_EQUAL(sc.csv_path, "results/my-scen.v2.csv");
    CU_ASSERT_PTR_NULL(sc.requests_csv_path);
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

/* ---- --set and settings ------------------------------------------------------ */

static void test_sets(void)
{
    char *dir;
    char *path = full_dir(&dir);
    char *sets[] = {"workloads.p.rate_rps=80",          /* a sequence item by name */
                    "hosts.h1.devices.c0.cores=4",      /* nested, two items by name */
                    "deployment.0.instances=5",         /* an item by index */
                    "policies.load_balancer.ties=first", /* a nested map key */
                    "seed=11",
                    "workloads.p.rate_rps=100"};         /* a later set of the same key wins */
    ss_scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, NULL, sets, 6), 0);
    CU_ASSERT_DOUBLE_EQUAL(sc.workloads[0].interarrival.p1, 1.0 / 100, EPS);
    CU_ASSERT_EQUAL(sc.devices[1].cores, 4);
    CU_ASSERT_EQUAL(sc.deploys[0].instances, 5);
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.params[0].value, "first");
    CU_ASSERT_EQUAL(sc.seed, 11);
    CU_ASSERT_EQUAL(sc.load_balancer.line, 40); /* the policy was not moved */
    /* the rest is untouched */
    CU_ASSERT_EQUAL(sc.devices[1].ram_bytes, 64.0 * 1024 * 1024 * 1024);
    CU_ASSERT_EQUAL(sc.deploys[0].servers, 3);
    CU_ASSERT_DOUBLE_EQUAL(sc.workloads[1].interarrival.p1, 1.0 / 20, EPS);
    /* settings: one per key, in first-set order, the last value; not the
     * seed, which is a column of its own in every CSV */
    CU_ASSERT_EQUAL_FATAL(sc.nsettings, 4);
    static const char *const want[][2] = {{"workloads.p.rate_rps", "100"},
                                          {"hosts.h1.devices.c0.cores", "4"},
                                          {"deployment.0.instances", "5"},
                                          {"policies.load_balancer.ties", "first"}};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(sc.settings[i].key, want[i][0]);
        CU_ASSERT_STRING_EQUAL(sc.settings[i].value, want[i][1]);
    }
    ss_scenario_free(&sc);

    /* a --set mistake is positioned on the command line: --set:<n>:<col> */
    ss_err err = {0};
    char *bad[] = {"seed=2", "workloads.nope.rate_rps=5"};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, bad, 2, &err), -1);
    expect_err(&err, "--set", 2, 11, "no item named 'nope' in workloads");
    ss_scenario_free(&sc);
    memset(&err, 0, sizeof err);
    char *neg[] = {"workloads.d.rate_rps=-2"};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, neg, 1, &err), -1);
    expect_err(&err, "--set", 1, 22, "rate_rps: expected a number > 0, got '-2'");
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

/* ---- variants ---------------------------------------------------------------------- */

static void test_variants(void)
{
    char *dir;
    char *path = full_dir(&dir);
    char **names = NULL;
    size_t n = 0;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_scenario_variants(path, &names, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(names[0], "rnd");
    CU_ASSERT_STRING_EQUAL(names[1], "short");
    CU_ASSERT_STRING_EQUAL(names[2], "quoted");
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);

    ss_scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, "rnd", NULL, 0), 0);
    CU_ASSERT_STRING_EQUAL(sc.variant, "rnd");
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.name, "random");
    CU_ASSERT_EQUAL(sc.load_balancer.nparams, 0);
    CU_ASSERT_DOUBLE_EQUAL(sc.workloads[0].interarrival.p1, 1.0 / 80, EPS);
    CU_ASSERT_EQUAL(sc.duration_s, 100.0);
    CU_ASSERT_EQUAL_FATAL(sc.nsettings, 2);
    CU_ASSERT_STRING_EQUAL(sc.settings[0].key, "policies.load_balancer");
    CU_ASSERT_STRING_EQUAL(sc.settings[0].value, "random");
    CU_ASSERT_STRING_EQUAL(sc.settings[1].key, "workloads.p.rate_rps");
    CU_ASSERT_STRING_EQUAL(sc.settings[1].value, "80");
    ss_scenario_free(&sc);

    CU_ASSERT_EQUAL_FATAL(load(&sc, path, "short", NULL, 0), 0);
    CU_ASSERT_EQUAL(sc.duration_s, 30.0);
    CU_ASSERT_EQUAL(sc.seed, 9);
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.name, "least-loaded");
    CU_ASSERT_EQUAL_FATAL(sc.nsettings, 1);
    CU_ASSERT_STRING_EQUAL(sc.settings[0].key, "duration_s");
    CU_ASSERT_STRING_EQUAL(sc.settings[0].value, "30");
    ss_scenario_free(&sc);

    /* a quoted '9' stays a string through the variant, so seed refuses it
     * as it would in the file */
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, "quoted", NULL, 0, &err), -1);
    CU_ASSERT_TRUE(strstr(err.msg, "seed: ") != NULL && strstr(err.msg, "'9'") != NULL);
    ss_scenario_free(&sc);

    /* the command line wins over the variant, and its value is the setting */
    char *sets[] = {"policies.load_balancer=round-robin", "workloads.p.rate_rps=40"};
    CU_ASSERT_EQUAL_FATAL(load(&sc, path, "rnd", sets, 2), 0);
    CU_ASSERT_STRING_EQUAL(sc.load_balancer.name, "round-robin");
    CU_ASSERT_DOUBLE_EQUAL(sc.workloads[0].interarrival.p1, 1.0 / 40, EPS);
    CU_ASSERT_EQUAL_FATAL(sc.nsettings, 2);
    CU_ASSERT_STRING_EQUAL(sc.settings[0].value, "round-robin");
    CU_ASSERT_STRING_EQUAL(sc.settings[1].value, "40");
    ss_scenario_free(&sc);

    /* no such variant: positioned at the list of variants */
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, "rand", NULL, 0, &err), -1);
    expect_err(&err, path, 44, ss_test_col_of(FULL, 44, "-"), "no variant named 'rand'");
    ss_scenario_free(&sc);

    /* a scenario without variants lists none */
    char *plain = put(dir, "plain.yaml", "requests: 1\n");
    CU_ASSERT_EQUAL(ss_scenario_variants(plain, &names, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 0);
    free(names);
    free(plain);
    free(path);
    ss_test_rmtree(dir);
}

/* A mistake in a variant's `set:` is a mistake in the scenario file and is
 * positioned there (not as if it came from the command line). */
static void test_variant_set_error_position(void)
{
    static const char text[] = "requests: 10\n"
                               "hosts: [{name: h, devices: [{name: d, kind: cpu}]}]\n"
                               "models: [{name: m, service: 0.01}]\n"
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n"
                               "variants:\n"
                               "  - {name: ok, set: {seed: 3}}\n"
                               "  - {name: neg, set: {workloads.w.rate_rps: -5}}\n";
    char *dir = xdir();
    char *path = put(dir, "s.yaml", text);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, "neg", NULL, 0, &err), -1);
    expect_err(&err, path, 8, ss_test_col_of(text, 8, "-5"), "rate_rps: expected a number > 0, got '-5'");
    ss_scenario_free(&sc);
    /* and a --set error is still told apart from it: the first --set is --set:1 */
    memset(&err, 0, sizeof err);
    char *sets[] = {"duration_s=0"};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, "ok", sets, 1, &err), -1);
    expect_err(&err, "--set", 1, 12, "duration_s: expected a number > 0, got '0'");
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

/* ---- refusals ------------------------------------------------------------------------ */

#define S_HOSTS "hosts: [{name: h, devices: [{name: d, kind: cpu}, {name: e, kind: gpu}]}]\n"
#define S_MODELS "models: [{name: m, service: 0.01}, {name: k, service: 0.02}]\n"

static void test_err_undeployed(void)
{
    static const char text[] = "duration_s: 10\n" S_HOSTS S_MODELS
                               "tasks: [{name: both, path: [m, k]}]\n"
                               "deployment: [{model: m, device: d}]\n"
                               "workloads:\n"
                               "  - {name: ok, kind: poisson, target: m, rate_rps: 1}\n"
                               "  - {name: w, kind: poisson, target: k, rate_rps: 1}\n";
    scenario_refused(text, 8, ss_test_col_of(text, 8, "k, rate"), "model 'k' (used by workload 'w') has no instance in deployment");
    /* through a task's second stage */
    static const char text2[] = "duration_s: 10\n" S_HOSTS S_MODELS
                                "tasks: [{name: both, path: [m, k]}]\n"
                                "deployment: [{model: m, device: d}]\n"
                                "workloads: [{name: w2, kind: closed, target: both, clients: 2}]\n";
    scenario_refused(text2, 6, ss_test_col_of(text2, 6, "both"), "model 'k' (used by workload 'w2') has no instance in deployment");
}

static void test_err_duplicates(void)
{
    static const char dm[] = "duration_s: 10\n" S_HOSTS
                             "models: [{name: m, service: 0.01}, {name: m, service: 0.02}]\n"
                             "deployment: [{model: m, device: d}]\n"
                             "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(dm, 3, ss_test_col_of(dm, 3, "{name: m, service: 0.02"), "duplicate model 'm'");
    static const char dw[] = "duration_s: 10\n" S_HOSTS S_MODELS
                             "deployment: [{model: m, device: d}]\n"
                             "workloads:\n"
                             "  - {name: w, kind: poisson, target: m, rate_rps: 1}\n"
                             "  - {name: w, kind: deterministic, target: m, rate_rps: 2}\n";
    scenario_refused(dw, 7, ss_test_col_of(dw, 7, "w,"), "duplicate workload 'w'");
    static const char dd[] = "duration_s: 10\n"
                             "hosts: [{name: h, devices: [{name: d, kind: cpu}, {name: d, kind: gpu}]}]\n" S_MODELS
                             "deployment: [{model: m, device: d}]\n"
                             "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(dd, 2, ss_test_col_of(dd, 2, "d, kind: gpu"), "duplicate device 'h/d'");
    static const char dt[] = "duration_s: 10\n" S_HOSTS S_MODELS
                             "tasks: [{name: k, path: [m]}]\n"
                             "deployment: [{model: m, device: d}]\n"
                             "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(dt, 4, ss_test_col_of(dt, 4, "k,"), "task name 'k' is already a model");
    static const char dv[] = "duration_s: 10\n" S_HOSTS S_MODELS
                             "deployment: [{model: m, device: d}]\n"
                             "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n"
                             "variants: [{name: a, set: {seed: 1}}, {name: a, set: {seed: 2}}]\n";
    {
        /* variants are listed (and so checked) by ss_scenario_variants */
        char *vdir = xdir();
        char *vpath = put(vdir, "s.yaml", dv);
        char **names = NULL;
        size_t n = 0;
        ss_err err = {0};
        CU_ASSERT_EQUAL(ss_scenario_variants(vpath, &names, &n, &err), -1);
        expect_err(&err, vpath, 6, ss_test_col_of(dv, 6, "a, set: {seed: 2"), "duplicate variant 'a'");
        CU_ASSERT_EQUAL(n, 0);
        free(vpath);
        ss_test_rmtree(vdir);
    }
    /* a YAML map with a key twice */
    static const char dk[] = "duration_s: 10\nseed: 1\nseed: 2\n" S_HOSTS S_MODELS
                             "deployment: [{model: m, device: d}]\n"
                             "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    char *dir = xdir();
    char *path = put(dir, "s.yaml", dk);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), -1);
    char want[700];
    snprintf(want, sizeof want, "%s:3:1: ", path);
    CU_ASSERT_TRUE(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, "seed") != NULL);
    if (strncmp(err.msg, want, strlen(want)) != 0) fprintf(stderr, "\n  got: %s\n", err.msg);
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

static void test_err_warmup(void)
{
    static const char text[] = "duration_s: 10\nwarmup_s: 10\n" S_HOSTS S_MODELS
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(text, 2, 11, "warmup_s (10) must be shorter than duration_s (10)");
    static const char text2[] = "duration_s: 10\nwarmup_s: 12.5\n" S_HOSTS S_MODELS
                                "deployment: [{model: m, device: d}]\n"
                                "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(text2, 2, 11, "warmup_s (12.5) must be shorter than duration_s (10)");
    static const char text3[] = "requests: 10\nwarmup_requests: 10\n" S_HOSTS S_MODELS
                                "deployment: [{model: m, device: d}]\n"
                                "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(text3, 2, 18, "warmup_requests (10) must be fewer than requests (10)");
}

static void test_err_no_end(void)
{
    static const char text[] = "name: x\n" S_HOSTS S_MODELS
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(text, 1, 1, "scenario: give duration_s or requests (or both) to end the run");
    static const char zero[] = "requests: 0\n" S_HOSTS S_MODELS
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(zero, 1, 11, "requests: expected at least 1");
}

static void test_err_references(void)
{
    static const char dev[] = "duration_s: 10\n" S_HOSTS S_MODELS
                              "deployment: [{model: m, device: h/dd}]\n"
                              "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(dev, 4, ss_test_col_of(dev, 4, "h/dd"), "unknown device 'h/dd' (did you mean 'h/d'?)");
    static const char amb[] = "duration_s: 10\n"
                              "hosts: [{name: a, devices: [{name: g, kind: gpu}]}, {name: b, devices: [{name: g, kind: gpu}]}]\n"
                              S_MODELS "deployment: [{model: m, device: g}]\n"
                              "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    scenario_refused(amb, 4, ss_test_col_of(amb, 4, "g}"), "device 'g' is ambiguous: write it as host/device");
    static const char tgt[] = "duration_s: 10\n" S_HOSTS S_MODELS
                              "deployment: [{model: m, device: d}]\n"
                              "workloads: [{name: w, kind: poisson, target: mm, rate_rps: 1}]\n";
    scenario_refused(tgt, 5, ss_test_col_of(tgt, 5, "mm"), "unknown model or task 'mm' (did you mean 'm'?)");
    static const char kind[] = "duration_s: 10\n" S_HOSTS S_MODELS
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: poison, target: m, rate_rps: 1}]\n";
    char *dir = xdir();
    char *path = put(dir, "s.yaml", kind);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), -1);
    char want[700];
    snprintf(want, sizeof want, "%s:5:%d: ", path, ss_test_col_of(kind, 5, "poison"));
    CU_ASSERT_TRUE(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, "'poisson'") != NULL);
    if (strncmp(err.msg, want, strlen(want)) != 0) fprintf(stderr, "\n  got: %s\n", err.msg);
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
    /* a profile naming another model */
    dir = xdir();
    free(put(dir, "p.json", "{\"name\": \"other\", \"service\": 0.01}"));
    static const char prof[] = "duration_s: 10\n" S_HOSTS
                               "models: [{name: m, profile: p.json}]\n"
                               "deployment: [{model: m, device: d}]\n"
                               "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]\n";
    path = put(dir, "s.yaml", prof);
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), -1);
    char pj[600];
    snprintf(pj, sizeof pj, "%s/p.json", dir);
    expect_err(&err, pj, 1, 10, "profile is for model 'other', but the scenario calls it 'm'");
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("scenario",
              {"full", test_full},
              {"defaults", test_defaults},
              {"sets", test_sets},
              {"variants", test_variants},
              {"variant_set_error_position", test_variant_set_error_position},
              {"err_undeployed", test_err_undeployed},
              {"err_duplicates", test_err_duplicates},
              {"err_warmup", test_err_warmup},
              {"err_no_end", test_err_no_end},
              {"err_references", test_err_references})
