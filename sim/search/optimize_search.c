/* optimize_search.c: Algorithm 1 (worst-fit decreasing, GPUs first),
 * Algorithm 2 (bounded greedy), the best-batch-size baseline and simulated
 * annealing over allocation matrices (optimize_search.h). */
#include "search/optimize_search.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

uint32_t ss_opt_max_iter(uint32_t max_iter, uint32_t d, uint32_t m)
{
    return d > m && d - m > max_iter ? d - m : max_iter;
}

/* The device of kind `gpu` where member j leaves the most memory once
 * placed (unbounded devices first, ties: the first); -1 if none can take it. */
static long most_remaining(uint32_t d, uint32_t m, uint32_t j, const double *need, const double *cap, const int *is_gpu,
                           const double *used, int gpu)
{
    long best = -1;
    double best_left = 0;
    for (uint32_t i = 0; i < d; i++) {
        if (!is_gpu[i] != !gpu || need[i * m + j] < 0) continue;
        double left = cap[i] > 0 ? cap[i] - used[i] - need[i * m + j] : INFINITY;
        if (best < 0 || left > best_left) {
            best = i;
            best_left = left;
        }
    }
    return best;
}

long ss_opt_wfd_table(uint32_t d, uint32_t m, const double *need, const double *cap, const int *is_gpu,
                      const double *size, uint32_t batch, uint32_t *out)
{
    memset(out, 0, (size_t)d * m * sizeof *out);
    double *used = ss_xcalloc(d, sizeof *used);
    uint32_t *order = ss_xcalloc(m, sizeof *order);
    for (uint32_t j = 0; j < m; j++) order[j] = j;
    for (uint32_t j = 1; j < m; j++) /* stable insertion sort, decreasing size */
        for (uint32_t k = j; k > 0 && size[order[k]] > size[order[k - 1]]; k--) {
            uint32_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    long failed = -1;
    for (uint32_t k = 0; k < m && failed < 0; k++) {
        uint32_t j = order[k];
        long g = most_remaining(d, m, j, need, cap, is_gpu, used, 1);
        long c = most_remaining(d, m, j, need, cap, is_gpu, used, 0);
        long put = -1;
        if (g >= 0 && (cap[g] <= 0 || used[g] + need[g * m + j] <= cap[g])) put = g; /* fit_mem(AG) */
        else if (c >= 0 && (cap[c] <= 0 || used[c] + need[c * m + j] <= cap[c])) put = c; /* fit_mem(AC) */
        if (put < 0) {
            failed = j;
            break;
        }
        out[put * m + j] = batch;
        used[put] += need[put * m + j];
    }
    free(used);
    free(order);
    return failed;
}

int ss_opt_wfd(const ss_ensemble_cfg *e, const ss_scenario *sc, uint32_t *out, ss_err *err)
{
    uint32_t d = e->ndevices, m = e->nmembers, b = e->batches[0];
    double *need = ss_xcalloc((size_t)d * m, sizeof *need), *cap = ss_xcalloc(d, sizeof *cap);
    double *size = ss_xcalloc(m, sizeof *size);
    int *gpu = ss_xcalloc(d, sizeof *gpu);
    uint32_t *one = ss_xcalloc((size_t)d * m, sizeof *one);
    for (uint32_t i = 0; i < d; i++) {
        cap[i] = ss_ens_capacity_bytes(&sc->devices[i]);
        gpu[i] = sc->devices[i].kind == SS_DEV_GPU;
        for (uint32_t j = 0; j < m; j++) {
            if (!e->curve[i * m + j]) {
                need[i * m + j] = -1;
                continue;
            }
            one[i * m + j] = b;
            need[i * m + j] = ss_ens_device_bytes(e, one, i);
            one[i * m + j] = 0;
            if (need[i * m + j] > size[j]) size[j] = need[i * m + j];
        }
    }
    long f = ss_opt_wfd_table(d, m, need, cap, gpu, size, b, out);
    if (f >= 0) /* bad input: these devices cannot hold the ensemble */
        ss_err_at(err, sc->path, 1, 1, "optimize: Algorithm 1: member '%s' fits on no device at batch %u (E §2.3 "
                  "line 24: no device has enough memory)", e->members[f].name, b);
    free(need);
    free(cap);
    free(size);
    free(gpu);
    free(one);
    return f >= 0 ? -2 : 0;
}

/* The valid neighbours of a that place every worker on a device type its
 * member has a profile for (the decision space); count in *n, malloc'd. */
static uint32_t *neighbours(const ss_opt_ctx *c, const uint32_t *a, size_t *n)
{
    uint32_t d = c->ndev, m = c->nmem;
    size_t dm = (size_t)d * m, all = ss_ens_neighbours(a, d, m, c->e->batches, c->e->nbatches, NULL);
    uint32_t *nb = ss_xcalloc(all ? all * dm : 1, sizeof *nb);
    ss_ens_neighbours(a, d, m, c->e->batches, c->e->nbatches, nb);
    size_t k = 0;
    for (size_t i = 0; i < all; i++)
        if (ss_ens_unplaceable(c->e, nb + i * dm) < 0) {
            if (k != i) memcpy(nb + k * dm, nb + i * dm, dm * sizeof *nb);
            k++;
        }
    *n = k;
    return nb;
}

/* The first best of scores[0..n-1]. */
static size_t argmax(const double *s, size_t n)
{
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] > s[b]) b = i;
    return b;
}

/* Algorithm 2 (E §2.4) from r->start, already scored. */
static int greedy(ss_opt_ctx *c, const ss_opt_params *p, ss_opt_result *r, ss_err *err)
{
    size_t dm = (size_t)c->ndev * c->nmem;
    uint32_t maxit = ss_opt_max_iter(p->max_iter, c->ndev, c->nmem);
    gsl_rng *rng = ss_rng_stream(p->seed, 0, "optimize/greedy");
    int rc = 0;
    for (uint32_t it = 0; it < maxit && ss_opt_left(c) > 0;) {
        size_t n;
        uint32_t *nb = neighbours(c, r->best, &n);
        size_t k = n < p->max_neighs ? n : p->max_neighs;
        uint32_t *pick = nb;
        if (k < n) { /* draw max_neighs without replacement, kept in neighbourhood order */
            pick = ss_xcalloc(k * dm, sizeof *pick);
            gsl_ran_choose(rng, pick, k, nb, n, dm * sizeof *nb);
        }
        double *s = ss_xcalloc(k ? k : 1, sizeof *s);
        long got = k ? ss_opt_eval(c, pick, k, it + 1, s, err) : 0;
        int moved = 0;
        if (got < 0) rc = -1;
        else if (got > 0) {
            size_t b = argmax(s, (size_t)got);
            if (s[b] > r->best_score) { /* strictly better (E §2.4 line 12) */
                memcpy(r->best, pick + b * dm, dm * sizeof *pick);
                r->best_score = s[b];
                moved = 1;
            }
        }
        if (pick != nb) free(pick);
        free(nb);
        free(s);
        if (rc < 0 || !moved) break; /* local maximum or plateau: stop */
        r->iterations = ++it;
    }
    gsl_rng_free(rng);
    return rc;
}

/* One neighbour of a drawn uniformly among the valid, placeable ones, into
 * out: an (entry, other value) pair drawn uniformly and redrawn while it
 * empties a column or has no curve; after 64 misses, drawn from the
 * enumerated neighbourhood.  0 ok, -1 if a has no neighbour. */
static int draw_neighbour(const ss_opt_ctx *c, gsl_rng *rng, const uint32_t *a, uint32_t *out)
{
    uint32_t d = c->ndev, m = c->nmem, nb = c->e->nbatches;
    size_t dm = (size_t)d * m;
    for (int miss = 0; miss < 64; miss++) {
        unsigned long x = gsl_rng_uniform_int(rng, (unsigned long)dm * nb);
        size_t i = x / nb;
        uint32_t k = (uint32_t)(x % nb), cur = a[i], v;
        /* the values {0, batches...} without the current one, in order */
        uint32_t pos = 0; /* position of cur among {0, batches...} */
        if (cur)
            for (pos = 1; pos <= nb && c->e->batches[pos - 1] != cur; pos++) {}
        uint32_t idx = k < pos ? k : k + 1; /* skip cur */
        v = idx == 0 ? 0 : c->e->batches[idx - 1];
        if (v && !c->e->curve[i]) continue;
        if (!v) {
            uint32_t col = (uint32_t)(i % m), nz = 0;
            for (uint32_t r = 0; r < d; r++) nz += a[r * m + col] != 0;
            if (nz <= 1) continue;
        }
        memcpy(out, a, dm * sizeof *out);
        out[i] = v;
        return 0;
    }
    size_t n;
    uint32_t *all = neighbours(c, a, &n);
    if (n) memcpy(out, all + gsl_rng_uniform_int(rng, n) * dm, dm * sizeof *out);
    free(all);
    return n ? 0 : -1;
}

/* Simulated annealing from r->start, already scored: one uniform neighbour
 * per step (draw_neighbour); a worse one accepted with probability exp(delta / (T x ref)),
 * ref the start's score (1 if 0), T cooling geometrically from t0 to t1
 * over the budget; the best seen kept. */
static int anneal(ss_opt_ctx *c, const ss_opt_params *p, ss_opt_result *r, ss_err *err)
{
    size_t dm = (size_t)c->ndev * c->nmem;
    gsl_rng *rng = ss_rng_stream(p->seed, 0, "optimize/anneal");
    uint32_t *cur = ss_xcalloc(dm, sizeof *cur), *cand = ss_xcalloc(dm, sizeof *cand);
    memcpy(cur, r->start, dm * sizeof *cur);
    double cur_s = r->start_score, ref = r->start_score > 0 ? r->start_score : 1;
    size_t steps = ss_opt_left(c);
    if (c->budget == SIZE_MAX) /* unbounded: greedy's own bound, max_iter x max_neighs */
        steps = (size_t)ss_opt_max_iter(p->max_iter, c->ndev, c->nmem) * p->max_neighs;
    int rc = 0;
    for (size_t k = 0; k < steps; k++) {
        if (draw_neighbour(c, rng, cur, cand) < 0) break;
        double s;
        if (ss_opt_eval(c, cand, 1, (long)k + 1, &s, err) != 1) {
            rc = -1;
            break;
        }
        double frac = steps > 1 ? (double)k / (double)(steps - 1) : 0;
        double t = p->anneal_t0 * pow(p->anneal_t1 / p->anneal_t0, frac);
        double u = gsl_rng_uniform(rng); /* drawn every step, so the stream does not depend on scores' ties */
        if (s >= cur_s || u < exp((s - cur_s) / (t * ref))) {
            memcpy(cur, cand, dm * sizeof *cur);
            cur_s = s;
        }
        if (s > r->best_score) {
            memcpy(r->best, cand, dm * sizeof *cand);
            r->best_score = s;
        }
        r->iterations = (uint32_t)(k + 1);
    }
    free(cur);
    free(cand);
    gsl_rng_free(rng);
    return rc;
}

/* BBS (E §2.5): member i alone on the i-th GPU (device order), every
 * batch at the smallest allowed; then member by member, each allowed batch
 * tried inside the full ensemble (the others at their batch so far), the
 * best kept (ties: the smaller).  B x M evaluations. */
static int bbs(ss_opt_ctx *c, ss_opt_result *r, ss_err *err)
{
    uint32_t d = c->ndev, m = c->nmem, nb = c->e->nbatches;
    size_t dm = (size_t)d * m;
    uint32_t *gpu = ss_xcalloc(m, sizeof *gpu), ng = 0;
    for (uint32_t i = 0; i < d && ng < m; i++)
        if (c->sc->devices[i].kind == SS_DEV_GPU) gpu[ng++] = i;
    if (ng < m) {
        free(gpu);
        ss_err_at(err, c->sc->path, 1, 1, "optimize: bbs needs one GPU per member (E §2.5): %u members, %u GPU%s",
                         m, ng, ng == 1 ? "" : "s");
        return -2;
    }
    memset(r->start, 0, dm * sizeof *r->start);
    for (uint32_t j = 0; j < m; j++) {
        r->start[gpu[j] * m + j] = c->e->batches[0];
        if (!c->e->curve[gpu[j] * m + j]) {
            free(gpu);
            ss_err_at(err, c->sc->path, 1, 1, "optimize: bbs puts member '%s' on device '%s', a type its profile lacks",
                      c->e->members[j].name, c->sc->devices[gpu[j]].name);
            return -2;
        }
    }
    memcpy(r->best, r->start, dm * sizeof *r->best);
    uint32_t *cand = ss_xcalloc((size_t)nb * dm, sizeof *cand);
    double *s = ss_xcalloc(nb, sizeof *s);
    int rc = 0;
    r->start_score = NAN;
    for (uint32_t j = 0; j < m && ss_opt_left(c) > 0; j++) {
        for (uint32_t k = 0; k < nb; k++) {
            memcpy(cand + k * dm, r->best, dm * sizeof *cand);
            cand[k * dm + gpu[j] * m + j] = c->e->batches[k];
        }
        long got = ss_opt_eval(c, cand, nb, j + 1, s, err);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0) break;
        if (j == 0) r->start_score = s[0]; /* the all-smallest diagonal */
        size_t b = argmax(s, (size_t)got);
        memcpy(r->best, cand + b * dm, dm * sizeof *cand);
        r->best_score = s[b];
        r->iterations = j + 1;
    }
    free(cand);
    free(s);
    free(gpu);
    return rc;
}

int ss_opt_search(ss_opt_ctx *c, const ss_opt_params *p, ss_opt_result *r, ss_err *err)
{
    size_t dm = (size_t)c->ndev * c->nmem;
    r->start = ss_xcalloc(dm, sizeof *r->start);
    r->best = ss_xcalloc(dm, sizeof *r->best);
    r->iterations = 0;
    if (p->algo == SS_OPT_BBS) return bbs(c, r, err);
    if (p->start_scenario) memcpy(r->start, c->e->matrix, dm * sizeof *r->start);
    else if (ss_opt_wfd(c->e, c->sc, r->start, err) < 0) return -2;
    memcpy(r->best, r->start, dm * sizeof *r->best);
    if (ss_opt_eval(c, r->start, 1, 0, &r->start_score, err) != 1) {
        if (!err->set) ss_err_at(err, c->sc->path, 1, 1, "optimize: the budget allows no evaluation");
        return -1;
    }
    r->best_score = r->start_score;
    if (p->algo == SS_OPT_GREEDY) return greedy(c, p, r, err);
    if (p->algo == SS_OPT_ANNEAL) return anneal(c, p, r, err);
    return 0;
}

void ss_opt_result_free(ss_opt_result *r)
{
    free(r->start);
    free(r->best);
    r->start = r->best = NULL;
}
