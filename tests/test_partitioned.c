/* test_partitioned.c: partitioned replicas in a run (coldstart_parts.c,
 * scenario `partitioning:`): FP §2.4's worked example simulated gives the
 * completion times its model gives; model completion turns a pipeline into
 * whole replicas; scale-down drains pipelines first; bad input (seed
 * flashpoint.md, cited FP §n). */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hosts of one GPU each on one leaf, storage beside it: a 3 GB model takes
 * 24 s from storage at 1 Gbit/s (load and PCIe next to free); its halves
 * 12 s each, in parallel on their own hosts; 125 MB between the halves
 * take 1 s over the 1 Gbit/s host links. */
static const char *TOPO = "name: t\nhost_types:\n  - name: g1\n    sockets: 1\n    gpus: %d\n"
                          "    gpu_link: {bandwidth_gbps: 1000000}\n    ram: {bandwidth_gbps: 1000000}\n"
                          "    gpu_memory_gib: 22.49\n    ram_gib: 200\n    nic: {bandwidth_gbps: 1}\n"
                          "spine_leaf: {spines: 1, leaves: 1, hosts_per_leaf: %d, host_type: g1,\n"
                          "             host_links: {bandwidth_gbps: 1}, spine_links: {bandwidth_gbps: 100}}\n"
                          "storage:\n  - {name: s3, attach: leaf0, bandwidth_mbps: 10000, per_connection_mbps: 1000}\n";

static const char *LAYERS = "{\"name\": \"m-layers\", \"model\": \"m\", \"layers\": [\n"
                            "  {\"name\": \"a\", \"weights_bytes\": 1500000000, \"output_bytes\": 125000000, \"exec_s\": 2},\n"
                            "  {\"name\": \"b\", \"weights_bytes\": 1500000000, \"output_bytes\": 0, \"exec_s\": 2}]}\n";

static const char *SCEN = "seed: 1\nduration_s: 1000\ntopology: topo.yaml\n"
                          "models:\n  - {name: m, service: {dist: deterministic, value_s: 4}, weights_bytes: 3000000000, "
                          "load_bytes_per_s: 1.0e15}\n"
                          "deployment:\n  - {model: m, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                          "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                          "autoscaling: {policy: {name: steps-as, steps: \"%s\"}, period_s: 1}\n"
                          "placement: {policy: %s}\n"
                          "partitioning: {policy: {name: %s, max_parts: %d}, completion: %s%s}\n";

static const char *partitioner = "flashpoint-mp"; /* or the test plugin bad-parts (it takes max_parts too) */
static const char *part_extra = ", cut_overhead_s: 0"; /* more keys of `partitioning:`; the FP examples have no cut cost */
static const char *placement = "cloud";               /* the placement plugin */
static int gpus_per_host = 1;
static char *failed_output;                      /* what the last failed run printed */

/* Write the setup into a new folder; run it; the requests CSV, or NULL. */
static char *run(char **dir, int hosts, const char *trace, const char *steps, int max_parts, const char *completion)
{
    *dir = ss_test_tmpdir();
    char buf[4096];
    snprintf(buf, sizeof buf, TOPO, gpus_per_host, hosts);
    free(ss_test_write(*dir, "topo.yaml", buf));
    ss_test_sh(NULL, "mkdir -p '%s/models'", *dir);
    free(ss_test_write(*dir, "models/m-layers.json", LAYERS));
    free(ss_test_write(*dir, "t.csv", trace));
    snprintf(buf, sizeof buf, SCEN, steps, placement, partitioner, max_parts, completion, part_extra);
    free(ss_test_write(*dir, "s.yaml", buf));
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && SERVESIM_PLUGIN_PATH='%s/tests/plugins:%s/policies' '%s/servesim' run s.yaml "
                        "-o r.csv --requests-csv q.csv --coldstarts-csv c.csv --quiet 2>&1 && cat q.csv",
                        *dir, SS_BUILD_DIR, SS_BUILD_DIR, SS_BUILD_DIR);
    if (rc != 0) {
        if (strcmp(partitioner, "bad-parts") != 0) fprintf(stderr, "\nrun failed:\n%s\n", out ? out : "");
        free(failed_output);
        failed_output = out;
        return NULL;
    }
    return out;
}

/* Finish times of the requests CSV, in request order. */
static int finishes(const char *csv, double *t, int max)
{
    int n = 0;
    const char *p = strchr(csv, '\n'); /* past the header */
    while (p && p[1] && n < max) {
        const char *f = p + 1;
        for (int k = 0; k < 6 && f; k++) f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL; /* finish_s */
        if (!f) break;
        t[n++] = strtod(f, NULL);
        p = strchr(p + 1, '\n');
    }
    return n;
}

static void fp_worked_example_simulated(void)
{
    /* The scale-up comes at the first tick, 1 s in.  Two parts: warm at
     * 1 + 12 s, then a request every max(E, N) = 2 s, the first after I =
     * 2 + 1 + 2 s: 18, 20, ..., 32 (FP's 5, 7, ..., 19 after the 12 s cold
     * start; mean 24 s + 1).  Whole (max_parts 1): two replicas warm at
     * 1 + 24 s, two requests every 4 s: 29, 29, 33, ..., 41 (mean 34 + 1). */
    static const char *trace = "timestamp_s\n0\n0\n0\n0\n0\n0\n0\n0\n";
    for (int whole = 0; whole < 2; whole++) {
        char *dir, *out = run(&dir, 2, trace, "2@0", whole ? 1 : 0, "false");
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        double t[8], sum = 0;
        CU_ASSERT_EQUAL_FATAL(finishes(out, t, 8), 8);
        for (int i = 0; i < 8; i++) {
            double want = whole ? 29 + 4 * (i / 2) : 18 + 2 * i;
            CU_ASSERT_DOUBLE_EQUAL(t[i], want, 1e-3); /* load and send take microseconds here */
            sum += t[i];
        }
        CU_ASSERT_DOUBLE_EQUAL(sum / 8 - 1, whole ? 34.0 : 24.0, 1e-3);
        free(out);
        CU_ASSERT_EQUAL(ss_test_sh(&out, "cat '%s/c.csv'", dir), 0); /* one cold start for the pipeline */
        CU_ASSERT(ss_test_has(out, whole ? "storage,1.000000000,25.0000" : "storage,1.000000000,13.0000"));
        CU_ASSERT_EQUAL(strstr(out, "\n,0,m,h1") != NULL, whole);
        free(out);
        ss_test_rmtree(dir);
    }
}

static void completion_makes_whole_replicas(void)
{
    /* One request at 0, two at 100.  The pipeline is warm at 13 s; each GPU
     * then loads the other half (12 s), so by 100 s they are two whole
     * replicas: the two requests run side by side in 4 s.  Without
     * completion the pipeline serves them one after the other: 5 s and 7 s.
     * The first request's tensor crosses to h1 while h1 downloads its other
     * half over the same 1 Gbit/s link: half the rate, 2 s, so it ends at
     * 19 s instead of 18. */
    static const char *trace = "timestamp_s\n0\n100\n100\n";
    for (int complete = 0; complete < 2; complete++) {
        char *dir, *out = run(&dir, 2, trace, "2@0", 0, complete ? "true" : "false");
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        double t[3];
        CU_ASSERT_EQUAL_FATAL(finishes(out, t, 3), 3);
        CU_ASSERT_DOUBLE_EQUAL(t[0], complete ? 19.0 : 18.0, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(t[1], complete ? 104.0 : 105.0, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(t[2], complete ? 104.0 : 107.0, 1e-3);
        free(out);
        ss_test_rmtree(dir);
    }
}

static void scale_down_takes_pipelines_first(void)
{
    /* Three GPUs at 1 s with at most two parts: one pipeline of two and one
     * whole replica.  Down to one GPU at 40 s: the pipeline (2 GPUs) goes
     * (FP §2.7), the whole replica stays, so the request at 60 s takes 4 s;
     * the pipeline would take 5 s. */
    static const char *trace = "timestamp_s\n0\n60\n";
    char *dir, *out = run(&dir, 3, trace, "3@0,1@40", 2, "false");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double t[2];
    CU_ASSERT_EQUAL_FATAL(finishes(out, t, 2), 2);
    CU_ASSERT_DOUBLE_EQUAL(t[0], 18.0, 1e-3); /* the pipeline is up before the whole replica (25 s) */
    CU_ASSERT_DOUBLE_EQUAL(t[1], 64.0, 1e-3);
    free(out);
    ss_test_rmtree(dir);
}

static void cut_cost_per_message(void)
{
    /* A request at 100 s through the warm two-part pipeline (no completion;
     * the first, at 0 s, waited for its cold start): part a's 2 s, the 125 MB tensor over the 1 Gbit/s host
     * links in 1 s, the cut's per-message cost, part b's 2 s.  So it ends at
     * 105 s + cut_overhead_s: 0.25 s given, the measured default
     * (SS_CUT_OVERHEAD_S, 1.593928954 ms) when the key is absent, none at 0. */
    static const struct {
        const char *extra;
        double cost_s;
    } cases[] = {{", cut_overhead_s: 0.25", 0.25}, {"", 0.001593928954}, {", cut_overhead_s: 0", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        part_extra = cases[i].extra;
        char *dir, *out = run(&dir, 2, "timestamp_s\n0\n100\n", "2@0", 0, "false");
        part_extra = ", cut_overhead_s: 0";
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        double t[2];
        CU_ASSERT_EQUAL_FATAL(finishes(out, t, 2), 2);
        if (fabs(t[1] - (105 + cases[i].cost_s)) > 1e-9) fprintf(stderr, "\ncase %zu: %.9f\n", i, t[1]);
        CU_ASSERT_DOUBLE_EQUAL(t[1], 100 + 2 + 1 + cases[i].cost_s + 2, 1e-9);
        free(out);
        ss_test_rmtree(dir);
    }
}

/* run() under placement `policy` on hosts of `gpus` GPUs each. */
static char *run_placed(char **dir, const char *policy, int gpus, int hosts, const char *trace, const char *steps,
                        int max_parts, const char *completion)
{
    placement = policy;
    gpus_per_host = gpus;
    char *out = run(dir, hosts, trace, steps, max_parts, completion);
    placement = "cloud";
    gpus_per_host = 1;
    return out;
}

/* The cold starts CSV has `rows` rows, and row `row` came from `source` in duration_s. */
static void check_cold(const char *dir, int rows, int row, const char *source, double duration_s)
{
    char *out = NULL, src[16] = "";
    double born = 0, end = 0;
    CU_ASSERT_EQUAL_FATAL(ss_test_sh(&out, "tail -n +2 '%s/c.csv' | wc -l", dir), 0);
    CU_ASSERT_EQUAL(atoi(out), rows);
    free(out);
    CU_ASSERT_EQUAL_FATAL(ss_test_sh(&out, "cut -d, -f6-8 '%s/c.csv' | sed -n %dp", dir, row + 2), 0);
    CU_ASSERT_EQUAL(sscanf(out, "%15[^,],%lf,%lf", src, &born, &end), 3);
    CU_ASSERT_STRING_EQUAL(src, source);
    CU_ASSERT_DOUBLE_EQUAL(end - born, duration_s, 1e-9);
    free(out);
}

/* A 1.5 GB half's load and send: 12 us each over the host's 1e6 Gbit/s memory and PCIe links. */
#define HALF_LOAD_SEND_S (2 * 1.5e9 * 8 / 1e15)

static void part_from_a_peer(void)
{
    /* Flashpoint (LC+MC) on three hosts of one GPU.  A whole replica comes
     * by chain from storage to h0 (24 s) and stays; at 60 s two GPUs more,
     * h1 and h2, start a two-part pipeline.  Each half comes from the host
     * holding the model, as a chain's would (FP §1.6: a peer's RAM before
     * storage): both 1.5 GB halves leave h0 over its 1 Gbit/s link, 3 GB in
     * 24 s, then load and send.  From storage (one connection each, 1 Gbit/s,
     * on their own links) they would take 12 s. */
    char *dir, *out = run_placed(&dir, "flashpoint", 1, 3, "timestamp_s\n0\n100\n", "1@0,3@60", 0, "false");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    check_cold(dir, 2, 1, "peer", 3e9 * 8 / 1e9 + HALF_LOAD_SEND_S);
    free(out);
    ss_test_rmtree(dir);
}

static void part_from_the_hosts_ram(void)
{
    /* atoll (data kept in RAM), one host of two GPUs: a whole replica from
     * storage (24 s) leaves the model's data in the host's RAM when it goes
     * at 40 s; at 60 s two GPUs start a pipeline there and read their halves
     * from RAM: no fetch, only the two loads and the two sends at once over
     * the host's memory link (3 GB at 1e6 Gbit/s, 24 us each). */
    char *dir, *out = run_placed(&dir, "atoll", 2, 1, "timestamp_s\n0\n100\n", "1@0,0@40,2@60", 0, "false");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    check_cold(dir, 2, 1, "local", 2 * HALF_LOAD_SEND_S);
    free(out);
    ss_test_rmtree(dir);
}

static void parts_share_a_chain(void)
{
    /* Flashpoint (LC+MC) on four hosts of one GPU, four added at 1 s: two
     * pipelines of two parts, a on h0 and h2, b on h1 and h3, nothing held
     * anywhere.  The parts that need the same half ride one chain from
     * storage (FP §1.8): storage -> h0 -> h2 for a, -> h1 -> h3 for b, so the
     * storage link carries each half once, 3 GB, where four fetches would
     * carry 6 GB; each chain at storage's 1 Gbit/s per connection, 12 s. */
    char *dir, *out = run_placed(&dir, "flashpoint", 1, 4, "timestamp_s\n0\n", "4@0", 2, "false");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int i = 0; i < 2; i++) check_cold(dir, 2, i, "storage", 1.5e9 * 8 / 1e9 + HALF_LOAD_SEND_S);
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && python3 -c \"import csv; r = next(csv.DictReader(open('r.csv'))); "
                                     "print(r['net_gb_storage'])\"", dir), 0);
    CU_ASSERT_DOUBLE_EQUAL(strtod(out ? out : "0", NULL), 3.0, 1e-6);
    free(out);
    ss_test_rmtree(dir);
}

static void parts_share_the_hosts_fetches(void)
{
    /* flashpoint-lc, one host of four GPUs, four added at 1 s: two
     * pipelines of two parts, all on the host.  The first pipeline's halves
     * fetch layers a and b from storage; the second's find them coming and
     * wait (the host's one download, FP §5.2.4): 3 GB over the host's
     * 1 Gbit/s link, 24 s, for both pipelines; then the four halves load
     * and send at once over the host's memory link (6 GB at 1e6 Gbit/s,
     * 48 us each).  Each part fetching its own would move 6 GB: 48 s. */
    char *dir, *out = run_placed(&dir, "flashpoint-lc", 4, 1, "timestamp_s\n0\n", "4@0", 2, "false");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int i = 0; i < 2; i++) check_cold(dir, 2, i, "storage", 3e9 * 8 / 1e9 + 4 * HALF_LOAD_SEND_S);
    free(out);
    ss_test_rmtree(dir);
}

static void completion_fetches_only_what_is_missing(void)
{
    /* flashpoint-lc, one host of two GPUs, both added at 1 s: the halves
     * fetch a and b from storage over the host's 1 Gbit/s link, warm at
     * 1 + 24 s + load and send.  Completion: each GPU needs the other half,
     * which the other part brought to the host's RAM: nothing is fetched, only
     * loaded and sent (microseconds), and the pipeline becomes two whole
     * replicas once the request at 0 s has left it (29 s).  So the two
     * requests at 30 s run side by side: both end at 34 s.  Were the halves
     * fetched again (1.5 GB each over the same link, 24 s), the pipeline
     * would still serve them at 30 s: 34 s and 36 s. */
    char *dir, *out = run_placed(&dir, "flashpoint-lc", 2, 1, "timestamp_s\n0\n30\n30\n", "2@0", 0, "true");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double t[3];
    CU_ASSERT_EQUAL_FATAL(finishes(out, t, 3), 3);
    CU_ASSERT_DOUBLE_EQUAL(t[1], 34, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[2], 34, 1e-9);
    free(out);
    ss_test_rmtree(dir);
}

static void invalid_plan_fails_the_run(void)
{
    /* A partitioner answering more parts than GPUs: the run goes on with
     * whole replicas, then fails (exit 1) saying which plugin, model and
     * time; nothing silent. */
    partitioner = "bad-parts";
    char *dir, *out = run(&dir, 2, "timestamp_s\n0\n0\n", "2@0", 0, "false");
    partitioner = "flashpoint-mp";
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(failed_output);
    CU_ASSERT(ss_test_has(failed_output, "partitioner 'bad-parts' answered an invalid plan for model 'm' at 1 s "
                                         "(3 parts on 2 GPUs"));
    free(failed_output);
    failed_output = NULL;
    free(out);
    ss_test_rmtree(dir);
}

static void bad_partitioning(void)
{
    char *dir = ss_test_tmpdir(), buf[4096];
    snprintf(buf, sizeof buf, TOPO, 1, 2);
    free(ss_test_write(dir, "topo.yaml", buf));
    free(ss_test_write(dir, "t.csv", "timestamp_s\n0\n"));
    ss_test_sh(NULL, "mkdir -p '%s/models'", dir);
    static const char *head = "seed: 1\nduration_s: 100\ntopology: topo.yaml\n"
                              "models:\n  - {name: m, service: {dist: deterministic, value_s: 4}, weights_bytes: "
                              "3000000000, load_bytes_per_s: 1.0e15}\n"
                              "  - {name: n, service: {dist: deterministic, value_s: 4}, weights_bytes: 3000000000, "
                              "load_bytes_per_s: 1.0e15}\n"
                              "deployment:\n  - {model: m, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                              "workloads:\n  - {name: w, kind: trace, target: m, file: t.csv}\n"
                              "autoscaling: {policy: atl, period_s: 1, models: [m]}\n";
    struct {
        const char *tail, *layers, *says;
    } bad[] = {
        {"partitioning: {policy: flashpoint-mp}\n", LAYERS, "partitioning: parts cold-start on a topology's GPUs: give `placement:`"},
        {"placement: {policy: cloud}\npartitioning: {policy: flashpoint-mp}\n", NULL,
         "partitioning: model 'm' has no per-layer profile"},
        {"placement: {policy: cloud}\npartitioning: {policy: flashpoint-mp, models: [n]}\n", LAYERS,
         "partitioning: model 'n' does not cold-start through `placement:`"},
        {"placement: {policy: cloud}\npartitioning: {policy: flashpoint-mp, split: 2}\n", LAYERS,
         "unknown key 'split' in partitioning"},
        {"placement: {policy: cloud}\npartitioning: {policy: atl}\n", LAYERS, "is an autoscaler, expected a partitioner"},
        {"placement: {policy: cloud}\npartitioning: {policy: {name: flashpoint-mp, max_parts: -2}}\n", LAYERS,
         "max_part_mb wants"},
        {"placement: {policy: cloud}\npartitioning: {policy: flashpoint-mp}\n",
         "{\"name\": \"m-layers\", \"model\": \"m\", \"layers\": [\n"
         "  {\"name\": \"a\", \"weights_bytes\": 1000000000, \"output_bytes\": 1, \"exec_s\": 2},\n"
         "  {\"name\": \"b\", \"weights_bytes\": 1500000000, \"output_bytes\": 0, \"exec_s\": 2}]}\n",
         "the layers of 'm' hold 2500000000 bytes, its profile 3000000000"},
        {"placement: {policy: cloud}\npartitioning: {policy: flashpoint-mp}\n",
         "{\"name\": \"m-layers\", \"model\": \"m\", \"layers\": [\n"
         "  {\"name\": \"a\", \"weights_bytes\": 1500000000, \"output_bytes\": 1, \"exec_s\": 2},\n"
         "  {\"name\": \"b\", \"weights_bytes\": 1500000000, \"output_bytes\": -1, \"exec_s\": 2}]}\n",
         "m-layers.json:3:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "%s%s", head, bad[i].tail);
        free(ss_test_write(dir, "s.yaml", buf));
        ss_test_sh(NULL, "rm -f '%s/models/m-layers.json'", dir);
        if (bad[i].layers) free(ss_test_write(dir, "models/m-layers.json", bad[i].layers));
        char *out = NULL;
        int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv 2>&1", dir, SS_BUILD_DIR);
        if (rc != 2 || !ss_test_has(out, bad[i].says)) fprintf(stderr, "\ncase %zu: rc %d: %s\n", i, rc, out);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT(ss_test_has(out, bad[i].says));
        CU_ASSERT_NOT_EQUAL(ss_test_sh(NULL, "test -e '%s/r.csv'", dir), 0);
        free(out);
    }
    ss_test_rmtree(dir);
}

static void ablation_reference_reproduces(void)
{
    /* One run of the committed ablation (Flashpoint under ATL on the
     * Azure-like hour, T5-3B alone, replication 0 of 5) gives the reference's
     * figures, and the tables and plot data are what the tool makes of the
     * reference. */
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "same.py",
                       "import csv, sys\n"
                       "mine = {r['model']: r for r in csv.DictReader(open(sys.argv[1]))}\n"
                       "ref = {r['model']: r for r in csv.DictReader(open(sys.argv[2]))\n"
                       "       if r['variant'] == 'lc-mc-mp-azure-atl' and r['replication'] == '0'\n"
                       "       and r['workloads.t5.scale'] == '1'}\n"
                       "assert set(mine) == set(ref) and len(ref) == 7, (sorted(mine), sorted(ref))\n"
                       "for m in ref:\n"
                       "    for col in ('completed', 'latency_mean_ms', 'latency_p99_ms', 'instance_s_t5-3b',\n"
                       "                'coldstart_mean_s_t5-3b'):\n"
                       "        assert mine[m][col] == ref[m][col], (m, col, mine[m][col], ref[m][col])\n"));
    int rc = ss_test_sh(&out,
                        "cd '%s' && '%s' run scenarios/flashpoint/ablation.yaml --variant lc-mc-mp-azure-atl "
                        "--set autoscaling.max_replicas=40 --replications 5 --replication 0 --quiet -o '%s/r.csv' "
                        "--set workloads.codebert.scale=0 --set workloads.albert.scale=0 --set workloads.bart.scale=0 "
                        "--set workloads.dialogpt.scale=0 --set workloads.gpt2.scale=0 --set workloads.t5.scale=1 && "
                        "python3 '%s/same.py' '%s/r.csv' results/reference/flashpoint-ablation.csv 2>&1",
                        SS_SRC_DIR, SS_BIN, dir, dir, dir);
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    rc = ss_test_sh(&out,
                    "cd '%s' && python3 tools/flashpoint_ablation.py report results/reference/flashpoint-ablation.csv "
                    "-o '%s' > '%s/flashpoint-ablation.md' && for f in flashpoint-ablation.md "
                    "flashpoint-ablation-resources.csv flashpoint-ablation-summary.csv flashpoint-ablation-table81.csv "
                    "flashpoint-ablation-reductions.dat; do cmp \"results/reference/$f\" \"%s/$f\" || exit 1; done 2>&1",
                    SS_SRC_DIR, dir, dir, dir);
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("partitioned", {"FP §2.4's example simulated: 24 s in two parts, 34 s whole", fp_worked_example_simulated},
              {"model completion turns a pipeline into whole replicas", completion_makes_whole_replicas},
              {"scale-down drains pipelines first", scale_down_takes_pipelines_first},
              {"a cut's hand-off pays cut_overhead_s beside its tensor's bytes", cut_cost_per_message},
              {"a part's bytes from a peer's RAM (a chain's holder), not storage", part_from_a_peer},
              {"a part read from its host's RAM (an earlier download)", part_from_the_hosts_ram},
              {"parts that need the same layers share a chain", parts_share_a_chain},
              {"parts on one host share what it fetches: the second pipeline reads the first's", parts_share_the_hosts_fetches},
              {"model completion fetches only the layers the host lacks", completion_fetches_only_what_is_missing},
              {"bad partitioning input: file:line:col, exit 2, nothing written", bad_partitioning},
              {"a plan the partitioner may not make fails the run, with a message", invalid_plan_fails_the_run},
              {"the ablation's reference reproduces, and its tables are the tool's", ablation_reference_reproduces})
