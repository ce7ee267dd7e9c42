/* llm_perf.c: the per-operator step-time model (llm_perf.h): reading the
 * profile's three tables and interpolating them. */
#include "llm/llm_perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvread.h"

/* One operator's time by tokens (or sequences): x increasing. */
typedef struct table1 {
    double *x, *t_s;
    size_t n;
} table1;

enum { OP_LAYERNORM, OP_QKV, OP_ROPE, OP_O, OP_GATE_UP, OP_ACT, OP_DOWN, OP_EMBED, OP_FINAL_LN, NDENSE };
static const char *const dense_names[NDENSE] = {"layernorm",    "qkv_proj", "rotary_emb", "o_proj",         "gate_up_proj",
                                                "act_fn",       "down_proj", "embedding", "final_layernorm"};
enum { OP_LM_HEAD, OP_SAMPLER, NSEQ };
static const char *const seq_names[NSEQ] = {"lm_head", "sampler"};

#define GRID_MAX 64   /* kv_prefill values in a slice, and kv_decode values under one, at most */
#define FLOOR_S 1e-9  /* an operator's time, at least (LLMServingSim's 1 ns: extrapolation may dip below 0) */

/* Attention: rows sorted by (pc, nd, kp, kd); a slice is one (pc, nd). */
typedef struct attn_row {
    double pc, nd, kp, kd, t_s;
} attn_row;

typedef struct slice {
    double pc, nd;
    size_t lo, hi; /* rows [lo, hi) */
} slice;

struct ss_llm_perf {
    uint32_t layers;
    table1 dense[NDENSE], seq[NSEQ];
    attn_row *rows;
    size_t nrows;
    slice *slices;
    size_t nslices;
    double *pcs, *nds; /* the distinct pc and nd of the grid, increasing */
    size_t npc, nnd;
    double scale[SS_LLM_PERF_CLASSES]; /* each class's times multiplied by (ss_llm_perf_scale; 1 when loaded) */
};

/* ---- reading ------------------------------------------------------------------ */

static int num_at(const ss_csv *csv, const ss_csv_row *r, size_t k, double *v, int positive, ss_err *err)
{
    char *end;
    *v = ss_strtod(r->f[k], &end);
    if (end == r->f[k] || *end || !isfinite(*v) || *v < 0 || (positive && !(*v > 0)) || *v > 1e12)
        return ss_err_at(err, csv->path, r->line, ss_csv_field_col(r, k), "expected a number %s, got '%s'",
                         positive ? "> 0" : ">= 0", r->f[k]);
    return 0;
}

static long need_col(const ss_csv *csv, const char *name, ss_err *err)
{
    long k = csv->nrows ? ss_csv_col(&csv->rows[0], name) : -1;
    if (k < 0) ss_err_at(err, csv->path, 1, 1, "expected a column '%s' in the header", name);
    return k;
}

/* Rows of a 1-D file (op, x, time_us) into tables[i] for the ops named in names. */
static int read_1d(const char *dir, const char *file, const char *xcol, const char *const *names, size_t nnames,
                   table1 *tables, ss_err *err)
{
    char *path = ss_path_join(dir, file);
    ss_csv csv;
    int rc = ss_csv_read_whole(path, &csv, err);
    free(path);
    if (rc < 0) return -1;
    long kl = need_col(&csv, "layer", err), kx = kl < 0 ? -1 : need_col(&csv, xcol, err),
         kt = kx < 0 ? -1 : need_col(&csv, "time_us", err);
    rc = kt < 0 ? -1 : 0;
    for (size_t i = 1; rc == 0 && i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        long most = kl > kx ? (kl > kt ? kl : kt) : (kx > kt ? kx : kt);
        if (r->n <= (size_t)most) {
            rc = ss_err_at(err, csv.path, r->line, 1, "expected layer, %s and time_us (%zu fields, the header has "
                                                      "them in column %ld)", xcol, r->n, most + 1);
            break;
        }
        size_t op = 0;
        while (op < nnames && strcmp(r->f[kl], names[op]) != 0) op++;
        if (op == nnames) continue; /* an operator the step does not use */
        double x, t;
        if (num_at(&csv, r, (size_t)kx, &x, 1, err) < 0 || num_at(&csv, r, (size_t)kt, &t, 1, err) < 0) {
            rc = -1;
            break;
        }
        table1 *tb = &tables[op];
        if (tb->n && !(x > tb->x[tb->n - 1])) {
            rc = ss_err_at(err, csv.path, r->line, ss_csv_field_col(r, (size_t)kx),
                           "%s: expected %s increasing after %g, got %s", names[op], xcol, tb->x[tb->n - 1], r->f[kx]);
            break;
        }
        tb->x = ss_xrealloc(tb->x, (tb->n + 1) * sizeof *tb->x);
        tb->t_s = ss_xrealloc(tb->t_s, (tb->n + 1) * sizeof *tb->t_s);
        tb->x[tb->n] = x;
        tb->t_s[tb->n++] = t * 1e-6;
    }
    for (size_t op = 0; rc == 0 && op < nnames; op++)
        if (tables[op].n < 2)
            rc = ss_err_at(err, csv.path, 1, 1, "expected at least two rows of operator '%s' (got %zu)", names[op],
                           tables[op].n);
    ss_csv_free(&csv);
    return rc;
}

static int cmp_row(const void *a, const void *b)
{
    const attn_row *x = a, *y = b;
    const double ka[4] = {x->pc, x->nd, x->kp, x->kd}, kb[4] = {y->pc, y->nd, y->kp, y->kd};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void add_distinct(double **v, size_t *n, double x)
{
    if (*n && (*v)[*n - 1] == x) return;
    *v = ss_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int read_attention(ss_llm_perf *p, const char *dir, ss_err *err)
{
    char *path = ss_path_join(dir, "attention.csv");
    ss_csv csv;
    int rc = ss_csv_read_whole(path, &csv, err);
    free(path);
    if (rc < 0) return -1;
    static const char *const cols[5] = {"prefill_chunk", "kv_prefill", "n_decode", "kv_decode", "time_us"};
    long k[5];
    for (int i = 0; i < 5 && rc == 0; i++)
        if ((k[i] = need_col(&csv, cols[i], err)) < 0) rc = -1;
    p->rows = ss_xcalloc(csv.nrows + 1, sizeof *p->rows);
    for (size_t i = 1; rc == 0 && i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        double v[5];
        for (int j = 0; j < 5 && rc == 0; j++) {
            if ((size_t)k[j] >= r->n)
                rc = ss_err_at(err, csv.path, r->line, 1, "expected %s", cols[j]);
            else
                rc = num_at(&csv, r, (size_t)k[j], &v[j], j == 4, err);
        }
        if (rc == 0) p->rows[p->nrows++] = (attn_row){v[0], v[2], v[1], v[3], v[4] * 1e-6};
    }
    if (rc == 0 && p->nrows == 0) rc = ss_err_at(err, csv.path, 1, 1, "expected at least one row of attention times");
    ss_csv_free(&csv);
    if (rc < 0) return -1;
    qsort(p->rows, p->nrows, sizeof *p->rows, cmp_row);
    for (size_t i = 1; i < p->nrows; i++)
        if (cmp_row(&p->rows[i - 1], &p->rows[i]) == 0) {
            char *at = ss_path_join(dir, "attention.csv");
            ss_err_at(err, at, 1, 1, "two rows time prefill_chunk %g, kv_prefill %g, n_decode %g, kv_decode %g: one "
                                     "time per point of the grid", p->rows[i].pc, p->rows[i].kp, p->rows[i].nd,
                      p->rows[i].kd);
            free(at);
            return -1;
        }
    double *pcs = ss_xcalloc(p->nrows, sizeof *pcs), *nds = ss_xcalloc(p->nrows, sizeof *nds);
    for (size_t i = 0; i < p->nrows; i++) pcs[i] = p->rows[i].pc, nds[i] = p->rows[i].nd;
    qsort(pcs, p->nrows, sizeof *pcs, cmp_double);
    qsort(nds, p->nrows, sizeof *nds, cmp_double);
    for (size_t i = 0; i < p->nrows; i++) add_distinct(&p->pcs, &p->npc, pcs[i]), add_distinct(&p->nds, &p->nnd, nds[i]);
    free(pcs);
    free(nds);
    for (size_t i = 0; i < p->nrows;) {
        size_t j = i;
        while (j < p->nrows && p->rows[j].pc == p->rows[i].pc && p->rows[j].nd == p->rows[i].nd) j++;
        p->slices = ss_xrealloc(p->slices, (p->nslices + 1) * sizeof *p->slices);
        p->slices[p->nslices++] = (slice){p->rows[i].pc, p->rows[i].nd, i, j};
        size_t nkp = 0, nkd = 0;
        for (size_t g = i; g < j; g++) {
            nkp += g == i || p->rows[g].kp != p->rows[g - 1].kp;
            nkd = g == i || p->rows[g].kp != p->rows[g - 1].kp ? 1 : nkd + 1;
            if (nkp > GRID_MAX || nkd > GRID_MAX) {
                char *at = ss_path_join(dir, "attention.csv");
                ss_err_at(err, at, 1, 1, "prefill_chunk %g, n_decode %g: more than %d profiled kv_prefill or kv_decode "
                                         "values (a grid this fine is not read)", p->rows[i].pc, p->rows[i].nd, GRID_MAX);
                free(at);
                return -1;
            }
        }
        i = j;
    }
    return 0;
}

ss_llm_perf *ss_llm_perf_load(const char *dir, uint32_t layers, ss_err *err)
{
    ss_llm_perf *p = ss_xcalloc(1, sizeof *p);
    p->layers = layers;
    for (int c = 0; c < SS_LLM_PERF_CLASSES; c++) p->scale[c] = 1;
    if (read_1d(dir, "dense.csv", "tokens", dense_names, NDENSE, p->dense, err) < 0 ||
        read_1d(dir, "per_sequence.csv", "sequences", seq_names, NSEQ, p->seq, err) < 0 ||
        read_attention(p, dir, err) < 0) {
        ss_llm_perf_free(p);
        return NULL;
    }
    return p;
}

void ss_llm_perf_free(ss_llm_perf *p)
{
    if (!p) return;
    for (int i = 0; i < NDENSE; i++) free(p->dense[i].x), free(p->dense[i].t_s);
    for (int i = 0; i < NSEQ; i++) free(p->seq[i].x), free(p->seq[i].t_s);
    free(p->rows);
    free(p->slices);
    free(p->pcs);
    free(p->nds);
    free(p);
}

/* ---- interpolation --------------------------------------------------------------- */

/* Where q falls in v[0..n): the bracketing lo, hi and the weight of hi
 * (extrapolating from the last two above; lo = hi at or below the first). */
static void bracket(const double *v, size_t n, double q, size_t *lo, size_t *hi, double *w)
{
    if (n == 1 || q <= v[0]) {
        *lo = *hi = 0, *w = 0;
        return;
    }
    size_t i = 0;
    while (i < n && v[i] <= q) i++; /* the first above q */
    if (i >= n) *lo = n - 2, *hi = n - 1;
    else *lo = i - 1, *hi = i;
    *w = v[*hi] > v[*lo] ? (q - v[*lo]) / (v[*hi] - v[*lo]) : 0;
}

static double lookup1(const table1 *t, double q)
{
    if (q < 1) q = 1;
    size_t lo, hi;
    double w;
    bracket(t->x, t->n, q, &lo, &hi, &w);
    return fmax(t->t_s[lo] + w * (t->t_s[hi] - t->t_s[lo]), FLOOR_S);
}

/* Inside one slice: linear over kp (its profiled values), and in each over kd. */
static double slice_lookup(const ss_llm_perf *p, const slice *s, double kp, double kd)
{
    double kps[64];
    size_t starts[65], nk = 0;
    for (size_t i = s->lo; i < s->hi && nk < 64; i++)
        if (i == s->lo || p->rows[i].kp != p->rows[i - 1].kp) kps[nk] = p->rows[i].kp, starts[nk++] = i;
    starts[nk] = s->hi;
    size_t lo, hi;
    double w;
    bracket(kps, nk, kp, &lo, &hi, &w);
    double v[2];
    size_t g[2] = {lo, hi};
    for (int k = 0; k < 2; k++) {
        const attn_row *r = &p->rows[starts[g[k]]];
        size_t n = starts[g[k] + 1] - starts[g[k]];
        double kds[64];
        for (size_t i = 0; i < n && i < 64; i++) kds[i] = r[i].kd;
        size_t a, b;
        double u;
        bracket(kds, n < 64 ? n : 64, kd, &a, &b, &u);
        v[k] = r[a].t_s + u * (r[b].t_s - r[a].t_s);
    }
    return v[0] + w * (v[1] - v[0]);
}

/* A grid corner's value: its slice, or the nearest profiled one. */
static double corner(const ss_llm_perf *p, double pc, double nd, double kp, double kd)
{
    const slice *best = &p->slices[0];
    double bd = INFINITY;
    for (size_t i = 0; i < p->nslices; i++) {
        const slice *s = &p->slices[i];
        if (s->pc == pc && s->nd == nd) return slice_lookup(p, s, kp, kd);
        double d = (s->pc - pc) * (s->pc - pc) + (s->nd - nd) * (s->nd - nd);
        if (d < bd) bd = d, best = s;
    }
    return slice_lookup(p, best, kp, kd);
}

static double attention(const ss_llm_perf *p, double pc, double kp, double nd, double kd)
{
    size_t lp, hp, ln, hn;
    double tp, tn;
    bracket(p->pcs, p->npc, pc, &lp, &hp, &tp);
    bracket(p->nds, p->nnd, nd, &ln, &hn, &tn);
    double c00 = corner(p, p->pcs[lp], p->nds[ln], kp, kd), c01 = corner(p, p->pcs[lp], p->nds[hn], kp, kd);
    double c10 = corner(p, p->pcs[hp], p->nds[ln], kp, kd), c11 = corner(p, p->pcs[hp], p->nds[hn], kp, kd);
    double v0 = c00 + tn * (c01 - c00), v1 = c10 + tn * (c11 - c10);
    return fmax(v0 + tp * (v1 - v0), FLOOR_S);
}

void ss_llm_perf_parts(const ss_llm_perf *p, const ss_llm_batch *b, double part[4])
{
    double T = b->tokens, S = b->nseqs, pc = 0, kp = 0;
    for (uint32_t i = 0; i < b->nprefill; i++) pc += b->prefill_chunk[i], kp += b->prefill_kv[i];
    double nd = b->ndecode, kd = b->ndecode ? floor((double)b->decode_kv_sum / b->ndecode) : 0;
    const table1 *d = p->dense;
    part[0] = 2 * lookup1(&d[OP_LAYERNORM], T) + lookup1(&d[OP_QKV], T) + lookup1(&d[OP_ROPE], T) +
              lookup1(&d[OP_O], T) + lookup1(&d[OP_GATE_UP], T) + lookup1(&d[OP_ACT], T) + lookup1(&d[OP_DOWN], T);
    part[1] = attention(p, pc, kp, nd, kd);
    part[2] = lookup1(&d[OP_EMBED], T) + lookup1(&d[OP_FINAL_LN], T);
    part[3] = lookup1(&p->seq[OP_LM_HEAD], S) + lookup1(&p->seq[OP_SAMPLER], S);
}

double ss_llm_perf_step_s(void *ctx, const ss_llm_batch *b)
{
    const ss_llm_perf *p = ctx;
    double T = b->tokens, S = b->nseqs, pc = 0, kp = 0;
    for (uint32_t i = 0; i < b->nprefill; i++) pc += b->prefill_chunk[i], kp += b->prefill_kv[i];
    double nd = b->ndecode, kd = b->ndecode ? floor((double)b->decode_kv_sum / b->ndecode) : 0;
    const table1 *d = p->dense;
    double dense = 2 * lookup1(&d[OP_LAYERNORM], T) + lookup1(&d[OP_QKV], T) + lookup1(&d[OP_ROPE], T) +
                   lookup1(&d[OP_O], T) + lookup1(&d[OP_GATE_UP], T) + lookup1(&d[OP_ACT], T) + lookup1(&d[OP_DOWN], T);
    double attn = attention(p, pc, kp, nd, kd);
    double once_dense = lookup1(&d[OP_EMBED], T) + lookup1(&d[OP_FINAL_LN], T),
           once_seq = lookup1(&p->seq[OP_LM_HEAD], S) + lookup1(&p->seq[OP_SAMPLER], S);
    const double *k = p->scale;
    return p->layers * (k[SS_LLM_PERF_DENSE] * dense + k[SS_LLM_PERF_ATTENTION] * attn) +
           k[SS_LLM_PERF_DENSE] * once_dense + k[SS_LLM_PERF_SEQUENCE] * once_seq;
}

void ss_llm_perf_scale(ss_llm_perf *p, const double k[SS_LLM_PERF_CLASSES])
{
    for (int c = 0; c < SS_LLM_PERF_CLASSES; c++) p->scale[c] = k[c];
}

/* The interior points of a line (x, t): each one's time interpolated from its two neighbours, relative to
 * its own, less 1, appended to *r. */
static void loo_line(const double *x, const double *t, size_t n, double **r, size_t *nr)
{
    for (size_t i = 1; i + 1 < n; i++) {
        double x0 = x[i - 1], x1 = x[i], x2 = x[i + 1], t0 = t[i - 1], t1 = t[i], t2 = t[i + 1];
        if (!(x2 > x0) || !(t1 > 0)) continue;
        double w = (x1 - x0) / (x2 - x0);
        *r = ss_xrealloc(*r, (*nr + 1) * sizeof **r);
        (*r)[(*nr)++] = (t0 + w * (t2 - t0)) / t1 - 1;
    }
}

size_t ss_llm_perf_loo(const ss_llm_perf *p, int cls, double **out)
{
    double *r = NULL;
    size_t n = 0;
    if (cls == SS_LLM_PERF_DENSE)
        for (int op = 0; op < NDENSE; op++) loo_line(p->dense[op].x, p->dense[op].t_s, p->dense[op].n, &r, &n);
    else if (cls == SS_LLM_PERF_SEQUENCE)
        for (int op = 0; op < NSEQ; op++) loo_line(p->seq[op].x, p->seq[op].t_s, p->seq[op].n, &r, &n);
    else /* attention: along kv_decode, inside each (prefill_chunk, n_decode, kv_prefill) line of the grid */
        for (size_t i = 0; i < p->nrows;) {
            size_t j = i;
            while (j < p->nrows && p->rows[j].pc == p->rows[i].pc && p->rows[j].nd == p->rows[i].nd &&
                   p->rows[j].kp == p->rows[i].kp)
                j++;
            double kd[GRID_MAX], t[GRID_MAX];
            size_t m = 0;
            for (size_t g = i; g < j && m < GRID_MAX; g++, m++) kd[m] = p->rows[g].kd, t[m] = p->rows[g].t_s;
            loo_line(kd, t, m, &r, &n);
            i = j;
        }
    *out = r;
    return n;
}
