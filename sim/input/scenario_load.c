/* scenario_load.c: the scenario schema.  Reads a YAML scenario (and the JSON model
 * profiles it names) through cfg.h into the structs of scenario.h, refusing
 * anything unknown, mistyped or inconsistent with one file:line:col message.
 * docs/scenarios.md documents the same schema for users. */
#include "input/scenario_load.h"
#include "input/scenario_totals.h"
#include "input/scenario_autoscale.h"
#include "input/scenario_control.h"
#include "input/scenario_partitioning.h"
#include "input/scenario_placement.h"
#include "input/trace_synth.h"
#include "input/scenario_deploy.h"
#include "input/scenario_horizon.h"
#include "input/scenario_workload.h"
#include "input/validation_cfg.h"
#include "input/section.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/blockmodel.h"
#include "input/edge_cfg.h"
#include "input/ensemble_cfg.h"
#include "input/llm_cfg.h"
#include "input/pipeline_cfg.h"
#include "net/topo.h"
#include "input/trace.h"

#ifndef SS_MODEL_DIR
#define SS_MODEL_DIR "/usr/local/share/servesim/models"
#endif

static const double GIB = 1024.0 * 1024.0 * 1024.0;

/* ---- small helpers ---------------------------------------------------- */

static char *str_of(const ss_node *map, const char *key)
{
    const ss_node *n = ss_map_find(map, key);
    return n && n->kind == SS_NODE_SCALAR ? n->value : NULL;
}

/* ---- hosts and devices ------------------------------------------------ */

/* `topology:` a file (relative to the scenario) or an inline map. */
static int read_topology(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    const ss_node *t = ss_map_find(root, "topology");
    if (!t) return 0;
    if (t->kind == SS_NODE_SCALAR && !t->is_null) {
        char *path = ss_node_readable(t, "topology file", err);
        if (!path) return -1;
        sc->topo = ss_topo_load(path, err);
        free(path);
    } else if (t->kind == SS_NODE_MAP) {
        sc->topo = ss_topo_from_node(t, err);
    } else {
        return ss_node_err(t, err, "topology: expected a file name or a map");
    }
    return sc->topo ? 0 : -1;
}

/* Without `hosts:`, the devices are the topology's GPUs ("h57/gpu3"). */
static void devices_from_topology(ss_scenario *sc)
{
    const ss_topo *t = sc->topo;
    size_t n = 0;
    for (size_t h = 0; h < ss_topo_nhosts(t); h++) n += ss_topo_host_ngpus(t, h);
    sc->devices = ss_xrealloc(sc->devices, (n ? n : 1) * sizeof *sc->devices);
    for (size_t h = 0; h < ss_topo_nhosts(t); h++) {
        uint32_t g = 0, node;
        while ((node = ss_topo_host_gpu(t, h, g++)) != SS_TOPO_NONE) {
            sc->devices[sc->ndevices] = (ss_device_cfg){.name = ss_xstrdup(ss_topo_node_name(t, node)),
                                                        .kind = SS_DEV_GPU, .type = ss_xstrdup(""), .cores = 1,
                                                        .vram_bytes = ss_topo_host_gpu_vram_bytes(t, h),
                                                        .ram_bytes = ss_topo_host_ram_bytes(t, h)};
            ss_sc_index_device(sc, (uint32_t)sc->ndevices++); /* topology names are unique */
        }
    }
}

static int read_devices(ss_scenario *sc, const ss_node *hosts, ss_err *err)
{
    static const char *const host_keys[] = {"name", "devices", NULL};
    static const char *const dev_keys[] = {"name",  "kind",    "type",       "vram_gib", "ram_gib",
                                           "cores", "power_w", "time_shared", NULL};
    static const char *const kinds[] = {"gpu", "cpu", NULL};
    size_t cap = 0;
    for (size_t h = 0; h < hosts->n; h++) {
        const ss_node *host = hosts->items[h];
        TRY(ss_node_expect(host, SS_NODE_MAP, "host", err));
        TRY(ss_cfg_check_keys(host, host_keys, "host", err));
        const char *hname;
        ss_node *devs;
        TRY(ss_cfg_name(host, "name", &hname, SS_REQ, err));
        TRY(ss_cfg_seq(host, "devices", &devs, SS_REQ, err));
        if (devs->n == 0) return ss_node_err(devs, err, "devices: a host needs at least one device");
        for (size_t d = 0; d < devs->n; d++) {
            const ss_node *dn = devs->items[d];
            TRY(ss_node_expect(dn, SS_NODE_MAP, "device", err));
            TRY(ss_cfg_check_keys(dn, dev_keys, "device", err));
            const char *dname, *type = "";
            int kind = SS_DEV_GPU;
            double vram_gib = 0, ram_gib = 0, cores = 1, power_w = 0;
            TRY(ss_cfg_name(dn, "name", &dname, SS_REQ, err));
            TRY(ss_cfg_enum(dn, "kind", kinds, &kind, SS_REQ, err));
            TRY(ss_cfg_str(dn, "type", &type, 0, err));
            TRY(ss_cfg_num(dn, "vram_gib", &vram_gib, SS_NONNEG, err));
            TRY(ss_cfg_num(dn, "ram_gib", &ram_gib, SS_NONNEG, err));
            TRY(ss_cfg_num(dn, "cores", &cores, SS_POS | SS_INT, err));
            if (cores > 1e6)
                return ss_node_err(ss_map_find(dn, "cores"), err, "cores: expected 1 to 1000000, got %g", cores);
            TRY(ss_cfg_num(dn, "power_w", &power_w, SS_NONNEG, err));
            int shared = 0;
            TRY(ss_cfg_bool(dn, "time_shared", &shared, 0, err));
            if (sc->ndevices == cap) {
                cap = cap ? 2 * cap : 8;
                sc->devices = ss_xrealloc(sc->devices, cap * sizeof *sc->devices);
            }
            sc->devices[sc->ndevices] = (ss_device_cfg){
                .name = ss_xasprintf("%s/%s", hname, dname), .kind = (ss_device_kind)kind, .type = ss_xstrdup(type),
                .vram_bytes = vram_gib * GIB, .ram_bytes = ram_gib * GIB, .cores = (unsigned)cores, .power_w = power_w,
                .time_shared = shared};
            if (ss_sc_index_device(sc, (uint32_t)sc->ndevices++) < 0)
                return ss_node_err(ss_map_find(dn, "name"), err, "duplicate device '%s/%s'", hname, dname);
        }
    }
    /* A host's name identifies it too (its devices' names are checked as
     * they come): by a name index of its own, in file order. */
    ss_nameidx seen = SS_NAMEIDX_INIT;
    int rc = 0;
    for (size_t h = 0; h < hosts->n && rc == 0; h++) {
        const char *name = str_of(hosts->items[h], "name");
        if (ss_nameidx_put(&seen, name, (uint32_t)h) != SS_NAMEIDX_NONE)
            rc = ss_node_err(ss_map_find(hosts->items[h], "name"), err, "duplicate host '%s'", name);
    }
    ss_nameidx_free(&seen);
    return rc;
}

/* ---- models ----------------------------------------------------------- */

/* request_overhead_s, if map has it: in a profile, inline, or beside
 * `profile:` in the scenario (then over the profile's). */
static int read_request_overhead(ss_model_cfg *m, const ss_node *map, ss_err *err)
{
    TRY(ss_cfg_num(map, "request_overhead_s", &m->request_overhead_s, SS_NONNEG, err));
    if (m->request_overhead_s > 1e6)
        return ss_node_err(ss_map_find(map, "request_overhead_s"), err, "request_overhead_s: expected at most 1e6 s, got %g",
                           m->request_overhead_s);
    return 0;
}

/* The fields a model has, from an inline map or a profile file's root. */
static int read_model_fields(ss_model_cfg *m, const ss_node *map, ss_err *err)
{
    ss_node *svc = ss_map_find(map, "service");
    if (!svc) return ss_node_err(map, err, "model '%s': missing key 'service' (its service-time distribution)", m->name);
    TRY(ss_dist_read(svc, "service", &m->service, err));
    const char *src = NULL;
    TRY(ss_cfg_str(map, "source", &src, 0, err));
    m->source = src ? ss_xstrdup(src) : NULL;
    TRY(ss_cfg_num(map, "weights_bytes", &m->weights_bytes, SS_NONNEG, err));
    TRY(ss_cfg_num(map, "runtime_vram_bytes", &m->runtime_vram_bytes, SS_NONNEG, err));
    TRY(ss_cfg_num(map, "load_bytes_per_s", &m->load_bytes_per_s, SS_POS, err));
    TRY(read_request_overhead(m, map, err));
    TRY(ss_cfg_num(map, "sla_s", &m->sla_s, SS_POS, err));
    ss_node *cpu = ss_map_find(map, "cpu_service");
    if (cpu) {
        TRY(ss_dist_read(cpu, "cpu_service", &m->cpu_service, err));
        m->has_cpu_service = 1;
    }
    TRY(ss_cfg_num(map, "serial_fraction", &m->serial_fraction, SS_NONNEG, err));
    if (!(m->serial_fraction < 1))
        return ss_node_err(ss_map_find(map, "serial_fraction"), err,
                           "serial_fraction: expected 0 <= s < 1 (the share of a request's work that one core does "
                           "whatever the cores), got %g", m->serial_fraction);
    return 0;
}

static int read_profile(ss_model_cfg *m, const char *path, const ss_node *where, ss_err *err)
{
    static const char *const profile_keys[] = {"name",          "description",        "source", "service",
                                               "weights_bytes", "runtime_vram_bytes", "load_bytes_per_s",
                                               "request_overhead_s", "sla_s", "cpu_service", "serial_fraction",
                                               "calibrate", "calibration", NULL}; /* calibrate's records: not read */
    if (access(path, R_OK) != 0)
        return ss_node_err(where, err, "model profile '%s' not found or not readable", path);
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return -1;
    int rc = ss_node_expect(doc->root, SS_NODE_MAP, "model profile", err);
    if (rc == 0) rc = ss_cfg_check_keys(doc->root, profile_keys, "model profile", err);
    if (rc == 0) {
        const char *pname = str_of(doc->root, "name");
        if (pname && strcmp(pname, m->name) != 0)
            rc = ss_node_err(ss_map_find(doc->root, "name"), err,
                             "profile is for model '%s', but the scenario calls it '%s'", pname, m->name);
    }
    if (rc == 0) rc = read_model_fields(m, doc->root, err);
    m->profile = ss_xstrdup(path);
    ss_doc_free(doc);
    return rc;
}

/* `{name, split: <split profile>, block: <block or process>}`: a block (blockmodel.h). */
static int read_block_model(ss_scenario *sc, ss_model_cfg *m, const ss_node *it, ss_err *err)
{
    static const char *const only[] = {"name", "split", "block", NULL};
    TRY(ss_cfg_check_keys(it, only, "block model", err));
    const ss_node *split = ss_map_find(it, "split"), *block = ss_map_find(it, "block");
    TRY(ss_node_expect(split, SS_NODE_SCALAR, "split", err));
    if (!block) return ss_node_err(it, err, "model '%s': split: needs block: (a block or process name)", m->name);
    TRY(ss_node_expect(block, SS_NODE_SCALAR, "block", err));
    char *path = ss_scenario_find_profile(sc->dir, split->value);
    if (!path) return ss_node_err(split, err, "no split profile '%s': looked for models/%s.json as for models",
                                  split->value, split->value);
    m->block = ss_xcalloc(1, sizeof *m->block);
    int rc = ss_blockmodel_load(path, block, m->block, &m->service, err);
    m->profile = path;
    m->weights_bytes = m->block->weights_bytes;
    return rc;
}

/* `{name, llm: {...}}`: served token by token by LLM engines (llm_cfg.h):
 * its weights from the model's config, no service-time distribution (its
 * engines' steps time its requests); what a cold start and the serving
 * path read beside it may stay. */
static int read_llm_model(ss_model_cfg *m, const ss_node *it, ss_err *err)
{
    static const char *const only[] = {"name", "llm", "source", "load_bytes_per_s", "request_overhead_s", "sla_s",
                                       NULL};
    TRY(ss_cfg_check_keys(it, only,
                          "LLM model (its weights come from llm.model, its service from its engines' steps)", err));
    TRY(ss_llm_model_key_read(&m->llm, ss_map_find(it, "llm"), err));
    const char *src = NULL;
    TRY(ss_cfg_str(it, "source", &src, 0, err));
    m->source = src ? ss_xstrdup(src) : NULL;
    TRY(ss_cfg_num(it, "load_bytes_per_s", &m->load_bytes_per_s, SS_POS, err));
    TRY(read_request_overhead(m, it, err));
    TRY(ss_cfg_num(it, "sla_s", &m->sla_s, SS_POS, err));
    m->weights_bytes = m->llm->weights_bytes;
    m->service = (ss_dist){.kind = SS_DIST_DETERMINISTIC, .p1 = 0}; /* never drawn: its engines time it */
    return 0;
}

static int read_models(ss_scenario *sc, const ss_node *seq, ss_err *err)
{
    static const char *const model_keys[] = {"name", "profile", "service", "source", "weights_bytes", "runtime_vram_bytes",
                                             "load_bytes_per_s", "request_overhead_s", "split", "block", "sla_s",
                                             "cpu_service", "serial_fraction", "llm", NULL};
    sc->models = ss_xcalloc(seq->n, sizeof *sc->models);
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        ss_model_cfg *m = &sc->models[i];
        sc->nmodels = i + 1;
        if (it->kind == SS_NODE_SCALAR) { /* a bare name: models/<name>.json */
            if (!it->value[0]) return ss_node_err(it, err, "expected a model name or a map");
            m->name = ss_xstrdup(it->value);
            char *path = ss_scenario_find_profile(sc->dir, it->value);
            if (!path)
                return ss_node_err(it, err,
                                   "no profile for model '%s': looked for models/%s.json beside the scenario "
                                   "and above it, in $SERVESIM_MODEL_PATH and in %s",
                                   it->value, it->value, SS_MODEL_DIR);
            int rc = read_profile(m, path, it, err);
            free(path);
            TRY(rc);
        } else {
            TRY(ss_node_expect(it, SS_NODE_MAP, "model", err));
            TRY(ss_cfg_check_keys(it, model_keys, "model", err));
            TRY(ss_sc_read_name(it, "name", &m->name, err));
            const char *profile = NULL;
            TRY(ss_cfg_str(it, "profile", &profile, 0, err));
            if (ss_map_find(it, "llm")) {
                TRY(read_llm_model(m, it, err));
            } else if (ss_map_find(it, "split")) {
                TRY(read_block_model(sc, m, it, err));
            } else if (profile) {
                static const char *const only[] = {"name", "profile", "sla_s", "request_overhead_s", NULL};
                TRY(ss_cfg_check_keys(it, only,
                                      "model with a profile (put the rest in the profile; an SLA and a request "
                                      "overhead, which are the serving path's, may stay)",
                                      err));
                char *path = ss_node_path(ss_map_find(it, "profile"), profile);
                int rc = read_profile(m, path, ss_map_find(it, "profile"), err);
                free(path);
                TRY(rc);
                TRY(ss_cfg_num(it, "sla_s", &m->sla_s, SS_POS, err)); /* the scenario's SLA over the profile's */
                TRY(read_request_overhead(m, it, err)); /* and its request overhead */
            } else {
                TRY(read_model_fields(m, it, err));
            }
        }
        if (ss_nameidx_put(&sc->model_names, m->name, (uint32_t)i) != SS_NAMEIDX_NONE)
            return ss_node_err(it, err, "duplicate model '%s'", m->name);
    }
    return 0;
}

/* ---- tasks (paths of stages) ------------------------------------------ */

static int read_tasks(ss_scenario *sc, const ss_node *seq, ss_err *err)
{
    static const char *const task_keys[] = {"name", "path", NULL};
    /* One implicit single-stage task per model, so a workload can aim at a model. */
    size_t n = sc->nmodels + (seq ? seq->n : 0);
    sc->tasks = ss_xcalloc(n, sizeof *sc->tasks);
    for (size_t i = 0; i < sc->nmodels; i++) {
        sc->tasks[i].name = ss_xstrdup(sc->models[i].name);
        sc->tasks[i].stages = ss_xmalloc(sizeof(uint32_t));
        sc->tasks[i].stages[0] = (uint32_t)i;
        sc->tasks[i].nstages = 1;
        ss_nameidx_put(&sc->task_names, sc->tasks[i].name, (uint32_t)i); /* models are unique */
    }
    sc->ntasks = sc->nmodels;
    for (size_t i = 0; seq && i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        TRY(ss_node_expect(it, SS_NODE_MAP, "task", err));
        TRY(ss_cfg_check_keys(it, task_keys, "task", err));
        ss_task_cfg *t = &sc->tasks[sc->ntasks];
        TRY(ss_sc_read_name(it, "name", &t->name, err));
        sc->ntasks++;
        uint32_t was = ss_nameidx_put(&sc->task_names, t->name, (uint32_t)(sc->ntasks - 1));
        if (was != SS_NAMEIDX_NONE)
            return ss_node_err(ss_map_find(it, "name"), err, "task name '%s' is already a %s", t->name,
                               was < sc->nmodels ? "model" : "task");
        ss_node *path;
        TRY(ss_cfg_seq(it, "path", &path, SS_REQ, err));
        if (path->n == 0) return ss_node_err(path, err, "path: a task needs at least one stage");
        t->stages = ss_xcalloc(path->n, sizeof *t->stages);
        for (size_t s = 0; s < path->n; s++) {
            const ss_node *st = path->items[s];
            TRY(ss_node_expect(st, SS_NODE_SCALAR, "stage (a model name)", err));
            uint32_t m = ss_nameidx_get(&sc->model_names, st->value);
            if (m == SS_NAMEIDX_NONE) {
                char **names = ss_xcalloc(sc->nmodels + 1, sizeof *names);
                for (size_t k = 0; k < sc->nmodels; k++) names[k] = sc->models[k].name;
                return ss_sc_unknown_ref(st, "model", names, err);
            }
            t->stages[t->nstages++] = m;
        }
    }
    return 0;
}

/* ---- deployment --------------------------------------------------------- */

/* ---- policies, outputs ---------------------------------------------------- */

static int read_outputs(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    static const char *const keys[] = {"csv", "requests_csv", "timeseries_csv", "timeseries_interval_s", NULL};
    ss_node *out = NULL;
    TRY(ss_cfg_map(root, "outputs", &out, 0, err));
    const char *csv = NULL, *req = NULL, *ts = NULL;
    sc->timeseries_interval_s = 1.0;
    if (out) {
        TRY(ss_cfg_check_keys(out, keys, "outputs", err));
        TRY(ss_cfg_str(out, "csv", &csv, 0, err));
        TRY(ss_cfg_str(out, "requests_csv", &req, 0, err));
        TRY(ss_cfg_str(out, "timeseries_csv", &ts, 0, err));
        TRY(ss_cfg_num(out, "timeseries_interval_s", &sc->timeseries_interval_s, SS_POS, err));
        if (sc->timeseries_interval_s < SS_MIN_SAMPLE_S)
            return ss_node_err(ss_map_find(out, "timeseries_interval_s"), err,
                               "timeseries_interval_s: at least %g s, got %g", SS_MIN_SAMPLE_S, sc->timeseries_interval_s);
    }
    sc->csv_path = csv ? ss_xstrdup(csv) : ss_xasprintf("results/%s.csv", sc->name);
    sc->requests_csv_path = req ? ss_xstrdup(req) : NULL;
    sc->timeseries_csv_path = ts ? ss_xstrdup(ts) : NULL;
    return 0;
}

/* ---- variants and settings -------------------------------------------------- */

static void add_setting(ss_scenario *sc, const char *key, const char *value)
{
    /* seed and replication(s) are columns of their own in every CSV */
    if (strcmp(key, "seed") == 0 || strcmp(key, "replications") == 0) return;
    for (size_t i = 0; i < sc->nsettings; i++)
        if (strcmp(sc->settings[i].key, key) == 0) { /* a later setting of the same key wins */
            free(sc->settings[i].value);
            sc->settings[i].value = ss_xstrdup(value);
            return;
        }
    sc->settings = ss_xrealloc(sc->settings, (sc->nsettings + 1) * sizeof *sc->settings);
    sc->settings[sc->nsettings++] = (ss_setting){ss_xstrdup(key), ss_xstrdup(value)};
}

static int variant_node(const ss_doc *doc, const char *want, ss_node **out, ss_err *err)
{
    static const char *const keys[] = {"name", "set", NULL};
    *out = NULL;
    ss_node *vs = NULL;
    TRY(ss_cfg_seq(doc->root, "variants", &vs, 0, err));
    /* Each variant is read as a scenario of its own, the whole file each
     * time: past a thousand, a sweep says the same in less. */
    if (vs && vs->n > SS_MAX_VARIANTS)
        return ss_node_err(vs->items[SS_MAX_VARIANTS], err,
                           "variants: %zu, more than the %d a scenario may have (a sweep file runs a grid of points "
                           "without a variant each: docs/sweeps.md)", vs->n, SS_MAX_VARIANTS);
    ss_nameidx seen = SS_NAMEIDX_INIT; /* a name given twice: by index, not by a scan of those before */
    int rc = 0;
    for (size_t i = 0; vs && i < vs->n && rc == 0; i++) {
        const ss_node *v = vs->items[i];
        const char *name = NULL;
        ss_node *set = NULL;
        if (ss_node_expect(v, SS_NODE_MAP, "variant", err) < 0 || ss_cfg_check_keys(v, keys, "variant", err) < 0 ||
            ss_cfg_name(v, "name", &name, SS_REQ, err) < 0 || ss_cfg_map(v, "set", &set, SS_REQ, err) < 0)
            rc = -1;
        else if (ss_nameidx_put(&seen, name, (uint32_t)i) != SS_NAMEIDX_NONE)
            rc = ss_node_err(ss_map_find(v, "name"), err, "duplicate variant '%s'", name);
        else if (want && strcmp(name, want) == 0)
            *out = set;
    }
    ss_nameidx_free(&seen);
    return rc;
}

int ss_scenario_variants(const char *path, char ***names, size_t *n, ss_err *err)
{
    *names = NULL;
    *n = 0;
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return -1;
    ss_node *dummy, *vs = NULL;
    int rc = ss_node_expect(doc->root, SS_NODE_MAP, "scenario", err);
    if (rc == 0) rc = variant_node(doc, NULL, &dummy, err);
    if (rc == 0) rc = ss_cfg_seq(doc->root, "variants", &vs, 0, err) < 0 ? -1 : 0;
    if (rc == 0 && vs) {
        *names = ss_xcalloc(vs->n + 1, sizeof **names); /* NULL-terminated, for ss_suggest */
        for (size_t i = 0; i < vs->n; i++) (*names)[i] = ss_xstrdup(str_of(vs->items[i], "name"));
        *n = vs->n;
    }
    ss_doc_free(doc);
    return rc;
}

/* Apply the variant's `set:` entries, each as `key=<the value's text>`. */
static int apply_variant(ss_scenario *sc, ss_doc *doc, const char *variant, ss_err *err)
{
    ss_node *set;
    TRY(variant_node(doc, variant, &set, err));
    if (!set) {
        ss_node *vs = ss_map_find(doc->root, "variants");
        return ss_err_at(err, doc->path, vs ? vs->line : 1, vs ? vs->col : 1, "no variant named '%s'", variant);
    }
    for (size_t i = 0; i < set->n; i++) {
        const ss_node *kv = set->items[i];
        TRY(ss_doc_set_node(doc, kv, err));
        char *text = ss_node_flow(kv);
        add_setting(sc, kv->key, text);
        free(text);
    }
    return 0;
}

/* ---- the whole scenario ------------------------------------------------------ */

/* A run must end in a time a person can wait for: unless `requests`
 * bounds it, the requests the open workloads are expected to create over
 * duration_s (rate x time, a step or a distribution's mean at a time) may
 * be at most SS_MAX_REQUESTS (issue 12: `rate_rps: 1e300` passed `check`
 * and never ended). */
static int bounded(const ss_scenario *sc, const ss_node *wls, ss_err *err)
{
    if (sc->max_requests != UINT64_MAX || !isfinite(sc->duration_s)) return 0;
    double total = 0;
    for (size_t i = 0; i < sc->nworkloads; i++) {
        const ss_workload_cfg *w = &sc->workloads[i];
        double span = sc->duration_s - w->start_s, n = 0;
        if (span <= 0) continue;
        switch (w->kind) {
        case SS_WL_STEPS: {
            double from = w->start_s;
            ss_step_iter it;
            ss_rate_step st;
            ss_steps_begin(&it, w);
            while (from < sc->duration_s && ss_steps_next(&it, &st)) {
                double to = st.until_s < sc->duration_s ? st.until_s : sc->duration_s;
                n += st.rate_rps * (to - from);
                from = st.until_s;
            }
            ss_steps_end(&it);
            break;
        }
        case SS_WL_TRACE: n = (double)w->ntimes; break;
        case SS_WL_CLOSED: { /* each client: a think, then the task's stages one after another */
            double cycle_s = ss_dist_mean(&w->think);
            if (!(isfinite(cycle_s) && cycle_s > 0)) cycle_s = 0;
            const ss_task_cfg *t = &sc->tasks[w->task];
            for (uint32_t k = 0; k < t->nstages; k++) {
                double s_ = ss_dist_mean(&sc->models[t->stages[k]].service);
                if (isfinite(s_) && s_ > 0) cycle_s += s_;
            }
            n = cycle_s > 0 ? w->clients * span / cycle_s : 0; /* 0: no stated time bounds it */
            break;
        }
        default: {
            double mean = ss_dist_mean(&w->interarrival);
            n = mean > 0 ? span / mean : INFINITY;
        }
        }
        total += n;
        if (!(total <= SS_MAX_REQUESTS))
            return ss_node_err(wls->items[i], err,
                               "workload '%s': about %.3g requests over duration_s %g, more than the %.0e a run may "
                               "ask for: lower the rate or duration_s, or bound the run with requests:",
                               w->name, total, sc->duration_s, SS_MAX_REQUESTS);
    }
    return 0;
}

/* A sweep, plan or topology file given where a scenario is expected: say
 * which command reads it, rather than only "unknown key". */
static int other_kind(const ss_node *root, ss_err *err)
{
    static const struct {
        const char *key, *kind, *command;
    } marks[] = {{"axes", "a sweep file", "servesim sweep FILE"},
                 {"mixes", "a deployment plan", "servesim plan FILE"},
                 {"classes", "a deployment plan", "servesim plan FILE"},
                 {"spine_leaf", "a topology", "servesim flows FILE TRANSFERS.csv, or `topology:` in a scenario"},
                 {"host_types", "a topology", "servesim flows FILE TRANSFERS.csv, or `topology:` in a scenario"}};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        const ss_node *n = ss_map_find(root, marks[i].key);
        if (n)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "'%s' belongs to %s, not to a scenario: read it with %s", marks[i].key, marks[i].kind,
                             marks[i].command);
    }
    return 0;
}

/* `validation:` is read by `servesim validate` (cmd/validate.c); here it is
 * only checked, so that `check` and `run` refuse a broken one too. */
static int check_validation(const ss_scenario *sc, const ss_node *root, ss_err *err)
{
    ss_validation_cfg v;
    int rc = ss_validation_read(root, &v, err);
    if (rc > 0 && v.workload) {
        size_t w = 0;
        while (w < sc->nworkloads && strcmp(sc->workloads[w].name, v.workload) != 0) w++;
        if (w == sc->nworkloads) {
            char **names = ss_xcalloc(sc->nworkloads + 1, sizeof *names);
            for (size_t k = 0; k < sc->nworkloads; k++) names[k] = sc->workloads[k].name;
            rc = ss_node_unknown(ss_map_find(v.node, "workload"), "workload", (const char *const *)names, err);
            free(names);
        }
    } else if (rc > 0 && sc->nworkloads != 1) {
        rc = ss_node_err(v.node, err, "validation: the scenario has %zu workloads: say which one the runs' arrival "
                         "replaces (workload: NAME)", sc->nworkloads);
    }
    ss_validation_free(&v);
    return rc < 0 ? -1 : 0;
}

/* The first of keys that map root has (in the list's order), or NULL: a
 * system's scenario refuses the serving keys it takes elsewhere. */
static const ss_node *first_key_of(const ss_node *root, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++) {
        const ss_node *n = ss_map_find(root, keys[i]);
        if (n) return n;
    }
    return NULL;
}

/* The end of a system's scenario (edge, ensemble, LLM): the substrate's default
 * policies, which it does not use, and the outputs. */
static int system_tail(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    TRY(ss_policy_cfg_read(&sc->load_balancer, NULL, "load_balancer", "round-robin", err));
    TRY(ss_policy_cfg_read(&sc->scheduler, NULL, "scheduler", "fifo", err));
    return read_outputs(sc, root, err);
}

static int read_scenario(ss_scenario *sc, ss_doc *doc, ss_err *err)
{
    static const char *const top[] = {"name", "description", "seed", "replications", "duration_s", "requests",
                                      "warmup_s", "warmup_requests", "topology", "hosts", "models", "tasks", "deployment",
                                      "workloads", "events", "autoscaling", "placement", "partitioning", "policies", "outputs", "variants", "pipeline",
                                      "edge", "validation", "dispatch", "control", "ensemble", "llm", NULL};
    const ss_node *root = doc->root;
    TRY(ss_node_expect(root, SS_NODE_MAP, "scenario", err));
    TRY(other_kind(root, err));
    TRY(ss_cfg_check_keys(root, top, "scenario", err));
    const char *name = NULL, *desc;
    TRY(ss_cfg_name(root, "name", &name, 0, err));
    TRY(ss_cfg_str(root, "description", &desc, 0, err));
    if (!name) { /* default: the file name without folder and extension */
        const char *base = strrchr(sc->path, '/');
        base = base ? base + 1 : sc->path;
        sc->name = ss_xstrdup(base);
        char *dot = strrchr(sc->name, '.');
        if (dot && dot != sc->name) *dot = '\0';
    } else {
        sc->name = ss_xstrdup(name);
    }
    unsigned long long seed = 1, reps = 1, req = 0, wreq = 0;
    TRY(ss_cfg_u64(root, "seed", &seed, 0, err));
    TRY(ss_cfg_u64(root, "replications", &reps, 0, err));
    if (reps < 1 || reps > 100000)
        return ss_node_err(ss_map_find(root, "replications"), err, "replications: expected 1 to 100000, got %llu", reps);
    sc->seed = seed;
    sc->replications = (uint32_t)reps;
    sc->duration_s = INFINITY;
    int has_d = 0, has_r = 0;
    TRY(has_d = ss_cfg_num(root, "duration_s", &sc->duration_s, SS_POS, err));
    TRY(has_r = ss_cfg_u64(root, "requests", &req, 0, err));
    if (has_r && req == 0) return ss_node_err(ss_map_find(root, "requests"), err, "requests: expected at least 1");
    sc->max_requests = has_r ? req : UINT64_MAX;
    const ss_node *ens = ss_map_find(root, "ensemble"); /* its benchmark mode ends when its images are in */
    if (!has_d && !has_r && !ens)
        return ss_node_err(root, err, "scenario: give duration_s or requests (or both) to end the run");
    TRY(ss_cfg_num(root, "warmup_s", &sc->warmup_s, SS_NONNEG, err));
    TRY(ss_cfg_u64(root, "warmup_requests", &wreq, 0, err));
    sc->warmup_requests = wreq;
    if (sc->warmup_s >= sc->duration_s)
        return ss_node_err(ss_map_find(root, "warmup_s"), err, "warmup_s (%g) must be shorter than duration_s (%g)",
                           sc->warmup_s, sc->duration_s);
    if (has_r && wreq >= req)
        return ss_node_err(ss_map_find(root, "warmup_requests"), err,
                           "warmup_requests (%llu) must be fewer than requests (%llu)", wreq, req);

    ss_node *hosts = NULL, *models, *tasks = NULL, *deploy, *wls, *pols = NULL, *edge = NULL, *llm = NULL;
    /* An LLM-serving scenario (llm_cfg.h) takes its model, GPUs, engines and workload from `llm:`. */
    TRY(ss_cfg_map(root, "llm", &llm, 0, err));
    if (llm) {
        static const char *const serving[] = {"topology", "hosts", "models", "tasks", "deployment", "workloads",
                                              "events", "autoscaling", "placement", "partitioning", "policies",
                                              "pipeline", "validation", "dispatch", "control", "ensemble", "edge",
                                              "warmup_requests", NULL};
        const ss_node *n = first_key_of(root, serving);
        if (n)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "'%s' is not a key of an LLM scenario: a scenario with 'llm:' takes its model, GPUs, "
                             "engines and workload from 'llm:' (docs/llm.md)", n->key);
        TRY(ss_llm_scn_read(&sc->llm, llm, err));
        return system_tail(sc, root, err);
    }
    /* An edge scenario (edge.h) replaces the serving keys. */
    TRY(ss_cfg_map(root, "edge", &edge, 0, err));
    if (edge) {
        static const char *const serving[] = {"topology", "hosts", "models", "tasks", "deployment", "workloads",
                                              "events", "autoscaling", "placement", "partitioning", "policies", "pipeline",
                                              "validation", "dispatch", "control", "ensemble", NULL};
        const ss_node *n = first_key_of(root, serving);
        if (n)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "'%s' is a serving key: a scenario with 'edge:' takes its networks, workload and "
                             "scheduler from 'edge:'", n->key);
        TRY(ss_edge_cfg_read(&sc->edge, edge, sc->dir, err));
        return system_tail(sc, root, err);
    }
    if (ens) { /* an ensemble scenario (ensemble_cfg.h): hosts, then the members and the matrix */
        static const char *const serving[] = {"topology", "models", "tasks", "deployment", "workloads", "events",
                                              "autoscaling", "placement", "partitioning", "policies", "pipeline",
                                              "validation", "dispatch", "control", NULL};
        const ss_node *n = first_key_of(root, serving);
        if (n)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "'%s' is a serving key: a scenario with 'ensemble:' takes its members, workers and "
                             "requests from 'ensemble:'", n->key);
        TRY(ss_node_expect(ens, SS_NODE_MAP, "ensemble", err));
        TRY(ss_cfg_seq(root, "hosts", &hosts, SS_REQ, err));
        TRY(read_devices(sc, hosts, err));
        if (sc->ndevices == 0) return ss_node_err(hosts, err, "hosts: expected at least one host");
        TRY(ss_ensemble_cfg_read(&sc->ensemble, sc, ens, err));
        static const char *const not_bench[] = {"duration_s", "requests", "warmup_s", "warmup_requests", NULL};
        if (sc->ensemble->mode == SS_ENS_BENCHMARK && (n = first_key_of(root, not_bench)) != NULL)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "%s: an ensemble in mode benchmark runs its images to the end, all measured (deploy "
                             "mode takes requests or duration_s, and a warm-up)", n->key);
        return system_tail(sc, root, err);
    }
    TRY(read_topology(sc, root, err));
    TRY(ss_cfg_seq(root, "hosts", &hosts, sc->topo ? 0 : SS_REQ, err));
    if (hosts) TRY(read_devices(sc, hosts, err));
    else devices_from_topology(sc);
    if (sc->ndevices == 0)
        return ss_node_err(hosts ? hosts : ss_map_find(root, "topology"), err,
                           hosts ? "hosts: expected at least one host" : "topology: it has no GPU to deploy on");
    TRY(ss_cfg_seq(root, "models", &models, SS_REQ, err));
    if (models->n == 0) return ss_node_err(models, err, "models: expected at least one model");
    TRY(read_models(sc, models, err));
    TRY(ss_cfg_seq(root, "tasks", &tasks, 0, err));
    TRY(read_tasks(sc, tasks, err));
    TRY(ss_cfg_seq(root, "deployment", &deploy, SS_REQ, err));
    TRY(ss_sc_read_deployment(sc, deploy, err));
    TRY(ss_cfg_seq(root, "workloads", &wls, SS_REQ, err));
    TRY(ss_sc_read_workloads(sc, wls, err));
    ss_node *events = NULL;
    TRY(ss_cfg_seq(root, "events", &events, 0, err));
    TRY(ss_sc_read_autoscaling(sc, root, err));
    TRY(ss_sc_read_placement(sc, root, err));
    TRY(ss_sc_read_events(sc, events, deploy, err));
    TRY(ss_sc_read_partitioning(sc, root, err));
    TRY(ss_sc_read_control(sc, root, err));
    TRY(bounded(sc, wls, err));
    TRY(ss_sc_check_totals(sc, root, err));
    /* Every stage a workload can reach needs somewhere to run. */
    for (size_t w = 0; w < sc->nworkloads; w++) {
        const ss_task_cfg *t = &sc->tasks[sc->workloads[w].task];
        for (uint32_t s = 0; s < t->nstages; s++) {
            int deployed = 0;
            for (size_t d = 0; d < sc->ndeploys; d++)
                deployed |= sc->deploys[d].model == t->stages[s] && sc->deploys[d].instances > 0;
            deployed |= sc->autoscale && sc->autoscale->models[t->stages[s]]; /* it will start some */
            for (size_t e = 0; e < sc->nevents; e++)
                deployed |= sc->events[e].kind == SS_EV_ADD && sc->deploys[sc->events[e].deploy].model == t->stages[s];
            if (!deployed)
                return ss_node_err(ss_map_find(wls->items[w], "target"), err,
                                   "model '%s' (used by workload '%s') has no instance in deployment",
                                   sc->models[t->stages[s]].name, sc->workloads[w].name);
        }
    }
    TRY(ss_pipeline_read(sc, root, err));
    if (sc->pipeline) { /* block processes are FIFO servers that live for the whole run */
        for (size_t d = 0; d < sc->ndeploys; d++)
            if (sc->deploys[d].discipline != SS_DISC_FIFO || sc->deploys[d].shared_queue || !sc->deploys[d].instances)
                return ss_err_at(err, deploy->file, sc->deploys[d].line, sc->deploys[d].col,
                                 "deployment entry: a block pipeline's processes are per-instance FIFO servers "
                                 "with at least one instance (no discipline, queue or instances: 0 here)");
        if (sc->nevents)
            return ss_node_err(events, err, "events: a block pipeline's processes live for the whole run");
        if (sc->autoscale)
            return ss_node_err(ss_map_find(root, "autoscaling"), err,
                               "autoscaling: a block pipeline's processes live for the whole run");
    }
    TRY(check_validation(sc, root, err));
    static const char *const pol_keys[] = {"load_balancer", "scheduler", "admission", NULL};
    TRY(ss_cfg_map(root, "policies", &pols, 0, err));
    if (pols) TRY(ss_cfg_check_keys(pols, pol_keys, "policies", err));
    TRY(ss_policy_cfg_read(&sc->load_balancer, pols, "load_balancer", "round-robin", err));
    TRY(ss_policy_cfg_read(&sc->scheduler, pols, "scheduler", "fifo", err));
    if (pols && ss_map_find(pols, "admission")) TRY(ss_policy_cfg_read(&sc->admission, pols, "admission", NULL, err));
    TRY(read_outputs(sc, root, err));
    return 0;
}

int ss_scenario_load(ss_scenario *sc, const char *path, const char *variant, char *const *sets, size_t nsets,
                     ss_err *err)
{
    return ss_scenario_load_with(sc, path, variant, NULL, 0, sets, nsets, err);
}

int ss_scenario_load_with(ss_scenario *sc, const char *path, const char *variant, const ss_assign *assigns,
                          size_t nassigns, char *const *sets, size_t nsets, ss_err *err)
{
    return ss_scenario_load_horizon(sc, path, variant, assigns, nassigns, sets, nsets, 0, err);
}

int ss_scenario_load_horizon(ss_scenario *sc, const char *path, const char *variant, const ss_assign *assigns,
                             size_t nassigns, char *const *sets, size_t nsets, double horizon_s, ss_err *err)
{
    memset(sc, 0, sizeof *sc);
    sc->path = ss_xstrdup(path);
    sc->dir = ss_dirname(path);
    sc->variant = ss_xstrdup(variant ? variant : "");
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return -1;
    int rc = 0;
    if (variant) rc = apply_variant(sc, doc, variant, err);
    for (size_t i = 0; rc == 0 && i < nassigns; i++) {
        const ss_assign *a = &assigns[i];
        rc = ss_doc_set_value(doc, a->key, a->value, a->file, a->line, a->col, err);
        if (rc == 0) {
            char *text = ss_node_flow(a->value);
            add_setting(sc, a->key, text);
            free(text);
        }
    }
    for (size_t i = 0; rc == 0 && i < nsets; i++) {
        rc = ss_doc_set(doc, sets[i], (int)i, err);
        const char *eq = strchr(sets[i], '=');
        if (rc == 0 && eq) {
            char *key = ss_xstrdup(sets[i]);
            key[eq - sets[i]] = '\0';
            add_setting(sc, key, eq + 1);
            free(key);
        }
    }
    double old_s = INFINITY;
    if (rc == 0 && horizon_s > 0) {
        rc = ss_sc_horizon_edit(doc, horizon_s, &old_s, err);
        const ss_node *d = rc == 0 ? ss_map_find(doc->root, "duration_s") : NULL;
        if (d) { /* a column, as --set duration_s=... makes */
            char *text = ss_node_flow(d);
            add_setting(sc, "duration_s", text);
            free(text);
        }
    }
    if (rc == 0) rc = read_scenario(sc, doc, err);
    if (rc == 0 && horizon_s > 0) rc = ss_sc_horizon_check(sc, doc, horizon_s, old_s, err);
    /* Policy positions point into the document: keep copies. */
    const char *files[2] = {sc->load_balancer.file, sc->scheduler.file};
    sc->load_balancer.file = files[0] ? ss_xstrdup(files[0]) : ss_xstrdup(path);
    sc->scheduler.file = files[1] ? ss_xstrdup(files[1]) : ss_xstrdup(path);
    if (sc->admission.name) sc->admission.file = ss_xstrdup(sc->admission.file ? sc->admission.file : path);
    ss_doc_free(doc);
    return rc;
}

void ss_scenario_free(ss_scenario *sc)
{
    ss_nameidx_free(&sc->device_names);
    ss_nameidx_free(&sc->model_names);
    ss_nameidx_free(&sc->task_names);
    ss_nameidx_free(&sc->device_short);
    for (size_t i = 0; i < sc->ndevices; i++) {
        free(sc->devices[i].name);
        free(sc->devices[i].type);
    }
    for (size_t i = 0; i < sc->nmodels; i++) {
        free(sc->models[i].name);
        free(sc->models[i].profile);
        free(sc->models[i].source);
        ss_dist_free(&sc->models[i].service);
        if (sc->models[i].has_cpu_service) ss_dist_free(&sc->models[i].cpu_service);
        ss_block_free(sc->models[i].block);
        free(sc->models[i].block);
        ss_llm_scn_free(sc->models[i].llm);
    }
    for (size_t i = 0; i < sc->ntasks; i++) {
        free(sc->tasks[i].name);
        free(sc->tasks[i].stages);
    }
    for (size_t i = 0; i < sc->nworkloads; i++) {
        ss_workload_cfg *w = &sc->workloads[i];
        free(w->name);
        ss_dist_free(&w->interarrival);
        ss_dist_free(&w->think);
        free(w->steps);
        ss_synth_shape_free(w->shape);
        free(w->times_s);
        free(w->prompt_tokens);
        free(w->output_tokens);
    }
    for (size_t i = 0; i < sc->nsettings; i++) {
        free(sc->settings[i].key);
        free(sc->settings[i].value);
    }
    ss_policy_cfg_free(&sc->load_balancer);
    ss_policy_cfg_free(&sc->scheduler);
    ss_policy_cfg_free(&sc->admission);
    ss_edge_cfg_free(sc->edge);
    ss_ensemble_cfg_free(sc->ensemble);
    ss_llm_scn_free(sc->llm);
    free(sc->devices);
    free(sc->models);
    free(sc->tasks);
    free(sc->deploys);
    free(sc->events);
    ss_autoscale_cfg_free(sc->autoscale);
    ss_placement_cfg_free(sc->placement);
    ss_partitioning_cfg_free(sc->partitioning, sc->nmodels);
    ss_control_cfg_free(sc->control);
    free(sc->workloads);
    free(sc->settings);
    free(sc->path);
    free(sc->dir);
    free(sc->variant);
    free(sc->name);
    free(sc->csv_path);
    free(sc->requests_csv_path);
    free(sc->timeseries_csv_path);
    ss_topo_free(sc->topo);
    ss_pipeline_free(sc->pipeline);
    memset(sc, 0, sizeof *sc);
}
