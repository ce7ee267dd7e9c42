/* test_table.c: the printed table (issue 12 item 13): an edge scenario
 * shows its workers' utilisation (not 0.0%), columns stay aligned when a
 * half-width reaches 100, and variants with their own replication counts
 * are not summarised by the first one's.  With an autoscaler (issue 39) it
 * shows end-to-end latency in seconds, cold starts, their mean duration and
 * replica-seconds, the results CSV's numbers, the models' summed in "all".
 * Issue 43 item 2: columns sized to their contents, latencies in ms or s per
 * column, integer counts, average replicas, TTFT and TPOT for LLM runs,
 * replications that replay one trace said so, unstable variants flagged on
 * stderr. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvread.h"
#include "core/util.h"

/* Display width of a line (UTF-8 continuation bytes do not count). */
static size_t width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static void table(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && t=$(mktemp -d) && '%s/servesim' run scenarios/masa/fig4.yaml -o \"$t/r.csv\" 2>&1 "
                               "| grep '^-  '; rm -rf \"$t\"",
                               SS_SRC_DIR, SS_BUILD_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "62.5%\n"));
    free(out);
    char *dir = ss_test_tmpdir();
    ss_test_sh(NULL,
               "cd '%s' && cp '%s/scenarios/tour/load-balancers.yaml' s.yaml && mkdir models && cp '%s/models/resnet50.json' models/ && "
               "sed -i 's/  - {name: random, set: {policies.load_balancer: random}}/"
               "  - {name: random, set: {policies.load_balancer: random, replications: 2}}/' s.yaml",
               dir, SS_SRC_DIR, SS_SRC_DIR);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --set duration_s=10 --set warmup_s=1 "
                                     "--set workloads.images.rate_rps=335",
                               dir, SS_BUILD_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "3 variants with their own replications"));
    CU_ASSERT(ss_test_has(out, "(replications differ between variants;"));
    /* every row of the table as wide as the header, wide half-widths included */
    const char *hdr = strstr(out ? out : "", "variant ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
    size_t w = width(hdr, strcspn(hdr, "\n"));
    int rows = 0, wide = 0;
    for (const char *l = strchr(hdr, '\n') + 1; *l && *l != '('; l = strchr(l, '\n') + 1) {
        size_t len = strcspn(l, "\n");
        CU_ASSERT_EQUAL(width(l, len), w);
        rows++;
        for (const char *p = l; p < l + len && (p = strstr(p, "\xc2\xb1")); p += 2) wide |= atof(p + 2) >= 100;
        if (!l[len]) break;
    }
    CU_ASSERT_EQUAL(rows, 3);
    CU_ASSERT(wide); /* the case that used to shift the columns is there */
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* Field k (0-based, split on blanks: a half-width's sign and number are
 * fields too) of the table row whose first two fields are variant and
 * model, as a number; NAN if there is no such row or field, or it is "-". */
static double cell(const char *out, const char *variant, const char *model, int k)
{
    double v = NAN;
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        char *line = strndup(l, strcspn(l, "\n")), *save = NULL;
        char *a = strtok_r(line, " ", &save), *b = a ? strtok_r(NULL, " ", &save) : NULL;
        if (a && b && strcmp(a, variant) == 0 && strcmp(b, model) == 0) {
            int i = 2;
            for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save), i++)
                if (i == k) v = strcmp(t, "-") == 0 ? NAN : atof(t);
            free(line);
            return v;
        }
        free(line);
    }
    return v;
}

/* CSV column `col` of the row of (variant, model), or NAN. */
static double csv_value(const ss_csv *csv, const char *variant, const char *model, const char *col)
{
    long cv = ss_csv_col(&csv->rows[0], "variant"), cm = ss_csv_col(&csv->rows[0], "model"),
         cc = ss_csv_col(&csv->rows[0], col);
    for (size_t r = 1; cc >= 0 && r < csv->nrows; r++)
        if (strcmp(csv->rows[r].f[cv], variant) == 0 && strcmp(csv->rows[r].f[cm], model) == 0)
            return atof(csv->rows[r].f[cc]);
    return NAN;
}

static void autoscaled(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run '%s/scenarios/default.yaml' -o r.csv "
                                     "--timeseries-csv ts.csv --set duration_s=600 --set replications=1",
                               dir, SS_BUILD_DIR, SS_SRC_DIR),
                    0);
    const char *hdr = strstr(out ? out : "", "variant ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
    size_t w = width(hdr, strcspn(hdr, "\n"));
    int rows = 0;
    for (const char *l = strchr(hdr, '\n') + 1; *l && *l != '('; l = strchr(l, '\n') + 1) {
        CU_ASSERT_EQUAL(width(l, strcspn(l, "\n")), w);
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 12); /* 4 variants x (2 models + all) */
    char path[1024];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    ss_csv csv;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(path, &csv, &err), 0);
    /* fields: variant model completed dropped tput/s e2e-mean e2e-p99 cold-starts cold-mean replicas replica-s
     * util; both latencies in s here (the baseline's beyond 1 s) */
    CU_ASSERT(ss_test_has(out, "e2e mean s") && ss_test_has(out, "e2e p99 s"));
    static const char *const variants[] = {"baseline", "locality", "multicast", "flashpoint"};
    static const char *const models[] = {"gpt2-xl", "t5-3b"};
    for (size_t v = 0; v < 4; v++) {
        double colds = 0, cold_s = 0, rs = 0;
        for (size_t m = 0; m < 2; m++) {
            const char *var = variants[v], *mod = models[m];
            char col[64];
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 5), csv_value(&csv, var, mod, "latency_mean_ms") / 1e3, 6e-4);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 6), csv_value(&csv, var, mod, "latency_p99_ms") / 1e3, 6e-4);
            snprintf(col, sizeof col, "coldstarts_%s", mod);
            double n = csv_value(&csv, var, mod, col);
            CU_ASSERT(n > 0);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 7), n, 1e-9);
            snprintf(col, sizeof col, "coldstart_mean_s_%s", mod);
            double mean = csv_value(&csv, var, mod, col);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 8), mean, 0.051);
            snprintf(col, sizeof col, "instance_s_%s", mod);
            double r = csv_value(&csv, var, mod, col);
            CU_ASSERT_DOUBLE_EQUAL(cell(out, var, mod, 10), r, 0.51);
            /* replicas: r over the window, from the warm-up's end (0) to the last completion (600 s and the drain) */
            CU_ASSERT(cell(out, var, mod, 9) * 600 <= r + 30 && cell(out, var, mod, 9) * 1200 >= r);
            colds += n, cold_s += n * mean, rs += r;
        }
        CU_ASSERT_DOUBLE_EQUAL(cell(out, variants[v], "all", 7), colds, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, variants[v], "all", 8), cold_s / colds, 0.051);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, variants[v], "all", 10), rs, 0.51);
    }
    /* locality and multicast cold-start faster than the baseline on the same arrivals */
    CU_ASSERT(cell(out, "locality", "all", 8) < cell(out, "baseline", "all", 8));
    CU_ASSERT(cell(out, "multicast", "all", 8) < cell(out, "baseline", "all", 8));
    ss_csv_free(&csv);
    free(out);
    /* an autoscaler without placement: its replicas start after startup_s, no cold-start columns: "-" */
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run '%s/scenarios/substrate/autoscale.yaml' -o a.csv "
                                     "--variant atl --set replications=1",
                               dir, SS_BUILD_DIR, SS_SRC_DIR),
                    0);
    CU_ASSERT(isnan(cell(out, "atl", "resnet50", 7)) && isnan(cell(out, "atl", "resnet50", 8)));
    CU_ASSERT(cell(out, "atl", "resnet50", 9) > 0 && cell(out, "atl", "resnet50", 10) > 0);
    free(out);
    ss_test_rmtree(dir);
}

/* The header line of a table in out, and the line after it. */
static const char *header_of(const char *out) { return out ? strstr(out, "variant ") : NULL; }

/* Issue 43 item 2: columns as wide as their contents (a long model and
 * variant name never runs into the next column), a latency column in ms
 * until its largest mean reaches 1 s, then in s, the unit in its header;
 * counts as integers; the devices' utilisation labelled as their mean. */
static void reads(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    const char *model = "a-model-name-longer-than-sixteen-columns";
    char *yaml = ss_xasprintf("name: r\nseed: 2\nrequests: 3000\nhosts: [{name: h, devices: [{name: d0, kind: gpu}]}]\n"
                              "models: [{name: %s, service: {dist: exponential, mean_s: 0.3}}]\n"
                              "deployment: [{model: %s, device: d0, instances: 8}]\n"
                              "workloads: [{name: w, kind: poisson, target: %s, rate_rps: 4}]\n"
                              "variants: [{name: a-variant-name-of-twenty-six, set: {seed: 2}}]\n",
                              model, model, model);
    free(ss_test_write(dir, "s.yaml", yaml));
    free(yaml);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o r.csv 2>/dev/null", dir, SS_BIN), 0);
    const char *hdr = header_of(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
    /* p50 (about 0.21 s) in ms; p99 (about 1.4 s) in s; the mean (0.3 s) in ms */
    CU_ASSERT(ss_test_has(hdr, "  completed  dropped  tput/s  mean ms   p50 ms  p99 s  p99.9 s  dev util\n"));
    const char *row = strchr(hdr, '\n') + 1;
    CU_ASSERT(strncmp(row, "a-variant-name-of-twenty-six  a-model-name-longer-than-sixteen-columns  ", 72) == 0);
    CU_ASSERT_EQUAL(strcspn(row, "\n"), strcspn(hdr, "\n"));
    char path[1024];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    ss_csv csv;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(path, &csv, &err), 0);
    const char *v = "a-variant-name-of-twenty-six";
    CU_ASSERT_DOUBLE_EQUAL(cell(out, v, model, 2), csv_value(&csv, v, model, "completed"), 0);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, v, model, 5), csv_value(&csv, v, model, "latency_mean_ms"), 6e-4);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, v, model, 6), csv_value(&csv, v, model, "latency_p50_ms"), 6e-4);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, v, model, 7), csv_value(&csv, v, model, "latency_p99_ms") / 1e3, 6e-4);
    CU_ASSERT(csv_value(&csv, v, model, "latency_p50_ms") < 1000 && csv_value(&csv, v, model, "latency_p99_ms") >= 1000);
    ss_csv_free(&csv);
    /* counts: integers, no decimals */
    CU_ASSERT(ss_test_has(row, "  3000        0  "));
    CU_ASSERT(ss_test_has(out, "(dev util = busy share of the devices in use, their mean: the run's, the same on each "
                               "row of a variant)\n"));
    free(out);
    ss_test_rmtree(dir);
}

/* Replications that replay one trace say so under the table, instead of a
 * silent 0 half-width; identical runs are told apart from a spread of the
 * service times alone. */
static void shared_arrivals(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "t.csv", "timestamp_s\n0\n0.5\n1\n1.2\n3\n"));
    free(ss_test_write(dir, "s.yaml",
                       "name: s\nduration_s: 10\nreplications: 3\nhosts: [{name: h, devices: [{name: d0, kind: gpu}]}]\n"
                       "models: [{name: m, service: {dist: exponential, mean_s: 0.2}}]\n"
                       "deployment: [{model: m, device: d0}]\n"
                       "workloads: [{name: w, kind: trace, target: m, file: t.csv}]\n"
                       "variants:\n  - {name: exp, set: {}}\n"
                       "  - {name: det, set: {models: [{name: m, service: {dist: deterministic, value_s: 0.2}}]}}\n"
                       "  - {name: poisson, set: {workloads: [{name: w, kind: poisson, target: m, rate_rps: 1}]}}\n"));
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && LC_ALL=C.UTF-8 '%s' run s.yaml -o r.csv 2>/dev/null", dir, SS_BIN), 0);
    CU_ASSERT(ss_test_has(out, "(the replications of variant exp replay the same arrivals (a trace, or no random "
                               "arrivals): \xc2\xb1 is the spread of the other draws (service times), not of the "
                               "arrivals)\n"));
    CU_ASSERT(ss_test_has(out, "(the replications of variant det replay the same arrivals and draw nothing else: "
                               "identical runs, so \xc2\xb1 0 says nothing of the uncertainty)\n"));
    CU_ASSERT(!strstr(out ? out : "", "variant poisson"));
    free(out);
    ss_test_rmtree(dir);
}

/* A variant whose completions fall short of its arrivals by the end of
 * arrivals is flagged on stderr, after the table (the table alone on
 * stdout); a stable one is not, nor a run bounded by requests alone. */
static void unstable(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(dir, "s.yaml",
                       "name: u\nduration_s: 60\nwarmup_s: 10\nhosts: [{name: h, devices: [{name: d0, kind: gpu}]}]\n"
                       "models: [{name: m, service: {dist: exponential, mean_s: 0.01}}]\n"
                       "deployment: [{model: m, device: d0}]\n"
                       "workloads: [{name: w, kind: poisson, target: m, rate_rps: 50}]\n"
                       "variants:\n  - {name: stable, set: {}}\n"
                       "  - {name: overloaded, set: {workloads.w.rate_rps: 130}}\n"));
    /* and a stable system whose requests take long (5 s on 10 servers at 1.5/s: 7.5 in flight when
     * arrivals end, 10% of them, as Little's law says) is not flagged */
    free(ss_test_write(dir, "slow.yaml",
                       "name: slow\nduration_s: 60\nwarmup_s: 10\nhosts: [{name: h, devices: [{name: d0, kind: gpu}]}]\n"
                       "models: [{name: m, service: {dist: deterministic, value_s: 5}}]\n"
                       "deployment: [{model: m, device: d0, servers: 10}]\n"
                       "workloads: [{name: w, kind: poisson, target: m, rate_rps: 1.5}]\n"));
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s' run slow.yaml -o s.csv 2>&1 >/dev/null", dir, SS_BIN), 0);
    CU_ASSERT(!strstr(out ? out : "", "warning"));
    free(out);
    out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o r.csv > t.txt 2> e.txt", dir, SS_BIN), 0);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && cat e.txt", dir), 0);
    CU_ASSERT(ss_test_has(out, "servesim: warning: variant overloaded: "));
    CU_ASSERT(ss_test_has(out, "% of the requests made after the warm-up ("));
    CU_ASSERT(ss_test_has(out, ") were not completed when arrivals ended: the load outran the service (unstable or "
                               "overloaded), and its latencies grow with the run's length\n"));
    CU_ASSERT(!strstr(out ? out : "", "variant stable"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && cat t.txt", dir), 0);
    CU_ASSERT(!strstr(out ? out : "", "warning"));
    free(out);
    /* --quiet: the CSV alone, nothing said */
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o - --quiet 2>&1 | grep -c warning", dir, SS_BIN), 1);
    CU_ASSERT_STRING_EQUAL(out ? out : "", "0\n");
    free(out);
    ss_test_rmtree(dir);
}

/* Runs whose results carry TTFT and TPOT show them: an LLM scenario. */
static void llm(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s' run '%s/scenarios/llm/rtx4090-synthetic.yaml' -o r.csv 2>/dev/null",
                               dir, SS_BIN, SS_SRC_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "  TTFT mean ms  TTFT p99 ms  TPOT mean ms  dev util\n"));
    CU_ASSERT(ss_test_has(out, "(TTFT = time to first token, TPOT = time per output token after the first: over every "
                               "LLM request of the run)\n"));
    char path[1024];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    ss_csv csv;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_csv_read(path, &csv, &err), 0);
    /* fields: variant model completed dropped tput/s mean p50 p99 p99.9 ttft-mean ttft-p99 tpot-mean util */
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "least-tokens", "all", 9), csv_value(&csv, "least-tokens", "all", "ttft_mean_s") * 1e3,
                           6e-4);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "round-robin", "all", 11), csv_value(&csv, "round-robin", "all", "tpot_mean_s") * 1e3,
                           6e-4);
    CU_ASSERT(cell(out, "least-tokens", "all", 12) > 50); /* the engines' busy share, not 0% */
    ss_csv_free(&csv);
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("table", {"edge utilisation, aligned columns, per-variant replications", table},
              {"autoscaled: e2e latency, cold starts and replica-seconds, as the CSV has them", autoscaled},
              {"columns sized to contents, ms or s per column, integer counts", reads},
              {"replications sharing their arrivals said so", shared_arrivals},
              {"unstable variants flagged on stderr", unstable}, {"LLM runs: TTFT and TPOT", llm})
