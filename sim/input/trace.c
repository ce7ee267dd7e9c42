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

int ss_trace_load(const char *path, double time_scale, double **times_s, size_t *n, ss_err *err)
{
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
            if (strncmp(line, "timestamp_s", 11) == 0 && (line[11] == ',' || line[11] == '\0'))
                fmt = FMT_SERVESIM;
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
        return -1;
    }
    *times_s = t;
    *n = count;
    return 0;
}
