/* test_tune.c: `servesim tune` - equal-resource tuning (docs/autoscaling.md):
 * it finds an atl headroom that uses tsk's replica-seconds within 5%, says
 * so when the range does not bracket the reference (exit 1), and refuses a
 * key the policy does not have (exit 2); with --per-model it gives two
 * models under one load each their own tsk target at the replica-seconds of
 * a reference whose targets differ by model, and the values it prints do
 * use them (a run at those values is within 5% for each model); with
 * --joint it solves three models coupled through one storage link, where
 * bisecting each model on its own cannot (exit 1), and every model of a
 * run at the values it prints is within 5% of the reference (and a solve
 * that starts there, --start MODEL=X, is done in one run); and where the
 * reference holds a model at a cap of its own (per_model's max_replicas), that
 * model's cap in place of its target (--key-for MODEL=max_replicas:1:12). */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const char *SCEN =
    "seed: 9\nreplications: 2\nduration_s: 200\nhosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}, "
    "{name: g1, kind: gpu}, {name: g2, kind: gpu}, {name: g3, kind: gpu}, {name: g4, kind: gpu}, {name: g5, kind: gpu}]\n"
    "models:\n  - {name: m, service: {dist: deterministic, value_s: 1.0}}\ndeployment:\n"
    "  - {model: m, device: g0, queue: shared, instances: 0, startup_s: 1}\n"
    "  - {model: m, device: g1, queue: shared, instances: 0, startup_s: 1}\n"
    "  - {model: m, device: g2, queue: shared, instances: 0, startup_s: 1}\n"
    "  - {model: m, device: g3, queue: shared, instances: 0, startup_s: 1}\n"
    "  - {model: m, device: g4, queue: shared, instances: 0, startup_s: 1}\n"
    "  - {model: m, device: g5, queue: shared, instances: 0, startup_s: 1}\n"
    "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 3}\n"
    "autoscaling:\n  policy: atl\n"
    "variants:\n  - {name: atl, set: {autoscaling.policy: {name: atl, headroom: 1}}}\n"
    "  - {name: tsk, set: {autoscaling.policy: {name: tsk, target_s: 7}}}\n";

static int tune(const char *dir, const char *args, char **out)
{
    return ss_test_sh(out, "cd '%s' && '%s/servesim' tune t.yaml %s", dir, SS_BUILD_DIR, args);
}

/* Two models on six GPUs; the reference holds a queue-latency target of
 * 0.3 s for `a` and 2 s for `b`, the variant 5 s for both. */
static const char *SCEN2 =
    "seed: 3\nreplications: 2\nduration_s: 600\nhosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}, "
    "{name: g1, kind: gpu}, {name: g2, kind: gpu}, {name: g3, kind: gpu}, {name: g4, kind: gpu}, {name: g5, kind: gpu}]\n"
    "models:\n  - {name: a, service: {dist: exponential, mean_s: 0.1}}\n"
    "  - {name: b, service: {dist: exponential, mean_s: 0.1}}\ndeployment:\n"
    "  - {model: a, devices: \"h/g*\", queue: shared, instances: 1}\n"
    "  - {model: b, devices: \"h/g*\", queue: shared, instances: 1}\n"
    "workloads:\n  - {name: wa, kind: poisson, target: a, rate_rps: 12}\n"
    "  - {name: wb, kind: poisson, target: b, rate_rps: 12}\n"
    "autoscaling:\n  policy: {name: tsk, target_s: 5}\n"
    "variants:\n  - {name: ref, set: {autoscaling.per_model: {a: {target_s: 0.3}, b: {target_s: 2}}}}\n"
    "  - {name: v, set: {autoscaling.policy.target_s: 5}}\n";

/* A results CSV's instance_s_<model>, the mean over its rows for all models. */
static double instance_s(const char *csv, const char *model)
{
    char *out = NULL;
    ss_test_sh(&out,
               "python3 -c 'import csv, sys; r = [x for x in csv.DictReader(open(sys.argv[1])) if x[\"model\"] == "
               "\"all\"]; print(sum(float(x[\"instance_s_\" + sys.argv[2]]) for x in r) / len(r))' '%s' '%s'",
               csv, model);
    double v = out ? strtod(out, NULL) : -1;
    free(out);
    return v;
}

static void per_model(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.yaml", SCEN2));
    char *out = NULL;
    CU_ASSERT_EQUAL_FATAL(
        tune(dir, "--variant v --reference ref --key target_s --lo 0.01 --hi 50 --per-model --quiet", &out), 0);
    double xa = 0, xb = 0;
    const char *pa = out ? strstr(out, "a=") : NULL, *pb = out ? strstr(out, "b=") : NULL;
    CU_ASSERT_FATAL(pa && pb);
    xa = strtod(pa + 2, NULL);
    xb = strtod(pb + 2, NULL);
    CU_ASSERT(xa > 0.01 && xa < xb && xb < 50); /* a's reference target is the tighter one */
    free(out);
    /* The values found put each model within 5% of the reference's replica-seconds. */
    CU_ASSERT_EQUAL(ss_test_sh(NULL,
                               "cd '%s' && '%s/servesim' run t.yaml --variant ref --quiet -o ref.csv && '%s/servesim' run "
                               "t.yaml --variant v --quiet -o v.csv --set autoscaling.per_model.a.target_s=%.17g "
                               "--set autoscaling.per_model.b.target_s=%.17g",
                               dir, SS_BUILD_DIR, SS_BUILD_DIR, xa, xb),
                    0);
    char *ref = ss_xasprintf("%s/ref.csv", dir), *v = ss_xasprintf("%s/v.csv", dir);
    for (int m = 0; m < 2; m++) {
        const char *name = m ? "b" : "a";
        double r = instance_s(ref, name), x = instance_s(v, name);
        CU_ASSERT(r > 0 && fabs(x - r) <= 0.05 * r);
    }
    /* Without its own values, model a uses more than 5% less than the reference: the test can fail. */
    double r = instance_s(ref, "a");
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s/servesim' run t.yaml --variant v --quiet -o v.csv", dir,
                               SS_BUILD_DIR), 0);
    CU_ASSERT(instance_s(v, "a") < 0.95 * r);
    free(ref);
    free(v);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* Three models that cold-start from one 2 Gbit/s storage link (2 GB each:
 * 8 s alone) under TSK: one model's scale-ups slow the others' cold starts,
 * so their queues wait longer and TSK gives them more replicas.  With every
 * target at --lo the link is so busy that c uses fewer replica-seconds than
 * the reference gives it with its own target of 3 s: bisecting each model on
 * its own finds no bracket. */
static const char *TOPO3 =
    "name: t\nhost_types:\n  - name: a10\n    sockets: 1\n    gpus: 8\n    gpu_link: {bandwidth_gbps: 75.68}\n"
    "    ram: {bandwidth_gbps: 1638.4}\n    gpu_memory_gib: 22.49\n    ram_gib: 200\n    nic: {bandwidth_gbps: 50}\n"
    "spine_leaf: {spines: 1, leaves: 1, hosts_per_leaf: 4, host_type: a10, host_links: {bandwidth_gbps: 50}, "
    "spine_links: {bandwidth_gbps: 100}}\n"
    "storage:\n  - {name: s3, attach: leaf0, bandwidth_mbps: 2000, per_connection_mbps: 2000}\n";

static const char *SCEN3 =
    "seed: 1\nreplications: 2\nduration_s: 600\ntopology: topo.yaml\nmodels:\n"
    "  - {name: a, service: {dist: deterministic, value_s: 0.05}, weights_bytes: 2e9, load_bytes_per_s: 8e8}\n"
    "  - {name: b, service: {dist: deterministic, value_s: 0.05}, weights_bytes: 2e9, load_bytes_per_s: 8e8}\n"
    "  - {name: c, service: {dist: deterministic, value_s: 0.05}, weights_bytes: 2e9, load_bytes_per_s: 8e8}\n"
    "deployment:\n  - {model: a, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
    "  - {model: b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
    "  - {model: c, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
    "workloads:\n"
    "  - {name: wa, kind: synthetic, target: a, shape: twitter, median_rps: 40, length_s: 600, correlation_s: 30}\n"
    "  - {name: wb, kind: synthetic, target: b, shape: twitter, median_rps: 40, length_s: 600, correlation_s: 30}\n"
    "  - {name: wc, kind: synthetic, target: c, shape: twitter, median_rps: 40, length_s: 600, correlation_s: 30}\n"
    "autoscaling: {policy: {name: tsk, target_s: 7}, period_s: 1, max_replicas: 12}\nplacement: {policy: cloud}\n"
    "variants:\n  - {name: ref, set: {autoscaling.per_model: {a: {target_s: 0.5}, b: {target_s: 40}, c: {target_s: 3}}}}\n"
    "  - {name: v, set: {autoscaling.policy.target_s: 7}}\n"
    "  - {name: ref-cap, set: {autoscaling.per_model: {a: {target_s: 0.5}, b: {target_s: 40}, c: {target_s: 0.05, "
    "max_replicas: 4}}}}\n";

/* Every model a, b, c of dir/v.csv uses dir/ref.csv's replica-seconds within 5%. */
static void each_within_5pct(const char *dir)
{
    char *ref = ss_xasprintf("%s/ref.csv", dir), *v = ss_xasprintf("%s/v.csv", dir);
    for (int m = 0; m < 3; m++) {
        const char name[2] = {(char)('a' + m), 0};
        double r = instance_s(ref, name), got = instance_s(v, name);
        CU_ASSERT(r > 0 && fabs(got - r) <= 0.05 * r);
    }
    free(ref);
    free(v);
}

/* `tune ARGS EXTRA` in dir exits 2 saying msg. */
static void refused(const char *dir, const char *args, const char *extra, const char *msg)
{
    char *out = NULL, *cmd = ss_xasprintf("%s %s", args, extra);
    CU_ASSERT_EQUAL(tune(dir, cmd, &out), 2);
    CU_ASSERT(ss_test_has(out, msg));
    free(out);
    free(cmd);
}

static void joint(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "topo.yaml", TOPO3));
    free(ss_test_write(dir, "t.yaml", SCEN3));
    const char *args = "--variant v --reference ref --key target_s --lo 0.05 --hi 200 --per-model --quiet";
    char *out = NULL, *cmd = NULL;
    /* Each model on its own: the coupling defeats it. */
    CU_ASSERT_EQUAL(tune(dir, args, &out), 1);
    CU_ASSERT(ss_test_has(out, "c: [0.05, 200] does not bracket the reference"));
    free(out);
    /* Too few runs: said, with the closest run. */
    cmd = ss_xasprintf("%s --joint --max-runs 3", args);
    CU_ASSERT_EQUAL(tune(dir, cmd, &out), 1);
    CU_ASSERT(ss_test_has(out, "not every model within the tolerance after 3 runs (joint); the closest"));
    free(out);
    free(cmd);
    /* Together. */
    cmd = ss_xasprintf("%s --joint", args);
    CU_ASSERT_EQUAL_FATAL(tune(dir, cmd, &out), 0);
    free(cmd);
    double x[3] = {0};
    for (int m = 0; m < 3; m++) {
        char key[4] = {(char)('a' + m), '=', 0};
        const char *at = out ? strstr(out, key) : NULL;
        CU_ASSERT_FATAL(at != NULL);
        x[m] = strtod(at + 2, NULL);
        CU_ASSERT(x[m] >= 0.05 && x[m] <= 200);
    }
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL,
                               "cd '%s' && '%s/servesim' run t.yaml --variant ref --quiet -o ref.csv && '%s/servesim' run "
                               "t.yaml --variant v --quiet -o v.csv --set autoscaling.per_model.a.target_s=%.17g "
                               "--set autoscaling.per_model.b.target_s=%.17g --set autoscaling.per_model.c.target_s=%.17g",
                               dir, SS_BUILD_DIR, SS_BUILD_DIR, x[0], x[1], x[2]),
                    0);
    each_within_5pct(dir);
    /* Going on from there (--start MODEL=X): found in its first run. */
    cmd = ss_xasprintf("%s --joint --max-runs 1 --start a=%.17g --start b=%.17g --start c=%.17g", args, x[0], x[1], x[2]);
    CU_ASSERT_EQUAL(tune(dir, cmd, &out), 0);
    free(out);
    free(cmd);
    /* The reference caps c at 4 replicas with a target of 0.05 s: c's knob is its own cap. */
    cmd = ss_xasprintf("--variant v --reference ref-cap --key target_s --lo 0.05 --hi 200 --per-model --quiet --joint "
                       "--key-for c=max_replicas:1:12");
    CU_ASSERT_EQUAL_FATAL(tune(dir, cmd, &out), 0);
    free(cmd);
    const char *at_a = out ? strstr(out, "a=") : NULL, *at_b = out ? strstr(out, "b=") : NULL,
               *at_c = out ? strstr(out, "c.max_replicas=") : NULL;
    CU_ASSERT_FATAL(at_a && at_b && at_c);
    double ka = strtod(at_a + 2, NULL), kb = strtod(at_b + 2, NULL), kc = strtod(at_c + 15, NULL);
    CU_ASSERT(kc >= 1 && kc <= 12);
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL,
                               "cd '%s' && '%s/servesim' run t.yaml --variant ref-cap --quiet -o ref.csv && "
                               "'%s/servesim' run t.yaml --variant v --quiet -o v.csv --timeseries-csv ts.csv "
                               "--set autoscaling.per_model.a.target_s=%.17g --set autoscaling.per_model.b.target_s=%.17g "
                               "--set autoscaling.per_model.c.max_replicas=%.17g",
                               dir, SS_BUILD_DIR, SS_BUILD_DIR, ka, kb, kc),
                    0);
    each_within_5pct(dir);
    /* c never has more than the whole part of its cap, starting replicas counted. */
    CU_ASSERT_EQUAL(ss_test_sh(&out,
                               "python3 -c 'import csv, sys; print(max(int(r[\"replicas\"]) + int(r[\"starting\"]) "
                               "for r in csv.DictReader(open(sys.argv[1])) if r[\"model\"] == \"c\"))' '%s/ts.csv'",
                               dir),
                    0);
    CU_ASSERT(out && atoi(out) == (int)kc);
    free(out);
    /* --key-for is a way of --joint, with boxes above 0, once per model; --start names a model. */
    refused(dir, args, "--key-for c=max_replicas:1:12", "--key-for: only with --joint");
    refused(dir, args, "--joint --key-for c=max_replicas:0:12", "LO and HI must be above 0");
    refused(dir, args, "--joint --key-for c=max_replicas", "expected MODEL=KEY:LO:HI");
    refused(dir, args, "--joint --key-for zz=max_replicas:1:3", "--key-for: 'zz' is not an autoscaled model");
    refused(dir, args, "--joint --start zz=3", "--start: 'zz' is not an autoscaled model");
    /* --joint is a way of --per-model; --max-runs one of --joint. */
    refused(dir, "--variant v --reference ref --key autoscaling.policy.target_s --lo 0.05 --hi 200", "--joint",
            "--joint: only with --per-model");
    refused(dir, args, "--joint --max-runs 0", "--max-runs: expected a whole number");
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void finds_and_refuses(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.yaml", SCEN));
    char *out = NULL;
    CU_ASSERT_EQUAL(tune(dir, "--variant atl --key autoscaling.policy.headroom --lo 0.2 --hi 2 --reference tsk", &out), 0);
    CU_ASSERT(ss_test_has(out, "found autoscaling.policy.headroom="));
    CU_ASSERT(ss_test_has(out, "within 5.0% of tsk"));
    free(out);
    CU_ASSERT_EQUAL(tune(dir, "--variant tsk --key autoscaling.policy.target_s --lo 5 --hi 20 --reference atl", &out), 1);
    CU_ASSERT(ss_test_has(out, "does not bracket the reference"));
    free(out);
    CU_ASSERT_EQUAL(tune(dir, "--variant atl --key autoscaling.policy.nope --lo 0.2 --hi 2 --reference tsk", &out), 2);
    CU_ASSERT(ss_test_has(out, "policy 'atl' has no parameter 'nope'"));
    free(out);
    CU_ASSERT_EQUAL(tune(dir, "--variant atl --lo 0.2 --hi 2 --reference tsk", &out), 2);
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

SS_TEST_SUITE("tune", {"finds a threshold at equal resources, or says why not", finds_and_refuses},
              {"--per-model: each model its own threshold at the reference's resources", per_model},
              {"--per-model --joint: coupled models solved together", joint})
