/* section.c: what every section reader of the scenario schema shares -
 * names and references to them, device references, finding a model
 * profile, policy choices.  scenario.c and the section readers
 * (scenario_workload.c, pipeline_cfg.c, edge_cfg.c) sit above it, so the
 * schema has no include circle. */
#include "input/section.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SS_MODEL_DIR
#define SS_MODEL_DIR "/usr/local/share/servesim/models"
#endif

/* Required string naming something: "name" keys, references. */
int ss_sc_read_name(const ss_node *map, const char *key, char **out, ss_err *err)
{
    const char *s;
    TRY(ss_cfg_name(map, key, &s, SS_REQ, err));
    *out = ss_xstrdup(s);
    return 0;
}

int ss_sc_index_device(ss_scenario *sc, uint32_t i)
{
    const char *full = sc->devices[i].name, *slash = strchr(full, '/');
    if (ss_nameidx_put(&sc->device_names, full, i) != SS_NAMEIDX_NONE) return -1;
    if (slash && ss_nameidx_put(&sc->device_short, slash + 1, i) != SS_NAMEIDX_NONE)
        ss_nameidx_set(&sc->device_short, slash + 1, SS_SC_AMBIGUOUS);
    return 0;
}

/* A device reference: "host/device", or a device name unique across hosts. */
int ss_scenario_device(const ss_scenario *sc, const ss_node *n, uint32_t *out, ss_err *err)
{
    uint32_t i = ss_nameidx_get(&sc->device_names, n->value);
    if (i == SS_NAMEIDX_NONE) i = ss_nameidx_get(&sc->device_short, n->value);
    if (i == SS_SC_AMBIGUOUS)
        return ss_node_err(n, err, "device '%s' is ambiguous: write it as host/device", n->value);
    if (i != SS_NAMEIDX_NONE) {
        *out = i;
        return 0;
    }
    char **names = ss_xcalloc(sc->ndevices + 1, sizeof *names);
    for (size_t k = 0; k < sc->ndevices; k++) names[k] = sc->devices[k].name;
    int rc = ss_node_unknown(n, "device", (const char *const *)names, err);
    free(names);
    return rc;
}

/* models/<name>.json in the scenario's folder or any folder above it, then
 * $SERVESIM_MODEL_PATH, then the install folder. */
char *ss_scenario_find_profile(const char *scenario_dir, const char *name)
{
    char *dir = ss_xstrdup(scenario_dir);
    for (int depth = 0; depth < 16; depth++) {
        char *p = ss_xasprintf("%s/models/%s.json", dir, name);
        if (access(p, R_OK) == 0) {
            free(dir);
            return p;
        }
        free(p);
        char *up = strcmp(dir, ".") == 0 ? ss_xstrdup("..") : ss_xasprintf("%s/..", dir);
        free(dir);
        dir = up;
    }
    free(dir);
    const char *env = getenv("SERVESIM_MODEL_PATH");
    if (env && *env) {
        char *copy = ss_xstrdup(env), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            char *p = ss_xasprintf("%s/%s.json", d, name);
            if (access(p, R_OK) == 0) {
                free(copy);
                return p;
            }
            free(p);
        }
        free(copy);
    }
    /* An install, wherever it went: <bin>/../share/servesim/models. */
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *bin = ss_dirname(exe), *p = ss_xasprintf("%s/../share/servesim/models/%s.json", bin, name);
        free(bin);
        if (access(p, R_OK) == 0) return p;
        free(p);
    }
    char *p = ss_xasprintf("%s/%s.json", SS_MODEL_DIR, name);
    if (access(p, R_OK) == 0) return p;
    free(p);
    return NULL;
}

char **ss_sc_task_names(const ss_scenario *sc)
{
    char **names = ss_xcalloc(sc->ntasks + 1, sizeof *names);
    for (size_t i = 0; i < sc->ntasks; i++) names[i] = sc->tasks[i].name;
    return names;
}

int ss_sc_unknown_ref(const ss_node *n, const char *what, char **names, ss_err *err)
{
    int rc = ss_node_unknown(n, what, (const char *const *)names, err);
    free(names);
    return rc;
}

int ss_sc_model_ref(const ss_scenario *sc, const ss_node *n, uint32_t *out, ss_err *err)
{
    uint32_t m = ss_nameidx_get(&sc->model_names, n->value);
    if (m == SS_NAMEIDX_NONE) { /* the names, for "did you mean" */
        char **names = ss_xcalloc(sc->nmodels + 1, sizeof *names);
        for (size_t k = 0; k < sc->nmodels; k++) names[k] = sc->models[k].name;
        return ss_sc_unknown_ref(n, "model", names, err);
    }
    *out = m;
    return 0;
}

int ss_sc_read_model_list(const ss_scenario *sc, const ss_node *sec, uint8_t *flags, ss_model_ok ok, ss_err *err)
{
    ss_node *seq = NULL;
    TRY(ss_cfg_seq(sec, "models", &seq, 0, err));
    if (!seq) return 0;
    if (seq->n == 0) return ss_node_err(seq, err, "models: expected at least one model");
    for (size_t i = 0; i < seq->n; i++) {
        const ss_node *n = seq->items[i];
        uint32_t m;
        TRY(ss_node_expect(n, SS_NODE_SCALAR, "model", err));
        TRY(ss_sc_model_ref(sc, n, &m, err));
        if (ok) TRY(ok(sc, m, n, err));
        flags[m] = 1;
    }
    return 1;
}

/* `kind: name` or `kind: {name: ..., param: value, ...}`. */
int ss_policy_cfg_read(ss_policy_cfg *p, const ss_node *pols, const char *key, const char *def, ss_err *err)
{
    const ss_node *n = pols ? ss_map_find(pols, key) : NULL;
    if (!n) {
        p->name = ss_xstrdup(def);
        return 0;
    }
    p->file = n->file;
    p->line = n->line;
    p->col = n->col;
    if (n->kind == SS_NODE_SCALAR) {
        if (!n->value[0]) return ss_node_err(n, err, "%s: expected a policy name", key);
        p->name = ss_xstrdup(n->value);
        return 0;
    }
    TRY(ss_node_expect(n, SS_NODE_MAP, key, err));
    TRY(ss_sc_read_name(n, "name", &p->name, err));
    p->params = ss_xcalloc(n->n, sizeof *p->params);
    p->param_pos = ss_xcalloc(n->n, sizeof *p->param_pos);
    p->param_file = ss_xcalloc(n->n, sizeof *p->param_file);
    for (size_t i = 0; i < n->n; i++) {
        const ss_node *c = n->items[i];
        if (strcmp(c->key, "name") == 0) continue;
        TRY(ss_node_expect(c, SS_NODE_SCALAR, c->key, err));
        p->param_pos[p->nparams][0] = c->key_line;
        p->param_pos[p->nparams][1] = c->key_col;
        p->param_file[p->nparams] = ss_xstrdup(c->file);
        p->params[p->nparams++] = (ss_param){ss_xstrdup(c->key), ss_xstrdup(c->value)};
    }
    return 0;
}

void ss_policy_cfg_free(ss_policy_cfg *p)
{
    free(p->name);
    for (size_t i = 0; i < p->nparams; i++) {
        free((char *)p->params[i].key);
        free((char *)p->params[i].value);
        if (p->param_file) free(p->param_file[i]);
    }
    free(p->params);
    free(p->param_pos);
    free(p->param_file);
    free((char *)p->file);
}
