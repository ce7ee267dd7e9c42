/* trace.c: reads arrival-time traces (servesim CSV and the Azure LLM trace
 * format) into a sorted array of relative arrival times; see trace.h. */
#include "input/trace.h"
#include "core/readlog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FMT_SERVESIM, FMT_AZURE };

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil): no time zone, no libc locale involved. */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Parse "YYYY-MM-DD HH:MM:SS[.fffffff]" at s; seconds since the epoch in
 * *out; returns the number of characters read, or 0 (with *bad the offset
 * of the first wrong character) if malformed. */
static size_t parse_azure_time(const char *s, long long *secs, double *frac_out, size_t *bad)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    long f[6] = {0};
    int fi = 0;
    size_t i = 0;
    for (; shape[i]; i++) {
        if (shape[i] == 'd') {
            if (s[i] < '0' || s[i] > '9') { *bad = i; return 0; }
            f[fi] = f[fi] * 10 + (s[i] - '0');
        } else {
            if (s[i] != shape[i]) { *bad = i; return 0; }
            fi++;
        }
    }
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = f[0] % 4 == 0 && (f[0] % 100 != 0 || f[0] % 400 == 0);
    if (f[1] < 1 || f[1] > 12) {
        *bad = 5;
        return 0;
    }
    if (f[2] < 1 || f[2] > mdays[f[1] - 1] - (f[1] == 2 && !leap)) { /* no 2023-02-30 */
        *bad = 8;
        return 0;
    }
    if (f[3] > 23 || f[4] > 59 || f[5] > 60) {
        *bad = f[3] > 23 ? 11 : f[4] > 59 ? 14 : 17;
        return 0;
    }
    double frac = 0, scale = 0.1;
    if (s[i] == '.') {
        i++;
        if (s[i] < '0' || s[i] > '9') { *bad = i; return 0; }
        for (; s[i] >= '0' && s[i] <= '9'; i++, scale *= 0.1) frac += (s[i] - '0') * scale;
    }
    /* Whole seconds and the fraction apart: as one double, seconds since
     * 1970 would keep only about 0.2 us of the trace's 100 ns ticks. */
    *secs = (long long)days_from_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 + f[4] * 60 + f[5];
    *frac_out = frac;
    return i;
}

/* The next line into *line (NUL-terminated, the newline kept), as getline,
 * but never longer than SS_MAX_LINE_BYTES: -2 past that, -1 at the end. */
static ssize_t bounded_line(FILE *fp, char **line, size_t *cap)
{
    size_t n = 0;
    int c;
    while ((c = getc_unlocked(fp)) != EOF) {
        if (n + 2 > *cap) {
            if (n >= SS_MAX_LINE_BYTES) return -2;
            *cap = *cap ? 2 * *cap : 256;
            *line = ss_xrealloc(*line, *cap);
        }
        (*line)[n++] = (char)c;
        if (c == '\n') break;
    }
    if (n == 0) return -1;
    (*line)[n] = '\0';
    return (ssize_t)n;
}

/* The two token counts after the time on a trace line (`,prompt,output`), from
 * column `at` (0-based, at the comma): whole numbers from 1 to 1e9. */
static int tokens_at(const char *path, int lineno, const char *line, size_t at, uint32_t *p, uint32_t *o, ss_err *err)
{
    uint32_t *dst[2] = {p, o};
    static const char *const what[2] = {"prompt (context) tokens", "output (generated) tokens"};
    const char *s = line + at;
    for (int k = 0; k < 2; k++) {
        if (*s != ',')
            return ss_err_at(err, path, lineno, (int)(s - line) + 1,
                             "a row without its token counts: expected ',' and the %s", what[k]);
        s++;
        char *end;
        errno = 0;
        double v = ss_strtod(s, &end);
        if (end == s || (*end != ',' && *end != '\0') || errno || !(v >= 1 && v <= 1e9) || v != floor(v))
            return ss_err_at(err, path, lineno, (int)(s - line) + 1, "expected the %s, a whole number from 1 to 1e9",
                             what[k]);
        *dst[k] = (uint32_t)v;
        s = end;
    }
    return 0;
}

static int load(const char *path, double time_scale, double **times_s, uint32_t **prompt, uint32_t **output, size_t *n,
                ss_err *err)
{
    uint32_t *pt = NULL, *ot = NULL;
    FILE *fp = ss_open_input(path, SS_INPUT_TRACE, err);
    if (!fp) return -1;
    char *line = NULL;
    size_t cap = 0, count = 0, alloc = 0;
    double *t = NULL, first = 0, prev = -INFINITY;
    long long first_secs = 0;
    int fmt = -1, lineno = 0, rc = 0;
    ssize_t len;
    while ((len = bounded_line(fp, &line, &cap)) != -1) {
        lineno++;
        if (len == -2) {
            rc = ss_err_at(err, path, lineno, 1, "line longer than %u bytes: not a trace", SS_MAX_LINE_BYTES);
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (fmt < 0) {
            if (strncmp(line, "timestamp_s", 11) == 0 && (line[11] == ',' || line[11] == '\0')) {
                fmt = FMT_SERVESIM;
                if (prompt && strncmp(line, "timestamp_s,prompt_tokens,output_tokens", 39) != 0) {
                    rc = ss_err_at(err, path, lineno, 12, "expected the columns timestamp_s,prompt_tokens,"
                                                          "output_tokens (an LLM workload needs each request's "
                                                          "token counts)");
                    break;
                }
            }
            else if (strncmp(line, "TIMESTAMP,", 10) == 0 || strcmp(line, "TIMESTAMP") == 0)
                fmt = FMT_AZURE;
            else {
                rc = ss_err_at(err, path, lineno, 1,
                               "unknown trace format: expected a header starting with 'timestamp_s' "
                               "(servesim) or 'TIMESTAMP' (Azure)");
                break;
            }
            continue;
        }
        if (len == 0) continue; /* blank lines, e.g. a final empty line */
        double v;
        size_t after = 0; /* where the time's field ends */
        if (fmt == FMT_SERVESIM) {
            char *end;
            errno = 0;
            v = ss_strtod(line, &end);
            if (end == line || (*end != ',' && *end != '\0') || !isfinite(v) || errno) {
                /* junk after a number is pointed at; a number out of range as a whole */
                size_t col = end == line || !isfinite(v) || errno ? 1 : (size_t)(end - line) + 1;
                rc = ss_err_at(err, path, lineno, (int)col, "expected a time in seconds, got '%s'", line);
                break;
            }
            after = (size_t)(end - line);
        } else {
            long long secs = 0;
            double frac = 0;
            size_t bad = 0, used = parse_azure_time(line, &secs, &frac, &bad);
            if (!used || (line[used] != ',' && line[used] != '\0')) {
                rc = ss_err_at(err, path, lineno, (int)(used ? used : bad) + 1,
                               "expected a timestamp 'YYYY-MM-DD HH:MM:SS.fffffff', got '%s'", line);
                break;
            }
            if (count == 0) first_secs = secs;
            v = (double)(secs - first_secs) + frac;
            after = used;
        }
        if (v < prev) {
            rc = ss_err_at(err, path, lineno, 1, "timestamps must not decrease (%.9g after %.9g)", v, prev);
            break;
        }
        prev = v;
        if (count == 0) first = v;
        if (count == alloc) {
            alloc = alloc ? 2 * alloc : 1024;
            t = ss_xrealloc(t, alloc * sizeof *t);
            if (prompt) pt = ss_xrealloc(pt, alloc * sizeof *pt), ot = ss_xrealloc(ot, alloc * sizeof *ot);
        }
        if (prompt && tokens_at(path, lineno, line, after, &pt[count], &ot[count], err) < 0) {
            rc = -1;
            break;
        }
        t[count] = (v - first) * time_scale;
        if (!isfinite(t[count]) || t[count] > 1e15) { /* about 30 million years: no run gets there */
            rc = ss_err_at(err, path, lineno, 1, "%.9g s after the first line, times time_scale %g, is past 1e15 s",
                           v - first, time_scale);
            break;
        }
        count++;
    }
    free(line);
    fclose(fp);
    if (rc == 0 && fmt < 0) rc = ss_err_at(err, path, 1, 1, "empty trace: expected a header line");
    if (rc == 0 && count == 0) rc = ss_err_at(err, path, lineno, 1, "trace holds no arrivals");
    if (rc < 0) {
        free(t);
        free(pt);
        free(ot);
        return -1;
    }
    *times_s = t;
    if (prompt) *prompt = pt, *output = ot;
    *n = count;
    return 0;
}

int ss_trace_has_tokens(const char *path)
{
    ss_err ignore = {0};
    FILE *fp = ss_open_input(path, SS_INPUT_TRACE, &ignore);
    if (!fp) return 0; /* the loader says why */
    char head[64] = "";
    int yes = fgets(head, sizeof head, fp) &&
              (strncmp(head, "timestamp_s,prompt_tokens,output_tokens", 39) == 0 || strncmp(head, "TIMESTAMP,", 10) == 0);
    fclose(fp);
    return yes;
}

int ss_trace_load(const char *path, double time_scale, double **times_s, size_t *n, ss_err *err)
{
    return load(path, time_scale, times_s, NULL, NULL, n, err);
}

int ss_trace_load_tokens(const char *path, double time_scale, double **times_s, uint32_t **prompt_tokens,
                         uint32_t **output_tokens, size_t *n, ss_err *err)
{
    return load(path, time_scale, times_s, prompt_tokens, output_tokens, n, err);
}
