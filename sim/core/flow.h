/* flow.h: a flow-level network model.  Transfers share directed links by
 * max-min fairness (progressive filling), re-solved whenever a flow starts
 * or ends, or a capacity or a cap changes, on the engine's clock.
 *
 * The model knows no topology.  A network is n directed links, numbered
 * 0..n-1, each with a capacity in bits per second.  A route is an array of
 * link ids that the caller builds (sim/topo does that for spine-leaf
 * fabrics; a full-duplex cable is two links, one per direction).
 *
 * The links may stand for any capacity that flows share: a CPU's cores, a
 * container's quota, a disk's bandwidth.  Rates and capacities are then in
 * the caller's units per second, and a flow of b bytes is 8 b units of
 * work (rate / 8 bytes a second, as for bits).
 *
 * Rates.  Every flow that carries bytes gets the same rate on every link of
 * its route (a weighted flow loads each link with its weight times that
 * rate: ss_flow_start_weighted).  The allocation is the max-min fair one:
 * raise all rates together, freeze a flow when one of its links is full or
 * when it reaches its own cap (opts.cap_bps), and go on with the rest.
 * This is the "lmm" model that SimGrid validated against packet-level TCP
 * (Velho et al., ACM TOMACS 2013).  A route that names one link twice
 * loads that link twice: the flow's rate counts two times in the link's
 * sum (as a weight of 2 would).  Chained multicast relies on this.  The
 * model is a fluid one.  TCP slow start and loss are not modelled, except
 * through setup_s.  The goodput factor stands for header overhead.
 *
 * Time line of a flow:
 *   start --setup_s--> active: bytes flow at rate * goodput
 *         --last byte--> + latency_s --> done callback
 * When a flow becomes active or stops carrying bytes, only flows that share
 * links with it, transitively (its connected component), are re-solved.
 * Within the component, flows whose rate lies below the level where the
 * change first matters keep their rate without being visited (see flow.c).
 * A flow whose rate does not change keeps its completion time exactly.
 * A capacity or cap changed in flight (ss_flownet_set_capacity,
 * ss_flow_set_cap) re-solves the link's or the flow's component the same
 * way, from level 0, exactly (flow_change.c).
 *
 * Exactness.  Remaining bytes are kept lazily: remaining at t_last, and the
 * rate since then.  A flow whose remaining bytes fall below a relative
 * 1e-12 of its size is finished.  Completions within a relative 1e-14 of
 * the same instant form one batch.  They leave the links together, there is
 * one re-solve, and those of their callbacks that fall due at the same time
 * fire in flow-id order (= start order).  Nothing depends on pointers or
 * hash order, so runs repeat bit for bit.  Done callbacks always run from
 * an engine event, never from inside ss_flow_start or ss_flow_cancel.
 *
 * Events.  The network keeps its completions in a heap of its own and puts
 * only the earliest on the engine: one pending engine event in all, plus
 * one per flow in set-up or waiting for latency.
 *
 * Memory follows the flows in flight.  Flow records and their route arrays
 * come from a pool and go back to it at completion or cancellation.  The
 * per-link lists of flows grow to the most flows a link has ever carried at
 * once.
 *
 * Misuse (a link id out of range, negative or NaN sizes or times, goodput
 * outside [0,1], a capacity or weight that is not positive and finite)
 * trips an assert. */
#ifndef SS_FLOW_H
#define SS_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"

typedef struct ss_flownet ss_flownet;

/* Opaque, nonzero, increasing in start order; 0 means "no flow".  A
 * finished or cancelled flow's id is never reused. */
typedef uint64_t ss_flow_id;

/* A network of n_links directed links.  capacity_bps[l] > 0 and finite; the
 * array is copied.  The network schedules its events on eng and must be
 * freed before eng. */
ss_flownet *ss_flownet_new(ss_engine *eng, size_t n_links, const double *capacity_bps);
/* Drops every flow in flight without calling back, and cancels its events. */
void ss_flownet_free(ss_flownet *net);
size_t ss_flownet_links(const ss_flownet *net);
/* For tests, so that every way of re-solving gets exercised: fill from a
 * heap once a re-solve has more than fill_scan_max candidates (0: the
 * default), and re-solve by propagation first (propagate = 1, the default)
 * or always by search and fill (0). */
void ss_flownet_tune(ss_flownet *net, size_t fill_scan_max, int propagate);

typedef struct ss_flow_opts {
    double cap_bps;   /* per-flow rate cap, 0 = none (e.g. the per-connection cap of
                       * object storage).  It caps the wire rate, before goodput. */
    double goodput;   /* fraction of the allocated rate that carries payload, in (0,1];
                       * 0 means 1 */
    double latency_s; /* propagation latency after the last byte (the caller sums it
                       * over the route) */
    double setup_s;   /* connection set-up before bytes flow (TCP handshake, TTFB) */
    double hop_lag_bytes; /* chains only: the bytes each relay holds (its chunk and socket
                           * buffers) before the next hop has them; receiver i gets the last
                           * byte (i-1) * hop_lag_bytes / (payload rate at the end) after
                           * receiver 1 (0 = none; ss_flow_chain_start) */
} ss_flow_opts;

/* Called once when the last byte of flow id has arrived (latency included);
 * now_s = ss_now(eng).  The callback may start and cancel flows. */
typedef void (*ss_flow_done)(ss_engine *eng, void *ctx, ss_flow_id id, double now_s);

/* Start a transfer of `bytes` payload bytes over route links[0..n_links-1]
 * (copied).  opts may be NULL (all zero).  done may be NULL.
 *
 * The last byte arrives at setup_s + (time to carry bytes at the allocated
 * rates) and done runs latency_s later.  With setup_s == 0 the flow joins
 * the sharing at once, so ss_flow_rate_bps answers right after this call.
 * A zero-byte flow never joins the sharing: done runs at
 * now + setup_s + latency_s.  So does a flow on an empty route (same host),
 * which moves at infinite rate, unless opts.cap_bps is set: then it moves
 * at cap_bps * goodput. */
ss_flow_id ss_flow_start(ss_flownet *net, const uint32_t *links, size_t n_links, double bytes,
                         const ss_flow_opts *opts, ss_flow_done done, void *ctx);

/* Joins held: flows that start carrying bytes between ss_flownet_hold_joins
 * and ss_flownet_release_joins (at one instant: neither lets the engine
 * run) join their links at once and are re-solved together, once, at the
 * release, instead of once each.  n flows starting together then cost one
 * re-solve of their component (search and fill from level 0, flow_solve.c)
 * instead of n.  The rates are the same max-min rates; computed by another
 * path, they may differ from one-by-one joins' in the last bits.  Not
 * nested.  Flows in set-up become active later, one by one, as ever. */
void ss_flownet_hold_joins(ss_flownet *net);
void ss_flownet_release_joins(ss_flownet *net);

/* Per-link consumption weights (the lmm model's): the flow loads links[k]
 * with weights[k] times its rate, so that one flow can stand for work that
 * uses several resources at once (a job whose progress rate r takes r*c
 * cores of a CPU link and r*b bytes/s of a disk link).  weights NULL, or
 * all 1, is ss_flow_start.  Each weight > 0 and finite; a link named twice
 * counts both weights.  The flow's own rate r (ss_flow_rate_bps) carries
 * its bytes and is what opts.cap_bps caps; links hold the weighted sums:
 * sum of w r <= capacity, ss_link_utilisation is that sum over the
 * capacity, ss_link_bytes counts w times the payload bytes.  Max-min with
 * weights: all rates rise together and a link saturates at
 * (capacity left) / (sum of the weights of its unfrozen flows), so a flow
 * alone on a link is capped at capacity / w.
 * While a weighted flow is in the sharing, every re-solve of the network
 * is by search and fill (flow_solve.c), not by propagation: exact, but it
 * visits all of a change's component above the fixed level, about three
 * times the flows on a large loaded fabric.  Give compute resources a
 * network of their own if that matters. */
ss_flow_id ss_flow_start_weighted(ss_flownet *net, const uint32_t *links, const double *weights,
                                  size_t n_links, double bytes, const ss_flow_opts *opts,
                                  ss_flow_done done, void *ctx);

/* Chained multicast (TCP chaining, as in Flashpoint).  The source r_0 sends
 * to receivers r_1..r_n.  hops[i-1] is the route r_{i-1} -> r_i, and
 * hops[i-1].latency_s is its propagation latency.  Each receiver forwards
 * while it receives, so the chain is one flow that occupies the links of
 * every hop at one common rate.  That rate is set by its slowest share.  A
 * link that two hops both use counts the rate twice.
 *
 * Let T be the instant the chain's last byte leaves the source side, that
 * is setup_s (the first hop's TTFB) plus the transfer, and r the chain's
 * payload rate (bytes/s) just before T.  Receiver i (1-based) is done at
 *     T + (i-1) * (ttfb_per_hop_s + opts.hop_lag_bytes / r)
 *       + (hops[0].latency_s + ... + hops[i-1].latency_s) + opts.latency_s,
 * where opts.latency_s is a constant added for every receiver (0 for none).
 * A hop's weight (0 = 1) loads every link of that hop with weight times the
 * chain's rate (ss_flow_start_weighted's meaning): a relay whose forwarding
 * costs a shared resource more per byte than a plain stream does
 * (core/xfer_law.h).
 * done runs once per receiver, in receiver order, with receiver = i.
 * ss_flow_cancel stops the chain, including receivers not yet notified.
 *
 * Unicast fan-out, for comparison, is one ss_flow_start per receiver from
 * the source (ss_flow_fanout_start below). */
typedef struct ss_chain_hop {
    const uint32_t *links; /* route from the previous node to this receiver */
    size_t n_links;
    double latency_s;      /* propagation latency of this hop */
    double weight;         /* chains: the load per unit of rate on this hop's links, > 0;
                            * 0 means 1 (fan-out ignores it) */
} ss_chain_hop;

typedef void (*ss_chain_done)(ss_engine *eng, void *ctx, ss_flow_id id, size_t receiver,
                              double now_s);

ss_flow_id ss_flow_chain_start(ss_flownet *net, const ss_chain_hop *hops, size_t n_hops,
                               double bytes, const ss_flow_opts *opts, double ttfb_per_hop_s,
                               ss_chain_done done, void *ctx);

/* Unicast fan-out: n independent flows from the source.  routes[i] is the
 * whole route source -> receiver i+1, and routes[i].latency_s is that
 * route's latency (added to opts.latency_s).  ids_out[i] gets each flow's
 * id (may be NULL).  done gets receiver = i+1 and that flow's id. */
void ss_flow_fanout_start(ss_flownet *net, const ss_chain_hop *routes, size_t n, double bytes,
                          const ss_flow_opts *opts, ss_chain_done done, void *ctx,
                          ss_flow_id *ids_out);

/* Stop a flow in any phase, with no callback.  1 if it was in flight, 0 if
 * it had finished, had been cancelled, or id is 0. */
int ss_flow_cancel(ss_flownet *net, ss_flow_id id);

/* Changes in flight.  Each takes effect at ss_now: the running flows are
 * settled (bytes carried so far at their old rates), their max-min rates
 * are re-solved exactly, as for a start or an end, and their completions
 * move.  A flow whose rate does not change keeps its completion time bit
 * for bit; done callbacks run later, from engine events, never from here.
 * Setting the value in place does nothing.
 *
 * The capacity of a link: capacity_bps > 0 and finite.  ss_link_utilisation
 * is then relative to the new capacity; ss_link_bytes keeps what was
 * carried. */
void ss_flownet_set_capacity(ss_flownet *net, uint32_t link, double capacity_bps);
/* The cap of a flow (as opts.cap_bps: 0 = none, else > 0 and finite).  1 if
 * the flow was in flight, 0 if it had finished, had been cancelled, or id
 * is 0.  A flow in set-up only records it and takes it when bytes flow; so
 * does one delivering, which carries no more bytes.  On an empty route
 * (same host) a running flow moves at its new cap, or sends what is left at
 * once if the cap is 0. */
int ss_flow_set_cap(ss_flownet *net, ss_flow_id id, double cap_bps);

typedef enum ss_flow_phase {
    SS_FLOW_GONE = 0,   /* finished, cancelled, or never existed */
    SS_FLOW_SETUP,      /* waiting for setup_s */
    SS_FLOW_ACTIVE,     /* carrying bytes */
    SS_FLOW_DELIVERING  /* bytes sent; waiting for latency (or chain receivers) */
} ss_flow_phase;

ss_flow_phase ss_flow_phase_of(const ss_flownet *net, ss_flow_id id);
/* Current allocated (wire) rate; 0 unless ACTIVE. */
double ss_flow_rate_bps(const ss_flownet *net, ss_flow_id id);
/* Payload bytes still to send at ss_now: bytes during SETUP, 0 once
 * DELIVERING or GONE. */
double ss_flow_remaining_bytes(const ss_flownet *net, ss_flow_id id);

/* Allocated rate on link / its capacity, now (a flow crossing it twice
 * counts twice). */
double ss_link_utilisation(const ss_flownet *net, uint32_t link);
/* Payload bytes carried over link so far, up to ss_now (a flow crossing it
 * twice counts twice). */
double ss_link_bytes(const ss_flownet *net, uint32_t link);
/* Flows in the sharing on link now (with multiplicity). */
size_t ss_link_flows(const ss_flownet *net, uint32_t link);

/* Flows in flight: started, not yet done (last receiver notified) or
 * cancelled, in any phase. */
size_t ss_flownet_active(const ss_flownet *net);
size_t ss_flownet_peak_active(const ss_flownet *net);

/* Instrumentation counters since ss_flownet_new. */
typedef struct ss_flownet_stats {
    uint64_t started;       /* ss_flow_start / chain / fan-out flows */
    uint64_t completed;     /* flows whose last receiver was notified */
    uint64_t cancelled;
    uint64_t resolves;      /* re-solves (one per join, per batch of completions, per
                             * cancel of an active flow, per capacity or cap change
                             * that moves the sharing) */
    uint64_t flows_touched; /* flows re-filled, summed over re-solves */
    uint64_t links_touched; /* links visited, summed: a link that carries one flow is
                             * that flow's cap and is visited only where the change is */
    uint64_t rate_changes;  /* flows whose rate (and so completion time) moved */
    uint64_t slack_retries; /* propagations redone, as a link they left out for its slack
                             * would be full (flow.c) */
    uint64_t prop_fallbacks; /* re-solves that propagation left to search and fill */
    uint64_t heap_fills;    /* re-solves large enough to fill from a heap (flow_solve.c) */
    uint64_t slots;         /* flow records allocated: grows with the most flows in
                             * flight, never with the flows finished */
} ss_flownet_stats;

ss_flownet_stats ss_flownet_stats_of(const ss_flownet *net);

#endif
