/* plan.c: reading a deployment plan (the schema is in docs/blockflow.md,
 * "Deployment planning") and costing every (model, mix, deployment); the
 * model is described in plan.h. */
#include "cmd/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/cfg.h"

typedef struct pclass {
    char *name;
    unsigned shared;           /* blocks of the path shared with every other task */
} pclass;

typedef struct pmix {
    char *name;
    unsigned long long *count; /* tasks per class */
} pmix;

typedef struct pfuse {
    unsigned first, n;         /* blocks first .. first+n-1 in one process */
    const char *figure;        /* its figure's name in the profile, or NULL: derived */
} pfuse;

typedef struct pdeploy {
    char *name;
    int traditional;
    pfuse *fuse;
    size_t nfuse;
} pdeploy;

typedef struct pmodel {
    char *name;
    double *block_mib;         /* per block */
    double full_mib;           /* the unsplit model's process */
    double **fuse_mib;         /* [deployment][fusion group] */
} pmodel;

struct ss_plan {
    ss_doc *doc;
    char *name;
    unsigned long long tasks_trad; /* traditional tasks, 0: the mix's total */
    double ram_per_process_mib;
    double gpu_vram_mib;           /* 0: no GPU count */
    char **blocks;
    size_t nblocks;
    pclass *classes;
    size_t nclasses;
    pmix *mixes;
    size_t nmixes;
    pdeploy *deploys;
    size_t ndeploys;
    pmodel *models;
    size_t nmodels;
};

/* With gpu_vram_mib, the processes are packed onto GPUs one by one
 * (gpus_needed): a deployment of more than this many is refused. */
enum { MAX_GPU_PROCS = 100000 };

#define TRY(x)                      \
    do {                            \
        if ((x) < 0) return -1;     \
    } while (0)

static int block_index(const ss_plan *p, const ss_node *n, unsigned *out, ss_err *err)
{
    if (ss_node_expect(n, SS_NODE_SCALAR, "block", err) < 0) return -1;
    for (size_t b = 0; b < p->nblocks; b++)
        if (strcmp(p->blocks[b], n->value) == 0) {
            *out = (unsigned)b;
            return 0;
        }
    const char *near = ss_suggest(n->value, (const char *const *)p->blocks);
    return ss_node_err(n, err, "unknown block '%s'%s%s%s (the plan's blocks are listed under blocks:)", n->value,
                       near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
}

static int read_blocks(ss_plan *p, const ss_node *root, ss_err *err)
{
    ss_node *seq;
    TRY(ss_cfg_seq(root, "blocks", &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "blocks: expected at least one block name");
    p->blocks = ss_xcalloc(seq->n + 1, sizeof *p->blocks);
    for (size_t i = 0; i < seq->n; i++) {
        TRY(ss_node_expect(seq->items[i], SS_NODE_SCALAR, "block name", err));
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->blocks[j], seq->items[i]->value) == 0)
                return ss_node_err(seq->items[i], err, "block '%s' listed twice", seq->items[i]->value);
        p->blocks[p->nblocks++] = ss_xstrdup(seq->items[i]->value);
    }
    return 0;
}

static int read_classes(ss_plan *p, const ss_node *root, ss_err *err)
{
    static const char *const keys[] = {"name", "shared_blocks", NULL};
    ss_node *seq;
    TRY(ss_cfg_seq(root, "classes", &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "classes: expected at least one class");
    p->classes = ss_xcalloc(seq->n, sizeof *p->classes);
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *c = seq->items[i];
        TRY(ss_node_expect(c, SS_NODE_MAP, "class", err));
        TRY(ss_cfg_check_keys(c, keys, "class", err));
        const char *name;
        unsigned long long shared;
        TRY(ss_cfg_str(c, "name", &name, SS_REQ, err));
        TRY(ss_cfg_u64(c, "shared_blocks", &shared, SS_REQ | SS_INT | SS_NONNEG, err));
        if (shared > p->nblocks)
            return ss_node_err(ss_map_find(c, "shared_blocks"), err,
                               "shared_blocks: expected at most %zu (the number of blocks), got %llu", p->nblocks,
                               shared);
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->classes[j].name, name) == 0)
                return ss_node_err(ss_map_find(c, "name"), err, "class '%s' defined twice", name);
        p->classes[p->nclasses++] = (pclass){ss_xstrdup(name), (unsigned)shared};
    }
    return 0;
}

/* A mix gives each class a share of `tasks` in percent, or task counts. */
static int read_mix(ss_plan *p, const ss_node *m, unsigned long long tasks, pmix *out, ss_err *err)
{
    static const char *const keys[] = {"name", "percent", "tasks", NULL};
    TRY(ss_node_expect(m, SS_NODE_MAP, "mix", err));
    TRY(ss_cfg_check_keys(m, keys, "mix", err));
    const char *name;
    TRY(ss_cfg_str(m, "name", &name, SS_REQ, err));
    out->name = ss_xstrdup(name);
    out->count = ss_xcalloc(p->nclasses, sizeof *out->count);
    ss_node *pct = ss_map_find(m, "percent"), *cnt = ss_map_find(m, "tasks");
    if (!pct == !cnt) return ss_node_err(m, err, "mix '%s': expected exactly one of percent: or tasks:", name);
    ss_node *by = pct ? pct : cnt;
    TRY(ss_node_expect(by, SS_NODE_MAP, pct ? "percent" : "tasks", err));
    const char **names = ss_xcalloc(p->nclasses + 1, sizeof *names);
    for (size_t c = 0; c < p->nclasses; c++) names[c] = p->classes[c].name;
    int rc = ss_cfg_check_keys(by, names, "mix (a class name)", err);
    free(names);
    TRY(rc);
    double total = 0;
    for (size_t c = 0; c < p->nclasses; c++) {
        double v = 0;
        TRY(ss_cfg_num(by, p->classes[c].name, &v, SS_NONNEG | (cnt ? SS_INT : 0), err));
        if (cnt && v > 1e9)
            return ss_node_err(ss_map_find(by, p->classes[c].name), err, "%s: at most 1e9 tasks, got %g",
                               p->classes[c].name, v);
        total += v;
        out->count[c] = cnt ? (unsigned long long)v : (unsigned long long)llround(v * (double)tasks / 100.0);
    }
    if (pct && total > 100.0 + 1e-9) return ss_node_err(by, err, "percent: the shares add up to %g, more than 100", total);
    if (total <= 0) return ss_node_err(by, err, "mix '%s': expected some tasks", name);
    return 0;
}

static int read_mixes(ss_plan *p, const ss_node *root, unsigned long long tasks, ss_err *err)
{
    ss_node *seq;
    TRY(ss_cfg_seq(root, "mixes", &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "mixes: expected at least one mix");
    p->mixes = ss_xcalloc(seq->n, sizeof *p->mixes);
    for (size_t i = 0; i < seq->n; i++) {
        p->nmixes++;
        TRY(read_mix(p, seq->items[i], tasks, &p->mixes[i], err));
        unsigned long long total = 0;
        for (size_t c = 0; c < p->nclasses; c++) total += p->mixes[i].count[c];
        /* a mix deploys at most the shared prefix and every task's blocks */
        double procs = (double)(total + 1) * (double)p->nblocks;
        if (p->gpu_vram_mib > 0 && procs > MAX_GPU_PROCS)
            return ss_node_err(seq->items[i], err, "mix '%s': up to %.0f processes (%llu tasks, %zu blocks), more "
                               "than the %d whose GPUs gpu_vram_mib: counts", p->mixes[i].name, procs, total,
                               p->nblocks, MAX_GPU_PROCS);
    }
    return 0;
}

static int read_fuse(ss_plan *p, const ss_node *f, pdeploy *d, ss_err *err)
{
    static const char *const keys[] = {"blocks", "figure", NULL};
    TRY(ss_node_expect(f, SS_NODE_MAP, "fusion group", err));
    TRY(ss_cfg_check_keys(f, keys, "fusion group", err));
    ss_node *bl;
    TRY(ss_cfg_seq(f, "blocks", &bl, SS_REQ, err));
    if (bl->n < 2) return ss_node_err(bl, err, "blocks: a fusion group needs at least two blocks");
    unsigned first = 0, prev = 0;
    for (size_t i = 0; i < bl->n; i++) {
        unsigned b = 0;
        TRY(block_index(p, bl->items[i], &b, err));
        if (i == 0) first = b;
        else if (b != prev + 1)
            return ss_node_err(bl->items[i], err, "fused blocks must be consecutive on the path: '%s' does not follow '%s'",
                               p->blocks[b], p->blocks[prev]);
        prev = b;
    }
    for (size_t g = 0; g < d->nfuse; g++)
        if (first < d->fuse[g].first + d->fuse[g].n && d->fuse[g].first < first + bl->n)
            return ss_node_err(bl, err, "fusion groups of deployment '%s' overlap", d->name);
    const char *fig = NULL;
    TRY(ss_cfg_str(f, "figure", &fig, 0, err));
    d->fuse[d->nfuse++] = (pfuse){first, (unsigned)bl->n, fig};
    return 0;
}

static int read_deploys(ss_plan *p, const ss_node *root, ss_err *err)
{
    static const char *const keys[] = {"name", "traditional", "fuse", NULL};
    ss_node *seq;
    TRY(ss_cfg_seq(root, "deployments", &seq, SS_REQ, err));
    p->deploys = ss_xcalloc(seq->n, sizeof *p->deploys);
    int have_trad = 0;
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *n = seq->items[i];
        TRY(ss_node_expect(n, SS_NODE_MAP, "deployment", err));
        TRY(ss_cfg_check_keys(n, keys, "deployment", err));
        pdeploy *d = &p->deploys[p->ndeploys++];
        const char *name;
        TRY(ss_cfg_str(n, "name", &name, SS_REQ, err));
        d->name = ss_xstrdup(name);
        TRY(ss_cfg_bool(n, "traditional", &d->traditional, 0, err));
        ss_node *fu = NULL;
        TRY(ss_cfg_seq(n, "fuse", &fu, 0, err));
        if (fu && d->traditional) return ss_node_err(fu, err, "fuse: a traditional deployment runs unsplit models");
        if (fu) {
            d->fuse = ss_xcalloc(fu->n, sizeof *d->fuse);
            for (size_t g = 0; g < fu->n; g++) TRY(read_fuse(p, fu->items[g], d, err));
        }
        have_trad |= d->traditional;
    }
    if (!have_trad) return ss_node_err(seq, err, "deployments: expected one with traditional: true (savings are against it)");
    return 0;
}

/* Figure `name` (MiB) from a profile's figures table, read at the table. */
static int figure(const ss_node *table, const ss_node *where, const char *name, double *out, ss_err *err)
{
    const ss_node *n = ss_map_find(table, name);
    if (!n)
        return ss_node_err(where, err, "no VRAM figure '%s' in %s (its table at line %d)", name, table->file,
                           table->line);
    return ss_node_num(n, name, out, SS_POS, err);
}

static int read_model(ss_plan *p, const ss_node *m, const char *figures, pmodel *out, ss_doc **prof, ss_err *err)
{
    static const char *const keys[] = {"name", "profile", NULL};
    TRY(ss_node_expect(m, SS_NODE_MAP, "model", err));
    TRY(ss_cfg_check_keys(m, keys, "model", err));
    const char *name, *rel;
    TRY(ss_cfg_str(m, "name", &name, SS_REQ, err));
    TRY(ss_cfg_str(m, "profile", &rel, SS_REQ, err));
    out->name = ss_xstrdup(name);
    char *path = ss_node_readable(ss_map_find(m, "profile"), "profile", err);
    if (!path) return -1;
    *prof = ss_doc_load_json(path, err);
    free(path);
    if (!*prof) return -1;
    const ss_node *root = (*prof)->root, *vt = ss_map_find(root, "vram_tables");
    const ss_node *table = vt ? ss_map_find(vt, figures) : NULL;
    if (!table || table->kind != SS_NODE_MAP)
        return ss_node_err(ss_map_find(m, "profile"), err, "profile has no map vram_tables.%s", figures);
    out->block_mib = ss_xcalloc(p->nblocks, sizeof *out->block_mib);
    const ss_node *at = ss_map_find(m, "profile");
    for (size_t b = 0; b < p->nblocks; b++) TRY(figure(table, at, p->blocks[b], &out->block_mib[b], err));
    TRY(figure(table, at, "full_model", &out->full_mib, err));
    /* Fused processes: the named figure, or derived from the context. */
    double context = NAN;
    const ss_node *proc = ss_map_find(root, "process");
    if (proc && ss_map_find(proc, "context_vram_mib")) TRY(ss_cfg_num(proc, "context_vram_mib", &context, SS_POS, err));
    out->fuse_mib = ss_xcalloc(p->ndeploys, sizeof *out->fuse_mib);
    for (size_t d = 0; d < p->ndeploys; d++) {
        const pdeploy *dp = &p->deploys[d];
        out->fuse_mib[d] = ss_xcalloc(dp->nfuse + 1, sizeof **out->fuse_mib);
        for (size_t g = 0; g < dp->nfuse; g++) {
            const pfuse *f = &dp->fuse[g];
            if (f->figure) {
                TRY(figure(table, at, f->figure, &out->fuse_mib[d][g], err));
                continue;
            }
            if (isnan(context))
                return ss_node_err(at, err, "deployment '%s' fuses '%s' without a figure:, and the profile has no "
                                   "process.context_vram_mib to derive one", dp->name, p->blocks[f->first]);
            double s = 0;
            for (unsigned b = f->first; b < f->first + f->n; b++) s += out->block_mib[b];
            out->fuse_mib[d][g] = s - (double)(f->n - 1) * context;
        }
    }
    return 0;
}

static int read_plan(ss_plan *p, const ss_node *root, ss_err *err)
{
    static const char *const keys[] = {"name", "models", "figures", "blocks", "classes", "tasks", "traditional_tasks",
                                       "mixes", "deployments", "host_ram_per_process_mib", "gpu_vram_mib", NULL};
    TRY(ss_node_expect(root, SS_NODE_MAP, "plan", err));
    TRY(ss_cfg_check_keys(root, keys, "plan", err));
    const char *name = "plan", *figures = "process_vram_mib";
    TRY(ss_cfg_str(root, "name", &name, 0, err));
    p->name = ss_xstrdup(name);
    TRY(ss_cfg_str(root, "figures", &figures, 0, err));
    unsigned long long tasks = 100;
    TRY(ss_cfg_u64(root, "tasks", &tasks, SS_POS | SS_INT, err));
    TRY(ss_cfg_u64(root, "traditional_tasks", &p->tasks_trad, SS_POS | SS_INT, err));
    static const char *const counts[] = {"tasks", "traditional_tasks"};
    for (int k = 0; k < 2; k++)
        if ((k ? p->tasks_trad : tasks) > 1000000000ull)
            return ss_node_err(ss_map_find(root, counts[k]), err, "%s: at most 1e9, got %llu", counts[k],
                               k ? p->tasks_trad : tasks);
    p->ram_per_process_mib = 700; /* "~700MB" of RAM per process (seed §8) */
    TRY(ss_cfg_num(root, "host_ram_per_process_mib", &p->ram_per_process_mib, SS_NONNEG, err));
    TRY(ss_cfg_num(root, "gpu_vram_mib", &p->gpu_vram_mib, SS_POS, err));
    if (p->gpu_vram_mib > 0 && p->tasks_trad > MAX_GPU_PROCS)
        return ss_node_err(ss_map_find(root, "traditional_tasks"), err,
                           "traditional_tasks: at most %d with gpu_vram_mib: (it counts their processes' GPUs), got %llu",
                           MAX_GPU_PROCS, p->tasks_trad);
    TRY(read_blocks(p, root, err));
    TRY(read_classes(p, root, err));
    TRY(read_mixes(p, root, tasks, err));
    TRY(read_deploys(p, root, err));
    ss_node *seq;
    TRY(ss_cfg_seq(root, "models", &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "models: expected at least one model");
    p->models = ss_xcalloc(seq->n, sizeof *p->models);
    for (size_t i = 0; i < seq->n; i++) {
        ss_doc *prof = NULL;
        p->nmodels++;
        int rc = read_model(p, seq->items[i], figures, &p->models[i], &prof, err);
        ss_doc_free(prof);
        TRY(rc);
    }
    return 0;
}

ss_plan *ss_plan_load(const char *path, char *const *sets, size_t nsets, ss_err *err)
{
    ss_plan *p = ss_xcalloc(1, sizeof *p);
    p->doc = ss_doc_load_yaml(path, err);
    int rc = p->doc ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < nsets; i++) rc = ss_doc_set(p->doc, sets[i], (int)i + 1, err);
    if (rc == 0) rc = read_plan(p, p->doc->root, err);
    if (rc < 0) {
        ss_plan_free(p);
        return NULL;
    }
    return p;
}

void ss_plan_free(ss_plan *p)
{
    if (!p) return;
    for (size_t m = 0; m < p->nmodels; m++) {
        pmodel *md = &p->models[m];
        free(md->name);
        free(md->block_mib);
        if (md->fuse_mib)
            for (size_t d = 0; d < p->ndeploys; d++) free(md->fuse_mib[d]);
        free(md->fuse_mib);
    }
    free(p->models);
    for (size_t d = 0; d < p->ndeploys; d++) {
        free(p->deploys[d].name);
        free(p->deploys[d].fuse);
    }
    free(p->deploys);
    for (size_t i = 0; i < p->nmixes; i++) {
        free(p->mixes[i].name);
        free(p->mixes[i].count);
    }
    free(p->mixes);
    for (size_t c = 0; c < p->nclasses; c++) free(p->classes[c].name);
    free(p->classes);
    for (size_t b = 0; b < p->nblocks; b++) free(p->blocks[b]);
    free(p->blocks);
    free(p->name);
    ss_doc_free(p->doc);
    free(p);
}

/* ---- costing ------------------------------------------------------------- */

/* Processes of one deployment: (figure, how many) pairs, for the GPU count. */
typedef struct cost {
    double vram_mib;
    unsigned long long procs;
    double *fig;
    unsigned long long *times;
    size_t n, cap;
} cost;

static void add(cost *c, double fig_mib, unsigned long long times)
{
    if (times == 0) return;
    c->vram_mib += (double)times * fig_mib;
    c->procs += times;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->fig = ss_xrealloc(c->fig, c->cap * sizeof *c->fig);
        c->times = ss_xrealloc(c->times, c->cap * sizeof *c->times);
    }
    c->fig[c->n] = fig_mib;
    c->times[c->n++] = times;
}

/* Figures of the processes that blocks [a, b) become under deployment d:
 * fusion groups lying wholly inside the range are one process each.  Their
 * sum goes to *sum_mib (added in path order) and each is recorded with
 * `times` in c (the shared prefix: once; an owned suffix: once per task). */
static double range(const ss_plan *p, const pmodel *m, size_t d, unsigned a, unsigned b, unsigned long long times,
                    cost *c)
{
    double sum = 0;
    const pdeploy *dp = &p->deploys[d];
    for (unsigned i = a; i < b;) {
        size_t g = 0;
        while (g < dp->nfuse && !(dp->fuse[g].first == i && i + dp->fuse[g].n <= b)) g++;
        double fig = g < dp->nfuse ? m->fuse_mib[d][g] : m->block_mib[i];
        i += g < dp->nfuse ? dp->fuse[g].n : 1;
        sum += fig;
        add(c, fig, times);
    }
    return sum;
}

/* Cost of deployment d of model m for mix x.  VRAM is summed as the
 * shared part, then per class count x (its processes' sum), so that the
 * figures' decimals round the same way in every implementation. */
static void deploy_cost(const ss_plan *p, const pmodel *m, size_t d, const pmix *x, cost *c)
{
    memset(c, 0, sizeof *c);
    unsigned long long total = 0;
    for (size_t k = 0; k < p->nclasses; k++) total += x->count[k];
    if (p->deploys[d].traditional) {
        add(c, m->full_mib, p->tasks_trad ? p->tasks_trad : total);
        return;
    }
    unsigned shared = 0;
    for (size_t k = 0; k < p->nclasses; k++)
        if (x->count[k] && p->classes[k].shared > shared) shared = p->classes[k].shared;
    cost scratch = {0};
    double v = range(p, m, d, 0, shared, 1, c);
    for (size_t k = 0; k < p->nclasses; k++) {
        unsigned long long n = x->count[k];
        if (n == 0) continue;
        if (p->classes[k].shared == 0) {
            add(&scratch, m->full_mib, n);
            v += (double)n * m->full_mib;
            continue;
        }
        v += (double)n * range(p, m, d, p->classes[k].shared, (unsigned)p->nblocks, n, &scratch);
    }
    /* Merge the owned processes into c (their VRAM is already in v). */
    for (size_t i = 0; i < scratch.n; i++) add(c, scratch.fig[i], scratch.times[i]);
    free(scratch.fig);
    free(scratch.times);
    c->vram_mib = v;
}

static int by_size_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* GPUs of gpu_mib each needed to hold c's processes, first-fit decreasing;
 * 0 if one process alone does not fit. */
static unsigned long long gpus_needed(const cost *c, double gpu_mib)
{
    double *items = ss_xcalloc(c->procs + 1, sizeof *items);
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        for (unsigned long long t = 0; t < c->times[i]; t++) items[n++] = c->fig[i];
    qsort(items, n, sizeof *items, by_size_desc);
    double *left = ss_xcalloc(n + 1, sizeof *left);
    size_t bins = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i] > gpu_mib) {
            bins = 0;
            break;
        }
        /* the bins before the one an item of the same size went to had no
         * room for it, and have less now: the search starts there */
        if (i == 0 || items[i] != items[i - 1]) b = 0;
        while (b < bins && left[b] < items[i]) b++;
        if (b == bins) left[bins++] = gpu_mib;
        left[b] -= items[i];
    }
    free(items);
    free(left);
    return bins;
}

void ss_plan_csv(const ss_plan *p, FILE *fp)
{
    fputs("model,scenario", fp);
    for (size_t k = 0; k < p->nclasses; k++) {
        char *col = ss_xasprintf("n_%s", p->classes[k].name);
        for (char *s = col; *s; s++)
            if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
        fputc(',', fp);
        ss_csv_field(fp, col);
        free(col);
    }
    fputs(",deployment,processes,vram_mib,host_ram_mib,savings_pct", fp);
    if (p->gpu_vram_mib > 0) fputs(",gpus", fp);
    fputc('\n', fp);
    for (size_t m = 0; m < p->nmodels; m++) {
        for (size_t x = 0; x < p->nmixes; x++) {
            double trad = NAN;
            for (size_t d = 0; d < p->ndeploys && isnan(trad); d++) {
                if (!p->deploys[d].traditional) continue;
                cost c;
                deploy_cost(p, &p->models[m], d, &p->mixes[x], &c);
                trad = c.vram_mib;
                free(c.fig);
                free(c.times);
            }
            for (size_t d = 0; d < p->ndeploys; d++) {
                cost c;
                deploy_cost(p, &p->models[m], d, &p->mixes[x], &c);
                ss_csv_field(fp, p->models[m].name);
                fputc(',', fp);
                ss_csv_field(fp, p->mixes[x].name);
                for (size_t k = 0; k < p->nclasses; k++) fprintf(fp, ",%llu", p->mixes[x].count[k]);
                fputc(',', fp);
                ss_csv_field(fp, p->deploys[d].name);
                fprintf(fp, ",%llu,%.1f,%.0f,", c.procs, c.vram_mib, (double)c.procs * p->ram_per_process_mib);
                if (!p->deploys[d].traditional) fprintf(fp, "%.2f", (trad - c.vram_mib) / trad * 100.0);
                if (p->gpu_vram_mib > 0) {
                    unsigned long long g = gpus_needed(&c, p->gpu_vram_mib);
                    if (g) fprintf(fp, ",%llu", g);
                    else fputc(',', fp);
                }
                fputc('\n', fp);
                free(c.fig);
                free(c.times);
            }
        }
    }
}

void ss_plan_print(const ss_plan *p, FILE *fp)
{
    fprintf(fp, "%s: VRAM in MiB (savings against the traditional deployment)\n", p->name);
    fprintf(fp, "%-12s %-10s", "model", "mix");
    for (size_t d = 0; d < p->ndeploys; d++) fprintf(fp, " %20s", p->deploys[d].name);
    fputc('\n', fp);
    for (size_t m = 0; m < p->nmodels; m++) {
        for (size_t x = 0; x < p->nmixes; x++) {
            fprintf(fp, "%-12s %-10s", p->models[m].name, p->mixes[x].name);
            double trad = NAN;
            cost *c = ss_xcalloc(p->ndeploys, sizeof *c);
            for (size_t d = 0; d < p->ndeploys; d++) {
                deploy_cost(p, &p->models[m], d, &p->mixes[x], &c[d]);
                if (p->deploys[d].traditional && isnan(trad)) trad = c[d].vram_mib;
            }
            for (size_t d = 0; d < p->ndeploys; d++) {
                if (p->deploys[d].traditional) fprintf(fp, " %20.1f", c[d].vram_mib);
                else fprintf(fp, " %10.1f (%6.2f%%)", c[d].vram_mib, (trad - c[d].vram_mib) / trad * 100.0);
                free(c[d].fig);
                free(c[d].times);
            }
            free(c);
            fputc('\n', fp);
        }
    }
}
