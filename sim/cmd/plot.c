/* plot.c: `servesim plot KIND CSV... -o PNG` - a run's or a sweep's CSVs
 * drawn by gnuplot: the variants of a time series overlaid with the offered
 * arrival rate (plot_ts.c), the CDF of a per-request or per-cold-start
 * value, a metric against a sweep axis with confidence bars (plot_stats.c),
 * and `plot columns`, the table the axes are labelled from
 * (core/columns.h).
 *
 * The inputs are read and checked before anything is written (bad input:
 * exit 2); the script goes to gnuplot's standard input with the PNG's
 * temporary as its output, renamed into place only when gnuplot succeeded
 * (core/afile.h), so a failed plot leaves no file. */
#include "cmd/plot.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/afile.h"
#include "cmd/plot_common.h"

static const char usage[] =
    "usage: servesim plot KIND CSV... -o PNG [options]\n"
    "\n"
    "Draws CSVs of servesim run and sweep with gnuplot (Debian: gnuplot-nox); the axes say what\n"
    "each column is, in words with its unit (servesim plot columns lists them).  KIND is one of:\n"
    "  timeseries TS.csv...  the variants of run --timeseries-csv overlaid over time, a column of\n"
    "                        panels per model: the offered arrival rate, replicas up, replicas\n"
    "                        cold-starting, requests queued (and time to first token, response time\n"
    "                        or cores where the file has them)\n"
    "  cdf CSV...            the distribution of latency (run --requests-csv; completed, measured\n"
    "                        requests) or of cold-start durations (--coldstarts-csv), a curve per\n"
    "                        variant (per source), p50, p90 and p99 marked\n"
    "  axis RESULTS.csv      a metric against a sweep axis (servesim sweep's CSV, or a summary CSV),\n"
    "                        a line per policy: the mean over the replications, 95% confidence bars\n"
    "  columns [FILE]        print the table of columns: name, label and unit (FILE: results,\n"
    "                        timeseries, requests or coldstarts; default all)\n"
    "\n"
    "  -o, --output PNG        the picture, its folders made (required, but with --script)\n"
    "  --script PATH           write the gnuplot script, its data inline, instead of running gnuplot\n"
    "  --title TEXT            the title (default: the file and what is drawn)\n"
    "  --variant NAME          only this variant (repeatable)\n"
    "  --model NAME            only this model (repeatable; axis: one task, default all)\n"
    "  --where COLUMN=VALUE    only the rows with this value (repeatable)\n"
    "  --replication K         timeseries: this replication (default 0); cdf: only this one (default:\n"
    "                          every replication pooled)\n"
    "  --panels LIST           timeseries: the quantities, comma-separated, from arrivals, replicas,\n"
    "                          starting, draining, queued, in_service, utilisation, cores, rt_mean_s,\n"
    "                          kv_cache, ttft_mean_s\n"
    "  --xmax S                timeseries: the time axis ends at S seconds (default: the last sample)\n"
    "  --column NAME           cdf: the value (default latency_ms; duration_s in a cold-starts CSV)\n"
    "  --by COLUMN             cdf, axis: a curve or line per value of COLUMN (default: variant;\n"
    "                          source for cold starts; axis: the setting besides --x that varies)\n"
    "  --x COLUMN              axis: the sweep axis (default: the numeric setting that varies)\n"
    "  --y COLUMN              axis: the metric (default latency_mean_ms)\n"
    "  --logx, --logy          log scales (default: where the values span about two decades; timeseries:\n"
    "                          --logy for the queue and the times)\n"
    "  --linear                no log scale\n"
    "  --size WxH              the picture's size in pixels (default: the kind's)\n"
    "\n"
    "The arrival rate is the time series' arrivals column over each interval, one black line when every\n"
    "variant saw the same arrivals.  Ranges are padded so that no point lies on the frame.  The same CSVs\n"
    "give the same script.  SERVESIM_GNUPLOT names another gnuplot.\n"
    "Exit status: 0 ok, 1 gnuplot failed (no PNG written), 2 bad input (nothing written).\n";

static const char *const kinds[] = {"timeseries", "cdf", "axis", "columns", NULL};

/* Append v to a list of strings. */
static void add(const char ***list, size_t *n, const char *v)
{
    *list = ss_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = v;
}

static int print_columns(const char *which)
{
    int any = 0;
    for (int k = 0; k < SS_CSV_NKINDS; k++) {
        if (which && strcmp(which, ss_csv_kind_name((ss_csv_kind)k)) != 0) continue;
        size_t n;
        const ss_column *c = ss_columns((ss_csv_kind)k, &n);
        printf("%s%s CSV:\n", any ? "\n" : "", ss_csv_kind_name((ss_csv_kind)k));
        for (size_t i = 0; i < n; i++) printf("  %-22s %-44s %s\n", c[i].name, c[i].label, c[i].unit);
        any = 1;
    }
    if (any) return 0;
    return ss_bad_usage("plot", "columns: '%s' is none of results, timeseries, requests, coldstarts", which);
}

/* Run gnuplot (SERVESIM_GNUPLOT, else gnuplot on PATH) on the script; its
 * exit status, 127 if it could not be started. */
static int gnuplot(const char *script, size_t len)
{
    const char *gp = getenv("SERVESIM_GNUPLOT");
    if (!gp || !*gp) gp = "gnuplot";
    int fd[2];
    if (pipe(fd) < 0) return 127;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return 127;
    }
    if (pid == 0) {
        dup2(fd[0], 0);
        close(fd[0]);
        close(fd[1]);
        execlp(gp, gp, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* gnuplot may stop reading at an error */
    for (size_t off = 0; off < len;) {
        ssize_t k = write(fd[1], script + off, len - off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        off += (size_t)k;
    }
    close(fd[1]);
    signal(SIGPIPE, old);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* `out = '...'`: a path as a single-quoted gnuplot string (a quote doubled). */
static char *out_line(const char *path)
{
    size_t n = 0;
    for (const char *s = path; *s; s++) n += *s == '\'' ? 2 : 1;
    char *l = ss_xmalloc(n + 10), *p = l;
    p += sprintf(p, "out = '");
    for (const char *s = path; *s; s++) {
        *p++ = *s;
        if (*s == '\'') *p++ = '\'';
    }
    strcpy(p, "'\n");
    return l;
}

typedef struct args {
    pl_opts o;
    const char *kind, *output, *script;
} args;

/* One option at argv[*i]; 0 taken, 2 after a usage error, 1 not an option. */
static int take(args *a, int argc, char **argv, int *i)
{
    const char *s = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    pl_opts *o = &a->o;
    static const char *const flags[] = {"--logx", "--logy", "--linear", NULL};
    for (size_t k = 0; flags[k]; k++)
        if (strcmp(s, flags[k]) == 0) {
            if (k == 0) o->logx = 1;
            if (k == 1) o->logy = 1;
            if (k == 2) o->logx = o->logy = 0;
            return 0;
        }
    static const char *const valued[] = {"-o",       "--output", "--script", "--title", "--variant", "--model",
                                         "--where",  "--replication", "--panels", "--xmax", "--column", "--by",
                                         "--x",      "--y",      "--size",   NULL};
    size_t k = 0;
    while (valued[k] && strcmp(s, valued[k]) != 0) k++;
    if (!valued[k]) return s[0] == '-' && s[1] ? 3 : 1;
    if (!v) return ss_bad_usage("plot", "%s needs a value", s);
    (*i)++;
    char *end;
    switch (k) {
    case 0:
    case 1: a->output = v; break;
    case 2: a->script = v; break;
    case 3: o->title = v; break;
    case 4: add(&o->variants, &o->nvariants, v); break;
    case 5: add(&o->models, &o->nmodels, v); break;
    case 6:
        if (!strchr(v, '=') || v[0] == '=') return ss_bad_usage("plot", "--where expects COLUMN=VALUE, got '%s'", v);
        add(&o->where, &o->nwhere, v);
        break;
    case 7: {
        unsigned long long r = ss_strtou64(v, &end);
        if (end == v || *end || r > 1000000) return ss_bad_usage("plot", "--replication expects a number, got '%s'", v);
        o->replication = (long)r;
        break;
    }
    case 8: o->panels = v; break;
    case 9:
        o->xmax_s = ss_strtod(v, &end);
        if (end == v || *end || !(o->xmax_s > 0 && o->xmax_s < 1e9))
            return ss_bad_usage("plot", "--xmax expects seconds above 0, got '%s'", v);
        break;
    case 10: o->column = v; break;
    case 11: o->by = v; break;
    case 12: o->x = v; break;
    case 13: o->y = v; break;
    default: {
        unsigned long long w = ss_strtou64(v, &end), h = 0;
        if (end != v && *end == 'x') {
            const char *hs = end + 1;
            h = ss_strtou64(hs, &end);
            if (end == hs) h = 0;
        }
        if (*end || w < 200 || w > 8000 || h < 200 || h > 8000)
            return ss_bad_usage("plot", "--size expects WxH in pixels, each 200 to 8000, got '%s'", v);
        o->width = (unsigned)w, o->height = (unsigned)h;
    }
    }
    return 0;
}

static int parse(args *a, int argc, char **argv)
{
    a->o.replication = -1;
    a->o.logx = a->o.logy = -1;
    for (int i = 0; i < argc; i++) {
        int t = take(a, argc, argv, &i);
        if (t == 2) return 2;
        if (t == 3) return ss_bad_usage("plot", "unknown option '%s'", argv[i]);
        if (t == 0) continue;
        if (!a->kind) {
            a->kind = argv[i];
            size_t k = 0;
            while (kinds[k] && strcmp(kinds[k], a->kind) != 0) k++;
            if (kinds[k]) continue;
            const char *near = ss_suggest(a->kind, kinds);
            fprintf(stderr, "servesim plot: unknown kind '%s'%s%s%s: timeseries, cdf, axis or columns\n", a->kind,
                    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
            return 2;
        }
        add(&a->o.in, &a->o.nin, argv[i]);
    }
    if (!a->kind) return ss_bad_usage("plot", "%s", "missing KIND: timeseries, cdf, axis or columns");
    if (strcmp(a->kind, "columns") == 0) return a->o.nin > 1 ? ss_bad_usage("plot", "columns takes one FILE, got '%s'", a->o.in[1]) : -1;
    if (a->o.nin == 0) return ss_bad_usage("plot", "missing CSV: %s draws one or more", a->kind);
    if (!a->output && !a->script) return ss_bad_usage("plot", "%s", "missing -o PNG");
    return -1;
}

int ss_cmd_plot(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    args a = {0};
    int rc = parse(&a, argc, argv);
    if (rc < 0 && strcmp(a.kind, "columns") == 0) rc = print_columns(a.o.nin ? a.o.in[0] : NULL);
    if (rc >= 0) goto out;
    char *body = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&body, &len);
    ss_err err = {0};
    int k = strcmp(a.kind, "timeseries") == 0 ? pl_timeseries(&a.o, fp, &err)
            : strcmp(a.kind, "cdf") == 0      ? pl_cdf(&a.o, fp, &err)
                                              : pl_axis(&a.o, fp, &err);
    fclose(fp);
    if (k < 0) {
        fprintf(stderr, "%s\n", err.msg);
        free(body);
        rc = 2;
        goto out;
    }
    rc = 0;
    ss_afile png = {0}, scr = {0};
    char *png_path = a.output ? ss_xstrdup(a.output) : NULL;
    if (!png_path) { /* --script alone: the PNG its script will write, beside it */
        size_t n = strlen(a.script);
        png_path = ss_xasprintf("%.*s.png", (int)(n > 3 && strcmp(a.script + n - 3, ".gp") == 0 ? n - 3 : n), a.script);
    }
    if (a.script) {
        char *line = out_line(png_path);
        if (ss_afile_open(&scr, a.script, &err) < 0) rc = 2;
        else {
            fputs(line, scr.fp);
            fwrite(body, 1, len, scr.fp);
            if (ss_afile_commit(&scr, &err) < 0) rc = 1;
        }
        free(line);
    } else if (strcmp(png_path, "-") == 0) {
        rc = ss_bad_usage("plot", "%s", "-o -: a PNG goes to a file (--script - writes the script to stdout)");
    } else if (ss_afile_open(&png, png_path, &err) < 0) {
        rc = 2;
    } else {
        char *line = out_line(png.tmp);
        size_t n1 = strlen(line);
        char *all = ss_xmalloc(n1 + len + 1);
        memcpy(all, line, n1);
        memcpy(all + n1, body, len);
        int st = gnuplot(all, n1 + len);
        free(all);
        free(line);
        if (st != 0) {
            ss_afile_abort(&png);
            fprintf(stderr, "servesim plot: gnuplot %s (exit %d); no PNG written%s\n",
                    st == 127 ? "could not be run" : "failed", st,
                    st == 127 ? ": install it (apt-get install gnuplot-nox), or write the script with --script PATH" : "");
            rc = 1;
        } else if (ss_afile_commit(&png, &err) < 0) {
            rc = 1;
        }
    }
    if (rc && err.set) fprintf(stderr, "%s\n", err.msg);
    free(png_path);
    free(body);
out:
    free(a.o.in);
    free(a.o.variants);
    free(a.o.models);
    free(a.o.where);
    return rc;
}
