/* xfer_law.h: a machine's law for moving a model's bytes over TCP, as the
 * transfer probe measures it (tools/probe/transfer.py, docs/transfers.md):
 * what one connection costs before its bytes flow, one stream's most rate,
 * what the machine delivers over all its streams together, what a relay
 * (a chain's receiver that forwards while it receives) costs, and how far
 * behind its upstream neighbour each chain hop finishes.
 *
 * The law is the flow model's: streams and chains are flows (core/flow.h)
 * on one link that stands for the machine's shared transfer capacity; a
 * stream loads it with its rate, a relayed hop with relay_weight times its
 * rate; every flow is capped at stream_bps, a chain of two or more
 * receivers also at relay_bps.  Connections are set up one after another,
 * setup_s each: the sender's i-th stream starts at i setup_s.  A chain's
 * bytes flow once its first hop is up (setup_s): the relays connect onwards
 * in a row too (receiver i's first byte comes about i setup_s after the
 * start), but the bytes wait in their sockets meanwhile.
 * Receiver i of a chain finishes (i-1) hop_lag_bytes behind receiver 1, at
 * the chain's rate.  `servesim calibrate` fits it from
 * kind "transfer" samples (calib/calibrate_transfer.c); ss_xfer_predict
 * runs it for one experiment, as `servesim validate` does. */
#ifndef SS_XFER_LAW_H
#define SS_XFER_LAW_H

#include <stddef.h>

#include "core/cfg.h"

typedef struct ss_xfer_law {
    double setup_s;       /* per connection, set up one after another (>= 0) */
    double stream_bps;    /* one stream's most rate, payload bits/s (> 0) */
    double shared_bps;    /* the machine's streams together, payload bits/s (> 0) */
    double relay_bps;     /* one relay's receive-and-forward rate, payload bits/s (> 0) */
    double relay_weight;  /* a relayed byte's load on shared_bps, per streamed byte's (> 0) */
    double hop_lag_bytes; /* bytes a relay holds before the next hop has them (>= 0) */
} ss_xfer_law;

/* Read a law from a map with the six keys (what: for messages).  0, or -1
 * with a positioned error: a missing or unknown key, a value out of range. */
int ss_xfer_law_read(const ss_node *map, ss_xfer_law *law, ss_err *err);

/* One experiment on one machine under the law: a sender to k >= 1
 * receivers of `bytes` each, by k unicast streams (chain 0) or one relay
 * chain (chain 1).  done_s[0..k-1] gets each receiver's last byte, seconds
 * from the sender's start (a chain's in hop order). */
void ss_xfer_predict(const ss_xfer_law *law, int chain, size_t k, double bytes, double *done_s);

/* An experiment's time from its receivers' last bytes done_s[0..k-1]: a
 * fan-out's is its last receiver's, a chain's its last hop's (what the probe
 * reports, calibrate fits and validate judges). */
double ss_xfer_time_s(int chain, size_t k, const double *done_s);
/* ss_xfer_predict's time for one experiment (ss_xfer_time_s of its receivers). */
double ss_xfer_predict_time_s(const ss_xfer_law *law, int chain, size_t k, double bytes);

#endif
