/* test_plot.c: `servesim plot` (sim/cmd/plot*.c) on real outputs: each kind
 * draws a PNG, its script labels the axes in words with units from the
 * column table, pads the ranges, overlays every variant with the arrival
 * rate once; the same CSVs give the same script; bad input is exit 2 with
 * file:line:col (or `servesim plot: ...`) and nothing written; a gnuplot
 * that fails leaves no PNG (exit 1). */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two variants on the same arrivals (a step up at 10 s), autoscaled, two replications. */
#define SCEN                                                                                               \
    "name: pl\nseed: 3\nduration_s: 20\nreplications: 2\n"                                                 \
    "hosts: [{name: h, devices: [{name: d0, kind: gpu}, {name: d1, kind: gpu}, {name: d2, kind: gpu}]}]\n" \
    "models: [{name: m, service: {dist: exponential, mean_s: 0.02}}]\n"                                    \
    "deployment: [{model: m, device: d0, queue: shared, instances: 0, startup_s: 1},\n"                    \
    "             {model: m, device: d1, queue: shared, instances: 0, startup_s: 1},\n"                    \
    "             {model: m, device: d2, queue: shared, instances: 0, startup_s: 1}]\n"                    \
    "workloads: [{name: w, kind: steps, target: m, steps: [{until_s: 10, rate_rps: 20}, {until_s: 20, rate_rps: 80}]}]\n" \
    "autoscaling: {policy: atl}\n"                                                                         \
    "variants: [{name: atl, set: {autoscaling.policy: atl}}, {name: keep, set: {autoscaling.policy: keepalive}}]\n"

static char *setup(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", SCEN));
    free(ss_test_write(dir, "sw.yaml", "scenario: s.yaml\nvariants: []\nreplications: 2\nset: {duration_s: 5}\naxes:\n"
                                       "  - {key: autoscaling.policy, values: [atl, keepalive]}\n"
                                       "  - {key: workloads.w.steps.0.rate_rps, values: [10, 20, 40]}\n"));
    int rc = ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o r.csv --quiet --timeseries-csv ts.csv --requests-csv req.csv"
                              " && '%s' sweep sw.yaml -o sw.csv --quiet",
                        dir, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    return dir;
}

static int png_ok(const char *dir, const char *name)
{
    return ss_test_sh(NULL, "cd '%s' && test -s '%s' && head -c 4 '%s' | tail -c 3 | grep -q PNG", dir, name, name) == 0;
}

/* The script of `servesim plot ARGS --script -`, malloc'd. */
static char *script(const char *dir, const char *args)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' plot %s --script -", dir, SS_BIN, args);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    return out ? out : strdup("");
}

static void kinds_draw(void)
{
    char *dir = setup();
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s' plot timeseries ts.csv -o pics/ts.png && '%s' plot cdf req.csv -o cdf.png && "
                              "'%s' plot axis sw.csv -o axis.png --y throughput_rps",
                        dir, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) fprintf(stderr, "\n%s\n", out ? out : "");
    free(out);
    CU_ASSERT(png_ok(dir, "pics/ts.png"));
    CU_ASSERT(png_ok(dir, "cdf.png"));
    CU_ASSERT(png_ok(dir, "axis.png"));
    ss_test_rmtree(dir);
}

static void scripts_say_what_they_draw(void)
{
    char *dir = setup();
    char *s = script(dir, "timeseries ts.csv");
    /* the arrival rate once (both variants saw the same arrivals), then a line per variant, labelled in words */
    CU_ASSERT(ss_test_has(s, "set ylabel \"arrival rate (requests/s)\""));
    CU_ASSERT(ss_test_has(s, "set label \"offered load (the same for every variant)\""));
    CU_ASSERT(ss_test_has(s, "set ylabel \"replicas up\""));
    CU_ASSERT(ss_test_has(s, "set ylabel \"replicas cold-starting\""));
    CU_ASSERT(ss_test_has(s, "set label \"atl\""));
    CU_ASSERT(ss_test_has(s, "set label \"keep\""));
    CU_ASSERT(ss_test_has(s, "set xlabel \"simulated time (s)\""));
    /* the same CSVs, the same script */
    char *again = script(dir, "timeseries ts.csv");
    CU_ASSERT_STRING_EQUAL(s, again);
    free(again);
    free(s);
    s = script(dir, "timeseries ts.csv --panels utilisation,queued --variant keep --replication 1");
    CU_ASSERT(ss_test_has(s, "set ylabel \"utilisation\""));
    CU_ASSERT(!strstr(s, "set label \"atl\""));
    CU_ASSERT(!strstr(s, "arrival rate"));
    free(s);

    s = script(dir, "cdf req.csv --replication 0");
    CU_ASSERT(ss_test_has(s, "set xlabel \"latency (ms)"));
    CU_ASSERT(ss_test_has(s, "set ylabel \"fraction of requests\""));
    CU_ASSERT(ss_test_has(s, "set label \"p99\""));
    CU_ASSERT(ss_test_has(s, "title \"atl ("));
    CU_ASSERT(ss_test_has(s, "): p50 "));
    free(s);

    /* the axis and the policy found by themselves; labels from the table; the range padded beyond 10..40 */
    s = script(dir, "axis sw.csv --y latency_p99_ms --linear");
    CU_ASSERT(ss_test_has(s, "set xlabel \"rate, workloads.w.steps.0 (requests/s)\""));
    CU_ASSERT(ss_test_has(s, "set ylabel \"p99 latency (ms)\""));
    CU_ASSERT(ss_test_has(s, "title \"autoscaler\""));
    CU_ASSERT(ss_test_has(s, "over 2 replications"));
    double a = 0, b = 0;
    const char *xr = strstr(s, "set xrange [");
    CU_ASSERT_FATAL(xr != NULL);
    CU_ASSERT_EQUAL(sscanf(xr, "set xrange [%lf:%lf]", &a, &b), 2);
    CU_ASSERT(a < 10 && a > 5 && b > 40 && b < 45);
    free(s);
    /* a summary CSV: its means and half-widths */
    s = script(dir, "axis r.summary.csv --x replications --y latency_mean_ms");
    CU_ASSERT(ss_test_has(s, "the summary's mean and 95% CI"));
    free(s);
    ss_test_rmtree(dir);
}

static void columns_listed(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' plot columns timeseries", SS_BIN), 0);
    CU_ASSERT(ss_test_has(out, "arrivals"));
    CU_ASSERT(ss_test_has(out, "replicas cold-starting"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "'%s' plot --help", SS_BIN), 0);
    CU_ASSERT(ss_test_has(out, "usage: servesim plot KIND CSV... -o PNG"));
    free(out);
}

/* exit 2, the message, and nothing in the folder but the inputs */
static void refused(const char *dir, const char *args, const char *said)
{
    ss_test_cmd_refused(dir, args, said);
    char *out = NULL;
    ss_test_sh(&out, "cd '%s' && ls | grep -v -e '^s.yaml$' -e '^sw.yaml$' -e '.csv$' -e '^sw.csv.' | tr '\\n' ' '", dir);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "");
    if (out && *out) fprintf(stderr, "\n  left: %s\n", out);
    free(out);
}

static void bad_input(void)
{
    char *dir = setup();
    free(ss_test_write(dir, "bad.csv", "variant,replication,t_s,model,replicas,queued,in_service,utilisation,starting,"
                                       "draining,arrivals\na,0,1,m,x2,0,0,0,0,0,3\n"));
    refused(dir, "plot tiemseries ts.csv -o o/p.png", "servesim plot: unknown kind 'tiemseries' (did you mean 'timeseries'?)");
    refused(dir, "plot timeseries ts.csv", "servesim plot: missing -o PNG");
    refused(dir, "plot timeseries bad.csv -o o/p.png", "bad.csv:2:9: expected a number in column 'replicas', got 'x2'");
    refused(dir, "plot timeseries req.csv -o o/p.png", "req.csv:1:1: not a time series");
    refused(dir, "plot timeseries ts.csv --panels replicas,queud -o o/p.png",
            "servesim plot: --panels: 'queud' is not a quantity of a time series; did you mean 'queued'?");
    refused(dir, "plot timeseries ts.csv --replication 7 -o o/p.png", "servesim plot: no sample of replication 7");
    refused(dir, "plot cdf req.csv --column latncy_ms -o o/p.png", "req.csv:1:1: no column 'latncy_ms'");
    refused(dir, "plot axis sw.csv --y latency_p99 -o o/p.png", "did you mean 'latency_p99_ms'?");
    refused(dir, "plot axis sw.csv --x workloads.w.steps.0.rate_rps --by variant -o o/p.png",
            "servesim plot: column 'autoscaling.policy' varies too: fix it with --where autoscaling.policy=VALUE");
    refused(dir, "plot axis sw.csv --where policy=atl -o o/p.png", "sw.csv:1:1: no column 'policy' (--where)");
    refused(dir, "plot axis ts.csv -o o/p.png", "ts.csv:1:1: not a results CSV");
    refused(dir, "plot timeseries ts.csv -o o/p.png --size 10x10", "servesim plot: --size expects WxH");
    refused(dir, "plot timeseries ts.csv -o ts.csv", "ts.csv"); /* never in place of an input */
    /* a gnuplot that fails: exit 1, no PNG, no folder */
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && SERVESIM_GNUPLOT=false '%s' plot timeseries ts.csv -o o/p.png", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT(ss_test_has(out, "servesim plot: gnuplot failed (exit 1); no PNG written"));
    free(out);
    rc = ss_test_sh(&out, "cd '%s' && SERVESIM_GNUPLOT=/no/gnuplot '%s' plot cdf req.csv -o p.png", dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT(ss_test_has(out, "apt-get install gnuplot-nox"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && test ! -e o && test ! -e p.png && ! ls | grep -q tmp", dir), 0);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("plot", {"every kind draws a PNG", kinds_draw},
              {"the scripts label, pad and overlay, the same each time", scripts_say_what_they_draw},
              {"plot columns, --help", columns_listed}, {"bad input: exit 2, nothing written", bad_input})
