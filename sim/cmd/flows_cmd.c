/* flows_cmd.c: `servesim flows` - replay a list of transfers on a topology
 * with the flow model, so that the model can be checked against other
 * simulators (and measured: `make bench`).
 *
 * Input CSV: `start_s,src,dst,bytes` (a header line with those names is
 * optional); src and dst are node names (h57, h57/gpu3, s3) or host indices
 * in generator order (0..hosts-1).  Output CSV, one row per transfer in
 * input order: `transfer,start_s,src,dst,bytes,finish_s,duration_s`, times
 * to the nanosecond.  Each transfer is routed by ss_topo_route with ECMP
 * key = hash(seed, transfer number), gets the route's latency and the
 * per-connection cap of its ends, and starts at start_s (transfers are
 * started from one pending event at a time, in start order, so the event
 * calendar holds the flows in flight, not the whole list).  Those that
 * start at the same instant join the sharing together, in one re-solve
 * (ss_flownet_hold_joins): 20,000 at once cost one, not 20,000 of a growing
 * component. */
#include "cmd/flows_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/afile.h"
#include "core/cfg.h"
#include "core/csvread.h"
#include "core/engine.h"
#include "core/flow.h"
#include "net/topo.h"

static const char usage[] =
    "usage: servesim flows TOPOLOGY.yaml TRANSFERS.csv [options]\n"
    "\n"
    "  -o, --output PATH      one row per transfer (default: standard output)\n"
    "  --links-csv PATH       per directed link: bytes carried and mean utilisation\n"
    "  --goodput G            payload fraction of the wire rate, 0.001 to 1 (default 1)\n"
    "  --setup-s S            connection set-up time per transfer (default 0)\n"
    "  --seed N               ECMP hash seed (default 1)\n"
    "  --stats                print transfers/s, peak flows in flight, uplink load, peak memory to stderr\n"
    "\n"
    "TRANSFERS.csv: start_s,src,dst,bytes per line (header optional); src/dst are node names\n"
    "(h3, h3/gpu0, s3) or host indices in generator order.  Output columns: transfer, start_s,\n"
    "src, dst, bytes, finish_s, duration_s (seconds, 9 decimals).  Exit 0, 1 if an output cannot be\n"
    "written, 2 on bad input.\n";

typedef struct replay replay;

/* What a finished flow reports back: which transfer it was. */
typedef struct done_ctx {
    replay *rp;
    size_t i;
} done_ctx;

struct replay {
    const ss_topo *topo;
    ss_flownet *net;
    ss_transfer *t;
    size_t n, next;
    size_t *order;       /* by start time, stable */
    uint32_t *route;     /* scratch */
    size_t route_cap;
    uint64_t seed;
    ss_flow_opts opts;
    double last_finish_s;
    done_ctx *ctxs;      /* one per transfer */
};

static int node_of(const ss_topo *t, const ss_csv_row *r, size_t k, const char *path, uint32_t *out, ss_err *err)
{
    const char *s = r->f[k];
    if (s[0] && s[strspn(s, "0123456789")] == '\0') {
        unsigned long long i = ss_strtou64(s, NULL);
        if (i >= ss_topo_nhosts(t))
            return ss_err_at(err, path, r->line, ss_csv_field_col(r, k), "host index %s out of range (the topology has %zu hosts)",
                             s, ss_topo_nhosts(t));
        *out = ss_topo_host(t, (size_t)i);
        return 0;
    }
    *out = ss_topo_find(t, s);
    if (*out != SS_TOPO_NONE) return 0;
    size_t n = ss_topo_nnodes(t);
    const char **names = ss_xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; i < n; i++) names[i] = ss_topo_node_name(t, (uint32_t)i);
    const char *near = ss_suggest(s, names);
    ss_err_at(err, path, r->line, ss_csv_field_col(r, k), "unknown node '%s'%s%s%s", s, near ? " (did you mean '" : "",
              near ? near : "", near ? "'?)" : "");
    free(names);
    return -1;
}

/* Field k as a number >= 0 within the physical range of `unit_key`'s unit
 * (core/cfg.h ss_key_range_of: a time up to 1e9 s, bytes 0 or from one
 * byte to an exabyte). */
static int num_of(const ss_csv_row *r, size_t k, const char *what, const char *unit_key, const char *path, double *out,
                  ss_err *err)
{
    char *end;
    errno = 0;
    *out = ss_strtod(r->f[k], &end);
    const ss_key_range *u = ss_key_range_of(unit_key);
    if (!r->f[k][0] || *end || errno || !isfinite(*out) || *out < 0 ||
        !ss_key_range_holds(u, *out, u->lo >= 1 ? u->lo : 0)) /* a floor for counts (bytes) only */
        return ss_err_at(err, path, r->line, ss_csv_field_col(r, k), "%s: expected a number >= 0, at most %g%s%s%s, got '%s'",
                         what, u->hi, *u->unit ? " " : "", u->unit, u->lo >= 1 ? ", 0 or at least 1" : "", r->f[k]);
    return 0;
}

int ss_transfers_read(const ss_topo *topo, const char *path, ss_transfer **out, size_t *nout, ss_err *err)
{
    *out = NULL;
    *nout = 0;
    ss_csv csv;
    if (ss_csv_read_whole(path, &csv, err) < 0) return -1;
    size_t first = csv.nrows && csv.rows[0].n >= 1 && strcmp(csv.rows[0].f[0], "start_s") == 0, n = 0;
    ss_transfer *ts = ss_xcalloc(csv.nrows + 1, sizeof *ts);
    int rc = 0;
    for (size_t i = first; rc == 0 && i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        if (r->n == 1 && r->f[0][0] == '\0') continue; /* blank line */
        if (r->n != 4) {
            rc = ss_err_at(err, path, r->line, 1, "expected 4 fields start_s,src,dst,bytes, found %zu", r->n);
            break;
        }
        ss_transfer *t = &ts[n];
        if (num_of(r, 0, "start_s", "start_s", path, &t->start_s, err) < 0 || node_of(topo, r, 1, path, &t->src, err) < 0 ||
            node_of(topo, r, 2, path, &t->dst, err) < 0 || num_of(r, 3, "bytes", "transfer_bytes", path, &t->bytes, err) < 0) {
            rc = -1;
            break;
        }
        double lat;
        if (ss_topo_route(topo, t->src, t->dst, 0, NULL, 0, &lat) == SS_TOPO_NO_ROUTE) {
            rc = ss_err_at(err, path, r->line, ss_csv_field_col(r, 1), "no route from '%s' to '%s'", r->f[1], r->f[2]);
            break;
        }
        t->finish_s = NAN;
        n++;
    }
    ss_csv_free(&csv);
    if (rc < 0) {
        free(ts);
        return -1;
    }
    *out = ts;
    *nout = n;
    return 0;
}

static const ss_transfer *sort_base;
static int by_start(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = sort_base[i].start_s, y = sort_base[j].start_s;
    if (x != y) return x < y ? -1 : 1;
    return i < j ? -1 : i > j; /* stable */
}

static void transfer_done(ss_engine *eng, void *ctx, ss_flow_id id, double now_s)
{
    done_ctx *d = ctx;
    d->rp->t[d->i].finish_s = now_s;
    if (now_s > d->rp->last_finish_s) d->rp->last_finish_s = now_s;
}

static void start_one(replay *rp);

/* Every transfer that starts at this instant, joining the sharing together
 * (one re-solve for all: ss_flownet_hold_joins), then the next instant's
 * event. */
static void start_next(ss_engine *eng, void *ctx, uint64_t arg)
{
    replay *rp = ctx;
    double start_s = rp->t[rp->order[rp->next]].start_s;
    ss_flownet_hold_joins(rp->net);
    do start_one(rp);
    while (rp->next < rp->n && rp->t[rp->order[rp->next]].start_s == start_s);
    ss_flownet_release_joins(rp->net);
    if (rp->next < rp->n) ss_schedule(eng, rp->t[rp->order[rp->next]].start_s, start_next, rp, 0);
}

static void start_one(replay *rp)
{
    size_t i = rp->order[rp->next++];
    ss_transfer *t = &rp->t[i];
    uint64_t key = ss_mix64(rp->seed * 0x9e3779b97f4a7c15ULL + i);
    double lat = 0;
    size_t len = ss_topo_route(rp->topo, t->src, t->dst, key, rp->route, rp->route_cap, &lat);
    if (len > rp->route_cap) {
        rp->route_cap = len;
        rp->route = ss_xrealloc(rp->route, len * sizeof *rp->route);
        len = ss_topo_route(rp->topo, t->src, t->dst, key, rp->route, rp->route_cap, &lat);
    }
    ss_flow_opts o = rp->opts;
    o.latency_s = lat;
    double cap = ss_topo_flow_cap_bps(rp->topo, t->src, t->dst);
    o.cap_bps = isfinite(cap) ? cap : 0;
    rp->ctxs[i] = (done_ctx){rp, i};
    ss_flow_start(rp->net, rp->route, len, t->bytes, &o, transfer_done, &rp->ctxs[i]);
}

/* s as ss_csv_field writes it (quoted if it holds a comma, quote or line
 * break), into out (room for 2 * strlen(s) + 2 bytes); returns the length. */
static size_t put_csv_field(char *out, const char *s)
{
    size_t n = 0;
    if (!strpbrk(s, ",\"\r\n")) {
        n = strlen(s);
        memcpy(out, s, n);
        return n;
    }
    out[n++] = '"';
    for (; *s; s++) {
        if (*s == '"') out[n++] = '"';
        out[n++] = *s;
    }
    out[n++] = '"';
    return n;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int ss_cmd_flows(int argc, char **argv)
{
    const char *topo_path = NULL, *xfer_path = NULL, *out = NULL, *links_out = NULL;
    double goodput = 1, setup_s = 0;
    unsigned long long seed = 1;
    int stats = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--links-csv") ||
                    !strcmp(a, "--goodput") || !strcmp(a, "--setup-s") || !strcmp(a, "--seed");
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (takes && !val) return ss_bad_usage("flows", "%s needs a value", a);
        char *end = NULL;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) out = val;
        else if (!strcmp(a, "--links-csv")) links_out = val;
        else if (!strcmp(a, "--goodput")) {
            goodput = ss_strtod(val, &end);
            if (*end || !(goodput >= 1e-3 && goodput <= 1)) /* a thousandth: past any protocol's overhead */
                return ss_bad_usage("flows", "--goodput expects a payload fraction from 0.001 to 1, got '%s'", val);
        } else if (!strcmp(a, "--setup-s")) {
            setup_s = ss_strtod(val, &end);
            if (*end || !(setup_s >= 0 && setup_s <= 1e9)) return ss_bad_usage("flows", "--setup-s expects a number >= 0, got '%s'", val);
        } else if (!strcmp(a, "--seed")) {
            seed = ss_strtou64(val, &end);
            if (*end || !val[0]) return ss_bad_usage("flows", "--seed expects an integer, got '%s'", val);
        } else if (!strcmp(a, "--stats")) stats = 1;
        else if (a[0] == '-' && a[1]) return ss_bad_usage("flows", "unknown option '%s'", a);
        else if (!topo_path) topo_path = a;
        else if (!xfer_path) xfer_path = a;
        else return ss_bad_usage("flows", "unexpected argument '%s'", a);
        if (takes) i++;
    }
    if (!topo_path || !xfer_path) return ss_bad_usage("flows", "%s", "expected TOPOLOGY.yaml TRANSFERS.csv");

    ss_err err = {0};
    replay rp = {0};
    ss_afile af = {0}, lf = {0};
    int have_af = 0, have_lf = 0, rc = 2;
    ss_topo *topo = ss_topo_load(topo_path, &err);
    ss_engine *eng = NULL;
    if (!topo) goto out;
    rp.topo = topo;
    rp.seed = seed;
    rp.opts = (ss_flow_opts){.goodput = goodput, .setup_s = setup_s};
    if (ss_transfers_read(topo, xfer_path, &rp.t, &rp.n, &err) < 0) goto out;
    /* Outputs are opened before anything runs. */
    if (out && ss_afile_open(&af, out, &err) < 0) goto out;
    have_af = out != NULL;
    if (links_out && ss_afile_open(&lf, links_out, &err) < 0) goto out;
    have_lf = links_out != NULL;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ss_topo_precompute(topo);
    eng = ss_engine_new();
    rp.net = ss_flownet_new(eng, ss_topo_nlinks(topo), ss_topo_capacities_bps(topo));
    rp.order = ss_xcalloc(rp.n + 1, sizeof *rp.order);
    rp.ctxs = ss_xcalloc(rp.n + 1, sizeof *rp.ctxs);
    for (size_t i = 0; i < rp.n; i++) rp.order[i] = i;
    sort_base = rp.t;
    qsort(rp.order, rp.n, sizeof *rp.order, by_start);
    if (rp.n) ss_schedule(eng, rp.t[rp.order[0]].start_s, start_next, &rp, 0);
    uint64_t events = ss_engine_run(eng, INFINITY);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    FILE *fp = have_af ? af.fp : stdout;
    fputs("transfer,start_s,src,dst,bytes,finish_s,duration_s\n", fp);
    /* each row is built in line[] and written at once; the numbers as
     * printf's %zu, %.9f and %.0f write them, faster */
    char *line = NULL;
    size_t line_cap = 0;
    for (size_t i = 0; i < rp.n; i++) {
        const ss_transfer *t = &rp.t[i];
        const char *src = ss_topo_node_name(topo, t->src), *dst = ss_topo_node_name(topo, t->dst);
        size_t need = 5 * SS_FMT_FIXED_MAX + 2 * (strlen(src) + strlen(dst)) + 16;
        if (need > line_cap) {
            line_cap = 2 * need;
            line = ss_xrealloc(line, line_cap);
        }
        size_t n = (size_t)ss_fmt_fixed(line, (double)i, 0);
        line[n++] = ',';
        n += (size_t)ss_fmt_fixed(line + n, t->start_s, 9);
        line[n++] = ',';
        n += put_csv_field(line + n, src);
        line[n++] = ',';
        n += put_csv_field(line + n, dst);
        line[n++] = ',';
        n += (size_t)ss_fmt_fixed(line + n, t->bytes, 0);
        line[n++] = ',';
        n += (size_t)ss_fmt_fixed(line + n, t->finish_s, 9);
        line[n++] = ',';
        n += (size_t)ss_fmt_fixed(line + n, t->finish_s - t->start_s, 9);
        line[n++] = '\n';
        fwrite(line, 1, n, fp);
    }
    free(line);
    double first_s = rp.n ? rp.t[rp.order[0]].start_s : 0, span = rp.last_finish_s - first_s;
    if (have_lf) {
        fputs("link,from,to,tier,capacity_bps,bytes,utilisation\n", lf.fp);
        for (uint32_t l = 0; l < ss_topo_nlinks(topo); l++) {
            double b = ss_link_bytes(rp.net, l), cap = ss_topo_link_capacity_bps(topo, l);
            fprintf(lf.fp, "%u,", l);
            ss_csv_field(lf.fp, ss_topo_node_name(topo, ss_topo_link_from(topo, l)));
            fputc(',', lf.fp);
            ss_csv_field(lf.fp, ss_topo_node_name(topo, ss_topo_link_to(topo, l)));
            fprintf(lf.fp, ",%s,%.0f,%.0f,%.6f\n", ss_topo_tier_name(ss_topo_link_tier(topo, l)), cap, b,
                    span > 0 ? 8 * b / (cap * span) : 0);
        }
    }
    if (stats) {
        /* Load on the leaf -> spine direction of the fabric over the run. */
        double u_sum = 0, u_max = 0;
        size_t nu = 0;
        for (uint32_t l = 0; l < ss_topo_nlinks(topo); l++) {
            if (ss_topo_link_tier(topo, l) != SS_TL_LEAF_SPINE ||
                ss_topo_node_kind_of(topo, ss_topo_link_from(topo, l)) != SS_TN_LEAF)
                continue;
            double u = span > 0 ? 8 * ss_link_bytes(rp.net, l) / (ss_topo_link_capacity_bps(topo, l) * span) : 0;
            u_sum += u;
            u_max = u > u_max ? u : u_max;
            nu++;
        }
        ss_flownet_stats st = ss_flownet_stats_of(rp.net);
        fprintf(stderr,
                "stats: %zu transfers in %.3f s wall (%.0f transfers/s), %llu events, simulated %.3f s; "
                "peak flows in flight %zu; re-solves %llu touching %.1f flows each on average; "
                "leaf->spine utilisation mean %.1f%% max %.1f%%; peak RSS %.1f MiB\n",
                rp.n, wall, wall > 0 ? (double)rp.n / wall : 0.0, (unsigned long long)events, span,
                ss_flownet_peak_active(rp.net), (unsigned long long)st.resolves,
                st.resolves ? (double)st.flows_touched / (double)st.resolves : 0.0, nu ? 100 * u_sum / (double)nu : 0.0,
                100 * u_max, (double)peak_rss_kib() / 1024.0);
    }
    rc = 0;
    ss_afile *all[2];
    size_t nall = 0;
    if (have_af) all[nall++] = &af;
    if (have_lf) all[nall++] = &lf;
    have_af = have_lf = 0;
    if (ss_afile_commit_all(all, nall, &err) < 0) rc = 1; /* both, or neither */
out:
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    if (have_af) ss_afile_abort(&af);
    if (have_lf) ss_afile_abort(&lf);
    if (rp.net) ss_flownet_free(rp.net);
    if (eng) ss_engine_free(eng);
    ss_topo_free(topo);
    free(rp.t);
    free(rp.order);
    free(rp.ctxs);
    free(rp.route);
    return rc;
}
