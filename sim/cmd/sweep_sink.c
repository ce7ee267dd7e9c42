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

#include "core/readlog.h"
#include "core/afile.h"
#include "core/csvread.h"
#include "cmd/sweep.h"

enum { TODO, PRESENT, FINISHED, WRITTEN };

struct ss_sweep_sink {
    const ss_sweep *sw;
    char *path;
    int fd;
    int checked;           /* rows have checksums: a fresh file, or one with a fingerprint */
    int sums_fd;           /* <path>.sums open for appending, or -1 */
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
/* <results>.sums: one checksum per line the sweep wrote after the header,
 * in file order, SUM_LEN bytes each ("%016llx\n" of the line's bytes with
 * its newline), appended with its unit; --resume checks every row. */
static char *sums_path(const ss_sweep_sink *s) { return ss_xasprintf("%s.sums", s->path); }
enum { SUM_LEN = 17 };

/* The checksum lines of the whole lines in text[0, len). */
static char *line_sums(const char *text, size_t len)
{
    char *out = NULL;
    size_t olen = 0;
    FILE *fp = ss_xmemstream(&out, &olen);
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        if (!nl) break;
        size_t end = (size_t)(nl - text) + 1;
        fprintf(fp, "%016llx\n", (unsigned long long)ss_hash_bytes(text + at, end - at));
        at = end;
    }
    fclose(fp);
    return out;
}

/* `text` as the whole of `path`, atomically. */
static int put_file(const char *path, const char *text, ss_err *err)
{
    ss_afile f;
    if (ss_afile_open(&f, path, err) < 0) return -1;
    fputs(text, f.fp);
    return ss_afile_commit(&f, err);
}

/* Write the header to a fresh file (atomically replacing any old one),
 * then the empty checksums and the sweep's fingerprint beside it. */
static int start_fresh(ss_sweep_sink *s, ss_err *err)
{
    char *hdr = ss_sweep_header(s->sw);
    int rc = put_file(s->path, hdr, err);
    free(hdr);
    if (rc < 0) return -1;
    char *fpath = fingerprint_path(s), *fp = ss_sweep_fingerprint(s->sw), *spath = sums_path(s);
    rc = put_file(spath, "", err);
    if (rc == 0) rc = put_file(fpath, fp, err);
    if (rc < 0) unlink(s->path); /* a file without its fingerprint is not left behind */
    s->checked = 1;
    free(spath);
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
 * match or none was kept (*kept says which), else -1 naming the first item
 * that changed. */
static int same_sweep(const ss_sweep_sink *s, int *kept, ss_err *err)
{
    char *fpath = fingerprint_path(s), *now = ss_sweep_fingerprint(s->sw);
    size_t len = 0;
    ss_err rerr = {0};
    char *then = ss_read_file(fpath, SS_INPUT_TABLE, &len, &rerr);
    int rc = 0;
    *kept = then != NULL;
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

/* Every line after the header that the checksums cover must be the one
 * the sweep wrote there: 0, or -1 naming the first that is not.
 * *checked: the byte offset after the last line covered; lines after it
 * were appended after the last checksum (an unfinished tail).  A file that
 * ends before its checksums do was cut (a tail lost): the units cut are
 * run again, the cut checksums dropped. */
static int check_rows(const ss_sweep_sink *s, const char *buf, size_t len, size_t *checked, ss_err *err)
{
    char *spath = sums_path(s);
    size_t slen = 0;
    ss_err rerr = {0};
    char *sums = ss_read_file(spath, SS_INPUT_TABLE, &slen, &rerr);
    const char *nl = memchr(buf, '\n', len);
    size_t at = nl ? (size_t)(nl - buf) + 1 : len, nsums = slen / SUM_LEN;
    int rc = sums ? 0
                  : ss_err_at(err, s->path, 0, 0, "--resume: its row checksums are gone (%s); remove it or choose another -o",
                              rerr.msg);
    for (size_t k = 0; rc == 0 && k < nsums; k++) {
        int line = (int)k + 2;
        const char *eol = memchr(buf + at, '\n', len - at);
        if (!eol) break; /* the file was cut here: what follows is run again */
        size_t end = (size_t)(eol - buf) + 1;
        char want[SUM_LEN + 1];
        snprintf(want, sizeof want, "%016llx\n", (unsigned long long)ss_hash_bytes(buf + at, end - at));
        if (memcmp(want, sums + k * SUM_LEN, SUM_LEN) != 0)
            rc = ss_err_at(err, s->path, line, 0,
                           "--resume: this row is not the one the sweep wrote here (edited, removed or damaged); "
                           "remove the file or choose another -o");
        at = end;
    }
    *checked = at;
    free(sums);
    free(spath);
    return rc;
}

/* The file's header against this sweep's: 0 if it is this sweep's, 1 if
 * the file holds only the start of it (killed while writing it: start
 * afresh), -1 with err set if it is another header. */
static int check_header(const ss_sweep_sink *s, const ss_csv *csv, ss_err *err)
{
    char *want = ss_sweep_header(s->sw);
    int rc = 0;
    if (csv->nrows == 0 && csv->size < strlen(want)) {
        size_t got = 0;
        char *buf = ss_read_file(s->path, SS_INPUT_TABLE, &got, err);
        rc = !buf ? -1 : memcmp(buf, want, got) == 0 ? 1 : 0;
        free(buf);
    }
    char *have = rc == 0 && csv->nrows ? row_text(&csv->rows[0]) : NULL;
    if (rc == 0 && (!have || strcmp(want, have) != 0))
        rc = ss_err_at(err, s->path, 1, 1,
                       "--resume: this file's header is not this sweep's (was it written by another sweep, or "
                       "with other --set options?); remove it or choose another -o");
    free(want);
    free(have);
    return rc;
}

/* Note the whole units among the rows that end by byte `limit`; *keep:
 * the byte offset after the last of them. */
static int find_units(ss_sweep_sink *s, const ss_csv *csv, size_t limit, size_t *keep, ss_err *err)
{
    const ss_csv_row *h = &csv->rows[0];
    long cp = ss_csv_col(h, "point"), cv = ss_csv_col(h, "variant"), cr = ss_csv_col(h, "replication"),
         cm = ss_csv_col(h, "model");
    *keep = h->end;
    for (size_t i = 1; i < csv->nrows && csv->rows[i].end <= limit; i++) {
        const ss_csv_row *r = &csv->rows[i];
        if (r->n != h->n) return ss_err_at(err, s->path, r->line, 1, "--resume: expected %zu fields, found %zu", h->n, r->n);
        char *e1, *e2;
        unsigned long long p = ss_strtou64(r->f[cp], &e1), rep = ss_strtou64(r->f[cr], &e2);
        size_t u = *e1 || *e2 || !r->f[cp][0] || !r->f[cr][0]
                       ? (size_t)-1
                       : ss_sweep_unit_find(s->sw, (size_t)p, r->f[cv], (unsigned)rep);
        if (u == (size_t)-1)
            return ss_err_at(err, s->path, r->line, 1,
                             "--resume: point %s, variant '%s', replication %s is not a run of this sweep", r->f[cp],
                             r->f[cv], r->f[cr]);
        if (strcmp(r->f[cm], "all") == 0) { /* the last row of a unit: the unit is whole */
            if (s->state[u] != PRESENT) s->present++;
            s->state[u] = PRESENT;
            if (u + 1 > s->last_present) s->last_present = u + 1;
            *keep = r->end;
        }
    }
    return 0;
}

/* Cut the file (and its checksums, first: a crash between the two leaves
 * rows without checksums, an unfinished tail) after byte `keep`. */
static int cut_after(const ss_sweep_sink *s, const char *buf, size_t hdr_end, size_t keep, ss_err *err)
{
    if (buf) {
        size_t lines = 0;
        for (size_t i = hdr_end; i < keep; i++) lines += buf[i] == '\n';
        char *spath = sums_path(s);
        int bad = truncate(spath, (off_t)(lines * SUM_LEN));
        free(spath);
        if (bad) return ss_err_at(err, s->path, 0, 0, "cannot cut the checksums of the unfinished tail: %s", strerror(errno));
    }
    if (truncate(s->path, (off_t)keep) != 0)
        return ss_err_at(err, s->path, 0, 0, "cannot cut the unfinished tail: %s", strerror(errno));
    return 0;
}

/* Read an existing results file back: check it is this sweep's and that
 * every row is the one written, note the units present and cut the file
 * after the last whole unit.  A missing file starts fresh. */
static int resume(ss_sweep_sink *s, ss_err *err)
{
    if (access(s->path, F_OK) != 0) return start_fresh(s, err);
    int kept = 0;
    if (same_sweep(s, &kept, err) < 0) return -1;
    ss_csv csv;
    if (ss_csv_read(s->path, &csv, err) < 0) return -1;
    int rc = check_header(s, &csv, err);
    if (rc == 1) {
        ss_csv_free(&csv);
        return start_fresh(s, err);
    }
    size_t len = 0, limit = (size_t)-1, keep = 0;
    char *buf = rc == 0 && kept ? ss_read_file(s->path, SS_INPUT_TABLE, &len, err) : NULL;
    if (rc == 0 && kept) rc = buf ? check_rows(s, buf, len, &limit, err) : -1;
    if (rc == 0) rc = find_units(s, &csv, limit, &keep, err);
    if (rc == 0) rc = cut_after(s, buf, csv.rows[0].end, keep, err);
    s->checked = kept;
    free(buf);
    ss_csv_free(&csv);
    return rc;
}

/* start_fresh, but not over results a resume would continue: a file with
 * this sink's fingerprint file beside it is refused (--resume or --force). */
static int start_fresh_unless_kept(ss_sweep_sink *s, ss_err *err)
{
    char *fpath = fingerprint_path(s);
    int kept = access(s->path, F_OK) == 0 && access(fpath, F_OK) == 0;
    free(fpath);
    if (kept)
        return ss_err_at(err, s->path, 0, 0,
                         "holds a sweep's results (its fingerprint is beside it): --resume continues that sweep, "
                         "--force replaces the file, or choose another -o");
    return start_fresh(s, err);
}

ss_sweep_sink *ss_sweep_sink_open(const ss_sweep *sw, const char *path, int resume_it, int force, int progress,
                                  ss_err *err)
{
    ss_sweep_sink *s = ss_xcalloc(1, sizeof *s);
    size_t n = ss_sweep_units(sw);
    s->sw = sw;
    s->path = ss_xstrdup(path);
    s->fd = -1;
    s->sums_fd = -1;
    s->state = ss_xcalloc(n + 1, 1);
    s->text = ss_xcalloc(n + 1, sizeof *s->text);
    s->ok = ss_xcalloc(n + 1, sizeof *s->ok);
    s->progress = progress;
    clock_gettime(CLOCK_MONOTONIC, &s->t0);
    /* What the sink reads to resume is its own output (results, checksums,
     * fingerprint), not an input of the sweep that an output may not replace. */
    ss_read_note_pause(1);
    int rc = resume_it ? resume(s, err) : force ? start_fresh(s, err) : start_fresh_unless_kept(s, err);
    ss_read_note_pause(0);
    if (rc == 0) {
        s->fd = open(path, O_WRONLY | O_APPEND);
        if (s->fd < 0) rc = ss_err_at(err, path, 0, 0, "cannot open for appending: %s", strerror(errno));
    }
    if (rc == 0 && s->checked) {
        char *spath = sums_path(s);
        s->sums_fd = open(spath, O_WRONLY | O_APPEND);
        if (s->sums_fd < 0) rc = ss_err_at(err, spath, 0, 0, "cannot open for appending: %s", strerror(errno));
        free(spath);
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

/* All of text to fd, then fsync. */
static int write_all(int fd, const char *text, const char *path, ss_err *err)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return ss_err_at(err, path, 0, 0, "cannot write: %s", strerror(errno));
        off += (size_t)w;
    }
    if (fsync(fd) != 0) return ss_err_at(err, path, 0, 0, "cannot write: %s", strerror(errno));
    return 0;
}

/* A unit's rows, then their checksums (a crash between the two leaves rows
 * without checksums: a tail that --resume cuts and runs again). */
static int append(ss_sweep_sink *s, const char *text, ss_err *err)
{
    if (write_all(s->fd, text, s->path, err) < 0) return -1;
    if (s->sums_fd < 0) return 0;
    char *sums = line_sums(text, strlen(text)), *spath = sums_path(s);
    int rc = write_all(s->sums_fd, sums, spath, err);
    free(spath);
    free(sums);
    return rc;
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
    ss_read_note_pause(1); /* the sink's own file, not an input (core/readlog.h) */
    char *buf = ss_read_file(s->path, SS_INPUT_TABLE, &len, err);
    ss_csv csv;
    int read = buf && ss_csv_read(s->path, &csv, err) == 0;
    ss_read_note_pause(0);
    if (!buf) return -1;
    if (!read) {
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
        size_t u = ss_sweep_unit_find(s->sw, ss_strtou64(r->f[cp], NULL), r->f[cv],
                                      (unsigned)ss_strtou64(r->f[cr], NULL));
        sp[n++] = (span){u, start, r->end};
        start = r->end;
    }
    qsort(sp, n, sizeof *sp, by_unit);
    char *out = NULL;
    size_t olen = 0;
    FILE *fp = ss_xmemstream(&out, &olen);
    fwrite(buf, 1, csv.rows[0].end, fp);
    for (size_t k = 0; k < n; k++) fwrite(buf + sp[k].start, 1, sp[k].end - sp[k].start, fp);
    fclose(fp);
    /* the checksums first: a crash between the two leaves the rows in the
     * old order, which --resume then refuses (rather than trusting them) */
    int rc = 0;
    if (s->checked) {
        char *sums = line_sums(out + csv.rows[0].end, olen - csv.rows[0].end), *spath = sums_path(s);
        rc = put_file(spath, sums, err);
        free(spath);
        free(sums);
    }
    if (rc == 0) rc = put_file(s->path, out, err);
    free(out);
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
    if (s->sums_fd >= 0) close(s->sums_fd);
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
