/* scenario_deploy.c: the `deployment:` and `events:` sections (see
 * scenario_deploy.h and docs/scenarios.md, "Deployment" and "Events").
 *
 * An instance is named by `model@device`, optionally `#k` for the k-th
 * (from 0) instance of that model on that device in creation order: the
 * deployment entries' instances first, in entry order, then those that
 * `add` events start, in time order.  Without `#k`, `#0`. */
#include "input/scenario_deploy.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/llm_cfg.h"
#include "input/section.h"

#define TRY_(x)                  \
    do {                         \
        if ((x) < 0) return -1;  \
    } while (0)

double ss_device_capacity(const ss_device_cfg *d) { return d->kind == SS_DEV_CPU ? (double)d->cores : 1.0; }

static const char *const disciplines[] = {"fifo", "ps", "preemptive-priority", NULL};
static const char *const queues[] = {"per-instance", "shared", NULL};

/* An LLM model's engine on d's device (llm_cfg.h): it holds up to
 * max_num_seqs requests (its servers), FIFO, its KV blocks from the GPU's
 * memory; the model's run-time memory beside its weights is the most any
 * of its GPUs' engines takes, its smallest KV cache the least any holds. */
static int llm_entry(ss_scenario *sc, ss_deploy_cfg *d, const ss_node *it, ss_err *err)
{
    ss_model_cfg *m = &sc->models[d->model];
    const ss_device_cfg *dev = &sc->devices[d->device];
    const ss_node *sn = ss_map_find(it, "servers"), *dn = ss_map_find(it, "discipline");
    if (sn)
        return ss_node_err(sn, err, "servers: an LLM engine holds up to its llm.engine.max_num_seqs requests (%u); "
                                    "remove 'servers'", m->llm->max_num_seqs);
    if (dn && d->discipline != SS_DISC_FIFO)
        return ss_node_err(dn, err, "discipline: an LLM engine batches the requests it holds (vLLM's scheduler); "
                                    "remove 'discipline'");
    if (dev->kind != SS_DEV_GPU)
        return ss_node_err(it, err, "model '%s' is an LLM: it runs on GPUs, and '%s' is a CPU", m->name, dev->name);
    char why[512];
    double runtime = 0;
    if (ss_llm_deploy_fit(m->llm, dev->vram_bytes, &d->kv_blocks, &runtime, why, sizeof why) < 0)
        return ss_node_err(it, err, "model '%s' on '%s': %s", m->name, dev->name, why);
    d->servers = m->llm->max_num_seqs;
    if (runtime > m->runtime_vram_bytes) m->runtime_vram_bytes = runtime;
    if (!m->llm->min_kv_blocks || d->kv_blocks < m->llm->min_kv_blocks) m->llm->min_kv_blocks = d->kv_blocks;
    return 0;
}

/* One deployment entry onto `device` (UINT32_MAX: the entry's `device`). */
static int read_entry(ss_scenario *sc, ss_deploy_cfg *d, const ss_node *it, uint32_t device, ss_err *err)
{
    static const char *const keys[] = {"model",  "device", "devices", "instances", "servers", "queue_capacity",
                                       "discipline", "queue", "cap", "threads", "startup_s", NULL};
    TRY_(ss_node_expect(it, SS_NODE_MAP, "deployment entry", err));
    TRY_(ss_cfg_check_keys(it, keys, "deployment entry", err));
    d->line = it->line;
    d->col = it->col;
    const ss_node *mn = ss_map_find(it, "model");
    if (!mn) return ss_node_err(it, err, "deployment entry: missing key 'model'");
    TRY_(ss_node_expect(mn, SS_NODE_SCALAR, "model", err));
    TRY_(ss_sc_model_ref(sc, mn, &d->model, err));
    if (device != UINT32_MAX) {
        d->device = device;
    } else {
        const ss_node *dev = ss_map_find(it, "device");
        if (!dev) return ss_node_err(it, err, "deployment entry: missing key 'device' (or 'devices', a pattern)");
        TRY_(ss_node_expect(dev, SS_NODE_SCALAR, "device", err));
        TRY_(ss_scenario_device(sc, dev, &d->device, err));
    }
    unsigned long long inst = 1, servers = 1, cap = UINT64_MAX;
    TRY_(ss_cfg_u64(it, "instances", &inst, 0, err));
    if (inst > 1000000)
        return ss_node_err(ss_map_find(it, "instances"), err, "instances: expected 0 to 1000000, got %llu", inst);
    TRY_(ss_cfg_u64(it, "servers", &servers, 0, err));
    if (servers == 0 || servers > 100000)
        return ss_node_err(ss_map_find(it, "servers"), err, "servers: expected 1 to 100000, got %llu", servers);
    TRY_(ss_cfg_u64(it, "queue_capacity", &cap, 0, err));
    int disc = SS_DISC_FIFO, shared = 0;
    TRY_(ss_cfg_enum(it, "discipline", disciplines, &disc, 0, err));
    TRY_(ss_cfg_enum(it, "queue", queues, &shared, 0, err));
    d->discipline = (ss_discipline)disc;
    d->shared_queue = shared;
    d->instances = (uint32_t)inst;
    d->servers = (uint32_t)servers;
    const ss_model_cfg *mc = &sc->models[d->model];
    if (mc->llm) TRY_(llm_entry(sc, d, it, err));
    d->queue_capacity = cap;
    const ss_node *sn = ss_map_find(it, "servers");
    if (sn && disc == SS_DISC_PS && !shared)
        return ss_err_at(err, sn->file, sn->key_line, sn->key_col,
                         "servers: a ps instance serves every request it holds at once; remove 'servers' "
                         "(or use discipline: fifo; behind a shared queue, servers is how many it holds)");
    if (sn && disc == SS_DISC_PREEMPT)
        return ss_err_at(err, sn->file, sn->key_line, sn->key_col,
                         "servers: a preemptive-priority instance has one server; remove 'servers'");
    if (shared && disc == SS_DISC_PREEMPT)
        return ss_node_err(ss_map_find(it, "queue"), err,
                           "queue: shared works with discipline fifo or ps (this entry says '%s')", disciplines[disc]);
    TRY_(ss_cfg_num(it, "startup_s", &d->startup_s, SS_NONNEG, err));
    const ss_device_cfg *dc = &sc->devices[d->device];
    double devcap = ss_device_capacity(dc);
    const char *unit = dc->kind == SS_DEV_CPU ? "cores" : "GPU";
    d->threads = dc->kind == SS_DEV_CPU ? 1 : 0;
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "threads" : "cap";
        const ss_node *n = ss_map_find(it, key);
        if (!n) continue;
        if (disc != SS_DISC_PS)
            return ss_err_at(err, n->file, n->key_line, n->key_col,
                             "%s: only a ps instance shares its device's compute (add discipline: ps)", key);
        double v = 0;
        TRY_(ss_cfg_num(it, key, &v, SS_POS, err));
        if (v > devcap)
            return ss_node_err(n, err, "%s: %g is above the capacity of device '%s' (%g %s)", key, v, dc->name, devcap,
                               unit);
        if (v < 1e-3) /* a millicore: the finest share a container runtime (CFS quota, k8s) gives */
            return ss_node_err(n, err, "%s: %g is below 0.001 %s, the finest share a device's compute is divided in",
                               key, v, unit);
        if (k) d->threads = v;
        else d->cap = v;
    }
    return 0;
}

/* A GPU with its memory given must hold the replicas deployed on it: each
 * the model's weights plus its run-time memory.  used_bytes[device] sums,
 * in entry order, what the entries before this one put there. */
static int fits(const ss_scenario *sc, size_t upto, double *used_bytes, const ss_node *it, ss_err *err)
{
    const ss_deploy_cfg *d = &sc->deploys[upto];
    const ss_device_cfg *dev = &sc->devices[d->device];
    if (dev->kind != SS_DEV_GPU || dev->vram_bytes <= 0) return 0;
    const ss_model_cfg *m = &sc->models[d->model];
    double one = m->weights_bytes + m->runtime_vram_bytes;
    if (one > dev->vram_bytes)
        return ss_node_err(it, err,
                           "model '%s' needs %.3f GiB of VRAM (weights + run-time memory) and device '%s' has %.3f GiB: "
                           "it cannot run there",
                           m->name, one / 1073741824.0, dev->name, dev->vram_bytes / 1073741824.0);
    double used = used_bytes[d->device] += (double)d->instances * one;
    if (used > dev->vram_bytes)
        return ss_node_err(it, err, "instances: the replicas deployed on device '%s' need %.3f GiB of VRAM, it has %.3f GiB",
                           dev->name, used / 1073741824.0, dev->vram_bytes / 1073741824.0);
    return 0;
}

/* `devices: PATTERN`: the devices whose full name ("host/device") matches
 * the shell pattern (fnmatch), in scenario order; none is an error. */
static int matching(const ss_scenario *sc, const ss_node *it, uint32_t **out, size_t *n, ss_err *err)
{
    const ss_node *pat = ss_map_find(it, "devices");
    *out = NULL;
    *n = 0;
    if (!pat) return 0;
    if (ss_map_find(it, "device"))
        return ss_node_err(pat, err, "devices: give either 'device' (one) or 'devices' (a pattern), not both");
    TRY_(ss_node_expect(pat, SS_NODE_SCALAR, "devices", err));
    *out = ss_xcalloc(sc->ndevices + 1, sizeof **out);
    for (size_t d = 0; d < sc->ndevices; d++)
        if (fnmatch(pat->value, sc->devices[d].name, 0) == 0) (*out)[(*n)++] = (uint32_t)d;
    if (*n == 0) {
        free(*out);
        *out = NULL;
        return ss_node_err(pat, err, "devices: no device matches '%s' (names are host/device, e.g. 'h*/gpu*')",
                           pat->value);
    }
    return 0;
}

/* One model, one kind of queue: a shared queue is the model's.  first[m]
 * is model m's first entry, UINT32_MAX before it has one. */
static int same_queue(const ss_scenario *sc, size_t i, uint32_t *first, const ss_node *it, ss_err *err)
{
    uint32_t m = sc->deploys[i].model, k = first[m];
    if (k == UINT32_MAX) {
        first[m] = (uint32_t)i;
        return 0;
    }
    if (sc->deploys[k].shared_queue == sc->deploys[i].shared_queue) return 0;
    const ss_node *q = ss_map_find(it, "queue");
    return ss_node_err(q ? q : it, err,
                       "queue: model '%s' has a shared queue in one entry and not in another (line %d): a "
                       "shared queue is the model's, so say it in every entry",
                       sc->models[m].name, sc->deploys[k].line);
}

int ss_sc_read_deployment(ss_scenario *sc, const ss_node *seq, ss_err *err)
{
    size_t cap = seq->n ? seq->n : 1;
    sc->deploys = ss_xcalloc(cap, sizeof *sc->deploys);
    double *used_bytes = ss_xcalloc(sc->ndevices ? sc->ndevices : 1, sizeof *used_bytes);
    uint32_t *first = ss_xmalloc((sc->nmodels ? sc->nmodels : 1) * sizeof *first);
    memset(first, 0xff, (sc->nmodels ? sc->nmodels : 1) * sizeof *first);
    int rc = 0;
    for (size_t e = 0; rc == 0 && e < seq->n; e++) {
        const ss_node *it = seq->items[e];
        uint32_t *devs = NULL;
        size_t ndev = 0;
        rc = matching(sc, it, &devs, &ndev, err);
        for (size_t k = 0; rc == 0 && k < (devs ? ndev : 1); k++) {
            if (sc->ndeploys == cap) sc->deploys = ss_xrealloc(sc->deploys, (cap *= 2) * sizeof *sc->deploys);
            size_t i = sc->ndeploys;
            memset(&sc->deploys[i], 0, sizeof sc->deploys[i]);
            rc = read_entry(sc, &sc->deploys[i], it, devs ? devs[k] : UINT32_MAX, err);
            if (rc == 0) {
                sc->ndeploys = i + 1;
                rc = fits(sc, i, used_bytes, it, err);
            }
            if (rc == 0) rc = same_queue(sc, i, first, it, err);
        }
        free(devs);
    }
    free(used_bytes);
    free(first);
    return rc;
}

/* ---- events ---------------------------------------------------------------- */

static const char *const actions[] = {"add", "remove", "fail", "capacity", NULL};

/* The deployment entries sorted by (model, device, place), so that an
 * event finds its model's entries on a device by binary search: events x
 * log(entries), not events x entries. */
typedef struct deploy_index {
    const ss_scenario *sc;
    uint32_t *order;
} deploy_index;

static const ss_scenario *index_sc; /* qsort has no context argument */

static int by_model_device(const void *a, const void *b)
{
    const ss_deploy_cfg *x = &index_sc->deploys[*(const uint32_t *)a], *y = &index_sc->deploys[*(const uint32_t *)b];
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static void index_build(deploy_index *ix, const ss_scenario *sc)
{
    ix->sc = sc;
    ix->order = ss_xcalloc(sc->ndeploys + 1, sizeof *ix->order);
    for (uint32_t d = 0; d < sc->ndeploys; d++) ix->order[d] = d;
    index_sc = sc;
    qsort(ix->order, sc->ndeploys, sizeof *ix->order, by_model_device);
}

/* The place in ix->order of (model, device)'s first entry, or ndeploys. */
static size_t index_first(const deploy_index *ix, uint32_t model, uint32_t device)
{
    size_t lo = 0, hi = ix->sc->ndeploys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ss_deploy_cfg *d = &ix->sc->deploys[ix->order[mid]];
        if (d->model < model || (d->model == model && d->device < device)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int index_has(const deploy_index *ix, size_t k, uint32_t model, uint32_t device)
{
    return k < ix->sc->ndeploys && ix->sc->deploys[ix->order[k]].model == model &&
           ix->sc->deploys[ix->order[k]].device == device;
}

/* Instances of (model, device) created by deployment entries. */
static uint32_t deployed_count(const deploy_index *ix, uint32_t model, uint32_t device)
{
    uint32_t n = 0;
    for (size_t k = index_first(ix, model, device); index_has(ix, k, model, device); k++)
        n += ix->sc->deploys[ix->order[k]].instances;
    return n;
}

static int entry_of(const deploy_index *ix, uint32_t model, uint32_t device, uint32_t *entry)
{
    size_t k = index_first(ix, model, device);
    if (!index_has(ix, k, model, device)) return -1;
    *entry = ix->order[k];
    return 0;
}

/* `model@device[#k]` -> entry and ordinal; `added` counts the instances
 * that earlier add events started per deployment entry. */
static int instance_ref(const ss_scenario *sc, const deploy_index *ix, const ss_node *n, const uint32_t *added,
                        ss_event_cfg *e, ss_err *err)
{
    const char *v = n->value, *at = strchr(v, '@');
    if (!at || at == v || !at[1])
        return ss_node_err(n, err, "instance: expected 'model@device' or 'model@device#k', got '%s'", v);
    char *model = ss_xstrdup(v);
    model[at - v] = '\0';
    char *dev = ss_xstrdup(at + 1), *hash = strrchr(dev, '#');
    unsigned long k = 0;
    if (hash) {
        char *end;
        k = strtoul(hash + 1, &end, 10);
        if (hash[1] < '0' || hash[1] > '9' || *end || k > 1000000) {
            free(model);
            free(dev);
            return ss_node_err(n, err, "instance: '#' must be followed by an instance number, in '%s'", v);
        }
        *hash = '\0';
    }
    ss_node mnode = *n, dnode = *n;
    mnode.value = model;
    dnode.value = dev;
    uint32_t m, d;
    int rc = ss_sc_model_ref(sc, &mnode, &m, err);
    if (rc == 0) rc = ss_scenario_device(sc, &dnode, &d, err);
    free(model);
    free(dev);
    TRY_(rc);
    uint32_t entry = 0;
    if (entry_of(ix, m, d, &entry) < 0)
        return ss_node_err(n, err, "instance: model '%s' has no deployment entry on device '%s'", sc->models[m].name,
                           sc->devices[d].name);
    uint32_t have = deployed_count(ix, m, d) + added[entry];
    if (k >= have)
        return ss_node_err(n, err, "instance: '%s' names instance #%lu, but model '%s' has %u on device '%s' by then",
                           v, k, sc->models[m].name, have, sc->devices[d].name);
    e->deploy = entry;
    e->ordinal = (uint32_t)k;
    return 0;
}

static int read_event(ss_scenario *sc, const deploy_index *ix, const ss_node *it, uint32_t *added, ss_event_cfg *e,
                      ss_err *err)
{
    static const char *const keys[] = {"at_s", "action", "model", "device", "instances", "startup_s",
                                       "instance", "requests", "capacity", NULL};
    static const char *const fates[] = {"lose", "requeue", NULL};
    TRY_(ss_node_expect(it, SS_NODE_MAP, "event", err));
    TRY_(ss_cfg_check_keys(it, keys, "event", err));
    TRY_(ss_cfg_num(it, "at_s", &e->at_s, SS_REQ | SS_NONNEG, err));
    int act = 0;
    TRY_(ss_cfg_enum(it, "action", actions, &act, SS_REQ, err));
    e->kind = (ss_event_kind)act;
    /* Keys each action takes, besides at_s and action. */
    static const char *const takes[][5] = {{"model", "device", "instances", "startup_s", NULL},
                                           {"instance", NULL},
                                           {"instance", "requests", NULL},
                                           {"device", "instance", "capacity", NULL}};
    for (size_t i = 0; i < it->n; i++) {
        const ss_node *c = it->items[i];
        if (strcmp(c->key, "at_s") == 0 || strcmp(c->key, "action") == 0) continue;
        int ok = 0;
        for (size_t k = 0; takes[act][k]; k++) ok |= strcmp(takes[act][k], c->key) == 0;
        if (!ok)
            return ss_err_at(err, c->file, c->key_line, c->key_col, "%s: an '%s' event does not take this key", c->key,
                             actions[act]);
    }
    const ss_node *inst = ss_map_find(it, "instance");
    switch (e->kind) {
    case SS_EV_ADD: {
        const ss_node *mn = ss_map_find(it, "model"), *dn = ss_map_find(it, "device");
        if (!mn || !dn) return ss_node_err(it, err, "event: an 'add' event needs 'model' and 'device'");
        TRY_(ss_node_expect(mn, SS_NODE_SCALAR, "model", err));
        TRY_(ss_node_expect(dn, SS_NODE_SCALAR, "device", err));
        uint32_t m, d;
        TRY_(ss_sc_model_ref(sc, mn, &m, err));
        TRY_(ss_scenario_device(sc, dn, &d, err));
        if (entry_of(ix, m, d, &e->deploy) < 0)
            return ss_node_err(it, err,
                               "event: model '%s' has no deployment entry on device '%s' to copy: add one "
                               "(with instances: 0 if none should run from the start)",
                               sc->models[m].name, sc->devices[d].name);
        unsigned long long n = 1;
        TRY_(ss_cfg_u64(it, "instances", &n, 0, err));
        if (n == 0 || n > 1000000)
            return ss_node_err(ss_map_find(it, "instances"), err, "instances: expected 1 to 1000000, got %llu", n);
        e->count = (uint32_t)n;
        TRY_(ss_cfg_num(it, "startup_s", &e->startup_s, SS_NONNEG, err));
        added[e->deploy] += e->count;
        return 0;
    }
    case SS_EV_REMOVE:
    case SS_EV_FAIL: {
        if (!inst) return ss_node_err(it, err, "event: a '%s' event needs 'instance'", actions[act]);
        TRY_(ss_node_expect(inst, SS_NODE_SCALAR, "instance", err));
        TRY_(instance_ref(sc, ix, inst, added, e, err));
        int fate = 1;
        TRY_(ss_cfg_enum(it, "requests", fates, &fate, 0, err));
        e->requeue = fate;
        return 0;
    }
    case SS_EV_CAPACITY: {
        const ss_node *dn = ss_map_find(it, "device");
        if (!!dn == !!inst)
            return ss_node_err(it, err, "event: a 'capacity' event names either 'device' or 'instance' (a ps instance)");
        TRY_(ss_cfg_num(it, "capacity", &e->capacity, SS_REQ | SS_POS, err));
        if (dn) {
            TRY_(ss_node_expect(dn, SS_NODE_SCALAR, "device", err));
            TRY_(ss_scenario_device(sc, dn, &e->device, err));
            e->on_device = 1;
            return 0;
        }
        TRY_(ss_node_expect(inst, SS_NODE_SCALAR, "instance", err));
        TRY_(instance_ref(sc, ix, inst, added, e, err));
        const ss_deploy_cfg *d = &sc->deploys[e->deploy];
        if (d->discipline != SS_DISC_PS)
            return ss_node_err(inst, err, "instance: a capacity event changes the cap of a ps instance, and '%s' is not one",
                               inst->value);
        double devcap = ss_device_capacity(&sc->devices[d->device]);
        if (e->capacity > devcap)
            return ss_node_err(ss_map_find(it, "capacity"), err, "capacity: %g is above the capacity of device '%s' (%g)",
                               e->capacity, sc->devices[d->device].name, devcap);
        return 0;
    }
    }
    return 0;
}

static const double *event_times; /* qsort has no context argument */

static int by_time_then_place(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (event_times[i] != event_times[j]) return event_times[i] < event_times[j] ? -1 : 1;
    return (i > j) - (i < j);
}

int ss_sc_read_events(ss_scenario *sc, const ss_node *seq, const ss_node *deploy, ss_err *err)
{
    size_t n = seq ? seq->n : 0;
    uint32_t *added = ss_xcalloc(sc->ndeploys + 1, sizeof *added);
    /* Validate in time order (an instance must exist when it is named), so
     * read in file order into an index sorted by time first. */
    double *t = ss_xcalloc(n + 1, sizeof *t);
    size_t *order = ss_xcalloc(n + 1, sizeof *order);
    for (size_t i = 0; i < n; i++) {
        const ss_node *it = seq->items[i];
        if (ss_node_expect(it, SS_NODE_MAP, "event", err) < 0 ||
            ss_cfg_num(it, "at_s", &t[i], SS_REQ | SS_NONNEG, err) < 0) {
            free(added), free(t), free(order);
            return -1;
        }
        order[i] = i;
    }
    event_times = t; /* by time, then file order: n log n */
    qsort(order, n, sizeof *order, by_time_then_place);
    deploy_index ix;
    index_build(&ix, sc);
    sc->events = ss_xcalloc(n + 1, sizeof *sc->events);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = read_event(sc, &ix, seq->items[order[i]], added, &sc->events[i], err);
        if (rc == 0) sc->nevents = i + 1;
    }
    free(t);
    free(order);
    free(ix.order);
    /* A shared queue needs an instance to pull from at some point: per
     * model, its first shared entry and its instances, in one pass. */
    size_t *first_shared = ss_xcalloc(sc->nmodels + 1, sizeof *first_shared); /* entry + 1, 0: none */
    uint64_t *have = ss_xcalloc(sc->nmodels + 1, sizeof *have);
    for (size_t d = 0; d < sc->ndeploys; d++) {
        uint32_t m = sc->deploys[d].model;
        if (sc->deploys[d].shared_queue && !first_shared[m]) first_shared[m] = d + 1;
        have[m] += sc->deploys[d].instances + added[d];
    }
    for (size_t m = 0; rc == 0 && m < sc->nmodels; m++)
        if (first_shared[m] && have[m] == 0 && !(sc->autoscale && sc->autoscale->models[m]))
            rc = ss_err_at(err, deploy->file, sc->deploys[first_shared[m] - 1].line, sc->deploys[first_shared[m] - 1].col,
                           "queue: model '%s' has a shared queue but no instance: deploy one "
                           "(instances >= 1) or add one with an event",
                           sc->models[m].name);
    free(first_shared);
    free(have);
    free(added);
    return rc;
}
