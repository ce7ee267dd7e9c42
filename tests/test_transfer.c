/* test_transfer.c: the transfer mechanisms of issue 41 item 1 by hand: a
 * chain's relay weight, rate cap and hop lag on the flow model
 * (core/flow.h), a machine's transfer law run on it (core/xfer_law.h:
 * staggered set-ups, the shared capacity), and calibrate recovering a law
 * from runs it predicts, validate then finding them all within 10%. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/flow.h"
#include "core/util.h"
#include "core/xfer_law.h"
#include "test.h"

#define CLOSE(a, b) CU_ASSERT(fabs((a) - (b)) <= 1e-9 * fmax(1, fabs(b)))

static double got_s[8];

static void on_chain(ss_engine *eng, void *ctx, ss_flow_id id, size_t receiver, double now_s)
{
    (void)eng, (void)ctx, (void)id;
    got_s[receiver - 1] = now_s;
}

/* One link of 8 Gbit/s; a chain of three hops on it, weights 1, 0.5, 0.5:
 * the link carries 2 r, so r = 4 Gbit/s = 0.5 GB/s.  1 GB after 10 ms of
 * set-up: the last byte leaves at 2.01 s; each hop adds 1 ms of TTFB and
 * 1 MB / 0.5 GB/s = 2 ms of lag.  Capped at 2 Gbit/s instead: 4.01 s, and
 * 1 ms + 4 ms a hop. */
static void test_chain_weight_cap_lag(void)
{
    for (int capped = 0; capped < 2; capped++) {
        ss_engine *e = ss_engine_new();
        double cap = 8e9;
        ss_flownet *net = ss_flownet_new(e, 1, &cap);
        static const uint32_t l0 = 0;
        ss_chain_hop hops[3] = {{.links = &l0, .n_links = 1, .weight = 1},
                                {.links = &l0, .n_links = 1, .weight = 0.5},
                                {.links = &l0, .n_links = 1, .weight = 0.5}};
        ss_flow_opts o = {.setup_s = 0.01, .hop_lag_bytes = 1e6, .cap_bps = capped ? 2e9 : 10e9};
        ss_flow_chain_start(net, hops, 3, 1e9, &o, 0.001, on_chain, NULL);
        ss_engine_run(e, INFINITY);
        double t = capped ? 4.01 : 2.01, hop = capped ? 0.005 : 0.003;
        CLOSE(got_s[0], t);
        CLOSE(got_s[1], t + hop);
        CLOSE(got_s[2], t + 2 * hop);
        ss_flownet_free(net);
        ss_engine_free(e);
    }
}

/* Without weights or lag the chain is as before: three hops on one link
 * count the rate three times. */
static void test_chain_unweighted(void)
{
    ss_engine *e = ss_engine_new();
    double cap = 9e9;
    ss_flownet *net = ss_flownet_new(e, 1, &cap);
    static const uint32_t l0 = 0;
    ss_chain_hop hops[3] = {{.links = &l0, .n_links = 1}, {.links = &l0, .n_links = 1}, {.links = &l0, .n_links = 1}};
    ss_flow_chain_start(net, hops, 3, 3e9, NULL, 0, on_chain, NULL);
    ss_engine_run(e, INFINITY);
    for (int i = 0; i < 3; i++) CLOSE(got_s[i], 8.0); /* 3 GB at 3 Gbit/s = 0.375 GB/s */
    ss_flownet_free(net);
    ss_engine_free(e);
}

/* The law's fan-out: set-ups 0.1 s apart, one stream 1 GB/s, all 1.5 GB/s.
 * Stream 1 runs alone from 0.1 to 0.2 s (0.1 GB), then both at 0.75 GB/s:
 * stream 1's 0.9 GB end at 1.4 s, when stream 2 has 0.9 GB and ends its
 * last 0.1 GB alone at 1 GB/s, at 1.5 s. */
static void test_law_fanout(void)
{
    ss_xfer_law l = {.setup_s = 0.1, .stream_bps = 8e9, .shared_bps = 12e9, .relay_bps = 8e9, .relay_weight = 1};
    double d[2];
    ss_xfer_predict(&l, 0, 2, 1e9, d);
    CLOSE(d[0], 1.4);
    CLOSE(d[1], 1.5);
}

/* The law's chain of three: its bytes flow after the first hop's set-up
 * (0.1 s); the relay caps it at 0.75 GB/s, the shared 1.5 GB/s carries it
 * three times (weights 1, 1, 1): 0.5 GB/s; 1 GB ends at 2.1 s, each hop
 * 1 MB / 0.5 GB/s = 2 ms later.  With relay_weight 0.25 the shared load is
 * 1.5 r and the relay's 0.75 GB/s binds: 0.1 + 1 / 0.75 s. */
static void test_law_chain(void)
{
    ss_xfer_law l = {.setup_s = 0.1, .stream_bps = 8e9, .shared_bps = 12e9, .relay_bps = 6e9, .relay_weight = 1,
                     .hop_lag_bytes = 1e6};
    double d[3];
    ss_xfer_predict(&l, 1, 3, 1e9, d);
    CLOSE(d[0], 2.1);
    CLOSE(d[1], 2.102);
    CLOSE(d[2], 2.104);
    l.relay_weight = 0.25;
    ss_xfer_predict(&l, 1, 3, 1e9, d);
    CLOSE(d[0], 0.1 + 1 / 0.75);
    CLOSE(d[2], 0.1 + 1 / 0.75 + 2 * 1e6 / 0.75e9);
    /* one receiver: no relay, the stream's own cap (1 GB/s) and one set-up */
    ss_xfer_predict(&l, 1, 1, 1e9, d);
    CLOSE(d[0], 1.1);
}

/* A profile of runs the law itself predicts: calibrate must find the law,
 * and validate every condition within 10% (0.0%). */
static void test_calibrate_recovers(void)
{
    const ss_xfer_law truth = {.setup_s = 0.004, .stream_bps = 16e9, .shared_bps = 30e9, .relay_bps = 11e9,
                               .relay_weight = 1.2, .hop_lag_bytes = 2e6};
    char *dir = ss_test_tmpdir();
    size_t cap = 1 << 20, len = 0;
    char *doc = ss_xcalloc(cap, 1);
    len += (size_t)snprintf(doc + len, cap - len,
                            "{\"servesim_profile\": 1, \"source\": \"test_transfer.c\", \"environment\": {"
                            "\"machine\": \"t\", \"cpu_model\": \"t\", \"cores\": 2, \"memory_bytes\": 1, \"os\": "
                            "\"t\", \"libraries\": {}, \"date\": \"2026-12-07\"}, \"samples\": [");
    const char *sep = "";
    for (int use = 0; use < 2; use++)
        for (int chain = 0; chain < 2; chain++)
            for (unsigned k = 1; k <= 8; k += use ? 1 : k)
                for (int m = 0; m < 3; m++) {
                    double bytes = (double)(64 << 20) * (1 << (2 * m)), d[8];
                    ss_xfer_predict(&truth, chain, k, bytes, d);
                    len += (size_t)snprintf(doc + len, cap - len,
                                            "%s{\"kind\": \"transfer\", \"mode\": \"%s\", \"receivers\": %u, "
                                            "\"bytes\": %.0f, %s\"use\": \"%s\", \"done_s\": [",
                                            sep, chain ? "chain" : "unicast", k, bytes,
                                            chain ? "\"chunk_bytes\": 1048576, " : "", use ? "validate" : "fit");
                    for (unsigned i = 0; i < k; i++)
                        len += (size_t)snprintf(doc + len, cap - len, "%s%.17g", i ? ", " : "", d[i]);
                    len += (size_t)snprintf(doc + len, cap - len, "], \"first_s\": [");
                    for (unsigned i = 0; i < k; i++)
                        len += (size_t)snprintf(doc + len, cap - len, "%s%.17g", i ? ", " : "",
                                                (double)(i + 1) * truth.setup_s);
                    len += (size_t)snprintf(doc + len, cap - len, "]}");
                    sep = ", ";
                }
    snprintf(doc + len, cap - len, "]}\n");
    char *prof = ss_test_write(dir, "p.json", doc);
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "%s calibrate %s -o %s/law.json --quiet", SS_BIN, prof, dir), 0);
    free(out);
    char *lawp = ss_xasprintf("%s/law.json", dir);
    FILE *f = fopen(lawp, "r");
    CU_ASSERT_FATAL(f != NULL);
    char *text = ss_xcalloc(1 << 20, 1);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = 0;
    cJSON *root = cJSON_Parse(text), *t = cJSON_GetObjectItem(root, "transfer");
    CU_ASSERT_FATAL(t != NULL);
    double setup = cJSON_GetObjectItem(t, "setup_s")->valuedouble;
    CU_ASSERT(fabs(setup - truth.setup_s) <= 1e-9 * truth.setup_s);
    CU_ASSERT(fabs(cJSON_GetObjectItem(t, "stream_bps")->valuedouble / truth.stream_bps - 1) <= 1e-6);
    CU_ASSERT(fabs(cJSON_GetObjectItem(t, "shared_bps")->valuedouble / truth.shared_bps - 1) <= 1e-3);
    CU_ASSERT(fabs(cJSON_GetObjectItem(t, "relay_bps")->valuedouble / truth.relay_bps - 1) <= 1e-3);
    CU_ASSERT(fabs(cJSON_GetObjectItem(t, "relay_weight")->valuedouble / truth.relay_weight - 1) <= 1e-3);
    CU_ASSERT(fabs(cJSON_GetObjectItem(t, "hop_lag_bytes")->valuedouble / truth.hop_lag_bytes - 1) <= 1e-6);
    cJSON_Delete(root);
    int rc = ss_test_sh(&out, "%s validate %s --transfer-law %s", SS_BIN, prof, lawp);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(out && strstr(out, "validate: 0 of 48 transfer conditions beyond 10%") != NULL);
    if (rc != 0 && out) fputs(out, stderr);
    free(out);
    free(text);
    free(lawp);
    free(prof);
    free(doc);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("transfer", {"chain: relay weight, cap and hop lag", test_chain_weight_cap_lag},
              {"chain without weights or lag", test_chain_unweighted}, {"law: staggered fan-out", test_law_fanout},
              {"law: chain", test_law_chain}, {"calibrate finds the law, validate within 10%", test_calibrate_recovers})
