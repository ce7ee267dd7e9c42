/* afile.c: atomic output files (temporary file beside the target, fsync,
 * rename on commit, unlink on abort), parent-directory creation and RFC 4180
 * CSV field quoting (see afile.h). */
#include "core/afile.h"

#include "core/readlog.h"

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

/* The folders made for outputs, in the order made: an aborted output
 * removes those that are empty again (the newest first), so a refused or
 * failed command leaves no empty folder behind. */
static char **made_dirs;
static size_t nmade, made_cap;

static void note_made(const char *dir)
{
    if (nmade == made_cap) made_dirs = ss_xrealloc(made_dirs, (made_cap = made_cap ? 2 * made_cap : 8) * sizeof *made_dirs);
    made_dirs[nmade++] = ss_xstrdup(dir);
}

static void remove_empty_made(void)
{
    while (nmade > 0) {
        size_t k = nmade - 1;
        if (rmdir(made_dirs[k]) != 0 && errno != ENOENT) break; /* not empty: it holds a committed output */
        free(made_dirs[k]);
        nmade = k;
    }
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
            if (mkdir(p, 0777) == 0) note_made(p);
            else if (errno != EEXIST) {
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
    for (size_t k = 0; k < nmade; k++) free(made_dirs[k]);
    nmade = 0; /* the parent's folders are not this process's to remove */
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

int ss_afile_check(const char *path, ss_err *err)
{
    if (!path || !*path) return ss_err_at(err, "(empty path)", 0, 0, "cannot create: empty file name");
    if (strcmp(path, "-") == 0) return 0; /* the standard output */
    struct stat st;
    if (stat(path, &st) != 0) return 0; /* a new file (a path that cannot be made fails at open) */
    const char *kind = ss_file_kind(st.st_mode);
    if (kind)
        return ss_err_at(err, path, 0, 0, "cannot write: it is %s, not a regular file (outputs are written to files)",
                         kind);
    const char *in = ss_read_input_path((unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
    if (in)
        return ss_err_at(err, path, 0, 0,
                         strcmp(in, path) == 0 ? "would overwrite an input of this command: choose another output path"
                                               : "would overwrite an input of this command ('%s', the same file): "
                                                 "choose another output path",
                         in);
    return 0;
}

int ss_afile_open(ss_afile *f, const char *path, ss_err *err)
{
    f->fp = NULL;
    f->path = NULL;
    f->tmp = NULL;
    if (ss_afile_check(path, err) < 0) return -1;
    if (strcmp(path, "-") == 0) {
        f->fp = stdout;
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
        remove_empty_made();
        return -1;
    }
    free(dir);

    char *tmp = ss_xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        remove_empty_made();
        return ss_err_at(err, path, 0, 0, "cannot create: %s", strerror(e));
    }
    /* mkstemp makes the file 0600; give the result the usual permissions. */
    if (fchmod(fd, 0666 & ~current_umask()) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        remove_empty_made();
        return ss_err_at(err, path, 0, 0, "cannot create: %s", strerror(e));
    }
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        remove_empty_made();
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

/* Phase one of a commit: flushed, synced and closed, the temporary kept
 * for the rename (the standard output: flushed, left open, done).  -1 with
 * err set, the temporary removed, on a failed write. */
static int flush_one(ss_afile *f, ss_err *err)
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
    if (!f->tmp) { /* the standard output: flushed, left open */
        if (what) ss_err_at(err, "(standard output)", 0, 0, "%s: %s", what, strerror(e ? e : EIO));
        f->fp = NULL;
        afile_clear(f);
        return what ? -1 : 0;
    }
    if (fclose(f->fp) != 0 && !what) {
        e = errno;
        what = "cannot write";
    }
    f->fp = NULL;
    if (what) {
        unlink(f->tmp);
        ss_err_at(err, f->path, 0, 0, "%s: %s", what, strerror(e ? e : EIO));
        afile_clear(f);
        return -1;
    }
    return 0;
}

/* Phase two: the flushed temporary renamed over the target. */
static int rename_one(ss_afile *f, ss_err *err)
{
    if (!f->tmp) return 0; /* the standard output, done in phase one */
    if (rename(f->tmp, f->path) != 0) {
        int e = errno;
        unlink(f->tmp);
        ss_err_at(err, f->path, 0, 0, "cannot create: %s", strerror(e ? e : EIO));
        afile_clear(f);
        return -1;
    }
    sync_dir_of(f->path);
    afile_clear(f);
    return 0;
}

int ss_afile_commit(ss_afile *f, ss_err *err)
{
    ss_afile *one[] = {f};
    return ss_afile_commit_all(one, 1, err);
}

int ss_afile_commit_all(ss_afile *const *fs, size_t n, ss_err *err)
{
    size_t i = 0;
    for (; i < n; i++)
        if (flush_one(fs[i], err) < 0) break;
    if (i < n) { /* one failed: none appears */
        for (size_t k = 0; k < n; k++) ss_afile_abort(fs[k]);
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < n; k++)
        if (rename_one(fs[k], err) < 0) rc = -1;
    return rc;
}

void ss_afile_abort(ss_afile *f)
{
    if (!f) return;
    if (f->fp && f->tmp) fclose(f->fp); /* the standard output (no temporary) stays open */
    if (f->tmp) unlink(f->tmp);
    afile_clear(f);
    remove_empty_made();
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
