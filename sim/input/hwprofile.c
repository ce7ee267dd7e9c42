/* hwprofile.c: read and validate a profile file of real runs (hwprofile.h,
 * format in docs/profiles.md). */
#include "input/hwprofile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cfg.h"

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

static const char *const kind_names[] = {"compute", "transport", "memcpy", "memory",   "coldstart",
                                         "stacking", "speed",    "wake",   "corun",    "transfer", "memshare", "resident",
                                         NULL};
static const char *const stage_names[] = {"load", "init", "transfer", NULL};
static const char *const arrival_names[] = {"poisson", "closed", NULL};

const char *ss_hwp_kind_name(ss_hwp_kind k)
{
    return k <= SS_HWP_RESIDENT ? kind_names[k] : "?";
}

static const char *const top_keys[] = {"servesim_profile", "source", "environment", "samples", "runs", NULL};
static const char *const env_keys[] = {"machine", "cpu_model", "cores", "memory_bytes", "os",
                                       "libraries", "date", "notes", "kernel", NULL};
static const char *const kernel_keys[] = {"release", "slice_s", "tick_s", "migration_cost_s", NULL};
/* Per kind; a time field may be written in any one unit (the file's). */
static const char *const compute_keys[] = {"kind", "model", "block", "layer", "device", "batch", "threads",
                                           "in_bytes", "out_bytes", "latency_s", "latency_ms", "latency_us",
                                           "micro_mode", "notes", "source", NULL};
static const char *const transport_keys[] = {"kind", "transport", "bytes", "latency_s", "latency_ms", "latency_us",
                                             "sender_s", "sender_ms", "sender_us", "receiver_s", "receiver_ms",
                                             "receiver_us", "term", "blocks", "law", "micro_mode", "notes", "source",
                                             NULL};
static const char *const term_names[] = {"hop", "rtt", "block", NULL};
/* How a compute or transport sample was timed (tools/probe/micro.py): index + 1 is
 * ss_hwp_sample.micro_mode (0: not said). */
static const char *const micro_mode_names[] = {"warm", "pipeline", NULL};
static const char *const memcpy_keys[] = {"kind",       "bytes", "latency_s", "latency_ms", "latency_us",
                                        "path",       "device", "notes",    "source",     NULL};
static const char *const memory_keys[] = {"kind", "what", "device", "bytes", "notes", "source", NULL};
static const char *const coldstart_keys[] = {"kind", "model", "layer", "stage", "duration_s", "duration_ms",
                                             "duration_us", "notes", "source", NULL};
/* The scheduler's wake-up stacking (tools/probe/stacking.py): per burn of CPU
 * work, wall minus CPU time (two clocks: a few microseconds below 0 happen),
 * with `runnable` threads taking turns on `cores`. */
static const char *const stacking_keys[] = {"kind",        "runnable",    "cores",      "work_s",     "work_ms",
                                            "work_us",     "stretch_s",   "stretch_ms", "stretch_us", "delivery_s",
                                            "delivery_ms", "delivery_us", "notes",      "source",     NULL};
/* The host's speed (tools/probe/speed.py): one model's chain at batch 1, timed
 * beside the micro-benchmarks (phase micro) and beside the end-to-end runs
 * (phase e2e), every request's latency; an e2e check may name the run it was
 * beside (`run`, the run's id) and when (`at`: before or after it). */
static const char *const speed_keys[] = {"kind",       "model",      "device", "threads", "phase", "latency_s",
                                         "latency_ms", "latency_us", "run",    "at",      "notes", "source", NULL};
static const char *const phase_names[] = {"micro", "e2e", NULL};
static const char *const at_names[] = {"before", "after", NULL};
/* A hop after an idle gap (tools/probe/wake.py): the sender slept gap_<unit>, then
 * computed the producing piece and sent; per message the receiving process's idle
 * time when it was sent and the hop's latency (send until decoded). */
static const char *const wake_keys[] = {"kind",    "transport", "gap_s",      "gap_ms",     "gap_us",     "idle_s",
                                        "idle_ms", "idle_us",   "latency_s",  "latency_ms", "latency_us", "micro_mode",
                                        "notes",   "source",    NULL};
/* CPU interference (tools/probe/corun.py): one block's forward, the CPU time of
 * each, with `runnable` block processes computing at once on `cores` (1: alone;
 * cores: one per core; 2 x cores: two per core, time-sliced). */
static const char *const corun_keys[] = {"kind",     "what",   "device",  "cores",  "runnable",
                                         "cpu_s",    "cpu_ms", "cpu_us",  "notes",  "source", NULL};
/* One sender to k receivers over TCP (tools/probe/transfer.py): by k unicast streams or a
 * relay chain; per receiver its last byte and its first, from the sender's start. */
static const char *const transfer_keys[] = {"kind",    "mode",     "receivers", "bytes",    "chunk_bytes",
                                            "rep",     "use",      "done_s",    "done_ms",  "done_us",
                                            "first_s", "first_ms", "first_us",  "notes",    "source", NULL};
/* Concurrent memory copies (tools/probe/memshare.py): `streams` processes on `cores`
 * cores each copying `bytes` over and over, together; every copy's latency. */
static const char *const memshare_keys[] = {"kind",       "bytes",      "streams", "cores",  "latency_s",
                                            "latency_ms", "latency_us", "notes",   "source", NULL};
/* A process's resident memory (tools/probe/memory.py): at a stage of serving a model, one
 * reading per process of its resident set and its high-water mark. */
static const char *const resident_keys[] = {"kind",         "model",           "device",      "stage",
                                            "threads",      "weights_bytes",   "batch",       "input_bytes",
                                            "activation_bytes", "rss_bytes",   "peak_bytes",  "allocator",
                                            "notes",        "source",          NULL};
static const char *const resident_stages[] = {"import", "loaded", "forward", NULL};
static const char *const xfer_modes[] = {"unicast", "chain", NULL};
static const char *const xfer_uses[] = {"fit", "validate", NULL};
static const char *const *const sample_keys[] = {compute_keys,   transport_keys, memcpy_keys, memory_keys,
                                                 coldstart_keys, stacking_keys,  speed_keys, wake_keys, corun_keys,
                                                 transfer_keys,  memshare_keys,  resident_keys};
static const char *const run_keys[] = {"id", "conditions", "results", "notes", NULL};
static const char *const cond_keys[] = {"model", "transport", "arrival", "rate_per_s", "clients", "batch",
                                        "placement", "duration_s", "duration_ms", "duration_us", "warmup_s",
                                        "warmup_ms", "warmup_us", "background_cores", "arrivals_s", "arrivals_ms",
                                        "arrivals_us", NULL};
static const char *const result_keys[] = {"requests", "throughput_per_s", "latency_mean_s", "latency_mean_ms",
                                          "latency_mean_us", "latency_p50_s", "latency_p50_ms", "latency_p50_us",
                                          "latency_p99_s", "latency_p99_ms", "latency_p99_us", NULL};

/* ---- one time unit per file ---------------------------------------------- */

typedef struct unit_state {
    const char *unit;  /* the first time unit seen, or NULL */
    const ss_node *first;
} unit_state;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The time unit a key is written in ("s", "ms", "us"), or NULL for a key
 * that is no time (rates end in _per_s). */
static const char *unit_of(const char *key)
{
    if (ends_with(key, "_per_s") || ends_with(key, "_per_ms") || ends_with(key, "_per_us")) return NULL;
    if (ends_with(key, "_ms")) return "ms";
    if (ends_with(key, "_us")) return "us";
    if (ends_with(key, "_s")) return "s";
    return NULL;
}

/* Every key of the tree in document order; the environment holds no time. */
static int check_units(const ss_node *n, unit_state *u, ss_err *err)
{
    for (size_t i = 0; n->kind != SS_NODE_SCALAR && i < n->n; i++) {
        const ss_node *c = n->items[i];
        if (n->kind == SS_NODE_MAP) {
            if (n->key == NULL && strcmp(c->key, "environment") == 0) continue;
            const char *unit = unit_of(c->key);
            if (unit && !u->unit) {
                u->unit = unit;
                u->first = c;
            } else if (unit && strcmp(unit, u->unit) != 0) {
                return ss_err_at(err, c->file, c->key_line, c->key_col,
                                 "%s: mixed units: this file writes times in %s (first at line %d, '%s'); a profile "
                                 "uses one time unit",
                                 c->key, u->unit, u->first->key_line, u->first->key);
            }
        }
        TRY(check_units(c, u, err));
    }
    return 0;
}

static double unit_scale(const char *unit)
{
    return strcmp(unit, "ms") == 0 ? 1e-3 : strcmp(unit, "us") == 0 ? 1e-6 : 1;
}

/* ---- typed pieces ---------------------------------------------------------- */

static int str_copy(const ss_node *m, const char *key, char **out, int flags, ss_err *err)
{
    const char *s = NULL;
    int rc = ss_cfg_str(m, key, &s, flags, err);
    if (rc > 0) {
        if (!s[0]) return ss_node_err(ss_map_find(m, key), err, "%s: expected a non-empty string", key);
        *out = ss_xstrdup(s);
    }
    return rc;
}

static int count(const ss_node *m, const char *key, unsigned *out, int flags, ss_err *err)
{
    double v = 0;
    int rc = ss_cfg_num(m, key, &v, flags | SS_INT, err);
    if (rc <= 0) return rc;
    if (v < 1 || v > 1e9)
        return ss_node_err(ss_map_find(m, key), err, "%s: expected an integer >= 1, got '%s'", key,
                           ss_map_find(m, key)->value);
    *out = (unsigned)v;
    return 1;
}

/* *t, read from node n in the file's unit, converted to seconds; with
 * SS_POS in flags, a time too small to stay > 0 in seconds (1e-320 us) is
 * refused at n. */
static int to_seconds(const ss_node *n, const char *what, const ss_hwprofile *p, int flags, double *t, ss_err *err)
{
    *t *= unit_scale(p->time_unit);
    if ((flags & SS_POS) && !(*t > 0))
        return ss_node_err(n, err, "%s: expected a number > 0, got '%s', which is 0 in seconds", what, n->value);
    return 0;
}

/* A time field `base_<unit>` of the file's unit, in seconds, > 0 (or >= 0). */
static int time1(const ss_node *m, const char *base, const ss_hwprofile *p, double *out, int flags, ss_err *err)
{
    char key[64];
    snprintf(key, sizeof key, "%s_%s", base, p->time_unit);
    int rc = ss_cfg_num(m, key, out, flags, err);
    if (rc > 0) TRY(to_seconds(ss_map_find(m, key), key, p, flags, out, err));
    return rc;
}

static const char *const summary_keys[] = {"mean", "sd", "n", "dist", NULL};
static const char *const summary_dists[] = {"normal", "lognormal", "gamma", NULL};

/* Decimals of a number as written ("2.401" 3, "12" 0); -1 with an exponent. */
static int decimals_of(const char *v)
{
    if (strpbrk(v, "eE")) return -1;
    const char *dot = strchr(v, '.');
    return dot ? (int)strlen(dot + 1) : 0;
}

/* A summary `base_<unit>: {mean, sd, n, dist}` of a published table: mean > 0;
 * sd >= 0, n >= 1 and dist optional.  The sample needs a `source`. */
static int summary(const ss_node *m, const ss_node *sum, const char *key, const ss_hwprofile *p, ss_hwp_sample *s,
                   ss_err *err)
{
    TRY(ss_cfg_check_keys(sum, summary_keys, key, err));
    char what[96];
    double mean = 0, sd = NAN, n = 0;
    snprintf(what, sizeof what, "%s.mean", key);
    const ss_node *mn = ss_map_find(sum, "mean");
    if (!mn) return ss_node_err(sum, err, "%s: a summary needs its mean ({mean, sd, n, dist})", key);
    TRY(ss_node_num(mn, what, &mean, SS_POS, err));
    TRY(to_seconds(mn, what, p, SS_POS, &mean, err));
    s->decimals = decimals_of(mn->value);
    const ss_node *sn = ss_map_find(sum, "sd");
    if (sn) {
        snprintf(what, sizeof what, "%s.sd", key);
        TRY(ss_node_num(sn, what, &sd, SS_NONNEG, err));
        int d = decimals_of(sn->value);
        s->decimals = d < 0 || s->decimals < 0 ? -1 : d > s->decimals ? d : s->decimals;
    }
    const ss_node *nn = ss_map_find(sum, "n");
    if (nn) {
        snprintf(what, sizeof what, "%s.n", key);
        TRY(ss_node_num(nn, what, &n, SS_INT, err));
        if (n < 1 || n > 1e12)
            return ss_node_err(nn, err, "%s: expected an integer >= 1 (the observations summarised), got '%s'", what,
                               nn->value);
    }
    s->dist = 1;
    TRY(ss_cfg_enum(sum, "dist", summary_dists, &s->dist, 0, err));
    if (!s->source)
        return ss_node_err(m, err, "%s: a summary transcribes a published table: the sample needs a 'source' citing it",
                           key);
    s->summary = 1;
    s->sd_s = sd * unit_scale(p->time_unit);
    s->n_obs = (unsigned)n;
    s->times_s = ss_xcalloc(1, sizeof *s->times_s);
    s->times_s[0] = mean;
    s->ntimes = 1;
    return 0;
}

/* The numbers of array `key` (in the file's time unit, checked with flags)
 * into s->times_s in seconds. */
static int time_seq(const ss_node *seq, const char *key, const ss_hwprofile *p, int flags, ss_hwp_sample *s,
                    ss_err *err)
{
    s->times_s = ss_xcalloc(seq->n, sizeof *s->times_s);
    for (size_t i = 0; i < seq->n; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s[%zu]", key, i);
        TRY(ss_node_num(seq->items[i], what, &s->times_s[i], flags, err));
        TRY(to_seconds(seq->items[i], what, p, flags, &s->times_s[i], err));
        s->ntimes++;
    }
    return 0;
}

/* The repeated observations `base_<unit>`: a non-empty array of times > 0,
 * or a summary (above). */
static int times(const ss_node *m, const char *base, const ss_hwprofile *p, ss_hwp_sample *s, ss_err *err)
{
    char key[64];
    snprintf(key, sizeof key, "%s_%s", base, p->time_unit);
    const ss_node *sum = ss_map_find(m, key);
    if (sum && sum->kind == SS_NODE_MAP) return summary(m, sum, key, p, s, err);
    ss_node *seq;
    TRY(ss_cfg_seq(m, key, &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "%s: expected at least one observation", key);
    return time_seq(seq, key, p, SS_POS, s, err);
}

/* Observations `base_<unit>` that must be raw (not a summary) and at least
 * two: `what` names the sample in the message ("a speed check is its requests'
 * latencies"), `each` the observations ("requests' latencies"). */
static int raw_times(const ss_node *n, const char *base, const ss_hwprofile *p, ss_hwp_sample *s, const char *what,
                     const char *each, ss_err *err)
{
    TRY(times(n, base, p, s, err));
    char key[32];
    snprintf(key, sizeof key, "%s_%s", base, p->time_unit);
    if (s->summary) return ss_node_err(ss_map_find(n, key), err, "%s: %s, not a summary", key, what);
    if (s->ntimes < 2) return ss_node_err(ss_map_find(n, key), err, "%s: expected at least two %s", key, each);
    return 0;
}

/* A transfer sample (tools/probe/transfer.py): mode, receivers k, bytes, the relays'
 * chunk (a chain's), use (fit or validate), and per receiver done_<unit> (its last
 * byte, > 0) and first_<unit> (its first, >= 0, not after its last). */
static int read_transfer(const ss_node *n, const ss_hwprofile *p, ss_hwp_sample *s, ss_err *err)
{
    TRY(ss_cfg_enum(n, "mode", xfer_modes, &s->xfer_chain, SS_REQ, err));
    TRY(count(n, "receivers", &s->receivers, SS_REQ, err));
    if (s->receivers > 4096)
        return ss_node_err(ss_map_find(n, "receivers"), err, "receivers: expected at most 4096, got %u", s->receivers);
    TRY(ss_cfg_num(n, "bytes", &s->bytes, SS_REQ | SS_POS | SS_INT, err));
    TRY(ss_cfg_num(n, "chunk_bytes", &s->chunk_bytes, (s->xfer_chain ? SS_REQ : 0) | SS_NONNEG | SS_INT, err));
    unsigned rep = 0;
    TRY(count(n, "rep", &rep, 0, err));
    TRY(ss_cfg_enum(n, "use", xfer_uses, &s->xfer_use, SS_REQ, err));
    TRY(times(n, "done", p, s, err));
    char key[32], fkey[32];
    snprintf(key, sizeof key, "done_%s", p->time_unit);
    snprintf(fkey, sizeof fkey, "first_%s", p->time_unit);
    if (s->summary) return ss_node_err(ss_map_find(n, key), err, "%s: a transfer's receivers' times, not a summary", key);
    if (s->ntimes != s->receivers)
        return ss_node_err(ss_map_find(n, key), err, "%s: expected one time per receiver (%u), got %zu", key,
                           s->receivers, s->ntimes);
    ss_node *seq;
    TRY(ss_cfg_seq(n, fkey, &seq, SS_REQ, err));
    if (seq->n != s->ntimes)
        return ss_node_err(seq, err, "%s: expected one time per receiver (%zu, as %s), got %zu", fkey, s->ntimes, key,
                           seq->n);
    ss_hwp_sample first = {0};
    int rc = time_seq(seq, fkey, p, SS_NONNEG, &first, err);
    s->first_s = first.times_s;
    s->nfirst = first.ntimes;
    for (size_t i = 0; rc == 0 && i < s->nfirst; i++)
        if (s->first_s[i] > s->times_s[i])
            return ss_node_err(seq->items[i], err, "%s[%zu]: a receiver's first byte after its last (%s[%zu])", fkey,
                               i, key, i);
    return rc;
}

/* environment.kernel (optional): {release, slice_s, tick_s, migration_cost_s}, each
 * constant a number (> 0; the migration cost >= 0) or null where the probe could
 * not read it (NAN). */
static int read_kernel(ss_hwprofile *p, const ss_node *env, ss_err *err)
{
    ss_node *k = NULL;
    p->kernel_slice_s = p->kernel_tick_s = p->kernel_migration_cost_s = NAN;
    TRY(ss_cfg_map(env, "kernel", &k, 0, err));
    if (!k) return 0;
    TRY(ss_cfg_check_keys(k, kernel_keys, "kernel", err));
    TRY(str_copy(k, "release", &p->kernel_release, SS_REQ, err));
    static const char *const names[] = {"slice_s", "tick_s", "migration_cost_s"};
    double *v[] = {&p->kernel_slice_s, &p->kernel_tick_s, &p->kernel_migration_cost_s};
    for (int i = 0; i < 3; i++) {
        const ss_node *n = ss_map_find(k, names[i]);
        if (!n) return ss_node_err(k, err, "kernel: missing key '%s' (a number, or null where it was not read)",
                                   names[i]);
        if (n->kind == SS_NODE_SCALAR && n->is_null) continue;
        TRY(ss_cfg_num(k, names[i], v[i], SS_REQ | (i == 2 ? SS_NONNEG : SS_POS), err));
    }
    return 0;
}

static int read_env(ss_hwprofile *p, const ss_node *root, ss_err *err)
{
    ss_node *env, *libs;
    TRY(ss_cfg_map(root, "environment", &env, SS_REQ, err));
    TRY(ss_cfg_check_keys(env, env_keys, "environment", err));
    TRY(str_copy(env, "machine", &p->machine, SS_REQ, err));
    TRY(str_copy(env, "cpu_model", &p->cpu_model, SS_REQ, err));
    TRY(count(env, "cores", &p->cores, SS_REQ, err));
    TRY(ss_cfg_num(env, "memory_bytes", &p->memory_bytes, SS_REQ | SS_NONNEG | SS_INT, err));
    TRY(str_copy(env, "os", &p->os, SS_REQ, err));
    TRY(str_copy(env, "date", &p->date, SS_REQ, err));
    const char *notes = NULL;
    TRY(ss_cfg_str(env, "notes", &notes, 0, err));
    if (notes) p->notes = ss_xstrdup(notes);
    TRY(read_kernel(p, env, err));
    TRY(ss_cfg_map(env, "libraries", &libs, SS_REQ, err));
    p->lib_names = ss_xcalloc(libs->n + 1, sizeof *p->lib_names);
    p->lib_versions = ss_xcalloc(libs->n + 1, sizeof *p->lib_versions);
    for (size_t i = 0; i < libs->n; i++) {
        const ss_node *l = libs->items[i];
        if (l->kind != SS_NODE_SCALAR || l->is_null || !l->quoted)
            return ss_node_err(l, err, "libraries.%s: expected a version string", l->key);
        p->lib_names[i] = ss_xstrdup(l->key);
        p->lib_versions[i] = ss_xstrdup(l->value);
        p->nlibs++;
    }
    return 0;
}

/* Optional `micro_mode`: 0 ok (s->micro_mode 0 when absent), -1 with the list of modes. */
static int micro_mode(const ss_node *n, ss_hwp_sample *s, ss_err *err)
{
    int m = -1;
    TRY(ss_cfg_enum(n, "micro_mode", micro_mode_names, &m, 0, err));
    s->micro_mode = m + 1;
    return 0;
}

const char *ss_hwp_micro_mode_name(int mode)
{
    return mode >= 1 && mode <= 2 ? micro_mode_names[mode - 1] : NULL;
}

static int read_resident(const ss_node *n, ss_hwp_sample *s, ss_err *err);

static int read_sample(const ss_hwprofile *p, const ss_node *n, ss_hwp_sample *s, ss_err *err)
{
    TRY(ss_node_expect(n, SS_NODE_MAP, "sample", err));
    s->line = n->line;
    s->col = n->col;
    s->in_bytes = s->out_bytes = -1;
    int kind = 0;
    TRY(ss_cfg_enum(n, "kind", kind_names, &kind, SS_REQ, err));
    s->kind = (ss_hwp_kind)kind;
    char where[32];
    snprintf(where, sizeof where, "%s sample", kind_names[kind]);
    TRY(ss_cfg_check_keys(n, sample_keys[kind], where, err));
    s->sd_s = NAN;
    TRY(str_copy(n, "source", &s->source, 0, err));
    switch (s->kind) {
    case SS_HWP_COMPUTE: {
        TRY(str_copy(n, "model", &s->model, SS_REQ, err));
        int hb, hl;
        TRY(hb = str_copy(n, "block", &s->piece, 0, err));
        if (hb == 0) TRY(hl = str_copy(n, "layer", &s->piece, 0, err));
        else if (ss_map_find(n, "layer"))
            return ss_node_err(ss_map_find(n, "layer"), err, "layer: a sample names a block or a layer, not both");
        else hl = 0;
        s->piece_kind = hb ? SS_HWP_BLOCK : hl ? SS_HWP_LAYER : SS_HWP_WHOLE;
        TRY(str_copy(n, "device", &s->device, SS_REQ, err));
        TRY(count(n, "batch", &s->batch, SS_REQ, err));
        TRY(count(n, "threads", &s->threads, SS_REQ, err));
        TRY(ss_cfg_num(n, "in_bytes", &s->in_bytes, SS_NONNEG | SS_INT, err));
        TRY(ss_cfg_num(n, "out_bytes", &s->out_bytes, SS_NONNEG | SS_INT, err));
        TRY(micro_mode(n, s, err));
        return times(n, "latency", p, s, err);
    }
    case SS_HWP_TRANSPORT:
        TRY(str_copy(n, "transport", &s->transport, SS_REQ, err));
        TRY(ss_cfg_num(n, "bytes", &s->bytes, SS_REQ | SS_NONNEG | SS_INT, err));
        TRY(ss_cfg_enum(n, "term", term_names, &s->term, 0, err));
        s->blocks = 1;
        TRY(count(n, "blocks", &s->blocks, 0, err));
        TRY(str_copy(n, "law", &s->law, 0, err));
        TRY(micro_mode(n, s, err));
        for (int k = 0; k < 2; k++) { /* optional: the hop's time at the sender and at the receiver (calibrate fits
                                         * them when every observation has both: docs/profiles.md) */
            const char *side = k ? "receiver" : "sender";
            char key[32];
            snprintf(key, sizeof key, "%s_%s", side, p->time_unit);
            ss_hwp_sample part = {.source = s->source};
            int rc = ss_map_find(n, key) ? times(n, side, p, &part, err) : 0;
            if (rc == 0 && part.ntimes > 0 && !part.summary) {
                *(k ? &s->receiver_s : &s->sender_s) = part.times_s;
                *(k ? &s->nreceiver : &s->nsender) = part.ntimes;
            } else {
                free(part.times_s);
            }
            TRY(rc);
        }
        return times(n, "latency", p, s, err);
    case SS_HWP_MEMCPY: /* a host memcpy, or a GPU copy named by its path (h2d-pinned, d2d, ...) */
        TRY(str_copy(n, "path", &s->path, 0, err));
        TRY(str_copy(n, "device", &s->device, 0, err));
        TRY(ss_cfg_num(n, "bytes", &s->bytes, SS_REQ | SS_NONNEG | SS_INT, err));
        return times(n, "latency", p, s, err);
    case SS_HWP_MEMORY:
        TRY(str_copy(n, "what", &s->what, SS_REQ, err));
        TRY(str_copy(n, "device", &s->device, SS_REQ, err));
        return ss_cfg_num(n, "bytes", &s->bytes, SS_REQ | SS_NONNEG | SS_INT, err);
    case SS_HWP_COLDSTART: {
        TRY(str_copy(n, "model", &s->model, SS_REQ, err));
        int hl;
        TRY(hl = str_copy(n, "layer", &s->piece, 0, err)); /* optional: one layer's stage (a layer-wise load) */
        s->piece_kind = hl ? SS_HWP_LAYER : SS_HWP_WHOLE;
        int stage = 0;
        TRY(ss_cfg_enum(n, "stage", stage_names, &stage, SS_REQ, err));
        s->stage = ss_xstrdup(stage_names[stage]);
        return times(n, "duration", p, s, err);
    }
    case SS_HWP_STACKING: {
        TRY(count(n, "runnable", &s->runnable, SS_REQ, err));
        TRY(count(n, "cores", &s->cores, SS_REQ, err));
        if (s->runnable > s->cores)
            return ss_node_err(ss_map_find(n, "runnable"), err,
                               "runnable: expected at most the cores (%u): stacking is measured with a core free "
                               "for every thread", s->cores);
        s->work_s = NAN;
        TRY(time1(n, "work", p, &s->work_s, SS_POS, err)); /* optional: the CPU time per burn */
        char key[32];
        snprintf(key, sizeof key, "stretch_%s", p->time_unit);
        ss_node *seq;
        TRY(ss_cfg_seq(n, key, &seq, SS_REQ, err));
        if (seq->n < 2) return ss_node_err(seq, err, "%s: expected at least two burns' stretches", key);
        TRY(time_seq(seq, key, p, 0, s, err)); /* two clocks apart: a stretch may dip below 0 */
        snprintf(key, sizeof key, "delivery_%s", p->time_unit); /* optional: the token's deliveries */
        ss_node *dseq = NULL;
        TRY(ss_cfg_seq(n, key, &dseq, 0, err));
        if (!dseq) return 0;
        if (dseq->n < 1) return ss_node_err(dseq, err, "%s: expected at least one delivery", key);
        ss_hwp_sample d = {0};
        int rc = time_seq(dseq, key, p, SS_POS, &d, err);
        s->delivery_s = d.times_s;
        s->ndelivery = d.ntimes;
        return rc;
    }
    case SS_HWP_SPEED: {
        TRY(str_copy(n, "model", &s->model, SS_REQ, err));
        TRY(str_copy(n, "device", &s->device, SS_REQ, err));
        TRY(count(n, "threads", &s->threads, SS_REQ, err));
        TRY(ss_cfg_enum(n, "phase", phase_names, &s->phase, SS_REQ, err));
        int has_run = 0, has_at = 0;
        TRY(has_run = str_copy(n, "run", &s->run, 0, err));
        s->at = -1;
        TRY(has_at = ss_cfg_enum(n, "at", at_names, &s->at, 0, err));
        if ((has_run || has_at) && s->phase != 1)
            return ss_node_err(ss_map_find(n, has_run ? "run" : "at"), err,
                               "%s: only a check beside the end-to-end runs (phase e2e) stands beside a run",
                               has_run ? "run" : "at");
        if (has_run != has_at)
            return ss_node_err(n, err, "speed: expected both `run` and `at` (the run a check stood beside, and "
                                       "before or after it), or neither");
        return raw_times(n, "latency", p, s, "a speed check is its requests' latencies", "requests' latencies", err);
    }
    case SS_HWP_WAKE: {
        TRY(str_copy(n, "transport", &s->transport, SS_REQ, err));
        TRY(time1(n, "gap", p, &s->gap_s, SS_REQ | SS_NONNEG, err));
        TRY(micro_mode(n, s, err));
        TRY(raw_times(n, "latency", p, s, "a wake sample is its messages' latencies", "messages' latencies", err));
        char key[32], ikey[32];
        snprintf(key, sizeof key, "latency_%s", p->time_unit);
        snprintf(ikey, sizeof ikey, "idle_%s", p->time_unit);
        ss_node *seq;
        TRY(ss_cfg_seq(n, ikey, &seq, SS_REQ, err));
        if (seq->n != s->ntimes)
            return ss_node_err(seq, err, "%s: expected one idle time per message (%zu, as %s), got %zu", ikey, s->ntimes,
                               key, seq->n);
        ss_hwp_sample idle = {0};
        int rc = time_seq(seq, ikey, p, SS_NONNEG, &idle, err);
        s->idle_s = idle.times_s;
        s->nidle = idle.ntimes;
        return rc;
    }
    case SS_HWP_CORUN: {
        TRY(str_copy(n, "what", &s->what, SS_REQ, err));
        TRY(str_copy(n, "device", &s->device, SS_REQ, err));
        TRY(count(n, "cores", &s->cores, SS_REQ, err));
        TRY(count(n, "runnable", &s->runnable, SS_REQ, err));
        if (s->runnable > 2 * s->cores)
            return ss_node_err(ss_map_find(n, "runnable"), err,
                               "runnable: expected at most twice the cores (%u): alone, one per core or two per core",
                               2 * s->cores);
        return raw_times(n, "cpu", p, s, "a corun sample is its forwards' CPU times", "forwards' CPU times", err);
    }
    case SS_HWP_TRANSFER: return read_transfer(n, p, s, err);
    case SS_HWP_MEMSHARE:
        TRY(ss_cfg_num(n, "bytes", &s->bytes, SS_REQ | SS_POS | SS_INT, err));
        TRY(count(n, "cores", &s->cores, SS_REQ, err));
        TRY(count(n, "streams", &s->runnable, SS_REQ, err));
        if (s->runnable > s->cores)
            return ss_node_err(ss_map_find(n, "streams"), err,
                               "streams: expected at most the cores (%u): more copies than cores share the cores, "
                               "not the memory", s->cores);
        return raw_times(n, "latency", p, s, "a memshare sample is its copies' latencies", "copies' latencies", err);
    case SS_HWP_RESIDENT: return read_resident(n, s, err);
    }
    return 0;
}

/* The byte readings of array `key` (integers >= 0, at least one) into *out. */
static int byte_seq(const ss_node *m, const char *key, double **out, size_t *n, ss_err *err)
{
    ss_node *seq;
    TRY(ss_cfg_seq(m, key, &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "%s: expected at least one reading", key);
    *out = ss_xcalloc(seq->n, sizeof **out);
    for (size_t i = 0; i < seq->n; i++, (*n)++) {
        char what[64];
        snprintf(what, sizeof what, "%s[%zu]", key, i);
        TRY(ss_node_num(seq->items[i], what, &(*out)[i], SS_NONNEG | SS_INT, err));
    }
    return 0;
}

/* A resident sample: the stage says which fields it needs (a model from loaded on, a batch and
 * the activations at forward); rss_bytes and peak_bytes one reading per process, as many of
 * each, every peak at least its process's resident set. */
static int read_resident(const ss_node *n, ss_hwp_sample *s, ss_err *err)
{
    TRY(ss_cfg_enum(n, "stage", resident_stages, &s->rstage, SS_REQ, err));
    s->stage = ss_xstrdup(resident_stages[s->rstage]);
    int model = s->rstage > 0 ? SS_REQ : 0, fwd = s->rstage == 2 ? SS_REQ : 0;
    TRY(str_copy(n, "model", &s->model, model, err));
    TRY(str_copy(n, "device", &s->device, SS_REQ, err));
    TRY(count(n, "threads", &s->threads, 0, err));
    TRY(str_copy(n, "allocator", &s->allocator, 0, err));
    static const char *const later[] = {"weights_bytes", "batch", "input_bytes", "activation_bytes"};
    for (int i = 0; i < 4; i++) {
        const ss_node *k = ss_map_find(n, later[i]);
        if (k && (s->rstage == 0 || (s->rstage == 1 && i > 0)))
            return ss_node_err(k, err, "%s: a resident sample at stage %s has none (%s)", later[i], s->stage,
                               i == 0 ? "weights come with a model: stage loaded or forward"
                                      : "a batch and its activations are a forward's: stage forward");
    }
    TRY(ss_cfg_num(n, "weights_bytes", &s->weights_bytes, model | SS_NONNEG | SS_INT, err));
    TRY(count(n, "batch", &s->batch, fwd, err));
    TRY(ss_cfg_num(n, "input_bytes", &s->input_bytes, SS_NONNEG | SS_INT, err));
    TRY(ss_cfg_num(n, "activation_bytes", &s->activation_bytes, fwd | SS_NONNEG | SS_INT, err));
    size_t np = 0;
    TRY(byte_seq(n, "rss_bytes", &s->rss_bytes, &s->nrss, err));
    TRY(byte_seq(n, "peak_bytes", &s->peak_bytes, &np, err));
    const ss_node *pk = ss_map_find(n, "peak_bytes");
    if (np != s->nrss)
        return ss_node_err(pk, err, "peak_bytes: expected %zu readings, one per process as rss_bytes, got %zu",
                           s->nrss, np);
    for (size_t i = 0; i < np; i++)
        if (s->peak_bytes[i] < s->rss_bytes[i])
            return ss_node_err(pk->items[i], err, "peak_bytes[%zu]: expected at least the process's rss_bytes (%.17g): "
                               "the high-water mark is never below the resident set", i, s->rss_bytes[i]);
    return 0;
}

/* A poisson run's `arrivals_<unit>`, optional: the instants the load generator
 * sent its requests at, from the run's start (warm-up included), non-decreasing,
 * each inside the run (< warm-up + duration).  `servesim validate` replays them. */
static int arrivals(const ss_node *c, const ss_hwprofile *p, ss_hwp_run *r, ss_err *err)
{
    char key[64];
    snprintf(key, sizeof key, "arrivals_%s", p->time_unit);
    if (!ss_map_find(c, key)) return 0;
    if (r->clients)
        return ss_node_err(ss_map_find(c, key), err, "%s: a closed run's clients send on completions; arrivals are "
                                                     "a poisson run's", key);
    ss_node *seq;
    TRY(ss_cfg_seq(c, key, &seq, SS_REQ, err));
    if (seq->n == 0) return ss_node_err(seq, err, "%s: expected at least one arrival (or leave the key out)", key);
    double end_s = r->warmup_s + r->duration_s;
    r->arrivals_s = ss_xcalloc(seq->n, sizeof *r->arrivals_s);
    for (size_t i = 0; i < seq->n; i++) {
        char what[96];
        double t;
        snprintf(what, sizeof what, "%s[%zu]", key, i);
        TRY(ss_node_num(seq->items[i], what, &t, SS_NONNEG, err));
        t *= unit_scale(p->time_unit);
        if (i && t < r->arrivals_s[i - 1])
            return ss_node_err(seq->items[i], err, "%s: expected arrivals in time order, got %s after %.17g", what,
                               seq->items[i]->value, r->arrivals_s[i - 1] / unit_scale(p->time_unit));
        if (t >= end_s)
            return ss_node_err(seq->items[i], err, "%s: expected an instant inside the run (before warm-up + "
                                                   "duration, %.17g s), got %s", what, end_s, seq->items[i]->value);
        r->arrivals_s[r->narrivals++] = t;
    }
    return 0;
}

static int read_run(const ss_hwprofile *p, const ss_node *n, ss_hwp_run *r, ss_err *err)
{
    TRY(ss_node_expect(n, SS_NODE_MAP, "run", err));
    TRY(ss_cfg_check_keys(n, run_keys, "run", err));
    r->line = n->line;
    r->col = n->col;
    TRY(str_copy(n, "id", &r->id, SS_REQ, err));
    ss_node *c, *res;
    TRY(ss_cfg_map(n, "conditions", &c, SS_REQ, err));
    TRY(ss_cfg_check_keys(c, cond_keys, "conditions", err));
    TRY(str_copy(c, "model", &r->model, SS_REQ, err));
    TRY(str_copy(c, "transport", &r->transport, 0, err));
    TRY(str_copy(c, "placement", &r->placement, 0, err));
    int arrival = 0;
    TRY(ss_cfg_enum(c, "arrival", arrival_names, &arrival, SS_REQ, err));
    r->arrival = ss_xstrdup(arrival_names[arrival]);
    if (arrival == 0) {
        TRY(ss_cfg_num(c, "rate_per_s", &r->rate_per_s, SS_REQ | SS_POS, err));
        if (ss_map_find(c, "clients"))
            return ss_node_err(ss_map_find(c, "clients"), err, "clients: a poisson run has rate_per_s, not clients");
    } else {
        TRY(count(c, "clients", &r->clients, SS_REQ, err));
        if (ss_map_find(c, "rate_per_s"))
            return ss_node_err(ss_map_find(c, "rate_per_s"), err,
                               "rate_per_s: a closed run has clients (zero think time), not a rate");
    }
    r->batch = 1;
    TRY(count(c, "batch", &r->batch, 0, err));
    r->background_cores = NAN;
    TRY(ss_cfg_num(c, "background_cores", &r->background_cores, SS_NONNEG, err));
    TRY(time1(c, "duration", p, &r->duration_s, SS_REQ | SS_POS, err));
    TRY(time1(c, "warmup", p, &r->warmup_s, SS_NONNEG, err));
    TRY(arrivals(c, p, r, err));
    TRY(ss_cfg_map(n, "results", &res, SS_REQ, err));
    TRY(ss_cfg_check_keys(res, result_keys, "results", err));
    TRY(ss_cfg_num(res, "requests", &r->requests, SS_REQ | SS_NONNEG | SS_INT, err));
    TRY(ss_cfg_num(res, "throughput_per_s", &r->throughput_per_s, SS_REQ | SS_NONNEG, err));
    TRY(time1(res, "latency_mean", p, &r->latency_mean_s, SS_REQ | SS_POS, err));
    TRY(time1(res, "latency_p50", p, &r->latency_p50_s, SS_REQ | SS_POS, err));
    return time1(res, "latency_p99", p, &r->latency_p99_s, SS_REQ | SS_POS, err);
}

static int load(const ss_doc *doc, ss_hwprofile *p, ss_err *err)
{
    const ss_node *root = doc->root;
    TRY(ss_node_expect(root, SS_NODE_MAP, "profile", err));
    unit_state u = {0};
    TRY(check_units(root, &u, err));
    p->time_unit = u.unit ? u.unit : "s";
    TRY(ss_cfg_check_keys(root, top_keys, "profile", err));
    double version = 0;
    TRY(ss_cfg_num(root, "servesim_profile", &version, SS_REQ, err));
    if (version != SS_HWP_VERSION)
        return ss_node_err(ss_map_find(root, "servesim_profile"), err,
                           "servesim_profile: expected %d (the profile format this servesim reads), got '%s'",
                           SS_HWP_VERSION, ss_map_find(root, "servesim_profile")->value);
    TRY(str_copy(root, "source", &p->source, SS_REQ, err));
    TRY(read_env(p, root, err));
    ss_node *samples = NULL, *runs = NULL;
    TRY(ss_cfg_seq(root, "samples", &samples, 0, err));
    TRY(ss_cfg_seq(root, "runs", &runs, 0, err));
    size_t ns = samples ? samples->n : 0, nr = runs ? runs->n : 0;
    if (ns + nr == 0)
        return ss_node_err(samples ? samples : runs ? runs : root, err,
                           "a profile needs at least one entry in samples or runs");
    p->samples = ss_xcalloc(ns + 1, sizeof *p->samples); /* + 1: see ss_hwprofile_free */
    for (size_t i = 0; i < ns; i++, p->nsamples++) TRY(read_sample(p, samples->items[i], &p->samples[i], err));
    p->runs = ss_xcalloc(nr + 1, sizeof *p->runs);
    for (size_t i = 0; i < nr; i++, p->nruns++) {
        TRY(read_run(p, runs->items[i], &p->runs[i], err));
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->runs[j].id, p->runs[i].id) == 0)
                return ss_node_err(ss_map_find(runs->items[i], "id"), err, "run id '%s' already used at line %d",
                                   p->runs[i].id, p->runs[j].line);
    }
    return 0;
}

int ss_hwprofile_load(const char *path, ss_hwprofile *p, ss_err *err)
{
    memset(p, 0, sizeof *p);
    p->path = ss_xstrdup(path);
    ss_doc *doc = ss_doc_load_json(path, err);
    int rc = doc ? load(doc, p, err) : -1;
    ss_doc_free(doc);
    if (rc < 0) ss_hwprofile_free(p);
    return rc;
}

static void free_sample(ss_hwp_sample *s)
{
    free(s->model);
    free(s->run);
    free(s->piece);
    free(s->device);
    free(s->transport);
    free(s->what);
    free(s->path);
    free(s->stage);
    free(s->times_s);
    free(s->sender_s);
    free(s->receiver_s);
    free(s->idle_s);
    free(s->delivery_s);
    free(s->first_s);
    free(s->allocator);
    free(s->rss_bytes);
    free(s->peak_bytes);
    free(s->source);
    free(s->law);
}

static void free_run(ss_hwp_run *r)
{
    free(r->id);
    free(r->model);
    free(r->transport);
    free(r->arrival);
    free(r->placement);
    free(r->arrivals_s);
}

void ss_hwprofile_free(ss_hwprofile *p)
{
    if (!p) return;
    /* a sample or run that failed half-read is counted too: its fields are freed as well */
    for (size_t i = 0; p->samples && i <= p->nsamples; i++) free_sample(&p->samples[i]);
    for (size_t i = 0; p->runs && i <= p->nruns; i++) free_run(&p->runs[i]);
    free(p->samples);
    free(p->runs);
    for (size_t i = 0; i < p->nlibs; i++) {
        free(p->lib_names[i]);
        free(p->lib_versions[i]);
    }
    free(p->lib_names);
    free(p->lib_versions);
    free(p->path);
    free(p->source);
    free(p->machine);
    free(p->cpu_model);
    free(p->os);
    free(p->date);
    free(p->notes);
    free(p->kernel_release);
    memset(p, 0, sizeof *p);
}
