/* plugin.h: finding, loading and checking policy plugins (dlopen).
 *
 * A policy named NAME lives in NAME.so.  Search order, first hit wins:
 *   1. the scenario's directory,
 *   2. each directory of $SERVESIM_PLUGIN_PATH (colon-separated),
 *   3. the build folder: <directory of the running executable>/policies,
 *   4. the install folder SS_PLUGIN_DIR (set by the Makefile from PREFIX).
 * The loaded object must export `servesim_policy` (SS_POLICY_SYMBOL) with abi == SS_POLICY_ABI and the
 * kind the caller expects; anything else is refused with a message that says
 * which file was found and what was wrong. */
#ifndef SS_PLUGIN_H
#define SS_PLUGIN_H

#include <servesim/policy.h>
#include "core/util.h"

typedef struct ss_plugin {
    const ss_policy *pol;
    void *handle;  /* dlopen handle */
    char *path;    /* file it came from */
} ss_plugin;

/* The directories searched, in order (NULL-terminated, newly allocated;
 * free with ss_plugin_dirs_free).  scenario_dir may be NULL. */
char **ss_plugin_dirs(const char *scenario_dir);
void ss_plugin_dirs_free(char **dirs);

/* Load policy `name` expecting `kind`.  Errors are reported at (file, line,
 * col) - the scenario position that named the policy:
 *   "no policy plugin 'rund-robin' (did you mean 'round-robin'?); searched: a, b, c"
 *   "plugin 'x' (path) was built for policy ABI 7, this servesim speaks ABI 1: rebuild it"
 *   "policy 'fifo' (path) is a scheduler, expected a load_balancer"
 * 0 ok, -1 error. */
int ss_plugin_load(ss_plugin *p, const char *name, ss_policy_kind kind, const char *scenario_dir,
                   const char *file, int line, int col, ss_err *err);
void ss_plugin_unload(ss_plugin *p);

/* Every loadable plugin found in the search directories (first of each name
 * wins), sorted by name; for `servesim plugins`.  Returns the count; *out is
 * newly allocated (free each with ss_plugin_unload, then the array).  Files
 * that fail to load are reported on stderr and skipped. */
size_t ss_plugin_scan(const char *scenario_dir, ss_plugin **out);

/* "scheduler", "load_balancer", ... ; NULL for an unknown kind. */
const char *ss_policy_kind_name(ss_policy_kind k);

#endif
