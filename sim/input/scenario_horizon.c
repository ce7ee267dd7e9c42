/* scenario_horizon.c: `--duration`, the run's duration_s and every workload's
 * length moved together on the scenario's tree (the rules: scenario_horizon.h). */
#include "input/scenario_horizon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/llm_cfg.h"

/* x as the shortest text that reads back as x (at most 17 digits). */
static char *num_text(double x)
{
    for (int digits = 6;; digits++) {
        char *s = ss_xasprintf("%.*g", digits, x);
        if (digits >= 17 || strtod(s, NULL) == x) return s;
        free(s);
    }
}

/* A number at map[key] as the reader will see it; def if absent, NAN if it
 * is not a number (the reader will say so, positioned). */
static double num_or(const ss_node *map, const char *key, double def)
{
    const ss_node *n = ss_map_find(map, key);
    if (!n) return def;
    if (n->kind != SS_NODE_SCALAR) return NAN;
    char *end;
    double v = ss_strtod(n->value, &end);
    return *end || !n->value[0] ? NAN : v;
}

static const char *kind_of(const ss_node *wl)
{
    const ss_node *k = ss_map_find(wl, "kind");
    return k && k->kind == SS_NODE_SCALAR ? k->value : "";
}

/* Write x at `path` (created if absent), positioned at --duration. */
static int put(ss_doc *doc, const char *path, double x, ss_err *err)
{
    ss_node v = {.kind = SS_NODE_SCALAR, .value = num_text(x), .file = SS_HORIZON_FILE, .line = 1, .col = 1,
                 .key_line = 1, .key_col = 1};
    int rc = ss_doc_set_value(doc, path, &v, SS_HORIZON_FILE, 1, 1, err);
    free(v.value);
    return rc;
}

/* A steps schedule from start_s stretched by (horizon - start_s) / (old -
 * start_s), in place; left alone where it is not yet well formed (its
 * reader will say what is wrong). */
static void stretch_steps(ss_node *wl, double horizon_s, double old_s)
{
    ss_node *seq = ss_map_find(wl, "steps");
    double start = num_or(wl, "start_s", 0), last = start;
    if (!seq || seq->kind != SS_NODE_SEQ || !isfinite(start)) return;
    for (size_t i = 0; i < seq->n; i++) {
        double u = seq->items[i]->kind == SS_NODE_MAP ? num_or(seq->items[i], "until_s", NAN) : NAN;
        if (!isfinite(u)) return;
        last = u;
    }
    double from = isfinite(old_s) ? old_s : last; /* without duration_s, the schedule spans its own horizon */
    if (!(from > start) || !(horizon_s > start)) return; /* it never ran, or will not run: as written */
    double k = (horizon_s - start) / (from - start);
    for (size_t i = 0; i < seq->n; i++) {
        ss_node *u = ss_map_find(seq->items[i], "until_s");
        double v = start + (num_or(seq->items[i], "until_s", 0) - start) * k;
        free(u->value);
        u->value = num_text(v);
    }
}

int ss_sc_horizon_edit(ss_doc *doc, double horizon_s, double *old_s, ss_err *err)
{
    ss_node *root = doc->root;
    *old_s = INFINITY;
    if (!root || root->kind != SS_NODE_MAP) return 0; /* the reader says what it is */
    double old = num_or(root, "duration_s", INFINITY);
    if (isfinite(old) && old > 0) *old_s = old;
    if (put(doc, "duration_s", horizon_s, err) < 0) return -1;
    ss_node *wls = ss_map_find(root, "workloads");
    for (size_t i = 0; wls && wls->kind == SS_NODE_SEQ && i < wls->n; i++) {
        ss_node *wl = wls->items[i];
        if (wl->kind != SS_NODE_MAP) continue;
        const char *kind = kind_of(wl);
        if (strcmp(kind, "steps") == 0) {
            stretch_steps(wl, horizon_s, *old_s);
        } else if (strcmp(kind, "synthetic") == 0) {
            double start = num_or(wl, "start_s", 0), lead = num_or(wl, "lead_s", 0);
            double len = horizon_s - start - lead;
            if (!(len > 0)) continue; /* it starts after the horizon (or is malformed): as written */
            char *path = ss_xasprintf("workloads.%zu.length_s", i);
            int rc = put(doc, path, len, err);
            free(path);
            if (rc < 0) return -1;
        }
    }
    return 0;
}

/* what (" ends at", a trace, or " end at", minutes) before the horizon: refused at `at`. */
static int refuse(const ss_node *at, const char *what, double end_s, double horizon_s, const char *longer, ss_err *err)
{
    return ss_node_err(at, err,
                       "%s at %g s, before the %g s --duration asks for: a trace cannot stretch (%s, or a --duration "
                       "of at most %g)",
                       what, end_s, horizon_s, longer, end_s);
}

int ss_sc_horizon_check(const ss_scenario *sc, const ss_doc *doc, double horizon_s, double old_s, ss_err *err)
{
    if (isfinite(old_s) && !(horizon_s > old_s)) return 0; /* no longer than the scenario ran: nothing to cover */
    const ss_node *wls = ss_map_find(doc->root, "workloads");
    for (size_t i = 0; wls && i < sc->nworkloads && i < wls->n; i++) {
        const ss_workload_cfg *w = &sc->workloads[i];
        const ss_node *wl = wls->items[i];
        int azure = strcmp(kind_of(wl), "azure_functions") == 0;
        double end = NAN;
        if (w->kind == SS_WL_TRACE && w->ntimes) end = w->start_s + w->times_s[w->ntimes - 1];
        else if (azure && w->nsteps) end = w->steps[w->nsteps - 1].until_s;
        if (!(end < horizon_s)) continue;
        const ss_node *at = ss_map_find(wl, "file");
        if (!at) at = ss_map_find(wl, "times_s");
        char *what = ss_xasprintf("workload '%s': its %s", w->name, azure ? "minutes end" : "trace ends");
        int rc = refuse(at ? at : wl, what, end, horizon_s,
                        azure ? "more minutes of the file" : "a longer trace or a time_scale", err);
        free(what);
        return rc;
    }
    const ss_node *llm = ss_map_find(doc->root, "llm"), *lw = llm ? ss_map_find(llm, "workload") : NULL;
    const ss_node *tr = lw ? ss_map_find(lw, "trace") : NULL;
    if (tr && sc->llm && sc->llm->ntrace && sc->llm->trace_s[sc->llm->ntrace - 1] < horizon_s)
        return refuse(tr, "llm.workload: its trace ends", sc->llm->trace_s[sc->llm->ntrace - 1], horizon_s,
                      "a longer trace or a time_scale", err);
    return 0;
}
