/* plugin.c: finds policy plugins along the search path of plugin.h, dlopen()s
 * them and refuses anything that is not a well-formed policy of the expected
 * kind, with a message that names the file found and what was wrong. */
#include "serve/plugin.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/readlog.h"

#ifndef SS_PLUGIN_DIR
#define SS_PLUGIN_DIR "/usr/local/lib/servesim/policies"
#endif

static const char *const kind_names[] = {
    [SS_KIND_SCHEDULER] = "scheduler",     [SS_KIND_LOAD_BALANCER] = "load_balancer",
    [SS_KIND_AUTOSCALER] = "autoscaler",   [SS_KIND_PLACEMENT] = "placement",
    [SS_KIND_TRANSPORT] = "transport",     [SS_KIND_PARTITIONER] = "partitioner",
    [SS_KIND_CONTROLLER] = "controller",   [SS_KIND_LAYER_SCHEDULER] = "layer_scheduler",
    [SS_KIND_DEVICE_SCHEDULER] = "device_scheduler", [SS_KIND_ADMISSION] = "admission",
};
#define KIND_MAX SS_KIND_ADMISSION

const char *ss_policy_kind_name(ss_policy_kind k)
{
    /* Compare as unsigned: an out-of-range enum from a foreign .so may be any int. */
    if ((unsigned)k < SS_KIND_SCHEDULER || (unsigned)k > KIND_MAX) return NULL;
    return kind_names[k];
}

/* "a scheduler" / "an autoscaler": messages read as prose. */
static const char *article(const char *word)
{
    return strchr("aeiou", word[0]) ? "an" : "a";
}

/* ---- search directories ----------------------------------------------- */

static void dirs_add(char ***dirs, size_t *n, size_t *cap, char *dir)
{
    /* A directory listed twice (PATH entry == build folder, say) would be
     * searched twice and printed twice in "searched: ..."; keep the first. */
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*dirs)[i], dir) == 0) {
            free(dir);
            return;
        }
    if (*n + 2 > *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *dirs = ss_xrealloc(*dirs, *cap * sizeof **dirs);
    }
    (*dirs)[(*n)++] = dir;
    (*dirs)[*n] = NULL;
}

/* Directory of the running executable, so a build folder works without
 * installing; NULL where /proc is unavailable (then that entry is skipped). */
static char *exe_dir(void)
{
    char buf[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (len <= 0) return NULL;
    buf[len] = '\0';
    return ss_dirname(buf);
}

char **ss_plugin_dirs(const char *scenario_dir)
{
    char **dirs = ss_xcalloc(1, sizeof *dirs);  /* terminated even if nothing is added */
    size_t n = 0, cap = 1;

    if (scenario_dir) dirs_add(&dirs, &n, &cap, ss_xstrdup(scenario_dir[0] ? scenario_dir : "."));
    const char *env = getenv("SERVESIM_PLUGIN_PATH");
    while (env && *env) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if (len > 0) {  /* "a::b" or a trailing ':' must not mean the cwd by accident */
            char *d = ss_xmalloc(len + 1);
            memcpy(d, env, len);
            d[len] = '\0';
            dirs_add(&dirs, &n, &cap, d);
        }
        env = colon ? colon + 1 : NULL;
    }
    char *exe = exe_dir();
    if (exe) {
        dirs_add(&dirs, &n, &cap, ss_xasprintf("%s/policies", exe));                /* the build folder */
        dirs_add(&dirs, &n, &cap, ss_xasprintf("%s/../lib/servesim/policies", exe)); /* an install, wherever it went */
        free(exe);
    }
    dirs_add(&dirs, &n, &cap, ss_xstrdup(SS_PLUGIN_DIR));
    return dirs;
}

void ss_plugin_dirs_free(char **dirs)
{
    for (size_t i = 0; dirs && dirs[i]; i++) free(dirs[i]);
    free(dirs);
}

/* Always "dir/NAME.so" with a slash: a bare "NAME.so" would make dlopen
 * search the system library path instead of the directory we mean. */
static char *plugin_path(const char *dir, const char *stem)
{
    return ss_xasprintf("%s/%s.so", dir, stem);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- loading and checking --------------------------------------------- */

/* Refuse a descriptor the simulator could not use safely.  `abi` is checked
 * first and alone: under another ABI the remaining fields may not even be
 * where this struct says they are. */
static int check_policy(const ss_policy *pol, const char *name, const char *path, const char *file,
                        int line, int col, ss_err *err)
{
    if (pol->abi != SS_POLICY_ABI)
        return ss_err_at(err, file, line, col,
                         "plugin '%s' (%s) was built for policy ABI %u, this servesim speaks ABI %u: rebuild it",
                         name, path, (unsigned)pol->abi, (unsigned)SS_POLICY_ABI);
    if (!pol->name)
        return ss_err_at(err, file, line, col, "plugin '%s' (%s) has no name in its ss_policy", name, path);
    if (strcmp(pol->name, name) != 0)
        return ss_err_at(err, file, line, col,
                         "plugin '%s' (%s) calls itself '%s': a policy's name must equal its file name stem",
                         name, path, pol->name);
    const char *kn = ss_policy_kind_name(pol->kind);
    if (!kn)
        return ss_err_at(err, file, line, col, "policy '%s' (%s) has unknown kind %d", name, path,
                         (int)pol->kind);
    if (!pol->summary)
        return ss_err_at(err, file, line, col, "policy '%s' (%s) has no summary", name, path);
    const char *missing = NULL;
    if (pol->kind == SS_KIND_SCHEDULER) {
        const ss_scheduler_ops *o = &pol->ops.scheduler;
        missing = !o->queue_new ? "queue_new" : !o->queue_free ? "queue_free" : !o->push ? "push"
                  : !o->pop     ? "pop"       : !o->len        ? "len"        : NULL;
    } else if (pol->kind == SS_KIND_LOAD_BALANCER) {
        if (!pol->ops.load_balancer.pick) missing = "pick";
    } else if (pol->kind == SS_KIND_TRANSPORT) {
        if (!pol->ops.transport.hop) missing = "hop";
    } else if (pol->kind == SS_KIND_LAYER_SCHEDULER) {
        if (!pol->ops.layer_scheduler.pick) missing = "pick";
    } else if (pol->kind == SS_KIND_AUTOSCALER) {
        if (!pol->ops.autoscaler.desired) missing = "desired";
    } else if (pol->kind == SS_KIND_PLACEMENT) {
        if (!pol->ops.placement.place) missing = "place";
    } else if (pol->kind == SS_KIND_CONTROLLER) {
        if (!pol->ops.controller.demand) missing = "demand";
    } else if (pol->kind == SS_KIND_DEVICE_SCHEDULER) {
        if (!pol->ops.device_scheduler.pick) missing = "pick";
    } else if (pol->kind == SS_KIND_ADMISSION) {
        if (!pol->ops.admission.admit) missing = "admit";
    }
    if (missing)
        return ss_err_at(err, file, line, col, "policy '%s' (%s) is a %s without ops.%s.%s", name, path, kn,
                         kn, missing);
    return 0;
}

/* Open `path` as policy `name`; kind 0 accepts any kind (for scanning). */
static int load_path(ss_plugin *p, const char *name, const char *path, ss_policy_kind kind,
                     const char *file, int line, int col, ss_err *err)
{
    memset(p, 0, sizeof *p);
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return ss_err_at(err, file, line, col, "plugin '%s' (%s) could not be loaded: %s", name, path,
                         why ? why : "unknown dlopen error");
    }
    struct stat st; /* an input of the command: no output may replace it */
    if (stat(path, &st) == 0) ss_read_note_input(path, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
    const ss_policy *pol = dlsym(h, SS_POLICY_SYMBOL);
    if (pol && (uintptr_t)pol % _Alignof(ss_policy) != 0) { /* some other object of that name: never read it */
        dlclose(h);
        return ss_err_at(err, file, line, col, "'%s' is not a servesim policy (its %s is not an ss_policy)", path,
                         SS_POLICY_SYMBOL);
    }
    if (!pol) {
        dlclose(h);
        return ss_err_at(err, file, line, col, "'%s' is not a servesim policy (no %s symbol)", path,
                         SS_POLICY_SYMBOL);
    }
    if (check_policy(pol, name, path, file, line, col, err) < 0) {
        dlclose(h);
        return -1;
    }
    if (kind && pol->kind != kind) {
        const char *have = ss_policy_kind_name(pol->kind);
        const char *want = ss_policy_kind_name(kind);
        if (!want) want = "policy of an unknown kind";
        ss_err_at(err, file, line, col, "policy '%s' (%s) is %s %s, expected %s %s", name, path,
                  article(have), have, article(want), want);
        dlclose(h);
        return -1;
    }
    p->pol = pol;
    p->handle = h;
    p->path = ss_xstrdup(path);
    return 0;
}

/* Names ending in ".so" in one directory, as stems; `fn` sees each. */
static void each_stem(const char *dir, void (*fn)(void *ctx, const char *dir, const char *stem), void *ctx)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 3 || e->d_name[0] == '.' || strcmp(e->d_name + len - 3, ".so") != 0) continue;
        char *stem = ss_xmalloc(len - 2);
        memcpy(stem, e->d_name, len - 3);
        stem[len - 3] = '\0';
        fn(ctx, dir, stem);
        free(stem);
    }
    closedir(d);
}

typedef struct stem_list {
    char **v;
    size_t n, cap;
} stem_list;

static int stems_have(const stem_list *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) return 1;
    return 0;
}

static void stems_push(stem_list *l, const char *s)
{
    if (l->n + 2 > l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = ss_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = ss_xstrdup(s);
    l->v[l->n] = NULL;
}

static void stems_free(stem_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

static void collect_stem(void *ctx, const char *dir, const char *stem)
{
    stem_list *l = ctx;
    char *path = plugin_path(dir, stem);
    if (is_file(path) && !stems_have(l, stem)) stems_push(l, stem);
    free(path);
}

int ss_plugin_load(ss_plugin *p, const char *name, ss_policy_kind kind, const char *scenario_dir,
                   const char *file, int line, int col, ss_err *err)
{
    memset(p, 0, sizeof *p);
    /* A name is a stem, not a path: '/' or a leading '.' would let a scenario
     * reach files outside the search directories. */
    if (!name || !name[0] || strchr(name, '/') || name[0] == '.')
        return ss_err_at(err, file, line, col,
                         "invalid policy name '%s': a name is a plugin file stem (no '/', no leading '.')",
                         name ? name : "");
    char **dirs = ss_plugin_dirs(scenario_dir);
    int rc = -1;
    for (size_t i = 0; dirs[i]; i++) {
        char *path = plugin_path(dirs[i], name);
        if (is_file(path)) {
            /* First hit wins even if it is broken: silently falling through to
             * another copy would run a policy the user did not mean. */
            rc = load_path(p, name, path, kind, file, line, col, err);
            free(path);
            ss_plugin_dirs_free(dirs);
            return rc;
        }
        free(path);
    }

    stem_list stems = {0};
    for (size_t i = 0; dirs[i]; i++) each_stem(dirs[i], collect_stem, &stems);
    const char *near = ss_suggest(name, (const char *const *)stems.v);
    size_t cap = 64, len = 0;
    for (size_t i = 0; dirs[i]; i++) cap += strlen(dirs[i]) + 2;
    char *list = ss_xmalloc(cap);
    list[0] = '\0';
    for (size_t i = 0; dirs[i]; i++)
        len += (size_t)snprintf(list + len, cap - len, "%s%s", i ? ", " : "", dirs[i]);
    if (near)
        ss_err_at(err, file, line, col, "no policy plugin '%s' (did you mean '%s'?); searched: %s", name, near,
                  list);
    else
        ss_err_at(err, file, line, col, "no policy plugin '%s'; searched: %s", name, list);
    free(list);
    stems_free(&stems);
    ss_plugin_dirs_free(dirs);
    return rc;
}

void ss_plugin_unload(ss_plugin *p)
{
    if (!p) return;
    if (p->handle) dlclose(p->handle);
    free(p->path);
    memset(p, 0, sizeof *p);
}

/* ---- scanning ---------------------------------------------------------- */

typedef struct scan_ctx {
    stem_list seen;  /* every name met so far, loadable or not */
    ss_plugin *v;
    size_t n, cap;
} scan_ctx;

static void scan_stem(void *vctx, const char *dir, const char *stem)
{
    scan_ctx *c = vctx;
    char *path = plugin_path(dir, stem);
    /* A name already met shadows this copy, exactly as ss_plugin_load would
     * (even if the first copy was broken), so the list matches what runs. */
    if (!is_file(path) || stems_have(&c->seen, stem)) {
        free(path);
        return;
    }
    stems_push(&c->seen, stem);
    ss_plugin pl;
    ss_err err = {0};
    if (load_path(&pl, stem, path, 0, NULL, 0, 0, &err) < 0) {
        fprintf(stderr, "servesim: warning: %s; skipped\n", err.msg);
    } else {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 16;
            c->v = ss_xrealloc(c->v, c->cap * sizeof *c->v);
        }
        c->v[c->n++] = pl;
    }
    free(path);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const ss_plugin *)a)->pol->name, ((const ss_plugin *)b)->pol->name);
}

size_t ss_plugin_scan(const char *scenario_dir, ss_plugin **out)
{
    char **dirs = ss_plugin_dirs(scenario_dir);
    scan_ctx c = {0};
    for (size_t i = 0; dirs[i]; i++) each_stem(dirs[i], scan_stem, &c);
    ss_plugin_dirs_free(dirs);
    stems_free(&c.seen);
    if (c.n) qsort(c.v, c.n, sizeof *c.v, by_name);
    /* Never hand back NULL: callers free the array unconditionally. */
    *out = c.v ? c.v : ss_xcalloc(1, sizeof **out);
    return c.n;
}
