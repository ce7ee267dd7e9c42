/* validate_speed.c: a model file's per-run host speed (validate_speed.h).
 *
 * On a shared VM the host's speed drifts within a measurement (on
 * 2026-11-27 by 12% between the first transport's runs and the second's:
 * docs/calibration.md, "The host's speed").  calibrate estimates each run's
 * speed from the speed checks around it and writes it as a time factor
 * relative to the speed the model was fitted at (host_speed.runs); validate
 * simulates each run with its host's CPU work scaled by it
 * (pipeline.host_time_factor), as a measured condition of the run like its
 * background_cores. */
#include "calib/validate_speed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) goto fail; \
    } while (0)

int ss_val_speed_read(const ss_node *model, ss_val_speed *out, ss_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = ss_node_readable(model, "host_speed.model", err);
    if (!path) return -1;
    ss_doc *doc = ss_doc_load(path, err);
    out->path = path;
    if (!doc) return -1;
    ss_node *hs = NULL, *runs = NULL;
    if (doc->root->kind != SS_NODE_MAP) {
        ss_node_err(doc->root, err, "expected a model file (a map, servesim calibrate's output)");
        goto fail;
    }
    TRY(ss_cfg_map(doc->root, "host_speed", &hs, 0, err));
    if (hs) TRY(ss_cfg_seq(hs, "runs", &runs, 0, err));
    if (!runs) {
        ss_node_err(hs ? hs : doc->root, err,
                    "%s: no per-run host speed (host_speed.runs): calibrate from speed checks that name their runs "
                    "(`run` and `at`, docs/profiles.md)",
                    hs ? "host_speed" : "model file");
        goto fail;
    }
    out->run = ss_xcalloc(runs->n + 1, sizeof *out->run);
    out->time_factor = ss_xcalloc(runs->n + 1, sizeof *out->time_factor);
    for (size_t i = 0; i < runs->n; i++) {
        const ss_node *e = runs->items[i];
        const char *id = NULL;
        double f = 0;
        TRY(ss_node_expect(e, SS_NODE_MAP, "host_speed.runs entry", err));
        TRY(ss_cfg_str(e, "run", &id, SS_REQ, err));
        if (!id[0]) {
            ss_node_err(ss_map_find(e, "run"), err, "run: expected a run's id, got an empty string");
            goto fail;
        }
        TRY(ss_cfg_num(e, "time_factor", &f, SS_REQ | SS_POS, err));
        if (!isnan(ss_val_speed_of(out, id))) {
            ss_node_err(ss_map_find(e, "run"), err, "run '%s': listed twice", id);
            goto fail;
        }
        out->run[out->n] = ss_xstrdup(id);
        out->time_factor[out->n++] = f;
    }
    ss_doc_free(doc);
    return 0;
fail:
    ss_doc_free(doc);
    return -1;
}

double ss_val_speed_of(const ss_val_speed *s, const char *id)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->run[i], id) == 0) return s->time_factor[i];
    return NAN;
}

void ss_val_speed_free(ss_val_speed *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->run[i]);
    free(s->run);
    free(s->time_factor);
    free(s->path);
    memset(s, 0, sizeof *s);
}
