/* topo_linkspec.c: a link's specification as the topology schema writes it
 * (docs/topologies.md): a bandwidth in one of three units, or an up and a
 * down bandwidth, and a latency; read for explicit links and the
 * generator's (topo_read.c) and for a host type's inner links (topo_host.c). */
#include "net/topo_internal.h"

#include <stdio.h>

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

const char *const ss_linkspec_keys[] = {"bandwidth_gbps",    "bandwidth_mbps",    "bandwidth_bps",
                                        "up_bandwidth_gbps", "up_bandwidth_mbps", "up_bandwidth_bps",
                                        "down_bandwidth_gbps", "down_bandwidth_mbps", "down_bandwidth_bps",
                                        "latency_s",         NULL};

/* One rate given in one of three units: <prefix>_gbps, _mbps or _bps.
 * 1 read, 0 absent, -1 error. */
int ss_topo_read_rate(const ss_node *map, const char *prefix, double *bps, ss_err *err)
{
    static const char *const units[] = {"gbps", "mbps", "bps"};
    static const double scale[] = {1e9, 1e6, 1.0};
    int found = -1;
    for (int u = 0; u < 3; u++) {
        char key[64];
        snprintf(key, sizeof key, "%s_%s", prefix, units[u]);
        ss_node *n = ss_map_find(map, key);
        if (!n || (n->kind == SS_NODE_SCALAR && n->is_null)) continue;
        if (found >= 0)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "%s: give one of %s_gbps, %s_mbps or %s_bps, not several", key, prefix, prefix, prefix);
        double v;
        TRY(ss_cfg_num(map, key, &v, SS_POS, err));
        *bps = v * scale[u];
        found = u;
    }
    return found >= 0;
}

int ss_linkspec_read(const ss_node *map, const char *what, ss_linkspec *out, ss_err *err)
{
    double both = 0, up = 0, down = 0;
    int has_both, has_up, has_down;
    TRY(has_both = ss_topo_read_rate(map, "bandwidth", &both, err));
    TRY(has_up = ss_topo_read_rate(map, "up_bandwidth", &up, err));
    TRY(has_down = ss_topo_read_rate(map, "down_bandwidth", &down, err));
    if ((!has_both && !has_up) || (!has_both && !has_down))
        return ss_node_err(map, err,
                           "%s: missing bandwidth: give bandwidth_gbps, bandwidth_mbps or bandwidth_bps "
                           "(or both up_bandwidth_* and down_bandwidth_*)",
                           what);
    out->up_bps = has_up ? up : both;
    out->down_bps = has_down ? down : both;
    out->latency_s = 0;
    TRY(ss_cfg_num(map, "latency_s", &out->latency_s, SS_NONNEG, err));
    return 0;
}

int ss_linkspec_key(const ss_node *parent, const char *key, ss_linkspec *out, int flags, ss_err *err)
{
    ss_node *m = NULL;
    int r;
    TRY(r = ss_cfg_map(parent, key, &m, flags, err));
    if (r == 0) return 0;
    TRY(ss_cfg_check_keys(m, ss_linkspec_keys, key, err));
    TRY(ss_linkspec_read(m, key, out, err));
    return 1;
}
