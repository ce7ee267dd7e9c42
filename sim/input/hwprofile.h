/* hwprofile.h: profile files of real runs (docs/profiles.md): the machine a
 * measurement ran on, samples of what was measured (compute latency of a
 * model, block or layer per device, batch and threads; a transport hop's
 * cost per message size; memcpy time per size; memory readings; cold-start
 * stage durations; a serving process's resident memory by stage) and end-to-end results of whole runs with their
 * conditions.  Read through the positioned cfg reader, so every error is
 * "file:line:col: what was expected".
 *
 * A file writes every time in one unit (_s, _ms or _us); the reader checks
 * that and converts to seconds here, at the edge.  Samples feed
 * `servesim calibrate`; runs are kept for validation and never fitted. */
#ifndef SS_HWPROFILE_H
#define SS_HWPROFILE_H

#include <stddef.h>

#include "core/util.h"

#define SS_HWP_VERSION 1

typedef enum ss_hwp_kind {
    SS_HWP_COMPUTE,
    SS_HWP_TRANSPORT,
    SS_HWP_MEMCPY,
    SS_HWP_MEMORY,
    SS_HWP_COLDSTART,
    SS_HWP_STACKING, /* the scheduler's wake-up stacking (runnable, cores, work_s; times_s the stretches) */
    SS_HWP_SPEED,    /* the host's speed (model, device, threads, phase; times_s the chain's latencies) */
    SS_HWP_WAKE,     /* a hop after an idle gap (transport, gap_s, idle_s; times_s the hops' latencies) */
    SS_HWP_CORUN,    /* CPU interference (what, device, cores, runnable; times_s each forward's CPU time) */
    SS_HWP_TRANSFER, /* one sender to k receivers over TCP (mode, receivers, bytes, use; times_s each receiver's
                      * last byte from the sender's start, first_s its first: tools/probe/transfer.py) */
    SS_HWP_MEMSHARE, /* concurrent memory copies (bytes, streams, cores; times_s every copy's latency:
                      * tools/probe/memshare.py) */
    SS_HWP_RESIDENT  /* a process's resident memory at a stage (import, loaded, forward) of serving a model
                      * (model, device, threads, weights_bytes, batch, activation_bytes; rss_bytes and
                      * peak_bytes one reading per process: tools/probe/memory.py) */
} ss_hwp_kind;

/* What a compute sample measured: a whole model, one block, one layer. */
typedef enum ss_hwp_piece { SS_HWP_WHOLE, SS_HWP_BLOCK, SS_HWP_LAYER } ss_hwp_piece;

typedef struct ss_hwp_sample {
    ss_hwp_kind kind;
    int line, col;            /* the sample's object, for provenance and messages */
    char *model;              /* compute, coldstart */
    ss_hwp_piece piece_kind;  /* compute; coldstart (whole or layer) */
    char *piece;              /* compute: block or layer name; coldstart: the layer; NULL for the whole model */
    char *device;             /* compute, memory; memcpy: optional */
    char *transport;          /* transport */
    char *what;               /* memory; corun: the block */
    char *path;               /* memcpy: the copy's path (h2d-pinned, h2d-pageable, d2h-*, d2d, d2d-peer: the
                               * probe's GPU part, item 7); NULL for a host memcpy */
    char *stage;              /* coldstart: load, init or transfer */
    unsigned batch, threads;  /* compute (>= 1) */
    unsigned runnable, cores; /* stacking: threads taking turns on the cores (1 <= runnable <= cores);
                               * corun: block processes computing at once (1 <= runnable <= 2 cores);
                               * memshare: copies at once, one per core (1 <= runnable <= cores) */
    double work_s;            /* stacking, optional: the CPU time of one burn; NAN if absent */
    int phase;                /* speed: 0 checked beside the micro-benchmarks, 1 beside the end-to-end runs */
    char *run;                /* speed, phase e2e, optional: the id of the run the check stood beside; NULL if absent */
    int at;                   /* speed with run: 0 before the run, 1 after it; -1 absent */
    double gap_s;             /* wake: the idle gap the sender slept before each message (>= 0) */
    double *idle_s;           /* wake: per message (in the order of times_s), how long the receiving process had
                               * been idle when the message was sent, s (>= 0) */
    size_t nidle;
    double *delivery_s;       /* stacking, optional: the token's delivery (its send to its receive, s) before
                               * burns where the probe knew it, NULL if absent (the run queues' ring) */
    size_t ndelivery;
    double bytes;             /* transport, memcpy, memory (integer >= 0) */
    double in_bytes, out_bytes; /* compute, optional: tensor bytes in and out at this batch; -1 absent */
    double *times_s;          /* latency (compute, transport, memcpy) or duration (coldstart), seconds, each > 0;
                               * stacking: the stretches, wall - CPU time per burn (any finite number) */
    size_t ntimes;
    /* A summary of a published table (docs/profiles.md, "Summaries"): the
     * time field is {mean, sd, n, dist} instead of observations; times_s then
     * holds the one mean (ntimes 1). */
    int summary;              /* 1: a summary; 0: raw observations */
    double sd_s;              /* summary: its standard deviation, s; NAN if not given */
    unsigned n_obs;           /* summary: the observations it summarises; 0 if not given */
    int dist;                 /* summary: the family its moments are matched to: 0 normal, 1 lognormal
                               * (the default), 2 gamma (the order of core/fit.h's families) */
    int decimals;             /* summary: the most decimals of its mean or sd as written, in the file's
                               * unit (derived sums are rounded to them); -1 for an exponent */
    char *source;             /* the citation (a table or figure); required for a summary, NULL if absent */
    /* transport: which part of the hop model the time is (docs/profiles.md) */
    int term;                 /* 0 hop (send until received; the default), 1 rtt (a round trip of `bytes`
                               * one way and a small reply), 2 block (main-thread work at a block's two ends) */
    unsigned blocks;          /* transport: the blocks the time and bytes are summed over (>= 1; 1 if absent) */
    char *law;                /* transport: the name of the law the sample is pooled into (NULL: the transport's) */
    /* transport, optional: the same messages' time inside the sender's send call and the
     * receiver's decode (observations, seconds, in the order of times_s; NULL and 0 if absent
     * or a summary) */
    double *sender_s, *receiver_s;
    size_t nsender, nreceiver;
    /* compute, transport, optional: how the observations were timed (tools/probe/micro.py):
     * 0 not said, 1 warm (a configuration's calls back to back), 2 pipeline (interleaved
     * with the rest of the request's chain); calibrate never pools two modes in one fit */
    int micro_mode;
    /* transfer: by a relay chain (1) or k unicast streams (0); receivers k (>= 1, times_s and
     * first_s have k entries, a chain's in hop order); chunk_bytes the relays' chunk (0 unicast);
     * use: 0 fitted by calibrate, 1 kept for validate (never fitted) */
    int xfer_chain, xfer_use;
    unsigned receivers;
    double chunk_bytes;
    double *first_s;
    size_t nfirst;
    /* resident: stage 0 import (the framework alone), 1 loaded (the model built), 2 forward (after
     * one forward pass at `batch`); weights_bytes the model's parameters and buffers (loaded, forward),
     * activation_bytes the most bytes its operators held at once in the forward (the profiler's),
     * input_bytes the input tensor's (forward; 0 if absent); per process (nrss of each) the resident
     * set (VmRSS) and its high-water mark (VmHWM), bytes */
    int rstage;
    char *allocator;          /* resident, optional: the process's allocator (NULL: not said) */
    double weights_bytes, activation_bytes, input_bytes;
    double *rss_bytes, *peak_bytes;
    size_t nrss;
} ss_hwp_sample;

/* One end-to-end run: its conditions and what it measured (times in s). */
typedef struct ss_hwp_run {
    char *id;
    int line, col;
    char *model, *transport, *arrival, *placement; /* transport, placement: NULL if absent */
    double rate_per_s;       /* poisson: > 0; else 0 */
    unsigned clients;        /* closed: >= 1; else 0 */
    unsigned batch;          /* >= 1 (1 if absent) */
    double duration_s, warmup_s;
    double background_cores; /* cores busy with other work during the run (>= 0); NAN if not given */
    double *arrivals_s;      /* poisson, optional: the send instants from the run's start, in order; NULL if absent */
    size_t narrivals;
    double requests, throughput_per_s;
    double latency_mean_s, latency_p50_s, latency_p99_s;
} ss_hwp_run;

typedef struct ss_hwprofile {
    char *path;               /* as given */
    char *source;
    char *machine, *cpu_model, *os, *date, *notes; /* notes: NULL if absent */
    unsigned cores;
    double memory_bytes;
    char **lib_names, **lib_versions;
    size_t nlibs;
    /* environment.kernel (optional, tools/probe/kernel.py): the kernel's release and its fair
     * scheduler's constants, NAN where the probe could not read one (run queues, calibrate_runq.c) */
    char *kernel_release;     /* NULL: no kernel block */
    double kernel_slice_s, kernel_tick_s, kernel_migration_cost_s;
    const char *time_unit;    /* "s", "ms" or "us": the one the file writes (static) */
    ss_hwp_sample *samples;
    size_t nsamples;
    ss_hwp_run *runs;
    size_t nruns;
} ss_hwprofile;

/* Read and validate the profile at `path` (JSON).  0 ok; -1 with err set:
 * not JSON, a missing or unknown key, a version other than 1, a time that is
 * not > 0 and finite, bytes that are not integers >= 0, batch, threads or
 * cores < 1, an unknown kind (the message lists the kinds), two time units
 * in one file (at the second unit's first use, naming the first's line), no
 * sample and no run; a summary without mean or source, a negative sd, n < 1. */
int ss_hwprofile_load(const char *path, ss_hwprofile *p, ss_err *err);
void ss_hwprofile_free(ss_hwprofile *p);

/* "compute", "transport", ... */
const char *ss_hwp_kind_name(ss_hwp_kind k);

/* "warm" or "pipeline" for ss_hwp_sample.micro_mode 1 or 2; NULL for 0 (not said). */
const char *ss_hwp_micro_mode_name(int mode);

#endif
