/* flow_change.c: changes to a flow network in flight (contract in flow.h):
 * a link's capacity (ss_flownet_set_capacity) and a flow's cap
 * (ss_flow_set_cap).  Running flows are settled at now and re-solved at
 * once, exactly.  Neither call costs anything on the start and end paths.
 *
 * Exactness.  Both re-solve with lambda = 0: no flow is fixed, so the
 * re-solve starts from level 0 on the changed links, which is a lower bound
 * of the level where the new filling departs from the old one, whatever
 * the change.  Below that bound nothing differs, so every argument at the
 * top of flow.c holds as it does for a join or a leave:
 *   - a capacity change makes its link the seed, dirty from level 0: its
 *     saturation level left/unfrozen is computed from the new capacity, and
 *     every other link is as it was until a flow on it departs (then it is
 *     reached and turns dirty, as always);
 *   - a cap change re-fills the flow like a joining one (new_flow): it is
 *     unfrozen from level 0 and all its links are dirty (seeds) from level
 *     0, so its old rate and what froze it (bn) are never used; it freezes
 *     at its new cap or where one of its links saturates.  Only its own
 *     constraint changed, and it touches nothing but these links.
 * So propagation (flow_prop.c) is exact here, and when it cannot vouch for
 * its answer, search and fill (flow_solve.c) redoes the re-solve over the
 * whole connected component (lambda = 0 fixes nothing); while a weighted
 * flow is in the sharing, search and fill does it alone.  As for a join or
 * a leave, flows whose rate moves by less than a relative 1e-12 keep their
 * completion time bit for bit, and nothing depends on pointers or hash
 * order.
 *
 * Shortcuts, both exact: a change to the value in place does nothing, and
 * so does a cap that a flow's rate stays below while a link (not its cap)
 * holds it at that rate: its bottleneck link is still saturated with no
 * faster flow on it, so the allocation is still the max-min one. */
#include <assert.h>
#include <math.h>

#include "core/flow_internal.h"

void ss_flownet_set_capacity(ss_flownet *net, uint32_t link, double capacity_bps)
{
    assert(link < net->n_links);
    assert(capacity_bps > 0 && isfinite(capacity_bps));
    if (net->cap_bps[link] == capacity_bps) return;
    net->cap_bps[link] = capacity_bps;
    uint32_t li = net->link_of[link];
    if (li == SS_FLOW_NONE) return; /* no route has named it: link_slot copies it */
    net->links[li].cap_bps = capacity_bps;
    if (net->links[li].n) ss_flow_resolve_now(net, &li, 1, 0, SS_FLOW_NONE);
}

int ss_flow_set_cap(ss_flownet *net, ss_flow_id id, double cap_bps)
{
    assert(cap_bps >= 0 && isfinite(cap_bps));
    ss_flow_rec *f = ss_flow_lookup(net, id);
    if (!f) return 0;
    double old = f->cap_bps;
    f->cap_bps = cap_bps;
    if (f->phase != SS_PH_ACTIVE || cap_bps == old) return 1; /* set-up: activate reads it */
    uint32_t s = (uint32_t)(f - net->pool);
    if (f->n_links == 0) { /* same host: moves at its cap, or at once */
        ss_flow_rerate_alone(net, s, cap_bps > 0 ? cap_bps : INFINITY);
        ss_flow_arm(net);
        return 1;
    }
    if (f->bn != SS_BN_CAP && (cap_bps == 0 || cap_bps >= f->rate_bps)) return 1;
    ss_flow_resolve_now(net, f->links, f->n_links, 0, s);
    return 1;
}
