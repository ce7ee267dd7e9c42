/* scenario_placement.c: the `placement:` section (docs/coldstart.md): the
 * placement plugin, the storage node models come from, the rate of one
 * host-to-host model transfer, the goodput of model transfers, the time to
 * first byte each hop of a multicast chain adds, and the
 * models whose replicas cold-start (every autoscaled model, unless
 * `models:` names some).  A placed model must be autoscaled, deployed only
 * on the topology's GPUs, and have the sizes its stages need. */
#include "input/scenario_placement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/section.h"
#include "net/topo.h"

/* Is model m fit to cold-start?  Else an error at `where`. */
static int placeable(const ss_scenario *sc, uint32_t m, const ss_node *where, ss_err *err)
{
    const ss_model_cfg *mc = &sc->models[m];
    if (!sc->autoscale || !sc->autoscale->models[m])
        return ss_node_err(where, err, "placement: model '%s' is not autoscaled: only replicas the autoscaler starts "
                                       "cold-start (list it in autoscaling.models, or give it `queue: shared`)",
                           mc->name);
    if (!(mc->weights_bytes > 0))
        return ss_node_err(where, err, "placement: model '%s' has no weights_bytes: a cold start moves its data",
                           mc->name);
    if (!(mc->load_bytes_per_s > 0))
        return ss_node_err(where, err,
                           "placement: model '%s' has no load_bytes_per_s: a cold start loads its data on the host "
                           "at that rate (add it to the profile)",
                           mc->name);
    for (size_t d = 0; d < sc->ndeploys; d++) {
        const ss_deploy_cfg *dc = &sc->deploys[d];
        if (dc->model != m) continue;
        uint32_t node = ss_topo_find(sc->topo, sc->devices[dc->device].name);
        uint32_t host = node == SS_TOPO_NONE ? SS_TOPO_NONE : ss_topo_node_host(sc->topo, node);
        if (host == SS_TOPO_NONE || ss_topo_node_kind_of(sc->topo, node) != SS_TN_GPU)
            return ss_err_at(err, sc->path, dc->line, dc->col,
                             "placement: model '%s' is deployed on '%s', which is not a GPU of the topology's hosts",
                             mc->name, sc->devices[dc->device].name);
        if (ss_topo_host_ram(sc->topo, host) == SS_TOPO_NONE)
            return ss_err_at(err, sc->path, dc->line, dc->col,
                             "placement: host '%s' has no RAM node (its host type gives no `ram:`): a cold start "
                             "loads the model there",
                             ss_topo_node_name(sc->topo, ss_topo_host(sc->topo, host)));
        if (dc->startup_s > 0)
            return ss_err_at(err, sc->path, dc->line, dc->col,
                             "startup_s: model '%s' cold-starts through `placement:` (download, load, send): its "
                             "start-up time comes from those stages; remove startup_s",
                             mc->name);
    }
    return 0;
}

static int read_models(ss_scenario *sc, ss_placement_cfg *p, const ss_node *sec, ss_err *err)
{
    p->models = ss_xcalloc(sc->nmodels + 1, 1);
    int given = ss_sc_read_model_list(sc, sec, p->models, placeable, err);
    if (given) return given < 0 ? -1 : 0;
    if (!sc->autoscale)
        return ss_node_err(sec, err, "placement: nothing to place: no `autoscaling:` section starts replicas");
    for (uint32_t m = 0; m < sc->nmodels; m++)
        if (sc->autoscale->models[m]) {
            TRY(placeable(sc, m, sec, err));
            p->models[m] = 1;
        }
    return 0;
}

static int read_storage(const ss_scenario *sc, ss_placement_cfg *p, const ss_node *sec, ss_err *err)
{
    const ss_node *st = ss_map_find(sec, "storage");
    if (!st) { /* the topology's only storage node */
        uint32_t found = SS_TOPO_NONE;
        for (uint32_t v = 0; v < ss_topo_nnodes(sc->topo); v++)
            if (ss_topo_node_kind_of(sc->topo, v) == SS_TN_STORAGE) {
                if (found != SS_TOPO_NONE)
                    return ss_node_err(sec, err, "placement: the topology has several storage nodes: say which one "
                                                 "models come from (storage: NAME)");
                found = v;
            }
        if (found == SS_TOPO_NONE)
            return ss_node_err(sec, err, "placement: the topology has no storage node to download models from "
                                         "(add one under `storage:` in the topology)");
        p->storage = found;
        return 0;
    }
    TRY(ss_topo_resolve(sc->topo, st, "storage node", &p->storage, err));
    if (ss_topo_node_kind_of(sc->topo, p->storage) != SS_TN_STORAGE)
        return ss_node_err(st, err, "storage: '%s' is a %s, not a storage node of the topology", st->value,
                           ss_topo_node_kind_name(ss_topo_node_kind_of(sc->topo, p->storage)));
    return 0;
}

static int read_section(ss_scenario *sc, ss_placement_cfg *p, const ss_node *sec, ss_err *err)
{
    static const char *const keys[] = {"policy",          "storage",    "peer_mbps",          "goodput",
                                       "chain_ttfb_s",    "chain_lag_bytes", "relay_mbps", "connection_setup_s",
                                       "models",          NULL};
    TRY(ss_cfg_check_keys(sec, keys, "placement", err));
    if (!sc->topo)
        return ss_node_err(sec, err, "placement: cold starts move models over a topology: give `topology:`");
    if (!ss_map_find(sec, "policy"))
        return ss_node_err(sec, err, "placement: missing key 'policy' (a placement plugin: cloud, atoll, gpu-faas, "
                                     "flashpoint-lc)");
    int rc = ss_policy_cfg_read(&p->policy, sec, "policy", "", err);
    p->policy.file = ss_xstrdup(p->policy.file ? p->policy.file : sec->file); /* the document goes away */
    TRY(rc);
    TRY(read_storage(sc, p, sec, err));
    double peer_mbps = 0;
    TRY(ss_cfg_num(sec, "peer_mbps", &peer_mbps, SS_POS, err));
    if (peer_mbps > 1e9)
        return ss_node_err(ss_map_find(sec, "peer_mbps"), err, "peer_mbps: expected at most 1e9, got %g", peer_mbps);
    p->peer_cap_bps = peer_mbps * 1e6;
    p->goodput = 1;
    TRY(ss_cfg_num(sec, "goodput", &p->goodput, SS_POS, err));
    if (p->goodput > 1 || p->goodput < 1e-3) /* a thousandth: past any protocol's overhead */
        return ss_node_err(ss_map_find(sec, "goodput"), err, "goodput: expected a share from 0.001 to 1, got %g",
                           p->goodput);
    TRY(ss_cfg_num(sec, "chain_ttfb_s", &p->chain_ttfb_s, SS_NONNEG, err));
    if (p->chain_ttfb_s > 1e6)
        return ss_node_err(ss_map_find(sec, "chain_ttfb_s"), err, "chain_ttfb_s: expected at most 1e6 s, got %g",
                           p->chain_ttfb_s);
    TRY(ss_cfg_num(sec, "chain_lag_bytes", &p->chain_lag_bytes, SS_NONNEG, err));
    double relay_mbps = 0;
    TRY(ss_cfg_num(sec, "relay_mbps", &relay_mbps, SS_POS, err));
    if (relay_mbps > 1e9)
        return ss_node_err(ss_map_find(sec, "relay_mbps"), err, "relay_mbps: expected at most 1e9, got %g", relay_mbps);
    p->relay_cap_bps = relay_mbps * 1e6;
    TRY(ss_cfg_num(sec, "connection_setup_s", &p->conn_setup_s, SS_NONNEG, err));
    if (p->conn_setup_s > 1e4)
        return ss_node_err(ss_map_find(sec, "connection_setup_s"), err,
                           "connection_setup_s: expected at most 1e4 s, got %g", p->conn_setup_s);
    return read_models(sc, p, sec, err);
}

int ss_sc_read_placement(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    ss_node *sec = NULL;
    TRY(ss_cfg_map(root, "placement", &sec, 0, err));
    if (!sec) return 0;
    sc->placement = ss_xcalloc(1, sizeof *sc->placement);
    return read_section(sc, sc->placement, sec, err);
}

void ss_placement_cfg_free(ss_placement_cfg *p)
{
    if (!p) return;
    ss_policy_cfg_free(&p->policy);
    free(p->models);
    free(p);
}
