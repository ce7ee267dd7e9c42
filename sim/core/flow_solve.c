/* flow_solve.c: the max-min re-solve of the flow model: which flows to
 * re-fill after a change, and their rates by progressive filling.  The
 * algorithm and its exactness argument are at the top of flow.c.
 *
 * Weights.  A flow's route entry may carry a weight w > 0 (flow.h,
 * ss_flow_start_weighted): at rate r it loads that link with w r.  The
 * filling generalises as it stands: a link saturates at
 * L = left / (sum of the weights of its unfrozen entries), freezing a flow
 * at L takes w L from left, fixed flows take w r, and a link with a single
 * entry caps its flow at capacity / w.  Freezing at L <= left/W still never
 * lowers a level ((left - w L)/(W - w) >= left/W), so the levels rise and
 * every frozen rate is final.  The fixed flows of flow.c carry over word
 * for word (a leaver's links saturate at or above its rate; a joiner's
 * links saturate nowhere below its new rate), and so does join_level,
 * with the others' rates weighted.  While any weighted flow is in the
 * sharing (wflows > 0), every re-solve is by search and fill, with the
 * weights; propagation (flow_prop.c) is not tried: its slack test and its
 * bookkeeping count unit loads.  The code below is written once, with the
 * weights behind a constant wt, and compiled twice: wt = 0 is the code
 * that unweighted networks run, with no weight read anywhere.  Each link's
 * unfrozen weight is kept as an unevaluated sum hi + lo (two-sum), so that
 * taking a large weight off leaves the small ones exact. */
#include <assert.h>
#include <math.h>

#include "core/flow_internal.h"

#define CAND_FLOW 0x80000000u /* cand_idx: a flow slot (its cap), not a link id */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* ---- weight sums ----------------------------------------------------------- */

/* p[0] + p[1] += x: Knuth's two-sum keeps what p[0] loses to rounding in
 * p[1]. */
static inline void wsum_add(double *p, double x)
{
    double hi = p[0], s = hi + x, bv = s - hi;
    p[1] += (hi - (s - bv)) + (x - bv);
    p[0] = s;
}

/* The saturation level of link l (slot li): left / unfrozen weight. */
ALWAYS_INLINE double level_of(const ss_flownet *net, const ss_flow_link *l, uint32_t li, int wt)
{
    if (!wt) return l->left_bps / l->unfrozen;
    return l->left_bps / (net->wsum[2 * li] + net->wsum[2 * li + 1]);
}

/* ---- progressive filling -------------------------------------------------- */

/* The candidates for the next saturation are the links of the component that
 * still carry unfrozen flows, keyed by their saturation level
 * left/unfrozen, and the capped unfrozen flows, keyed by their (effective)
 * cap.  They live in two parallel arrays, cand_key and cand_idx, used in one
 * of two ways:
 *  - scan mode (up to fill_scan_max candidates, SS_FILL_SCAN_MAX unless tuned): a dense set with
 *    swap-remove.  Each link and flow knows its position (fpos), freezing
 *    updates keys in place, and each step scans for the least key.
 *  - heap mode (more candidates): a binary min-heap of lower bounds.  A key
 *    is the level when the item was made, and levels only rise as flows
 *    freeze.  So the top is either current, and then it is the true
 *    minimum, or it is refreshed in place and sifted down.  Freezing
 *    touches no candidate.
 * The scan costs O(candidates) a step without mispredicted branches; the
 * heap costs O(log candidates) a step but mispredicts on every level.  The
 * threshold keeps the worst case at O(E log E) per re-solve. */
static void cand_remove(ss_flownet *net, uint32_t at)
{
    uint32_t last = (uint32_t)--net->cand_n;
    if (at != last) {
        net->cand_key[at] = net->cand_key[last];
        uint32_t idx = net->cand_idx[at] = net->cand_idx[last];
        if (idx & CAND_FLOW) net->pool[idx & ~CAND_FLOW].fpos = at;
        else net->links[idx].fpos = at;
    }
}

ALWAYS_INLINE void freeze_any(ss_flownet *net, uint32_t s, double rate_bps, uint32_t by, int wt)
{
    ss_flow_rec *f = &net->pool[s];
    net->fmark[s] = 2 * net->epoch + 1;
    f->new_rate_bps = rate_bps;
    f->new_bn = by;
    const uint32_t *shared = net->shared.v + f->sh_off;
    const double *w = wt ? net->shared_w + f->sh_off : NULL;
    if (net->heap_mode) {
        for (uint32_t k = 0; k < f->sh_n; k++) {
            ss_flow_link *l = &net->links[shared[k]];
            l->left_bps -= wt ? w[k] * rate_bps : rate_bps;
            if (wt) wsum_add(&net->wsum[2 * shared[k]], -w[k]);
            l->unfrozen--;
        }
        return;
    }
    if (f->fpos != SS_FLOW_NONE) {
        cand_remove(net, f->fpos);
        f->fpos = SS_FLOW_NONE;
    }
    for (uint32_t k = 0; k < f->sh_n; k++) {
        ss_flow_link *l = &net->links[shared[k]];
        l->left_bps -= wt ? w[k] * rate_bps : rate_bps;
        if (wt) wsum_add(&net->wsum[2 * shared[k]], -w[k]);
        if (--l->unfrozen) {
            net->cand_key[l->fpos] = level_of(net, l, shared[k], wt);
        } else {
            cand_remove(net, l->fpos);
            l->fpos = SS_FLOW_NONE;
        }
    }
}

static void freeze(ss_flownet *net, uint32_t s, double rate_bps, uint32_t by)
{
    freeze_any(net, s, rate_bps, by, 0);
}

static void freeze_w(ss_flownet *net, uint32_t s, double rate_bps, uint32_t by)
{
    freeze_any(net, s, rate_bps, by, 1);
}

static void heap_sift_down(ss_flownet *net, size_t i)
{
    double *key = net->cand_key;
    uint32_t *idx = net->cand_idx;
    size_t n = net->cand_n;
    double k = key[i];
    uint32_t x = idx[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && key[c + 1] < key[c]) c++;
        if (!(key[c] < k)) break;
        key[i] = key[c];
        idx[i] = idx[c];
        i = c;
    }
    key[i] = k;
    idx[i] = x;
}

static void heap_pop(ss_flownet *net)
{
    if (--net->cand_n > 0) {
        net->cand_key[0] = net->cand_key[net->cand_n];
        net->cand_idx[0] = net->cand_idx[net->cand_n];
        heap_sift_down(net, 0);
    }
}

/* The next saturation: the candidate to act on, and its level.  Scan mode
 * leaves it in place (freezing removes it); heap mode pops it. */
ALWAYS_INLINE uint32_t next_saturation(ss_flownet *net, double *level_bps, int wt)
{
    if (!net->heap_mode) {
        const double *key = net->cand_key;
        double least = ss_flow_least_key(key, net->cand_n);
        uint32_t m = 0;
        while (key[m] != least) m++;
        *level_bps = least;
        return net->cand_idx[m];
    }
    for (;;) {
        assert(net->cand_n > 0);
        uint32_t idx = net->cand_idx[0];
        double cur;
        if (idx & CAND_FLOW) {
            if (net->fmark[idx & ~CAND_FLOW] == 2 * net->epoch + 1) { /* frozen by a ss_flow_link */
                heap_pop(net);
                continue;
            }
            cur = net->pool[idx & ~CAND_FLOW].eff_cap_bps;
        } else {
            const ss_flow_link *l = &net->links[idx];
            if (l->unfrozen == 0) {
                heap_pop(net);
                continue;
            }
            cur = level_of(net, l, idx, wt);
            if (cur > net->cand_key[0]) { /* a stale lower bound: refresh */
                net->cand_key[0] = cur;
                heap_sift_down(net, 0);
                continue;
            }
        }
        heap_pop(net);
        *level_bps = cur;
        return idx;
    }
}

/* Max-min rates for every flow in comp_flows, written to new_rate_bps, given
 * each component link's left_bps and unfrozen as the BFS set them.  Each
 * step takes the least candidate: a link saturates and freezes all its
 * unfrozen flows at the current level, or a capped flow freezes at its cap. */
ALWAYS_INLINE void fill(ss_flownet *net, int wt)
{
    size_t need = net->comp_links.n + net->comp_flows.n;
    if (need > net->cand_cap) {
        net->cand_cap = need;
        net->cand_key = ss_xrealloc(net->cand_key, need * sizeof *net->cand_key);
        net->cand_idx = ss_xrealloc(net->cand_idx, need * sizeof *net->cand_idx);
    }
    uint32_t n = 0;
    for (size_t i = 0; i < net->comp_links.n; i++) {
        uint32_t li = net->comp_links.v[i];
        ss_flow_link *l = &net->links[li];
        if (!l->unfrozen || l->n == 1) continue;
        l->fpos = n;
        net->cand_key[n] = level_of(net, l, li, wt);
        net->cand_idx[n++] = li;
    }
    for (size_t i = 0; i < net->comp_flows.n; i++) {
        uint32_t s = net->comp_flows.v[i];
        ss_flow_rec *f = &net->pool[s];
        f->fpos = SS_FLOW_NONE;
        if (f->eff_cap_bps < INFINITY) {
            f->fpos = n;
            net->cand_key[n] = f->eff_cap_bps;
            net->cand_idx[n++] = CAND_FLOW | s;
        }
    }
    net->cand_n = n;
    net->heap_mode = n > net->fill_scan_max;
    if (net->heap_mode) {
        net->st.heap_fills++;
        for (size_t i = n / 2; i-- > 0;) heap_sift_down(net, i);
    }

    size_t unfrozen = net->comp_flows.n;
    double level = 0;
    while (unfrozen > 0) {
        assert(net->cand_n > 0);
        double least;
        uint32_t idx = next_saturation(net, &least, wt);
        if (least > level) level = least;
        if (idx & CAND_FLOW) {
            uint32_t s = idx & ~CAND_FLOW;
            /* exactly the cap */
            if (wt) freeze_w(net, s, net->pool[s].eff_cap_bps, net->pool[s].eff_cap_link);
            else freeze(net, s, net->pool[s].eff_cap_bps, net->pool[s].eff_cap_link);
            unfrozen--;
            continue;
        }
        const ss_flow_link *l = &net->links[idx];
        uint64_t frozen = 2 * net->epoch + 1;
        for (uint32_t j = 0; j < l->n && l->unfrozen > 0; j++) {
            const ss_flow_entry *e = &l->ent[j];
            if (e->rate_bps > 0 && e->rate_bps < net->fixed_below) continue;
            if (net->fmark[e->flow] == frozen) continue;
            if (wt) freeze_w(net, e->flow, level, idx);
            else freeze(net, e->flow, level, idx);
            unfrozen--;
        }
    }
}

/* Put flow s in the re-solve and queue the links it shares with others.  A
 * link that it has to itself (one entry) is a cap, not a constraint between
 * flows: it goes into eff_cap_bps (capacity / weight) and is not visited. */
ALWAYS_INLINE void expand(ss_flownet *net, uint32_t s, uint64_t ep, int wt)
{
    ss_flow_rec *f = &net->pool[s];
    net->fmark[s] = 2 * ep;
    ss_vpush(&net->comp_flows, s);
    double cap = f->cap_bps > 0 ? f->cap_bps : INFINITY;
    uint32_t cap_link = SS_BN_CAP;
    f->sh_off = (uint32_t)net->shared.n;
    for (uint32_t k = 0; k < f->n_links; k++) {
        uint32_t li = f->links[k];
        const ss_flow_link *l = &net->links[li];
        if (l->n == 1) {
            double c = wt ? l->cap_bps / ss_flow_w(f, k) : l->cap_bps;
            if (c < cap) {
                cap = c;
                cap_link = li;
            }
            continue;
        }
        ss_vpush(&net->shared, li);
        if (wt) {
            if (net->shared_w_cap < net->shared.cap) {
                net->shared_w_cap = net->shared.cap;
                net->shared_w = ss_xrealloc(net->shared_w,
                                            net->shared_w_cap * sizeof *net->shared_w);
            }
            net->shared_w[net->shared.n - 1] = ss_flow_w(f, k);
        }
        if (net->links[li].stamp != ep) {
            net->links[li].stamp = ep;
            ss_vpush(&net->comp_links, li);
        }
    }
    f->sh_n = (uint32_t)net->shared.n - f->sh_off;
    f->eff_cap_bps = cap;
    f->eff_cap_link = cap_link;
}

/* One pass: the search from seeds, then the filling. */
ALWAYS_INLINE void solve_pass(ss_flownet *net, const uint32_t *seeds, size_t n_seeds,
                              uint32_t new_flow, int wt)
{
    uint64_t ep = ++net->epoch;
    double fixed_below = net->fixed_below;
    net->comp_links.n = 0;
    net->comp_flows.n = 0;
    net->shared.n = 0;
    for (size_t i = 0; i < n_seeds; i++) {
        if (net->links[seeds[i]].stamp != ep) {
            net->links[seeds[i]].stamp = ep;
            ss_vpush(&net->comp_links, seeds[i]);
        }
    }
    if (new_flow != SS_FLOW_NONE) expand(net, new_flow, ep, wt);
    for (size_t i = 0; i < net->comp_links.n; i++) {
        ss_flow_link *l = &net->links[net->comp_links.v[i]];
        if (l->n > net->pick_cap) {
            net->pick_cap = 2 * l->n;
            net->pick = ss_xrealloc(net->pick, net->pick_cap * sizeof *net->pick);
        }
        /* without branches: sum the fixed rates, list the others */
        uint32_t *pick = net->pick;
        double left = l->cap_bps, load = 0;
        uint32_t unfrozen = 0, n = l->n;
        const ss_flow_entry *ent = l->ent;
        double *wsum = wt ? &net->wsum[2 * net->comp_links.v[i]] : NULL;
        if (wt) wsum[0] = wsum[1] = 0;
        for (uint32_t j = 0; j < n; j++) {
            double r = ent[j].rate_bps;
            int fixed = (r > 0) & (r < fixed_below);
            if (wt) { /* the entry's weight, from its flow */
                double w = ss_flow_w(&net->pool[ent[j].flow], ent[j].k);
                if (!fixed) wsum_add(wsum, w);
                r *= w;
            }
            load += r;
            left -= r * (double)fixed;
            pick[unfrozen] = ent[j].flow;
            unfrozen += (uint32_t)!fixed;
        }
        net->links[net->comp_links.v[i]].load_bps = load;
        l->left_bps = left;
        l->unfrozen = unfrozen;
        for (uint32_t j = 0; j < unfrozen; j++)
            if (net->fmark[pick[j]] < 2 * ep) expand(net, pick[j], ep, wt);
    }
    net->st.flows_touched += net->comp_flows.n;
    net->st.links_touched += net->comp_links.n;
    if (net->comp_flows.n) fill(net, wt);
}

/* solve_pass with weights (wflows > 0), out of line. */
__attribute__((noinline)) static void solve_pass_w(ss_flownet *net, const uint32_t *seeds,
                                                   size_t n_seeds, uint32_t new_flow)
{
    solve_pass(net, seeds, n_seeds, new_flow, 1);
}

/* Re-solve after a change on the links in seeds.  Flows whose rate is below
 * lambda_bps keep it: they are "fixed", and count only as capacity taken
 * from their links.  This is exact when lambda_bps is at most the level at
 * which the new filling first departs from the old one (see the top of
 * flow.c).  new_flow (SS_FLOW_NONE if none) has just joined and is always
 * re-filled.  Propagation first; when it cannot vouch for its rates, the
 * search from seeds through every flow that is not fixed, and a filling
 * over all that it found.  With weighted flows in the sharing, only the
 * latter, with the weights. */
void ss_flow_solve(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                   uint32_t new_flow)
{
    net->st.resolves++;
    if (net->wflows) {
        net->fixed_below = lambda_bps * (1 - SS_FIX_MARGIN_REL);
        solve_pass_w(net, seeds, n_seeds, new_flow);
        return;
    }
    if (net->propagate) {
        if (ss_flow_propagate(net, seeds, n_seeds, lambda_bps, new_flow)) return;
        net->st.prop_fallbacks++;
    }
    net->fixed_below = lambda_bps * (1 - SS_FIX_MARGIN_REL);
    solve_pass(net, seeds, n_seeds, new_flow, 0);
}

/* A lower bound of the rate that flow s, which has just joined its links,
 * will get: the least over its links of the water level x that fills the
 * link with the others at their present rates,
 *     sum over others of min(r, x) + (occurrences of s) * x = capacity,
 * and its cap.  Each round of the fixed-point iteration below keeps x a
 * lower bound.  A few rounds get close, and any lower bound is exact for
 * resolve(), just less selective. */
static double join_level_w(const ss_flownet *net, const ss_flow_rec *f);

double ss_flow_join_level(const ss_flownet *net, const ss_flow_rec *f)
{
    if (net->wflows) return join_level_w(net, f);
    double lo = f->cap_bps > 0 ? f->cap_bps : INFINITY;
    for (uint32_t k = 0; k < f->n_links && lo > 0; k++) {
        const ss_flow_link *l = &net->links[f->links[k]];
        double x = l->cap_bps / l->n;
        for (int round = 0; round < 3 && x < lo; round++) {
            double below = 0;
            uint32_t nb = 0;
            for (uint32_t j = 0; j < l->n; j++) {
                double r = l->ent[j].rate_bps;
                if (r > 0 && r < x) { /* s itself has rate 0 and never counts here */
                    below += r;
                    nb++;
                }
            }
            double nx = nb < l->n ? (l->cap_bps - below) / (l->n - nb) : x;
            if (!(nx > x)) break;
            x = nx;
        }
        if (x < lo) lo = x;
    }
    return lo;
}

/* The same with weights: sum over others of w min(r, x) + (weight of s's
 * own entries) x = capacity.  The weights at or above x (s's own entries
 * among them, at rate 0) are summed directly, not as a difference, so that
 * no cancellation can lift x above the bound. */
static double join_level_w(const ss_flownet *net, const ss_flow_rec *f)
{
    double lo = f->cap_bps > 0 ? f->cap_bps : INFINITY;
    for (uint32_t k = 0; k < f->n_links && lo > 0; k++) {
        const ss_flow_link *l = &net->links[f->links[k]];
        double all_w = 0;
        for (uint32_t j = 0; j < l->n; j++)
            all_w += ss_flow_w(&net->pool[l->ent[j].flow], l->ent[j].k);
        double x = l->cap_bps / all_w;
        for (int round = 0; round < 3 && x < lo; round++) {
            double below = 0, rest_w = 0;
            for (uint32_t j = 0; j < l->n; j++) {
                double r = l->ent[j].rate_bps;
                double w = ss_flow_w(&net->pool[l->ent[j].flow], l->ent[j].k);
                if (r > 0 && r < x) below += w * r;
                else rest_w += w;
            }
            double nx = (l->cap_bps - below) / rest_w; /* rest_w >= s's own weight > 0 */
            if (!(nx > x)) break;
            x = nx;
        }
        if (x < lo) lo = x;
    }
    return lo;
}
