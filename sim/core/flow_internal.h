/* flow_internal.h: the flow model's records and the functions its files
 * share: flow.c (time line, completions, API), flow_change.c (capacities
 * and caps changed in flight), flow_query.c (questions), flow_solve.c and
 * flow_prop.c (max-min re-solve); nothing else includes it.  Each file
 * calls only down this list's order of solve -> propagate (flow.c and
 * flow_change.c call the solver, never the other way), so the records
 * live here and not in any one file.  The algorithm is described at the
 * top of flow.c. */
#ifndef SS_FLOW_INTERNAL_H
#define SS_FLOW_INTERNAL_H

#include <stdint.h>

#include "core/flow.h"
#include "core/util.h"

#define SS_FLOW_NONE UINT32_MAX /* no slot, no position */
#define SS_FILL_SCAN_MAX 2048   /* default of ss_flownet.fill_scan_max */
#define SS_ROUTE_INLINE 4       /* routes up to this long live in the flow record */
#define SS_BN_CAP (UINT32_MAX - 1) /* ss_flow_rec.bn: frozen by its own cap_bps */
#define SS_RATE_EPS_REL 1e-12   /* a rate that moves less than this is unchanged */
#define SS_REM_EPS_REL 1e-12    /* remaining bytes below this fraction of the size: done */
#define SS_FIX_MARGIN_REL 1e-9  /* rates this close below a threshold count as above it */
#define SS_SKIP_BELOW 0.95      /* propagation leaves out links loaded below this fraction */
#define SS_SLACK_REL 1e-6       /* ... and they must stay below 1 - this at the new rates */

enum { SS_PH_FREE = 0, SS_PH_SETUP, SS_PH_ACTIVE, SS_PH_DELIVERING };

typedef struct ss_vec32 {
    uint32_t *v;
    size_t n, cap;
} ss_vec32;

static inline void ss_vpush(ss_vec32 *a, uint32_t x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = ss_xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = x;
}

/* One occurrence of a flow on a link: the flow's rate (a copy, so that the
 * search can pass over fixed flows without touching their records), its
 * slot, and the position of the link in the flow's route. */
typedef struct ss_flow_entry {
    double rate_bps;
    uint32_t flow;
    uint32_t k;
} ss_flow_entry;

/* A propagation event (flow_prop.c): its level and what it is about, side
 * by side, so that sifting reads one place.  The level is kept as an
 * integer that orders as the double does (ev_key_of), so that sifting
 * compares integers. */
typedef struct ss_flow_ev {
    uint64_t key;
    uint32_t idx;
} ss_flow_ev;

/* A completion heap item: a flow's finish_s and id (its slot in the low 32
 * bits). */
typedef struct ss_flow_due {
    double t_s;
    ss_flow_id id;
} ss_flow_due;

/* One link slot, in one cache line: what a re-solve reads and writes. */
typedef struct ss_flow_link {
    ss_flow_entry *ent;  /* flows crossing it now */
    uint32_t n, ncap;
    double cap_bps;
    double load_bps;     /* sum of the entries' rates, kept up to date on every change,
                          * recomputed whenever a re-solve scans the link */
    /* re-solve scratch */
    double left_bps;     /* capacity not yet given to frozen flows */
    uint32_t unfrozen;   /* entries of unfrozen flows */
    uint32_t fpos;       /* position among the filling candidates */
    uint64_t stamp;      /* the last epoch that visited it (dirty, for propagation) */
    uint64_t mark;       /* propagation: 2 * epoch once noted for its slack in that
                          * epoch, 2 * epoch + 1 if that epoch must turn it dirty */
} ss_flow_link;
_Static_assert(sizeof(ss_flow_link) == 64, "ss_flow_link is one cache line");

/* A flow record, in four cache lines: what propagation reads first, then
 * what settling a rate change and the completion heap read. */
typedef struct ss_flow_rec {
    /* line 0: propagation (its marks are in ss_flownet.fmark) */
    _Alignas(64) double rate_bps; /* allocated wire rate; ACTIVE flows have rate_bps > 0
                                   * after their first re-solve */
    double new_rate_bps; /* re-solve scratch */
    double cap_bps;
    uint32_t *links;     /* route (link slots): route_inl, or heap_links when long */
    uint32_t n_links;    /* route length (all hops of a chain, concatenated) */
    uint32_t bn;         /* what froze it at its rate in the last re-solve that touched it:
                          * a link of its route, or SS_BN_CAP.  That link is still
                          * saturated, with no flow on it faster (flow.c, "Propagation") */
    uint32_t new_bn;     /* re-solve scratch: what froze it (see bn) */
    uint32_t fpos;       /* position of eff_cap_bps among the filling candidates, or
                          * SS_FLOW_NONE */
    uint32_t route_inl[SS_ROUTE_INLINE];
    /* line 1: rate changes, completion heap */
    uint32_t *pos;       /* pos[k]: index of this flow's entry in links[k]'s array */
    uint32_t pos_inl[SS_ROUTE_INLINE];
    int phase;
    ss_flow_id id;       /* 0 while free */
    double finish_s;     /* last byte leaves, at the current rate */
    double rem_bytes;    /* payload left at t_last_s */
    double payload_Bps;  /* rate_bps * goodput / 8 */
    /* line 2 */
    double t_last_s;
    double bytes;        /* payload size */
    double goodput;
    double eff_cap_bps;  /* re-solve scratch: cap_bps and the capacity of every link it
                          * has to itself, INFINITY if none */
    uint32_t sh_off, sh_n; /* re-solve scratch: its links shared with other flows are
                            * ss_flownet.shared[sh_off .. sh_off + sh_n - 1] */
    uint32_t eff_cap_link; /* re-solve scratch: the link behind eff_cap_bps, or SS_BN_CAP */
    uint32_t route_cap;  /* capacity of heap_links[] and heap_pos[]: kept when the slot is
                          * reused */
    uint32_t *heap_links, *heap_pos; /* routes longer than SS_ROUTE_INLINE */
    /* the rest */
    uint32_t next_free;
    uint32_t w_cap;      /* capacity of heap_w[]: kept when the slot is reused */
    ss_event_id ev;      /* pending set-up or delivery event */
    /* delivery: receiver i is notified at t_sent_s + recv_s[i] */
    double t_sent_s;
    double *recv_s;
    uint32_t n_recv, recv_cap, next_recv, recv_base;
    ss_flow_done done;
    ss_chain_done cdone;
    void *ctx;
    /* per-link consumption weights: a unit of rate loads links[k] with w[k];
     * NULL (all 1) unless started with weights other than 1.  Read where
     * ss_flownet.wflows > 0 only, so that unweighted networks never do */
    double *w;
    double *heap_w;      /* w's storage */
    double hop_lag_bytes; /* chains: opts.hop_lag_bytes, added per hop at the end (flow.h) */
} ss_flow_rec;
_Static_assert(sizeof(ss_flow_rec) == 320, "ss_flow_rec is five cache lines");

struct ss_flownet {
    ss_engine *eng;
    ss_flow_link *links;   /* by slot: see link_slot in flow.c; routes hold slots */
    uint32_t *link_of;     /* per link id: its slot, SS_FLOW_NONE until a route names it */
    double *cap_bps;       /* per link id: capacity */
    uint32_t n_used;       /* slots given out */
    double *lbytes;        /* per link slot: payload bytes settled so far (flows add theirs
                            * when their rate changes and when they leave) */
    uint64_t *fmark;       /* per flow slot: 2 * epoch once in that epoch's re-solve,
                            * 2 * epoch + 1 once frozen in it */
    uint32_t *hpos;        /* per flow slot: its index in the completion heap, SS_FLOW_NONE
                            * if absent (dense, so that sifting writes no records) */
    size_t n_links;
    ss_flow_rec *pool;
    uint32_t n_slots, free_head;
    uint64_t seq;          /* flow ids: seq << 32 | slot */
    size_t active, peak_active;
    /* completion heap, ordered by (finish_s, id) */
    ss_flow_due *ch;
    size_t ch_n, ch_cap;
    ss_event_id ev;        /* engine event for the heap's minimum */
    double ev_t;
    /* re-solve scratch */
    uint64_t epoch;
    double fixed_below;    /* this re-solve's threshold: 0 < rate < fixed_below is fixed */
    ss_vec32 comp_links, comp_flows, shared, seeds, batch;
    double *cand_key;      /* filling candidates: saturation level */
    uint32_t *cand_idx;    /* link id, or CAND_FLOW | flow slot for a cap (flow_solve.c) */
    size_t cand_n, cand_cap;
    uint32_t *pick;        /* re-solve scratch: the unfixed flows of one link */
    size_t pick_cap;
    uint32_t *dirty_pick;  /* propagation: the flows that a link turning dirty touches
                            * (flow_prop.c, make_dirty) */
    size_t dirty_pick_cap;
    int heap_mode;         /* see flow_solve.c */
    size_t fill_scan_max;  /* more filling candidates than this: a heap, not a scan */
    int propagate;         /* try ss_flow_propagate first (the default) */
    ss_vec32 slack_links;  /* propagation: links with slack that it left out */
    uint8_t *lstate;       /* per link slot: 0, or dirty or noted in the propagation
                            * under way (flow_prop.c: what stamp and mark say, in a
                            * byte a link, so that it stays in cache) */
    ss_flow_ev *ev_heap;   /* propagation: event heap (flow_prop.c) */
    size_t ev_n, ev_cap;
    size_t prop_unfrozen;  /* propagation: touched flows not frozen yet */
    double prop_level;     /* propagation: the filling's level */
    uint32_t cand_min;     /* propagation: where the least key is, SS_FLOW_NONE if unknown */
    int prop_abort;        /* propagation: too large, give up (flow_prop.c) */
    /* weights: while wflows > 0, re-solves are by search and fill with weights
     * (flow_solve.c) */
    size_t wflows;         /* weighted flows (w != NULL) in the sharing */
    double *wsum;          /* per link slot, 2 doubles: the weight of its unfrozen
                            * entries, as an unevaluated sum hi + lo (allocated with the
                            * first weighted flow) */
    double *shared_w;      /* parallel to shared: the weight of that entry */
    size_t shared_w_cap;
    ss_flownet_stats st;
    int hold_joins;        /* joins wait for ss_flownet_release_joins (flow.c) */
    ss_vec32 held;         /* the flows that joined meanwhile */
};

/* Weight of the k-th link of f's route. */
static inline double ss_flow_w(const ss_flow_rec *f, uint32_t k)
{
    return f->w ? f->w[k] : 1.0;
}

/* Re-solve after a change on the links in seeds: every flow whose rate is
 * at least lambda_bps (less a tiny margin) and that is reachable from seeds
 * through such flows gets its max-min rate in new_rate_bps; they are listed
 * in comp_flows.  Flows below lambda_bps keep their rates.  Exact
 * when lambda_bps is at most the level where the new filling departs from
 * the old one.  new_flow (SS_FLOW_NONE if none) has just joined and is
 * always re-solved. */
void ss_flow_solve(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                   uint32_t new_flow);
/* The same re-solve by propagation (flow_prop.c): 1 if it could vouch for
 * its rates (in comp_flows), 0 if ss_flow_solve must redo it. */
int ss_flow_propagate(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                      uint32_t new_flow);
/* A lower bound of the rate that f, which has just joined its links, will
 * get: the lambda_bps of its join. */
double ss_flow_join_level(const ss_flownet *net, const ss_flow_rec *f);
/* flow.c, for flow_change.c: re-solve after a change on seeds (flow: a flow
 * whose cap changed, re-filled from level 0 like a new one, or
 * SS_FLOW_NONE), move the flows whose rate changed and re-arm the
 * completion event. */
void ss_flow_resolve_now(ss_flownet *net, const uint32_t *seeds, size_t n_seeds, double lambda_bps,
                         uint32_t flow);
/* flow.c, for flow_change.c: an active flow on an empty route moves at
 * rate_bps from now (INFINITY: its bytes are all sent now); then
 * ss_flow_arm puts the earliest completion on the engine. */
void ss_flow_rerate_alone(ss_flownet *net, uint32_t s, double rate_bps);
void ss_flow_arm(ss_flownet *net);

/* The record of id, NULL if it is not in flight. */
static inline ss_flow_rec *ss_flow_lookup(const ss_flownet *net, ss_flow_id id)
{
    uint32_t s = (uint32_t)(id & 0xffffffffu);
    if (id == 0 || s >= net->n_slots) return NULL;
    ss_flow_rec *f = &net->pool[s];
    return f->id == id && f->phase != SS_PH_FREE ? f : NULL;
}

/* The least of key[0..n-1], n >= 1 (flow_solve.c, flow_prop.c).  Four independent lanes, so the loop
 * is not one long chain of dependent compares. */
static inline double ss_flow_least_key(const double *key, size_t n)
{
    double m0 = key[0], m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        m0 = key[i] < m0 ? key[i] : m0;
        m1 = key[i + 1] < m1 ? key[i + 1] : m1;
        m2 = key[i + 2] < m2 ? key[i + 2] : m2;
        m3 = key[i + 3] < m3 ? key[i + 3] : m3;
    }
    for (; i < n; i++) m0 = key[i] < m0 ? key[i] : m0;
    m0 = m1 < m0 ? m1 : m0;
    m2 = m3 < m2 ? m3 : m2;
    return m2 < m0 ? m2 : m0;
}

#endif
