/* edge_cfg.c: the `edge:` section of a scenario (docs/masa.md, "Scenario
 * keys") and the layer profiles it names (models/masa/<name>.json, format in
 * docs/masa-models.md §2) -> ss_edge_cfg, or one file:line:col message.
 * Reading never touches the engine; edge_world.c runs the result. */
#include "input/edge_cfg.h"
#include "input/section.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SS_MODEL_DIR
#define SS_MODEL_DIR "/usr/local/share/servesim/models"
#endif

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

static const double MIB = 1048576.0;

/* The nine networks of the MASA paper (Table I), the default candidates of
 * the stochastic scenarios. */
static const char *const masa_nine[] = {"agenet", "gendernet", "facenet", "sos", "googlenet",
                                        "tinyyolo", "emotionnet", "memnet", "scenenet", NULL};

/* Fitted in docs/masa.md §3 (the slowdown curve of docs/masa-models.md §5,
 * with a_load and b_load refitted for disk contention kappa = 0.1). */
static const ss_edge_paging default_paging = {
    .a = {0.137, 2.72, 9.88}, .b = {2.0, 2.0, 1.126}, .disk_contention = 0.1};
/* [PROPOSAL] docs/masa.md §5: a Raspberry Pi 4 at idle, per busy core, and
 * the SD card's extra draw while the device pages. */
static const ss_edge_power default_power = {.idle_w = 2.7, .worker_w = 0.9, .swap_w = 0.6};

double ss_edge_slowdown(const ss_edge_paging *p, int cls, double x)
{
    return x > 0 ? 1.0 + p->a[cls] * pow(x, p->b[cls]) : 1.0;
}

/* ---- networks ---------------------------------------------------------- */

/* models/masa/<name>.json in the scenario's folder or any folder above it,
 * then $SERVESIM_MODEL_PATH/masa, then the install folder. */
static char *find_net(const char *scenario_dir, const char *name)
{
    char *rel = ss_xasprintf("masa/%s", name);
    char *p = ss_scenario_find_profile(scenario_dir && scenario_dir[0] ? scenario_dir : ".", rel);
    free(rel);
    return p;
}

static int read_part(const ss_node *layer, const char *key, uint8_t *out, ss_err *err)
{
    static const char *const parts[] = {"conv", "fc", NULL};
    int v = 0;
    TRY(ss_cfg_enum(layer, key, parts, &v, 0, err));
    *out = (uint8_t)v;
    return 0;
}

/* Scale to the device's speed once, here, so every consumer sees device
 * seconds; then the network's totals and defaults. */
static void net_totals(const ss_edge_cfg *e, ss_edge_net *n)
{
    double mem = 0;
    n->duration_s = 0;
    for (uint32_t j = 0; j < n->nlayers; j++) {
        n->layers[j].load_s *= e->load_scale;
        n->layers[j].exec_s *= e->exec_scale;
        n->duration_s += n->layers[j].load_s + n->layers[j].exec_s;
        mem += n->layers[j].mem_load_bytes + n->layers[j].mem_exec_bytes;
    }
    if (!(n->peak_bytes > 0)) n->peak_bytes = mem;
    if (!(n->admit_bytes > 0)) n->admit_bytes = n->peak_bytes;
    if (!(n->mean_exec_s > 0)) n->mean_exec_s = n->duration_s;
}

/* A profile file: the fields listed in docs/masa-models.md §2.  The input
 * layer (`init`, EdgeCaffe's INIT task) is folded into the first layer's L
 * and E, so Table I's layer count stays the network's task count. */
static int read_net_file(ss_edge_net *n, const char *path, ss_err *err)
{
    ss_doc *doc = ss_doc_load_json(path, err);
    if (!doc) return -1;
    const ss_node *root = doc->root;
    ss_node *layers = NULL, *init = NULL, *stats = NULL;
    int rc = ss_node_expect(root, SS_NODE_MAP, "network profile", err);
    if (rc == 0) rc = ss_cfg_seq(root, "layers", &layers, SS_REQ, err) < 0 ? -1 : 0;
    if (rc == 0 && layers->n == 0) rc = ss_node_err(layers, err, "layers: a network needs at least one layer");
    if (rc == 0) rc = ss_cfg_num(root, "peak_mem_bytes", &n->peak_bytes, SS_NONNEG, err) < 0 ? -1 : 0;
    if (rc == 0) rc = ss_cfg_map(root, "init", &init, 0, err) < 0 ? -1 : 0;
    if (rc == 0) rc = ss_cfg_map(root, "repo_network_stats", &stats, 0, err) < 0 ? -1 : 0;
    if (rc == 0 && stats) {
        double mib = 0, t = 0;
        rc = ss_cfg_num(stats, "max-memory-valgrind", &mib, SS_NONNEG, err) < 0 ? -1 : 0;
        if (rc == 0) rc = ss_cfg_num(stats, "mean-execution-time", &t, SS_NONNEG, err) < 0 ? -1 : 0;
        n->admit_bytes = mib * MIB;
        n->mean_exec_s = t * 1e-3; /* unit not stated in the repository; read as ms (only an ordering key) */
    }
    if (rc == 0) {
        n->nlayers = (uint32_t)layers->n;
        n->layers = ss_xcalloc(layers->n, sizeof *n->layers);
        for (size_t j = 0; rc == 0 && j < layers->n; j++) {
            const ss_node *l = layers->items[j];
            ss_edge_layer *y = &n->layers[j];
            const char *type = "";
            if ((rc = ss_node_expect(l, SS_NODE_MAP, "layer", err)) < 0) break;
            if (ss_cfg_num(l, "load_s", &y->load_s, SS_REQ | SS_NONNEG, err) < 0 ||
                ss_cfg_num(l, "exec_s", &y->exec_s, SS_REQ | SS_NONNEG, err) < 0 ||
                ss_cfg_num(l, "mem_load_bytes", &y->mem_load_bytes, SS_REQ | SS_NONNEG, err) < 0 ||
                ss_cfg_num(l, "mem_exec_bytes", &y->mem_exec_bytes, SS_REQ | SS_NONNEG, err) < 0 ||
                read_part(l, "part", &y->part, err) < 0 || ss_cfg_str(l, "type", &type, 0, err) < 0)
                rc = -1;
            y->fc = strcmp(type, "fc") == 0;
        }
    }
    if (rc == 0 && init) {
        double l = 0, e = 0;
        if (ss_cfg_num(init, "load_s", &l, SS_NONNEG, err) < 0 || ss_cfg_num(init, "exec_s", &e, SS_NONNEG, err) < 0)
            rc = -1;
        n->layers[0].load_s += l;
        n->layers[0].exec_s += e;
    }
    ss_doc_free(doc);
    return rc;
}

/* An inline network: `{name, layers: [{load_s, exec_s, mem_load_mib,
 * mem_exec_mib, part, type}], peak_mib, admit_mib, mean_exec_s}`. */
static int read_net_inline(ss_edge_net *n, const ss_node *it, ss_err *err)
{
    static const char *const keys[] = {"name", "layers", "peak_mib", "admit_mib", "mean_exec_s", NULL};
    static const char *const lkeys[] = {"load_s", "exec_s", "mem_load_mib", "mem_exec_mib", "part", "type", NULL};
    static const char *const types[] = {"conv", "fc", NULL};
    TRY(ss_cfg_check_keys(it, keys, "network", err));
    ss_node *layers;
    double peak = 0, admit = 0;
    TRY(ss_cfg_seq(it, "layers", &layers, SS_REQ, err));
    if (layers->n == 0) return ss_node_err(layers, err, "layers: a network needs at least one layer");
    TRY(ss_cfg_num(it, "peak_mib", &peak, SS_NONNEG, err));
    TRY(ss_cfg_num(it, "admit_mib", &admit, SS_NONNEG, err));
    TRY(ss_cfg_num(it, "mean_exec_s", &n->mean_exec_s, SS_NONNEG, err));
    n->peak_bytes = peak * MIB;
    n->admit_bytes = admit * MIB;
    n->nlayers = (uint32_t)layers->n;
    n->layers = ss_xcalloc(layers->n, sizeof *n->layers);
    for (size_t j = 0; j < layers->n; j++) {
        const ss_node *l = layers->items[j];
        ss_edge_layer *y = &n->layers[j];
        double ml = 0, me = 0;
        int type = 0;
        TRY(ss_node_expect(l, SS_NODE_MAP, "layer", err));
        TRY(ss_cfg_check_keys(l, lkeys, "layer", err));
        TRY(ss_cfg_num(l, "load_s", &y->load_s, SS_REQ | SS_NONNEG, err));
        TRY(ss_cfg_num(l, "exec_s", &y->exec_s, SS_REQ | SS_NONNEG, err));
        TRY(ss_cfg_num(l, "mem_load_mib", &ml, SS_REQ | SS_NONNEG, err));
        TRY(ss_cfg_num(l, "mem_exec_mib", &me, SS_REQ | SS_NONNEG, err));
        TRY(read_part(l, "part", &y->part, err));
        TRY(ss_cfg_enum(l, "type", types, &type, 0, err));
        y->fc = (uint8_t)type;
        y->mem_load_bytes = ml * MIB;
        y->mem_exec_bytes = me * MIB;
    }
    return 0;
}

static int net_index(const ss_edge_cfg *e, const char *name)
{
    for (size_t i = 0; i < e->nnets; i++)
        if (strcmp(e->nets[i].name, name) == 0) return (int)i;
    return -1;
}

static ss_edge_net *net_add(ss_edge_cfg *e, const char *name)
{
    e->nets = ss_xrealloc(e->nets, (e->nnets + 1) * sizeof *e->nets);
    ss_edge_net *n = &e->nets[e->nnets++];
    memset(n, 0, sizeof *n);
    n->name = ss_xstrdup(name);
    return n;
}

/* The network a workload names: inline first, then a profile file. */
static int resolve_net(ss_edge_cfg *e, const ss_node *name, const char *dir, uint32_t *out, ss_err *err)
{
    TRY(ss_node_expect(name, SS_NODE_SCALAR, "network", err));
    int i = net_index(e, name->value);
    if (i < 0) {
        char *path = name->value[0] && !strchr(name->value, '/') ? find_net(dir, name->value) : NULL;
        if (!path) {
            const char *near = ss_suggest(name->value, masa_nine);
            if (near && strcmp(near, name->value) == 0) near = NULL;
            return ss_node_err(name, err,
                               "unknown network '%s'%s%s%s: not inline in edge.networks, and no models/masa/%s.json "
                               "in the scenario's folder or above, $SERVESIM_MODEL_PATH/masa or " SS_MODEL_DIR "/masa",
                               name->value, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
                               name->value);
        }
        ss_edge_net *n = net_add(e, name->value);
        int rc = read_net_file(n, path, err);
        free(path);
        TRY(rc);
        net_totals(e, n);
        i = (int)e->nnets - 1;
    }
    *out = (uint32_t)i;
    return 0;
}

/* ---- workload ---------------------------------------------------------- */

static int read_workload(ss_edge_cfg *e, const ss_node *wl, const char *dir, ss_err *err)
{
    static const char *const keys[] = {"kind", "networks", "period_s", "intensity", "sd_s", "job_service_s",
                                       "per_image_min", "per_image_max", "deadline_s", NULL};
    static const char *const kinds[] = {"periodic", "scenario1", "scenario2", NULL};
    ss_edge_workload *w = &e->wl;
    int kind = 0;
    TRY(ss_cfg_check_keys(wl, keys, "edge workload", err));
    TRY(ss_cfg_enum(wl, "kind", kinds, &kind, SS_REQ, err));
    w->kind = (ss_edge_wl_kind)kind;
    ss_node *nets = NULL;
    TRY(ss_cfg_seq(wl, "networks", &nets, w->kind == SS_EDGE_PERIODIC ? SS_REQ : 0, err));
    if (nets) {
        if (nets->n == 0) return ss_node_err(nets, err, "networks: expected at least one network");
        w->nets = ss_xcalloc(nets->n, sizeof *w->nets);
        for (size_t i = 0; i < nets->n; i++) TRY(resolve_net(e, nets->items[i], dir, &w->nets[w->nnets++], err));
    } else { /* the paper's nine */
        w->nets = ss_xcalloc(9, sizeof *w->nets);
        for (size_t i = 0; masa_nine[i]; i++) {
            ss_node name = {.kind = SS_NODE_SCALAR, .value = (char *)masa_nine[i], .file = wl->file,
                            .line = wl->line, .col = wl->col};
            TRY(resolve_net(e, &name, dir, &w->nets[w->nnets++], err));
        }
    }
    unsigned long long lo = 1, hi = 1;
    if (w->kind == SS_EDGE_SCENARIO2) lo = hi = 3; /* the released code's configurations: 3 per image */
    TRY(ss_cfg_u64(wl, "per_image_min", &lo, 0, err));
    TRY(ss_cfg_u64(wl, "per_image_max", &hi, 0, err));
    if (w->kind == SS_EDGE_SCENARIO2 && (lo < 1 || hi < lo || hi > w->nnets))
        return ss_node_err(wl, err, "per_image_min/max: expected 1 <= min <= max <= %u networks", w->nnets);
    if (w->kind != SS_EDGE_SCENARIO2) lo = hi = w->kind == SS_EDGE_PERIODIC ? w->nnets : 1;
    w->per_image_min = (uint32_t)lo;
    w->per_image_max = (uint32_t)hi;
    /* E[T_job]: networks per image x the candidates' mean single-network duration. */
    double mean = 0;
    for (uint32_t i = 0; i < w->nnets; i++) mean += e->nets[w->nets[i]].duration_s;
    mean /= w->nnets;
    w->job_service_s = w->kind == SS_EDGE_PERIODIC ? mean * w->nnets : mean * 0.5 * (double)(lo + hi);
    TRY(ss_cfg_num(wl, "job_service_s", &w->job_service_s, SS_POS, err));
    w->intensity = 1.0;
    TRY(ss_cfg_num(wl, "intensity", &w->intensity, SS_POS, err));
    w->iat_mean_s = w->job_service_s / w->intensity;
    int has_period = 0;
    TRY(has_period = ss_cfg_num(wl, "period_s", &w->iat_mean_s, SS_POS, err));
    if (w->kind == SS_EDGE_PERIODIC && !has_period)
        return ss_node_err(wl, err, "edge workload: a periodic workload needs period_s");
    if (w->kind == SS_EDGE_SCENARIO1 && has_period)
        return ss_node_err(ss_map_find(wl, "period_s"), err,
                           "period_s: scenario1 draws normal inter-arrival times; set intensity (and job_service_s)");
    w->iat_sd_s = w->kind == SS_EDGE_SCENARIO1 ? 0.2 : 0; /* the paper's 200 ms */
    TRY(ss_cfg_num(wl, "sd_s", &w->iat_sd_s, SS_NONNEG, err));
    if (w->kind != SS_EDGE_SCENARIO1 && ss_map_find(wl, "sd_s"))
        return ss_node_err(ss_map_find(wl, "sd_s"), err, "sd_s: only scenario1 has random inter-arrival times");
    w->deadline_s = w->iat_mean_s;
    TRY(ss_cfg_num(wl, "deadline_s", &w->deadline_s, SS_POS, err));
    return 0;
}

/* ---- the section ------------------------------------------------------- */

static int read_paging(ss_edge_cfg *e, const ss_node *edge, ss_err *err)
{
    static const char *const keys[] = {"conv_a", "conv_b", "fc_a", "fc_b", "load_a", "load_b", "disk_contention",
                                       NULL};
    e->paging = default_paging;
    ss_node *p = NULL;
    TRY(ss_cfg_map(edge, "paging", &p, 0, err));
    if (!p) return 0;
    TRY(ss_cfg_check_keys(p, keys, "paging", err));
    for (int k = 0; k < 3; k++) {
        TRY(ss_cfg_num(p, keys[2 * k], &e->paging.a[k], SS_NONNEG, err));
        TRY(ss_cfg_num(p, keys[2 * k + 1], &e->paging.b[k], SS_POS, err));
    }
    TRY(ss_cfg_num(p, "disk_contention", &e->paging.disk_contention, SS_NONNEG, err));
    return 0;
}

static int read_power(ss_edge_cfg *e, const ss_node *edge, ss_err *err)
{
    static const char *const keys[] = {"idle_w", "worker_w", "swap_w", NULL};
    e->power = default_power;
    ss_node *p = NULL;
    TRY(ss_cfg_map(edge, "power", &p, 0, err));
    if (!p) return 0;
    TRY(ss_cfg_check_keys(p, keys, "power", err));
    TRY(ss_cfg_num(p, "idle_w", &e->power.idle_w, SS_NONNEG, err));
    TRY(ss_cfg_num(p, "worker_w", &e->power.worker_w, SS_NONNEG, err));
    TRY(ss_cfg_num(p, "swap_w", &e->power.swap_w, SS_NONNEG, err));
    return 0;
}

static int read_edge(ss_edge_cfg *e, const ss_node *edge, const char *dir, ss_err *err)
{
    static const char *const keys[] = {"workers", "cores", "memory_mib", "reserved_mib", "os_reserve_mib",
                                       "framework_rss_mib", "mem_estimate", "load_scale", "exec_scale", "load_chain",
                                       "release", "paging", "power", "scheduler", "networks", "workload", NULL};
    static const char *const chains[] = {"auto", "false", "true", NULL};
    static const char *const releases[] = {"layer", "network", NULL};
    TRY(ss_cfg_check_keys(edge, keys, "edge", err));
    unsigned long long workers = 2;
    double mem_mib = 0, res_mib = 0;
    TRY(ss_cfg_u64(edge, "workers", &workers, 0, err));
    if (workers < 1 || workers > 64)
        return ss_node_err(ss_map_find(edge, "workers"), err, "workers: expected 1 to 64, got %llu", workers);
    e->workers = (uint32_t)workers;
    /* The Raspberry Pi 3B+ and 4B of the paper (seed §3.2: Cortex-A53 and
     * Cortex-A72 SoCs) have four cores each. */
    unsigned long long cores = 4;
    TRY(ss_cfg_u64(edge, "cores", &cores, 0, err));
    if (cores < 1 || cores > 1024)
        return ss_node_err(ss_map_find(edge, "cores"), err, "cores: expected 1 to 1024, got %llu", cores);
    e->cores = (uint32_t)cores;
    TRY(ss_cfg_num(edge, "memory_mib", &mem_mib, SS_REQ | SS_POS, err));
    /* What the memory limit holds beside the networks (docs/memory.md), each held from the start:
     * reserved_mib (the scheduler's own, EdgeCaffe's 4.87 MB), os_reserve_mib (the operating system
     * and runtime, where the limit is the device's whole RAM), framework_rss_mib (the serving
     * process's framework); together below memory_mib, refused at the key that reaches it. */
    static const char *const held[] = {"reserved_mib", "os_reserve_mib", "framework_rss_mib"};
    double held_mib[3] = {0, 0, 0}, sum_mib = 0;
    for (int i = 0; i < 3; i++) {
        TRY(ss_cfg_num(edge, held[i], &held_mib[i], SS_NONNEG, err));
        sum_mib += held_mib[i];
        if (held_mib[i] > 0 && sum_mib >= mem_mib)
            return ss_node_err(ss_map_find(edge, held[i]), err, "%s: reserved_mib + os_reserve_mib + "
                               "framework_rss_mib (%g) must be below memory_mib (%g): nothing would be left for the "
                               "networks", held[i], sum_mib, mem_mib);
    }
    res_mib = held_mib[0];
    e->capacity_bytes = mem_mib * MIB;
    e->os_reserve_bytes = held_mib[1] * MIB;
    e->framework_rss_bytes = held_mib[2] * MIB;
    e->reserved_bytes = (res_mib + held_mib[1] + held_mib[2]) * MIB;
    e->mem_estimate = e->load_scale = e->exec_scale = 1.0;
    TRY(ss_cfg_num(edge, "mem_estimate", &e->mem_estimate, SS_POS, err));
    TRY(ss_cfg_num(edge, "load_scale", &e->load_scale, SS_POS, err));
    TRY(ss_cfg_num(edge, "exec_scale", &e->exec_scale, SS_POS, err));
    int chain = 0, release = 0;
    TRY(ss_cfg_enum(edge, "load_chain", chains, &chain, 0, err));
    e->load_chain = chain - 1;
    TRY(ss_cfg_enum(edge, "release", releases, &release, 0, err));
    e->release_network = release;
    TRY(read_paging(e, edge, err));
    TRY(read_power(e, edge, err));
    int rc = ss_policy_cfg_read(&e->scheduler, edge, "scheduler", "masa", err);
    /* Positions point into the document: keep a copy, whatever happened. */
    e->scheduler.file = ss_xstrdup(e->scheduler.file ? e->scheduler.file : edge->file);
    if (!ss_map_find(edge, "scheduler")) {
        e->scheduler.line = edge->line;
        e->scheduler.col = edge->col;
    }
    TRY(rc);
    ss_node *nets = NULL, *wl = NULL;
    TRY(ss_cfg_seq(edge, "networks", &nets, 0, err));
    for (size_t i = 0; nets && i < nets->n; i++) {
        const ss_node *it = nets->items[i];
        const char *name;
        TRY(ss_node_expect(it, SS_NODE_MAP, "network", err));
        TRY(ss_cfg_str(it, "name", &name, SS_REQ, err));
        if (!name[0] || net_index(e, name) >= 0)
            return ss_node_err(ss_map_find(it, "name"), err, "network name '%s': empty or duplicate", name);
        TRY(read_net_inline(net_add(e, name), it, err));
        net_totals(e, &e->nets[e->nnets - 1]);
    }
    TRY(ss_cfg_map(edge, "workload", &wl, SS_REQ, err));
    TRY(read_workload(e, wl, dir, err));
    return 0;
}

int ss_edge_cfg_read(ss_edge_cfg **out, const ss_node *edge, const char *scenario_dir, ss_err *err)
{
    ss_edge_cfg *e = ss_xcalloc(1, sizeof *e);
    *out = e;
    return read_edge(e, edge, scenario_dir, err);
}

void ss_edge_cfg_free(ss_edge_cfg *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->nnets; i++) {
        free(e->nets[i].name);
        free(e->nets[i].layers);
    }
    free(e->nets);
    free(e->wl.nets);
    ss_policy_cfg_free(&e->scheduler);
    free(e);
}
