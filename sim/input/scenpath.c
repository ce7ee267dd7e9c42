/* scenpath.c: a scenario named on the command line, as a file or by the
 * name of a shipped one (see scenpath.h). */
#include "input/scenpath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#ifndef SS_DATA_DIR
#define SS_DATA_DIR "/usr/local/share/servesim"
#endif

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/arg or DIR/arg.yaml into buf if one is a file. */
static int try_dir(char *buf, size_t n, const char *dir, size_t dirlen, const char *arg)
{
    static const char *const ext[] = {"", ".yaml"};
    for (size_t i = 0; i < 2; i++) {
        int k = snprintf(buf, n, "%.*s/%s%s", (int)dirlen, dir, arg, ext[i]);
        if (k > 0 && (size_t)k < n && is_file(buf)) return 1;
    }
    return 0;
}

const char *ss_scenario_locate(const char *arg)
{
    static char found[PATH_MAX];
    if (!arg || !*arg || arg[0] == '/' || access(arg, F_OK) == 0) return arg;
    const char *env = getenv("SERVESIM_SCENARIO_PATH");
    while (env && *env) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if (len > 0 && try_dir(found, sizeof found, env, len, arg)) return found;
        env = colon ? colon + 1 : NULL;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *bin = ss_dirname(exe);
        char *dirs[4] = {ss_xasprintf("%s/../share/servesim/scenarios", bin), ss_xasprintf("%s/../share/servesim", bin),
                         ss_xasprintf("%s/../scenarios", bin), ss_xasprintf("%s/..", bin)};
        int hit = 0, tree = is_dir(dirs[2]); /* <bin>/.. only when it is the source tree */
        for (size_t i = 0; i < 4 && !hit; i++)
            if (i < 3 || tree) hit = try_dir(found, sizeof found, dirs[i], strlen(dirs[i]), arg);
        for (size_t i = 0; i < 4; i++) free(dirs[i]);
        free(bin);
        if (hit) return found;
    }
    if (try_dir(found, sizeof found, SS_DATA_DIR "/scenarios", strlen(SS_DATA_DIR "/scenarios"), arg) ||
        try_dir(found, sizeof found, SS_DATA_DIR, strlen(SS_DATA_DIR), arg))
        return found;
    return arg;
}
