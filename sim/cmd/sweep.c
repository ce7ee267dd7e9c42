/* sweep.c: reading a sweep file, expanding it into units (point, variant,
 * replication) and running one unit into CSV rows (see sweep.h).  How the
 * units are spread over processes lives in sweep_local.c and sweep_mpi.c;
 * how finished units reach the results file lives in sweep_sink.c. */
#include "cmd/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "core/cfg.h"
#include "core/nameidx.h"
#include "core/readlog.h"
#include "cmd/report.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "world/world.h"

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

typedef struct axis {
    const char *key;
    const ss_node *key_node; /* the `key:` value, for positions */
    const ss_node *values;   /* a non-empty sequence */
} axis;

typedef struct unit {
    size_t point, variant;
    unsigned rep;
} unit;

struct ss_sweep {
    ss_doc *doc;          /* the sweep file; axis values point into it */
    char *base;           /* base scenario path */
    char *path;           /* the sweep file */
    char *name, *output;
    int zip;
    axis *axes;
    size_t naxes;
    const ss_node *fixed; /* `set:` map applied to every point, or NULL */
    const ss_node *seed;  /* `seed:` node, or NULL */
    unsigned reps;        /* replications per point, 0 = the scenario's */
    char **sets;          /* command-line overrides */
    size_t nsets;
    double horizon_s;     /* --duration, or 0 */
    char **variants;      /* variants of the base run at every point; one NULL = none */
    size_t nvariants;
    size_t npoints;
    unit *units;
    size_t nunits;
    ss_report *layout;    /* every point's columns, declared in unit order */
    char **inputs;        /* every file read while loading, in first-read order */
    size_t ninputs;
};

size_t ss_sweep_units(const ss_sweep *sw) { return sw->nunits; }
size_t ss_sweep_points(const ss_sweep *sw) { return sw->npoints; }
const char *ss_sweep_output(const ss_sweep *sw) { return sw->output; }
const char *ss_sweep_base(const ss_sweep *sw) { return sw->base; }

/* Index of axis a's value at point p. */
static size_t value_index(const ss_sweep *sw, size_t p, size_t a)
{
    if (sw->zip) return p;
    for (size_t k = sw->naxes; k-- > a + 1;) p /= sw->axes[k].values->n;
    return p % sw->axes[a].values->n;
}

/* The assignments that make point p: the sweep's `set:`, its seed, then
 * one value per axis.  *n of them, newly allocated. */
static ss_assign *point_assigns(const ss_sweep *sw, size_t p, size_t *n)
{
    size_t nf = sw->fixed ? sw->fixed->n : 0;
    ss_assign *as = ss_xcalloc(nf + 1 + sw->naxes, sizeof *as);
    size_t k = 0;
    for (size_t i = 0; i < nf; i++) {
        const ss_node *e = sw->fixed->items[i];
        as[k++] = (ss_assign){e->key, e, e->file, e->key_line, e->key_col};
    }
    if (sw->seed) as[k++] = (ss_assign){"seed", sw->seed, sw->seed->file, sw->seed->key_line, sw->seed->key_col};
    for (size_t a = 0; a < sw->naxes; a++) {
        const axis *ax = &sw->axes[a];
        const ss_node *v = ax->values->items[value_index(sw, p, a)];
        as[k++] = (ss_assign){ax->key, v, ax->key_node->file, ax->key_node->line, ax->key_node->col};
    }
    *n = k;
    return as;
}

static int load_point(const ss_sweep *sw, size_t p, size_t v, ss_scenario *sc, ss_err *err)
{
    size_t n;
    ss_assign *as = point_assigns(sw, p, &n);
    int rc = ss_scenario_load_horizon(sc, sw->base, sw->variants[v], as, n, sw->sets, sw->nsets, sw->horizon_s, err);
    free(as);
    return rc;
}

/* The first of t[0..n-1] equal to one before it (*was: that one), or n;
 * frees the texts. */
static size_t first_repeat(char **t, size_t n, uint32_t *was)
{
    ss_nameidx seen = SS_NAMEIDX_INIT; /* holds t's texts: freed after it */
    size_t k = 0;
    while (k < n && (*was = ss_nameidx_put(&seen, t[k], (uint32_t)k)) == SS_NAMEIDX_NONE) k++;
    ss_nameidx_free(&seen);
    for (size_t i = 0; i < n; i++) free(t[i]);
    free(t);
    return k;
}

/* One value of an axis twice would run the same points twice and give
 * them the same name in the results: refused, as a name given twice is
 * (compared as written). */
static int distinct_values(const axis *ax, ss_err *err)
{
    size_t n = ax->values->n;
    char **t = ss_xcalloc(n, sizeof *t);
    for (size_t k = 0; k < n; k++) t[k] = ss_node_flow(ax->values->items[k]);
    uint32_t was;
    size_t k = first_repeat(t, n, &was);
    if (k == n) return 0;
    char *v = ss_node_flow(ax->values->items[k]);
    int rc = ss_node_err(ax->values->items[k], err, "values of axis '%s': %s appears twice", ax->key, v);
    free(v);
    return rc;
}

/* Zipped axes: a point is the i-th value of every axis, so one axis may
 * repeat a value (a one-hot choice), but a point given twice is refused,
 * at its value on the first axis. */
static int distinct_points(const ss_sweep *sw, ss_err *err)
{
    size_t n = sw->npoints;
    char **t = ss_xcalloc(n, sizeof *t);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < sw->naxes; i++) {
            char *v = ss_node_flow(sw->axes[i].values->items[k]);
            char *joined = ss_xasprintf("%s%s%s", t[k] ? t[k] : "", i ? "\x1f" : "", v);
            free(v);
            free(t[k]);
            t[k] = joined;
        }
    uint32_t was;
    size_t k = first_repeat(t, n, &was);
    if (k == n) return 0;
    return ss_node_err(sw->axes[0].values->items[k], err,
                       "mode zip: point %zu repeats point %u (the same value on every axis)", k + 1, was + 1);
}

static int read_axes(ss_sweep *sw, const ss_node *root, ss_err *err)
{
    static const char *const keys[] = {"key", "values", NULL};
    ss_node *axes;
    TRY(ss_cfg_seq(root, "axes", &axes, SS_REQ, err));
    if (axes->n == 0) return ss_node_err(axes, err, "axes: expected at least one axis");
    sw->axes = ss_xcalloc(axes->n, sizeof *sw->axes);
    sw->npoints = 1;
    for (size_t i = 0; i < axes->n; i++) {
        const ss_node *a = axes->items[i];
        TRY(ss_node_expect(a, SS_NODE_MAP, "axis", err));
        TRY(ss_cfg_check_keys(a, keys, "axis", err));
        axis *ax = &sw->axes[sw->naxes++];
        ss_node *vals;
        TRY(ss_cfg_str(a, "key", &ax->key, SS_REQ, err));
        ax->key_node = ss_map_find(a, "key");
        TRY(ss_cfg_seq(a, "values", &vals, SS_REQ, err));
        ax->values = vals;
        if (vals->n == 0) return ss_node_err(vals, err, "values of axis '%s': expected at least one value", ax->key);
        for (size_t k = 0; k < i; k++)
            if (strcmp(sw->axes[k].key, ax->key) == 0)
                return ss_node_err(ax->key_node, err, "axis '%s' appears twice", ax->key);
        if (!sw->zip) TRY(distinct_values(ax, err));
        if (sw->zip) {
            if (i > 0 && vals->n != sw->axes[0].values->n)
                return ss_node_err(vals, err, "mode zip: axis '%s' has %zu values, axis '%s' has %zu", ax->key,
                                   vals->n, sw->axes[0].key, sw->axes[0].values->n);
            sw->npoints = vals->n;
        } else {
            if (sw->npoints > 10000000 / vals->n)
                return ss_node_err(vals, err, "the sweep has more than 10,000,000 points");
            sw->npoints *= vals->n;
        }
    }
    return sw->zip ? distinct_points(sw, err) : 0;
}

static int read_variants(ss_sweep *sw, const ss_node *root, ss_err *err)
{
    char **names = NULL;
    size_t nv = 0;
    TRY(ss_scenario_variants(sw->base, &names, &nv, err));
    ss_node *want = NULL;
    int rc = ss_cfg_seq(root, "variants", &want, 0, err);
    if (rc >= 0 && want) {
        sw->variants = ss_xcalloc(want->n + 1, sizeof *sw->variants);
        for (size_t i = 0; rc >= 0 && i < want->n; i++) {
            const ss_node *w = want->items[i];
            rc = ss_node_expect(w, SS_NODE_SCALAR, "variant name", err);
            int found = 0;
            for (size_t k = 0; rc >= 0 && k < nv; k++) found |= strcmp(names[k], w->value) == 0;
            if (rc >= 0 && !found) {
                const char *near = nv ? ss_suggest(w->value, (const char *const *)names) : NULL;
                rc = ss_node_err(w, err, "the base scenario has no variant '%s'%s%s%s", w->value,
                                 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
            }
            if (rc >= 0) sw->variants[sw->nvariants++] = ss_xstrdup(w->value);
        }
        if (sw->nvariants == 0) sw->nvariants = 1; /* `variants: []`: the base alone */
    } else if (rc >= 0) {
        sw->variants = names ? names : ss_xcalloc(1, sizeof *sw->variants);
        sw->nvariants = nv ? nv : 1;
        names = NULL;
    }
    for (size_t i = 0; names && names[i]; i++) free(names[i]);
    free(names);
    return rc < 0 ? -1 : 0;
}

static int read_sweep(ss_sweep *sw, const char *path, ss_err *err)
{
    static const char *const top[] = {"name", "description", "scenario", "mode", "axes", "set", "seed",
                                      "replications", "variants", "output", NULL};
    static const char *const modes[] = {"product", "zip", NULL};
    const ss_node *root = sw->doc->root;
    TRY(ss_node_expect(root, SS_NODE_MAP, "sweep", err));
    TRY(ss_cfg_check_keys(root, top, "sweep", err));
    const char *name = NULL, *desc, *base, *out = NULL;
    TRY(ss_cfg_str(root, "name", &name, 0, err));
    TRY(ss_cfg_str(root, "description", &desc, 0, err));
    TRY(ss_cfg_str(root, "scenario", &base, SS_REQ, err));
    if (!(sw->base = ss_node_readable(ss_map_find(root, "scenario"), "scenario file", err))) return -1;
    if (name) {
        sw->name = ss_xstrdup(name);
    } else {
        const char *b = strrchr(path, '/');
        sw->name = ss_xstrdup(b ? b + 1 : path);
        char *dot = strrchr(sw->name, '.');
        if (dot && dot != sw->name) *dot = '\0';
    }
    int mode = 0;
    TRY(ss_cfg_enum(root, "mode", modes, &mode, 0, err));
    sw->zip = mode == 1;
    ss_node *fixed = NULL;
    TRY(ss_cfg_map(root, "set", &fixed, 0, err));
    sw->fixed = fixed;
    unsigned long long seed, reps = 0;
    if (ss_cfg_u64(root, "seed", &seed, 0, err) < 0) return -1;
    sw->seed = ss_map_find(root, "seed");
    TRY(ss_cfg_u64(root, "replications", &reps, 0, err));
    if (ss_map_find(root, "replications") && (reps < 1 || reps > 100000))
        return ss_node_err(ss_map_find(root, "replications"), err, "replications: expected 1 to 100000, got %llu",
                           reps);
    sw->reps = (unsigned)reps;
    TRY(ss_cfg_str(root, "output", &out, 0, err));
    sw->output = out ? ss_xstrdup(out) : ss_xasprintf("results/%s.csv", sw->name);
    /* The base must load on its own before axes can be blamed for anything. */
    TRY(read_variants(sw, root, err));
    TRY(read_axes(sw, root, err));
    return 0;
}

/* Load every (point, variant), initialise its plugins once, declare its
 * columns and list its units. */
static int expand(ss_sweep *sw, ss_err *err)
{
    sw->layout = ss_report_new();
    for (size_t p = 0; p < sw->npoints; p++) {
        for (size_t v = 0; v < sw->nvariants; v++) {
            ss_scenario sc;
            int rc = load_point(sw, p, v, &sc, err);
            ss_world *w = rc == 0 ? ss_world_build(&sc, 0, NULL, err) : NULL;
            if (w) {
                const char *const *cols;
                size_t ncols = ss_world_extra_columns(w, &cols);
                ss_report_declare(sw->layout, &sc);
                ss_report_declare_extras(sw->layout, cols, ncols);
                ss_world_free(w);
                unsigned reps = sw->reps ? sw->reps : sc.replications;
                sw->units = ss_xrealloc(sw->units, (sw->nunits + reps) * sizeof *sw->units);
                for (unsigned r = 0; r < reps; r++) sw->units[sw->nunits++] = (unit){p, v, r};
            }
            ss_scenario_free(&sc);
            if (!w) return -1;
        }
    }
    return 0;
}

ss_sweep *ss_sweep_load(const char *path, char *const *sets, size_t nsets, double horizon_s, ss_err *err)
{
    ss_sweep *sw = ss_xcalloc(1, sizeof *sw);
    sw->horizon_s = horizon_s;
    sw->path = ss_xstrdup(path);
    sw->sets = ss_xcalloc(nsets + 1, sizeof *sw->sets);
    for (size_t i = 0; i < nsets; i++) sw->sets[i] = ss_xstrdup(sets[i]);
    sw->nsets = nsets;
    ss_read_log_start();
    sw->doc = ss_doc_load(path, err);
    int rc = !sw->doc || read_sweep(sw, path, err) < 0 || expand(sw, err) < 0 ? -1 : 0;
    sw->inputs = ss_read_log_take(&sw->ninputs);
    if (rc < 0) {
        ss_sweep_free(sw);
        return NULL;
    }
    return sw;
}

void ss_sweep_free(ss_sweep *sw)
{
    if (!sw) return;
    free(sw->path);
    for (size_t i = 0; i < sw->nsets; i++) free(sw->sets[i]);
    for (size_t i = 0; sw->variants && i < sw->nvariants; i++) free(sw->variants[i]);
    for (size_t i = 0; i < sw->ninputs; i++) free(sw->inputs[i]);
    free(sw->inputs);
    free(sw->sets);
    free(sw->variants);
    free(sw->axes);
    free(sw->units);
    free(sw->base);
    free(sw->name);
    free(sw->output);
    ss_report_free(sw->layout);
    ss_doc_free(sw->doc);
    free(sw);
}

void ss_sweep_unit_key(const ss_sweep *sw, size_t u, size_t *point, const char **variant, unsigned *replication)
{
    const unit *x = &sw->units[u];
    *point = x->point;
    *variant = sw->variants[x->variant] ? sw->variants[x->variant] : "";
    *replication = x->rep;
}

size_t ss_sweep_unit_find(const ss_sweep *sw, size_t point, const char *variant, unsigned replication)
{
    /* Units are sorted by point, then variant, then replication. */
    size_t lo = 0, hi = sw->nunits;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sw->units[mid].point < point) lo = mid + 1;
        else hi = mid;
    }
    for (size_t u = lo; u < sw->nunits && sw->units[u].point == point; u++) {
        const char *v = sw->variants[sw->units[u].variant];
        if (strcmp(v ? v : "", variant) == 0 && sw->units[u].rep == replication) return u;
    }
    return (size_t)-1;
}

char *ss_sweep_unit_describe(const ss_sweep *sw, size_t u)
{
    const unit *x = &sw->units[u];
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&buf, &len);
    fprintf(fp, "point %zu (", x->point);
    for (size_t a = 0; a < sw->naxes; a++) {
        char *v = ss_node_flow(sw->axes[a].values->items[value_index(sw, x->point, a)]);
        fprintf(fp, "%s%s=%s", a ? ", " : "", sw->axes[a].key, v);
        free(v);
    }
    fputc(')', fp);
    if (sw->variants[x->variant]) fprintf(fp, ", variant %s", sw->variants[x->variant]);
    fprintf(fp, ", replication %u", x->rep);
    fclose(fp);
    return buf;
}

char *ss_sweep_header(const ss_sweep *sw)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&buf, &len);
    fputs("point,", fp);
    ss_report_csv_header(sw->layout, fp);
    fclose(fp);
    return buf;
}

int ss_sweep_unit_run(const ss_sweep *sw, size_t u, char **text)
{
    const unit *x = &sw->units[u];
    ss_err err = {0};
    ss_scenario sc;
    ss_world *w = NULL;
    if (load_point(sw, x->point, x->variant, &sc, &err) == 0) w = ss_world_build(&sc, x->rep, NULL, &err);
    if (!w) {
        ss_scenario_free(&sc);
        *text = ss_xstrdup(err.msg);
        return -1;
    }
    ss_world_run(w);
    if (ss_world_broken(w)) { /* a bug of the simulator: the run failed */
        *text = ss_xasprintf("internal check failed after the run: %s", ss_world_broken(w));
        ss_world_free(w);
        ss_scenario_free(&sc);
        return -1;
    }
    ss_run_result res;
    ss_world_result(w, &res);
    ss_world_free(w);
    ss_report *rep = ss_report_new_like(sw->layout);
    ss_report_add(rep, &sc, &res);
    ss_scenario_free(&sc);
    char *rows = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&rows, &len);
    ss_report_csv_rows(rep, fp);
    fclose(fp);
    ss_report_free(rep);
    /* Every row gets the point number in front. */
    size_t nl = 0;
    for (size_t i = 0; i < len; i++) nl += rows[i] == '\n';
    char *out = ss_xmalloc(len + nl * 24 + 1), *o = out;
    for (char *line = rows; *line;) {
        char *end = strchr(line, '\n');
        size_t ll = end ? (size_t)(end - line) + 1 : strlen(line);
        o += sprintf(o, "%zu,", x->point);
        memcpy(o, line, ll);
        o += ll;
        line += ll;
    }
    *o = '\0';
    free(rows);
    *text = out;
    return 0;
}

/* A file's bytes as an FNV-1a hash, or 0 if it cannot be read. */
static uint64_t file_hash(const char *path)
{
    size_t len = 0;
    ss_err err = {0};
    char *buf = ss_read_file(path, SS_INPUT_DOCUMENT, &len, &err);
    if (!buf) return 0;
    uint64_t h = ss_hash_bytes(buf, len);
    free(buf);
    return h;
}

char *ss_sweep_fingerprint(const ss_sweep *sw)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&text, &len);
    fprintf(fp, "sweep file %s %016llx\n", sw->path, (unsigned long long)file_hash(sw->path));
    fprintf(fp, "base scenario %s %016llx\n", sw->base, (unsigned long long)file_hash(sw->base));
    for (size_t i = 0; i < sw->nsets; i++) fprintf(fp, "--set %s\n", sw->sets[i]);
    if (sw->horizon_s > 0) fprintf(fp, "--duration %.17g\n", sw->horizon_s);
    /* Every other file the points read: model profiles, traces, topologies,
     * host types, block and edge profiles.  (Not plugins: code, like the
     * servesim binary itself, is not part of what a sweep is.) */
    for (size_t i = 0; i < sw->ninputs; i++)
        if (strcmp(sw->inputs[i], sw->path) != 0 && strcmp(sw->inputs[i], sw->base) != 0)
            fprintf(fp, "input file %s %016llx\n", sw->inputs[i], (unsigned long long)file_hash(sw->inputs[i]));
    fclose(fp);
    return text;
}
