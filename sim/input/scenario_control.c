/* scenario_control.c: the `dispatch:` and `control:` sections
 * (docs/control.md), ROMA's serving model made general (seed roma.md):
 *
 *   dispatch:                      # devices with `time_shared: true`
 *     scheduler: {name: roma, alpha: 0.8, beta: 0.5}   # default gpu-rr
 *     window_s: 1                  # the response times it sees: the last window_s
 *   control:                       # containers' cores, every period
 *     controller: {name: roma-pi, K: 0.15, a: 0.11}
 *     period_s: 1
 *     gamma: 0                     # supervisor's fill of spare cores
 *     reserved_cores: 0            # per worker, for GPU support (ROMA's GC)
 *     min_cores: 0.05
 *     violation_window_s: 1
 *
 * It also checks what the two need of the deployment: an executable on a
 * time-shared device is one FIFO server behind its model's shared queue,
 * one per model and device; a controlled container (a ps instance with a
 * cap on a CPU device behind a shared queue) starts with cores that, with
 * its worker's other containers, fit the worker's cores less the reserved
 * ones. */
#include "input/scenario_control.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/section.h"

int ss_sc_is_container(const ss_scenario *sc, size_t d)
{
    const ss_deploy_cfg *dc = &sc->deploys[d];
    return dc->discipline == SS_DISC_PS && dc->shared_queue && dc->cap > 0 &&
           sc->devices[dc->device].kind == SS_DEV_CPU;
}

/* A deployment entry's node, for messages: the n-th item of `deployment:`
 * is not at hand here, so messages point at the line the entry gave. */
static int deploy_err(const ss_scenario *sc, size_t d, ss_err *err, const char *msg)
{
    return ss_err_at(err, sc->path, sc->deploys[d].line, sc->deploys[d].col, "%s", msg);
}

static int check_time_shared(const ss_scenario *sc, ss_err *err)
{
    for (size_t d = 0; d < sc->ndeploys; d++) {
        const ss_deploy_cfg *dc = &sc->deploys[d];
        const ss_device_cfg *dev = &sc->devices[dc->device];
        if (!dev->time_shared) continue;
        char *msg = NULL;
        if (dc->discipline != SS_DISC_FIFO || !dc->shared_queue || dc->servers != 1)
            msg = ss_xasprintf("device '%s' is time-shared: its executables are FIFO, one server, behind their "
                               "model's shared queue (queue: shared)", dev->name);
        else if (dc->instances > 1)
            msg = ss_xasprintf("device '%s' is time-shared: one executable of model '%s' there, not %u", dev->name,
                               sc->models[dc->model].name, dc->instances);
        for (size_t k = 0; !msg && k < d; k++)
            if (sc->deploys[k].device == dc->device && sc->deploys[k].model == dc->model && sc->deploys[k].instances)
                msg = ss_xasprintf("device '%s' is time-shared: model '%s' has an executable there already (line %d)",
                                   dev->name, sc->models[dc->model].name, sc->deploys[k].line);
        if (msg) {
            int rc = deploy_err(sc, d, err, msg);
            free(msg);
            return rc;
        }
    }
    return 0;
}

/* Instances that come and go do not join a device's gate: refuse them there. */
static int check_static(const ss_scenario *sc, const ss_node *root, ss_err *err)
{
    for (size_t v = 0; v < sc->ndevices; v++) {
        if (!sc->devices[v].time_shared) continue;
        if (sc->autoscale)
            return ss_node_err(ss_map_find(root, "autoscaling"), err,
                               "autoscaling: device '%s' is time-shared, and its executables are fixed for the run "
                               "(an autoscaler's replicas would not take turns on it)",
                               sc->devices[v].name);
        for (size_t e = 0; e < sc->nevents; e++)
            if (sc->events[e].kind == SS_EV_ADD && sc->deploys[sc->events[e].deploy].device == v)
                return ss_node_err(ss_map_find(root, "events"), err,
                                   "events: an 'add' on time-shared device '%s': its executables are fixed for the run",
                                   sc->devices[v].name);
    }
    return 0;
}

static int read_dispatch(ss_scenario *sc, ss_control_cfg *c, const ss_node *sec, ss_err *err)
{
    static const char *const keys[] = {"scheduler", "window_s", NULL};
    c->window_s = 1;
    if (sec) TRY(ss_cfg_check_keys(sec, keys, "dispatch", err));
    int rc = ss_policy_cfg_read(&c->scheduler, sec, "scheduler", "gpu-rr", err);
    c->scheduler.file = ss_xstrdup(c->scheduler.file ? c->scheduler.file : sc->path); /* the document goes away */
    TRY(rc);
    if (sec) TRY(ss_cfg_num(sec, "window_s", &c->window_s, SS_POS, err));
    return 0;
}

/* The containers' starting cores on each worker fit its cores less the reserved ones. */
static int check_fit(const ss_scenario *sc, const ss_control_cfg *c, ss_err *err)
{
    for (size_t v = 0; v < sc->ndevices; v++) {
        double sum = 0;
        size_t last = 0;
        for (size_t d = 0; d < sc->ndeploys; d++)
            if (sc->deploys[d].device == v && ss_sc_is_container(sc, d)) {
                sum += sc->deploys[d].cap * sc->deploys[d].instances;
                last = d;
            }
        double avail = (double)sc->devices[v].cores - c->reserved_cores;
        if (sum > avail + 1e-9) {
            char *msg = ss_xasprintf("the containers on '%s' start with %g cores in all, above its %u cores less "
                                     "the %g reserved (%g): lower their caps",
                                     sc->devices[v].name, sum, sc->devices[v].cores, c->reserved_cores, avail);
            int rc = deploy_err(sc, last, err, msg);
            free(msg);
            return rc;
        }
    }
    return 0;
}

static int read_controls(ss_scenario *sc, ss_control_cfg *c, const ss_node *sec, ss_err *err)
{
    static const char *const keys[] = {"controller", "period_s",  "gamma",
                                       "reserved_cores", "min_cores", "violation_window_s", NULL};
    TRY(ss_cfg_check_keys(sec, keys, "control", err));
    c->on = 1;
    if (!ss_map_find(sec, "controller"))
        return ss_node_err(sec, err, "control: missing key 'controller' (a controller plugin: roma-pi, rules, static)");
    int rc = ss_policy_cfg_read(&c->controller, sec, "controller", "", err);
    c->controller.file = ss_xstrdup(c->controller.file ? c->controller.file : sec->file);
    TRY(rc);
    c->period_s = 1;
    c->min_cores = 0.05;
    c->violation_window_s = 1;
    const ss_node *pn = ss_map_find(sec, "period_s");
    if (pn && pn->kind == SS_NODE_SCALAR) {
        char *end = NULL;
        double v = ss_strtod(pn->value, &end);
        if (end && !*end && v <= 0)
            return ss_node_err(pn, err, "period_s: the control period must be positive (seconds), got %g", v);
    }
    TRY(ss_cfg_num(sec, "period_s", &c->period_s, SS_POS, err));
    if (c->period_s < 1e-3 || c->period_s > 1e6)
        return ss_node_err(pn, err, "period_s: expected 0.001 to 1e6 s, got %g", c->period_s);
    TRY(ss_cfg_num(sec, "gamma", &c->gamma, SS_NONNEG, err));
    if (c->gamma > 1) return ss_node_err(ss_map_find(sec, "gamma"), err, "gamma: expected 0 to 1, got %g", c->gamma);
    TRY(ss_cfg_num(sec, "reserved_cores", &c->reserved_cores, SS_NONNEG, err));
    TRY(ss_cfg_num(sec, "min_cores", &c->min_cores, SS_POS, err));
    TRY(ss_cfg_num(sec, "violation_window_s", &c->violation_window_s, SS_POS, err));
    size_t n = 0;
    for (size_t d = 0; d < sc->ndeploys; d++) {
        if (!ss_sc_is_container(sc, d)) continue;
        n++;
        double avail = (double)sc->devices[sc->deploys[d].device].cores - c->reserved_cores;
        if (!(avail > c->min_cores)) {
            char *msg = ss_xasprintf("device '%s': %u cores less the %g reserved leave no more than min_cores (%g)",
                                     sc->devices[sc->deploys[d].device].name, sc->devices[sc->deploys[d].device].cores,
                                     c->reserved_cores, c->min_cores);
            int r = ss_node_err(ss_map_find(sec, "reserved_cores") ? ss_map_find(sec, "reserved_cores") : sec, err,
                                "%s", msg);
            free(msg);
            return r;
        }
    }
    if (n == 0)
        return ss_node_err(sec, err, "control: no container to control (a deployment entry with discipline: ps, "
                                     "queue: shared and a cap, on a CPU device)");
    return check_fit(sc, c, err);
}

int ss_sc_read_control(ss_scenario *sc, const ss_node *root, ss_err *err)
{
    ss_node *disp = NULL, *ctl = NULL;
    TRY(ss_cfg_map(root, "dispatch", &disp, 0, err));
    TRY(ss_cfg_map(root, "control", &ctl, 0, err));
    int shared = 0;
    for (size_t v = 0; v < sc->ndevices; v++) shared |= sc->devices[v].time_shared;
    if (!disp && !ctl && !shared) return 0;
    if (disp && !shared)
        return ss_node_err(disp, err, "dispatch: no device is time-shared (give a device `time_shared: true`)");
    sc->control = ss_xcalloc(1, sizeof *sc->control);
    TRY(check_time_shared(sc, err));
    TRY(check_static(sc, root, err));
    TRY(read_dispatch(sc, sc->control, disp, err));
    if (ctl) TRY(read_controls(sc, sc->control, ctl, err));
    return 0;
}

void ss_control_cfg_free(ss_control_cfg *c)
{
    if (!c) return;
    ss_policy_cfg_free(&c->scheduler);
    ss_policy_cfg_free(&c->controller);
    free(c);
}
