/* flow.c: flow-level network model, max-min fair sharing of directed links,
 * re-solved incrementally around each change (contract in flow.h).  This
 * file holds the time line (set-up, completions, deliveries) and the API
 * that starts and stops flows; flow_change.c changes capacities and caps in
 * flight; flow_query.c answers questions; flow_prop.c and flow_solve.c
 * compute the rates (flow_solve.c also says how weights enter them);
 * flow_internal.h holds the records.
 *
 * Data.  Every link keeps an index array of the flows crossing it, one entry
 * per occurrence of the link in a route.  An entry holds the flow's slot,
 * the position k of the link in that route, and a copy of the flow's rate.
 * Each flow records, for every k, where its entry sits in that link's
 * array, so joining and leaving a link are O(1) (swap-remove).  Flow
 * records and route arrays come from a slot pool with a free list.
 *
 * Re-solving.  When a flow starts carrying bytes, or stops:
 *   1. Fixed flows.  Progressive filling raises all unfrozen flows together
 *      through a level L.  Whatever freezes below the level lambda at which
 *      the new filling first departs from the old one does so exactly as
 *      before.  When flow g leaves, lambda = rate(g): below it, g only took
 *      capacity from links that saturated later.  When flow f joins,
 *      lambda = f's new rate: below it, none of f's links saturates.  So
 *      every flow with rate < lambda keeps its rate.  Such a flow is
 *      "fixed": it counts only as capacity taken from its links.  For a
 *      join, a lower bound of f's rate serves as lambda (join_level: the
 *      water level of each of its links given the others' present rates,
 *      and its cap).  Fixing flows at their true rates and solving for the
 *      rest gives the rest their max-min rates: the bottleneck condition
 *      (every flow has a saturated link where no other flow gets more)
 *      survives the restriction.
 *   2. Search.  A breadth-first search from the changed links visits every
 *      flow that is not fixed and every link such a flow shares with
 *      another flow.  It never passes through a fixed flow, so flows
 *      outside the connected component are never seen.  Links and flows
 *      carry epoch marks, never cleared.  A link with a single entry
 *      constrains only its flow: it becomes part of that flow's effective
 *      cap and is not visited.
 *   3. Progressive filling over what was found.  A link saturates at
 *      L = left/unfrozen, where left is its capacity minus the rates of its
 *      frozen flows (fixed ones included) and unfrozen counts the entries of
 *      its unfrozen flows.  A capped flow saturates at L = cap.  Take the
 *      least, freeze its flows at that level, repeat.  Freezing at level L
 *      never lowers another link's saturation level:
 *      (left - L)/(n - 1) >= left/n when L <= left/n.  So the levels come
 *      in increasing order, and every frozen rate is final.  This is the
 *      max-min allocation that SimGrid's lmm solver computes (saturated
 *      constraints, least usage first).  The least level is found by a
 *      scan of a dense array, or by a lazy heap when the candidates are
 *      many (see cand_remove).
 *   4. Only flows whose rate moved by more than a relative 1e-12 are
 *      settled: remaining bytes are brought to now, the new completion time
 *      is computed, and the flow moves in the completion heap.  The others
 *      keep their completion time bit for bit.
 * Steps 2 and 3 are the fallback.  Propagation (flow_prop.c) is tried first.
 * Joins held (ss_flownet_hold_joins): flows that join at one instant go on
 * their links at once, and one re-solve from level 0 (steps 2 and 3) at the
 * release gives them and their component their rates.  One by one, k flows
 * joining a component of n cost k re-solves that each touch up to n + k
 * flows; held, one.
 * A capacity or a cap changed in flight re-solves the same way with
 * lambda = 0 (flow_change.c).
 *
 * Propagation.  Run the new progressive filling from lambda upwards, but
 * only on the links where it departs from the old one ("dirty" links); the
 * others ("clean") saturate at the same level as before and are never
 * looked at.  Every flow remembers bn, what froze it in the last re-solve
 * that touched it: a link, or its cap.  That link is still saturated with
 * no faster flow on it, since a link stays clean until a flow on it
 * changes below its level, and a re-solve that dirties a link touches
 * every flow on it at or above that level.
 *   - The changed links are dirty from lambda on (a leaving flow's seeds
 *     are only the links it nearly filled: a link with room to spare
 *     bottlenecks nobody).  A link turns dirty at the current level L: its
 *     flows below L keep their rates (anything below L has been settled),
 *     those at or above L are touched.
 *   - A dirty link saturates at left/unfrozen, as in step 3, and freezes its
 *     touched flows there.  A capped touched flow freezes at its cap.
 *   - A touched flow that nothing froze earlier reaches its old rate: if its
 *     bn is clean (or its cap), that link saturates there as before and it
 *     freezes at its old rate.  If bn is dirty, the flow goes on rising.
 *     The flows that a link turning dirty had frozen all rise together, at
 *     the least of their old rates (they share it, up to rounding; turning
 *     their links dirty early is exact).
 *   - A flow that freezes at another rate than before, or rises past it,
 *     changes the load of its clean links from that level on: they turn
 *     dirty.
 * The levels are handled in increasing order (dirty links by a scan, the
 * touched flows' old rates and caps in a heap), so this is progressive
 * filling of the whole network, restricted to where it changes.  A link
 * loaded below 95% of its capacity is not turned dirty (unless the change
 * is on it): no flow is bottlenecked there, and it is only noted.  If the
 * rates found keep every such link below capacity (less a relative 1e-6),
 * they are feasible for the whole problem and max-min fair over a larger
 * set of allocations (fewer constraints), so they are the max-min rates.
 * Otherwise it tries again with those links dirty, and after a few tries
 * (or when the dirty links are too many to scan) steps 2 and 3 redo the
 * re-solve.  On the 200-host spine-leaf benchmark (bench/flows.sh: ~400
 * flows in flight, uplinks ~82% busy) a change touches ~52 flows on ~17
 * links, of which ~41 flows change rate, against ~140 flows for steps 2
 * and 3; ~9% of re-solves try twice, ~0.2% fall back.
 *
 * Memory layout, for the caches: a link gets a slot (dense, in order of
 * first use) of one cache line with what a re-solve touches; routes hold
 * slots.  A flow record starts on a cache line with what propagation reads
 * and keeps routes of up to 4 links inside.  The completion heap holds
 * (finish time, id) pairs, so sifting reads no records.
 * Completions are kept in this module's own (4-ary) heap ordered by
 * (finish time, flow id).  Only its minimum is on the engine, as one event.
 * A rate change is then at most one sift in a heap of the flows in flight,
 * instead of a cancel and a schedule in the engine's larger calendar, and
 * simultaneous completions come out in id order.  The heap's keys are
 * lower bounds, made exact at the top only: a completion that moves later
 * costs nothing until it reaches the top (see ch_top).
 *
 * Complexity per start or end, search and fill: O(E + S * C) with the scan
 * and O((E + C) log C) with the heap.  E counts the entries on the links
 * visited, C the filling candidates (<= links + flows visited) and S the
 * saturation steps.  The scan is used while C <= SS_FILL_SCAN_MAX.
 * Propagation: O(E + S * D + T log T) over the dirty links (D of them) and
 * the touched flows (T).  On top of that, O(log F) for each flow whose rate
 * changed, with F the flows in flight.  Nothing is proportional to the
 * network's size or to the flows finished so far.
 *
 * Assumptions (the model, not the code): a fluid model.  Rates change
 * instantly when the set of flows changes.  TCP slow start, loss and queueing
 * delay are ignored, except that setup_s stands for the handshake or TTFB
 * and latency_s for propagation.  The goodput factor stands for
 * header/framing overhead.  Max-min sharing is the model that SimGrid
 * validated against packet-level TCP simulation: P. Velho, L. Schnorr,
 * H. Casanova, A. Legrand, "On the validity of flow-level TCP network models
 * for grid and cloud simulations", ACM TOMACS 23(4), 2013.  Velho et al.
 * also fit RTT-dependent weights and a bandwidth factor; here all flows
 * share with equal priority, and the goodput factor plays the bandwidth
 * factor's part.  The lmm's consumption weights (a flow loading a link with
 * w times its rate) are there for flows that stand for work on several
 * resources (ss_flow_start_weighted, flow_solve.c). */
#include "core/flow.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/flow_internal.h"

#define TIME_EPS_REL 1e-14 /* completions this close (relative to now) are one batch */
#define PREFETCH_AHEAD 8   /* resolve: the record and completion heap item this far ahead in
                            * the list are asked for early */

/* ---- flow pool ---------------------------------------------------------- */

static uint32_t slot_take(ss_flownet *net)
{
    if (net->free_head == SS_FLOW_NONE) {
        uint32_t old = net->n_slots, grow = old ? old : 64;
        if ((uint64_t)old + grow >= 0x40000000u) abort(); /* flow_prop.c tags slots' top bits */
        /* records on cache lines; short routes point into their record */
        ss_flow_rec *pool = aligned_alloc(64, (size_t)(old + grow) * sizeof *pool);
        if (!pool) abort();
        if (old) memcpy(pool, net->pool, (size_t)old * sizeof *pool);
        free(net->pool);
        net->pool = pool;
        for (uint32_t i = 0; i < old; i++) {
            ss_flow_rec *f = &pool[i];
            if (f->phase != SS_PH_FREE && f->n_links <= SS_ROUTE_INLINE) {
                f->links = f->route_inl;
                f->pos = f->pos_inl;
            }
        }
        net->fmark = ss_xrealloc(net->fmark, (size_t)(old + grow) * sizeof *net->fmark);
        memset(net->fmark + old, 0, (size_t)grow * sizeof *net->fmark);
        net->hpos = ss_xrealloc(net->hpos, (size_t)(old + grow) * sizeof *net->hpos);
        memset(net->pool + old, 0, (size_t)grow * sizeof *net->pool);
        for (uint32_t i = old; i < old + grow; i++)
            net->pool[i].next_free = i + 1 < old + grow ? i + 1 : SS_FLOW_NONE;
        net->n_slots = old + grow;
        net->free_head = old;
    }
    uint32_t s = net->free_head;
    net->free_head = net->pool[s].next_free;
    return s;
}

static void slot_release(ss_flownet *net, ss_flow_rec *f)
{
    f->id = 0;
    f->phase = SS_PH_FREE;
    f->ev = 0;
    f->next_free = net->free_head;
    net->free_head = (uint32_t)(f - net->pool);
    net->active--;
}

/* ---- completion heap ------------------------------------------------------ */

/* The heap holds each flow's (finish_s, id), so that sifting compares
 * without visiting the records; the slot is the id's low 32 bits.  It is
 * 4-ary (the children of i are CH_ARITY i + 1 ..): half the levels of a
 * binary heap to move through, four 16-byte children to a cache line.
 *
 * Keys are lower bounds: an item's t_s is at most its flow's finish_s.  A
 * flow whose finish_s moves later keeps its item as it is (a re-solve
 * moves about half the rates it changes that way, and sifting them cost
 * two cache misses each); one whose finish_s moves earlier than its item
 * sifts up.  The top is made current before it is read (ch_top): while it
 * is stale, it takes its flow's finish_s and sifts down.  A current top
 * is then the least (finish_s, id) of all, since every other item's true
 * key is at or above its own, so completions come out in the same order
 * as with exact keys. */
#define CH_ARITY 4
static inline int ch_before(ss_flow_due a, ss_flow_due b)
{
    return a.t_s < b.t_s || (a.t_s == b.t_s && a.id < b.id);
}

static inline void ch_place(ss_flownet *net, size_t i, ss_flow_due d)
{
    net->ch[i] = d;
    net->hpos[(uint32_t)d.id] = (uint32_t)i;
}

static void ch_up(ss_flownet *net, size_t i, ss_flow_due d)
{
    while (i > 0) {
        size_t p = (i - 1) / CH_ARITY;
        if (!ch_before(d, net->ch[p])) break;
        ch_place(net, i, net->ch[p]);
        i = p;
    }
    ch_place(net, i, d);
}

static void ch_down(ss_flownet *net, size_t i, ss_flow_due d)
{
    for (;;) {
        size_t c = CH_ARITY * i + 1, end = c + CH_ARITY;
        if (c >= net->ch_n) break;
        if (end > net->ch_n) end = net->ch_n;
        for (size_t j = c + 1; j < end; j++) c = ch_before(net->ch[j], net->ch[c]) ? j : c;
        if (!ch_before(net->ch[c], d)) break;
        ch_place(net, i, net->ch[c]);
        i = c;
    }
    ch_place(net, i, d);
}

/* Put item d at position i (or at the end if i is ch_n) in order. */
static void ch_settle(ss_flownet *net, size_t i, ss_flow_due d)
{
    if (i > 0 && ch_before(d, net->ch[(i - 1) / CH_ARITY])) ch_up(net, i, d);
    else ch_down(net, i, d);
}

/* Insert slot s, or keep order after its finish_s moved from old_finish_s
 * (the heap's key for it is at most old_finish_s). */
static void ch_update(ss_flownet *net, uint32_t s, double old_finish_s)
{
    ss_flow_rec *f = &net->pool[s];
    ss_flow_due d = {f->finish_s, f->id};
    if (net->hpos[s] == SS_FLOW_NONE) {
        if (net->ch_n == net->ch_cap) {
            net->ch_cap = net->ch_cap ? 2 * net->ch_cap : 64;
            net->ch = ss_xrealloc(net->ch, net->ch_cap * sizeof *net->ch);
        }
        ch_up(net, net->ch_n++, d);
        return;
    }
    if (!(d.t_s < old_finish_s)) return; /* later: its key is still a lower bound */
    size_t i = net->hpos[s];
    if (ch_before(d, net->ch[i])) ch_up(net, i, d);
}

static void ch_remove(ss_flownet *net, uint32_t s)
{
    size_t i = net->hpos[s];
    if (i == SS_FLOW_NONE) return;
    net->hpos[s] = SS_FLOW_NONE;
    net->ch_n--;
    if (i == net->ch_n) return;
    ch_settle(net, i, net->ch[net->ch_n]);
}

static void on_complete(ss_engine *eng, void *ctx, uint64_t arg);

/* Make the top's key current (see the heap's comment); 0 if the heap is
 * empty. */
static int ch_top(ss_flownet *net)
{
    while (net->ch_n) {
        ss_flow_due d = net->ch[0];
        double t = net->pool[(uint32_t)d.id].finish_s;
        if (t == d.t_s) return 1;
        d.t_s = t;
        ch_down(net, 0, d);
    }
    return 0;
}

/* Keep one engine event at the earliest completion. */
static void arm(ss_flownet *net)
{
    double t = ch_top(net) ? net->ch[0].t_s : INFINITY;
    if (net->ev && net->ev_t == t) return;
    if (net->ev) ss_cancel(net->eng, net->ev);
    net->ev = 0;
    if (!isfinite(t)) return;
    double now = ss_now(net->eng);
    net->ev = ss_schedule(net->eng, t > now ? t : now, on_complete, net, 0);
    net->ev_t = t;
}

/* ---- links ---------------------------------------------------------------- */

static void link_join(ss_flownet *net, uint32_t s)
{
    ss_flow_rec *f = &net->pool[s];
    for (uint32_t k = 0; k < f->n_links; k++) {
        ss_flow_link *l = &net->links[f->links[k]];
        if (l->n == l->ncap) {
            l->ncap = l->ncap ? 2 * l->ncap : 8;
            l->ent = ss_xrealloc(l->ent, (size_t)l->ncap * sizeof *l->ent);
        }
        f->pos[k] = l->n;
        l->ent[l->n++] = (ss_flow_entry){f->rate_bps, s, k};
        l->load_bps += f->rate_bps;
    }
}

static void link_leave(ss_flownet *net, ss_flow_rec *f)
{
    const double *w = net->wflows ? f->w : NULL; /* NULL: every weight is 1 */
    net->wflows -= w != NULL;
    for (uint32_t k = 0; k < f->n_links; k++) {
        ss_flow_link *l = &net->links[f->links[k]];
        uint32_t i = f->pos[k];
        ss_flow_entry last = l->ent[--l->n];
        l->load_bps = l->n ? l->load_bps - (w ? w[k] * f->rate_bps : f->rate_bps) : 0;
        if (i != l->n) {
            l->ent[i] = last;
            net->pool[last.flow].pos[last.k] = i;
        }
    }
}

/* Credit bytes carried by f to each link of its route (times the link's
 * weight). */
static void credit(ss_flownet *net, const ss_flow_rec *f, double bytes)
{
    const double *w = net->wflows ? f->w : NULL;
    for (uint32_t k = 0; k < f->n_links; k++) net->lbytes[f->links[k]] += w ? w[k] * bytes : bytes;
}

/* Bring an active flow's remaining bytes to now, crediting what it carried
 * to each link of its route. */
static void settle(ss_flownet *net, ss_flow_rec *f, double now)
{
    double dt = now - f->t_last_s;
    if (dt <= 0) return;
    double rem = f->rem_bytes - f->payload_Bps * dt;
    if (rem <= SS_REM_EPS_REL * f->bytes) rem = 0;
    credit(net, f, f->rem_bytes - rem);
    f->rem_bytes = rem;
    f->t_last_s = now;
}

/* Before f leaves its links, queue those that it nearly filled as the
 * re-solve's seeds.  A link below SS_SKIP_BELOW of its capacity is the
 * bottleneck of no flow, f included, so nothing needs re-solving on its
 * account (if the re-solve reaches it, it notes it as a link with slack). */
static void push_leave_seeds(ss_flownet *net, const ss_flow_rec *f)
{
    for (uint32_t k = 0; k < f->n_links; k++) {
        const ss_flow_link *l = &net->links[f->links[k]];
        if (!(l->load_bps < l->cap_bps * SS_SKIP_BELOW)) ss_vpush(&net->seeds, f->links[k]);
    }
}

/* Re-solve (flow_solve.c), then move the flows whose rate changed. */
static void resolve(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                    uint32_t new_flow)
{
    ss_flow_solve(net, seeds, n_seeds, lambda_bps, new_flow);
    double now = ss_now(net->eng);
    for (size_t i = 0; i < net->comp_flows.n; i++) {
        uint32_t s = net->comp_flows.v[i];
        ss_flow_rec *f = &net->pool[s];
        if (i + PREFETCH_AHEAD < net->comp_flows.n) { /* records are read at random: ask early */
            const char *next = (const char *)&net->pool[net->comp_flows.v[i + PREFETCH_AHEAD]];
            __builtin_prefetch(next);
            __builtin_prefetch(next + 64);
            __builtin_prefetch(next + 128);
            uint32_t h = net->hpos[net->comp_flows.v[i + PREFETCH_AHEAD]];
            if (h != SS_FLOW_NONE) __builtin_prefetch(&net->ch[h]); /* read if it moves earlier */
        }
        f->bn = f->new_bn;
        double r = f->new_rate_bps, old = f->rate_bps;
        if (fabs(r - old) <= SS_RATE_EPS_REL * (r > old ? r : old)) continue;
        /* settle (as settle() does) and move to the new rate, in one pass
         * over the links */
        double carried = 0, dt = now - f->t_last_s;
        if (dt > 0) {
            double rem = f->rem_bytes - f->payload_Bps * dt;
            if (rem <= SS_REM_EPS_REL * f->bytes) rem = 0;
            carried = f->rem_bytes - rem;
            f->rem_bytes = rem;
            f->t_last_s = now;
        }
        f->rate_bps = r;
        double old_finish_s = f->finish_s;
        const double *w = net->wflows ? f->w : NULL; /* NULL: every weight is 1 */
        for (uint32_t k = 0; k < f->n_links && !w; k++) {
            uint32_t li = f->links[k];
            ss_flow_link *l = &net->links[li];
            net->lbytes[li] += carried;
            l->ent[f->pos[k]].rate_bps = r;
            l->load_bps += r - old;
        }
        for (uint32_t k = 0; k < f->n_links && w; k++) { /* the same, weighted */
            uint32_t li = f->links[k];
            ss_flow_link *l = &net->links[li];
            net->lbytes[li] += w[k] * carried;
            l->ent[f->pos[k]].rate_bps = r;
            l->load_bps += w[k] * (r - old);
        }
        f->payload_Bps = r * f->goodput / 8.0;
        f->finish_s = f->rem_bytes == 0 ? now
                    : f->payload_Bps > 0 ? now + f->rem_bytes / f->payload_Bps : INFINITY;
        ch_update(net, s, old_finish_s);
        net->st.rate_changes++;
    }
}

void ss_flow_arm(ss_flownet *net) { arm(net); }

void ss_flow_resolve_now(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                         uint32_t flow)
{
    resolve(net, seeds, n_seeds, lambda_bps, flow);
    arm(net);
}

/* An active flow on an empty route shares nothing: it moves at its cap,
 * or sends all its bytes at once (rate_bps INFINITY).  The caller arms. */
void ss_flow_rerate_alone(ss_flownet *net, uint32_t s, double rate_bps)
{
    ss_flow_rec *f = &net->pool[s];
    double now = ss_now(net->eng);
    settle(net, f, now);
    double old_finish_s = f->finish_s;
    f->rate_bps = rate_bps;
    f->payload_Bps = rate_bps < INFINITY ? rate_bps * f->goodput / 8.0 : 0;
    if (rate_bps == INFINITY) f->rem_bytes = 0;
    f->finish_s = f->rem_bytes == 0 ? now : now + f->rem_bytes / f->payload_Bps;
    ch_update(net, s, old_finish_s);
}

/* ---- life cycle ----------------------------------------------------------- */

static void on_deliver(ss_engine *eng, void *ctx, uint64_t id);

/* Bytes all sent at now: schedule the first receiver's notification. */
static void begin_delivery(ss_flownet *net, ss_flow_rec *f, double now)
{
    double lag_Bps = f->payload_Bps;
    f->phase = SS_PH_DELIVERING;
    f->rate_bps = 0;
    f->payload_Bps = 0;
    f->rem_bytes = 0;
    f->t_sent_s = now;
    f->next_recv = 0;
    if (f->hop_lag_bytes > 0 && lag_Bps > 0) /* a relay's buffered bytes at the chain's last rate */
        for (uint32_t i = 1; i < f->n_recv; i++) f->recv_s[i] += (double)i * f->hop_lag_bytes / lag_Bps;
    f->ev = ss_schedule(net->eng, now + f->recv_s[0], on_deliver, net, f->id);
}

static void activate(ss_flownet *net, uint32_t s)
{
    ss_flow_rec *f = &net->pool[s];
    double now = ss_now(net->eng);
    if (f->bytes == 0 || (f->n_links == 0 && f->cap_bps == 0)) {
        begin_delivery(net, f, now);
        return;
    }
    f->phase = SS_PH_ACTIVE;
    f->t_last_s = now;
    f->rem_bytes = f->bytes;
    f->rate_bps = 0;
    f->payload_Bps = 0;
    if (f->n_links == 0) { /* same host, capped: no sharing */
        ss_flow_rerate_alone(net, s, f->cap_bps);
    } else {
        if (f->w && net->wflows++ == 0 && !net->wsum)
            net->wsum = ss_xcalloc(2 * (net->n_links ? net->n_links : 1), sizeof *net->wsum);
        link_join(net, s);
        if (net->hold_joins) { /* re-solved with the others at the release */
            ss_vpush(&net->held, s);
            return;
        }
        resolve(net, f->links, f->n_links, ss_flow_join_level(net, f), s);
    }
    arm(net);
}

void ss_flownet_hold_joins(ss_flownet *net)
{
    assert(!net->hold_joins);
    net->hold_joins = 1;
    net->held.n = 0;
}

/* One held flow joins as it would have unheld (activate's re-solve, by
 * propagation from its join level).  More: their links are the seeds of
 * one re-solve from level 0, where every flow of their component is
 * re-filled, the held ones (rate 0) with the rest.  Propagation needs each
 * touched flow's old bottleneck, which the held flows do not have yet:
 * search and fill does it. */
void ss_flownet_release_joins(ss_flownet *net)
{
    assert(net->hold_joins);
    net->hold_joins = 0;
    if (net->held.n == 0) return;
    if (net->held.n == 1) {
        uint32_t s = net->held.v[0];
        ss_flow_rec *f = &net->pool[s];
        net->held.n = 0;
        if (f->phase == SS_PH_ACTIVE) resolve(net, f->links, f->n_links, ss_flow_join_level(net, f), s);
        arm(net);
        return;
    }
    net->seeds.n = 0;
    for (size_t i = 0; i < net->held.n; i++) {
        const ss_flow_rec *f = &net->pool[net->held.v[i]];
        if (f->phase != SS_PH_ACTIVE) continue; /* cancelled meanwhile: it left as ever */
        for (uint32_t k = 0; k < f->n_links; k++) ss_vpush(&net->seeds, f->links[k]);
    }
    net->held.n = 0;
    int propagate = net->propagate;
    net->propagate = 0;
    resolve(net, net->seeds.v, net->seeds.n, 0, SS_FLOW_NONE);
    net->propagate = propagate;
    arm(net);
}

static void on_setup(ss_engine *eng, void *ctx, uint64_t id)
{
    ss_flownet *net = ctx;
    ss_flow_rec *f = ss_flow_lookup(net, id);
    assert(f && f->phase == SS_PH_SETUP);
    f->ev = 0;
    activate(net, (uint32_t)(f - net->pool));
}

/* The completion heap's minimum is due: every flow finishing now (within a
 * relative TIME_EPS_REL) leaves its links, one re-solve, and their
 * notifications are scheduled in id order. */
static void on_complete(ss_engine *eng, void *ctx, uint64_t arg)
{
    ss_flownet *net = ctx;
    double now = ss_now(eng);
    double horizon = now + TIME_EPS_REL * fabs(now);
    net->ev = 0;
    net->seeds.n = 0;
    net->batch.n = 0;
    double lambda_bps = INFINITY; /* the least rate among the leavers */
    while (ch_top(net) && net->ch[0].t_s <= horizon) {
        uint32_t s = (uint32_t)net->ch[0].id;
        ss_flow_rec *f = &net->pool[s];
        ch_remove(net, s);
        if (f->n_links && f->rate_bps < lambda_bps) lambda_bps = f->rate_bps;
        credit(net, f, f->rem_bytes);
        push_leave_seeds(net, f);
        link_leave(net, f);
        /* insertion by id: popped in (time, id) order, so nearly sorted */
        ss_vpush(&net->batch, s);
        size_t j = net->batch.n - 1;
        while (j > 0 && net->pool[net->batch.v[j - 1]].id > f->id) {
            net->batch.v[j] = net->batch.v[j - 1];
            j--;
        }
        net->batch.v[j] = s;
    }
    if (net->seeds.n) resolve(net, net->seeds.v, net->seeds.n, lambda_bps, SS_FLOW_NONE);
    for (size_t i = 0; i < net->batch.n; i++)
        begin_delivery(net, &net->pool[net->batch.v[i]], now);
    arm(net);
}

static void on_deliver(ss_engine *eng, void *ctx, uint64_t id)
{
    ss_flownet *net = ctx;
    ss_flow_rec *f = ss_flow_lookup(net, id);
    assert(f && f->phase == SS_PH_DELIVERING);
    uint32_t i = f->next_recv++;
    size_t receiver = (size_t)f->recv_base + i;
    ss_flow_done done = f->done;
    ss_chain_done cdone = f->cdone;
    void *uctx = f->ctx;
    f->ev = 0;
    if (f->next_recv < f->n_recv) {
        f->ev = ss_schedule(eng, f->t_sent_s + f->recv_s[f->next_recv], on_deliver, net, id);
    } else {
        slot_release(net, f);
        net->st.completed++;
    }
    /* f may move from here on: the callback can start flows */
    double now = ss_now(eng);
    if (cdone) cdone(eng, uctx, id, receiver, now);
    else if (done) done(eng, uctx, id, now);
}

/* A new flow record with room for a route of n_links and n_recv receivers. */
static uint32_t flow_new(ss_flownet *net, size_t n_links, size_t n_recv, double bytes,
                         const ss_flow_opts *opts)
{
    static const ss_flow_opts zero;
    if (!opts) opts = &zero;
    assert(bytes >= 0 && isfinite(bytes));
    assert(opts->cap_bps >= 0 && isfinite(opts->cap_bps));
    assert(opts->goodput >= 0 && opts->goodput <= 1);
    assert(opts->latency_s >= 0 && isfinite(opts->latency_s));
    assert(opts->setup_s >= 0 && isfinite(opts->setup_s));
    assert(n_links < SS_FLOW_NONE && n_recv >= 1 && n_recv < SS_FLOW_NONE);
    uint32_t s = slot_take(net);
    ss_flow_rec *f = &net->pool[s];
    if (n_links <= SS_ROUTE_INLINE) {
        f->links = f->route_inl;
        f->pos = f->pos_inl;
    } else {
        if (f->route_cap < n_links) {
            f->route_cap = (uint32_t)n_links;
            f->heap_links = ss_xrealloc(f->heap_links, n_links * sizeof *f->heap_links);
            f->heap_pos = ss_xrealloc(f->heap_pos, n_links * sizeof *f->heap_pos);
        }
        f->links = f->heap_links;
        f->pos = f->heap_pos;
    }
    if (f->recv_cap < n_recv) {
        f->recv_cap = (uint32_t)n_recv;
        f->recv_s = ss_xrealloc(f->recv_s, n_recv * sizeof *f->recv_s);
    }
    f->id = (++net->seq << 32) | s;
    f->phase = SS_PH_SETUP;
    f->n_links = (uint32_t)n_links;
    f->bytes = bytes;
    f->rem_bytes = bytes;
    f->t_last_s = ss_now(net->eng);
    f->rate_bps = f->payload_Bps = 0;
    f->finish_s = INFINITY;
    f->cap_bps = opts->cap_bps;
    f->w = NULL;
    f->goodput = opts->goodput > 0 ? opts->goodput : 1.0;
    assert(opts->hop_lag_bytes >= 0 && isfinite(opts->hop_lag_bytes));
    f->hop_lag_bytes = opts->hop_lag_bytes;
    net->fmark[s] = 0;
    f->bn = SS_BN_CAP;
    net->hpos[s] = SS_FLOW_NONE;
    f->ev = 0;
    f->n_recv = (uint32_t)n_recv;
    f->next_recv = 0;
    f->recv_base = 1;
    f->done = NULL;
    f->cdone = NULL;
    f->ctx = NULL;
    net->active++;
    if (net->active > net->peak_active) net->peak_active = net->active;
    net->st.started++;
    return s;
}

/* The slot of link id: links get slots 0, 1, ... in the order in which
 * routes first name them, so that the links in use lie together in
 * memory whatever the network's size. */
static uint32_t link_slot(ss_flownet *net, uint32_t id)
{
    assert(id < net->n_links);
    uint32_t li = net->link_of[id];
    if (li == SS_FLOW_NONE) {
        li = net->link_of[id] = net->n_used++;
        net->links[li].cap_bps = net->cap_bps[id];
    }
    return li;
}

static void copy_route(ss_flownet *net, ss_flow_rec *f, size_t at, const uint32_t *links, size_t n)
{
    for (size_t k = 0; k < n; k++) f->links[at + k] = link_slot(net, links[k]);
}

/* After set-up, or at once when setup_s is 0. */
static void launch(ss_flownet *net, uint32_t s, double setup_s)
{
    if (setup_s > 0)
        net->pool[s].ev = ss_schedule_in(net->eng, setup_s, on_setup, net, net->pool[s].id);
    else
        activate(net, s);
}

/* ---- public API ----------------------------------------------------------- */

ss_flownet *ss_flownet_new(ss_engine *eng, size_t n_links, const double *capacity_bps)
{
    assert(eng != NULL);
    assert(n_links < 0x40000000u); /* flow_prop.c tags link slots' top bits */
    ss_flownet *net = ss_xcalloc(1, sizeof *net);
    net->eng = eng;
    net->n_links = n_links;
    /* one link slot per cache line */
    net->links = aligned_alloc(64, (n_links ? n_links : 1) * sizeof *net->links);
    if (!net->links) abort();
    memset(net->links, 0, (n_links ? n_links : 1) * sizeof *net->links);
    net->lbytes = ss_xcalloc(n_links ? n_links : 1, sizeof *net->lbytes);
    net->cap_bps = ss_xcalloc(n_links ? n_links : 1, sizeof *net->cap_bps);
    net->link_of = ss_xcalloc(n_links ? n_links : 1, sizeof *net->link_of);
    net->lstate = ss_xcalloc(n_links ? n_links : 1, sizeof *net->lstate);
    for (size_t i = 0; i < n_links; i++) {
        assert(capacity_bps[i] > 0 && isfinite(capacity_bps[i]));
        net->cap_bps[i] = capacity_bps[i];
        net->link_of[i] = SS_FLOW_NONE;
    }
    net->free_head = SS_FLOW_NONE;
    net->fill_scan_max = SS_FILL_SCAN_MAX;
    net->propagate = 1;
    return net;
}

void ss_flownet_free(ss_flownet *net)
{
    if (!net) return;
    if (net->ev) ss_cancel(net->eng, net->ev);
    for (uint32_t s = 0; s < net->n_slots; s++) {
        ss_flow_rec *f = &net->pool[s];
        if (f->phase != SS_PH_FREE && f->ev) ss_cancel(net->eng, f->ev);
        free(f->heap_links);
        free(f->heap_pos);
        free(f->recv_s);
        free(f->heap_w);
    }
    for (size_t i = 0; i < net->n_used; i++) free(net->links[i].ent);
    free(net->links);
    free(net->lbytes);
    free(net->cap_bps);
    free(net->link_of);
    free(net->lstate);
    free(net->pool);
    free(net->fmark);
    free(net->hpos);
    free(net->ch);
    free(net->comp_links.v);
    free(net->comp_flows.v);
    free(net->shared.v);
    free(net->seeds.v);
    free(net->batch.v);
    free(net->held.v);
    free(net->cand_key);
    free(net->cand_idx);
    free(net->pick);
    free(net->dirty_pick);
    free(net->slack_links.v);
    free(net->wsum);
    free(net->shared_w);
    free(net->ev_heap);
    free(net);
}

size_t ss_flownet_links(const ss_flownet *net) { return net->n_links; }

void ss_flownet_tune(ss_flownet *net, size_t fill_scan_max, int propagate)
{
    net->fill_scan_max = fill_scan_max ? fill_scan_max : SS_FILL_SCAN_MAX;
    net->propagate = propagate;
}

/* f's per-link weights, room for n of them (the slot keeps its storage). */
static double *weights_of(ss_flow_rec *f, size_t n)
{
    if (f->w_cap < n) {
        f->w_cap = (uint32_t)n;
        f->heap_w = ss_xrealloc(f->heap_w, n * sizeof *f->heap_w);
    }
    return f->w = f->heap_w;
}

ss_flow_id ss_flow_start(ss_flownet *net, const uint32_t *links, size_t n_links, double bytes,
                         const ss_flow_opts *opts, ss_flow_done done, void *ctx)
{
    return ss_flow_start_weighted(net, links, NULL, n_links, bytes, opts, done, ctx);
}

ss_flow_id ss_flow_start_weighted(ss_flownet *net, const uint32_t *links, const double *weights,
                                  size_t n_links, double bytes, const ss_flow_opts *opts,
                                  ss_flow_done done, void *ctx)
{
    uint32_t s = flow_new(net, n_links, 1, bytes, opts);
    ss_flow_rec *f = &net->pool[s];
    copy_route(net, f, 0, links, n_links);
    int weighted = 0;
    for (size_t k = 0; weights && k < n_links; k++) {
        assert(weights[k] > 0 && isfinite(weights[k]));
        weighted |= weights[k] != 1;
    }
    if (weighted) /* all 1 is no weight at all */
        memcpy(weights_of(f, n_links), weights, n_links * sizeof *f->w);
    f->recv_s[0] = opts ? opts->latency_s : 0;
    f->done = done;
    f->ctx = ctx;
    ss_flow_id id = f->id;
    launch(net, s, opts ? opts->setup_s : 0);
    return id;
}

ss_flow_id ss_flow_chain_start(ss_flownet *net, const ss_chain_hop *hops, size_t n_hops,
                               double bytes, const ss_flow_opts *opts, double ttfb_per_hop_s,
                               ss_chain_done done, void *ctx)
{
    assert(n_hops >= 1);
    assert(ttfb_per_hop_s >= 0 && isfinite(ttfb_per_hop_s));
    size_t total = 0;
    for (size_t i = 0; i < n_hops; i++) total += hops[i].n_links;
    uint32_t s = flow_new(net, total, n_hops, bytes, opts);
    ss_flow_rec *f = &net->pool[s];
    double lat_s = 0, extra_s = opts ? opts->latency_s : 0;
    size_t at = 0;
    int weighted = 0;
    for (size_t i = 0; i < n_hops; i++) {
        assert(hops[i].latency_s >= 0 && isfinite(hops[i].latency_s));
        assert(hops[i].weight >= 0 && isfinite(hops[i].weight));
        weighted |= hops[i].weight > 0 && hops[i].weight != 1;
        copy_route(net, f, at, hops[i].links, hops[i].n_links);
        at += hops[i].n_links;
        lat_s += hops[i].latency_s;
        f->recv_s[i] = (double)i * ttfb_per_hop_s + lat_s + extra_s;
    }
    if (weighted && total) { /* per hop, every link of it (all 1 is no weight at all) */
        double *w = weights_of(f, total);
        at = 0;
        for (size_t i = 0; i < n_hops; i++)
            for (size_t k = 0; k < hops[i].n_links; k++) w[at++] = hops[i].weight > 0 ? hops[i].weight : 1;
    }
    f->cdone = done;
    f->ctx = ctx;
    ss_flow_id id = f->id;
    launch(net, s, opts ? opts->setup_s : 0);
    return id;
}

void ss_flow_fanout_start(ss_flownet *net, const ss_chain_hop *routes, size_t n, double bytes,
                          const ss_flow_opts *opts, ss_chain_done done, void *ctx,
                          ss_flow_id *ids_out)
{
    for (size_t i = 0; i < n; i++) {
        assert(routes[i].latency_s >= 0 && isfinite(routes[i].latency_s));
        uint32_t s = flow_new(net, routes[i].n_links, 1, bytes, opts);
        ss_flow_rec *f = &net->pool[s];
        copy_route(net, f, 0, routes[i].links, routes[i].n_links);
        f->recv_s[0] = routes[i].latency_s + (opts ? opts->latency_s : 0);
        f->recv_base = (uint32_t)(i + 1);
        f->cdone = done;
        f->ctx = ctx;
        if (ids_out) ids_out[i] = f->id;
        launch(net, s, opts ? opts->setup_s : 0);
    }
}

int ss_flow_cancel(ss_flownet *net, ss_flow_id id)
{
    ss_flow_rec *f = ss_flow_lookup(net, id);
    if (!f) return 0;
    if (f->phase == SS_PH_ACTIVE) {
        uint32_t s = (uint32_t)(f - net->pool);
        settle(net, f, ss_now(net->eng));
        ch_remove(net, s);
        net->seeds.n = 0;
        push_leave_seeds(net, f);
        link_leave(net, f);
        if (net->seeds.n) resolve(net, net->seeds.v, net->seeds.n, f->rate_bps, SS_FLOW_NONE);
        arm(net);
    } else if (f->ev) {
        ss_cancel(net->eng, f->ev);
    }
    slot_release(net, f);
    net->st.cancelled++;
    return 1;
}
