/* validate_transfer.c: `servesim validate PROFILE... --transfer-law
 * MODEL.json`: the transfer probe's runs kept for validation (kind
 * "transfer", use "validate", never fitted) against the machine's transfer
 * law (core/xfer_law.h, the model file's `transfer`, from servesim
 * calibrate).  Per condition (mode, receivers k, bytes) the measured time
 * is the median over its repetitions of the last receiver's last byte (a
 * chain's last hop: the median, because on a shared 2-core machine one
 * repetition in a few is slowed by other work, by up to 45% on the
 * development VM), the simulated one ss_xfer_predict's; the relative
 * error is judged at 10% (issue 41's acceptance).  Exit 0 every condition
 * within, 1 one beyond, 2 bad input (nothing written). */
#include "calib/validate_cmd.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/cfg.h"
#include "core/util.h"
#include "core/xfer_law.h"
#include "input/hwprofile.h"

#define XFER_TOL 0.10

typedef struct xcond {
    int chain;
    unsigned k;
    double bytes;
    size_t n;
    double *t_s; /* the repetitions' times */
} xcond;

static int by_cond(const void *a, const void *b)
{
    const xcond *x = a, *y = b;
    if (x->chain != y->chain) return x->chain - y->chain;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static int read_law(const char *path, ss_xfer_law *law, ss_err *err)
{
    ss_doc *d = ss_doc_load_json(path, err);
    if (!d) return -1;
    ss_node *t = NULL;
    int rc = ss_node_expect(d->root, SS_NODE_MAP, "a model file", err) < 0 ? -1 : 0;
    if (rc == 0 && (rc = ss_cfg_map(d->root, "transfer", &t, 0, err)) == 0)
        rc = ss_node_err(d->root, err, "%s", "expected a `transfer` law (servesim calibrate writes one from kind "
                                             "\"transfer\" samples of use fit)");
    if (rc > 0) rc = ss_xfer_law_read(t, law, err);
    ss_doc_free(d);
    return rc < 0 ? -1 : 0;
}

/* The conditions of every profile's validation runs, in first-seen order. */
static xcond *collect(ss_hwprofile *ps, size_t np, size_t *nout)
{
    xcond *c = NULL;
    size_t n = 0;
    for (size_t f = 0; f < np; f++)
        for (size_t i = 0; i < ps[f].nsamples; i++) {
            const ss_hwp_sample *s = &ps[f].samples[i];
            if (s->kind != SS_HWP_TRANSFER || !s->xfer_use) continue;
            size_t j = 0;
            while (j < n && !(c[j].chain == s->xfer_chain && c[j].k == s->receivers && c[j].bytes == s->bytes)) j++;
            if (j == n) {
                c = ss_xrealloc(c, (n + 1) * sizeof *c);
                c[n++] = (xcond){.chain = s->xfer_chain, .k = s->receivers, .bytes = s->bytes};
            }
            c[j].t_s = ss_xrealloc(c[j].t_s, (c[j].n + 1) * sizeof *c[j].t_s);
            c[j].t_s[c[j].n++] = ss_xfer_time_s(s->xfer_chain, s->ntimes, s->times_s);
        }
    *nout = n;
    return c;
}

int ss_val_transfer(const char *const *files, size_t nfiles, const char *law_path, const char *output, int quiet)
{
    ss_err err = {0};
    ss_hwprofile *ps = ss_xcalloc(nfiles, sizeof *ps);
    size_t np = 0, nc = 0;
    xcond *c = NULL;
    ss_xfer_law law;
    ss_afile f = {0};
    int rc = 2, open = 0;
    if (read_law(law_path, &law, &err) < 0) goto out;
    for (; np < nfiles; np++)
        if (ss_hwprofile_load(files[np], &ps[np], &err) < 0) goto out;
    c = collect(ps, np, &nc);
    if (nc == 0) {
        ss_err_at(&err, files[0], 1, 1, "%s", "no transfer samples of use validate to predict (tools/probe/transfer.py "
                                             "writes them)");
        goto out;
    }
    qsort(c, nc, sizeof *c, by_cond);
    if (output) {
        const char **ins = ss_xcalloc(nfiles + 1, sizeof *ins), **what = ss_xcalloc(nfiles + 1, sizeof *what);
        static const char *const out_what[] = {"validation CSV"};
        for (size_t i = 0; i < nfiles; i++) ins[i] = files[i], what[i] = "profile";
        ins[nfiles] = law_path, what[nfiles] = "transfer law";
        int bad = ss_check_outputs(ins, what, nfiles + 1, &output, out_what, 1, &err) < 0 ||
                  ss_afile_open(&f, output, &err) < 0;
        free(ins), free(what);
        if (bad) goto out;
        open = 1;
        fputs("mode,receivers,bytes,runs,measured_median_s,measured_min_s,measured_max_s,simulated_s,rel_error,tolerance,"
              "within\n",
              f.fp);
    }
    size_t bad = 0;
    double worst[2] = {0, 0};
    if (!quiet)
        printf("validate: %zu transfer conditions of %zu profile%s against the law in %s (tolerance %.0f%%)\n"
               "%-8s %3s %10s %4s %11s %11s %8s\n",
               nc, np, np == 1 ? "" : "s", law_path, XFER_TOL * 100, "mode", "k", "MiB", "runs", "measured_s",
               "simulated_s", "error");
    for (size_t i = 0; i < nc; i++) {
        double sim_s = ss_xfer_predict_time_s(&law, c[i].chain, c[i].k, c[i].bytes);
        gsl_sort(c[i].t_s, 1, c[i].n);
        double meas = gsl_stats_median_from_sorted_data(c[i].t_s, 1, c[i].n), e = (sim_s - meas) / meas;
        int ok = fabs(e) <= XFER_TOL;
        bad += !ok;
        worst[c[i].chain] = fmax(worst[c[i].chain], fabs(e));
        if (!quiet || !ok)
            printf("%-8s %3u %10.0f %4zu %11.4f %11.4f %+7.1f%%%s\n", c[i].chain ? "chain" : "unicast", c[i].k,
                   c[i].bytes / 1048576.0, c[i].n, meas, sim_s, 100 * e, ok ? "" : "  beyond");
        if (open)
            fprintf(f.fp, "%s,%u,%.17g,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%g,%s\n", c[i].chain ? "chain" : "unicast",
                    c[i].k, c[i].bytes, c[i].n, meas, c[i].t_s[0], c[i].t_s[c[i].n - 1], sim_s, e, XFER_TOL,
                    ok ? "yes" : "no");
    }
    printf("validate: %zu of %zu transfer conditions beyond %.0f%% (largest error: unicast %.1f%%, chain %.1f%%)%s%s\n",
           bad, nc, XFER_TOL * 100, 100 * worst[0], 100 * worst[1], output ? " -> " : "", output ? output : "");
    rc = bad ? 1 : 0;
    if (open) {
        open = 0;
        if (ss_afile_commit(&f, &err) < 0) rc = 2;
    }
out:
    if (open) ss_afile_abort(&f);
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    for (size_t i = 0; i < np; i++) ss_hwprofile_free(&ps[i]);
    free(ps);
    for (size_t i = 0; i < nc; i++) free(c[i].t_s);
    free(c);
    return rc;
}
