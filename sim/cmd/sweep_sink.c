/* sweep_sink.c: the sweep results file as an append-only journal written
 * in unit order, its resume, and the progress line (see sweep_sink.h). */
#include "cmd/sweep_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/csvread.h"
#include "cmd/sweep.h"

enum { TODO, PRESENT, FINISHED, WRITTEN };

struct ss_sweep_sink {
    const ss_sweep *sw;
    char *path;
    int fd;
    unsigned char *state;  /* per unit */
    char **text;           /* rows or error of a finished unit waiting for its turn */
    int *ok;
    size_t next;           /* first unit not yet through the file */
    size_t last_present;   /* highest unit found by --resume, +1 (0: none) */
    int reorder;           /* a unit below last_present was appended: sort the file at close */
    size_t present, todo, done, failed;
    int progress;
    struct timespec t0;
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* <results>.fingerprint: what defines the sweep (ss_sweep_fingerprint). */
static char *fingerprint_path(const ss_sweep_sink *s) { return ss_xasprintf("%s.fingerprint", s->path); }

/* Write the header to a fresh file (atomically replacing any old one),
 * and the sweep's fingerprint beside it. */
static int start_fresh(ss_sweep_sink *s, ss_err *err)
{
    ss_afile f;
    if (ss_afile_open(&f, s->path, err) < 0) return -1;
    char *hdr = ss_sweep_header(s->sw);
    fputs(hdr, f.fp);
    free(hdr);
    if (ss_afile_commit(&f, err) < 0) return -1;
    char *fpath = fingerprint_path(s), *fp = ss_sweep_fingerprint(s->sw);
    int rc = ss_afile_open(&f, fpath, err);
    if (rc == 0) {
        fputs(fp, f.fp);
        rc = ss_afile_commit(&f, err);
    }
    if (rc < 0) unlink(s->path); /* a file without its fingerprint is not left behind */
    free(fpath);
    free(fp);
    return rc;
}

/* The header row of a file as the text we would write for it. */
static char *row_text(const ss_csv_row *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&buf, &len);
    for (size_t i = 0; i < r->n; i++) {
        if (i) fputc(',', fp);
        ss_csv_field(fp, r->f[i]);
    }
    fputc('\n', fp);
    fclose(fp);
    return buf;
}

/* The fingerprint kept beside the results against this sweep's: 0 if they
 * match or none was kept, else -1 naming the first item that changed. */
static int same_sweep(const ss_sweep_sink *s, ss_err *err)
{
    char *fpath = fingerprint_path(s), *now = ss_sweep_fingerprint(s->sw);
    size_t len = 0;
    ss_err rerr = {0};
    char *then = ss_read_file(fpath, &len, &rerr);
    int rc = 0;
    if (!then) {
        /* none kept (a file from before fingerprints, or assembled by hand):
         * the header check in resume() is all there is to go on */
    } else if (strcmp(then, now) != 0) {
        /* the first line that differs, or one that is missing */
        const char *a = then, *b = now;
        while (*a && *b) {
            size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
            if (la != lb || memcmp(a, b, la) != 0) break;
            a += la + (a[la] == '\n');
            b += lb + (b[lb] == '\n');
        }
        rc = ss_err_at(err, s->path, 0, 0,
                       "--resume: the sweep is not the one this file was started with: was '%.*s', now '%.*s'; "
                       "remove it or choose another -o",
                       (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    }
    free(then);
    free(now);
    free(fpath);
    return rc;
}

/* Read an existing results file back: note the units present and cut the
 * file after the last whole unit.  A missing file starts fresh. */
static int resume(ss_sweep_sink *s, ss_err *err)
{
    if (access(s->path, F_OK) != 0) return start_fresh(s, err);
    if (same_sweep(s, err) < 0) return -1;
    ss_csv csv;
    if (ss_csv_read(s->path, &csv, err) < 0) return -1;
    char *want = ss_sweep_header(s->sw);
    if (csv.nrows == 0 && csv.size < strlen(want)) { /* killed while writing the header? */
        size_t got = 0;
        char *buf = ss_read_file(s->path, &got, err);
        if (!buf) {
            free(want);
            ss_csv_free(&csv);
            return -1;
        }
        int prefix = memcmp(buf, want, got) == 0;
        free(buf);
        if (prefix) {
            free(want);
            ss_csv_free(&csv);
            return start_fresh(s, err);
        }
    }
    char *have = csv.nrows ? row_text(&csv.rows[0]) : NULL;
    int rc = 0;
    if (!have || strcmp(want, have) != 0) {
        rc = ss_err_at(err, s->path, 1, 1,
                       "--resume: this file's header is not this sweep's (was it written by another sweep, or "
                       "with other --set options?); remove it or choose another -o");
    }
    free(want);
    free(have);
    size_t keep = csv.nrows ? csv.rows[0].end : 0;
    long cp = -1, cv = -1, cr = -1, cm = -1;
    if (rc == 0) {
        cp = ss_csv_col(&csv.rows[0], "point");
        cv = ss_csv_col(&csv.rows[0], "variant");
        cr = ss_csv_col(&csv.rows[0], "replication");
        cm = ss_csv_col(&csv.rows[0], "model");
    }
    for (size_t i = 1; rc == 0 && i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        if (r->n != csv.rows[0].n) {
            rc = ss_err_at(err, s->path, r->line, 1, "--resume: expected %zu fields, found %zu", csv.rows[0].n, r->n);
            break;
        }
        char *e1, *e2;
        unsigned long long p = strtoull(r->f[cp], &e1, 10), rep = strtoull(r->f[cr], &e2, 10);
        size_t u = *e1 || *e2 || !r->f[cp][0] || !r->f[cr][0]
                       ? (size_t)-1
                       : ss_sweep_unit_find(s->sw, (size_t)p, r->f[cv], (unsigned)rep);
        if (u == (size_t)-1) {
            rc = ss_err_at(err, s->path, r->line, 1,
                           "--resume: point %s, variant '%s', replication %s is not a run of this sweep", r->f[cp],
                           r->f[cv], r->f[cr]);
            break;
        }
        if (strcmp(r->f[cm], "all") == 0) { /* the last row of a unit: the unit is whole */
            if (s->state[u] != PRESENT) s->present++;
            s->state[u] = PRESENT;
            if (u + 1 > s->last_present) s->last_present = u + 1;
            keep = r->end;
        }
    }
    ss_csv_free(&csv);
    if (rc < 0) return -1;
    if (truncate(s->path, (off_t)keep) != 0)
        return ss_err_at(err, s->path, 0, 0, "cannot cut the unfinished tail: %s", strerror(errno));
    return 0;
}

ss_sweep_sink *ss_sweep_sink_open(const ss_sweep *sw, const char *path, int resume_it, int progress, ss_err *err)
{
    ss_sweep_sink *s = ss_xcalloc(1, sizeof *s);
    size_t n = ss_sweep_units(sw);
    s->sw = sw;
    s->path = ss_xstrdup(path);
    s->fd = -1;
    s->state = ss_xcalloc(n + 1, 1);
    s->text = ss_xcalloc(n + 1, sizeof *s->text);
    s->ok = ss_xcalloc(n + 1, sizeof *s->ok);
    s->progress = progress;
    clock_gettime(CLOCK_MONOTONIC, &s->t0);
    int rc = resume_it ? resume(s, err) : start_fresh(s, err);
    if (rc == 0) {
        s->fd = open(path, O_WRONLY | O_APPEND);
        if (s->fd < 0) rc = ss_err_at(err, path, 0, 0, "cannot open for appending: %s", strerror(errno));
    }
    if (rc < 0) {
        ss_sweep_sink_close(s);
        return NULL;
    }
    s->todo = n - s->present;
    return s;
}

int ss_sweep_sink_has(const ss_sweep_sink *s, size_t unit) { return s->state[unit] == PRESENT; }
size_t ss_sweep_sink_present(const ss_sweep_sink *s) { return s->present; }

static int append(ss_sweep_sink *s, const char *text, ss_err *err)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(s->fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return ss_err_at(err, s->path, 0, 0, "cannot write: %s", strerror(errno));
        off += (size_t)w;
    }
    if (fsync(s->fd) != 0) return ss_err_at(err, s->path, 0, 0, "cannot write: %s", strerror(errno));
    return 0;
}

static void draw(const ss_sweep_sink *s)
{
    if (!s->progress) return;
    double el = since(&s->t0);
    fprintf(stderr, "\r\033[Ksweep: %zu/%zu runs done, %zu failed, %d:%02d elapsed", s->done, s->todo, s->failed,
            (int)el / 60, (int)el % 60);
    if (s->done > 0 && s->done < s->todo) {
        double eta = el / (double)s->done * (double)(s->todo - s->done);
        fprintf(stderr, ", ETA %d:%02d", (int)eta / 60, (int)eta % 60);
    }
    fflush(stderr);
}

int ss_sweep_sink_put(ss_sweep_sink *s, size_t unit, int ok, char *text, ss_err *err)
{
    s->state[unit] = FINISHED;
    s->text[unit] = text;
    s->ok[unit] = ok;
    s->done++;
    if (!ok) {
        s->failed++;
        char *what = ss_sweep_unit_describe(s->sw, unit);
        if (s->progress) fputs("\r\033[K", stderr);
        fprintf(stderr, "sweep: %s failed: %s\n", what, text);
        free(what);
    }
    draw(s);
    size_t n = ss_sweep_units(s->sw);
    while (s->next < n && s->state[s->next] != TODO) {
        size_t u = s->next++;
        if (s->state[u] != FINISHED) continue;
        int rc = s->ok[u] ? append(s, s->text[u], err) : 0;
        if (s->ok[u] && u < s->last_present) s->reorder = 1;
        free(s->text[u]);
        s->text[u] = NULL;
        s->state[u] = WRITTEN;
        if (rc < 0) return -1;
    }
    return 0;
}

/* One unit's rows in the file: bytes [start, end). */
typedef struct span {
    size_t unit, start, end;
} span;

static int by_unit(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

/* A resume that filled a gap (a unit that had failed, or was cut) appended
 * it after later units.  Put every unit back in unit order, so the file is
 * byte for byte the one an uninterrupted sweep writes; the new file replaces
 * the old one whole, so a crash here loses nothing. */
static int rewrite_in_unit_order(ss_sweep_sink *s, ss_err *err)
{
    size_t len = 0;
    char *buf = ss_read_file(s->path, &len, err);
    ss_csv csv;
    if (!buf) return -1;
    if (ss_csv_read(s->path, &csv, err) < 0) {
        free(buf);
        return -1;
    }
    long cp = ss_csv_col(&csv.rows[0], "point"), cv = ss_csv_col(&csv.rows[0], "variant"),
         cr = ss_csv_col(&csv.rows[0], "replication"), cm = ss_csv_col(&csv.rows[0], "model");
    span *sp = ss_xcalloc(csv.nrows + 1, sizeof *sp);
    size_t n = 0, start = csv.rows[0].end;
    for (size_t i = 1; i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        if (strcmp(r->f[cm], "all") != 0) continue;
        size_t u = ss_sweep_unit_find(s->sw, strtoull(r->f[cp], NULL, 10), r->f[cv],
                                      (unsigned)strtoull(r->f[cr], NULL, 10));
        sp[n++] = (span){u, start, r->end};
        start = r->end;
    }
    qsort(sp, n, sizeof *sp, by_unit);
    ss_afile f;
    int rc = ss_afile_open(&f, s->path, err);
    if (rc == 0) {
        fwrite(buf, 1, csv.rows[0].end, f.fp);
        for (size_t k = 0; k < n; k++) fwrite(buf + sp[k].start, 1, sp[k].end - sp[k].start, f.fp);
        rc = ss_afile_commit(&f, err);
    }
    free(sp);
    ss_csv_free(&csv);
    free(buf);
    return rc;
}

size_t ss_sweep_sink_close(ss_sweep_sink *s)
{
    size_t failed = s->failed;
    if (s->progress && s->done) fputc('\n', stderr);
    if (s->fd >= 0) close(s->fd);
    if (s->fd >= 0 && s->reorder) {
        ss_err err = {0};
        if (rewrite_in_unit_order(s, &err) < 0)
            fprintf(stderr, "sweep: %s (the rows are all there, but not in run order)\n", err.msg);
    }
    size_t n = ss_sweep_units(s->sw);
    for (size_t u = 0; u < n; u++) free(s->text[u]);
    free(s->text);
    free(s->ok);
    free(s->state);
    free(s->path);
    free(s);
    return failed;
}
