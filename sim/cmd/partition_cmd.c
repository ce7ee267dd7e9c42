/* partition_cmd.c: `servesim partition MODEL [options]`: load a per-layer
 * profile (models/<MODEL>-layers.json, or a path), a partitioner plugin
 * with its parameters (--set), and print the plan it picks for every
 * (GPUs added, requests waiting) asked, with C, E, N, IN and the mean
 * end-to-end time of servesim/partition.h, beside the whole model's.
 *
 * A part's cold start is the slowest source's path, as FP §2.5 plans for:
 * download from storage at --storage-mbps (one connection's rate), load on
 * the host at the model profile's load_bytes_per_s, send over PCIe at
 * --pcie-gbps; a cut's transfer is its tensor at --net-gbps plus
 * --net-latency-s.  Defaults are the Flashpoint data centre's (seed
 * flashpoint.md §3.2-3.4; topologies/flashpoint-dc.yaml). */
#include "cmd/partition_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <servesim/partition.h>

#include "core/afile.h"
#include "core/cfg.h"
#include "input/layerprofile.h"
#include "input/section.h"
#include "serve/plugin.h"

static const char usage[] =
    "usage: servesim partition MODEL [options]\n"
    "\n"
    "  MODEL                  a model with a per-layer profile (models/MODEL-layers.json), or its path\n"
    "  --partitioner NAME     flashpoint-mp (default), gillis, serfer, or a plugin of that kind\n"
    "  --set KEY=VALUE        a parameter of the partitioner (repeatable)\n"
    "  --gpus LIST            GPUs added by the scale-up, comma-separated (default 1,2,4,8,16,32,64)\n"
    "  --x LIST               requests expected to wait (FP eq. 4.14) (default 1,10,100,1000,3000)\n"
    "  --storage-mbps R       one download connection from storage (default 2203)\n"
    "  --load-mbps R          loading on the host, MB/s (default: the model profile's load_bytes_per_s)\n"
    "  --pcie-gbps R          host to GPU (default 75.68)\n"
    "  --net-gbps R           a tensor between two parts' GPUs (default 50)\n"
    "  --net-latency-s S      added to every cut's transfer (default 0)\n"
    "  -o, --output PATH      also write the rows as CSV\n"
    "  --quiet                do not print the table\n"
    "\n"
    "Each row: the plan (parts, the layers after which it cuts), its C (longest cold start of\n"
    "a part), E (longest execution of a part), N (longest transfer), IN (all transfers) and\n"
    "T, the mean end-to-end time of the waiting requests (FP eq. 4.8), against T of the whole\n"
    "model.  See docs/partitioning.md.  Exit 0, 1 if the CSV cannot be written, 2 on bad input.\n";

/* A comma-separated list of numbers >= 1; 0 ok, else a usage error. */
static int read_list(const char *what, const char *text, double **out, size_t *n, int whole)
{
    *n = 0;
    free(*out);
    *out = NULL;
    const char *p = text;
    while (*p) {
        char *end;
        double v = ss_strtod(p, &end);
        if (end == p || (*end && *end != ',') || !(v >= 1) || v > 1e7 || (whole && v != floor(v))) {
            free(*out);
            *out = NULL;
            return ss_bad_usage("partition", whole ? "%s: expected whole numbers >= 1 separated by commas"
                                                   : "%s: expected numbers >= 1 separated by commas",
                                what);
        }
        *out = ss_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = v;
        p = *end ? end + 1 : end;
    }
    if (*n == 0) return ss_bad_usage("partition", "%s: expected at least one number", what);
    return 0;
}

/* A number >= 0 (> 0 unless allow_zero) within the physical range of the
 * option's unit (--storage-mbps: Mbit/s, --net-latency-s: s; core/cfg.h
 * ss_key_range_of, docs/limits.md). */
static int read_pos(const char *what, const char *text, double *out, int allow_zero)
{
    char *end, key[64];
    double v = ss_strtod(text, &end);
    snprintf(key, sizeof key, "%s", what + 2); /* --net-latency-s -> net_latency_s */
    for (char *k = key; *k; k++) *k = *k == '-' ? '_' : *k;
    const ss_key_range *r = ss_key_range_of(key);
    if (end == text || *end || !isfinite(v) || v < 0 || (!allow_zero && v == 0) || !ss_key_range_holds(r, v, r->lo)) {
        char msg[160];
        snprintf(msg, sizeof msg, "%%s: expected %s%g to %g%s%s, got '%s'", allow_zero ? "0 or " : "", r->lo, r->hi,
                 *r->unit ? " " : "", r->unit, text);
        return ss_bad_usage("partition", msg, what);
    }
    *out = v;
    return 0;
}

/* The model profile's load rate, if it has one (0 if not). */
static double profile_load_rate(const char *model)
{
    char *path = ss_scenario_find_profile(".", model);
    if (!path) return 0;
    ss_err err = {0};
    ss_doc *doc = ss_doc_load(path, &err);
    free(path);
    double v = 0;
    if (doc && doc->root && doc->root->kind == SS_NODE_MAP) ss_cfg_num(doc->root, "load_bytes_per_s", &v, SS_POS, &err);
    ss_doc_free(doc);
    return v;
}

typedef struct row {
    double gpus, x;
    uint32_t parts;
    char *cuts;
    ss_part_cost cost;
    double t_s, whole_s;
} row;

int ss_cmd_partition(int argc, char **argv)
{
    ss_cli c = {0};
    const char *partitioner = "flashpoint-mp";
    double *gpus = NULL, *xs = NULL, storage_mbps = 2203, load_mbps = 0, pcie_gbps = 75.68, net_gbps = 50,
           net_lat_s = 0;
    size_t ngpus = 0, nx = 0;
    int rc = read_list("--gpus", "1,2,4,8,16,32,64", &gpus, &ngpus, 1);
    rc |= read_list("--x", "1,10,100,1000,3000", &xs, &nx, 1);
    for (int i = 0; i < argc && rc == 0; i++) {
        int t = ss_cli_take(&c, "partition", argc, argv, &i);
        if (t == 1) continue;
        if (t) {
            rc = t;
            break;
        }
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            free(gpus);
            free(xs);
            ss_cli_free(&c);
            return 0;
        }
        static const char *const valued[] = {"--partitioner", "--gpus", "--x", "--storage-mbps", "--load-mbps",
                                             "--pcie-gbps", "--net-gbps", "--net-latency-s", NULL};
        int k = 0;
        while (valued[k] && strcmp(a, valued[k]) != 0) k++;
        if (!valued[k]) {
            rc = ss_bad_usage("partition", "unknown option '%s'", a);
            break;
        }
        if (i + 1 >= argc) {
            rc = ss_bad_usage("partition", "%s needs a value", a);
            break;
        }
        const char *v = argv[++i];
        switch (k) {
        case 0: partitioner = v; break;
        case 1: rc = read_list(a, v, &gpus, &ngpus, 1); break;
        case 2: rc = read_list(a, v, &xs, &nx, 1); break;
        case 3: rc = read_pos(a, v, &storage_mbps, 0); break;
        case 4: rc = read_pos(a, v, &load_mbps, 0); break;
        case 5: rc = read_pos(a, v, &pcie_gbps, 0); break;
        case 6: rc = read_pos(a, v, &net_gbps, 0); break;
        default: rc = read_pos(a, v, &net_lat_s, 1); break;
        }
    }
    if (rc == 0 && !c.path) rc = ss_bad_usage("partition", "%s", "missing MODEL");
    ss_layer_profile lp = {0};
    ss_plugin pl = {0};
    void *state = NULL;
    ss_param *kv = NULL;
    row *rows = NULL;
    size_t nrows = 0;
    ss_err err = {0};
    if (rc) goto done;
    /* the profile: a path, or MODEL-layers.json where model profiles are found */
    char *path = strchr(c.path, '/') || strstr(c.path, ".json") ? ss_xstrdup(c.path) : NULL;
    if (!path) {
        char *stem = ss_xasprintf("%s-layers", c.path);
        path = ss_scenario_find_profile(".", stem);
        free(stem);
        if (!path) {
            fprintf(stderr, "servesim partition: no per-layer profile for model '%s' (models/%s-layers.json here, "
                            "above, in $SERVESIM_MODEL_PATH or installed)\n", c.path, c.path);
            rc = 2;
            goto done;
        }
    }
    if (ss_layer_profile_load(path, &lp, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        free(path);
        rc = 2;
        goto done;
    }
    free(path);
    if (load_mbps == 0) {
        double rate = profile_load_rate(lp.model);
        if (!(rate > 0)) {
            fprintf(stderr, "servesim partition: model '%s' has no profile with load_bytes_per_s; give --load-mbps\n",
                    lp.model);
            rc = 2;
            goto done;
        }
        load_mbps = rate / 1e6;
    }
    /* the partitioner and its parameters */
    if (ss_plugin_load(&pl, partitioner, SS_KIND_PARTITIONER, NULL, "--partitioner", 0, 0, &err) < 0) {
        fprintf(stderr, "servesim partition: %s\n", err.msg);
        rc = 2;
        goto done;
    }
    kv = ss_xcalloc(c.nsets + 1, sizeof *kv);
    for (size_t i = 0; i < c.nsets; i++) {
        char *eq = strchr(c.sets[i], '=');
        const char *const *ok = pl.pol->params;
        size_t klen = eq ? (size_t)(eq - c.sets[i]) : 0;
        while (ok && *ok && !(strlen(*ok) == klen && strncmp(*ok, c.sets[i], klen) == 0)) ok++;
        if (!eq || !ok || !*ok) {
            fprintf(stderr, "servesim partition: --set %s: partitioner '%s' takes %s\n", c.sets[i], partitioner,
                    pl.pol->params && pl.pol->params[0] ? "KEY=VALUE with KEY one of its parameters (servesim plugins)"
                                                        : "no parameters");
            rc = 2;
            goto done;
        }
        *eq = '\0';
        kv[i] = (ss_param){c.sets[i], eq + 1};
    }
    ss_params params = {kv, c.nsets};
    ss_policy_init init = {.params = &params, .ngroups = 1};
    char msg[512] = "";
    if (pl.pol->init && pl.pol->init(&state, &init, msg, sizeof msg) < 0) {
        fprintf(stderr, "servesim partition: partitioner '%s': %s\n", partitioner, msg);
        rc = 2;
        goto done;
    }
    /* the plans */
    ss_part_model m = {.model = 0, .layers = lp.layers, .nlayers = lp.nlayers,
                       .cold_s_per_byte = 8 / (storage_mbps * 1e6) + 1 / (load_mbps * 1e6) + 8 / (pcie_gbps * 1e9),
                       .net_s_per_byte = 8 / (net_gbps * 1e9), .net_fixed_s = net_lat_s};
    uint32_t *cuts = ss_xcalloc(lp.nlayers + 1, sizeof *cuts);
    ss_part_cost whole;
    ss_part_cost_of(&m, NULL, 0, &whole);
    rows = ss_xcalloc(ngpus * nx, sizeof *rows);
    for (size_t g = 0; g < ngpus; g++)
        for (size_t k = 0; k < nx; k++) {
            row *r = &rows[nrows++];
            r->gpus = gpus[g];
            r->x = xs[k];
            uint32_t ng = gpus[g] > 4e9 ? 4000000000u : (uint32_t)gpus[g];
            r->parts = pl.pol->ops.partitioner.plan(state, &m, xs[k], ng, cuts);
            if (!ss_part_plan_ok(&m, cuts, r->parts, ng)) {
                fprintf(stderr, "servesim partition: partitioner '%s' answered %u parts for %u GPUs and %u layers, "
                                "or cuts out of order or range\n",
                        partitioner, r->parts, ng, lp.nlayers);
                rc = 2;
                free(cuts);
                goto done;
            }
            r->cuts = ss_xstrdup(r->parts == 1 ? "-" : "");
            for (uint32_t j = 0; j + 1 < r->parts; j++) {
                char *s = ss_xasprintf("%s%s%s", r->cuts, j ? "|" : "", lp.layer_names[cuts[j]]);
                free(r->cuts);
                r->cuts = s;
            }
            ss_part_cost_of(&m, cuts, r->parts - 1, &r->cost);
            r->t_s = ss_part_mean_s(&r->cost, xs[k], ng, 1);
            r->whole_s = ss_part_mean_s(&whole, xs[k], ng, 1);
        }
    free(cuts);
    if (c.output) {
        ss_afile f;
        if (ss_afile_open(&f, c.output, &err) < 0) {
            rc = 2; /* the path named: bad input (afile.h) */
        } else {
            fputs("model,partitioner,gpus,x,parts,cuts_after,c_s,e_s,n_s,in_s,t_s,whole_t_s\n", f.fp);
            for (size_t i = 0; i < nrows; i++) {
                const row *r = &rows[i];
                fprintf(f.fp, "%s,%s,%.0f,%.0f,%u,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", lp.model, partitioner, r->gpus,
                        r->x, r->parts, r->cuts, r->cost.c_s, r->cost.e_s, r->cost.n_s, r->cost.in_s, r->t_s,
                        r->whole_s);
            }
            if (ss_afile_commit(&f, &err) < 0) rc = 1;
        }
        if (rc) fprintf(stderr, "%s\n", err.msg);
    }
    if (!c.quiet && rc == 0) {
        printf("%s (%u layers, %.0f MB, %.2f ms) by %s; cold start %.3f s per GB (storage %g Mbit/s, load %g MB/s, "
               "PCIe %g Gbit/s), cuts at %g Gbit/s + %g s\n",
               lp.model, lp.nlayers, lp.weights_bytes / 1e6, lp.exec_s * 1e3, partitioner, m.cold_s_per_byte * 1e9,
               storage_mbps, load_mbps, pcie_gbps, net_gbps, net_lat_s);
        printf("%6s %6s %5s %9s %9s %9s %9s %10s %10s  %s\n", "gpus", "x", "parts", "C_s", "E_ms", "N_ms", "IN_ms",
               "T_s", "whole_T_s", "cuts after");
        for (size_t i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            printf("%6.0f %6.0f %5u %9.3f %9.3f %9.3f %9.3f %10.3f %10.3f  %s\n", r->gpus, r->x, r->parts, r->cost.c_s,
                   r->cost.e_s * 1e3, r->cost.n_s * 1e3, r->cost.in_s * 1e3, r->t_s, r->whole_s, r->cuts);
        }
    }
done:
    for (size_t i = 0; i < nrows; i++) free(rows[i].cuts);
    free(rows);
    if (state && pl.pol && pl.pol->fini) pl.pol->fini(state);
    if (pl.handle) ss_plugin_unload(&pl);
    free(kv);
    ss_layer_profile_free(&lp);
    free(gpus);
    free(xs);
    ss_cli_free(&c);
    return rc;
}
