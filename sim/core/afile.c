/* afile.c: atomic output files (temporary file beside the target, fsync,
 * rename on commit, unlink on abort), parent-directory creation and RFC 4180
 * CSV field quoting (see afile.h). */
#include "core/afile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The process umask without changing it (Linux reports it in
 * /proc/self/status); the umask() round trip is only a fallback because it
 * briefly changes a process-wide setting. */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        unsigned int m;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Umask: %o", &m) == 1) {
                fclose(f);
                return (mode_t)m;
            }
        }
        fclose(f);
    }
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* mkdir -p of directory `dir`.  0 ok; -1 with errno set and *failed
 * (malloc'd) naming the directory that could not be made. */
static int make_dirs(const char *dir, char **failed)
{
    char *p = ss_xstrdup(dir);
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/') p[--len] = '\0';
    for (char *s = p + 1;; s++) {
        int end = *s == '\0';
        if (*s == '/' || end) {
            char save = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                *failed = p;
                errno = e;
                return -1;
            }
            *s = save;
        }
        if (end) break;
    }
    /* Whatever the last component is, it must be a directory. */
    struct stat st;
    int e = stat(p, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
    if (e) {
        *failed = p;
        errno = e;
        return -1;
    }
    free(p);
    return 0;
}

/* ---- temporary files removed on a fatal signal ------------------------------ */

/* The temporary files open now, so that SIGINT, SIGTERM or SIGHUP (and
 * SIGQUIT) leave none behind: the handler unlinks them (unlink is
 * async-signal-safe), restores the default action and raises the signal
 * again, so the process still dies of it. */
enum { MAX_TMP = 64 };
static char *volatile live_tmp[MAX_TMP];
static volatile sig_atomic_t handlers_set;
static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void on_fatal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (live_tmp[i]) unlink(live_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(char *tmp)
{
    if (!handlers_set) {
        handlers_set = 1;
        for (size_t k = 0; k < sizeof fatal / sizeof *fatal; k++) {
            struct sigaction old;
            /* Leave a handler the program set itself (or an ignored signal) alone. */
            if (sigaction(fatal[k], NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
                struct sigaction sa;
                memset(&sa, 0, sizeof sa);
                sa.sa_handler = on_fatal;
                sigemptyset(&sa.sa_mask);
                sigaction(fatal[k], &sa, NULL);
            }
        }
    }
    for (int i = 0; i < MAX_TMP; i++)
        if (!live_tmp[i]) {
            live_tmp[i] = tmp;
            return;
        }
}

static void untrack(const char *tmp)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (live_tmp[i] == tmp) live_tmp[i] = NULL;
}

void ss_afile_forget(void)
{
    for (int i = 0; i < MAX_TMP; i++) live_tmp[i] = NULL;
    if (handlers_set)
        for (size_t k = 0; k < sizeof fatal / sizeof *fatal; k++) signal(fatal[k], SIG_DFL);
    handlers_set = 0;
}

static void afile_clear(ss_afile *f)
{
    untrack(f->tmp);
    free(f->path);
    free(f->tmp);
    f->fp = NULL;
    f->path = NULL;
    f->tmp = NULL;
}

int ss_afile_open(ss_afile *f, const char *path, ss_err *err)
{
    f->fp = NULL;
    f->path = NULL;
    f->tmp = NULL;
    if (!path || !*path) return ss_err_at(err, "(empty path)", 0, 0, "cannot create: empty file name");
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return ss_err_at(err, path, 0, 0, "cannot create: it is a directory (give a file name)");
    if (ss_special_file(path)) { /* /dev/null, a FIFO: written in place, never replaced by a rename */
        FILE *fp = fopen(path, "w");
        if (!fp) return ss_err_at(err, path, 0, 0, "cannot create: %s", strerror(errno));
        f->fp = fp;
        f->path = ss_xstrdup(path);
        return 0;
    }

    char *dir = ss_dirname(path);
    char *bad = NULL;
    if (strcmp(dir, ".") != 0 && strcmp(dir, "/") != 0 && make_dirs(dir, &bad) != 0) {
        int e = errno;
        ss_err_at(err, path, 0, 0, "cannot create: %s (making directory %s)", strerror(e), bad);
        free(bad);
        free(dir);
        return -1;
    }
    free(dir);

    char *tmp = ss_xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return ss_err_at(err, path, 0, 0, "cannot create: %s", strerror(e));
    }
    /* mkstemp makes the file 0600; give the result the usual permissions. */
    if (fchmod(fd, 0666 & ~current_umask()) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return ss_err_at(err, path, 0, 0, "cannot create: %s", strerror(e));
    }
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return ss_err_at(err, path, 0, 0, "cannot create: %s", strerror(e));
    }
    f->fp = fp;
    f->path = ss_xstrdup(path);
    f->tmp = tmp;
    track(tmp);
    return 0;
}

/* Best effort: make the rename itself durable. */
static void sync_dir_of(const char *path)
{
    char *dir = ss_dirname(path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int ss_afile_commit(ss_afile *f, ss_err *err)
{
    if (!f->fp || !f->path) {
        afile_clear(f);
        return ss_err_at(err, NULL, 0, 0, "internal error: commit of an output file that is not open");
    }
    const char *what = NULL;
    int e = 0;
    /* An earlier failed write leaves the error flag set; errno may be stale
     * by now, so that case is reported as a plain I/O error. */
    int had_error = ferror(f->fp);
    errno = 0;
    if (fflush(f->fp) != 0) {
        e = errno;
        what = "cannot write";
    } else if (had_error) {
        e = EIO;
        what = "cannot write";
    } else if (f->tmp && fsync(fileno(f->fp)) != 0) {
        e = errno;
        what = "cannot write";
    }
    errno = 0;
    if (fclose(f->fp) != 0 && !what) {
        e = errno;
        what = "cannot write";
    }
    f->fp = NULL;
    if (!f->tmp) { /* written in place */
        if (what) ss_err_at(err, f->path, 0, 0, "%s: %s", what, strerror(e ? e : EIO));
        afile_clear(f);
        return what ? -1 : 0;
    }
    if (!what && rename(f->tmp, f->path) != 0) {
        e = errno;
        what = "cannot create";
    }
    if (what) {
        unlink(f->tmp);
        ss_err_at(err, f->path, 0, 0, "%s: %s", what, strerror(e ? e : EIO));
        afile_clear(f);
        return -1;
    }
    sync_dir_of(f->path);
    afile_clear(f);
    return 0;
}

void ss_afile_abort(ss_afile *f)
{
    if (!f) return;
    if (f->fp) fclose(f->fp);
    if (f->tmp) unlink(f->tmp);
    afile_clear(f);
}

void ss_csv_field(FILE *fp, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    putc('"', fp);
    for (; *s; s++) {
        if (*s == '"') putc('"', fp);
        putc(*s, fp);
    }
    putc('"', fp);
}
