/* ensemble_cfg.c: the `ensemble:` section (docs/ensembles.md), the members'
 * latency profiles (models/ensemble/<name>.json) and the allocation matrix
 * -> ss_ensemble_cfg, or one file:line:col message; and the matrix as
 * numbers (segments, E's Eq. 1 and Eq. 2, neighbours, memory fit).
 * Reading never touches the engine; serve/ensemble.c runs the result. */
#include "input/ensemble_cfg.h"
#include "input/section.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* E §1.2: the paper's batch values; E §1.3: its segment size. */
static const uint32_t default_batches[] = {8, 16, 32, 64, 128};
#define DEFAULT_SEGMENT 128u
#define MAX_BATCH 1000000u
#define MAX_MEMBERS 4096u

/* ---- the matrix as numbers ---------------------------------------------- */

uint64_t ss_ens_segments(uint64_t images, uint32_t n) { return n ? (images + n - 1) / n : 0; }

uint32_t ss_ens_segment_len(uint64_t images, uint32_t n, uint64_t s)
{
    uint64_t start = s * n, end = start + n < images ? start + n : images;
    return end > start ? (uint32_t)(end - start) : 0;
}

double ss_ens_total_matrices(uint32_t b, uint32_t d, uint32_t m)
{
    return pow(pow((double)b + 1, (double)d) - 1, (double)m);
}

uint64_t ss_ens_total_neighs(uint32_t b, uint32_t d, uint32_t m, uint32_t f)
{
    return ((uint64_t)b + 1) * d * m - f;
}

uint32_t ss_ens_forbidden(const uint32_t *a, uint32_t d, uint32_t m)
{
    uint32_t f = 0;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t nz = 0;
        for (uint32_t i = 0; i < d; i++) nz += a[i * m + j] != 0;
        f += nz == 1;
    }
    return f;
}

size_t ss_ens_neighbours(const uint32_t *a, uint32_t d, uint32_t m, const uint32_t *batches, uint32_t nb,
                         uint32_t *out)
{
    size_t n = 0, cells = (size_t)d * m;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t nz = 0;
        for (uint32_t i = 0; i < d; i++) nz += a[i * m + j] != 0;
        for (uint32_t i = 0; i < d; i++) {
            uint32_t cur = a[i * m + j];
            for (uint32_t v = 0; v <= nb; v++) {
                uint32_t val = v == 0 ? 0 : batches[v - 1];
                if (val == cur) continue;                 /* not a change */
                if (val == 0 && nz == 1) continue;        /* would empty the column */
                if (out) {
                    memcpy(out + n * cells, a, cells * sizeof *a);
                    out[n * cells + (size_t)i * m + j] = val;
                }
                n++;
            }
        }
    }
    return n;
}

long ss_ens_invalid(const uint32_t *a, uint32_t d, uint32_t m, const uint32_t *batches, uint32_t nb)
{
    for (uint32_t i = 0; i < d; i++)
        for (uint32_t j = 0; j < m; j++) {
            uint32_t v = a[i * m + j], ok = v == 0;
            for (uint32_t k = 0; k < nb && !ok; k++) ok = batches[k] == v;
            if (!ok) return (long)i * m + j;
        }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t nz = 0;
        for (uint32_t i = 0; i < d; i++) nz += a[i * m + j] != 0;
        if (!nz) return j;
    }
    return -1;
}

/* Field f (0 latency, 1 memory) of curve c at batch k: linear between
 * points, proportional below the first, extrapolated from the last two. */
static double interp(const ss_ens_curve *c, uint32_t k, int f)
{
#define FIELD(p) (f ? (p).memory_bytes : (p).latency_s)
    const ss_ens_point *p = c->pts;
    uint32_t n = c->npts;
    for (uint32_t i = 0; i < n; i++) /* a profiled batch: its own value, exactly */
        if (p[i].batch == k) return FIELD(p[i]);
    if (k <= p[0].batch) return FIELD(p[0]) * k / p[0].batch;
    uint32_t i = 1;
    while (i < n - 1 && p[i].batch < k) i++;
    if (n == 1) return FIELD(p[0]) * k / p[0].batch;
    double x0 = p[i - 1].batch, x1 = p[i].batch, y0 = FIELD(p[i - 1]), y1 = FIELD(p[i]);
    double y = y0 + (y1 - y0) * ((double)k - x0) / (x1 - x0);
    return y > 0 ? y : 0;
#undef FIELD
}

double ss_ens_latency_s(const ss_ens_curve *c, uint32_t k) { return interp(c, k, 0); }

static const ss_ens_curve *find_curve(const ss_ens_member *mb, const char *type)
{
    for (uint32_t i = 0; i < mb->ncurves; i++)
        if (strcmp(mb->curves[i].type, type) == 0) return &mb->curves[i];
    return NULL;
}

/* A device's type as the profiles name it: its `type:`, else its kind. */
static const char *dev_type(const ss_device_cfg *dv)
{
    return dv->type && dv->type[0] ? dv->type : dv->kind == SS_DEV_GPU ? "gpu" : "cpu";
}

static double capacity_bytes(const ss_device_cfg *dv) { return dv->kind == SS_DEV_GPU ? dv->vram_bytes : dv->ram_bytes; }

/* Weights + memory at its batch of the worker (d, m) of matrix a, 0 if none. */
static double worker_bytes(const ss_ensemble_cfg *e, const uint32_t *a, uint32_t d, uint32_t m)
{
    uint32_t b = a[d * e->nmembers + m];
    if (!b) return 0;
    const ss_ens_curve *c = e->curve[d * e->nmembers + m];
    return e->members[m].weights_bytes + (c ? interp(c, b, 1) : 0);
}

/* A GPU's ledger: each worker's context and its framework's reservation. */
static double gpu_bytes(const ss_ensemble_cfg *e, const uint32_t *a, uint32_t d)
{
    const ss_resident_cfg *r = &e->resident;
    double cap = e->dev_capacity_bytes ? e->dev_capacity_bytes[d] : 0, used = 0;
    for (uint32_t m = 0; m < e->nmembers; m++) {
        if (!a[d * e->nmembers + m]) continue;
        double need = worker_bytes(e, a, d, m), pool = need;
        if (r->gpu_allocator == SS_GPU_ALLOC_FRACTION && cap > 0) {
            pool = r->gpu_memory_fraction * cap;
        } else if (r->gpu_allocator == SS_GPU_ALLOC_ALL && cap > 0) {
            double free_bytes = cap - used - r->cuda_context_bytes, sys = ss_resident_tf_min_system_bytes(free_bytes);
            pool = free_bytes > sys ? free_bytes - sys : free_bytes;
        }
        if (need > pool) return INFINITY; /* the worker's model does not fit its framework's pool */
        used += r->cuda_context_bytes + pool;
    }
    return used;
}

double ss_ens_device_bytes(const ss_ensemble_cfg *e, const uint32_t *a, uint32_t d)
{
    if (e->dev_gpu && e->dev_gpu[d]) return gpu_bytes(e, a, d);
    double sum = 0;
    for (uint32_t m = 0; m < e->nmembers; m++) sum += worker_bytes(e, a, d, m);
    if (e->host_ram && e->host_ram[d] == (int32_t)d) { /* the host's RAM: its OS and every worker process */
        const ss_resident_cfg *r = &e->resident;
        sum += r->os_reserve_bytes;
        for (uint32_t i = 0; i < e->ndevices; i++)
            for (uint32_t m = 0; e->host_ram[i] == (int32_t)d && m < e->nmembers; m++)
                if (a[i * e->nmembers + m]) sum += r->framework_rss_bytes;
    }
    return sum;
}

double ss_ens_capacity_bytes(const ss_device_cfg *dv) { return capacity_bytes(dv); }

long ss_ens_unplaceable(const ss_ensemble_cfg *e, const uint32_t *a)
{
    for (size_t i = 0; i < (size_t)e->ndevices * e->nmembers; i++)
        if (a[i] && !e->curve[i]) return (long)i;
    return -1;
}

void ss_ens_set_matrix(ss_ensemble_cfg *e, const uint32_t *a)
{
    memcpy(e->matrix, a, (size_t)e->ndevices * e->nmembers * sizeof *a);
}

long ss_ens_overfull(const ss_ensemble_cfg *e, const ss_scenario *sc, const uint32_t *a)
{
    for (uint32_t d = 0; d < e->ndevices; d++) {
        double cap = capacity_bytes(&sc->devices[d]);
        if (cap > 0 && ss_ens_device_bytes(e, a, d) > cap) return d;
    }
    return -1;
}

/* ---- profiles -------------------------------------------------------------- */

static int cmp_point(const void *a, const void *b)
{
    uint32_t x = ((const ss_ens_point *)a)->batch, y = ((const ss_ens_point *)b)->batch;
    return (x > y) - (x < y);
}

/* A batch size written as a map key ("8": {...}). */
static int key_batch(const ss_node *n, uint32_t *out, ss_err *err)
{
    char *end = NULL;
    unsigned long v = strtoul(n->key, &end, 10);
    if (!n->key[0] || *end || v < 1 || v > MAX_BATCH)
        return ss_err_at(err, n->file, n->key_line, n->key_col, "expected a batch size (1 to %u) as the key, got '%s'",
                         MAX_BATCH, n->key);
    *out = (uint32_t)v;
    return 0;
}

static int read_curve(ss_ens_curve *c, const ss_node *n, ss_err *err)
{
    TRY(ss_node_expect(n, SS_NODE_MAP, "device type profile (batch size -> {latency_s, memory_bytes})", err));
    if (n->n == 0) return ss_node_err(n, err, "'%s': expected at least one batch size", c->type);
    c->pts = ss_xcalloc(n->n, sizeof *c->pts);
    static const char *const keys[] = {"latency_s", "memory_bytes", NULL};
    for (size_t i = 0; i < n->n; i++) {
        const ss_node *p = n->items[i];
        ss_ens_point *pt = &c->pts[c->npts++];
        TRY(key_batch(p, &pt->batch, err));
        TRY(ss_node_expect(p, SS_NODE_MAP, "batch profile", err));
        TRY(ss_cfg_check_keys(p, keys, "batch profile", err));
        TRY(ss_cfg_num(p, "latency_s", &pt->latency_s, SS_REQ | SS_POS, err));
        TRY(ss_cfg_num(p, "memory_bytes", &pt->memory_bytes, SS_REQ | SS_NONNEG, err));
        for (size_t k = 0; k + 1 < c->npts; k++)
            if (c->pts[k].batch == pt->batch)
                return ss_err_at(err, p->file, p->key_line, p->key_col, "batch size %u given twice", pt->batch);
    }
    qsort(c->pts, c->npts, sizeof *c->pts, cmp_point);
    return 0;
}

static int read_profile(ss_ens_member *mb, ss_err *err)
{
    ss_doc *doc = ss_doc_load_json(mb->profile, err);
    if (!doc) return -1;
    static const char *const keys[] = {"name", "source", "weights_bytes", "devices", NULL};
    const ss_node *root = doc->root;
    ss_node *devs = NULL;
    const char *src = NULL;
    int rc = 0;
    if (ss_node_expect(root, SS_NODE_MAP, "ensemble member profile", err) < 0 ||
        ss_cfg_check_keys(root, keys, "ensemble member profile", err) < 0 ||
        ss_cfg_str(root, "source", &src, 0, err) < 0 ||
        ss_cfg_num(root, "weights_bytes", &mb->weights_bytes, SS_REQ | SS_NONNEG, err) < 0 ||
        ss_cfg_map(root, "devices", &devs, SS_REQ, err) < 0)
        rc = -1;
    if (rc == 0 && devs->n == 0) rc = ss_node_err(devs, err, "devices: expected at least one device type");
    if (rc == 0) {
        mb->source = src ? ss_xstrdup(src) : NULL;
        mb->curves = ss_xcalloc(devs->n, sizeof *mb->curves);
        for (size_t i = 0; rc == 0 && i < devs->n; i++) {
            ss_ens_curve *c = &mb->curves[mb->ncurves++];
            c->type = ss_xstrdup(devs->items[i]->key);
            rc = read_curve(c, devs->items[i], err);
        }
    }
    ss_doc_free(doc);
    return rc;
}

/* A member: `name` (models/ensemble/<name>.json) or {name, profile: path}. */
static int read_member(ss_ens_member *mb, const ss_scenario *sc, const ss_node *n, ss_err *err)
{
    const ss_node *at = n;
    if (n->kind == SS_NODE_MAP) {
        static const char *const keys[] = {"name", "profile", NULL};
        TRY(ss_cfg_check_keys(n, keys, "member", err));
        TRY(ss_sc_read_name(n, "name", &mb->name, err));
        const ss_node *p = ss_map_find(n, "profile");
        if (p) {
            TRY(ss_node_expect(p, SS_NODE_SCALAR, "profile", err));
            mb->profile = ss_node_readable(p, "profile", err);
            if (!mb->profile) return -1;
        }
        at = ss_map_find(n, "name");
    } else {
        TRY(ss_node_expect(n, SS_NODE_SCALAR, "member (a name, or {name, profile})", err));
        if (!n->value[0]) return ss_node_err(n, err, "member: expected a name");
        mb->name = ss_xstrdup(n->value);
    }
    if (!mb->profile) {
        char *rel = ss_xasprintf("ensemble/%s", mb->name);
        mb->profile = ss_scenario_find_profile(sc->dir && sc->dir[0] ? sc->dir : ".", rel);
        free(rel);
        if (!mb->profile)
            return ss_node_err(at, err, "member '%s': no profile models/ensemble/%s.json in the scenario's folder or "
                               "above, $SERVESIM_MODEL_PATH or the install", mb->name, mb->name);
    }
    return read_profile(mb, err);
}

/* ---- the section -------------------------------------------------------- */

static int read_batches(ss_ensemble_cfg *e, const ss_node *sec, ss_err *err)
{
    ss_node *bs = NULL;
    TRY(ss_cfg_seq(sec, "batch_sizes", &bs, 0, err));
    if (!bs) {
        e->nbatches = sizeof default_batches / sizeof *default_batches;
        e->batches = ss_xcalloc(e->nbatches, sizeof *e->batches);
        memcpy(e->batches, default_batches, sizeof default_batches);
        return 0;
    }
    if (bs->n == 0) return ss_node_err(bs, err, "batch_sizes: expected at least one batch size");
    e->batches = ss_xcalloc(bs->n, sizeof *e->batches);
    for (size_t i = 0; i < bs->n; i++) {
        double v;
        TRY(ss_node_num(bs->items[i], "batch size", &v, SS_POS | SS_INT, err));
        if (v > MAX_BATCH) return ss_node_err(bs->items[i], err, "batch size: expected 1 to %u, got %g", MAX_BATCH, v);
        if (e->nbatches && v <= e->batches[e->nbatches - 1])
            return ss_node_err(bs->items[i], err, "batch_sizes: expected increasing values, got %g after %u", v,
                               e->batches[e->nbatches - 1]);
        e->batches[e->nbatches++] = (uint32_t)v;
    }
    return 0;
}

static int allowed(const ss_ensemble_cfg *e, uint32_t v)
{
    for (uint32_t k = 0; k < e->nbatches; k++)
        if (e->batches[k] == v) return 1;
    return 0;
}

/* The matrix: D rows (the devices, in `hosts:` order) of M entries. */
static int read_matrix(ss_ensemble_cfg *e, const ss_scenario *sc, const ss_node *sec, ss_err *err)
{
    ss_node *rows;
    TRY(ss_cfg_seq(sec, "matrix", &rows, SS_REQ, err));
    uint32_t d = e->ndevices, m = e->nmembers;
    if (rows->n != d)
        return ss_node_err(rows, err, "matrix: expected %u rows (one per device, in hosts order), got %zu", d, rows->n);
    e->matrix = ss_xcalloc((size_t)d * m, sizeof *e->matrix);
    e->curve = ss_xcalloc((size_t)d * m, sizeof *e->curve);
    for (uint32_t i = 0; i < d; i++) {
        const ss_node *row = rows->items[i];
        TRY(ss_node_expect(row, SS_NODE_SEQ, "matrix row (one batch size per member)", err));
        if (row->n != m)
            return ss_node_err(row, err, "matrix row of device '%s': expected %u entries (one per member), got %zu",
                               sc->devices[i].name, m, row->n);
        for (uint32_t j = 0; j < m; j++) {
            const ss_node *c = row->items[j];
            double v;
            TRY(ss_node_num(c, "matrix entry", &v, SS_NONNEG | SS_INT, err));
            if (v != 0 && (v > MAX_BATCH || !allowed(e, (uint32_t)v))) {
                char list[256] = "";
                for (uint32_t k = 0; k < e->nbatches; k++)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u", k ? ", " : "", e->batches[k]);
                return ss_node_err(c, err, "matrix entry: batch size %g is not allowed (0 or one of %s)", v, list);
            }
            e->matrix[i * m + j] = (uint32_t)v;
            const char *type = dev_type(&sc->devices[i]);
            const ss_ens_curve *cv = find_curve(&e->members[j], type);
            e->curve[i * m + j] = cv; /* every pair, so candidate matrices (optimize) find theirs */
            if (!v) continue;
            if (!cv)
                return ss_node_err(c, err, "member '%s' is placed on device '%s' (type '%s') but its profile %s has no "
                                   "device type '%s'", e->members[j].name, sc->devices[i].name, type,
                                   e->members[j].profile, type);
        }
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t nz = 0;
        for (uint32_t i = 0; i < d; i++) nz += e->matrix[i * m + j] != 0;
        if (!nz)
            return ss_node_err(rows->items[0]->items[j], err, "matrix: the column of member '%s' (column %u) is all zero "
                               "(every member needs a worker, E §1.2)", e->members[j].name, j + 1);
    }
    long over = ss_ens_overfull(e, sc, e->matrix);
    if (over >= 0) {
        const ss_device_cfg *dv = &sc->devices[over];
        double need = ss_ens_device_bytes(e, e->matrix, (uint32_t)over);
        if (isinf(need))
            return ss_node_err(rows->items[over], err, "matrix row of device '%s': a worker's weights + memory at its "
                               "batch exceed what its framework reserves under gpu_allocator %s (E's out-of-memory '-')",
                               dv->name, e->resident.gpu_allocator == SS_GPU_ALLOC_ALL ? "all (TensorFlow 1.x's "
                               "default: the first worker takes what is free)" : "fraction");
        return ss_node_err(rows->items[over], err, "matrix row of device '%s': its workers need %.6g GiB (weights + "
                           "memory at their batch%s) but it has %.6g GiB: the matrix does not fit (E's out-of-memory '-')",
                           dv->name, need / 1073741824.0,
                           dv->kind == SS_DEV_GPU ? ", contexts and reservations" : ", the host's resident terms",
                           capacity_bytes(dv) / 1073741824.0);
    }
    return 0;
}

static int read_mode(ss_ensemble_cfg *e, const ss_scenario *sc, const ss_node *sec, ss_err *err)
{
    static const char *const modes[] = {"benchmark", "deploy", NULL};
    int mode = SS_ENS_BENCHMARK;
    TRY(ss_cfg_enum(sec, "mode", modes, &mode, 0, err));
    e->mode = (ss_ens_mode)mode;
    unsigned long long n = 0;
    const ss_node *img = ss_map_find(sec, "images"), *per = ss_map_find(sec, "images_per_request"),
                  *ia = ss_map_find(sec, "interarrival");
    if (e->mode == SS_ENS_BENCHMARK) {
        if (per || ia)
            return ss_node_err(per ? per : ia, err, "%s: only in mode: deploy (benchmark mode runs one set of images)",
                               per ? "images_per_request" : "interarrival");
        TRY(ss_cfg_u64(sec, "images", &n, SS_REQ, err));
        if (n < 1 || n > 1000000000ULL) return ss_node_err(img, err, "images: expected 1 to 1e9, got %llu", n);
        e->images = n;
        return 0;
    }
    if (img) return ss_node_err(img, err, "images: only in mode: benchmark (deploy mode: images_per_request)");
    TRY(ss_cfg_u64(sec, "images_per_request", &n, SS_REQ, err));
    if (n < 1 || n > 100000000ULL)
        return ss_node_err(per, err, "images_per_request: expected 1 to 1e8, got %llu", n);
    e->images_per_request = n;
    if (!ia) return ss_node_err(sec, err, "ensemble: mode deploy needs interarrival (a distribution)");
    TRY(ss_dist_read(ia, "interarrival", &e->interarrival, err));
    if (!(ss_dist_mean(&e->interarrival) > 0))
        return ss_node_err(ia, err, "interarrival: expected a mean > 0");
    if (sc->max_requests == UINT64_MAX && !isfinite(sc->duration_s))
        return ss_node_err(sec, err, "ensemble: mode deploy needs requests or duration_s at the top level");
    return 0;
}

/* Per device: GPU or not, its capacity, and the CPU device that holds its host's RAM (the
 * first cpu device whose name has the same host part, "host/device"). */
static void device_tables(ss_ensemble_cfg *e, const ss_scenario *sc)
{
    uint32_t d = e->ndevices;
    e->dev_gpu = ss_xcalloc(d + 1, sizeof *e->dev_gpu);
    e->dev_capacity_bytes = ss_xcalloc(d + 1, sizeof *e->dev_capacity_bytes);
    e->host_ram = ss_xcalloc(d + 1, sizeof *e->host_ram);
    for (uint32_t i = 0; i < d; i++) {
        const ss_device_cfg *dv = &sc->devices[i];
        e->dev_gpu[i] = dv->kind == SS_DEV_GPU;
        e->dev_capacity_bytes[i] = capacity_bytes(dv);
        const char *slash = strchr(dv->name, '/');
        size_t hl = slash ? (size_t)(slash - dv->name) : strlen(dv->name);
        e->host_ram[i] = -1;
        for (uint32_t j = 0; j < d && e->host_ram[i] < 0; j++)
            if (sc->devices[j].kind == SS_DEV_CPU && strncmp(sc->devices[j].name, dv->name, hl) == 0 &&
                (sc->devices[j].name[hl] == '/' || sc->devices[j].name[hl] == '\0'))
                e->host_ram[i] = (int32_t)j;
    }
}

int ss_ensemble_cfg_read(ss_ensemble_cfg **out, const ss_scenario *sc, const ss_node *sec, ss_err *err)
{
    static const char *const keys[] = {"members", "batch_sizes", "segment_images", "matrix", "interference", "mode",
                                       "images", "images_per_request", "interarrival", "resident", NULL};
    TRY(ss_cfg_check_keys(sec, keys, "ensemble", err));
    ss_ensemble_cfg *e = ss_xcalloc(1, sizeof *e);
    *out = e;
    e->ndevices = (uint32_t)sc->ndevices;
    ss_node *mem;
    TRY(ss_cfg_seq(sec, "members", &mem, SS_REQ, err));
    if (mem->n == 0 || mem->n > MAX_MEMBERS)
        return ss_node_err(mem, err, "members: expected 1 to %u members, got %zu", MAX_MEMBERS, mem->n);
    e->members = ss_xcalloc(mem->n, sizeof *e->members);
    for (size_t i = 0; i < mem->n; i++) {
        e->nmembers++; /* counted first: a member read halfway is freed too */
        TRY(read_member(&e->members[i], sc, mem->items[i], err));
        for (size_t k = 0; k < i; k++)
            if (strcmp(e->members[k].name, e->members[i].name) == 0)
                return ss_node_err(mem->items[i], err, "member '%s' given twice", e->members[i].name);
    }
    TRY(read_batches(e, sec, err));
    unsigned long long n = DEFAULT_SEGMENT;
    TRY(ss_cfg_u64(sec, "segment_images", &n, 0, err));
    if (n < 1 || n > MAX_BATCH)
        return ss_node_err(ss_map_find(sec, "segment_images"), err, "segment_images: expected 1 to %u, got %llu",
                           MAX_BATCH, n);
    e->segment_images = (uint32_t)n;
    e->interference = 1;
    TRY(ss_cfg_num(sec, "interference", &e->interference, SS_NONNEG, err));
    if (e->interference > 1)
        return ss_node_err(ss_map_find(sec, "interference"), err, "interference: expected 0 to 1, got %g",
                           e->interference);
    TRY(read_mode(e, sc, sec, err));
    TRY(ss_resident_cfg_read(&e->resident, ss_map_find(sec, "resident"), err));
    device_tables(e, sc);
    return read_matrix(e, sc, sec, err);
}

void ss_ensemble_cfg_free(ss_ensemble_cfg *e)
{
    if (!e) return;
    for (uint32_t i = 0; i < e->nmembers; i++) {
        ss_ens_member *mb = &e->members[i];
        free(mb->name);
        free(mb->profile);
        free(mb->source);
        for (uint32_t c = 0; c < mb->ncurves; c++) {
            free(mb->curves[c].type);
            free(mb->curves[c].pts);
        }
        free(mb->curves);
    }
    free(e->members);
    free(e->matrix);
    free(e->curve);
    free(e->batches);
    free(e->dev_gpu);
    free(e->dev_capacity_bytes);
    free(e->host_ram);
    if (e->mode == SS_ENS_DEPLOY) ss_dist_free(&e->interarrival);
    free(e);
}
