/* layerprofile.c: read a per-layer profile (layerprofile.h). */
#include "input/layerprofile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cfg.h"

#define TRY(x)                   \
    do {                         \
        if ((x) < 0) return -1;  \
    } while (0)

static const char *const top_keys[] = {"name", "model", "description", "source", "sources", "assumptions",
                                       "sequence_tokens", "dtype_bytes", "layers", NULL};
static const char *const layer_keys[] = {"name", "params", "weights_bytes", "output_bytes", "gflop", "exec_s", NULL};

static int load(const ss_doc *doc, ss_layer_profile *lp, ss_err *err)
{
    const ss_node *root = doc->root;
    TRY(ss_node_expect(root, SS_NODE_MAP, "layer profile", err));
    TRY(ss_cfg_check_keys(root, top_keys, "layer profile", err));
    const char *name, *model;
    TRY(ss_cfg_name(root, "name", &name, SS_REQ, err));
    TRY(ss_cfg_str(root, "model", &model, SS_REQ, err));
    lp->name = ss_xstrdup(name);
    lp->model = ss_xstrdup(model);
    ss_node *layers;
    TRY(ss_cfg_seq(root, "layers", &layers, SS_REQ, err));
    if (layers->n == 0) return ss_node_err(layers, err, "layers: a model needs at least one layer");
    if (layers->n > 100000) return ss_node_err(layers, err, "layers: at most 100000 layers");
    lp->nlayers = (uint32_t)layers->n;
    lp->layers = ss_xcalloc(layers->n, sizeof *lp->layers);
    lp->layer_names = ss_xcalloc(layers->n, sizeof *lp->layer_names);
    for (size_t i = 0; i < layers->n; i++) {
        const ss_node *l = layers->items[i];
        TRY(ss_node_expect(l, SS_NODE_MAP, "layer", err));
        TRY(ss_cfg_check_keys(l, layer_keys, "layer", err));
        const char *ln;
        double params = 0, gflop = 0;
        TRY(ss_cfg_str(l, "name", &ln, SS_REQ, err));
        lp->layer_names[i] = ss_xstrdup(ln);
        TRY(ss_cfg_num(l, "params", &params, SS_NONNEG | SS_INT, err));
        TRY(ss_cfg_num(l, "weights_bytes", &lp->layers[i].weights_bytes, SS_REQ | SS_NONNEG, err));
        TRY(ss_cfg_num(l, "output_bytes", &lp->layers[i].output_bytes, SS_REQ | SS_NONNEG, err));
        TRY(ss_cfg_num(l, "gflop", &gflop, SS_NONNEG, err));
        TRY(ss_cfg_num(l, "exec_s", &lp->layers[i].exec_s, SS_REQ | SS_NONNEG, err));
        lp->weights_bytes += lp->layers[i].weights_bytes;
        lp->exec_s += lp->layers[i].exec_s;
        if (!isfinite(lp->weights_bytes) || !isfinite(lp->exec_s))
            return ss_node_err(ss_map_find(l, isfinite(lp->weights_bytes) ? "exec_s" : "weights_bytes"), err,
                               "%s: the layers' total up to here is too large for a number",
                               isfinite(lp->weights_bytes) ? "exec_s" : "weights_bytes");
    }
    return 0;
}

int ss_layer_profile_load(const char *path, ss_layer_profile *lp, ss_err *err)
{
    memset(lp, 0, sizeof *lp);
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return -1;
    int rc = load(doc, lp, err);
    ss_doc_free(doc);
    if (rc < 0) ss_layer_profile_free(lp);
    return rc;
}

void ss_layer_profile_free(ss_layer_profile *lp)
{
    if (!lp) return;
    for (uint32_t i = 0; i < lp->nlayers; i++)
        if (lp->layer_names) free(lp->layer_names[i]);
    free(lp->layer_names);
    free(lp->layers);
    free(lp->name);
    free(lp->model);
    memset(lp, 0, sizeof *lp);
}
