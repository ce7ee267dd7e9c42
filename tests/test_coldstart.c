/* test_coldstart.c: cold starts on a topology's GPUs (sim/elastic/coldstart.c,
 * scenario `placement:`) through the CLI, against hand-computed stage
 * times: T5-3B from storage (download at the storage's per-connection
 * 2,203 Mbit/s, load at the profile's rate, send over PCIe), from a peer
 * host at 7,506.89 Mbit/s, from the host's own RAM (send only under
 * flashpoint-lc, load and send under atoll), from the GPU itself
 * (gpu-faas); one shared download for eight GPUs of a host; and the
 * section's bad input.  The replicas are scripted by the test autoscaler
 * steps-as (tests/plugins). */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FP §3.1-3.4: T5-3B's size, its measured load time, the A10 host's PCIe
 * rate (topologies/hosts/a10-8x.yaml), the S3 and host-to-host rates. */
#define W_BYTES 11408e6
#define DOWNLOAD_S (W_BYTES * 8 / 2203e6)
#define LOAD_S (W_BYTES / 806903381.0)
#define SEND_S (W_BYTES * 8 / 75.68e9)
#define PEER_S (W_BYTES * 8 / 7506.89e6)

/* hosts of `gpus` GPUs each under one ToR, storage beside it; no latency */
static const char *TOPO = "name: t\nhost_types:\n  - name: a10\n    sockets: 1\n    gpus: %d\n"
                          "    gpu_link: {bandwidth_gbps: 75.68}\n    ram: {bandwidth_gbps: 1638.4}\n"
                          "    gpu_memory_gib: 22.49\n    ram_gib: 200\n    nic: {bandwidth_gbps: 50}\n"
                          "spine_leaf: {spines: 1, leaves: 1, hosts_per_leaf: %d, host_type: a10,\n"
                          "             host_links: {bandwidth_gbps: 50}, spine_links: {bandwidth_gbps: 100}}\n"
                          "storage:\n  - {name: s3, attach: leaf0, bandwidth_mbps: 10000, per_connection_mbps: 2203}\n";

static const char *SCEN = "seed: 1\nduration_s: %g\ntopology: topo.yaml\nmodels: [t5-3b]\n"
                          "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                          "workloads:\n  - {name: w, target: t5-3b, kind: deterministic, rate_rps: 0.01}\n"
                          "autoscaling: {policy: {name: steps-as, steps: \"%s\"}, period_s: 1}\n"
                          "placement: {policy: %s, peer_mbps: 7506.89}\n";

/* Run dir/s.yaml; the cold-starts CSV and the results CSV, or NULL. */
static char *run_yaml(const char *dir, const char *yaml)
{
    free(ss_test_write(dir, "s.yaml", yaml));
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && SERVESIM_PLUGIN_PATH='%s/tests/plugins:%s/policies' SERVESIM_MODEL_PATH='%s/models' "
                        "'%s/servesim' run s.yaml -o r.csv --coldstarts-csv c.csv --quiet && cat c.csv && "
                        "echo ==== && cat r.csv",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    if (rc != 0) {
        fprintf(stderr, "\nrun failed:\n%s\n", out ? out : "");
        free(out);
        return NULL;
    }
    return out;
}

static char *run(const char *dir, int hosts, int gpus, double dur_s, const char *steps, const char *policy)
{
    char buf[4096];
    snprintf(buf, sizeof buf, TOPO, gpus, hosts);
    free(ss_test_write(dir, "topo.yaml", buf));
    snprintf(buf, sizeof buf, SCEN, dur_s, steps, policy);
    return run_yaml(dir, buf);
}

/* Row k (0-based, in order of coming up) of the cold-starts CSV: its
 * source and duration; 0 if there is no such row. */
static int row(const char *out, int k, char *source, double *dur_s)
{
    const char *p = strchr(out, '\n');
    for (int i = 0; p && i < k; i++) p = strchr(p + 1, '\n');
    if (!p || !p[1] || p[1] == '=') return 0;
    char model[64], host[64], gpu[64];
    double start, up;
    int n = sscanf(p + 1, ",%*u,%63[^,],%63[^,],%63[^,],%15[^,],%lf,%lf,%lf", model, host, gpu, source, &start, &up,
                   dur_s);
    return n == 7;
}

/* The value of results column `col` on the first data row. */
static double col(const char *out, const char *name)
{
    const char *hdr = strstr(out, "====\n");
    if (!hdr) return -1;
    hdr += 5;
    const char *data = strchr(hdr, '\n') + 1;
    int idx = 0;
    for (const char *p = hdr; p < data; idx += *p++ == ',')
        if ((p == hdr || p[-1] == ',') && strncmp(p, name, strlen(name)) == 0 &&
            (p[strlen(name)] == ',' || p[strlen(name)] == '\n'))
            break;
    const char *v = data;
    for (int i = 0; i < idx; i++) v = strchr(v, ',') + 1;
    return strtod(v, NULL);
}

static void from_storage(void)
{
    char *dir = ss_test_tmpdir(), src[16];
    char *out = run(dir, 2, 2, 120, "1@1", "cloud");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double d;
    CU_ASSERT_FATAL(row(out, 0, src, &d));
    CU_ASSERT_STRING_EQUAL(src, "storage");
    /* 41.43 s + 14.14 s + 1.21 s (FP §3.2: "approximately 41 seconds", 14,138 ms, 1,206 ms) */
    CU_ASSERT_DOUBLE_EQUAL(d, DOWNLOAD_S + LOAD_S + SEND_S, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(d, 41.427 + 14.138 + 1.206, 2e-3);
    CU_ASSERT(!row(out, 1, src, &d));
    CU_ASSERT_DOUBLE_EQUAL(col(out, "net_gb_storage"), 11.408, 1e-6);
    free(out);
    /* On the timeline: the decision, and the cold start on its GPU with its three stages. */
    int rc = ss_test_sh(&out,
                        "cd '%s' && SERVESIM_PLUGIN_PATH='%s/tests/plugins:%s/policies' SERVESIM_MODEL_PATH='%s/models' "
                        "'%s/servesim' run s.yaml -o r.csv --timeline t.json --quiet && "
                        "grep -o '\"name\":\"scale t5-3b 0 -> 1\"' t.json && "
                        "grep -c '\"cat\":\"coldstart\"' t.json && grep -o '\"source\":\"storage\"' t.json",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "\"name\":\"scale t5-3b 0 -> 1\"\n8\n\"source\":\"storage\"")); /* 4 slices, begin and end */
    free(out);
    ss_test_rmtree(dir);
}

/* flashpoint-lc: one replica from storage, gone at 100 s; at 200 s three
 * more: two on the host that keeps the loaded model - the GPU that kept
 * its weights (warm at once: GPU-enabled FaaS's caching, which LC keeps,
 * FP §8.2.2) and the other GPU (send only) - and one on the other host
 * from its peer's RAM (transfer, load, send). */
static void lc_local_and_peer(void)
{
    char *dir = ss_test_tmpdir(), src[16];
    char *out = run(dir, 2, 2, 300, "1@1,0@100,3@200", "flashpoint-lc");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double d[4];
    char s[4][16];
    for (int k = 0; k < 4; k++) CU_ASSERT_FATAL(row(out, k, s[k], &d[k]));
    CU_ASSERT(!row(out, 4, src, &d[0]));
    CU_ASSERT_STRING_EQUAL(s[0], "storage");
    CU_ASSERT_DOUBLE_EQUAL(d[0], DOWNLOAD_S + LOAD_S + SEND_S, 1e-6);
    CU_ASSERT_STRING_EQUAL(s[1], "gpu");
    CU_ASSERT_STRING_EQUAL(s[2], "local");
    CU_ASSERT_DOUBLE_EQUAL(d[1], 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(d[2], SEND_S, 1e-6);
    CU_ASSERT_STRING_EQUAL(s[3], "peer");
    CU_ASSERT_DOUBLE_EQUAL(d[3], PEER_S + LOAD_S + SEND_S, 1e-6);
    CU_ASSERT(d[1] < d[2] && d[2] < d[3] && d[3] < d[0]); /* GPU < local < peer < storage */
    CU_ASSERT_DOUBLE_EQUAL(col(out, "model_gb_peer_t5-3b"), 11.408, 1e-6);
    free(out);
    ss_test_rmtree(dir);
}

/* One replica from 1 s, none from 100 s, one again from 200 s, on two
 * hosts of two GPUs: the second cold start's source and duration. */
static void comes_back(const char *policy, const char *want_source, double want_s)
{
    char *dir = ss_test_tmpdir(), src[16];
    char *out = run(dir, 2, 2, 300, "1@1,0@100,1@200", policy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double d;
    CU_ASSERT_FATAL(row(out, 1, src, &d));
    CU_ASSERT_STRING_EQUAL(src, want_source);
    CU_ASSERT_DOUBLE_EQUAL(d, want_s, 1e-6);
    free(out);
    ss_test_rmtree(dir);
}

/* atoll keeps the data, not the process: back on the same host, load and
 * send; cloud keeps nothing: storage again. */
static void atoll_reloads(void)
{
    comes_back("atoll", "local", LOAD_S + SEND_S);
    comes_back("cloud", "storage", DOWNLOAD_S + LOAD_S + SEND_S);
}

/* gpu-faas keeps the weights on the GPU: the replica comes back at once. */
static void gpufaas_warm_gpu(void) { comes_back("gpu-faas", "gpu", 0); }

/* Eight GPUs of one host scale up at once: under flashpoint-lc one
 * download (its bytes cross the storage link and the host's link once),
 * under cloud eight, sharing the 10 Gbit/s storage link at 1.25 Gbit/s. */
static void one_download_per_host(void)
{
    char *dir = ss_test_tmpdir();
    char *out = run(dir, 1, 8, 200, "8@1", "flashpoint-lc");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int k = 0; k < 8; k++) {
        double d;
        char src[16];
        CU_ASSERT_FATAL(row(out, k, src, &d));
        CU_ASSERT_STRING_EQUAL(src, "storage");
        CU_ASSERT_DOUBLE_EQUAL(d, DOWNLOAD_S + LOAD_S + SEND_S, 1e-6);
    }
    CU_ASSERT_DOUBLE_EQUAL(col(out, "net_gb_storage"), 11.408, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(col(out, "net_gb_host-leaf"), 11.408, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(col(out, "model_gb_storage_t5-3b"), 11.408, 1e-6);
    free(out);
    out = run(dir, 1, 8, 200, "8@1", "cloud");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double d;
    char src[16];
    CU_ASSERT_FATAL(row(out, 0, src, &d));
    CU_ASSERT_DOUBLE_EQUAL(d, W_BYTES * 8 / 1.25e9 + W_BYTES / 806903381.0 + SEND_S, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(col(out, "net_gb_storage"), 8 * 11.408, 1e-6);
    free(out);
    ss_test_rmtree(dir);
}

/* FP §1.8's example as a scale-up, on the shipped three hosts under one ToR
 * (10 Gbit/s duplex): host1 holds a 10 Gbit model (from storage at 1 s);
 * host2 and host3 need it at 10 s, by unicast from host1 (flashpoint-lc) or
 * the chain host1 -> host2 -> host3 (flashpoint).  `keys`: the placement's
 * other keys.  d and s: the three cold starts' durations and sources. */
static void fp18_scale_up(const char *dir, int mc, const char *keys, double d[3], char s[3][16])
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "seed: 1\nduration_s: 30\ntopology: %s/topologies/three-hosts-one-tor.yaml\n"
             "models:\n  - {name: m, service: {dist: deterministic, value_s: 0.01}, weights_bytes: 1.25e9,"
             " load_bytes_per_s: 1e15}\n"
             "deployment:\n  - {model: m, devices: \"host*/gpu*\", queue: shared, instances: 0}\n"
             "workloads:\n  - {name: w, target: m, kind: deterministic, rate_rps: 0.1}\n"
             "autoscaling: {policy: {name: steps-as, steps: \"1@1,3@10\"}, period_s: 1}\n"
             "placement: {policy: %s, %s}\n",
             SS_SRC_DIR, mc ? "flashpoint" : "flashpoint-lc", keys);
    char *out = run_yaml(dir, yaml);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int k = 0; k < 3; k++) CU_ASSERT_FATAL(row(out, k, s[k], &d[k]));
    free(out);
}

/* Unicast from host1 shares host1's uplink: 2 s each; the chain takes 1 s,
 * plus one hop's time to first byte for host3.  The load is bound by the
 * host's 1 Tbit/s memory link, the send by its 100 Gbit/s PCIe link. */
static void multicast_chain(void)
{
    char *dir = ss_test_tmpdir(), s[3][16];
    const double send_s = 1.25e9 * 8 / 100e9, load_s = 1.25e9 * 8 / 1000e9, ttfb_s = 0.001;
    double d[3];
    for (int mc = 0; mc < 2; mc++) {
        fp18_scale_up(dir, mc, "chain_ttfb_s: 0.001", d, s);
        CU_ASSERT_STRING_EQUAL(s[0], "storage");
        CU_ASSERT_DOUBLE_EQUAL(d[0], 1.0 + load_s + send_s, 1e-9); /* 10 Gbit over the 10 Gbit/s storage link */
        CU_ASSERT_STRING_EQUAL(s[1], "peer");
        CU_ASSERT_STRING_EQUAL(s[2], "peer");
        if (mc) {
            CU_ASSERT_DOUBLE_EQUAL(d[1], 1.0 + load_s + send_s, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(d[2], 1.0 + ttfb_s + load_s + send_s, 1e-9);
        } else {
            CU_ASSERT_DOUBLE_EQUAL(d[1], 2.0 + load_s + send_s, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(d[2], 2.0 + load_s + send_s, 1e-9);
        }
    }
    ss_test_rmtree(dir);
}

/* The same scale-up under the transfer law's mechanisms (docs/transfers.md):
 * 10 ms of set-up per connection, relays forwarding at most 8 Gbit/s, 2 MB
 * held by each relay.  From storage: 10 ms + 1 s.  Unicast: each peer
 * connection its own 10 ms, then 2 s.  The chain of two: its bytes flow
 * once its first hop is up (10 ms), the relay cap binds (10 Gbit at
 * 8 Gbit/s: 1.25 s), and host3 ends 2 MB / 1 GB/s = 2 ms after host2. */
static void multicast_chain_law(void)
{
    char *dir = ss_test_tmpdir(), s[3][16];
    const double send_s = 1.25e9 * 8 / 100e9, load_s = 1.25e9 * 8 / 1000e9;
    double d[3];
    for (int mc = 0; mc < 2; mc++) {
        fp18_scale_up(dir, mc, "connection_setup_s: 0.01, relay_mbps: 8000, chain_lag_bytes: 2e6", d, s);
        CU_ASSERT_DOUBLE_EQUAL(d[0], 1.01 + load_s + send_s, 1e-9);
        if (mc) {
            CU_ASSERT_DOUBLE_EQUAL(d[1], 0.01 + 1.25 + load_s + send_s, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(d[2], 0.01 + 1.25 + 0.002 + load_s + send_s, 1e-9);
        } else {
            CU_ASSERT_DOUBLE_EQUAL(d[1], 2.01 + load_s + send_s, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(d[2], 2.01 + load_s + send_s, 1e-9);
        }
    }
    ss_test_rmtree(dir);
}

/* The cold start of `model` that began at start_s: its host, source and duration. */
static int started_at(const char *out, const char *model, double start_s, char *host, char *source, double *dur_s)
{
    for (const char *p = strchr(out, '\n'); p && p[1] && p[1] != '='; p = strchr(p + 1, '\n')) {
        char m[64], gpu[64];
        double start, up;
        if (sscanf(p + 1, ",%*u,%63[^,],%63[^,],%63[^,],%15[^,],%lf,%lf,%lf", m, host, gpu, source, &start, &up,
                   dur_s) == 7 &&
            strcmp(m, model) == 0 && fabs(start - start_s) < 1e-9)
            return 1;
    }
    return 0;
}

/* tiered: a replica scaled down sleeps; waking it is the copy to the GPU. */
static void tiered_sleep(void)
{
    char *dir = ss_test_tmpdir(), host[64], src[16];
    char *out = run(dir, 2, 2, 300, "1@1,0@100,1@200", "tiered");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double d;
    CU_ASSERT_FATAL(started_at(out, "t5-3b", 200, host, src, &d));
    CU_ASSERT_STRING_EQUAL(src, "sleep");
    CU_ASSERT_STRING_EQUAL(host, "h0");
    CU_ASSERT_DOUBLE_EQUAL(d, SEND_S, 1e-6);
    free(out);
    ss_test_rmtree(dir);
}

/* tiered: h0 has T5-3B only on its disk (8 Gbit/s; its 24 GiB of RAM went
 * to another model; its own link is 5 Gbit/s), h1 runs it (RAM), h2 has
 * nothing.  A new replica on h0 reads the disk (11.4 s); on h2 it comes
 * from h1 over the 10 Gbit/s links (9.1 s), unless a download to h2 is
 * using them (the estimate halves the share: 18.3 s).  Model c (13 GB: two copies do not fit h0's
 * RAM) makes that download. */
static const char *TIERED_TOPO =
    "name: t\nhost_types:\n"
    "  - {name: small, sockets: 1, gpus: 1, gpu_link: {bandwidth_gbps: 75.68}, ram: {bandwidth_gbps: 1638.4},\n"
    "     gpu_memory_gib: 22.49, ram_gib: 24, disk: {bandwidth_gbps: 8, size_gib: 1000}, nic: {bandwidth_gbps: 100}}\n"
    "  - {name: one, sockets: 1, gpus: 1, gpu_link: {bandwidth_gbps: 75.68}, ram: {bandwidth_gbps: 1638.4},\n"
    "     gpu_memory_gib: 22.49, ram_gib: 200, nic: {bandwidth_gbps: 100}}\n"
    "  - {name: two, sockets: 1, gpus: 2, gpu_link: {bandwidth_gbps: 75.68}, ram: {bandwidth_gbps: 1638.4},\n"
    "     gpu_memory_gib: 22.49, ram_gib: 200, nic: {bandwidth_gbps: 100}}\n"
    "nodes:\n  - {name: tor, kind: leaf}\n  - {name: h0, kind: host, type: small}\n"
    "  - {name: h1, kind: host, type: one}\n  - {name: h2, kind: host, type: two}\n"
    "links:\n  - {a: h0, b: tor, bandwidth_gbps: 5}\n  - {a: h1, b: tor, bandwidth_gbps: 10}\n"
    "  - {a: h2, b: tor, bandwidth_gbps: 10}\n"
    "storage:\n  - {name: s3, attach: tor, bandwidth_mbps: 10000, per_connection_mbps: 2203}\n";

static void tiered_disk_or_peer(void)
{
    char *dir = ss_test_tmpdir(), yaml[4096], host[64], src[16];
    free(ss_test_write(dir, "topo.yaml", TIERED_TOPO));
    for (int congested = 0; congested < 2; congested++) {
        snprintf(yaml, sizeof yaml,
                 "seed: 1\nduration_s: 300\ntopology: topo.yaml\n"
                 "models:\n  - t5-3b\n"
                 "  - {name: b, service: {dist: deterministic, value_s: 0.068}, weights_bytes: 11408e6,"
                 " load_bytes_per_s: 806903381}\n"
                 "  - {name: c, service: {dist: deterministic, value_s: 0.068}, weights_bytes: 13e9,"
                 " load_bytes_per_s: 806903381}\n"
                 "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                 "  - {model: b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                 "  - {model: c, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                 "workloads:\n  - {name: wa, target: t5-3b, kind: deterministic, rate_rps: 0.1}\n"
                 "  - {name: wb, target: b, kind: deterministic, rate_rps: 0.1}\n"
                 "  - {name: wc, target: c, kind: deterministic, rate_rps: 0.1}\n"
                 "autoscaling: {policy: {name: steps-as, steps: \"0:1@1,0:0@100,1:1@110,0:1@120,1:0@200,0:2@210,2:1@%d,1:1@260\"},"
                 " period_s: 1}\n"
                 "placement: {policy: tiered}\n",
                 congested ? 205 : 250); /* c's download to h2 starts before the decision, or after it */
        char *out = run_yaml(dir, yaml);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        double d;
        CU_ASSERT_FATAL(started_at(out, "t5-3b", 120, host, src, &d));
        CU_ASSERT_STRING_EQUAL(host, "h1"); /* h0 is busy with b */
        CU_ASSERT_FATAL(started_at(out, "t5-3b", 210, host, src, &d));
        if (congested) {
            CU_ASSERT_STRING_EQUAL(host, "h0");
            CU_ASSERT_STRING_EQUAL(src, "disk");
            CU_ASSERT_DOUBLE_EQUAL(d, W_BYTES * 8 / 8e9 + LOAD_S + SEND_S, 1e-6);
        } else {
            CU_ASSERT_STRING_EQUAL(host, "h2");
            CU_ASSERT_STRING_EQUAL(src, "peer");
            CU_ASSERT_DOUBLE_EQUAL(d, W_BYTES * 8 / 10e9 + LOAD_S + SEND_S, 1e-6);
        }
        free(out);
    }
    ss_test_rmtree(dir);
}

/* Model b's one request waits for the only GPU, which model a holds idle;
 * at 100 s a is scaled to zero and b to one in the same tick (b first):
 * b finds no GPU then, and the next tick must give it the one a left,
 * not end the run as stalled.  Also: a scenario deploying on more than 64
 * devices reports util_mean, not a column per device. */
static void gpu_handed_over(void)
{
    char *dir = ss_test_tmpdir(), buf[4096], host[64], src[16];
    snprintf(buf, sizeof buf, TOPO, 1, 1);
    free(ss_test_write(dir, "topo.yaml", buf));
    free(ss_test_write(dir, "t.csv", "timestamp_s\n50\n"));
    char *out = run_yaml(dir, "seed: 1\nduration_s: 200\ntopology: topo.yaml\n"
                              "models:\n  - {name: b, service: {dist: deterministic, value_s: 0.1}, weights_bytes: 1e9,"
                              " load_bytes_per_s: 1e9}\n  - {name: a, service: {dist: deterministic, value_s: 0.1},"
                              " weights_bytes: 1e9, load_bytes_per_s: 1e9}\n"
                              "deployment:\n  - {model: b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                              "  - {model: a, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
                              "workloads:\n  - {name: w, target: b, kind: trace, file: t.csv, start_s: 99.5}\n"
                              "autoscaling: {policy: {name: steps-as, steps: \"1:1@1,1:0@100,0:1@100\"}, period_s: 1}\n"
                              "placement: {policy: cloud}\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    double d;
    CU_ASSERT(started_at(out, "b", 101, host, src, &d));
    free(out);
    out = run(dir, 9, 8, 120, "1@1", "cloud");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT(ss_test_has(out, ",util_mean,"));
    CU_ASSERT(!strstr(out, "util_h0/gpu0"));
    free(out);
    ss_test_rmtree(dir);
}

/* Bad input: file:line:col, exit 2, no output. */
static void bad(const char *body, const char *needle)
{
    char *dir = ss_test_tmpdir(), buf[4096];
    snprintf(buf, sizeof buf, TOPO, 2, 2);
    free(ss_test_write(dir, "topo.yaml", buf));
    free(ss_test_write(dir, "s.yaml", body));
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && SERVESIM_PLUGIN_PATH='%s/tests/plugins:%s/policies' SERVESIM_MODEL_PATH='%s/models' "
                        "'%s/servesim' run s.yaml -o r.csv; echo rc=$?; ls",
                        dir, SS_BUILD_DIR, SS_BUILD_DIR, SS_SRC_DIR, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, needle));
    CU_ASSERT(ss_test_has(out, "rc=2"));
    CU_ASSERT(!strstr(out, "r.csv"));
    free(out);
    ss_test_rmtree(dir);
}

#define BASE "seed: 1\nduration_s: 10\ntopology: topo.yaml\nmodels: [t5-3b]\n" \
             "workloads:\n  - {name: w, target: t5-3b, kind: deterministic, rate_rps: 1}\n"

static void bad_input(void)
{
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
             "autoscaling: {policy: atl}\nplacement: {policy: cloud, storage: nosuch}\n",
        "s.yaml:10:37: unknown storage node 'nosuch'");
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
             "autoscaling: {policy: atl}\nplacement: {policy: cloud, storage: h0}\n",
        "s.yaml:10:37: storage: 'h0' is a host, not a storage node of the topology");
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", instances: 1}\n"
             "placement: {policy: cloud}\n",
        "s.yaml:9:12: placement: nothing to place");
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0, startup_s: 5}\n"
             "autoscaling: {policy: atl}\nplacement: {policy: cloud}\n",
        "s.yaml:8:5: startup_s: model 't5-3b' cold-starts through `placement:`");
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
             "autoscaling: {policy: atl}\nplacement: {policy: {name: cloud, speed: 2}}\n",
        "policy 'cloud' has no parameter 'speed'");
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
             "autoscaling: {policy: atl}\nplacement: {policy: atl}\n",
        "s.yaml:10:21: policy 'atl' (" SS_BUILD_DIR "/policies/atl.so) is an autoscaler, expected a placement");
    bad(BASE "deployment:\n  - {model: t5-3b, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
             "autoscaling: {policy: atl}\nplacement: {policy: cloud, goodput: 1.5}\n",
        "s.yaml:10:37: goodput: expected a share from 0.001 to 1, got 1.5");
    /* a model larger than every GPU (22.49 GiB A10s) */
    bad("seed: 1\nduration_s: 10\ntopology: topo.yaml\n"
        "models:\n  - {name: big, service: {dist: deterministic, value_s: 1}, weights_bytes: 30e9, "
        "load_bytes_per_s: 1e9}\n"
        "workloads:\n  - {name: w, target: big, kind: deterministic, rate_rps: 1}\n"
        "deployment:\n  - {model: big, devices: \"h*/gpu*\", queue: shared, instances: 0}\n"
        "autoscaling: {policy: atl}\nplacement: {policy: cloud}\n",
        "s.yaml:9:5: model 'big' needs 27.940 GiB of VRAM (weights + run-time memory) and device 'h0/gpu0' has "
        "22.490 GiB: it cannot run there");
}

SS_TEST_SUITE("coldstart", {"T5-3B from storage: download + load + send", from_storage},
              {"flashpoint-lc: kept on the GPU, local (send only), peer (7,507 Mbit/s)", lc_local_and_peer},
              {"atoll reloads from host RAM, cloud keeps nothing", atoll_reloads},
              {"gpu-faas: weights kept on the GPU", gpufaas_warm_gpu},
              {"one download per host for eight GPUs", one_download_per_host},
              {"FP 1.8: two receivers, 2 s by unicast, 1 s + TTFB by chain", multicast_chain},
              {"FP 1.8 under a transfer law: set-up, relay cap, hop lag", multicast_chain_law},
              {"tiered: a sleeping replica wakes in the PCIe copy alone", tiered_sleep},
              {"tiered: own disk over a congested peer, not over a free one", tiered_disk_or_peer},
              {"a GPU handed from one model to another; util_mean on many devices", gpu_handed_over},
              {"bad input", bad_input})
