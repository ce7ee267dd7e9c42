/* calibrate_base.c: `servesim calibrate --base FILE` (docs/profiles.md): a
 * shipped profile's own format with the fitted numbers put in where the base
 * says (null, or {"typed": N, "tolerance_rel": R} checked against the fit),
 * each with where it came from; how tools/published-profiles.sh rebuilds the
 * profiles that come from published tables (docs/calibration.md). */
#include "calib/calib_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cfg.h"

/* x (s) rounded to `decimals` in the file unit `unit`; as it is for -1. */
static double round_dec(double x, int decimals, const char *unit)
{
    if (decimals < 0) return x;
    double scale = strcmp(unit, "ms") == 0 ? 1e-3 : strcmp(unit, "us") == 0 ? 1e-6 : 1, p = pow(10, decimals);
    return round(x / scale * p) / p * scale;
}

typedef struct based {
    calib *c;
    const ss_dist_fits *dfits;
    cJSON *values;   /* where each number put in came from */
    const ss_doc *doc; /* the base as positioned nodes, for messages */
    const ss_node *at; /* the node a message is about (set by the caller) */
} based;

/* The node of the base at key `k1`, item `i` (if k1 names a sequence), key `k2` (if not NULL). */
static const ss_node *base_node(const based *b, const char *k1, long i, const char *k2)
{
    const ss_node *n = ss_map_find(b->doc->root, k1);
    if (n && i >= 0) n = n->kind == SS_NODE_SEQ && (size_t)i < n->n ? n->items[i] : NULL;
    if (n && k2) n = n->kind == SS_NODE_MAP ? ss_map_find(n, k2) : NULL;
    return n ? n : b->doc->root;
}

static int base_err(const based *b, ss_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int base_err(const based *b, ss_err *err, const char *fmt, ...)
{
    const ss_node *n = b->at ? b->at : b->doc->root;
    va_list ap;
    va_start(ap, fmt);
    ss_err_vat(err, b->c->o->base, n->line, n->col, fmt, ap);
    va_end(ap);
    return -1;
}

/* The distribution group of block `blk` of `model` (pick_config, smallest
 * batch); -1 with a message if the profiles have none. */
static long block_dist(const based *b, const char *model, const char *blk, const char *where, ss_err *err)
{
    long law = ss_cal_pick_config(b->c, model, blk);
    if (law < 0)
        return base_err(b, err, "%s: no sample of block '%s' of %s in the profiles (--base: every number the file "
                        "takes from calibrate must be measured or transcribed)", where, blk, model);
    return (long)ss_cal_smallest_batch(b->c, (size_t)law);
}

/* "FILE sample I (line L): SOURCE" for every sample of a group, "; "-joined. */
static char *cite(const group *g)
{
    char *out = NULL;
    size_t len;
    FILE *fp = ss_xmemstream(&out, &len);
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        fprintf(fp, "%s%s sample %zu (line %d)", i ? "; " : "", g->refs[i].prof->path, g->refs[i].sample, s->line);
        if (s->source) fprintf(fp, ": %s", s->source);
    }
    fclose(fp);
    return out;
}

static void put_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key)) cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else cJSON_AddItemToObject(o, key, v);
}

static void note(based *b, const char *path, const char *text)
{
    cJSON_AddStringToObject(b->values, path, text);
}

/* The pieces `names` of `model` in series as one service: means add, variances
 * add (independent pieces), the family of the first when all share it (else
 * an error), rounded to the most decimals the summaries were written with.
 * Into *out (a distribution map) and *total_mean_s. */
static int series(based *b, const char *model, const char *const *names, size_t n, const char *where, cJSON **out,
                  double *total_mean_s, char **cites, ss_err *err)
{
    double mean = 0, var = 0;
    int decimals = 0, fam = -1, det = 1;
    const char *unit = NULL;
    FILE *fp;
    size_t len;
    fp = ss_xmemstream(cites, &len);
    for (size_t i = 0; i < n; i++) {
        long d = block_dist(b, model, names[i], where, err);
        if (d < 0) {
            fclose(fp);
            return -1;
        }
        const group *g = &b->c->dists.g[d];
        const ss_dist_fit *f = &b->dfits[d].fit[b->dfits[d].best];
        mean += f->mean;
        if (f->sd > 0) {
            var += f->sd * f->sd;
            det = 0;
            if (fam < 0) fam = (int)b->dfits[d].best;
            else if (fam != (int)b->dfits[d].best) {
                fclose(fp);
                return base_err(b, err, "%s: its blocks' families differ (%s, %s): no rule sums them", where,
                                ss_fit_family_name((ss_fit_family)fam), ss_fit_family_name(b->dfits[d].best));
            }
        }
        int dec = g->summary ? ss_cal_pooled(g).decimals : -1;
        if (dec < 0 || decimals < 0) decimals = -1;
        else if (dec > decimals) decimals = dec;
        if (!unit) unit = g->refs[0].prof->time_unit;
        else if (strcmp(unit, g->refs[0].prof->time_unit) != 0) decimals = -1;
        char *c1 = cite(g);
        fprintf(fp, "%s%s", i ? "; " : "", c1);
        free(c1);
    }
    fclose(fp);
    *total_mean_s = round_dec(mean, decimals, unit);
    cJSON *o = cJSON_CreateObject();
    if (det) {
        cJSON_AddStringToObject(o, "dist", "deterministic");
        ss_cal_put_num(o, "value_s", *total_mean_s);
    } else {
        cJSON_AddStringToObject(o, "dist", ss_fit_family_name((ss_fit_family)fam));
        ss_cal_put_num(o, "mean_s", *total_mean_s);
        if (fam == SS_FIT_GAMMA) ss_cal_put_num(o, "shape", mean * mean / var);
        else ss_cal_put_num(o, "sd_s", round_dec(sqrt(var), decimals, unit));
    }
    *out = o;
    return 0;
}

/* blocks[].KEY of the base from `model`'s blocks. */
static int fill_blocks(based *b, cJSON *blocks, const char *key, const char *model, ss_err *err)
{
    size_t i = 0;
    for (cJSON *blk = blocks->child; blk; blk = blk->next, i++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(blk, "name");
        b->at = base_node(b, "blocks", (long)i, NULL);
        if (!cJSON_IsString(nm)) return base_err(b, err, "blocks[%zu]: expected a name (a string)", i);
        char *where = ss_xasprintf("blocks[%zu].%s", i, key);
        long d = block_dist(b, model, nm->valuestring, where, err);
        if (d < 0) {
            free(where);
            return -1;
        }
        const group *g = &b->c->dists.g[d];
        put_item(blk, key, ss_cal_service_json(&b->dfits[d], g));
        char *c1 = cite(g), *text = ss_xasprintf("block '%s' of %s, %s: %s", nm->valuestring, model,
                            g->summary ? "the published summary by moments" : "the distribution calibrate chose", c1);
        note(b, where, text);
        free(text);
        free(c1);
        free(where);
    }
    return 0;
}

/* transports.T.F of the base: null -> from the laws of T's samples
 * (apply_law); {"typed": X, "tolerance_rel": R} -> X, once the law's value
 * is within R of it (a value typed by hand from the table, kept so results
 * stay the same, and checked); "as OTHER" -> OTHER's value of F once filled
 * (an assumption the base states: the same cost as another transport);
 * numbers stay. */
static int fill_transports(based *b, cJSON *ts, ss_err *err)
{
    const ss_node *tsn = ss_map_find(b->doc->root, "transports");
    for (int pass = 0; pass < 2; pass++)
        for (cJSON *t = ts->child; t; t = t->next) {
            const ss_node *tn = tsn && tsn->kind == SS_NODE_MAP ? ss_map_find(tsn, t->string) : NULL;
            for (int k = 0; k < 5; k++) {
                cJSON *v = cJSON_GetObjectItemCaseSensitive(t, ss_cal_tfield[k]);
                const ss_node *vn = tn && tn->kind == SS_NODE_MAP ? ss_map_find(tn, ss_cal_tfield[k]) : NULL;
                b->at = vn ? vn : tn;
                char *where = ss_xasprintf("transports.%s.%s", t->string, ss_cal_tfield[k]);
                int rc = 0;
                const cJSON *typed = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "typed") : NULL;
                if (pass == 0 && v && (cJSON_IsNull(v) || cJSON_IsObject(v))) {
                    const tparam *tp = NULL;
                    for (size_t i = 0; i < b->c->ntp; i++)
                        if (strcmp(b->c->tp[i].name, t->string) == 0) tp = &b->c->tp[i];
                    if (!tp || !tp->law[k]) {
                        rc = base_err(b, err, "%s: no law of the profiles gives it (a transport sample of '%s' with "
                                      "term %s)", where, t->string, k < 3 ? "block" : "hop or rtt");
                    } else if (cJSON_IsObject(v) && !cJSON_IsNumber(typed)) {
                        rc = base_err(b, err, "%s: expected {\"typed\": NUMBER, \"tolerance_rel\": NUMBER}", where);
                    } else {
                        const cJSON *tol = typed ? cJSON_GetObjectItemCaseSensitive(v, "tolerance_rel") : NULL;
                        double fit = ss_cal_round10(tp->v[k]), want = typed ? typed->valuedouble : fit;
                        double tolr = cJSON_IsNumber(tol) ? tol->valuedouble : 0;
                        if (typed && !(fabs(want - fit) <= tolr * fabs(fit))) {
                            rc = base_err(b, err, "%s: typed as %.10g, but the law '%s' gives %.10g (relative %.2g, "
                                          "tolerance_rel %g): the transcription and the typed value disagree",
                                          where, want, tp->law[k], fit, fit ? fabs(want - fit) / fabs(fit) : INFINITY,
                                          tolr);
                            free(where);
                            return -1;
                        }
                        put_item(t, ss_cal_tfield[k], cJSON_CreateNumber(want));
                        const group *g = NULL;
                        for (size_t i = 0; i < b->c->transports.n; i++)
                            if (strcmp(b->c->transports.g[i].key, tp->law[k]) == 0) g = &b->c->transports.g[i];
                        char *chk = typed ? ss_xasprintf("kept as typed (%.10g): the law gives %.10g, within "
                                                         "tolerance_rel %g; ", want, fit, tolr)
                                          : ss_xstrdup("");
                        char *c1 = cite(g), *text = ss_xasprintf("%s%s of the law '%s' (latency_s = fixed_s + "
                                                                 "s_per_byte x bytes through %s): %s",
                                                                 chk, tp->how[k], tp->law[k],
                                                                 g->summary ? "the published means" : "the samples",
                                                                 c1);
                        free(chk);
                        note(b, where, text);
                        free(text);
                        free(c1);
                    }
                } else if (pass == 1 && cJSON_IsString(v) && strncmp(v->valuestring, "as ", 3) == 0) {
                    const char *other = v->valuestring + 3;
                    cJSON *o = cJSON_GetObjectItemCaseSensitive(ts, other);
                    cJSON *ov = o ? cJSON_GetObjectItemCaseSensitive(o, ss_cal_tfield[k]) : NULL;
                    if (!cJSON_IsNumber(ov)) {
                        rc = base_err(b, err, "%s: '%s': transports.%s.%s is not a number once calibrated", where,
                                      v->valuestring, other, ss_cal_tfield[k]);
                    } else {
                        char *text = ss_xasprintf("the same as transports.%s.%s (an assumption of the base)", other,
                                                  ss_cal_tfield[k]);
                        put_item(t, ss_cal_tfield[k], cJSON_CreateNumber(ov->valuedouble));
                        note(b, where, text);
                        free(text);
                    }
                } else if (pass == 0 && v && !cJSON_IsNumber(v) && !cJSON_IsNull(v) &&
                           !(cJSON_IsString(v) && strncmp(v->valuestring, "as ", 3) == 0)) {
                    rc = base_err(b, err, "%s: expected a number (kept), null (calibrated), {\"typed\": NUMBER, "
                                  "\"tolerance_rel\": NUMBER} (checked) or \"as TRANSPORT\"", where);
                }
                free(where);
                if (rc < 0) return -1;
            }
        }
    return 0;
}

/* The mean (s) of layer `layer` of `model`: its compute time (kind 0) or its
 * load stage (kind 1); *g the group; -1 if the profiles have none. */
static int layer_mean(const based *b, const char *model, const char *layer, int load, double *mean, const group **g)
{
    const groups *gs = load ? &b->c->colds : &b->c->dists;
    for (size_t i = 0; i < gs->n; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&gs->g[i].refs[0]);
        if (s->piece_kind != SS_HWP_LAYER || strcmp(s->model, model) != 0 || strcmp(s->piece, layer) != 0) continue;
        if (load && strcmp(s->stage, "load") != 0) continue;
        *g = &gs->g[i];
        if (gs->g[i].summary) {
            *mean = ss_cal_pooled(&gs->g[i]).mean;
        } else {
            double m = 0;
            for (size_t k = 0; k < gs->g[i].n; k++) m += gs->g[i].y[k];
            *mean = m / (double)gs->g[i].n;
        }
        return 0;
    }
    return -1;
}

/* Write a layer's mean x (of group g) as o[key] (exec_s: its compute, load_s:
 * its load stage), with the note at `where` saying so ("<who> '<layer>' of
 * <model>, the mean of its ...") and citing g's samples. */
static void put_mean(based *b, cJSON *o, const char *key, double x, const group *g, const char *where, const char *who,
                     const char *layer, const char *model)
{
    put_item(o, key, cJSON_CreateNumber(ss_cal_round10(x)));
    char *c1 = cite(g);
    char *text = ss_xasprintf("%s '%s' of %s, the mean of its %s: %s", who, layer, model,
                              strcmp(key, "load_s") == 0 ? "load stage" : "compute", c1);
    note(b, where, text);
    free(text);
    free(c1);
}

/* A layer-wise profile (models/masa/NAME.json): layers[].exec_s (the layer's
 * compute) and layers[].load_s (its load stage), init.exec_s/load_s from the
 * layer init.layer names, totals.exec_s, load_s, exec_conv_part_s and
 * exec_fc_part_s as sums over layers[] (by part), rounded to the decimals
 * the summaries were written with. */
static int fill_layers(based *b, cJSON *root, cJSON *layers, const char *model, ss_err *err)
{
    static const char *const key[2] = {"exec_s", "load_s"};
    double sum[2] = {0, 0}, part[2] = {0, 0}; /* exec by part: conv, fc */
    int decimals = 0;
    const char *unit = NULL;
    size_t i = 0;
    for (cJSON *l = layers->child; l; l = l->next, i++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(l, "name");
        b->at = base_node(b, "layers", (long)i, NULL);
        if (!cJSON_IsString(nm)) return base_err(b, err, "layers[%zu]: expected a name (a string)", i);
        for (int k = 0; k < 2; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(l, key[k]);
            double x;
            if (!cJSON_IsNull(v)) {
                x = cJSON_IsNumber(v) ? v->valuedouble : 0;
            } else {
                const group *g = NULL;
                if (layer_mean(b, model, nm->valuestring, k, &x, &g) < 0)
                    return base_err(b, err, "layers[%zu].%s: no %s sample of layer '%s' of %s in the profiles", i,
                                    key[k], k ? "coldstart (stage load)" : "compute", nm->valuestring, model);
                char *where = ss_xasprintf("layers[%zu].%s", i, key[k]);
                put_mean(b, l, key[k], x, g, where, "layer", nm->valuestring, model);
                free(where);
                int dec = g->summary ? ss_cal_pooled(g).decimals : -1;
                if (dec < 0 || decimals < 0) decimals = -1;
                else if (dec > decimals) decimals = dec;
                if (!unit) unit = g->refs[0].prof->time_unit;
                else if (strcmp(unit, g->refs[0].prof->time_unit) != 0) decimals = -1;
            }
            sum[k] += x;
            const cJSON *pt = cJSON_GetObjectItemCaseSensitive(l, "part");
            if (k == 0 && cJSON_IsString(pt)) part[strcmp(pt->valuestring, "fc") == 0] += x;
        }
    }
    cJSON *init = cJSON_GetObjectItemCaseSensitive(root, "init");
    const cJSON *il = init ? cJSON_GetObjectItemCaseSensitive(init, "layer") : NULL;
    for (int k = 0; init && k < 2; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(init, key[k]);
        if (!cJSON_IsNull(v)) continue;
        b->at = base_node(b, "init", -1, key[k]);
        const group *g = NULL;
        double x;
        if (!cJSON_IsString(il)) return base_err(b, err, "init.%s: null, but init names no layer (init.layer)", key[k]);
        if (layer_mean(b, model, il->valuestring, k, &x, &g) < 0)
            return base_err(b, err, "init.%s: no %s sample of layer '%s' of %s in the profiles", key[k],
                            k ? "coldstart (stage load)" : "compute", il->valuestring, model);
        char *where = ss_xasprintf("init.%s", key[k]);
        put_mean(b, init, key[k], x, g, where, "the input layer", il->valuestring, model);
        free(where);
    }
    cJSON *tot = cJSON_GetObjectItemCaseSensitive(root, "totals");
    static const char *const tkey[4] = {"exec_s", "load_s", "exec_conv_part_s", "exec_fc_part_s"};
    const double tval[4] = {sum[0], sum[1], part[0], part[1]};
    for (int k = 0; tot && k < 4; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(tot, tkey[k]);
        if (!v || !cJSON_IsNull(v)) continue;
        put_item(tot, tkey[k], cJSON_CreateNumber(ss_cal_round10(round_dec(tval[k], decimals, unit ? unit : "s"))));
        char *where = ss_xasprintf("totals.%s", tkey[k]);
        note(b, where, k < 2 ? "the sum over layers[] (init apart), rounded to the decimals published"
                             : "the sum over layers[] of that part, rounded to the decimals published");
        free(where);
    }
    return 0;
}

/* The base with every number calibrate regenerates put in it (docs/calibration.md). */
int ss_cal_fill_base(calib *c, const ss_dist_fits *dfits, ss_hwprofile *const *profs, size_t nprofs, char **json,
                     ss_err *err)
{
    ss_doc *doc = ss_doc_load_json(c->o->base, err); /* a positioned message for bad JSON */
    if (!doc) return -1;
    if (doc->root->kind != SS_NODE_MAP) {
        ss_doc_free(doc);
        return ss_err_at(err, c->o->base, 1, 1, "--base: expected a JSON object (a model file)");
    }
    size_t tlen;
    char *text = ss_read_file(c->o->base, SS_INPUT_DOCUMENT, &tlen, err);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!root) {
        ss_doc_free(doc);
        return -1;
    }
    based b = {c, dfits, cJSON_CreateObject(), doc, NULL};
    const char *model = NULL;
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive(root, "blocks");
    cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, "transports");
    int rc = 0, want_blocks = cJSON_IsArray(blocks) || cJSON_GetObjectItemCaseSensitive(root, "service");
    if (want_blocks) {
        rc = ss_cal_pick_model(c, &model, err);
        if (rc == 0) rc = ss_err_at(err, "servesim calibrate", 0, 0, "--base: no block is measured in the profiles");
        rc = rc < 0 ? -1 : 0;
    }
    cJSON *layers = cJSON_GetObjectItemCaseSensitive(root, "layers");
    if (rc == 0 && cJSON_IsObject(ts)) rc = fill_transports(&b, ts, err);
    if (rc == 0 && !want_blocks && cJSON_IsArray(layers)) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
        const char *lm = c->o->model ? c->o->model : cJSON_IsString(nm) ? nm->valuestring : "";
        rc = fill_layers(&b, root, layers, lm, err);
    } else if (rc == 0 && !want_blocks && cJSON_IsObject(ts)) {
        /* a transport profile: nothing else to fill */
    } else if (rc == 0 && cJSON_IsArray(blocks)) {
        rc = fill_blocks(&b, blocks, "service", model, err);
        for (size_t k = 0; k < c->o->nfill && rc == 0; k++)
            rc = fill_blocks(&b, blocks, c->o->fill_keys[k], c->o->fill_models[k], err);
        /* fused processes (a service of their own) and the offline floor: the blocks in series */
        cJSON *pl = cJSON_GetObjectItemCaseSensitive(root, "pipeline");
        cJSON *procs = pl ? cJSON_GetObjectItemCaseSensitive(pl, "processes") : NULL;
        size_t j = 0;
        for (cJSON *p = procs ? procs->child : NULL; p && rc == 0; p = p->next, j++) {
            cJSON *members = cJSON_GetObjectItemCaseSensitive(p, "blocks");
            if (!cJSON_GetObjectItemCaseSensitive(p, "service") || !cJSON_IsArray(members)) continue;
            size_t n = (size_t)cJSON_GetArraySize(members), k = 0;
            const char **names = ss_xcalloc(n + 1, sizeof *names);
            for (cJSON *m = members->child; m; m = m->next) names[k++] = cJSON_IsString(m) ? m->valuestring : "";
            b.at = ss_map_find(b.doc->root, "pipeline");
            b.at = b.at && b.at->kind == SS_NODE_MAP ? ss_map_find(b.at, "processes") : NULL;
            b.at = b.at && b.at->kind == SS_NODE_SEQ && j < b.at->n ? b.at->items[j] : NULL;
            char *where = ss_xasprintf("pipeline.processes[%zu].service", j), *cites = NULL;
            cJSON *svc = NULL;
            double mean;
            rc = series(&b, model, names, n, where, &svc, &mean, &cites, err);
            if (rc == 0) {
                put_item(p, "service", svc);
                char *t = ss_xasprintf("its blocks in series (means and variances add), rounded to the decimals "
                                       "published: %s", cites);
                note(&b, where, t);
                free(t);
            }
            free(cites);
            free(where);
            free(names);
        }
        if (rc == 0 && pl && cJSON_GetObjectItemCaseSensitive(pl, "offline_floor_s")) {
            size_t n = (size_t)cJSON_GetArraySize(blocks), k = 0;
            const char **names = ss_xcalloc(n + 1, sizeof *names);
            for (cJSON *m = blocks->child; m; m = m->next)
                names[k++] = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
            cJSON *svc = NULL;
            char *cites = NULL;
            double mean;
            b.at = base_node(&b, "pipeline", -1, "offline_floor_s");
            rc = series(&b, model, names, n, "pipeline.offline_floor_s", &svc, &mean, &cites, err);
            if (rc == 0) {
                cJSON *v = cJSON_CreateNumber(ss_cal_round10(mean));
                put_item(pl, "offline_floor_s", v);
                char *t = ss_xasprintf("the sum of every block's mean: %s", cites);
                note(&b, "pipeline.offline_floor_s", t);
                free(t);
            }
            cJSON_Delete(svc);
            free(cites);
            free(names);
        }
    } else if (rc == 0 && cJSON_GetObjectItemCaseSensitive(root, "service")) {
        /* a whole-model profile: the measured blocks of the model in series */
        const char **names = ss_xcalloc(c->laws.n + 1, sizeof *names);
        size_t n = 0;
        for (size_t i = 0; i < c->laws.n; i++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&c->laws.g[i].refs[0]);
            if (ss_cal_wanted_block(c, s, model) && ss_cal_pick_config(c, model, s->piece) == (long)i) names[n++] = s->piece;
        }
        cJSON *svc = NULL;
        char *cites = NULL;
        double mean;
        b.at = base_node(&b, "service", -1, NULL);
        rc = series(&b, model, names, n, "service", &svc, &mean, &cites, err);
        if (rc == 0) {
            put_item(root, "service", svc);
            char *t = ss_xasprintf("the blocks of %s in series (means and variances add), rounded to the decimals "
                                   "published: %s", model, cites);
            note(&b, "service", t);
            free(t);
        }
        free(cites);
        free(names);
    } else if (rc == 0) {
        rc = ss_err_at(err, c->o->base, 1, 1, "--base: expected blocks (a split profile), a service (a whole model), "
                       "layers (a layer-wise profile) or transports (a transport profile) for calibrate to fill");
    }
    if (rc == 0) {
        cJSON *cal = cJSON_CreateObject();
        FILE *fp;
        char *by = NULL;
        size_t len;
        fp = ss_xmemstream(&by, &len);
        fprintf(fp, "servesim calibrate --base %s", c->o->base);
        for (size_t k = 0; k < c->o->nfill; k++) fprintf(fp, " --fill %s=%s", c->o->fill_keys[k], c->o->fill_models[k]);
        for (size_t i = 0; i < nprofs; i++) fprintf(fp, " %s", profs[i]->path);
        fclose(fp);
        cJSON_AddStringToObject(cal, "by", by);
        free(by);
        cJSON *from = cJSON_AddArrayToObject(cal, "from");
        for (size_t i = 0; i < nprofs; i++) {
            cJSON *f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "file", profs[i]->path);
            cJSON_AddStringToObject(f, "source", profs[i]->source);
            cJSON_AddItemToArray(from, f);
        }
        cJSON_AddItemToObject(cal, "values", b.values);
        b.values = NULL;
        put_item(root, "calibrate", cal);
        char *out = cJSON_Print(root);
        *json = ss_xasprintf("%s\n", out);
        cJSON_free(out);
    }
    cJSON_Delete(b.values);
    cJSON_Delete(root);
    ss_doc_free(doc);
    return rc;
}
