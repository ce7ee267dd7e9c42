/* test_network_cli.c: the network through the command line - `servesim
 * flows` (transfer-list replay: exact finish times, the Flashpoint
 * two-receiver fan-out, thousands of transfers at once on one link against
 * processor sharing's finish times, bad input with file:line:col and exit 2), and
 * scenarios with a `topology:` (inline or by file, devices from its GPUs,
 * `check` printing the oversubscription, bad references). */
#include "test.h"
#include "core/util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_fanout_two_receivers(void)
{
    /* Flashpoint's example: a 10 Gbit model from host1 to host2 and host3
     * on one ToR with 10 Gbit/s duplex links.  Unicast: both flows share
     * host1's uplink at 5 Gbit/s, 1.25e9 bytes / 0.625e9 B/s = 2 s. */
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.csv", "start_s,src,dst,bytes\n0,host1,host2,1250000000\n0,host1,host3,1250000000\n"));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' flows '%s/topologies/three-hosts-one-tor.yaml' t.csv", dir, SS_BIN,
                        SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "transfer,start_s,src,dst,bytes,finish_s,duration_s\n"
                            "0,0.000000000,host1,host2,1250000000,2.000000000,2.000000000\n"
                            "1,0.000000000,host1,host3,1250000000,2.000000000,2.000000000\n"));
    free(out);
    /* Alone, one transfer takes 1 s; one starting at 0.5 s on the same
     * uplink: 0-0.5 s at 10 G (625 MB sent), then 5 G each: the first has
     * 625 MB left -> 1 s more, done at 1.5 s; the second has sent 625 MB by
     * then, and finishes the rest alone at 10 G: 0.5 s more, done at 2.0 s. */
    free(ss_test_write(dir, "u.csv", "0,host1,host2,1250000000\n0.5,host1,host3,1250000000\n"));
    rc = ss_test_sh(&out, "cd '%s' && '%s' flows '%s/topologies/three-hosts-one-tor.yaml' u.csv -o o.csv && cat o.csv",
                    dir, SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "0,0.000000000,host1,host2,1250000000,1.500000000,1.500000000\n"
                            "1,0.500000000,host1,host3,1250000000,2.000000000,1.500000000\n"));
    free(out);
    ss_test_rmtree(dir);
}

/* Many transfers at once on one shared link, as max-min shares it: 2,000
 * from host1 to host3 all starting at 0, sizes 1, 2, ..., 2000 MB (listed
 * out of order), over host1's uplink and host3's downlink, both 10 Gbit/s.
 * Equal shares of one bottleneck (processor sharing): with the sizes
 * sorted, the k-th (from 0) finishes (s_k - s_k-1) x 8 x (N - k) / C after
 * the one before it.  Every start and every end is a re-solve of all the
 * flows in flight.  Not timed: bench/big-inputs.sh times the big case. */
static void test_many_concurrent(void)
{
    enum { N = 2000 };
    const double mb = 1e6, cap_bps = 10e9;
    char *dir = ss_test_tmpdir();
    char *csv = NULL;
    size_t len = 0;
    FILE *f = ss_xmemstream(&csv, &len);
    fputs("start_s,src,dst,bytes\n", f);
    for (int i = 0; i < N; i++) fprintf(f, "0,host1,host3,%.0f\n", ((i * 7) % N + 1) * mb); /* 7 is prime to N */
    fclose(f);
    free(ss_test_write(dir, "t.csv", csv));
    free(csv);
    int rc = ss_test_sh(NULL, "cd '%s' && '%s' flows '%s/topologies/three-hosts-one-tor.yaml' t.csv -o o.csv", dir,
                        SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    double want_s[N + 1] = {0}; /* by size in MB */
    for (int k = 0; k < N; k++) want_s[k + 1] = want_s[k] + mb * 8 * (N - k) / cap_bps;
    char *path = ss_xasprintf("%s/o.csv", dir);
    FILE *o = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    char line[256];
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, o)); /* header */
    int rows = 0, bad = 0;
    double worst = 0;
    while (fgets(line, sizeof line, o)) {
        unsigned id;
        double start_s, bytes, finish_s, dur_s;
        char src[32], dst[32];
        if (sscanf(line, "%u,%lf,%31[^,],%31[^,],%lf,%lf,%lf", &id, &start_s, src, dst, &bytes, &finish_s, &dur_s) != 7) {
            bad++;
            continue;
        }
        int size_mb = (int)(bytes / mb + 0.5);
        bad += size_mb != ((int)id * 7) % N + 1 || start_s != 0 || dur_s != finish_s;
        double err = fabs(finish_s - want_s[size_mb]);
        worst = err > worst ? err : worst;
        rows++;
    }
    fclose(o);
    free(path);
    CU_ASSERT_EQUAL(rows, N);
    CU_ASSERT_EQUAL(bad, 0);
    /* the last ends at the total bytes over the capacity: 2,001,000 MB x 8 / 10 Gbit/s = 1600.8 s */
    CU_ASSERT_DOUBLE_EQUAL(want_s[N], N * (N + 1) / 2.0 * mb * 8 / cap_bps, 1e-9);
    CU_ASSERT_TRUE(worst < 2e-9); /* the output's 9 decimals */
    if (!(worst < 2e-9)) fprintf(stderr, "\n  worst finish time error %.3g s\n", worst);
    ss_test_rmtree(dir);
}

static void test_hosts_by_index(void)
{
    /* On flashpoint-dc, host indices follow generator order: 0 is h0 and
     * 199 is h199; a same-leaf transfer is capped by the 50 Gbit/s host
     * links (plus two 1 us hops): 6.25e9 bytes at 50 Gbit/s = 1 s. */
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.csv", "0,0,1,6250000000\n"));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' flows '%s/topologies/flashpoint-dc.yaml' t.csv --links-csv l.csv "
                              "&& grep -c . l.csv", dir, SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "0,0.000000000,h0,h1,6250000000,1.000002000,1.000002000\n"));
    CU_ASSERT_TRUE(ss_test_has(out, "\n5691\n")); /* header + 5690 directed links (2845 duplex, the disks included) */
    free(out);
    ss_test_rmtree(dir);
}

static void bad_flows(const char *csv, const char *want)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "t.csv", csv));
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' flows '%s/topologies/flashpoint-dc.yaml' t.csv -o out/o.csv 2>&1",
                        dir, SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, want));
    CU_ASSERT_NOT_EQUAL(ss_test_sh(NULL, "test -e '%s/out'", dir), 0);
    free(out);
    ss_test_rmtree(dir);
}

static void test_flows_bad_input(void)
{
    bad_flows("start_s,src,dst,bytes\n0,h0,h999,100\n", "t.csv:2:6: unknown node 'h999' (did you mean 'h99'?)");
    bad_flows("0,h0,h1,abc\n", "t.csv:1:9: bytes: expected a number >= 0, at most 1e+18 bytes, 0 or at least 1, got 'abc'");
    bad_flows("0,h0,h1,-5\n", "t.csv:1:9: bytes: expected a number >= 0, at most 1e+18 bytes, 0 or at least 1, got '-5'");
    bad_flows("0,h0,h1,0.5\n", "t.csv:1:9: bytes: expected a number >= 0, at most 1e+18 bytes, 0 or at least 1, got '0.5'");
    bad_flows("1e300,h0,h1,5\n", "t.csv:1:1: start_s: expected a number >= 0, at most 1e+09 s, got '1e300'");
    bad_flows("0,200,h1,5\n", "t.csv:1:3: host index 200 out of range (the topology has 200 hosts)");
    bad_flows("0,h0,h1\n", "t.csv:1:1: expected 4 fields start_s,src,dst,bytes, found 3");
}

#define SCEN_TAIL                                                         \
    "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"  \
    "deployment: [{model: m, device: h1/gpu1}]\n"                         \
    "workloads: [{name: w, kind: poisson, target: m, rate_rps: 10}]\n"

static void test_scenario_topology(void)
{
    char *dir = ss_test_tmpdir();
    char *out = NULL;
    /* inline, hosts of a type with 2 GPUs each; devices come from it */
    free(ss_test_write(dir, "in.yaml",
                       "requests: 100\n"
                       "topology:\n"
                       "  host_types: [{name: small, sockets: 1, gpus: 2, gpu_link: {bandwidth_gbps: 32},\n"
                       "                ram: {bandwidth_gbps: 400}, nic: {attach: cpu0, bandwidth_gbps: 25}}]\n"
                       "  spine_leaf: {spines: 2, leaves: 2, hosts_per_leaf: 2, host_type: small,\n"
                       "               host_links: {bandwidth_gbps: 25}, spine_links: {bandwidth_gbps: 100}}\n" SCEN_TAIL));
    int rc = ss_test_sh(&out, "cd '%s' && '%s' check in.yaml 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "8 devices"));
    CU_ASSERT_TRUE(ss_test_has(out, "2 host links 50 Gbit/s / 2 uplinks 200 Gbit/s = 0.25:1"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && '%s' run in.yaml -o r.csv --quiet && head -1 r.csv", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, ",util_h1/gpu1\n")); /* only the device in use has a column */
    free(out);
    /* a missing topology file: at the reference */
    free(ss_test_write(dir, "miss.yaml", "requests: 100\ntopology: nothere.yaml\n" SCEN_TAIL));
    rc = ss_test_sh(&out, "cd '%s' && '%s' check miss.yaml 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "miss.yaml:2:11: topology file 'nothere.yaml' not found or not readable"));
    free(out);
    /* a device that is not in the topology */
    free(ss_test_write(dir, "dev.yaml", "requests: 100\ntopology: '" SS_SRC_DIR "/topologies/flashpoint-dc.yaml'\n"
                                        "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"
                                        "deployment: [{model: m, device: h200/gpu0}]\n"
                                        "workloads: [{name: w, kind: poisson, target: m, rate_rps: 10}]\n"));
    rc = ss_test_sh(&out, "cd '%s' && '%s' check dev.yaml 2>&1", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(ss_test_has(out, "dev.yaml:4:33: "));
    free(out);
    /* the shipped data-centre scenario: check prints the oversubscription */
    rc = ss_test_sh(&out, "cd '%s' && '%s' check scenarios/network/flashpoint-dc.yaml", SS_SRC_DIR, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "1600 devices"));
    CU_ASSERT_TRUE(ss_test_has(out, "leaf9        20 host links 1000 Gbit/s / 4 uplinks 400 Gbit/s = 2.50:1"));
    free(out);
    ss_test_rmtree(dir);
}

/* ss_fmt_fixed (the flows output's numbers) writes what printf writes:
 * random magnitudes, exact ties, integers, tiny values, the fallbacks. */
static void test_fmt_fixed(void)
{
    char a[SS_FMT_FIXED_MAX], b[SS_FMT_FIXED_MAX];
    uint64_t st = 0x9e3779b97f4a7c15ull;
    int bad = 0;
    for (int i = 0; i < 400000; i++) {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        double x;
        switch (i % 5) {
        case 0: x = (double)(st >> 11) * 0x1p-53 * pow(10, (double)(i % 19) - 9); break; /* 1e-9 .. 1e9 */
        case 1: x = ((double)(st % 2000000000) + 0.5) / 1e9; break;                      /* near ties */
        case 2: x = (double)(st % 4096) / 1024.0;                                         /* exact ties */
            break;
        case 3: x = (double)(st >> 20);                                                   /* integers */
            break;
        default: x = ldexp((double)(st >> 11), (int)(st % 200) - 150); break;             /* anything */
        }
        int d = (int)(st % 10);
        int na = ss_fmt_fixed(a, x, d);
        snprintf(b, sizeof b, "%.*f", d, x);
        bad += strcmp(a, b) != 0 || na != (int)strlen(b);
    }
    CU_ASSERT_EQUAL(bad, 0);
    const double odd[] = {0.0, -0.0, 0.5, 1.5, 2.5, 1e-300, 5e-10, 1.5e-9, 2.5e-9, 9007199.254740991,
                          1e300, -1.25, NAN, INFINITY, 0x1p53, 123456789.123456789};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        for (int d = 0; d <= 9; d++) {
            ss_fmt_fixed(a, odd[i], d);
            snprintf(b, sizeof b, "%.*f", d, odd[i]);
            CU_ASSERT_STRING_EQUAL(a, b);
        }
    }
}

SS_TEST_SUITE("network-cli", {"fixed-point numbers as printf writes them", test_fmt_fixed}, {"flows: two-receiver fan-out and mid-transfer start, exact", test_fanout_two_receivers},
              {"flows: hosts by index, link counters", test_hosts_by_index},
              {"flows: 2,000 transfers at once share one link max-min fair, as analysed", test_many_concurrent},
              {"flows: bad input, exit 2, nothing written", test_flows_bad_input},
              {"scenarios with a topology", test_scenario_topology})
