/* topo_host.c: host types, the inside of a server as a small graph.
 *
 * A host type is read once (inline in `host_types:` or from its own file)
 * and instantiated for every host that names it.  The inside is sockets
 * (each with its root complex), optional PCIe switches under the sockets,
 * GPUs under switches or sockets, optional NVLink between GPU pairs, one RAM
 * node linked to every socket, and the NIC (the host's own node) under a
 * socket or switch.  Shortest paths in this graph are exactly the
 * `nvidia-smi topo` kinds: NVLink (1 hop), PIX (via one switch), NODE (via a
 * socket), SYS (via two sockets).  docs/topologies.md lists the
 * simplifications (crossbar switches and sockets, one NIC, one RAM). */
#include "net/topo_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

enum { MAX_SOCKETS = 16, MAX_SWITCHES = 256, MAX_GPUS = 1024, MAX_BRICKS = 64 };

typedef struct nvpair {
    uint32_t a, b, bricks;
} nvpair;

/* Attach points are numbered: sockets 0..sockets-1, then switches. */
struct ss_host_type {
    char *name;
    uint32_t sockets, switches, gpus;
    ss_linkspec socket_link, switch_link, gpu_link, nvlink, ram, nic;
    uint32_t *switch_socket; /* per switch: its socket */
    uint32_t *gpu_parent;    /* per GPU: attach point */
    nvpair *pairs;
    size_t npairs;
    int has_ram, has_disk;
    ss_linkspec disk;        /* `disk:` its link to socket 0 ... */
    double disk_bytes;       /* ... and its size */
    uint32_t nic_parent;
    double gpu_vram_bytes, ram_bytes; /* `gpu_memory_gib`, `ram_gib` (0: not given) */
};

static void type_free(ss_host_type *ht)
{
    if (!ht) return;
    free(ht->name);
    free(ht->switch_socket);
    free(ht->gpu_parent);
    free(ht->pairs);
    free(ht);
}

void ss_host_types_free(ss_host_type **types, size_t n)
{
    for (size_t i = 0; i < n; i++) type_free(types[i]);
    free(types);
}

/* "cpu1" or "sw3" into an attach point (sockets first, then switches). */
static int read_attach(const ss_host_type *ht, const ss_node *n, const char *what, uint32_t *out, ss_err *err)
{
    TRY(ss_node_expect(n, SS_NODE_SCALAR, what, err));
    const char *s = n->value;
    char *end = NULL;
    unsigned long i = 0;
    int sw = strncmp(s, "sw", 2) == 0, cpu = strncmp(s, "cpu", 3) == 0;
    if (sw || cpu) {
        const char *digits = s + (sw ? 2 : 3);
        if (*digits >= '0' && *digits <= '9') i = strtoul(digits, &end, 10);
    }
    if (!end || *end) {
        return ss_node_err(n, err, "%s: expected cpuN (a socket) or swN (a PCIe switch), got '%s'", what, s);
    }
    if (cpu && i < ht->sockets) {
        *out = (uint32_t)i;
        return 0;
    }
    if (sw && i < ht->switches) {
        *out = ht->sockets + (uint32_t)i;
        return 0;
    }
    if (cpu)
        return ss_node_err(n, err, "%s: no socket '%s' (this host type has cpu0..cpu%u)", what, s, ht->sockets - 1);
    if (ht->switches == 0) return ss_node_err(n, err, "%s: no PCIe switch '%s' (this host type has none)", what, s);
    return ss_node_err(n, err, "%s: no PCIe switch '%s' (this host type has sw0..sw%u)", what, s, ht->switches - 1);
}

static int read_count(const ss_node *map, const char *key, uint32_t def, uint32_t lo, uint32_t hi, uint32_t *out,
                      ss_err *err)
{
    unsigned long long v = def;
    TRY(ss_cfg_u64(map, key, &v, 0, err));
    if (v < lo || v > hi)
        return ss_node_err(ss_map_find(map, key), err, "%s: expected %u to %u, got %llu", key, lo, hi, v);
    *out = (uint32_t)v;
    return 0;
}

static int read_nvlink(ss_host_type *ht, const ss_node *nv, ss_err *err)
{
    const char *keys[16];
    size_t k = 0;
    for (; ss_linkspec_keys[k]; k++) keys[k] = ss_linkspec_keys[k];
    keys[k++] = "pairs";
    keys[k] = NULL;
    TRY(ss_cfg_check_keys(nv, keys, "nvlink", err));
    TRY(ss_linkspec_read(nv, "nvlink", &ht->nvlink, err));
    ss_node *pairs;
    TRY(ss_cfg_seq(nv, "pairs", &pairs, SS_REQ, err));
    ht->pairs = ss_xcalloc(pairs->n ? pairs->n : 1, sizeof *ht->pairs);
    for (size_t i = 0; i < pairs->n; i++) {
        const ss_node *p = pairs->items[i];
        TRY(ss_node_expect(p, SS_NODE_SEQ, "nvlink pair ([gpu, gpu] or [gpu, gpu, bricks])", err));
        if (p->n != 2 && p->n != 3)
            return ss_node_err(p, err, "nvlink pair: expected [gpu, gpu] or [gpu, gpu, bricks], got %zu items", p->n);
        double v[3] = {0, 0, 1};
        for (size_t j = 0; j < p->n; j++)
            TRY(ss_node_num(p->items[j], j < 2 ? "nvlink pair: gpu" : "nvlink pair: bricks", &v[j],
                            j < 2 ? SS_INT | SS_NONNEG : SS_INT | SS_POS, err));
        for (size_t j = 0; j < 2; j++)
            if (v[j] >= ht->gpus)
                return ss_node_err(p->items[j], err, "nvlink pair: no gpu %g (this host type has gpu0..gpu%d)", v[j],
                                   (int)ht->gpus - 1);
        if (v[0] == v[1]) return ss_node_err(p, err, "nvlink pair: a GPU cannot link to itself");
        if (v[2] > MAX_BRICKS) return ss_node_err(p->items[2], err, "nvlink pair: at most %d bricks", MAX_BRICKS);
        nvpair np = {(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
        for (size_t q = 0; q < ht->npairs; q++)
            if ((ht->pairs[q].a == np.a && ht->pairs[q].b == np.b) ||
                (ht->pairs[q].a == np.b && ht->pairs[q].b == np.a))
                return ss_node_err(p, err, "nvlink pair: gpu%u-gpu%u is listed twice (give bricks instead)", np.a,
                                   np.b);
        ht->pairs[ht->npairs++] = np;
    }
    return 0;
}

/* `disk: {bandwidth_gbps, latency_s, size_gib}`: a local disk (NVMe) on
 * socket 0 that keeps model checkpoints (docs/coldstart.md). */
static int read_disk(ss_host_type *ht, const ss_node *m, ss_err *err)
{
    ss_node *d = NULL;
    TRY(ss_cfg_map(m, "disk", &d, 0, err));
    if (!d) return 0;
    const char *keys[16];
    size_t k = 0;
    for (; ss_linkspec_keys[k]; k++) keys[k] = ss_linkspec_keys[k];
    keys[k++] = "size_gib";
    keys[k] = NULL;
    TRY(ss_cfg_check_keys(d, keys, "disk", err));
    TRY(ss_linkspec_read(d, "disk", &ht->disk, err));
    double gib = 0;
    TRY(ss_cfg_num(d, "size_gib", &gib, SS_POS | SS_REQ, err));
    if (gib > 1e9) return ss_node_err(ss_map_find(d, "size_gib"), err, "size_gib: expected at most 1e9, got %g", gib);
    ht->disk_bytes = gib * 1073741824.0;
    ht->has_disk = 1;
    return 0;
}

static int read_type(ss_host_type *ht, const ss_node *m, ss_err *err)
{
    static const char *const keys[] = {"name",     "description", "sockets",  "socket_link", "pcie_switches",
                                       "switch_sockets", "switch_link", "gpus", "gpu_attach", "gpu_link",
                                       "nvlink",   "ram",         "nic",      "gpu_memory_gib", "ram_gib", "disk", NULL};
    TRY(ss_node_expect(m, SS_NODE_MAP, "host type", err));
    TRY(ss_cfg_check_keys(m, keys, "host type", err));
    const char *name, *desc;
    TRY(ss_cfg_name(m, "name", &name, SS_REQ, err));
    TRY(ss_cfg_str(m, "description", &desc, 0, err));
    if (!name[0] || strchr(name, '/'))
        return ss_node_err(ss_map_find(m, "name"), err, "name: expected a non-empty name without '/'");
    ht->name = ss_xstrdup(name);
    TRY(read_count(m, "sockets", 1, 1, MAX_SOCKETS, &ht->sockets, err));
    TRY(read_count(m, "pcie_switches", 0, 0, MAX_SWITCHES, &ht->switches, err));
    TRY(read_count(m, "gpus", 0, 0, MAX_GPUS, &ht->gpus, err));
    TRY(ss_linkspec_key(m, "socket_link", &ht->socket_link, ht->sockets > 1 ? SS_REQ : 0, err));
    TRY(ss_linkspec_key(m, "switch_link", &ht->switch_link, ht->switches > 0 ? SS_REQ : 0, err));
    TRY(ss_linkspec_key(m, "gpu_link", &ht->gpu_link, ht->gpus > 0 ? SS_REQ : 0, err));

    /* switches spread evenly over sockets unless placed */
    ht->switch_socket = ss_xcalloc(ht->switches ? ht->switches : 1, sizeof *ht->switch_socket);
    ss_node *ss = NULL;
    TRY(ss_cfg_seq(m, "switch_sockets", &ss, 0, err));
    if (ss && ss->n != ht->switches)
        return ss_node_err(ss, err, "switch_sockets: expected one socket per PCIe switch (%u), got %zu",
                           ht->switches, ss->n);
    for (uint32_t i = 0; i < ht->switches; i++) {
        ht->switch_socket[i] = (uint32_t)((uint64_t)i * ht->sockets / ht->switches);
        if (ss) {
            uint32_t a;
            TRY(read_attach(ht, ss->items[i], "switch_sockets", &a, err));
            if (a >= ht->sockets)
                return ss_node_err(ss->items[i], err, "switch_sockets: a PCIe switch hangs off a socket (cpuN)");
            ht->switch_socket[i] = a;
        }
    }
    /* GPUs spread evenly over switches (or sockets) unless placed */
    ht->gpu_parent = ss_xcalloc(ht->gpus ? ht->gpus : 1, sizeof *ht->gpu_parent);
    ss_node *ga = NULL;
    TRY(ss_cfg_seq(m, "gpu_attach", &ga, 0, err));
    if (ga && ga->n != ht->gpus)
        return ss_node_err(ga, err, "gpu_attach: expected one attach point per GPU (%u), got %zu", ht->gpus, ga->n);
    for (uint32_t i = 0; i < ht->gpus; i++) {
        if (ga) TRY(read_attach(ht, ga->items[i], "gpu_attach", &ht->gpu_parent[i], err));
        else if (ht->switches) ht->gpu_parent[i] = ht->sockets + (uint32_t)((uint64_t)i * ht->switches / ht->gpus);
        else ht->gpu_parent[i] = (uint32_t)((uint64_t)i * ht->sockets / ht->gpus);
    }
    ss_node *nv = NULL;
    TRY(ss_cfg_map(m, "nvlink", &nv, 0, err));
    if (nv) TRY(read_nvlink(ht, nv, err));
    TRY(ht->has_ram = ss_linkspec_key(m, "ram", &ht->ram, 0, err));
    /* Memory sizes, for serving: a replica must fit a GPU, a host's RAM
     * holds the model data and processes of cold starts. */
    double vram_gib = 0, ram_gib = 0;
    TRY(ss_cfg_num(m, "gpu_memory_gib", &vram_gib, SS_POS, err));
    TRY(ss_cfg_num(m, "ram_gib", &ram_gib, SS_POS, err));
    if (vram_gib > 1e6 || ram_gib > 1e9)
        return ss_node_err(ss_map_find(m, vram_gib > 1e6 ? "gpu_memory_gib" : "ram_gib"), err,
                           "%s: expected at most %g GiB, got %g", vram_gib > 1e6 ? "gpu_memory_gib" : "ram_gib",
                           vram_gib > 1e6 ? 1e6 : 1e9, vram_gib > 1e6 ? vram_gib : ram_gib);
    ht->gpu_vram_bytes = vram_gib * 1073741824.0;
    ht->ram_bytes = ram_gib * 1073741824.0;
    TRY(read_disk(ht, m, err));

    const char *nic_keys[16];
    size_t k = 0;
    for (; ss_linkspec_keys[k]; k++) nic_keys[k] = ss_linkspec_keys[k];
    nic_keys[k++] = "attach";
    nic_keys[k] = NULL;
    ss_node *nic;
    TRY(ss_cfg_map(m, "nic", &nic, SS_REQ, err));
    TRY(ss_cfg_check_keys(nic, nic_keys, "nic", err));
    TRY(ss_linkspec_read(nic, "nic", &ht->nic, err));
    const ss_node *at = ss_map_find(nic, "attach");
    if (at) TRY(read_attach(ht, at, "attach", &ht->nic_parent, err));
    return 0;
}

int ss_host_types_read(const ss_node *seq, ss_host_type ***out, size_t *n, ss_err *err)
{
    *out = ss_xcalloc(seq->n ? seq->n : 1, sizeof **out);
    *n = 0;
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *it = seq->items[i];
        ss_host_type *ht = ss_xcalloc(1, sizeof *ht);
        (*out)[(*n)++] = ht;
        int rc;
        const ss_node *name_at;
        if (it->kind == SS_NODE_SCALAR && !it->is_null) { /* a file holding one host type */
            char *path = ss_node_readable(it, "host type file", err);
            if (!path) return -1;
            ss_doc *doc = ss_doc_load(path, err);
            free(path);
            if (!doc) return -1;
            rc = read_type(ht, doc->root, err);
            ss_doc_free(doc);
            name_at = it;
        } else {
            rc = read_type(ht, it, err);
            name_at = ss_map_find(it, "name");
        }
        TRY(rc);
        for (size_t k = 0; k + 1 < *n; k++)
            if (strcmp((*out)[k]->name, ht->name) == 0)
                return ss_node_err(name_at, err, "duplicate host type '%s'", ht->name);
    }
    return 0;
}

int ss_host_type_find(ss_host_type *const *types, size_t n, const ss_node *ref, const ss_host_type **out, ss_err *err)
{
    TRY(ss_node_expect(ref, SS_NODE_SCALAR, "type", err));
    for (size_t i = 0; i < n; i++)
        if (strcmp(types[i]->name, ref->value) == 0) {
            *out = types[i];
            return 0;
        }
    if (n == 0) return ss_node_err(ref, err, "unknown host type '%s' (no host_types are defined)", ref->value);
    const char **names = ss_xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; i < n; i++) names[i] = types[i]->name;
    int rc = ss_node_unknown(ref, "host type", names, err);
    free(names);
    return rc;
}

uint32_t ss_host_type_nodes(const ss_host_type *ht)
{
    return ht ? 1 + ht->sockets + ht->switches + ht->gpus + (ht->has_ram ? 1 : 0) + (ht->has_disk ? 1 : 0) : 1;
}

static void add(ss_topo *t, uint32_t a, uint32_t b, const ss_linkspec *ls, uint32_t times, ss_topo_tier tier)
{
    ss_topo_add_link(t, a, b, ls->up_bps * times, ls->down_bps * times, ls->latency_s, tier);
}

uint32_t ss_host_instantiate(ss_topo *t, const char *name, const ss_host_type *ht)
{
    uint32_t h = ss_topo_add_host(t);
    uint32_t nic = ss_topo_add_node(t, name, SS_TN_HOST, h);
    if (ht) {
        uint32_t cpu0 = (uint32_t)t->nnodes;
        for (uint32_t i = 0; i < ht->sockets; i++) {
            char *n = ss_xasprintf("%s/cpu%u", name, i);
            ss_topo_add_node(t, n, SS_TN_SOCKET, h);
            free(n);
        }
        uint32_t sw0 = (uint32_t)t->nnodes;
        for (uint32_t i = 0; i < ht->switches; i++) {
            char *n = ss_xasprintf("%s/sw%u", name, i);
            ss_topo_add_node(t, n, SS_TN_PCIE_SWITCH, h);
            free(n);
        }
        uint32_t gpu0 = (uint32_t)t->nnodes;
        for (uint32_t i = 0; i < ht->gpus; i++) {
            char *n = ss_xasprintf("%s/gpu%u", name, i);
            ss_topo_add_node(t, n, SS_TN_GPU, h);
            free(n);
        }
        uint32_t ram = SS_TOPO_NONE;
        if (ht->has_ram) {
            char *n = ss_xasprintf("%s/ram", name);
            ram = ss_topo_add_node(t, n, SS_TN_RAM, h);
            free(n);
        }
        uint32_t disk = SS_TOPO_NONE;
        if (ht->has_disk) {
            char *n = ss_xasprintf("%s/disk", name);
            disk = ss_topo_add_node(t, n, SS_TN_DISK, h);
            free(n);
        }
        /* attach point p: socket p, or switch p - sockets */
#define AT(p) ((p) < ht->sockets ? cpu0 + (p) : sw0 + (p) - ht->sockets)
        for (uint32_t i = 0; i < ht->sockets; i++)
            for (uint32_t j = i + 1; j < ht->sockets; j++)
                add(t, cpu0 + i, cpu0 + j, &ht->socket_link, 1, SS_TL_SOCKET);
        for (uint32_t i = 0; i < ht->switches; i++)
            add(t, sw0 + i, cpu0 + ht->switch_socket[i], &ht->switch_link, 1, SS_TL_PCIE);
        for (uint32_t i = 0; i < ht->gpus; i++) add(t, gpu0 + i, AT(ht->gpu_parent[i]), &ht->gpu_link, 1, SS_TL_PCIE);
        for (size_t i = 0; i < ht->npairs; i++)
            add(t, gpu0 + ht->pairs[i].a, gpu0 + ht->pairs[i].b, &ht->nvlink, ht->pairs[i].bricks, SS_TL_NVLINK);
        for (uint32_t i = 0; ram != SS_TOPO_NONE && i < ht->sockets; i++)
            add(t, ram, cpu0 + i, &ht->ram, 1, SS_TL_MEMORY);
        if (disk != SS_TOPO_NONE) add(t, disk, cpu0, &ht->disk, 1, SS_TL_DISK);
        add(t, nic, AT(ht->nic_parent), &ht->nic, 1, SS_TL_NIC);
#undef AT
        t->hosts[h].gpu0 = gpu0;
        t->hosts[h].ngpus = ht->gpus;
        t->hosts[h].ram = ram;
        t->hosts[h].disk = disk;
        t->hosts[h].disk_bytes = ht->disk_bytes;
        t->hosts[h].gpu_vram_bytes = ht->gpu_vram_bytes;
        t->hosts[h].ram_bytes = ht->ram_bytes;
    }
    t->hosts[h].count = (uint32_t)t->nnodes - nic;
    return nic;
}
