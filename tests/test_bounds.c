/* test_bounds.c: numbers read from a float that are cast to integers are
 * range-checked first (issue 12 item 6; `make test-asan` now builds with
 * -fsanitize=float-cast-overflow, which would also catch a miss): a device
 * with `cores: 1e300`, a plan with `tasks: 1e18` or a mix of 1e300 tasks are
 * refused with file:line:col and exit 2, writing nothing. */
#include "test.h"

#include "core/cfg.h"

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
    refused(dir, cmd, "c.yaml:5:43: cores: expected an integer > 0, from 1 to 1e+15, got '1e300'");
    snprintf(cmd, sizeof cmd,
             "sed 's/^tasks: .*/tasks: 1e18/' '%s/scenarios/blockflow/plan-vram.yaml' > p.yaml && "
             "SERVESIM_MODEL_PATH='%s/models' '%s/servesim' plan p.yaml -o o.csv",
             SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    refused(dir, cmd, "p.yaml:28:8: tasks: at most 1e9, got 1000000000000000000");
    snprintf(cmd, sizeof cmd,
             "sed 's/{name: \"1\", percent: {A: 33, B: 33, C: 33}}/{name: \"1\", tasks: {A: 1e300, B: 1, C: 1}}/' "
             "'%s/scenarios/blockflow/plan-vram.yaml' > p.yaml && SERVESIM_MODEL_PATH='%s/models' '%s/servesim' plan p.yaml -o o.csv",
             SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    refused(dir, cmd, "p.yaml:36:28: A: expected an integer >= 0: 0 or from 1 to 1e+15, got '1e300'");
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
    snprintf(yaml, sizeof yaml, "%s  - {name: w, kind: poisson, target: m, rate_rps: 1e9}\n", head);
    free(ss_test_write(dir, "a.yaml", yaml));
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run a.yaml -o o.csv", SS_BUILD_DIR);
    refused(dir, cmd, "a.yaml:11:5: workload 'w': about 1e+10 requests over duration_s 10, more than the 1e+09");
    snprintf(yaml, sizeof yaml,
             "%s  - {name: w, kind: interarrival, target: m, interarrival: {dist: uniform, min_s: 0, max_s: 1e-9}}\n", head);
    free(ss_test_write(dir, "b.yaml", yaml));
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run b.yaml -o o.csv", SS_BUILD_DIR);
    refused(dir, cmd, "b.yaml:11:5: workload 'w': about 2e+10 requests");
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

static void physical_ranges(void)
{
    /* The unit suffix of a key gives its physical range (core/cfg_range.c). */
    CU_ASSERT_EQUAL(ss_key_range_of("bandwidth_gbps")->hi, 1e6);
    CU_ASSERT_STRING_EQUAL(ss_key_range_of("s_per_byte")->unit, "s per byte");
    CU_ASSERT_STRING_EQUAL(ss_key_range_of("gpu_eff_flops_per_s")->unit, "FLOP/s");
    CU_ASSERT_STRING_EQUAL(ss_key_range_of("warmup_s")->unit, "s");
    CU_ASSERT_STRING_EQUAL(ss_key_range_of("gamma")->unit, "");
    CU_ASSERT(ss_key_range_holds(ss_key_range_of("latency_s"), 0, ss_key_range_of("latency_s")->lo));
    CU_ASSERT(ss_key_range_holds(ss_key_range_of("latency_s"), -1e-7, ss_key_range_of("latency_s")->lo));
    CU_ASSERT(!ss_key_range_holds(ss_key_range_of("latency_s"), 1e-300, ss_key_range_of("latency_s")->lo));
    CU_ASSERT(!ss_key_range_holds(ss_key_range_of("memory_mib"), 1e300, ss_key_range_of("memory_mib")->lo));
    CU_ASSERT(ss_key_range_holds(ss_key_range_of("memory_mib"), 1.0 / 1048576, ss_key_range_of("memory_mib")->lo));
    CU_ASSERT(ss_key_range_holds(ss_key_range_of("stretch_s[0]"), -4e-16, 0)); /* no floor: noise near 0 */
    /* They reach a model no more: each was an assertion in the flow model. */
    char *dir = ss_test_tmpdir();
    static const char *const cases[][3] = {
        {"scenarios/masa/fig4.yaml", "edge.memory_mib=1e-300", "memory_mib: expected a number > 0, from 9.53674e-07 to 1e+12 MiB"},
        {"scenarios/masa/fig4.yaml", "edge.networks.0.layers.0.mem_load_mib=1e300", "mem_load_mib: expected a number >= 0: 0 or from"},
        {"scenarios/blockflow/two-hosts.yaml", "topology.links.0.bandwidth_gbps=1e300",
         "bandwidth_gbps: expected a number > 0, from 1e-09 to 1e+06 Gbit/s, got '1e300'"},
        {"scenarios/roma/pair-ii.yaml", "deployment.2.threads=1e-8", "threads: 1e-08 is below 0.001 cores"},
        {"scenarios/default.yaml", "autoscaling.stabilization_s=1e8", "stabilization_s: 1e+08 s is 1e+08 periods of period_s 1; at most 1e+06"},
        {"scenarios/blockflow/single-gv100.yaml", "duration_s=1e8", "workload 'client': about 8.54e+09 requests over duration_s 1e+08"},
        /* a segfault (no run queue at all), then out of memory (a queue per core) */
        {"scenarios/probe/resnet50-cpu.yaml", "pipeline.host_cores={vm: 1e-15}", "host_cores: expected 0.001 to 8192 for host 'vm', got 1e-15"},
        {"scenarios/probe/resnet50-cpu.yaml", "hosts.0.devices.0.cores=100000", "run_queues: host of device 'vm/cpu' has 100000 cores"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run '%s/%s' -o o.csv --set '%s'", SS_BUILD_DIR, SS_SRC_DIR,
                 cases[i][0], cases[i][1]);
        refused(dir, cmd, cases[i][2]);
    }
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void totals(void)
{
    /* 40 million instances passed check and died of memory after a minute. */
    char *dir = ss_test_tmpdir();
    char yaml[8192];
    int n = snprintf(yaml, sizeof yaml, "seed: 1\nrequests: 100\nhosts:\n  - name: h\n    devices: [{name: g, kind: gpu}]\n"
                                        "models:\n  - {name: m, service: {dist: deterministic, value_s: 0.1}}\ndeployment:\n");
    for (int i = 0; i < 40; i++) n += snprintf(yaml + n, sizeof yaml - (size_t)n, "  - {model: m, device: g, instances: 1000000}\n");
    snprintf(yaml + n, sizeof yaml - (size_t)n, "workloads:\n  - {name: w, kind: closed, target: m, clients: 1}\n");
    free(ss_test_write(dir, "i.yaml", yaml));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' run i.yaml -o o.csv", SS_BUILD_DIR);
    refused(dir, cmd, "i.yaml:9:5: the scenario asks for 40000000 instances in all: with the rest, about 38.1 GiB of memory, "
                      "more than the 8 GiB allowed (--max-memory SIZE raises it");
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' check i.yaml --max-memory 1G", SS_BUILD_DIR);
    refused(dir, cmd, "more than the 1 GiB allowed");
    snprintf(cmd, sizeof cmd, "timeout 20 '%s/servesim' check i.yaml --max-memory=12x", SS_BUILD_DIR);
    refused(dir, cmd, "servesim check: --max-memory expects a size in bytes (e.g. 100000000, 512M, 16G), got '12x'");
    /* A storage link of 1 kbit/s: a cold start of T5-3B would take three
     * years of autoscaler ticks (it ran past any timeout). */
    snprintf(cmd, sizeof cmd,
             "mkdir -p fp/scenarios && cp -r '%s/topologies' fp/ && cp '%s/scenarios/default.yaml' fp/scenarios/ && "
             "sed -i 's/    bandwidth_mbps: 2000/    bandwidth_mbps: 1e-3/' fp/topologies/flashpoint-dc.yaml && "
             "SERVESIM_MODEL_PATH='%s/models' timeout 20 '%s/servesim' run fp/scenarios/default.yaml -o o.csv",
             SS_SRC_DIR, SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    refused(dir, cmd, "default.yaml:53:11: topology: the largest model's weights take 9.13e+07 s at 1000 bit/s over the link "
                      "border -> s3 (the slowest), which is 9.13e+07 autoscaler ticks of period_s 1, more than 1e+07");
    /* Every model and task keeps its statistics (about 111 KB): 1,000 of
     * them are more than 100 MB; and the model references among them are
     * looked up by index, not by a scan per reference. */
    snprintf(cmd, sizeof cmd,
             "python3 -c \"print('seed: 1\\nrequests: 5\\nhosts: [{name: h, devices: [{name: c, kind: cpu, cores: 8}]}]\\nmodels:'); "
             "[print('  - {name: m%%d, service: {dist: deterministic, value_s: 0.001}}' %% i) for i in range(1000)]; "
             "print('deployment:'); [print('  - {model: m%%d, device: c}' %% i) for i in range(1000)]; "
             "print('workloads: [{name: w, kind: poisson, target: m999, rate_rps: 1}]')\" > m.yaml && "
             "'%s/servesim' check m.yaml --max-memory 100M",
             SS_BUILD_DIR);
    refused(dir, cmd, "m.yaml:5:3: the scenario asks for 1000 models and tasks in all: with the rest, about 0.104 GiB of memory");
    /* Each variant is the whole scenario read again: at most 1,000. */
    snprintf(cmd, sizeof cmd,
             "sed '/^variants:/,$d' '%s/scenarios/tour/load-balancers.yaml' > v.yaml && "
             "python3 -c \"print('variants:'); [print('  - {name: v%%d, set: {seed: %%d}}' %% (i, i + 1)) for i in range(1001)]\" "
             ">> v.yaml && cp -r '%s/models' . && '%s/servesim' check v.yaml",
             SS_SRC_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    refused(dir, cmd, "v.yaml:");
    refused(dir, cmd, "variants: 1001, more than the 1000 a scenario may have");
    /* A file past its kind's cap is refused before it is read. */
    snprintf(cmd, sizeof cmd, "'%s/servesim' check i.yaml --max-input-bytes 1K", SS_BUILD_DIR);
    refused(dir, cmd, "i.yaml: cannot read: 2059 bytes, more than the 1024 that a YAML or JSON file may have (--max-input-bytes SIZE raises it)");
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
              {"runaway rates and samplings are refused", runaways},
              {"a key's unit suffix gives its physical range", physical_ranges},
              {"totals and input sizes are bounded before anything runs", totals})
