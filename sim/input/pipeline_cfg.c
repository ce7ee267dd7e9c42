/* pipeline_cfg.c: the `pipeline:` section of a scenario (docs/blockflow.md):
 * the transport plugin with its parameters (imported from the transports
 * profile, models/transports.json, then the scenario's own), the client
 * tensor's batch, an optional dispatcher process, the client's GPU, the
 * compute model (fixed or shared, with the hosts' cores)
 * and dynamic batching per block.  Parsing only: pipeline.c runs it. */
#include "input/pipeline_cfg.h"
#include "input/section.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/blockmodel.h"

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

static void add_param(ss_policy_cfg *p, const char *key, const char *value, const char *file, int line, int col)
{
    size_t i = 0;
    while (i < p->nparams && strcmp(p->params[i].key, key) != 0) i++;
    if (i < p->nparams) { /* the scenario's value wins over the profile's */
        free((char *)p->params[i].value);
        free(p->param_file[i]);
    } else {
        p->params = ss_xrealloc(p->params, (p->nparams + 1) * sizeof *p->params);
        p->param_pos = ss_xrealloc(p->param_pos, (p->nparams + 1) * sizeof *p->param_pos);
        p->param_file = ss_xrealloc(p->param_file, (p->nparams + 1) * sizeof *p->param_file);
        p->params[i].key = ss_xstrdup(key);
        p->nparams++;
    }
    p->params[i].value = ss_xstrdup(value);
    p->param_file[i] = ss_xstrdup(file);
    p->param_pos[i][0] = line;
    p->param_pos[i][1] = col;
}

/* Numeric leaves of the profile's entry as dotted keys ("cross_gpu_copy.fixed_s");
 * text (citations, enumerations) stays behind: the plugin fixes its semantics. */
static void import_numbers(ss_policy_cfg *p, const ss_node *n, const char *prefix, const char *file, int line, int col)
{
    for (size_t i = 0; i < n->n; i++) {
        const ss_node *c = n->items[i];
        char *key = prefix[0] ? ss_xasprintf("%s.%s", prefix, c->key) : ss_xstrdup(c->key);
        if (c->kind == SS_NODE_MAP) {
            import_numbers(p, c, key, file, line, col);
        } else if (c->kind == SS_NODE_SCALAR && !c->quoted && !c->is_null) {
            char *end;
            double x = ss_strtod(c->value, &end);
            if (end != c->value && *end == '\0' && isfinite(x)) add_param(p, key, c->value, file, line, col);
        }
        free(key);
    }
}

static int read_transport(ss_scenario *sc, ss_pipeline_cfg *pl, const ss_node *n, ss_err *err)
{
    ss_policy_cfg *p = &pl->transport;
    p->file = ss_xstrdup(n->file);
    p->line = n->line;
    p->col = n->col;
    const ss_node *prof = NULL;
    if (n->kind == SS_NODE_SCALAR) {
        if (!n->value[0]) return ss_node_err(n, err, "transport: expected a transport name");
        p->name = ss_xstrdup(n->value);
    } else {
        TRY(ss_node_expect(n, SS_NODE_MAP, "transport", err));
        const char *name;
        TRY(ss_cfg_name(n, "name", &name, SS_REQ, err));
        p->name = ss_xstrdup(name);
        prof = ss_map_find(n, "profile");
    }
    /* The profile: `profile:` (a path), else models/transports.json found like a model profile. */
    char *path = NULL;
    if (prof) {
        TRY(ss_node_expect(prof, SS_NODE_SCALAR, "profile", err));
        if (!(path = ss_node_readable(prof, "transport profile", err))) return -1;
    } else {
        path = ss_scenario_find_profile(sc->dir, "transports");
    }
    ss_doc *doc = NULL;
    ss_node *ts = NULL;
    if (path) {
        doc = ss_doc_load(path, err);
        free(path);
        if (!doc) return -1;
        int rc = ss_cfg_map(doc->root, "transports", &ts, 0, err);
        const ss_node *mine = ts ? ss_map_find(ts, p->name) : NULL;
        /* a profile named for this transport must describe it; a found one
         * may leave a transport (a plugin of one's own) to its defaults */
        if (rc >= 0 && mine && mine->kind != SS_NODE_MAP) rc = ss_node_expect(mine, SS_NODE_MAP, p->name, err);
        else if (rc >= 0 && !mine && prof)
            rc = ss_node_err(prof, err, "transport profile '%s' has no map transports.%s", prof->value, p->name);
        if (rc >= 0 && mine)
            import_numbers(p, mine, "", prof ? prof->file : n->file, prof ? prof->line : n->line,
                           prof ? prof->col : n->col);
        if (rc < 0) ss_doc_free(doc);
        TRY(rc);
    }
    /* `client_hop: T`: the hop from the client is priced with transport T's laws from the
     * same profile (transports.T's numbers as client_hop.* parameters; the plugin says
     * whether it takes them): the probe's client sends a pickled tensor under every
     * transport (docs/calibration.md).  Imported before the scenario's own keys, which win. */
    const ss_node *ch = n->kind == SS_NODE_MAP ? ss_map_find(n, "client_hop") : NULL;
    int rc = ch ? ss_node_expect(ch, SS_NODE_SCALAR, "client_hop", err) : 0;
    if (ch && rc >= 0) {
        const ss_node *other = ts ? ss_map_find(ts, ch->value) : NULL;
        if (!other || other->kind != SS_NODE_MAP)
            rc = ss_node_err(ch, err, "client_hop: the transport profile has no map transports.%s", ch->value);
        else import_numbers(p, other, "client_hop", ch->file, ch->line, ch->col);
    }
    for (size_t i = 0; n->kind == SS_NODE_MAP && i < n->n && rc >= 0; i++) {
        const ss_node *c = n->items[i];
        if (strcmp(c->key, "name") == 0 || strcmp(c->key, "profile") == 0 || c == ch) continue;
        if ((rc = ss_node_expect(c, SS_NODE_SCALAR, c->key, err)) >= 0)
            add_param(p, c->key, c->value, c->file, c->key_line, c->key_col);
    }
    ss_doc_free(doc);
    return rc < 0 ? -1 : 0;
}

static int model_index(const ss_scenario *sc, const ss_node *n, ss_err *err)
{
    uint32_t m = ss_nameidx_get(&sc->model_names, n->value);
    if (m != SS_NAMEIDX_NONE) return (int)m;
    char **names = ss_xcalloc(sc->nmodels + 1, sizeof *names);
    for (size_t k = 0; k < sc->nmodels; k++) names[k] = sc->models[k].name;
    int rc = ss_node_unknown(n, "model", (const char *const *)names, err);
    free(names);
    return rc;
}

static int read_batching(ss_scenario *sc, ss_pipeline_cfg *pl, const ss_node *seq, ss_err *err)
{
    static const char *const keys[] = {"model", "max_batch", "max_wait_s", NULL};
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        TRY(ss_node_expect(it, SS_NODE_MAP, "batching entry", err));
        TRY(ss_cfg_check_keys(it, keys, "batching entry", err));
        unsigned long long mb = 1;
        double wait = 0;
        TRY(ss_cfg_u64(it, "max_batch", &mb, SS_REQ, err));
        if (mb < 1 || mb > 4096)
            return ss_node_err(ss_map_find(it, "max_batch"), err, "max_batch: expected 1 to 4096, got %llu", mb);
        TRY(ss_cfg_num(it, "max_wait_s", &wait, SS_NONNEG, err));
        const ss_node *m = ss_map_find(it, "model");
        int lo = 0, hi = (int)sc->nmodels;
        if (m) {
            TRY(ss_node_expect(m, SS_NODE_SCALAR, "model", err));
            TRY(lo = model_index(sc, m, err));
            hi = lo + 1;
        }
        for (int k = lo; k < hi; k++) {
            pl->max_batch[k] = (uint32_t)mb;
            pl->max_wait_s[k] = wait;
        }
    }
    return 0;
}

/* The length of the host part of a device name ("host/gpu0" -> 4). */
static size_t host_len(const char *device)
{
    const char *slash = strchr(device, '/');
    return slash ? (size_t)(slash - device) : strlen(device);
}

/* `KEY: {host: value}` (host_cores, host_time_factor): every key a host of
 * some device, every value > 0; into names[], vals[], *n. */
static int read_host_map(ss_scenario *sc, const ss_node *m, const char *key, char ***names_out, double **vals,
                         size_t *n, ss_err *err)
{
    TRY(ss_node_expect(m, SS_NODE_MAP, key, err));
    *names_out = ss_xcalloc(m->n ? m->n : 1, sizeof **names_out);
    *vals = ss_xcalloc(m->n ? m->n : 1, sizeof **vals);
    for (size_t i = 0; i < m->n; i++) {
        const ss_node *c = m->items[i];
        int known = 0;
        for (size_t d = 0; d < sc->ndevices && !known; d++)
            known = host_len(sc->devices[d].name) == strlen(c->key) &&
                    strncmp(sc->devices[d].name, c->key, strlen(c->key)) == 0;
        if (!known) {
            char **names = ss_xcalloc(sc->ndevices + 1, sizeof *names);
            for (size_t d = 0; d < sc->ndevices; d++) {
                names[d] = ss_xstrdup(sc->devices[d].name);
                names[d][host_len(names[d])] = '\0';
            }
            ss_node k = *c;
            k.value = c->key;
            k.line = c->key_line;
            k.col = c->key_col;
            int rc = ss_node_unknown(&k, "host", (const char *const *)names, err);
            for (size_t d = 0; d < sc->ndevices; d++) free(names[d]);
            free(names);
            return rc;
        }
        double v = 0;
        TRY(ss_node_num(c, key, &v, SS_POS, err));
        /* A host's cores: a thousandth (a container's finest share) to Linux's
         * NR_CPUS of 8192; a host's time factor: a thousand times faster or
         * slower than the machine measured at most. */
        double lo = 1e-3, hi = strcmp(key, "host_cores") == 0 ? 8192 : 1e3;
        if (v < lo || v > hi) return ss_node_err(c, err, "%s: expected %g to %g for host '%s', got %g", key, lo, hi, c->key, v);
        (*names_out)[*n] = ss_xstrdup(c->key);
        (*vals)[(*n)++] = v;
    }
    return 0;
}

double ss_pipeline_host_time_factor(const ss_scenario *sc, const char *host)
{
    const ss_pipeline_cfg *pl = sc->pipeline;
    for (size_t i = 0; pl && i < pl->nhost_time_factor; i++)
        if (strcmp(pl->host_time_names[i], host) == 0) return pl->host_time_factor[i];
    return 1;
}

static double host_cores_of(const ss_scenario *sc, const ss_pipeline_cfg *pl, const char *host)
{
    for (size_t i = 0; pl && i < pl->nhost_cores; i++)
        if (strcmp(pl->host_core_names[i], host) == 0) return pl->host_cores[i];
    double cores = 0;
    for (size_t d = 0; d < sc->ndevices; d++)
        if (sc->devices[d].kind == SS_DEV_CPU && host_len(sc->devices[d].name) == strlen(host) &&
            strncmp(sc->devices[d].name, host, strlen(host)) == 0)
            cores += sc->devices[d].cores;
    return cores;
}

double ss_pipeline_host_cores(const ss_scenario *sc, const char *host)
{
    return host_cores_of(sc, sc->pipeline, host);
}

/* The map scheduler.<key> (or scheduler.<key>.<sub>) of the model file a
 * `profile:` names (`servesim calibrate` writes them, from what `from` says:
 * the message's words), as *out; the file is *doc, which the caller frees
 * (also on error).  -1 with a positioned error. */
static int scheduler_map(const ss_node *prof, const char *key, const char *sub, const char *from, ss_doc **doc,
                         ss_node **out, ss_err *err)
{
    *doc = NULL;
    *out = NULL;
    TRY(ss_node_expect(prof, SS_NODE_SCALAR, "profile", err));
    char what[32];
    snprintf(what, sizeof what, "%s profile", key);
    char *path = ss_node_readable(prof, what, err);
    if (!path) return -1;
    *doc = ss_doc_load(path, err);
    free(path);
    if (!*doc) return -1;
    ss_node *sch = NULL, *m = NULL;
    int rc = ss_cfg_map((*doc)->root, "scheduler", &sch, 0, err);
    if (rc >= 0 && sch) rc = ss_cfg_map(sch, key, &m, 0, err);
    if (rc >= 0 && m && sub) {
        ss_node *t = NULL;
        rc = ss_cfg_map(m, sub, &t, 0, err);
        m = t;
    }
    if (rc >= 0 && !m)
        return ss_node_err(prof, err, "%s profile '%s' has no map scheduler.%s%s%s (servesim calibrate writes it from "
                                      "%s)",
                           key, prof->value, key, sub ? "." : "", sub ? sub : "", from);
    *out = m;
    return rc < 0 ? -1 : 0;
}

/* `key` of map m, a probability (0 to 1), into *out; flags as ss_cfg_num's
 * (SS_REQ, or absent: *out untouched). */
static int probability(const ss_node *m, const char *key, double *out, int flags, ss_err *err)
{
    TRY(ss_cfg_num(m, key, out, flags | SS_NONNEG, err));
    if (*out > 1)
        return ss_node_err(ss_map_find(m, key), err, "%s: expected 0 to 1, got %s", key, ss_map_find(m, key)->value);
    return 0;
}

/* `probability` (0 to 1) and `mean_s` (> 0) of map m into pl. */
static int stacking_numbers(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    TRY(probability(m, "probability", &pl->stack_prob, SS_REQ, err));
    return ss_cfg_num(m, "mean_s", &pl->stack_mean_s, SS_REQ | SS_POS, err);
}

typedef int (*numbers_fn)(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err);

/* `NAME: {the numbers}` or `{profile: FILE}`, FILE a model file `servesim
 * calibrate` wrote (its scheduler.NAME, or scheduler.NAME.SUB, from what
 * `from` names): the numbers of map m, or of that map, read by fn.  keys: the
 * numbers' keys, then "profile"; words: how a message names the numbers;
 * shared_only: refused but under compute: shared. */
static int profile_or_numbers(ss_pipeline_cfg *pl, const ss_node *m, const char *name, const char *sub,
                              const char *from, int shared_only, const char *const *keys, const char *words,
                              numbers_fn fn, ss_err *err)
{
    TRY(ss_node_expect(m, SS_NODE_MAP, name, err));
    TRY(ss_cfg_check_keys(m, keys, name, err));
    if (shared_only && !pl->compute_shared)
        return ss_node_err(m, err, "%s: only under compute: shared (a CPU's cores shared by its processes)", name);
    const ss_node *prof = ss_map_find(m, "profile");
    if (!prof) return fn(pl, m, err);
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(keys[i], "profile") != 0 && ss_map_find(m, keys[i]))
            return ss_node_err(prof, err, "%s: a profile or the numbers (%s), not both", name, words);
    ss_doc *doc;
    ss_node *t;
    int rc = scheduler_map(prof, name, sub, from, &doc, &t, err);
    if (rc >= 0) rc = fn(pl, t, err);
    ss_doc_free(doc);
    return rc;
}

/* `stacking: {probability, mean_s}` or `{profile: FILE}` (its scheduler.stacking,
 * from the probe's stacking samples) (serve/pipeline_compute.c, wake-up
 * stacking): only under compute: shared, where cores are shared at all. */
static int read_stacking(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"probability", "mean_s", "profile", NULL};
    return profile_or_numbers(pl, m, "stacking", NULL, "kind: stacking samples", 1, keys, "probability, mean_s",
                              stacking_numbers, err);
}

/* `corun_factor` and `slice_factor` (each >= 1) of map m into pl. */
static int interference_numbers(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const names[] = {"corun_factor", "slice_factor"};
    double *v[] = {&pl->corun_factor, &pl->slice_factor};
    for (int k = 0; k < 2; k++) {
        TRY(ss_cfg_num(m, names[k], v[k], SS_REQ | SS_POS, err));
        if (*v[k] < 1)
            return ss_node_err(ss_map_find(m, names[k]), err,
                               "%s: expected a factor >= 1 (the CPU time a piece of work costs sharing the "
                               "machine over alone), got %s", names[k], ss_map_find(m, names[k])->value);
    }
    return 0;
}

/* `interference: {corun_factor, slice_factor}` or `{profile: FILE}` (its
 * scheduler.interference, from the probe's corun samples)
 * (serve/pipeline_compute.c, CPU interference): only under compute: shared. */
static int read_interference(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"corun_factor", "slice_factor", "profile", NULL};
    return profile_or_numbers(pl, m, "interference", NULL, "kind: corun samples", 1, keys,
                              "corun_factor, slice_factor", interference_numbers, err);
}

/* `copy_bytes_per_s` and `shared_bytes_per_s` of map m into pl (> 0; the
 * unit's range: cfg_range.c). */
static int memory_numbers(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    TRY(ss_cfg_num(m, "copy_bytes_per_s", &pl->mem_copy_bytes_per_s, SS_REQ | SS_POS, err));
    return ss_cfg_num(m, "shared_bytes_per_s", &pl->mem_shared_bytes_per_s, SS_REQ | SS_POS, err);
}

/* `memory_bandwidth: {copy_bytes_per_s, shared_bytes_per_s}` or `{profile: FILE}` (its
 * scheduler.memory_bandwidth, from the probe's memshare samples)
 * (pipeline/pipeline_compute.h, ss_pcomp_set_memory): only under compute: shared. */
static int read_memory(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"copy_bytes_per_s", "shared_bytes_per_s", "profile", NULL};
    return profile_or_numbers(pl, m, "memory_bandwidth", NULL, "kind: memshare samples", 1, keys,
                              "copy_bytes_per_s, shared_bytes_per_s", memory_numbers, err);
}

/* Array `key` of m: numbers >= 0 (idle_s increasing), into *out; its length. */
static int wake_array(const ss_node *m, const char *key, int increasing, double **out, size_t *n, ss_err *err)
{
    ss_node *seq;
    TRY(ss_cfg_seq(m, key, &seq, SS_REQ, err));
    if (seq->n < 2) return ss_node_err(seq, err, "%s: expected at least two points (the reference and one idle time)", key);
    if (*n && seq->n != *n) return ss_node_err(seq, err, "%s: expected %zu numbers, one per idle time, got %zu", key, *n, seq->n);
    double *v = ss_xcalloc(seq->n, sizeof *v);
    *out = v;
    for (size_t i = 0; i < seq->n; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s[%zu]", key, i);
        TRY(ss_node_num(seq->items[i], what, &v[i], SS_NONNEG, err));
        if (increasing && i && !(v[i] > v[i - 1]))
            return ss_node_err(seq->items[i], err, "%s: expected increasing idle times, got %s after %s", what,
                               seq->items[i]->value, seq->items[i - 1]->value);
    }
    *n = seq->n;
    return 0;
}

/* `idle_s` and `extra_s` of map m into pl. */
static int wake_numbers(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    size_t n = 0;
    TRY(wake_array(m, "idle_s", 1, &pl->wake_idle_s, &n, err));
    return wake_array(m, "extra_s", 0, &pl->wake_extra_s, &n, err) < 0 ? -1 : (pl->nwake = n, 0);
}

/* `idle_s` and `factor` (each > 0) of map m into pl. */
static int gpu_wake_numbers(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    size_t n = 0;
    TRY(wake_array(m, "idle_s", 1, &pl->gpu_wake_idle_s, &n, err));
    TRY(wake_array(m, "factor", 0, &pl->gpu_wake_factor, &n, err));
    const ss_node *seq = ss_map_find(m, "factor");
    for (size_t i = 0; i < n; i++)
        if (!(pl->gpu_wake_factor[i] > 0))
            return ss_node_err(seq->items[i], err, "factor[%zu]: expected a factor > 0 (a kernel's time after that "
                                                   "idle time over at full clocks), got %s", i, seq->items[i]->value);
    pl->ngpu_wake = n;
    return 0;
}

/* `gpu_wake: {idle_s: [...], factor: [...]}` or `{profile: FILE}` (its
 * scheduler.gpu_wake: models/gpu-idle-*.json, estimated from published
 * figures) (pipeline/pipeline_compute.h, ss_pcomp_set_gpu_wake): only under
 * compute: shared, where a GPU's kernels are tracked. */
static int read_gpu_wake(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"idle_s", "factor", "profile", NULL};
    return profile_or_numbers(pl, m, "gpu_wake", NULL, "a GPU's kernel times after idle gaps", 1, keys,
                              "idle_s, factor", gpu_wake_numbers, err);
}

/* `wake: {idle_s: [...], extra_s: [...]}` or `{profile: FILE}` (its
 * scheduler.wake.<the pipeline's transport>, from the probe's wake samples)
 * (serve/pipeline.c, waking after idle). */
static int read_wake(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"idle_s", "extra_s", "profile", NULL};
    return profile_or_numbers(pl, m, "wake", pl->transport.name, "kind: wake samples of that transport", 0, keys,
                              "idle_s, extra_s", wake_numbers, err);
}

/* The run queues' numbers of map m (the scenario's, or a model file's
 * scheduler.run_queues): slice_s, tick_s > 0, migration_cost_s >= 0,
 * balance_ticks 1 to 1000, stacking_probability 0 to 1 (optional: 0),
 * idle_scan_pct 0 or 100 to 1000 (optional: 0, off) and util_halflife_s > 0
 * (optional: PELT's 32 ms; only with idle_scan_pct). */
static int run_queues_numbers(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    TRY(ss_cfg_num(m, "slice_s", &pl->rq_slice_s, SS_REQ | SS_POS, err));
    TRY(ss_cfg_num(m, "tick_s", &pl->rq_tick_s, SS_REQ | SS_POS, err));
    /* A kernel's tick is 1 to 10 ms (CONFIG_HZ 1000 to 100), its slice a few
     * ms: past these ranges a core would tick more often than it serves. */
    if (pl->rq_tick_s < 1e-5 || pl->rq_tick_s > 1)
        return ss_node_err(ss_map_find(m, "tick_s"), err, "tick_s: expected a scheduler tick of 1e-05 to 1 s, got %g",
                           pl->rq_tick_s);
    if (pl->rq_slice_s < 1e-6 || pl->rq_slice_s > 10)
        return ss_node_err(ss_map_find(m, "slice_s"), err, "slice_s: expected a time slice of 1e-06 to 10 s, got %g",
                           pl->rq_slice_s);
    TRY(ss_cfg_num(m, "migration_cost_s", &pl->rq_migration_cost_s, SS_REQ | SS_NONNEG, err));
    unsigned long long every = 0;
    TRY(ss_cfg_u64(m, "balance_ticks", &every, SS_REQ, err));
    if (every < 1 || every > 1000)
        return ss_node_err(ss_map_find(m, "balance_ticks"), err,
                           "balance_ticks: expected a whole number of ticks from 1 to 1000, got %llu", every);
    pl->rq_balance_ticks = (unsigned)every;
    pl->rq_stack_prob = 0;
    TRY(probability(m, "stacking_probability", &pl->rq_stack_prob, 0, err));
    pl->rq_idle_scan_pct = 0;
    TRY(ss_cfg_num(m, "idle_scan_pct", &pl->rq_idle_scan_pct, SS_NONNEG, err));
    if (pl->rq_idle_scan_pct != 0 && (pl->rq_idle_scan_pct < 100 || pl->rq_idle_scan_pct > 1000))
        return ss_node_err(ss_map_find(m, "idle_scan_pct"), err,
                           "idle_scan_pct: expected 0 (off) or 100 to 1000 (Linux's LLC imbalance_pct: 117), got %s",
                           ss_map_find(m, "idle_scan_pct")->value);
    pl->rq_util_halflife_s = 0.032;
    TRY(ss_cfg_num(m, "util_halflife_s", &pl->rq_util_halflife_s, SS_POS, err));
    if (pl->rq_idle_scan_pct == 0 && ss_map_find(m, "util_halflife_s"))
        return ss_node_err(ss_map_find(m, "util_halflife_s"), err,
                           "util_halflife_s: only with idle_scan_pct (the utilisation gates the idle-core scan alone)");
    if (pl->rq_idle_scan_pct == 0) pl->rq_util_halflife_s = 0; /* no running average that nothing reads */
    pl->run_queues = 1;
    return 0;
}

/* `run_queues: {slice_s, tick_s, migration_cost_s, balance_ticks,
 * stacking_probability, idle_scan_pct, util_halflife_s}` or `{profile: FILE}`
 * (its scheduler.run_queues, calibrated from the probe's ring benchmark under
 * the kernel's constants) (serve/pipeline_runq.h): the scheduler's base slice,
 * its tick (1 / HZ), the migration cost under which a thread is cache hot, how
 * many ticks apart an idle core pulls, the wake-affine placement's probability
 * (optional, 0), and SIS_UTIL's gate on the idle-core scan with the
 * utilisation's half-life (optional, off); only under compute: shared. */
static int read_run_queues(ss_pipeline_cfg *pl, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"slice_s",
                                       "tick_s",
                                       "migration_cost_s",
                                       "balance_ticks",
                                       "stacking_probability",
                                       "idle_scan_pct",
                                       "util_halflife_s",
                                       "profile",
                                       NULL};
    return profile_or_numbers(pl, m, "run_queues", NULL,
                              "kind: stacking samples whose profile records its kernel and the ring's deliveries, "
                              "where the run queues reproduce the ring: its summary says why not",
                              1, keys,
                              "slice_s, tick_s, migration_cost_s, balance_ticks, stacking_probability, "
                              "idle_scan_pct, util_halflife_s",
                              run_queues_numbers, err);
}

/* A scheduler mechanism's key of `pipeline` (stacking, wake, interference,
 * run_queues), or NULL when absent or null (`stacking: ~`, `--set
 * pipeline.stacking=`: off, as absent). */
static const ss_node *mechanism(const ss_node *pipeline, const char *key)
{
    const ss_node *m = ss_map_find(pipeline, key);
    return m && m->kind == SS_NODE_SCALAR && m->is_null ? NULL : m;
}

static int read_section(ss_scenario *sc, ss_pipeline_cfg *pl, const ss_node *n, ss_err *err)
{
    static const char *const keys[] = {"transport", "batch", "dispatcher", "client_device", "compute",
                                       "host_cores", "host_time_factor", "batching", "stacking", "wake",
                                       "interference", "run_queues", "slots", "memory_bandwidth", "gpu_wake",
                                       NULL};
    static const char *const computes[] = {"fixed", "shared", NULL};
    TRY(ss_node_expect(n, SS_NODE_MAP, "pipeline", err));
    const ss_node *gone = ss_map_find(n, "contention");
    if (gone)
        return ss_node_err(gone, err,
                           "contention: removed (issue 41): under compute: shared a GPU time-slices only the blocks' "
                           "kernel time (kernel_fraction in the split profile) and their host time runs on the host's "
                           "CPU; under compute: fixed the block processes are independent (docs/blockflow.md, "
                           "\"GPU-busy time vs host time\")");
    TRY(ss_cfg_check_keys(n, keys, "pipeline", err));
    const ss_node *t = ss_map_find(n, "transport");
    if (!t) return ss_node_err(n, err, "pipeline: missing key 'transport' (tensormq, zmq-copy or http)");
    TRY(read_transport(sc, pl, t, err));
    unsigned long long batch = 1;
    TRY(ss_cfg_u64(n, "batch", &batch, 0, err));
    if (batch < 1 || batch > 65536)
        return ss_node_err(ss_map_find(n, "batch"), err, "batch: expected 1 to 65536, got %llu", batch);
    pl->batch = (uint32_t)batch;
    unsigned long long slots = 0;
    TRY(ss_cfg_u64(n, "slots", &slots, 0, err));
    if (slots > 1000000)
        return ss_node_err(ss_map_find(n, "slots"), err, "slots: expected 0 (no ring) to 1000000, got %llu", slots);
    pl->slots = (uint32_t)slots;
    TRY(ss_cfg_enum(n, "compute", computes, &pl->compute_shared, 0, err));
    const ss_node *hc = ss_map_find(n, "host_cores");
    if (hc) TRY(read_host_map(sc, hc, "host_cores", &pl->host_core_names, &pl->host_cores, &pl->nhost_cores, err));
    const ss_node *tf = ss_map_find(n, "host_time_factor");
    if (tf) {
        if (!pl->compute_shared)
            return ss_node_err(tf, err, "host_time_factor: only under compute: shared (the hosts' CPUs shared on "
                                        "the solver), which this pipeline does not set");
        TRY(read_host_map(sc, tf, "host_time_factor", &pl->host_time_names, &pl->host_time_factor,
                          &pl->nhost_time_factor, err));
        for (size_t i = 0; i < pl->nhost_time_factor; i++)
            if (!(host_cores_of(sc, pl, pl->host_time_names[i]) > 0))
                return ss_node_err(tf->items[i], err,
                                   "host_time_factor: host '%s' has no cores declared (pipeline.host_cores, or its "
                                   "kind: cpu devices' cores): no CPU to scale",
                                   pl->host_time_names[i]);
    }
    const ss_node *st = mechanism(n, "stacking");
    if (st) TRY(read_stacking(pl, st, err));
    const ss_node *wk = mechanism(n, "wake");
    if (wk) TRY(read_wake(pl, wk, err));
    pl->corun_factor = pl->slice_factor = 1;
    const ss_node *itf = mechanism(n, "interference");
    if (itf) TRY(read_interference(pl, itf, err));
    const ss_node *rqn = mechanism(n, "run_queues");
    if (rqn) TRY(read_run_queues(pl, rqn, err));
    const ss_node *mb = mechanism(n, "memory_bandwidth");
    if (mb) TRY(read_memory(pl, mb, err));
    const ss_node *gw = mechanism(n, "gpu_wake");
    if (gw) TRY(read_gpu_wake(pl, gw, err));
    if (rqn && st)
        return ss_node_err(st, err, "stacking: not with run_queues, which place the threads on the cores themselves "
                                    "and are calibrated from the same ring benchmark (docs/calibration.md, \"Run "
                                    "queues\"): drop one of them");
    const ss_node *d = ss_map_find(n, "dispatcher");
    if (d) {
        static const char *const dkeys[] = {"device", NULL};
        TRY(ss_node_expect(d, SS_NODE_MAP, "dispatcher", err));
        TRY(ss_cfg_check_keys(d, dkeys, "dispatcher", err));
        const ss_node *dev = ss_map_find(d, "device");
        if (!dev) return ss_node_err(d, err, "dispatcher: missing key 'device'");
        TRY(ss_node_expect(dev, SS_NODE_SCALAR, "device", err));
        TRY(ss_scenario_device(sc, dev, &pl->dispatcher_device, err));
        pl->has_dispatcher = 1;
    }
    const ss_node *cd = ss_map_find(n, "client_device");
    if (cd) {
        TRY(ss_node_expect(cd, SS_NODE_SCALAR, "client_device", err));
        TRY(ss_scenario_device(sc, cd, &pl->client_device, err));
        pl->has_client_device = 1;
    }
    ss_node *bat = NULL;
    TRY(ss_cfg_seq(n, "batching", &bat, 0, err));
    if (bat) TRY(read_batching(sc, pl, bat, err));
    /* Every stage a workload reaches must be a block of one server. */
    for (size_t w = 0; w < sc->nworkloads; w++) {
        const ss_task_cfg *task = &sc->tasks[sc->workloads[w].task];
        for (uint32_t s = 0; s < task->nstages; s++) {
            const ss_model_cfg *m = &sc->models[task->stages[s]];
            if (!m->block)
                return ss_node_err(n, err,
                                   "pipeline: model '%s' (on task '%s') is not a block: give it split: and block:",
                                   m->name, task->name);
        }
    }
    for (size_t i = 0; i < sc->ndeploys; i++)
        if (sc->models[sc->deploys[i].model].block && sc->deploys[i].servers != 1)
            return ss_node_err(n, err, "pipeline: block '%s' is deployed with servers: %u; a block process has one "
                               "main thread (servers: 1)", sc->models[sc->deploys[i].model].name,
                               sc->deploys[i].servers);
    /* Shared compute splits a GPU block's compute into host and kernel time: the profile must say how. */
    for (size_t i = 0; pl->compute_shared && i < sc->ndeploys; i++) {
        const ss_model_cfg *m = &sc->models[sc->deploys[i].model];
        if (m->block && !m->block->has_kernel_fraction && sc->devices[sc->deploys[i].device].kind == SS_DEV_GPU)
            return ss_node_err(ss_map_find(n, "compute"), err,
                               "compute: shared: block '%s' computes on GPU '%s' but its split profile '%s' gives no "
                               "kernel_fraction (the share of its compute time that is GPU kernel time, the rest host "
                               "time; 1 for all of it; docs/blockflow.md, \"GPU-busy time vs host time\")",
                               m->name, sc->devices[sc->deploys[i].device].name, m->block->split);
    }
    return 0;
}

int ss_pipeline_read(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    const ss_node *n = ss_map_find(root, "pipeline");
    if (!n) return 0;
    ss_pipeline_cfg *pl = ss_xcalloc(1, sizeof *pl);
    sc->pipeline = pl;
    pl->max_batch = ss_xcalloc(sc->nmodels ? sc->nmodels : 1, sizeof *pl->max_batch);
    pl->max_wait_s = ss_xcalloc(sc->nmodels ? sc->nmodels : 1, sizeof *pl->max_wait_s);
    for (size_t k = 0; k < sc->nmodels; k++) pl->max_batch[k] = 1;
    TRY(read_section(sc, pl, n, err));
    /* Run queues keep a queue per core of a host: at most Linux's NR_CPUS. */
    for (size_t d = 0; pl->run_queues && d < sc->ndevices; d++) {
        char *host = ss_xstrdup(sc->devices[d].name);
        host[host_len(host)] = '\0';
        double cores = host_cores_of(sc, pl, host);
        free(host);
        if (cores > 8192)
            return ss_node_err(ss_map_find(n, "run_queues"), err,
                               "run_queues: host of device '%s' has %g cores, more than the 8192 a kernel schedules "
                               "(declare fewer in pipeline.host_cores or on its cpu devices)",
                               sc->devices[d].name, cores);
    }
    return 0;
}

void ss_pipeline_free(ss_pipeline_cfg *p)
{
    if (!p) return;
    ss_policy_cfg_free(&p->transport);
    free(p->max_batch);
    free(p->max_wait_s);
    for (size_t i = 0; i < p->nhost_cores; i++) free(p->host_core_names[i]);
    for (size_t i = 0; i < p->nhost_time_factor; i++) free(p->host_time_names[i]);
    free(p->host_time_names);
    free(p->host_time_factor);
    free(p->host_core_names);
    free(p->host_cores);
    free(p->wake_idle_s);
    free(p->wake_extra_s);
    free(p->gpu_wake_idle_s);
    free(p->gpu_wake_factor);
    free(p);
}
