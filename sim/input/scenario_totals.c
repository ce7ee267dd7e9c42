/* scenario_totals.c: the totals of a serving scenario (instances, clients,
 * devices, scripted events, trace arrivals) and the peak memory they are
 * estimated to need, checked against --max-memory before anything runs
 * (issue 40: 40 deployment entries of a million instances each passed
 * `check` and died of memory after a minute, at 18 GiB).
 *
 * The bytes per item are what one costs in a run, measured with
 * /usr/bin/time's peak RSS on this machine (Debian 12, x86-64, 2026-12-07):
 * 3 million instances of one model took 2.85 GB (about 950 bytes each:
 * the instance, its queue, its slot in the load balancer's tables), 10
 * million closed-loop clients 0.76 GB (about 76 bytes each, with the
 * request each holds), 1,000 models 118 MB and 5,000 models with 5,000
 * tasks 1.14 GB (about 114 KB a task, a model's own included: two latency
 * histograms of 54 KiB, core/metrics.h).  The figures below round those up; a device and an
 * event are charged their configuration and run-time records.  Requests
 * queued under overload are not counted: how many there will be is what
 * the run finds out (docs/limits.md). */
#include "input/scenario_totals.h"

#include <math.h>
#include <stdio.h>

#include "core/limits.h"
#include "core/metrics.h"
#include "net/topo.h"

enum {
    /* a task (each model is one too) keeps two latency histograms */
    TASK_BYTES = 2 * (int)sizeof(ss_hist) + 256,
    INSTANCE_BYTES = 1024,
    CLIENT_BYTES = 128,
    DEVICE_BYTES = 1024,
    EVENT_BYTES = (int)sizeof(ss_event_cfg) + 64,
    ARRIVAL_BYTES = 8
};

/* The replicas an autoscaler may start: a GPU holds one, a CPU one per
 * core (elastic/autoscale.c), and no model more than its cap. */
static double autoscaled(const ss_scenario *sc)
{
    const ss_autoscale_cfg *a = sc->autoscale;
    if (!a) return 0;
    double slots = 0, capped = 0;
    for (size_t d = 0; d < sc->ndevices; d++) slots += sc->devices[d].kind == SS_DEV_GPU ? 1 : sc->devices[d].cores;
    for (size_t m = 0; m < sc->nmodels; m++)
        if (a->models && a->models[m])
            capped += a->max_replicas_m && m < a->nper_model && a->max_replicas_m[m] ? a->max_replicas_m[m] : a->max_replicas;
    return capped < slots ? capped : slots;
}

void ss_sc_totals_of(const ss_scenario *sc, ss_sc_totals *t)
{
    *t = (ss_sc_totals){0};
    for (size_t d = 0; d < sc->ndeploys; d++) t->instances += sc->deploys[d].instances;
    for (size_t e = 0; e < sc->nevents; e++)
        if (sc->events[e].kind == SS_EV_ADD) t->instances += sc->events[e].count;
    t->instances += autoscaled(sc);
    for (size_t w = 0; w < sc->nworkloads; w++) {
        if (sc->workloads[w].kind == SS_WL_CLOSED) t->clients += sc->workloads[w].clients;
        t->arrivals += (double)sc->workloads[w].ntimes;
    }
    t->devices = (double)sc->ndevices;
    t->tasks = (double)sc->ntasks;
    t->events = (double)sc->nevents;
    t->memory_bytes = t->instances * INSTANCE_BYTES + t->clients * CLIENT_BYTES + t->devices * DEVICE_BYTES +
                      t->events * EVENT_BYTES + t->arrivals * ARRIVAL_BYTES + t->tasks * TASK_BYTES;
}

/* The sequence item under root[key] whose `field` (read by get) is
 * largest, or the key's own node. */
static const ss_node *largest(const ss_node *root, const char *key, double (*get)(const ss_scenario *, size_t),
                              const ss_scenario *sc, size_t n)
{
    const ss_node *seq = ss_map_find(root, key);
    if (!seq || seq->kind != SS_NODE_SEQ || seq->n != n || !get) return seq ? seq : root;
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (get(sc, i) > get(sc, best)) best = i;
    return seq->items[best];
}

static double deploy_instances(const ss_scenario *sc, size_t i) { return sc->deploys[i].instances; }
static double workload_clients(const ss_scenario *sc, size_t i) { return sc->workloads[i].clients; }

/* A periodic decision (the autoscaler's, a controller's) ticks over the
 * whole run and `extra_s` past it (a start-up, a stabilization it waits
 * out): at most SS_MAX_TICKS ticks, else refused at its period. */
static int ticks(const ss_scenario *sc, const ss_node *sec, const char *what, double period_s, double extra_s,
                 ss_err *err)
{
    double h_s = sc->duration_s + extra_s;
    if (!sec || !isfinite(h_s) || !(period_s > 0) || h_s / period_s <= SS_MAX_TICKS) return 0;
    const ss_node *at = ss_map_find(sec, "period_s");
    return ss_node_err(at ? at : sec, err,
                       "%s period_s: %g s is %.3g ticks over the run's %g s (duration_s and what a start-up or a "
                       "stabilization adds), more than %.0e: lengthen period_s or shorten the run",
                       what, period_s, h_s / period_s, h_s, SS_MAX_TICKS);
}

/* The longest a started instance may wait before it serves. */
static double longest_startup_s(const ss_scenario *sc)
{
    double m = 0;
    for (size_t d = 0; d < sc->ndeploys; d++) m = sc->deploys[d].startup_s > m ? sc->deploys[d].startup_s : m;
    for (size_t e = 0; e < sc->nevents; e++) m = sc->events[e].startup_s > m ? sc->events[e].startup_s : m;
    return m;
}

/* The longest a model's weights may take to cross the slowest link of the
 * topology (a cold start's download from storage, a copy between GPUs):
 * the run goes on at least that long after the load that starts it. */
static double longest_transfer_s(const ss_scenario *sc, char *link_out, size_t cap, double *bps_out)
{
    if (!sc->topo) return 0;
    double slowest_bps = INFINITY, bytes = 0;
    uint32_t at = 0;
    for (uint32_t l = 0; l < ss_topo_nlinks(sc->topo); l++)
        if (ss_topo_link_capacity_bps(sc->topo, l) < slowest_bps) {
            slowest_bps = ss_topo_link_capacity_bps(sc->topo, l);
            at = l;
        }
    for (uint32_t n = 0; n < ss_topo_nnodes(sc->topo); n++)
        if (ss_topo_conn_cap_bps(sc->topo, n) < slowest_bps) {
            slowest_bps = ss_topo_conn_cap_bps(sc->topo, n);
            at = UINT32_MAX - n;
        }
    for (size_t m = 0; m < sc->nmodels; m++) bytes = sc->models[m].weights_bytes > bytes ? sc->models[m].weights_bytes : bytes;
    if (!isfinite(slowest_bps) || !(bytes > 0)) return 0;
    if (at < ss_topo_nlinks(sc->topo))
        snprintf(link_out, cap, "the link %s -> %s", ss_topo_node_name(sc->topo, ss_topo_link_from(sc->topo, at)),
                 ss_topo_node_name(sc->topo, ss_topo_link_to(sc->topo, at)));
    else
        snprintf(link_out, cap, "a connection to %s", ss_topo_node_name(sc->topo, UINT32_MAX - at));
    *bps_out = slowest_bps;
    return 8 * bytes / slowest_bps;
}

int ss_sc_check_totals(const ss_scenario *sc, const ss_node *root, ss_err *err)
{
    /* Every variant runs every replication, one after another. */
    const ss_node *vs = ss_map_find(root, "variants");
    double nvar = vs && vs->kind == SS_NODE_SEQ && vs->n ? (double)vs->n : 1, runs = nvar * sc->replications;
    if (runs > SS_MAX_RUNS) {
        const ss_node *r = ss_map_find(root, "replications");
        return ss_node_err(r ? r : vs, err, "replications: %u replications of %.0f variants are %.3g runs, more than %.0e",
                           sc->replications, nvar, runs, SS_MAX_RUNS);
    }
    char slow_at[600] = "";
    double slow_bps = 0, move_s = sc->autoscale ? longest_transfer_s(sc, slow_at, sizeof slow_at, &slow_bps) : 0;
    if (sc->autoscale && move_s > sc->duration_s && /* else within twice what ticks() below allows */
        (sc->duration_s + move_s) / sc->autoscale->period_s > SS_MAX_TICKS) {
        const ss_node *t = ss_map_find(root, "topology");
        return ss_node_err(t ? t : root, err,
                           "topology: the largest model's weights take %.3g s at %g bit/s over %s (the slowest), "
                           "which is %.3g autoscaler ticks of period_s %g, more than %.0e: no run ends",
                           move_s, slow_bps, slow_at, (sc->duration_s + move_s) / sc->autoscale->period_s,
                           sc->autoscale->period_s, SS_MAX_TICKS);
    }
    if (sc->autoscale &&
        ticks(sc, ss_map_find(root, "autoscaling"), "autoscaling:", sc->autoscale->period_s,
              longest_startup_s(sc) + sc->autoscale->stabilization_s + sc->autoscale->decision_delay_s, err) < 0)
        return -1;
    if (sc->control && sc->control->period_s > 0 &&
        ticks(sc, ss_map_find(root, "control"), "control:", sc->control->period_s, longest_startup_s(sc), err) < 0)
        return -1;
    ss_sc_totals t;
    ss_sc_totals_of(sc, &t);
    double cap = ss_limit_memory_bytes();
    if (t.memory_bytes <= cap) return 0;
    /* Point at what costs most. */
    double share[] = {t.instances * INSTANCE_BYTES, t.clients * CLIENT_BYTES, t.devices * DEVICE_BYTES,
                      t.events * EVENT_BYTES, t.arrivals * ARRIVAL_BYTES, t.tasks * TASK_BYTES};
    size_t top = 0;
    for (size_t i = 1; i < sizeof share / sizeof *share; i++)
        if (share[i] > share[top]) top = i;
    static const char *const what[] = {"instances", "closed-loop clients", "devices", "scripted events",
                                       "trace arrivals", "models and tasks"};
    double count[] = {t.instances, t.clients, t.devices, t.events, t.arrivals, t.tasks};
    const ss_node *at = top == 0   ? (autoscaled(sc) > t.instances / 2
                                          ? ss_map_find(root, "autoscaling")
                                          : largest(root, "deployment", deploy_instances, sc, sc->ndeploys))
                        : top == 1 ? largest(root, "workloads", workload_clients, sc, sc->nworkloads)
                        : top == 2 ? (ss_map_find(root, "hosts") ? ss_map_find(root, "hosts") : ss_map_find(root, "topology"))
                        : top == 3 ? ss_map_find(root, "events")
                        : top == 4 ? ss_map_find(root, "workloads")
                                   : (ss_map_find(root, "tasks") ? ss_map_find(root, "tasks") : ss_map_find(root, "models"));
    return ss_node_err(at ? at : root, err,
                       "the scenario asks for %.0f %s in all: with the rest, about %.3g GiB of memory, more than the "
                       "%.3g GiB allowed (--max-memory SIZE raises it; docs/limits.md)",
                       count[top], what[top], t.memory_bytes / 1073741824.0, cap / 1073741824.0);
}
