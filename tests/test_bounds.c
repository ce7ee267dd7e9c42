/* test_bounds.c: numbers read from a float that are cast to integers are
 * range-checked first (issue 12 item 6; `make test-asan` now builds with
 * -fsanitize=float-cast-overflow, which would also catch a miss): a device
 * with `cores: 1e300`, a plan with `tasks: 1e18` or a mix of 1e300 tasks are
 * refused with file:line:col and exit 2, writing nothing. */
#include "test.h"

#include <stdlib.h>

static void refused(const char *dir, const char *cmd, const char *msg)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && %s", dir, cmd), 2);
    CU_ASSERT(ss_test_has(out, msg));
    if (!ss_test_has(out, msg)) fprintf(stderr, "\nexpected '%s' in:\n%s\n", msg, out ? out : "");
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && ls | grep -q 'o.csv'", dir), 1); /* nothing written */
}

static void huge_counts(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "c.yaml",
                       "seed: 1\nrequests: 5\nhosts:\n  - name: h\n    devices: [{name: c, kind: cpu, cores: 1e300}]\n"
                       "models:\n  - {name: m, service: {dist: deterministic, value_s: 1}}\n"
                       "deployment:\n  - {model: m, device: c}\nworkloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 1}\n"));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s/servesim' run c.yaml -o o.csv", SS_BUILD_DIR);
    refused(dir, cmd, "c.yaml:5:43: cores: expected 1 to 1000000, got 1e+300");
    snprintf(cmd, sizeof cmd,
             "sed 's/^tasks: .*/tasks: 1e18/' '%s/scenarios/blockflow/plan-vram.yaml' > p.yaml && "
             "SERVESIM_MODEL_PATH='%s/models' '%s/servesim' plan p.yaml -o o.csv",
             SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    refused(dir, cmd, "p.yaml:28:8: tasks: at most 1e9, got 1000000000000000000");
    snprintf(cmd, sizeof cmd,
             "sed 's/{name: \"1\", percent: {A: 33, B: 33, C: 33}}/{name: \"1\", tasks: {A: 1e300, B: 1, C: 1}}/' "
             "'%s/scenarios/blockflow/plan-vram.yaml' > p.yaml && SERVESIM_MODEL_PATH='%s/models' '%s/servesim' plan p.yaml -o o.csv",
             SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    refused(dir, cmd, "p.yaml:36:28: A: at most 1e9 tasks, got 1e+300");
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void runaways(void)
{
    /* Inputs that passed `check` and then never ended or filled the disk. */
    char *dir = ss_test_tmpdir();
    const char *head = "seed: 1\nduration_s: 10\nhosts:\n  - name: h\n    devices: [{name: g, kind: gpu}]\n"
                       "models:\n  - {name: m, service: {dist: deterministic, value_s: 0.1}}\n"
                       "deployment:\n  - {model: m, device: g}\nworkloads:\n";
    char yaml[2048], cmd[2048];
    snprintf(yaml, sizeof yaml, "%s  - {name: w, kind: poisson, target: m, rate_rps: 1e300}\n", head);
    free(ss_test_write(dir, "a.yaml", yaml));
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run a.yaml -o o.csv", SS_BUILD_DIR);
    refused(dir, cmd, "a.yaml:11:5: workload 'w': about 1e+301 requests over duration_s 10, more than the 1e+10");
    snprintf(yaml, sizeof yaml,
             "%s  - {name: w, kind: interarrival, target: m, interarrival: {dist: uniform, min_s: 0, max_s: 1e-300}}\n", head);
    free(ss_test_write(dir, "b.yaml", yaml));
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run b.yaml -o o.csv", SS_BUILD_DIR);
    refused(dir, cmd, "b.yaml:11:5: workload 'w': about 2e+301 requests");
    snprintf(yaml, sizeof yaml, "%s  - {name: w, kind: poisson, target: m, rate_rps: 1}\n", head);
    free(ss_test_write(dir, "c.yaml", yaml));
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run c.yaml -o o.csv --timeseries-csv t.csv --timeseries-interval 1e-300",
             SS_BUILD_DIR);
    refused(dir, cmd, "--timeseries-interval expects a number of seconds >= 1e-06, got '1e-300'");
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run c.yaml -o o.csv --timeseries-csv t.csv --timeseries-interval 1e-6",
             SS_BUILD_DIR);
    refused(dir, cmd, "is 1e+07 samples, more than 1e6: sample less often");
    /* requests: bounds a run at any rate */
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && timeout 20 '%s/servesim' run a.yaml -o o.csv --quiet --set requests=1000", dir,
                               SS_BUILD_DIR),
                    0);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void other_files(void)
{
    /* A sweep, plan or topology file given to run: which command reads it. */
    static const char *const files[][2] = {
        {"scenarios/sweeps/lb-load.yaml", "lb-load.yaml:13:1: 'axes' belongs to a sweep file, not to a scenario: read it with servesim sweep FILE"},
        {"scenarios/blockflow/plan-vram.yaml", "belongs to a deployment plan, not to a scenario: read it with servesim plan FILE"},
        {"topologies/flashpoint-dc.yaml", "flashpoint-dc.yaml:25:1: 'spine_leaf' belongs to a topology, not to a scenario"}};
    char *dir = ss_test_tmpdir();
    for (size_t i = 0; i < 3; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "'%s/servesim' run '%s/%s' -o o.csv", SS_BUILD_DIR, SS_SRC_DIR, files[i][0]);
        refused(dir, cmd, files[i][1]);
    }
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

SS_TEST_SUITE("bounds", {"another kind of file given to run", other_files}, {"integers read from floats are range-checked", huge_counts},
              {"runaway rates and samplings are refused", runaways})
