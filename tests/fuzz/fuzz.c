/* fuzz.c: the scratch folder, input writing, the refusal check and the
 * profile-of-real-runs reading shared by the fuzz harnesses (see fuzz.h). */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#ifndef SS_SRC_DIR
#error "build with -DSS_SRC_DIR=<repository root> (the Makefile's fuzz target does)"
#endif

static char *scratch;

/* The folder holds only links and files (no subfolders). */
static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char *p = ss_xasprintf("%s/%s", scratch, e->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(scratch);
}

static void link_repo(const char *repo_rel, const char *name)
{
    char *target = ss_xasprintf("%s/%s", SS_SRC_DIR, repo_rel), *at = ss_xasprintf("%s/%s", scratch, name);
    if (symlink(target, at) != 0) {
        perror(at);
        abort();
    }
    free(target);
    free(at);
}

const char *fuzz_dir(void)
{
    if (scratch) return scratch;
    /* Memory-backed where there is one: on a disk, writing every input
     * costs twenty times the loading. */
    const char *tmp = getenv("TMPDIR");
    if (access("/dev/shm", W_OK | X_OK) == 0) tmp = "/dev/shm";
    scratch = ss_xasprintf("%s/servesim-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror(scratch);
        abort();
    }
    atexit(remove_scratch);
    link_repo("models", "models");
    link_repo("scenarios", "scenarios");
    link_repo("traces", "traces");
    link_repo("topologies", "topologies");
    link_repo("topologies/hosts", "hosts");
    return scratch;
}

char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    char *path = ss_xasprintf("%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

void fuzz_check(int rc, const ss_err *err)
{
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("SS_FUZZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "fuzz: %s\n", rc < 0 ? err->msg : "loaded");
    if (rc < 0 && (!err->set || !err->msg[0])) {
        fputs("fuzz: the loader failed without a message\n", stderr);
        abort();
    }
}

int fuzz_hwprofile(const uint8_t *data, size_t size, ss_hwprofile *p)
{
    char *path = fuzz_write("profile.json", data, size);
    ss_err err = {0};
    int rc = ss_hwprofile_load(path, p, &err);
    fuzz_check(rc, &err);
    free(path);
    return rc;
}
