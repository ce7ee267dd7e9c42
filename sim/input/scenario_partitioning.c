/* scenario_partitioning.c: the `partitioning:` section (docs/partitioning.md):
 * the partitioner plugin, the models whose scale-ups it may cut (every
 * placed model, unless `models:` names some) and whether a pipeline's GPUs
 * go on to load the whole model (`completion`, default true), and the
 * per-message cost of a hand-off across a cut (`cut_overhead_s`, default
 * SS_CUT_OVERHEAD_S, measured).  A model cut
 * into parts must cold-start through `placement:` and have a per-layer
 * profile (models/<model>-layers.json beside the scenario or above it, in
 * $SERVESIM_MODEL_PATH or installed) whose bytes and execution time add
 * up to the model's. */
#include "input/scenario_partitioning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/layerprofile.h"
#include "input/section.h"

static int partitionable(const ss_scenario *sc, uint32_t m, const ss_node *where, ss_err *err)
{
    if (!sc->placement || !sc->placement->models[m])
        return ss_node_err(where, err, "partitioning: model '%s' does not cold-start through `placement:`: only "
                                       "replicas placed on a topology's GPUs are cut into parts",
                           sc->models[m].name);
    return 0;
}

/* Load model m's per-layer profile; it must add up to the model. */
static int load_layers(ss_scenario *sc, ss_partitioning_cfg *p, uint32_t m, const ss_node *where, ss_err *err)
{
    const ss_model_cfg *mc = &sc->models[m];
    char *stem = ss_xasprintf("%s-layers", mc->name);
    char *path = ss_scenario_find_profile(sc->dir, stem);
    free(stem);
    if (!path)
        return ss_node_err(where, err, "partitioning: model '%s' has no per-layer profile (models/%s-layers.json "
                                       "beside the scenario or above it, in $SERVESIM_MODEL_PATH or installed; "
                                       "tools/flashpoint_layers.py writes them)",
                           mc->name, mc->name);
    ss_layer_profile *lp = ss_xcalloc(1, sizeof *lp);
    p->layers[m] = lp;
    int rc = ss_layer_profile_load(path, lp, err);
    if (rc == 0 && lp->nlayers < 2)
        rc = ss_err_at(err, path, 1, 1, "partitioning: model '%s' has %u layer: nothing to cut", mc->name,
                       lp->nlayers);
    double exec_s = ss_dist_mean(&mc->service);
    if (rc == 0 && fabs(lp->weights_bytes - mc->weights_bytes) > 1e-6 * mc->weights_bytes + 1)
        rc = ss_err_at(err, path, 1, 1, "partitioning: the layers of '%s' hold %.0f bytes, its profile %.0f: they "
                                        "must add up to the model",
                       mc->name, lp->weights_bytes, mc->weights_bytes);
    if (rc == 0 && fabs(lp->exec_s - exec_s) > 1e-6 * exec_s + 1e-12)
        rc = ss_err_at(err, path, 1, 1, "partitioning: the layers of '%s' take %.9g s, its service %.9g s on "
                                        "average: they must add up to the model",
                       mc->name, lp->exec_s, exec_s);
    free(path);
    return rc;
}

static int read_section(ss_scenario *sc, ss_partitioning_cfg *p, const ss_node *sec, ss_err *err)
{
    static const char *const keys[] = {"policy", "models", "completion", "cut_overhead_s", NULL};
    TRY(ss_cfg_check_keys(sec, keys, "partitioning", err));
    if (!sc->placement)
        return ss_node_err(sec, err, "partitioning: parts cold-start on a topology's GPUs: give `placement:`");
    if (sc->nevents)
        return ss_node_err(sec, err, "partitioning: scripted `events:` name replicas, and a partitioned replica is "
                                     "several: use one or the other");
    if (!ss_map_find(sec, "policy"))
        return ss_node_err(sec, err, "partitioning: missing key 'policy' (a partitioner plugin: flashpoint-mp, gillis, "
                                     "serfer)");
    int rc = ss_policy_cfg_read(&p->policy, sec, "policy", "", err);
    p->policy.file = ss_xstrdup(p->policy.file ? p->policy.file : sec->file); /* the document goes away */
    TRY(rc);
    p->completion = 1;
    TRY(ss_cfg_bool(sec, "completion", &p->completion, 0, err));
    p->cut_overhead_s = SS_CUT_OVERHEAD_S;
    TRY(ss_cfg_num(sec, "cut_overhead_s", &p->cut_overhead_s, SS_NONNEG, err));
    if (p->cut_overhead_s > 1e6)
        return ss_node_err(ss_map_find(sec, "cut_overhead_s"), err, "cut_overhead_s: expected at most 1e6 s, got %g",
                           p->cut_overhead_s);
    p->models = ss_xcalloc(sc->nmodels + 1, 1);
    p->layers = ss_xcalloc(sc->nmodels + 1, sizeof *p->layers);
    int given = ss_sc_read_model_list(sc, sec, p->models, partitionable, err);
    TRY(given);
    if (!given)
        for (uint32_t m = 0; m < sc->nmodels; m++) p->models[m] = sc->placement->models[m];
    const ss_node *where = ss_map_find(sec, "models");
    for (uint32_t m = 0; m < sc->nmodels; m++)
        if (p->models[m]) TRY(load_layers(sc, p, m, where ? where : sec, err));
    return 0;
}

int ss_sc_read_partitioning(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    ss_node *sec = NULL;
    TRY(ss_cfg_map(root, "partitioning", &sec, 0, err));
    if (!sec) return 0;
    sc->partitioning = ss_xcalloc(1, sizeof *sc->partitioning);
    return read_section(sc, sc->partitioning, sec, err);
}

void ss_partitioning_cfg_free(ss_partitioning_cfg *p, size_t nmodels)
{
    if (!p) return;
    ss_policy_cfg_free(&p->policy);
    for (size_t m = 0; p->layers && m < nmodels; m++)
        if (p->layers[m]) {
            ss_layer_profile_free(p->layers[m]);
            free(p->layers[m]);
        }
    free(p->layers);
    free(p->models);
    free(p);
}
