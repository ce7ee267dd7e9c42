/* outdir.c: an output the command line did not name goes only into a folder
 * that is there (outdir.h). */
#include "cmd/outdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cfg.h"
#include "input/scenario.h"

/* Where `section.key` of doc holds `path`: line and column, or 0 0.  Read
 * again only on this error path; a file that no longer loads gives 0 0. */
static void key_position(const char *doc, const char *section, const char *key, const char *path, int *line, int *col)
{
    ss_err e = {0};
    *line = *col = 0;
    ss_doc *d = doc ? ss_doc_load(doc, &e) : NULL;
    if (!d) return;
    const ss_node *map = section ? ss_map_find(d->root, section) : d->root;
    const ss_node *n = map && map->kind == SS_NODE_MAP ? ss_map_find(map, key) : NULL;
    if (n && n->kind == SS_NODE_SCALAR && strcmp(n->value, path) == 0) {
        *line = n->line;
        *col = n->col;
    }
    ss_doc_free(d);
}

int ss_outdir_check(const char *path, const char *doc, const char *section, const char *key, const char *what,
                    const char *flag, const char *dflt, ss_err *err)
{
    if (!path || strcmp(path, "-") == 0) return 0;
    char *dir = ss_dirname(path);
    struct stat st;
    int there = strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0 || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    if (there) {
        free(dir);
        return 0;
    }
    int line, col;
    key_position(doc, section, key, path, &line, &col);
    char cwd[4096], why[4400];
    const char *here = getcwd(cwd, sizeof cwd) ? cwd : "the working directory";
    const char *in = dir[0] == '/' ? "" : " in ";
    if (stat(dir, &st) == 0) snprintf(why, sizeof why, "'%s'%s%s is not a folder", dir, in, in[0] ? here : "");
    else snprintf(why, sizeof why, "there is no folder '%s'%s%s", dir, in, in[0] ? here : "");
    if (line)
        ss_err_at(err, doc, line, col,
                  "%s%s%s: %s (%s): %s; servesim makes only the folders the command line names: make it, or give "
                  "%s",
                  section ? section : "", section ? "." : "", key, what, path, why, flag);
    else
        ss_err_at(err, doc, 0, 0,
                  "%s goes to %s%s%s%s, but %s; servesim makes only the folders the command line names: make it, "
                  "or give %s",
                  what, path, dflt ? " (" : "", dflt ? dflt : "", dflt ? ")" : "", why, flag);
    free(dir);
    return -1;
}

/* 1 if one of sets[] is --set outputs.KEY=...: the command line names it. */
static int set_names(char *const *sets, size_t nsets, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < nsets; i++)
        if (strncmp(sets[i], "outputs.", 8) == 0 && strncmp(sets[i] + 8, key, n) == 0 && sets[i][8 + n] == '=')
            return 1;
    return 0;
}

int ss_outdir_scenario(const struct ss_scenario *sc, const char *csv, const char *requests_csv, const char *timeseries_csv,
                       char *const *sets, size_t nsets, ss_err *err)
{
    char *dflt = ss_xasprintf("results/%s.csv", sc->name);
    int rc = 0;
    if (!csv && !set_names(sets, nsets, "csv"))
        rc = ss_outdir_check(sc->csv_path, sc->path, "outputs", "csv", "the results CSV", "-o PATH",
                             strcmp(sc->csv_path, dflt) == 0 ? "results/<name>.csv: the scenario names no outputs.csv"
                                                             : NULL,
                             err);
    if (rc == 0 && !requests_csv && !set_names(sets, nsets, "requests_csv"))
        rc = ss_outdir_check(sc->requests_csv_path, sc->path, "outputs", "requests_csv", "the requests CSV",
                             "--requests-csv PATH (--set outputs.requests_csv= for none)", NULL, err);
    if (rc == 0 && !timeseries_csv && !set_names(sets, nsets, "timeseries_csv"))
        rc = ss_outdir_check(sc->timeseries_csv_path, sc->path, "outputs", "timeseries_csv", "the time-series CSV",
                             "--timeseries-csv PATH (--set outputs.timeseries_csv= for none)", NULL, err);
    free(dflt);
    return rc;
}
