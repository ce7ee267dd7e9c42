/* flow_query.c: what the flow model (contract in flow.h) answers about
 * itself without changing anything: a flow's phase, rate and bytes left,
 * a link's utilisation, bytes carried and flows, the network's counters.
 * Link figures count each flow entry times its weight (flow.h,
 * ss_flow_start_weighted). */
#include "core/flow.h"

#include <assert.h>

#include "core/flow_internal.h"

ss_flow_phase ss_flow_phase_of(const ss_flownet *net, ss_flow_id id)
{
    const ss_flow_rec *f = ss_flow_lookup(net, id);
    if (!f) return SS_FLOW_GONE;
    switch (f->phase) {
    case SS_PH_SETUP: return SS_FLOW_SETUP;
    case SS_PH_ACTIVE: return SS_FLOW_ACTIVE;
    default: return SS_FLOW_DELIVERING;
    }
}

double ss_flow_rate_bps(const ss_flownet *net, ss_flow_id id)
{
    const ss_flow_rec *f = ss_flow_lookup(net, id);
    return f && f->phase == SS_PH_ACTIVE ? f->rate_bps : 0;
}

static double remaining_now(const ss_flownet *net, const ss_flow_rec *f)
{
    double rem = f->rem_bytes - f->payload_Bps * (ss_now(net->eng) - f->t_last_s);
    return rem > SS_REM_EPS_REL * f->bytes ? rem : 0;
}

double ss_flow_remaining_bytes(const ss_flownet *net, ss_flow_id id)
{
    const ss_flow_rec *f = ss_flow_lookup(net, id);
    if (!f) return 0;
    if (f->phase == SS_PH_SETUP) return f->bytes;
    if (f->phase == SS_PH_ACTIVE) return remaining_now(net, f);
    return 0;
}

/* Link id's record, or NULL if no route has named it yet. */
static const ss_flow_link *link_of(const ss_flownet *net, uint32_t link_id)
{
    assert(link_id < net->n_links);
    uint32_t li = net->link_of[link_id];
    return li == SS_FLOW_NONE ? NULL : &net->links[li];
}

double ss_link_utilisation(const ss_flownet *net, uint32_t link_id)
{
    const ss_flow_link *l = link_of(net, link_id);
    if (!l) return 0;
    double sum = 0;
    for (uint32_t j = 0; j < l->n; j++)
        sum += ss_flow_w(&net->pool[l->ent[j].flow], l->ent[j].k) * l->ent[j].rate_bps;
    return sum / l->cap_bps;
}

double ss_link_bytes(const ss_flownet *net, uint32_t link_id)
{
    const ss_flow_link *l = link_of(net, link_id);
    if (!l) return 0;
    double sum = net->lbytes[l - net->links];
    for (uint32_t j = 0; j < l->n; j++) {
        const ss_flow_rec *f = &net->pool[l->ent[j].flow];
        sum += ss_flow_w(f, l->ent[j].k) * (f->rem_bytes - remaining_now(net, f));
    }
    return sum;
}

size_t ss_link_flows(const ss_flownet *net, uint32_t link_id)
{
    const ss_flow_link *l = link_of(net, link_id);
    return l ? l->n : 0;
}

size_t ss_flownet_active(const ss_flownet *net) { return net->active; }
size_t ss_flownet_peak_active(const ss_flownet *net) { return net->peak_active; }
ss_flownet_stats ss_flownet_stats_of(const ss_flownet *net)
{
    ss_flownet_stats st = net->st;
    st.slots = net->n_slots;
    return st;
}
