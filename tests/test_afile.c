/* test_afile.c: atomic output files appear whole on commit, leave nothing on
 * abort or on a write error, create parent directories, and report
 * unwritable targets; CSV fields are quoted per RFC 4180. */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/afile.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Number of entries in dir other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void rm_rf(const char *dir)
{
    ss_test_sh(NULL, "rm -rf '%s'", dir);
}

static void test_commit(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = ss_xasprintf("%s/out.csv", dir);
    ss_afile f;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(f.tmp);
    CU_ASSERT(strncmp(f.tmp, path, strlen(path)) == 0 && strstr(f.tmp, ".tmp.") != NULL);
    fputs("a,b\n1,2\n", f.fp);
    /* not there before commit */
    CU_ASSERT(access(path, F_OK) != 0);
    CU_ASSERT_EQUAL(ss_afile_commit(&f, &err), 0);
    CU_ASSERT_FALSE(err.set);
    char *got = slurp(path);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got) CU_ASSERT_STRING_EQUAL(got, "a,b\n1,2\n");
    CU_ASSERT_EQUAL(count_entries(dir), 1); /* no temporary left */
    /* the permissions of an ordinary new file (0666 less the umask), not
     * mkstemp's 0600 */
    mode_t um = umask(022);
    umask(um);
    struct stat st;
    CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~um));

    /* a second commit replaces the file */
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err), 0);
    fputs("new\n", f.fp);
    CU_ASSERT_EQUAL(ss_afile_commit(&f, &err), 0);
    got = slurp(path);
    if (got) CU_ASSERT_STRING_EQUAL(got, "new\n");
    CU_ASSERT_EQUAL(count_entries(dir), 1);
    free(path);
    rm_rf(dir);
    free(dir);
}

static void test_abort(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = ss_xasprintf("%s/out.csv", dir);
    ss_afile f;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err), 0);
    fputs("half a result", f.fp);
    fflush(f.fp);
    CU_ASSERT_EQUAL(count_entries(dir), 1); /* the temporary exists meanwhile */
    ss_afile_abort(&f);
    CU_ASSERT(access(path, F_OK) != 0);
    CU_ASSERT_EQUAL(count_entries(dir), 0);
    ss_afile_abort(&f); /* a second abort is harmless */

    /* abort keeps an existing target untouched */
    FILE *old = fopen(path, "w");
    fputs("old\n", old);
    fclose(old);
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err), 0);
    fputs("new\n", f.fp);
    ss_afile_abort(&f);
    char *got = slurp(path);
    if (got) CU_ASSERT_STRING_EQUAL(got, "old\n");
    CU_ASSERT_EQUAL(count_entries(dir), 1);
    free(path);
    rm_rf(dir);
    free(dir);
}

static void test_creates_parents(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = ss_xasprintf("%s/a/b//c/out.json", dir);
    ss_afile f;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err), 0);
    fputs("{}\n", f.fp);
    CU_ASSERT_EQUAL(ss_afile_commit(&f, &err), 0);
    char *got = slurp(path);
    CU_ASSERT_PTR_NOT_NULL(got);
    free(path);
    rm_rf(dir);
    free(dir);
}

static void test_unwritable(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    /* A regular file where a directory is needed: fails even for root. */
    char *file = ss_test_write(dir, "plain", "x");
    char *path = ss_xasprintf("%s/sub/out.csv", file);
    ss_afile f;
    ss_err err = {0};
    CU_ASSERT_EQUAL(ss_afile_open(&f, path, &err), -1);
    CU_ASSERT(err.set);
    CU_ASSERT(strncmp(err.msg, path, strlen(path)) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": cannot create: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, strerror(ENOTDIR)));
    CU_ASSERT_PTR_NULL(f.fp);
    free(path);

    /* directly inside the regular file */
    path = ss_xasprintf("%s/out.csv", file);
    ss_err err2 = {0};
    CU_ASSERT_EQUAL(ss_afile_open(&f, path, &err2), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err2.msg, "cannot create"));
    free(path);

    /* A read-only directory (only meaningful when not root). */
    if (geteuid() != 0) {
        char *ro = ss_xasprintf("%s/ro", dir);
        mkdir(ro, 0500);
        path = ss_xasprintf("%s/out.csv", ro);
        ss_err err3 = {0};
        CU_ASSERT_EQUAL(ss_afile_open(&f, path, &err3), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err3.msg, strerror(EACCES)));
        chmod(ro, 0700);
        free(path);
        free(ro);
    }
    CU_ASSERT_EQUAL(count_entries(dir), 1); /* just "plain" */
    free(file);
    rm_rf(dir);
    free(dir);
}

/* A write error (here: the file size limit, as a full disk would) must fail
 * the commit and leave neither the target nor the temporary. */
static void test_write_error(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = ss_xasprintf("%s/big.csv", dir);
    struct rlimit old;
    CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    ss_afile f;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err), 0);
    struct rlimit lim = old;
    lim.rlim_cur = 4096;
    CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    char line[100];
    memset(line, 'x', sizeof line - 2);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = '\0';
    for (int i = 0; i < 1000; i++) fputs(line, f.fp); /* ~100 KB > 4 KiB */
    int rc = ss_afile_commit(&f, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, oldsig);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT(err.set);
    CU_ASSERT(strncmp(err.msg, path, strlen(path)) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot write"));
    CU_ASSERT(access(path, F_OK) != 0);
    CU_ASSERT_EQUAL(count_entries(dir), 0);
    CU_ASSERT_PTR_NULL(f.fp);

    /* A transient failure (the limit lifted before commit): the final flush
     * succeeds, but data written earlier was lost, so the commit must still
     * fail. */
    ss_err err2 = {0};
    signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(ss_afile_open(&f, path, &err2), 0);
    CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    for (int i = 0; i < 1000; i++) fputs(line, f.fp);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, oldsig);
    CU_ASSERT(ferror(f.fp));
    CU_ASSERT_EQUAL(ss_afile_commit(&f, &err2), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err2.msg, "cannot write"));
    CU_ASSERT(access(path, F_OK) != 0);
    CU_ASSERT_EQUAL(count_entries(dir), 0);
    free(path);
    rm_rf(dir);
    free(dir);
}

static void test_csv_field(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ss_csv_field(m, "plain");
    fputc('|', m);
    ss_csv_field(m, "a,b");
    fputc('|', m);
    ss_csv_field(m, "say \"hi\"");
    fputc('|', m);
    ss_csv_field(m, "two\nlines");
    fputc('|', m);
    ss_csv_field(m, "cr\r");
    fputc('|', m);
    ss_csv_field(m, "");
    fputc('|', m);
    ss_csv_field(m, " spaced ");
    fclose(m);
    CU_ASSERT_STRING_EQUAL(buf, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\"cr\r\"|| spaced ");
    free(buf);
}

SS_TEST_SUITE("afile",
              {"commit makes the file appear with its content", test_commit},
              {"abort leaves no file and no temporary", test_abort},
              {"missing parent directories are created", test_creates_parents},
              {"unwritable target gives 'path: cannot create: reason'", test_unwritable},
              {"write error fails the commit and leaves nothing", test_write_error},
              {"CSV fields are quoted per RFC 4180", test_csv_field})
