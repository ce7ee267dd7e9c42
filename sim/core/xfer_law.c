/* xfer_law.c: a machine's transfer law (xfer_law.h): reading it, and one
 * fan-out or chain run on the flow model under it. */
#include "core/xfer_law.h"

#include <math.h>
#include <stdlib.h>

#include "core/engine.h"
#include "core/flow.h"
#include "core/util.h"

int ss_xfer_law_read(const ss_node *map, ss_xfer_law *law, ss_err *err)
{
    static const char *const keys[] = {"setup_s",  "stream_bps",   "shared_bps",    "relay_bps",
                                       "relay_weight", "hop_lag_bytes", "method", "from", NULL};
    if (ss_node_expect(map, SS_NODE_MAP, "a transfer law", err) < 0) return -1;
    if (ss_cfg_check_keys(map, keys, "transfer law", err) < 0) return -1;
    *law = (ss_xfer_law){0};
    if (ss_cfg_num(map, "setup_s", &law->setup_s, SS_REQ | SS_NONNEG, err) < 0) return -1;
    if (ss_cfg_num(map, "stream_bps", &law->stream_bps, SS_REQ | SS_POS, err) < 0) return -1;
    if (ss_cfg_num(map, "shared_bps", &law->shared_bps, SS_REQ | SS_POS, err) < 0) return -1;
    if (ss_cfg_num(map, "relay_bps", &law->relay_bps, SS_REQ | SS_POS, err) < 0) return -1;
    if (ss_cfg_num(map, "relay_weight", &law->relay_weight, SS_REQ | SS_POS, err) < 0) return -1;
    if (ss_cfg_num(map, "hop_lag_bytes", &law->hop_lag_bytes, SS_REQ | SS_NONNEG, err) < 0) return -1;
    return 0;
}

static void one_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    (void)eng, (void)id;
    *(double *)ctx = now_s;
}

static void stream_done(ss_engine *eng, void *ctx, ss_flow_id id, size_t receiver, double now_s)
{
    (void)eng, (void)id;
    ((double *)ctx)[receiver - 1] = now_s;
}

void ss_xfer_predict(const ss_xfer_law *law, int chain, size_t k, double bytes, double *done_s)
{
    ss_engine *eng = ss_engine_new();
    double cap = law->shared_bps;
    ss_flownet *net = ss_flownet_new(eng, 1, &cap);
    static const uint32_t shared = 0;
    ss_chain_hop *hops = ss_xcalloc(k, sizeof *hops);
    for (size_t i = 0; i < k; i++)
        hops[i] = (ss_chain_hop){.links = &shared, .n_links = 1, .weight = chain && i ? law->relay_weight : 1};
    ss_flow_opts o = {.cap_bps = law->stream_bps};
    if (chain) { /* bytes flow once the first hop is up; the relays' sockets hold them while the
                  * next hops connect */
        if (k >= 2 && law->relay_bps < o.cap_bps) o.cap_bps = law->relay_bps;
        o.hop_lag_bytes = law->hop_lag_bytes;
        o.setup_s = law->setup_s;
        ss_flow_chain_start(net, hops, k, bytes, &o, 0, stream_done, done_s);
    } else { /* the sender's connections, one after another */
        for (size_t i = 0; i < k; i++) {
            o.setup_s = (double)(i + 1) * law->setup_s;
            ss_flow_start(net, &shared, 1, bytes, &o, one_done, &done_s[i]);
        }
    }
    ss_engine_run(eng, INFINITY);
    ss_flownet_free(net);
    ss_engine_free(eng);
    free(hops);
}

double ss_xfer_time_s(int chain, size_t k, const double *done_s)
{
    if (chain) return done_s[k - 1];
    double m = 0;
    for (size_t i = 0; i < k; i++) m = fmax(m, done_s[i]);
    return m;
}

double ss_xfer_predict_time_s(const ss_xfer_law *law, int chain, size_t k, double bytes)
{
    double on_stack[64], *d = k <= 64 ? on_stack : ss_xcalloc(k, sizeof *d);
    ss_xfer_predict(law, chain, k, bytes, d);
    double t = ss_xfer_time_s(chain, k, d);
    if (d != on_stack) free(d);
    return t;
}
