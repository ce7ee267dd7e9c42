/* sweep_local.c: runs a sweep's units on this machine, each in a forked
 * worker process, at most `jobs` at a time (see sweep_run.h).
 *
 * One process per run isolates runs from each other: a plugin that crashes
 * or leaks fails its own unit only ("killed by signal 11"), and the parent
 * (which holds the results file) carries on.  A worker sends its result
 * through a pipe: one status byte ('+' rows, '-' error message) followed by
 * the text; the parent reads all pipes with poll(2), so a large result
 * never blocks its worker.  The cost of a fork per run is about a
 * millisecond, small next to any run worth sweeping. */
#include "cmd/sweep_run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/afile.h"

typedef struct worker {
    pid_t pid;
    int fd;       /* read end of its pipe; -1 when the slot is free */
    size_t unit;
    char *buf;    /* what it has sent so far */
    size_t len, cap;
} worker;

/* In the child: run the unit, send the result, exit without running the
 * parent's atexit handlers or flushing its stdio buffers twice. */
static void child(const ss_sweep *sw, size_t unit, int fd, pid_t parent)
{
    /* Die with the parent (a killed sweep must not leave workers running
     * for hours), and never touch the parent's temporary files. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4); /* the parent died before prctl took */
    ss_afile_forget();
    char *text = NULL;
    int rc = ss_sweep_unit_run(sw, unit, &text);
    char status = rc == 0 ? '+' : '-';
    size_t len = strlen(text);
    int bad = write(fd, &status, 1) != 1;
    for (size_t off = 0; !bad && off < len;) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        bad = w < 0;
        if (w > 0) off += (size_t)w;
    }
    _exit(bad ? 3 : 0);
}

static int start(const ss_sweep *sw, worker *w, size_t unit, ss_err *err)
{
    int p[2];
    if (pipe(p) != 0) return ss_err_at(err, NULL, 0, 0, "sweep: cannot make a pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return ss_err_at(err, NULL, 0, 0, "sweep: cannot start a worker process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(p[0]);
        child(sw, unit, p[1], parent);
    }
    close(p[1]);
    *w = (worker){pid, p[0], unit, NULL, 0, 0};
    return 0;
}

/* The worker's pipe is at end of file: reap it and hand its result on. */
static int finish(worker *w, ss_sweep_sink *sink, ss_err *err)
{
    close(w->fd);
    w->fd = -1;
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {}
    int ok = 0;
    char *text;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && w->len > 0) {
        ok = w->buf[0] == '+';
        text = ss_xmalloc(w->len);
        memcpy(text, w->buf + 1, w->len - 1);
        text[w->len - 1] = '\0';
    } else if (WIFSIGNALED(st)) {
        text = ss_xasprintf("worker process killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    } else {
        text = ss_xasprintf("worker process exited with status %d and no result", WEXITSTATUS(st));
    }
    free(w->buf);
    w->buf = NULL;
    return ss_sweep_sink_put(sink, w->unit, ok, text, err);
}

int ss_sweep_run_local(const ss_sweep *sw, ss_sweep_sink *sink, unsigned jobs, ss_err *err)
{
    if (jobs < 1) jobs = 1;
    worker *ws = ss_xcalloc(jobs, sizeof *ws);
    struct pollfd *pf = ss_xcalloc(jobs, sizeof *pf);
    for (unsigned i = 0; i < jobs; i++) ws[i].fd = -1;
    size_t n = ss_sweep_units(sw), next = 0, running = 0;
    int rc = 0;
    for (;;) {
        while (rc == 0 && running < jobs) {
            while (next < n && ss_sweep_sink_has(sink, next)) next++;
            if (next >= n) break;
            unsigned slot = 0;
            while (ws[slot].fd >= 0) slot++;
            if (start(sw, &ws[slot], next, err) < 0) {
                rc = -1;
                break;
            }
            next++;
            running++;
        }
        if (running == 0) break;
        for (unsigned i = 0; i < jobs; i++) pf[i] = (struct pollfd){ws[i].fd, POLLIN, 0};
        if (poll(pf, jobs, -1) < 0) {
            if (errno == EINTR) continue;
            rc = ss_err_at(err, NULL, 0, 0, "sweep: poll: %s", strerror(errno));
            break;
        }
        for (unsigned i = 0; i < jobs; i++) {
            worker *w = &ws[i];
            if (w->fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (w->cap - w->len < 65536) {
                w->cap = w->cap * 2 + 65536;
                w->buf = ss_xrealloc(w->buf, w->cap);
            }
            ssize_t r = read(w->fd, w->buf + w->len, w->cap - w->len);
            if (r < 0 && errno == EINTR) continue;
            if (r > 0) {
                w->len += (size_t)r;
                continue;
            }
            running--;
            if (finish(w, sink, err) < 0) rc = -1;
        }
        if (rc < 0) break;
    }
    /* On an error, stop the workers still running. */
    for (unsigned i = 0; i < jobs; i++) {
        if (ws[i].fd < 0) continue;
        kill(ws[i].pid, SIGTERM);
        close(ws[i].fd);
        while (waitpid(ws[i].pid, NULL, 0) < 0 && errno == EINTR) {}
        free(ws[i].buf);
    }
    free(ws);
    free(pf);
    return rc;
}
