/* flow_prop.c: the first way of re-solving the flow model's max-min rates
 * after a change: progressive filling that follows the change from level
 * to level and touches only the links where the new filling departs from
 * the old one.  flow_solve.c falls back on its search-and-fill when this
 * way cannot vouch for its answer.  The argument is at the top of flow.c
 * ("Propagation"); the names below follow it.
 *
 * State of a re-solve (epoch ep):
 *   - a link is dirty once its stamp == ep (its byte in lstate, which
 *     stays in cache and is cleared when the attempt ends, says so too).
 *     It then keeps left_bps and unfrozen exactly as progressive filling
 *     would, and sits in the dense candidate set (cand_key/cand_idx,
 *     position fpos) while it has unfrozen flows.  Other links are clean:
 *     they behave as in the old filling and are never looked at;
 *   - a flow is touched once fmark >= 2 ep (listed in comp_flows), frozen
 *     once fmark == 2 ep + 1, with new_rate_bps and new_bn.  An untouched
 *     flow keeps its rate;
 *   - pending events in a binary heap with fixed keys (ev_heap): a
 *     touched flow's old rate (where it froze before: if the link that froze
 *     it, bn, is still clean, it freezes there again), its cap, or, for the
 *     flows that a link turning dirty had frozen, one event for them all at
 *     the least of their old rates, where they rise (EV_GROUP).  Making a
 *     link dirty earlier than needed is always exact, just more work.
 * Links with slack (below SS_SKIP_BELOW of capacity, not seeds) are only
 * noted; if the rates found would fill one (slack_lost), the attempt is
 * redone with those links dirty, and after PROP_ATTEMPTS, or when the dirty
 * links are too many to scan (prop_abort), search and fill takes over. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/flow_internal.h"

#define EV_CAP 0x80000000u   /* an event's idx: the flow's cap, not its old rate */
#define EV_GROUP 0x40000000u /* an event's idx: a link (slot) whose touched flows that it froze
                              * before rise past their old rates from here on */
#define BN_RISEN (UINT32_MAX - 2) /* new_bn of a touched flow that rose (reached its links) */
#define PROP_ATTEMPTS 4    /* then search and fill (flow_solve.c) */
#define LS_DIRTY 1         /* ss_flownet.lstate: dirty in this attempt */
#define LS_SLACK 2         /* ss_flownet.lstate: noted for its slack in this attempt */
#define RECORD_AHEAD 8     /* slack_lost: the record this far ahead in the list is asked for
                            * early */
#define MARK_AHEAD 16      /* make_dirty: the mark of the entry this far ahead is asked for
                            * early (marks are read at random; the entries in order) */

/* An event's level as an integer with the same order: a double's bits
 * read as unsigned order the non-negative doubles; the negative ones are
 * flipped below them.  -0 is taken as +0, which the double compares equal
 * to (levels are never NaN).  ev_level is the inverse. */
static inline uint64_t ev_key_of(double level)
{
    double x = level + 0.0; /* -0 + 0 = +0 */
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b >> 63 ? ~b : b | (UINT64_C(1) << 63);
}

static inline double ev_level(uint64_t key)
{
    uint64_t b = key >> 63 ? key & ~(UINT64_C(1) << 63) : ~key;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static void ev_push(ss_flownet *net, double level, uint32_t idx)
{
    if (net->ev_n == net->ev_cap) {
        net->ev_cap = net->ev_cap ? 2 * net->ev_cap : 64;
        net->ev_heap = ss_xrealloc(net->ev_heap, net->ev_cap * sizeof *net->ev_heap);
    }
    uint64_t key = ev_key_of(level);
    size_t i = net->ev_n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!(key < net->ev_heap[p].key)) break;
        net->ev_heap[i] = net->ev_heap[p];
        i = p;
    }
    net->ev_heap[i] = (ss_flow_ev){key, idx};
}

/* Pop the least: the hole goes down to a leaf by the lesser child (one
 * compare a level), then the last item climbs from there (rarely far). */
static void ev_pop(ss_flownet *net)
{
    size_t n = --net->ev_n, i = 0;
    if (n == 0) return;
    ss_flow_ev *h = net->ev_heap;
    for (size_t c = 1; c < n; c = 2 * i + 1) {
        c += c + 1 < n && h[c + 1].key < h[c].key;
        h[i] = h[c];
        i = c;
    }
    ss_flow_ev last = h[n];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!(last.key < h[p].key)) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = last;
}

/* The dirty links with unfrozen flows, keyed by left/unfrozen, and
 * cand_min, the position of the least key (SS_FLOW_NONE: scan for it). */
static void cand_drop(ss_flownet *net, ss_flow_link *l)
{
    uint32_t at = l->fpos, last = (uint32_t)--net->cand_n;
    if (net->cand_min == at) net->cand_min = SS_FLOW_NONE;
    else if (net->cand_min == last) net->cand_min = at;
    if (at != last) {
        net->cand_key[at] = net->cand_key[last];
        net->cand_idx[at] = net->cand_idx[last];
        net->links[net->cand_idx[at]].fpos = at;
    }
    l->fpos = SS_FLOW_NONE;
}

/* Position at has a new key (they only rise, but rounding may say
 * otherwise). */
static inline void cand_set(ss_flownet *net, uint32_t at, double key)
{
    net->cand_key[at] = key;
    if (net->cand_min == at) net->cand_min = SS_FLOW_NONE;
    else if (net->cand_min != SS_FLOW_NONE && key < net->cand_key[net->cand_min]) net->cand_min = at;
}

/* A flow on link li, which is turning dirty, that li froze joins the
 * re-solve, unfrozen: it will not freeze there at its old rate.  Its event
 * is li's, at the least old rate of such flows (see EV_GROUP); returns its
 * old rate. */
static double touch_grouped(ss_flownet *net, uint32_t s)
{
    ss_flow_rec *f = &net->pool[s];
    net->fmark[s] = 2 * net->epoch;
    ss_vpush(&net->comp_flows, s);
    net->prop_unfrozen++;
    f->new_bn = f->bn;
    return f->rate_bps;
}

/* Any other flow joins the same way, with an event of its own at its old rate. */
static void touch(ss_flownet *net, uint32_t s)
{
    ev_push(net, touch_grouped(net, s), s);
}

/* Link li departs from the old filling at the current level: its frozen
 * flows are the touched ones that froze and the untouched ones below the
 * level (they keep their rates); every other flow on it is touched.  Two
 * passes, so that the first has few branches to mispredict (the kinds of
 * entries come mixed): it sums, and lists the entries of untouched flows
 * at or above the level; the second touches those, in entry order. */
static void make_dirty(ss_flownet *net, uint32_t li)
{
    uint64_t ep = net->epoch;
    ss_flow_link *l = &net->links[li];
    l->stamp = ep;
    net->lstate[li] = LS_DIRTY;
    ss_vpush(&net->comp_links, li);
    double thr = net->prop_level * (1 - SS_FIX_MARGIN_REL), left = l->cap_bps, load = 0, grp = INFINITY;
    uint32_t unfrozen = 0, n_up = 0, n = l->n;
    if (n > net->dirty_pick_cap) {
        net->dirty_pick_cap = 2 * n;
        net->dirty_pick = ss_xrealloc(net->dirty_pick, net->dirty_pick_cap * sizeof *net->dirty_pick);
    }
    uint32_t *up = net->dirty_pick;
    const ss_flow_entry *ent = l->ent;
    for (uint32_t j = 0; j < n; j++) {
        if (j + MARK_AHEAD < n) __builtin_prefetch(&net->fmark[ent[j + MARK_AHEAD].flow]);
        uint32_t g = ent[j].flow;
        double r = ent[j].rate_bps;
        uint64_t m = net->fmark[g];
        load += r;
        if (m == 2 * ep + 1) { /* rare: frozen in this re-solve already */
            left -= net->pool[g].new_rate_bps;
            continue;
        }
        int touched = m == 2 * ep, fixed = !touched & (r < thr);
        left -= fixed ? r : 0.0; /* x - 0 is x */
        unfrozen += (uint32_t)touched;
        up[n_up] = g;
        __builtin_prefetch(&net->pool[g].bn); /* the second pass reads it */
        n_up += (uint32_t)(!touched & !fixed);
    }
    for (uint32_t j = 0; j < n_up; j++) {
        uint32_t g = up[j];
        unfrozen++;
        if (net->fmark[g] == 2 * ep) continue; /* a route that names li twice: touched just now */
        if (net->pool[g].bn == li) {
            double r_old = touch_grouped(net, g);
            grp = r_old < grp ? r_old : grp;
        } else {
            touch(net, g);
        }
    }
    if (grp < INFINITY) ev_push(net, grp, EV_GROUP | li);
    net->links[li].load_bps = load;
    l->left_bps = left;
    l->unfrozen = unfrozen;
    l->fpos = SS_FLOW_NONE;
    if (unfrozen) {
        if (net->cand_n == net->cand_cap) {
            net->cand_cap = net->cand_cap ? 2 * net->cand_cap : 64;
            net->cand_key = ss_xrealloc(net->cand_key, net->cand_cap * sizeof *net->cand_key);
            net->cand_idx = ss_xrealloc(net->cand_idx, net->cand_cap * sizeof *net->cand_idx);
        }
        l->fpos = (uint32_t)net->cand_n++;
        net->cand_idx[l->fpos] = li;
        cand_set(net, l->fpos, left / unfrozen);
        if (net->cand_n > net->fill_scan_max / 4) net->prop_abort = 1;
    }
}

/* Link li of a flow that departs: turn it dirty, unless it is already, or
 * has slack (then note it). */
static inline void reach(ss_flownet *net, uint32_t li)
{
    uint64_t ep = net->epoch;
    ss_flow_link *l = &net->links[li];
    if (net->lstate[li]) return; /* dirty, or noted */
    if (l->mark != 2 * ep + 1 && l->load_bps < l->cap_bps * SS_SKIP_BELOW) {
        l->mark = 2 * ep;
        net->lstate[li] = LS_SLACK;
        ss_vpush(&net->slack_links, li);
        return;
    }
    make_dirty(net, li);
}

/* Freeze touched flow s at rate_bps, frozen by link by (or SS_BN_CAP).  If
 * that is not its old rate, its clean links depart from here on. */
static void freeze_at(ss_flownet *net, uint32_t s, double rate_bps, uint32_t by)
{
    ss_flow_rec *f = &net->pool[s];
    uint64_t ep = net->epoch;
    net->fmark[s] = 2 * ep + 1;
    net->prop_unfrozen--;
    f->new_rate_bps = rate_bps;
    int risen = f->new_bn == BN_RISEN;
    f->new_bn = by;
    for (uint32_t k = 0; k < f->n_links; k++) {
        uint32_t li = f->links[k];
        if (net->lstate[li] != LS_DIRTY) continue;
        ss_flow_link *l = &net->links[li];
        l->left_bps -= rate_bps;
        if (--l->unfrozen) cand_set(net, l->fpos, l->left_bps / l->unfrozen);
        else if (l->fpos != SS_FLOW_NONE) cand_drop(net, l);
    }
    double old = f->rate_bps;
    if (risen || fabs(rate_bps - old) <= SS_RATE_EPS_REL * (rate_bps > old ? rate_bps : old)) return;
    for (uint32_t k = 0; k < f->n_links; k++) reach(net, f->links[k]);
}

/* Touched flow s does not freeze where it did, at its old rate: it departs
 * from here on, on all its links, up to its cap. */
static void rise(ss_flownet *net, uint32_t s)
{
    ss_flow_rec *f = &net->pool[s];
    f->new_bn = BN_RISEN; /* its links are reached: freeze_at need not again */
    for (uint32_t k = 0; k < f->n_links; k++) reach(net, f->links[k]);
    if (f->cap_bps > 0) ev_push(net, f->cap_bps, EV_CAP | s);
}

/* Where the least key of the candidate set (n >= 1) is. */
static uint32_t least_at(const double *key, size_t n)
{
    double least = ss_flow_least_key(key, n);
    uint32_t at = 0;
    while (key[at] != least) at++;
    return at;
}

/* Do the rates found leave every link with slack that the change reached
 * below its capacity?  Only flows that rose can have filled one: their
 * increases are summed on top of the link's load (kept up to date to a
 * relative 1e-10 or so, well inside SS_SLACK_REL).  Links that they would
 * fill are marked to be turned dirty in the next epoch, and counted. */
static size_t slack_lost(ss_flownet *net)
{
    uint64_t ep = net->epoch;
    if (!net->slack_links.n) return 0;
    for (size_t i = 0; i < net->slack_links.n; i++) net->links[net->slack_links.v[i]].left_bps = 0;
    for (size_t i = 0; i < net->comp_flows.n; i++) {
        if (i + RECORD_AHEAD < net->comp_flows.n) /* records are read at random: ask early */
            __builtin_prefetch(&net->pool[net->comp_flows.v[i + RECORD_AHEAD]]);
        const ss_flow_rec *f = &net->pool[net->comp_flows.v[i]];
        double up = f->new_rate_bps - f->rate_bps;
        if (!(up > 0)) continue;
        for (uint32_t k = 0; k < f->n_links; k++) {
            ss_flow_link *l = &net->links[f->links[k]];
            if (l->mark == 2 * ep) l->left_bps += up;
        }
    }
    size_t lost = 0;
    for (size_t i = 0; i < net->slack_links.n; i++) {
        ss_flow_link *l = &net->links[net->slack_links.v[i]];
        if (!(l->load_bps + l->left_bps < l->cap_bps * (1 - SS_SLACK_REL))) {
            l->mark = 2 * (ep + 1) + 1; /* the next epoch turns it dirty */
            lost++;
        }
    }
    return lost;
}

/* One attempt (propagate_once: the same, then its lstate cleared): 1 if
 * done, 0 if a link left out for its slack would be full, -1 if it gave
 * up: more than fill_scan_max / 4 dirty links with unfrozen flows, too
 * many to scan at every step (search and fill has its heap). */
static int propagate_run(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                         uint32_t new_flow)
{
    uint64_t ep = ++net->epoch;
    net->prop_abort = 0;
    net->comp_links.n = 0;
    net->comp_flows.n = 0;
    net->slack_links.n = 0;
    net->cand_n = 0;
    net->ev_n = 0;
    net->prop_unfrozen = 0;
    net->prop_level = lambda_bps;
    if (new_flow != SS_FLOW_NONE) {
        ss_flow_rec *f = &net->pool[new_flow];
        net->fmark[new_flow] = 2 * ep;
        ss_vpush(&net->comp_flows, new_flow);
        net->prop_unfrozen++;
        if (f->cap_bps > 0) ev_push(net, f->cap_bps, EV_CAP | new_flow);
    }
    for (size_t i = 0; i < n_seeds; i++)
        if (net->lstate[seeds[i]] != LS_DIRTY) make_dirty(net, seeds[i]);

    net->cand_min = SS_FLOW_NONE;
    while (net->prop_unfrozen > 0) {
        if (net->prop_abort) return -1;
        if (net->cand_min == SS_FLOW_NONE && net->cand_n)
            net->cand_min = least_at(net->cand_key, net->cand_n);
        uint32_t at = net->cand_min;
        double lk = net->cand_n ? net->cand_key[at] : INFINITY;
        if (net->ev_n && !(lk < ev_level(net->ev_heap[0].key))) {
            double key = ev_level(net->ev_heap[0].key);
            uint32_t idx = net->ev_heap[0].idx, s = idx & ~EV_CAP;
            if (!(idx & EV_GROUP)) __builtin_prefetch(&net->pool[s]); /* while the heap sifts */
            ev_pop(net);
            if (idx & EV_GROUP) {
                uint32_t li = idx & ~EV_GROUP;
                const ss_flow_link *l = &net->links[li];
                if (key > net->prop_level) net->prop_level = key;
                for (uint32_t j = 0; j < l->n && l->unfrozen > 0; j++) {
                    uint32_t g = l->ent[j].flow;
                    if (net->fmark[g] == 2 * ep && net->pool[g].bn == li) rise(net, g);
                }
                continue;
            }
            if (net->fmark[s] != 2 * ep) continue; /* frozen already */
            if (key > net->prop_level) net->prop_level = key;
            ss_flow_rec *f = &net->pool[s];
            if (idx & EV_CAP) {
                freeze_at(net, s, f->cap_bps, SS_BN_CAP);
            } else if (f->bn == SS_BN_CAP || net->lstate[f->bn] != LS_DIRTY) {
                freeze_at(net, s, f->rate_bps, f->bn); /* its bottleneck is clean */
            } else {
                rise(net, s);
            }
            continue;
        }
        assert(net->cand_n > 0);
        uint32_t li = net->cand_idx[at];
        if (lk > net->prop_level) net->prop_level = lk;
        const ss_flow_link *l = &net->links[li];
        if (l->n > net->pick_cap) {
            net->pick_cap = 2 * l->n;
            net->pick = ss_xrealloc(net->pick, net->pick_cap * sizeof *net->pick);
        }
        uint32_t m = 0, *pick = net->pick; /* its unfrozen flows, listed without branches */
        for (uint32_t j = 0; j < l->n; j++) {
            uint32_t g = l->ent[j].flow;
            pick[m] = g;
            m += net->fmark[g] == 2 * ep;
        }
        for (uint32_t j = 0; j < m; j++)
            if (net->fmark[pick[j]] == 2 * ep) freeze_at(net, pick[j], net->prop_level, li); /* twice on it */
        assert(l->unfrozen == 0);
    }
    net->st.flows_touched += net->comp_flows.n;
    net->st.links_touched += net->comp_links.n;
    return slack_lost(net) == 0;
}

static int propagate_once(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                          uint32_t new_flow)
{
    int ok = propagate_run(net, seeds, n_seeds, lambda_bps, new_flow);
    for (size_t i = 0; i < net->comp_links.n; i++) net->lstate[net->comp_links.v[i]] = 0;
    for (size_t i = 0; i < net->slack_links.n; i++) net->lstate[net->slack_links.v[i]] = 0;
    return ok;
}

int ss_flow_propagate(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                      uint32_t new_flow)
{
    for (int attempt = 0; attempt < PROP_ATTEMPTS; attempt++) {
        int ok = propagate_once(net, seeds, n_seeds, lambda_bps, new_flow);
        if (ok > 0) return 1;
        if (ok < 0) return 0; /* too many dirty links to scan: search and fill */
        net->st.slack_retries++; /* again, with the links it would fill turned dirty */
    }
    return 0;
}
