/* util.c: error formatting, checked allocation, typo suggestions, hashing
 * and path helpers (see util.h for the contracts). */
#include "core/util.h"
#include "core/readlog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ss_err_at(ss_err *e, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ss_err_vat(e, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

int ss_err_vat(ss_err *e, const char *file, int line, int col, const char *fmt, va_list ap)
{
    if (!e || e->set) return -1;
    size_t off = 0;
    if (file && line > 0 && col > 0)
        off = (size_t)snprintf(e->msg, sizeof e->msg, "%s:%d:%d: ", file, line, col);
    else if (file && line > 0)
        off = (size_t)snprintf(e->msg, sizeof e->msg, "%s:%d: ", file, line);
    else if (file)
        off = (size_t)snprintf(e->msg, sizeof e->msg, "%s: ", file);
    if (off >= sizeof e->msg) off = sizeof e->msg - 1;
    vsnprintf(e->msg + off, sizeof e->msg - off, fmt, ap);
    e->set = 1;
    return -1;
}

static void oom(void)
{
    fputs("servesim: out of memory\n", stderr);
    abort();
}

void *ss_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom();
    return p;
}

void *ss_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom();
    return p;
}

void *ss_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) oom();
    return p;
}

char *ss_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(ss_xmalloc(n), s, n);
}

char *ss_xasprintf(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) oom();
    char *s = ss_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

int ss_same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

size_t ss_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = ss_xmalloc((lb + 1) * sizeof *row);
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

const char *ss_suggest(const char *word, const char *const *cands)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; cands && cands[i]; i++) {
        size_t d = ss_edit_distance(word, cands[i]);
        if (d < best_d) { best_d = d; best = cands[i]; }
    }
    size_t len = strlen(word), lim = len / 3 > 2 ? len / 3 : 2;
    return best && best_d <= lim ? best : NULL;
}

uint64_t ss_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t ss_hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

uint64_t ss_hash_str(const char *s) { return ss_hash_bytes(s, strlen(s)); }

char *ss_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return ss_xstrdup(".");
    if (slash == path) return ss_xstrdup("/");
    size_t n = (size_t)(slash - path);
    char *d = ss_xmalloc(n + 1);
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

char *ss_path_join(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || !dir[0] || strcmp(dir, ".") == 0) return ss_xstrdup(rel);
    return ss_xasprintf("%s/%s", dir, rel);
}

FILE *ss_xmemstream(char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *fp = open_memstream(buf, len);
    if (!fp) {
        fputs("servesim: out of memory\n", stderr);
        abort();
    }
    return fp;
}

const char *ss_file_kind(unsigned mode)
{
    if (S_ISREG(mode)) return NULL;
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

FILE *ss_open_input(const char *path, ss_input_kind kind, ss_err *err)
{
    ss_read_log_note(path);
    /* Non-blocking, so that opening a FIFO with no writer returns at once
     * (and is then refused); a regular file reads as it always does. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        ss_err_at(err, path, 0, 0, "cannot read: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        ss_err_at(err, path, 0, 0, "cannot read: %s", strerror(e));
        return NULL;
    }
    const char *special = ss_file_kind(st.st_mode);
    if (special) {
        close(fd);
        ss_err_at(err, path, 0, 0, "cannot read: it is %s, not a regular file (give the path of a file)", special);
        return NULL;
    }
    ss_read_note_input(path, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
    if ((uint64_t)st.st_size > ss_limit_input_bytes(kind)) {
        close(fd);
        ss_err_at(err, path, 0, 0,
                  "cannot read: %llu bytes, more than the %llu that %s may have (--max-input-bytes SIZE raises it)",
                  (unsigned long long)st.st_size, (unsigned long long)ss_limit_input_bytes(kind),
                  ss_input_kind_words(kind));
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        ss_err_at(err, path, 0, 0, "cannot read: %s", strerror(e));
        return NULL;
    }
    return f;
}

char *ss_read_file(const char *path, ss_input_kind kind, size_t *len, ss_err *err)
{
    FILE *f = ss_open_input(path, kind, err);
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = ss_xmalloc(cap);
    for (;;) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        if (n > ss_limit_input_bytes(kind)) { /* grew since it was opened */
            fclose(f);
            free(buf);
            ss_err_at(err, path, 0, 0, "cannot read: more than the %llu bytes that %s may have (--max-input-bytes SIZE raises it)",
                      (unsigned long long)ss_limit_input_bytes(kind), ss_input_kind_words(kind));
            return NULL;
        }
        buf = ss_xrealloc(buf, cap *= 2);
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        free(buf);
        ss_err_at(err, path, 0, 0, "cannot read: %s", strerror(e ? e : EIO));
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

size_t ss_intern(char ***list, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0) return i;
    *list = ss_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[*n] = ss_xstrdup(s);
    return (*n)++;
}

int ss_bad_usage(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "servesim %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try 'servesim %s --help')\n", cmd);
    return 2;
}

int ss_cli_take(ss_cli *c, const char *cmd, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    int output = strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0, set = strcmp(a, "--set") == 0;
    if ((output || set) && !val) return ss_bad_usage(cmd, "%s needs a value", a);
    if (output) {
        c->output = argv[++*i];
    } else if (set || strncmp(a, "--set=", 6) == 0) {
        c->sets = ss_xrealloc(c->sets, (c->nsets + 1) * sizeof *c->sets);
        c->sets[c->nsets++] = set ? argv[++*i] : argv[*i] + 6;
    } else if (strcmp(a, "--quiet") == 0) {
        c->quiet = 1;
    } else if (a[0] == '-' && a[1]) {
        return 0;
    } else if (c->path) {
        return ss_bad_usage(cmd, "unexpected argument '%s'", a);
    } else {
        c->path = a;
    }
    return 1;
}

void ss_cli_free(ss_cli *c)
{
    free(c->sets);
    memset(c, 0, sizeof *c);
}

int ss_fmt_fixed(char *buf, double x, int decimals)
{
#ifdef __SIZEOF_INT128__
    static const uint64_t p10[10] = {1,         10,         100,         1000,         10000,
                                     100000,    1000000,    10000000,    100000000,    1000000000};
    if (decimals >= 0 && decimals <= 9 && x >= 0 && !signbit(x) && x < 0x1p53 / (double)p10[decimals]) {
        __extension__ typedef unsigned __int128 u128;
        int e;
        uint64_t m = (uint64_t)ldexp(frexp(x, &e), 53); /* x = m * 2^(e - 53), exactly */
        int sh = 53 - e;                                 /* >= 0, as x < 2^53 */
        u128 p = (u128)m * p10[decimals];                /* x * 10^decimals = p / 2^sh */
        uint64_t q = 0;
        if (sh == 0) {
            q = (uint64_t)p;
        } else if (sh < 128) {
            u128 half = (u128)1 << (sh - 1), rem = p & ((half << 1) - 1);
            q = (uint64_t)(p >> sh);
            q += rem > half || (rem == half && (q & 1));
        }
        uint64_t ip = q / p10[decimals], fp = q % p10[decimals];
        char digits[24];
        int n = 0, len = 0;
        do {
            digits[n++] = (char)('0' + ip % 10);
            ip /= 10;
        } while (ip);
        while (n) buf[len++] = digits[--n];
        if (decimals) {
            buf[len++] = '.';
            for (int i = decimals - 1; i >= 0; i--) {
                buf[len + i] = (char)('0' + fp % 10);
                fp /= 10;
            }
            len += decimals;
        }
        buf[len] = '\0';
        return len;
    }
#endif
    return snprintf(buf, SS_FMT_FIXED_MAX, "%.*f", decimals, x);
}

/* realpath of the folder of `path`, then its last component. */
static char *canonical(const char *path)
{
    char *dir = ss_dirname(path), *real = realpath(dir, NULL);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *out = real ? ss_xasprintf("%s/%s", real, base) : ss_xstrdup(path);
    free(real);
    free(dir);
    return out;
}

int ss_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canonical(a), *cb = canonical(b);
    int same = strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

int ss_check_outputs(const char *const *ins, const char *const *in_what, size_t nin, const char *const *outs,
                     const char *const *out_what, size_t nout, ss_err *err)
{
    for (size_t o = 0; o < nout; o++) {
        if (!outs[o]) continue; /* a device or FIFO is refused when it is opened (afile.h) */
        for (size_t i = 0; i < nin; i++)
            if (ins[i] && ss_same_file(outs[o], ins[i]))
                return ss_err_at(err, outs[o], 0, 0, "the %s would overwrite the %s '%s': choose another output path",
                                 out_what[o], in_what[i], ins[i]);
        for (size_t k = 0; k < o; k++)
            if (outs[k] && ss_same_file(outs[o], outs[k]))
                return ss_err_at(err, outs[o], 0, 0, "the %s and the %s are one file: choose another output path",
                                 out_what[o], out_what[k]);
    }
    return 0;
}

double ss_strtod(const char *s, char **end)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') p++;
    const char *start = p;
    if (*p == '+' || *p == '-') p++;
    size_t digits = 0;
    while (*p >= '0' && *p <= '9') p++, digits++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++, digits++;
    }
    if (digits == 0) { /* no number here (hexadecimal and the like are no decimal number) */
        if (end) *end = (char *)s;
        return 0;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (*q >= '0' && *q <= '9') {
            while (*q >= '0' && *q <= '9') q++;
            p = q;
        }
    }
    /* strtod on exactly the decimal text: "0x10" is 0 followed by "x10" */
    size_t n = (size_t)(p - start);
    char small[64], *buf = n < sizeof small ? small : ss_xmalloc(n + 1);
    memcpy(buf, start, n);
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (buf != small) free(buf);
    if (end) *end = (char *)p;
    return v;
}

unsigned long long ss_strtou64(const char *s, char **end)
{
    const char *p = s;
    unsigned long long v = 0;
    int over = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10) over = 1;
        else v = v * 10 + d;
    }
    if (end) *end = (char *)p;
    if (over) {
        errno = ERANGE;
        return ULLONG_MAX;
    }
    return v;
}

const char *ss_name_problem(const char *s)
{
    if (!s || !*s) return "an empty one";
    size_t n = strlen(s);
    if (n > SS_NAME_MAX) return "one longer than 256 bytes";
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (*p == '/') return "one with '/' (it separates a host from its device)";
        if (*p < 0x20 || *p == 0x7f) return "one with a control character";
        if (*p < 0x80) {
            p++;
            continue;
        }
        /* UTF-8: a lead byte and its continuation bytes, no overlong form, no surrogate, <= U+10FFFF */
        int len = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xc2 && *p <= 0xdf ? 2 : 0;
        if (!len) return "one that is not UTF-8";
        unsigned cp = *p & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
        for (int k = 1; k < len; k++) {
            if ((p[k] & 0xc0) != 0x80) return "one that is not UTF-8";
            cp = cp << 6 | (p[k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return "one that is not UTF-8";
        if (cp >= 0x80 && cp < 0xa0) return "one with a control character";
        p += len;
    }
    return NULL;
}
