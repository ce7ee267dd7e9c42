/* test_bad_corpus.c: the malformed-input corpus of tests/bad/ (README
 * there).  A case KIND/CASE.expect holds a command and what it must print;
 * the case's inputs (KIND/CASE.* and the folder KIND/CASE/) are copied into
 * a fresh folder, the command runs there, and what it did, written in the
 * same form, must equal the file.  Every case must also keep the bad-input
 * contract, whatever its file says: exit status 2, nothing on stdout, no
 * file written, changed or removed, and a first line of the form
 * FILE:LINE:COL: (a file's content), "servesim CMD: " or "servesim: " (a
 * command-line word), "FILE: cannot " (a file that cannot be read or
 * written at all) or "FILE: the " (an output that would overwrite an input
 * or another output).
 *
 * With SS_BAD_CORPUS_UPDATE=1 in the environment (tools/bad-corpus.sh),
 * the suite rewrites each .expect file from what its case does now,
 * keeping the comment lines, instead of comparing; SS_BAD_CORPUS_CASES, a
 * list of KIND or KIND/CASE, keeps only those cases. */
#define _XOPEN_SOURCE 700
#include "test.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The cases must number at least this many (a broken glob is not a pass). */
enum { MIN_CASES = 80, MAX_ARGS = 64 };

#define CORPUS SS_SRC_DIR "/tests/bad/"

/* ---- a growing string ---------------------------------------------------- */

typedef struct str {
    char *s;
    size_t n, cap;
} str;

static void put(str *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->s[b->n += n] = '\0';
}

static void puts_(str *b, const char *s)
{
    put(b, s, strlen(s));
}

static char *slurp(const char *path)
{
    str b = {0};
    put(&b, "", 0);
    FILE *f = fopen(path, "r");
    if (!f) return b.s;
    char buf[4096];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) put(&b, buf, r);
    fclose(f);
    return b.s;
}

/* ---- files ------------------------------------------------------------------ */

static int copy_tree(const char *src, const char *dst)
{
    struct stat st;
    if (stat(src, &st) < 0) return -1;
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(dst, 0777) < 0) return -1;
        DIR *d = opendir(src);
        if (!d) return -1;
        int rc = 0;
        for (struct dirent *e; rc == 0 && (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char s[4096], t[4096];
            snprintf(s, sizeof s, "%s/%s", src, e->d_name);
            snprintf(t, sizeof t, "%s/%s", dst, e->d_name);
            rc = copy_tree(s, t);
        }
        closedir(d);
        return rc;
    }
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    char buf[8192];
    ssize_t r = 0;
    while (in >= 0 && out >= 0 && (r = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)r) != r) r = -1;
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return in < 0 || out < 0 || r < 0 ? -1 : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Every file under a folder as "path size mtime", one a line, sorted. */
static str snap_acc;
static size_t snap_skip;

static int snap_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (flag != FTW_F) return 0;
    char line[4200];
    snprintf(line, sizeof line, "%s %lld %lld.%09ld\n", path + snap_skip, (long long)st->st_size,
             (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
    puts_(&snap_acc, line);
    return 0;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of snapshot `s` (modified), sorted; *n of them. */
static char **snap_lines(char *s, size_t *n)
{
    size_t cap = 16;
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        v[(*n)++] = line;
    }
    qsort(v, *n, sizeof *v, by_text);
    return v;
}

static char *snapshot(const char *dir)
{
    snap_acc = (str){0};
    puts_(&snap_acc, "");
    snap_skip = strlen(dir) + 1;
    nftw(dir, snap_one, 16, FTW_PHYS);
    return snap_acc.s;
}

static int has_line(char **v, size_t n, const char *line)
{
    return bsearch(&line, v, n, sizeof *v, by_text) != NULL;
}

/* "(wrote) PATH" for each file new or changed from `before` to `after`,
 * "(removed) PATH" for each one gone. */
static void changes(str *out, char *before, char *after)
{
    size_t nb, na;
    char **b = snap_lines(before, &nb), **a = snap_lines(after, &na);
    for (int pass = 0; pass < 2; pass++) {
        char **from = pass ? b : a, **to = pass ? a : b;
        size_t nfrom = pass ? nb : na, nto = pass ? na : nb;
        for (size_t i = 0; i < nfrom; i++) {
            if (has_line(to, nto, from[i])) continue;
            size_t plen = strcspn(from[i], " ");
            int path_still = 0;
            for (size_t k = 0; k < nto; k++)
                path_still |= strncmp(to[k], from[i], plen) == 0 && to[k][plen] == ' ';
            if (pass && path_still) continue; /* changed: said once, as wrote */
            puts_(out, pass ? "(removed) " : "(wrote) ");
            put(out, from[i], plen);
            puts_(out, "\n");
        }
    }
    free(b);
    free(a);
}

/* ---- running a case ---------------------------------------------------------- */

/* The text with each compiled-in folder's name replaced by a placeholder,
 * so that expectations do not depend on where the tree or install lives. */
static char *placeholders(const char *text)
{
    static const char *const from[] = {SS_BUILD_DIR, SS_PLUGIN_DIR, SS_MODEL_DIR};
    static const char *const to[] = {"<build>", "<plugin_dir>", "<model_dir>"};
    str out = {0};
    puts_(&out, "");
    while (*text) {
        size_t k = 0;
        while (k < 3 && strncmp(text, from[k], strlen(from[k])) != 0) k++;
        if (k < 3) {
            puts_(&out, to[k]);
            text += strlen(from[k]);
        } else {
            put(&out, text++, 1);
        }
    }
    return out.s;
}

/* Split ARGS like a shell would for plain words and '...' / "..." quotes. */
static int split_args(char *s, char **argv)
{
    int n = 0;
    while (*s && n < MAX_ARGS - 1) {
        while (*s == ' ') s++;
        if (!*s) break;
        char *w = s, *o = s;
        while (*s && *s != ' ') {
            if (*s == '\'' || *s == '"') {
                char q = *s++;
                while (*s && *s != q) *o++ = *s++;
                if (*s) s++;
            } else {
                *o++ = *s++;
            }
        }
        if (*s) s++;
        *o = '\0';
        argv[n++] = w;
    }
    argv[n] = NULL;
    return n;
}

/* Each line of `text` with `prefix` in front (no trailing newline needed). */
static void put_prefixed(str *out, const char *prefix, const char *text)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        puts_(out, prefix);
        put(out, text, n);
        puts_(out, "\n");
        text += n + (text[n] == '\n');
    }
}

/* What case `name` (KIND/CASE) does, in the form of its .expect file
 * without the comments: "$ servesim ARGS", servesim's stderr, "(exit N)",
 * then "(stdout) LINE" and "(wrote) PATH" / "(removed) PATH" lines. */
static char *run_case(const char *name, const char *expect_text)
{
    str out = {0};
    puts_(&out, "");
    const char *cmd = strstr(expect_text, "$ servesim ");
    if (!cmd || (cmd != expect_text && cmd[-1] != '\n')) {
        puts_(&out, "(no '$ servesim ARGS' line)\n");
        return out.s;
    }
    cmd += 2;
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(cmd, "\n"), cmd);
    puts_(&out, "$ ");
    puts_(&out, line);
    puts_(&out, "\n");

    char *tmp = ss_test_tmpdir();
    char work[600], err_path[600], out_path[600], pattern[1200];
    snprintf(work, sizeof work, "%s/case", tmp);
    snprintf(err_path, sizeof err_path, "%s/stderr", tmp);
    snprintf(out_path, sizeof out_path, "%s/stdout", tmp);
    mkdir(work, 0777);
    const char *base = strrchr(name, '/') + 1;
    snprintf(pattern, sizeof pattern, CORPUS "%s.*", name);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *leaf = strrchr(g.gl_pathv[i], '/') + 1;
            if (strcmp(leaf + strlen(base), ".expect") == 0) continue;
            char dst[1200];
            snprintf(dst, sizeof dst, "%s/%s", work, leaf);
            copy_tree(g.gl_pathv[i], dst);
        }
        globfree(&g);
    }
    char folder[1200], dst[1200];
    snprintf(folder, sizeof folder, CORPUS "%s", name);
    snprintf(dst, sizeof dst, "%s/%s", work, base);
    if (access(folder, F_OK) == 0) copy_tree(folder, dst);

    char *before = snapshot(work);
    char *argv[MAX_ARGS + 1];
    argv[0] = SS_BIN;
    split_args(line + strlen("servesim "), argv + 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666), o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int nul = open("/dev/null", O_RDONLY);
        if (e < 0 || o < 0 || nul < 0 || chdir(work) < 0) _exit(127);
        dup2(nul, 0);
        dup2(o, 1);
        dup2(e, 2);
        unsetenv("SERVESIM_MODEL_PATH");
        unsetenv("SERVESIM_PLUGIN_PATH");
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    char *after = snapshot(work);

    char *raw = slurp(err_path), *text = placeholders(raw);
    puts_(&out, text);
    free(raw);
    free(text);
    char status[64];
    snprintf(status, sizeof status, "(exit %d)\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    puts_(&out, status);
    raw = slurp(out_path);
    text = placeholders(raw);
    put_prefixed(&out, "(stdout) ", text);
    free(raw);
    free(text);
    changes(&out, before, after);
    free(before);
    free(after);
    rm_tree(tmp);
    free(tmp);
    return out.s;
}

/* ---- the contract and the suite ---------------------------------------------- */

/* The .expect text after its leading comment lines. */
static const char *skip_comments(const char *s)
{
    while (*s == '#') {
        const char *nl = strchr(s, '\n');
        s = nl ? nl + 1 : s + strlen(s);
    }
    return s;
}

/* Does `line` (up to its newline) hold FILE:LINE:COL: ? */
static int positioned(const char *line)
{
    for (const char *p = line; *p && *p != '\n'; p++) {
        if (*p != ':' || !isdigit((unsigned char)p[1])) continue;
        const char *q = p + 1;
        while (isdigit((unsigned char)*q)) q++;
        if (*q++ != ':' || !isdigit((unsigned char)*q)) continue;
        while (isdigit((unsigned char)*q)) q++;
        if (q[0] == ':' && q[1] == ' ') return 1;
    }
    return 0;
}

/* NULL if `got` (run_case's text) keeps the contract, else what it breaks. */
static const char *breach(const char *got)
{
    const char *err = strchr(got, '\n');
    if (!err) return "no output";
    err++;
    if (!strstr(got, "\n(exit 2)\n")) return "exit status is not 2";
    if (strstr(got, "\n(stdout) ")) return "wrote to stdout";
    if (strstr(got, "\n(wrote) ") || strstr(got, "\n(removed) ")) return "wrote, changed or removed a file";
    if (strncmp(err, "(exit", 5) == 0) return "no message";
    if (strncmp(err, "servesim", 8) == 0 && (err[8] == ' ' || err[8] == ':')) return NULL;
    if (positioned(err)) return NULL;
    /* a file that cannot be read or written, or an output that would overwrite an input or another output */
    const char *nl = strchr(err, '\n');
    for (const char *p = err; p < nl; p++)
        if (strncmp(p, ": cannot ", 9) == 0 || strncmp(p, ": the ", 6) == 0) return NULL;
    return "the message has no file:line:col";
}

/* The comment lines of `text` followed by `got`: the updated file. */
static void rewrite(const char *path, const char *text, const char *got)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%.*s%s", (int)(skip_comments(text) - text), text, got);
    fclose(f);
}

/* Is case `name` among the space-separated KIND and KIND/CASE of `only`? */
static int chosen(const char *name, const char *only)
{
    if (!only || !*only) return 1;
    size_t kind = strcspn(name, "/");
    for (const char *w = only; *w; w += strspn(w, " ")) {
        size_t n = strcspn(w, " ");
        if ((n == strlen(name) || n == kind) && strncmp(w, name, n) == 0) return 1;
        w += n;
    }
    return 0;
}

static void test_corpus(void)
{
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob(CORPUS "*/*.expect", 0, NULL, &g), 0);
    CU_ASSERT_TRUE(g.gl_pathc >= MIN_CASES);
    if (g.gl_pathc < MIN_CASES) fprintf(stderr, "\n  only %zu cases in tests/bad\n", g.gl_pathc);
    const char *upd = getenv("SS_BAD_CORPUS_UPDATE");
    int update = upd && strcmp(upd, "1") == 0;
    const char *only = getenv("SS_BAD_CORPUS_CASES");
    size_t failed = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i], *rel = path + strlen(CORPUS);
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(rel) - strlen(".expect")), rel);
        if (!chosen(name, only)) continue;
        char *text = slurp(path), *got = run_case(name, text);
        const char *want = skip_comments(text), *why = breach(got);
        int same = strcmp(want, got) == 0;
        if (update && !same) {
            rewrite(path, text, got);
            fprintf(stderr, "\n  updated tests/bad/%s", name);
            same = 1;
        }
        if (!same)
            fprintf(stderr, "\n  tests/bad/%s differs from its .expect (intended? tools/bad-corpus.sh %s)\n"
                            "  expected:\n%s  got:\n%s", name, name, want, got);
        if (why) fprintf(stderr, "\n  tests/bad/%s breaks the bad-input contract: %s\n", name, why);
        failed += !same || why;
        free(text);
        free(got);
    }
    CU_ASSERT_EQUAL(failed, 0);
    globfree(&g);
}

SS_TEST_SUITE("bad-corpus", {"every case of tests/bad", test_corpus})
