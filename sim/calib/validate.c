/* validate.c: the matching and the runs of `servesim validate`
 * (validate.h, docs/validation.md).  A run of a profile is matched to the
 * scenario whose `validation.model` is its conditions.model and that can
 * set its transport and placement; the scenario is then loaded with the
 * chosen values' `set:` maps and the run's arrival, duration, warm-up and
 * batch as assignments, and simulated over every replication. */
#include "calib/validate.h"
#include "calib/validate_speed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "input/pipeline_cfg.h"
#include "input/scenario_load.h"
#include "world/world.h"

/* A scenario given on the command line. */
typedef struct vscen {
    const char *path;
    ss_doc *doc;               /* kept: the choices' set: maps point into it */
    ss_validation_cfg v;
    char *workload, *task;     /* the workload a run's arrival replaces, and its target */
    char *transport;           /* the pipeline's transport plugin, or NULL without a pipeline */
    double host_cores;         /* validation.background_cores.host's cores, else 0 */
    ss_val_speed speed;        /* validation.host_speed's per-run factors (empty without it) */
} vscen;

/* A run matched to its scenario, loaded under its conditions. */
typedef struct vjob {
    size_t scen;
    ss_assign *assigns;        /* the chosen values' set: entries */
    size_t nassigns;
    char **sets;               /* the command line's, then the conditions' ("key=value") */
    size_t nsets, nown;        /* nown: the conditions' ones, owned */
    ss_scenario sc;
    int loaded;
} vjob;

struct ss_val_session {
    const char **inputs, **what;
    size_t ninputs;
    ss_hwprofile *profs;
    size_t nprofs;
    vscen *scens;
    size_t nscens;
    vjob *jobs;
    ss_val_result *res;
    size_t njobs;
};

/* ---- reading ------------------------------------------------------------- */

/* 1 profile (a map with `servesim_profile`), 0 scenario, -1 unreadable;
 * *line, *col: a profile's `samples` key (for "no runs"), else the root. */
static int is_profile(const char *path, int *line, int *col, ss_err *err)
{
    ss_doc *doc = ss_doc_load(path, err);
    if (!doc) return -1;
    const ss_node *mark = doc->root->kind == SS_NODE_MAP ? ss_map_find(doc->root, "servesim_profile") : NULL;
    const ss_node *at = mark ? ss_map_find(doc->root, "samples") : NULL;
    *line = at ? at->key_line : doc->root->line;
    *col = at ? at->key_col : doc->root->col;
    ss_doc_free(doc);
    return mark != NULL;
}

static int read_scenario(vscen *s, const char *path, char *const *sets, size_t nsets, ss_err *err)
{
    s->path = path;
    ss_scenario sc;
    if (ss_scenario_load(&sc, path, NULL, sets, nsets, err) < 0) {
        ss_scenario_free(&sc);
        return -1;
    }
    int rc = 0;
    s->doc = ss_doc_load(path, err);
    for (size_t i = 0; s->doc && i < nsets && rc == 0; i++) rc = ss_doc_set(s->doc, sets[i], (int)i, err);
    if (!s->doc || rc < 0 || ss_validation_read(s->doc->root, &s->v, err) < 0) rc = -1;
    else if (!s->v.node)
        rc = ss_node_err(s->doc->root, err,
                         "scenario has no validation: section: say which runs it stands for (validation.model) and "
                         "what their conditions set (docs/validation.md)");
    if (rc == 0) {
        size_t w = 0; /* the loader checked the name, and that there is one workload without it */
        while (s->v.workload && strcmp(sc.workloads[w].name, s->v.workload) != 0) w++;
        s->workload = ss_xstrdup(sc.workloads[w].name);
        s->task = ss_xstrdup(sc.tasks[sc.workloads[w].task].name);
        if (sc.pipeline) s->transport = ss_xstrdup(sc.pipeline->transport.name);
        if (s->v.background_host && !(s->host_cores = sc.pipeline ? ss_pipeline_host_cores(&sc, s->v.background_host) : 0))
            rc = ss_node_err(ss_map_find(s->v.background_node, "host"), err,
                             "background_cores: host '%s' has no cores to take them from (a pipeline's host_cores, "
                             "or its kind: cpu devices' cores)",
                             s->v.background_host);
    }
    if (rc == 0 && s->v.speed_host) {
        if (!sc.pipeline || !sc.pipeline->compute_shared || !(ss_pipeline_host_cores(&sc, s->v.speed_host) > 0))
            rc = ss_node_err(ss_map_find(s->v.speed_node, "host"), err,
                             "host_speed: host '%s' has no shared CPU to scale (a pipeline under compute: shared "
                             "with cores on that host)",
                             s->v.speed_host);
        else
            rc = ss_val_speed_read(s->v.speed_model, &s->speed, err);
    }
    ss_scenario_free(&sc);
    return rc;
}

/* ---- matching -------------------------------------------------------------- */

static char *choice_list(const ss_val_choices *c)
{
    char *buf = NULL;
    size_t len;
    FILE *f = ss_xmemstream(&buf, &len);
    for (size_t i = 0; i < c->n; i++) fprintf(f, "%s%s", i ? ", " : "", c->items[i].value);
    fclose(f);
    return buf;
}

/* NULL if scenario s can set run r's conditions, else why not (allocated). */
static char *cannot(const vscen *s, const ss_hwp_run *r)
{
    if (r->transport && s->v.transport.node && !ss_val_choice_find(&s->v.transport, r->transport)) {
        char *l = choice_list(&s->v.transport), *why =
            ss_xasprintf("transport '%s' is not one validation.transport sets (%s)", r->transport, l);
        free(l);
        return why;
    }
    if (r->transport && !s->v.transport.node && !s->transport)
        return ss_xasprintf("transport '%s': the scenario has no pipeline, so no transport to set", r->transport);
    if (r->transport && !s->v.transport.node && strcmp(s->transport, r->transport) != 0)
        return ss_xasprintf("transport '%s': the scenario's pipeline uses '%s', and it has no validation.transport "
                            "to set another", r->transport, s->transport);
    if (r->placement && s->v.placement.node && !ss_val_choice_find(&s->v.placement, r->placement)) {
        char *l = choice_list(&s->v.placement), *why =
            ss_xasprintf("placement '%s' is not one validation.placement sets (%s)", r->placement, l);
        free(l);
        return why;
    }
    if (s->v.background_host && !isnan(r->background_cores) && !(r->background_cores < s->host_cores))
        return ss_xasprintf("background_cores %g leaves none of host '%s''s %g cores", r->background_cores,
                            s->v.background_host, s->host_cores);
    if (s->v.speed_host && isnan(ss_val_speed_of(&s->speed, r->id)))
        return ss_xasprintf("validation.host_speed: %s has no host speed for run '%s' (host_speed.runs)", s->speed.path,
                            r->id);
    if (r->batch != 1 && !s->transport)
        return ss_xasprintf("batch %u: the scenario has no pipeline: whose batch to set", r->batch);
    return NULL;
}

static int match(ss_val_session *S, const ss_hwprofile *p, const ss_hwp_run *r, size_t *out, ss_err *err)
{
    size_t found = 0, nmodel = 0, first = 0;
    char *why = NULL;
    for (size_t k = 0; k < S->nscens; k++) {
        if (strcmp(S->scens[k].v.model, r->model) != 0) continue;
        nmodel++;
        char *w = cannot(&S->scens[k], r);
        if (!w) {
            if (found++) {
                return ss_err_at(err, p->path, r->line, r->col,
                                 "run '%s': both %s and %s stand for it: make their validation.model or "
                                 "validation.transport differ",
                                 r->id, S->scens[first].path, S->scens[k].path);
            }
            first = k;
        } else if (!why) {
            why = ss_xasprintf("%s: %s", S->scens[k].path, w);
        }
        free(w);
    }
    if (found) {
        free(why);
        *out = first;
        return 0;
    }
    if (nmodel) {
        ss_err_at(err, p->path, r->line, r->col, "run '%s': no scenario can set its conditions (%s)", r->id, why);
        free(why);
        return -1;
    }
    char *models = NULL;
    size_t len;
    FILE *f = ss_xmemstream(&models, &len);
    for (size_t k = 0; k < S->nscens; k++) fprintf(f, "%s'%s' (%s)", k ? ", " : "", S->scens[k].v.model, S->scens[k].path);
    fclose(f);
    ss_err_at(err, p->path, r->line, r->col, "run '%s': no scenario stands for model '%s' (the scenarios stand for %s)",
              r->id, r->model, models);
    free(models);
    return -1;
}

static void add_assigns(vjob *j, const ss_val_choice *c)
{
    for (size_t i = 0; c && c->set && i < c->set->n; i++) {
        const ss_node *e = c->set->items[i];
        j->assigns = ss_xrealloc(j->assigns, (j->nassigns + 1) * sizeof *j->assigns);
        j->assigns[j->nassigns++] = (ss_assign){e->key, e, e->file, e->key_line, e->key_col};
    }
}

/* A name as a YAML double-quoted scalar. */
static char *quoted(const char *s)
{
    char *buf = NULL;
    size_t len;
    FILE *f = ss_xmemstream(&buf, &len);
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
    fclose(f);
    return buf;
}

static void add_set(vjob *j, char *s)
{
    j->sets = ss_xrealloc(j->sets, (j->nsets + 1) * sizeof *j->sets);
    j->sets[j->nsets++] = s;
    j->nown++;
}

/* A poisson run with its measured send instants: the workload replays them
 * (a trace from time 0, the run's start), so the simulated run sees the
 * arrivals the real one saw, not another draw at the same rate. */
static char *replay(const char *workload, const char *wl, const char *task, const ss_hwp_run *r)
{
    char *buf = NULL;
    size_t len;
    FILE *f = ss_xmemstream(&buf, &len);
    fprintf(f, "workloads.%s={name: %s, kind: trace, target: %s, times_s: [", workload, wl, task);
    for (size_t i = 0; i < r->narrivals; i++) fprintf(f, "%s%.17g", i ? ", " : "", r->arrivals_s[i]);
    fputs("]}", f);
    fclose(f);
    return buf;
}

/* The assignments that put scenario s under run r's conditions. */
static void conditions(vjob *j, const vscen *s, const ss_hwp_run *r, char *const *sets, size_t nsets)
{
    if (r->transport) add_assigns(j, ss_val_choice_find(&s->v.transport, r->transport));
    if (r->placement) add_assigns(j, ss_val_choice_find(&s->v.placement, r->placement));
    for (size_t i = 0; i < nsets; i++) {
        j->sets = ss_xrealloc(j->sets, (j->nsets + 1) * sizeof *j->sets);
        j->sets[j->nsets++] = sets[i];
    }
    char *wl = quoted(s->workload), *task = quoted(s->task);
    if (r->clients)
        add_set(j, ss_xasprintf("workloads.%s={name: %s, kind: closed, target: %s, clients: %u}", s->workload, wl, task,
                                r->clients));
    else if (r->narrivals)
        add_set(j, replay(s->workload, wl, task, r));
    else
        add_set(j, ss_xasprintf("workloads.%s={name: %s, kind: poisson, target: %s, rate_rps: %.17g}", s->workload, wl,
                                task, r->rate_per_s));
    free(wl);
    free(task);
    /* conditions.duration_s is the measured window, after the warm-up (as the probe measures) */
    add_set(j, ss_xasprintf("duration_s=%.17g", r->warmup_s + r->duration_s));
    add_set(j, ss_xasprintf("warmup_s=%.17g", r->warmup_s));
    add_set(j, ss_xstrdup("warmup_requests=0"));
    if (s->transport) add_set(j, ss_xasprintf("pipeline.batch=%u", r->batch));
    if (s->v.background_host && !isnan(r->background_cores))
        add_set(j, ss_xasprintf("pipeline.host_cores.%s=%.17g", s->v.background_host, s->host_cores - r->background_cores));
    if (s->v.speed_host)
        add_set(j, ss_xasprintf("pipeline.host_time_factor.%s=%.17g", s->v.speed_host,
                                ss_val_speed_of(&s->speed, r->id)));
}

/* Is a poisson run's throughput more than the gap below the load it offered?
 * With its send instants recorded, the load is the arrivals inside its window
 * [warm-up, warm-up + duration) (a 10 s window at 3.5/s holds 35 +- 6: a drawn
 * schedule can fall 15% below its rate_per_s with nothing queueing), and the
 * shortfall in requests must also be more than a stable queue's edges make: the
 * requests in flight at the window's end are not counted, those in flight at
 * its start are, each about L = offered x mean latency (Little's law), so the
 * shortfall is about 0 with a spread of about sqrt(2 L); three of those
 * (at 20% load two requests sent in the last 0.1 s are no backlog).  Without
 * the instants, against rate_per_s. */
static int below_offered(const vscen *s, const ss_hwp_run *r)
{
    double gap = s->v.saturation_gap;
    if (!r->narrivals || !(r->duration_s > 0)) return r->throughput_per_s < (1 - gap) * r->rate_per_s;
    size_t n = 0;
    for (size_t i = 0; i < r->narrivals; i++)
        n += r->arrivals_s[i] >= r->warmup_s && r->arrivals_s[i] < r->warmup_s + r->duration_s;
    double offered = (double)n / r->duration_s, short_by = (double)n - r->throughput_per_s * r->duration_s;
    double in_flight = offered * r->latency_mean_s;
    return r->throughput_per_s < (1 - gap) * offered && short_by > 3 * sqrt(2 * in_flight);
}

/* Saturation of the poisson runs: the throughput gap below the offered load, or
 * the highest of two or more rates of one (model, transport, batch, placement). */
static int saturated(const ss_val_session *S, const vscen *s, const ss_hwp_run *r)
{
    if (r->clients) return 0;
    if (below_offered(s, r)) return 1;
    if (!s->v.saturation_highest) return 0;
    size_t group = 0;
    int highest = 1;
    for (size_t p = 0; p < S->nprofs; p++)
        for (size_t k = 0; k < S->profs[p].nruns; k++) {
            const ss_hwp_run *o = &S->profs[p].runs[k];
            if (o->clients || strcmp(o->model, r->model) != 0 || o->batch != r->batch ||
                (o->transport == NULL) != (r->transport == NULL) ||
                (o->transport && strcmp(o->transport, r->transport) != 0) ||
                (o->placement == NULL) != (r->placement == NULL) ||
                (o->placement && strcmp(o->placement, r->placement) != 0))
                continue;
            group++;
            highest &= o->rate_per_s <= r->rate_per_s;
        }
    return group >= 2 && highest;
}

/* ---- the session ------------------------------------------------------------ */

static int read_inputs(ss_val_session *S, const char *const *files, size_t n, char *const *sets, size_t nsets,
                       ss_err *err)
{
    for (size_t i = 0; i < n; i++) {
        int line, col, kind = is_profile(files[i], &line, &col, err);
        if (kind < 0) return -1;
        S->inputs[S->ninputs] = files[i];
        S->what[S->ninputs++] = kind ? "profile" : "scenario";
        if (kind) {
            ss_hwprofile *p = &S->profs[S->nprofs];
            if (ss_hwprofile_load(files[i], p, err) < 0) return -1;
            S->nprofs++;
            if (p->nruns == 0)
                return ss_err_at(err, files[i], line, col,
                                 "the profile has samples but no end-to-end runs (runs:): nothing to validate");
        } else if (read_scenario(&S->scens[S->nscens++], files[i], sets, nsets, err) < 0) {
            return -1;
        }
    }
    if (S->nprofs == 0) return ss_err_at(err, NULL, 0, 0, "servesim validate: no profile among the files given");
    if (S->nscens == 0) return ss_err_at(err, NULL, 0, 0, "servesim validate: no scenario among the files given");
    return 0;
}

ss_val_session *ss_val_open(const char *const *files, size_t n, char *const *sets, size_t nsets, ss_err *err)
{
    ss_val_session *S = ss_xcalloc(1, sizeof *S);
    S->inputs = ss_xcalloc(n + 1, sizeof *S->inputs);
    S->what = ss_xcalloc(n + 1, sizeof *S->what);
    S->profs = ss_xcalloc(n + 1, sizeof *S->profs);
    S->scens = ss_xcalloc(n + 1, sizeof *S->scens);
    if (read_inputs(S, files, n, sets, nsets, err) < 0) {
        ss_val_close(S);
        return NULL;
    }
    size_t total = 0;
    for (size_t p = 0; p < S->nprofs; p++) total += S->profs[p].nruns;
    S->jobs = ss_xcalloc(total + 1, sizeof *S->jobs);
    S->res = ss_xcalloc(total + 1, sizeof *S->res);
    for (size_t p = 0; p < S->nprofs; p++)
        for (size_t k = 0; k < S->profs[p].nruns; k++) {
            const ss_hwp_run *r = &S->profs[p].runs[k];
            vjob *j = &S->jobs[S->njobs];
            ss_val_result *res = &S->res[S->njobs++];
            if (match(S, &S->profs[p], r, &j->scen, err) < 0) goto bad;
            const vscen *s = &S->scens[j->scen];
            conditions(j, s, r, sets, nsets);
            j->loaded = 1;
            if (ss_scenario_load_with(&j->sc, s->path, NULL, j->assigns, j->nassigns, j->sets, j->nsets, err) < 0)
                goto bad;
            ss_world *w = ss_world_build(&j->sc, 0, NULL, err); /* plugins loaded and initialised */
            if (!w) goto bad;
            ss_world_free(w);
            *res = (ss_val_result){.profile = &S->profs[p], .run = r, .scenario = s->path};
            res->saturated = saturated(S, s, r);
            res->regime = r->clients ? SS_VAL_CLOSED : res->saturated ? SS_VAL_SATURATED : SS_VAL_BELOW;
            const double m[SS_VAL_NMETRICS] = {r->throughput_per_s, r->latency_mean_s, r->latency_p50_s,
                                               r->latency_p99_s, r->requests};
            for (int i = 0; i < SS_VAL_NMETRICS; i++) {
                res->measured[i] = m[i];
                res->tol[i] = s->v.tol[res->regime][i];
            }
        }
    return S;
bad:
    ss_val_close(S);
    return NULL;
}

size_t ss_val_inputs(const ss_val_session *s, const char *const **paths, const char *const **what)
{
    *paths = s->inputs;
    *what = s->what;
    return s->ninputs;
}

size_t ss_val_counts(const ss_val_session *s, size_t *nprofiles, size_t *nscenarios)
{
    *nprofiles = s->nprofs;
    *nscenarios = s->nscens;
    return s->njobs;
}

int ss_val_run(ss_val_session *S, const ss_val_result **out, size_t *nout, ss_err *err)
{
    for (size_t i = 0; i < S->njobs; i++) {
        vjob *j = &S->jobs[i];
        ss_val_result *res = &S->res[i];
        double sum[SS_VAL_NMETRICS] = {0};
        for (uint32_t rep = 0; rep < j->sc.replications; rep++) {
            ss_world *w = ss_world_build(&j->sc, rep, NULL, err);
            if (!w) return -1;
            ss_world_run(w);
            if (ss_world_broken(w)) {
                ss_err_at(err, NULL, 0, 0, "servesim: internal check failed in run '%s' (%s), replication %u: %s",
                          res->run->id, j->sc.path, rep, ss_world_broken(w));
                ss_world_free(w);
                return -1;
            }
            ss_run_result rr;
            ss_world_result(w, &rr);
            const ss_task_result *all = &rr.tasks[rr.ntasks - 1];
            /* a profile's throughput_per_s counts the completions inside the window, as a load
             * generator does (docs/profiles.md), so the simulated one is counted the same way */
            sum[SS_VAL_THROUGHPUT] += rr.window_throughput_rps;
            sum[SS_VAL_MEAN] += all->latency_mean_s;
            sum[SS_VAL_P50] += all->latency_p50_s;
            sum[SS_VAL_P99] += all->latency_p99_s;
            sum[SS_VAL_REQUESTS] += (double)all->completed;
            ss_run_result_free(&rr);
            ss_world_free(w);
        }
        for (int m = 0; m < SS_VAL_NMETRICS; m++) {
            double sim = sum[m] / j->sc.replications, meas = res->measured[m];
            res->simulated[m] = sim;
            res->rel_error[m] = meas != 0 ? (sim - meas) / meas : sim == 0 ? 0 : INFINITY;
        }
    }
    *out = S->res;
    *nout = S->njobs;
    return 0;
}

int ss_val_failed(const ss_val_result *r, ss_val_metric m)
{
    return !isnan(r->tol[m]) && !(fabs(r->rel_error[m]) <= r->tol[m]);
}

void ss_val_close(ss_val_session *S)
{
    if (!S) return;
    for (size_t i = 0; i < S->njobs; i++) {
        vjob *j = &S->jobs[i];
        if (j->loaded) ss_scenario_free(&j->sc);
        free(j->assigns);
        for (size_t k = j->nsets - j->nown; k < j->nsets; k++) free(j->sets[k]);
        free(j->sets);
    }
    for (size_t i = 0; i < S->nprofs; i++) ss_hwprofile_free(&S->profs[i]);
    for (size_t i = 0; i < S->nscens; i++) {
        ss_validation_free(&S->scens[i].v);
        ss_val_speed_free(&S->scens[i].speed);
        ss_doc_free(S->scens[i].doc);
        free(S->scens[i].workload);
        free(S->scens[i].task);
        free(S->scens[i].transport);
    }
    free(S->jobs);
    free(S->res);
    free(S->profs);
    free(S->scens);
    free(S->inputs);
    free(S->what);
    free(S);
}
