/* test_tune.c: `servesim tune` - equal-resource tuning (docs/autoscaling.md):
 * it finds an atl headroom that uses tsk's replica-seconds within 5%, says
 * so when the range does not bracket the reference (exit 1), and refuses a
 * key the policy does not have (exit 2). */
#include "test.h"

#include <stdlib.h>

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

SS_TEST_SUITE("tune", {"finds a threshold at equal resources, or says why not", finds_and_refuses})
