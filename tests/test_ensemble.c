/* test_ensemble.c: ensembles of DNNs (issue 17; sim/input/ensemble_cfg.c,
 * sim/ensemble/ensemble.c; seed E = ../shared/seeds/ensembles.md).
 *
 * - segmenting: 300 images, N = 128 -> 128/128/44 and 6 messages for two
 *   members (E §1.3), in the numbers and in a run's trace;
 * - E's Eq. 1 and Eq. 2 on the paper's examples, and the same counts by
 *   enumeration on small matrices;
 * - a benchmark run computed by hand (docs/ensembles.md, "A worked
 *   example") under both ends of the interference law, and deploy mode;
 * - the partial-batch latency law; memory fit; determinism;
 * - bad input: an all-zero column, a batch not allowed, a matrix of the
 *   wrong shape, a member without a profile for a device type it is
 *   placed on, a matrix that does not fit in memory. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/ensemble_cfg.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "ensemble/ensemble.h"
#include "world/world.h"
#include "test.h"

/* The test-data profiles models/ensemble/tiny-{a,b}.json, by absolute path
 * (the scenarios below live in a temporary folder). */
static char *profile(const char *name)
{
    char src[PATH_MAX];
    if (!realpath(SS_SRC_DIR, src)) return ss_xstrdup("missing");
    return ss_xasprintf("%s/models/ensemble/%s.json", src, name);
}

/* A scenario on cpu, gpu0, gpu1 (vram_gib of the GPUs given) with members
 * tiny-a and tiny-b, the ensemble's other keys `rest` (YAML lines at two
 * spaces).  Malloc'd. */
static char *scenario(double vram_gib, const char *rest)
{
    char *a = profile("tiny-a"), *b = profile("tiny-b");
    char *s = ss_xasprintf("name: t\n"
                           "seed: 7\n"
                           "hosts:\n"
                           "  - name: n0\n"
                           "    devices:\n"
                           "      - {name: cpu, kind: cpu, type: host-cpu, ram_gib: 64}\n"
                           "      - {name: gpu0, kind: gpu, type: V100, vram_gib: %g}\n"
                           "      - {name: gpu1, kind: gpu, type: V100, vram_gib: %g}\n"
                           "ensemble:\n"
                           "  members: [{name: tiny-a, profile: '%s'}, {name: tiny-b, profile: '%s'}]\n"
                           "%s",
                           vram_gib, vram_gib, a, b, rest);
    free(a);
    free(b);
    return s;
}

/* Load and run a scenario text; its trace (if wanted) and result.  0 ok. */
static int run_text(const char *yaml, char **trace, ss_run_result *res, ss_err *err)
{
    char *dir = ss_test_tmpdir();
    char *path = ss_test_write(dir, "s.yaml", yaml);
    ss_scenario sc;
    int rc = ss_scenario_load(&sc, path, NULL, NULL, 0, err);
    if (rc == 0) {
        ss_world *w = ss_world_build(&sc, 0, NULL, err);
        if (!w) {
            rc = -1;
        } else {
            size_t len = 0;
            FILE *fp = trace ? open_memstream(trace, &len) : NULL;
            if (fp) ss_ens_world_trace(w, fp);
            ss_world_run(w);
            if (fp) fclose(fp);
            CU_ASSERT_PTR_NULL(ss_world_broken(w));
            ss_world_result(w, res);
            ss_world_free(w);
        }
    }
    ss_scenario_free(&sc);
    free(path);
    ss_test_rmtree(dir);
    return rc;
}

static double extra(const ss_run_result *r, const char *col)
{
    for (size_t i = 0; i < r->nextras; i++)
        if (strcmp(r->extras[i].col, col) == 0) return r->extras[i].value;
    return NAN;
}

/* The worked example's matrix: tiny-a at batch 16 and tiny-b at batch 8
 * co-located on gpu0, tiny-b at batch 32 on gpu1, the CPU unused. */
#define WORKED "  matrix: [[0, 0], [16, 8], [0, 32]]\n"

/* ---- segmenting (E §1.3) --------------------------------------------------- */

static void test_segments(void)
{
    CU_ASSERT_EQUAL(ss_ens_segments(300, 128), 3);
    CU_ASSERT_EQUAL(ss_ens_segment_len(300, 128, 0), 128);
    CU_ASSERT_EQUAL(ss_ens_segment_len(300, 128, 1), 128);
    CU_ASSERT_EQUAL(ss_ens_segment_len(300, 128, 2), 44);
    CU_ASSERT_EQUAL(ss_ens_segment_len(300, 128, 3), 0);
    CU_ASSERT_EQUAL(ss_ens_segments(256, 128), 2);
    CU_ASSERT_EQUAL(ss_ens_segment_len(256, 128, 1), 128);
    CU_ASSERT_EQUAL(ss_ens_segments(1, 128), 1);
    CU_ASSERT_EQUAL(ss_ens_segment_len(1, 128, 0), 1);
    /* In a run: 6 prediction messages, segments 0, 1, 2 of each member,
     * holding 128, 128 and 44 images. */
    char *yaml = scenario(16, "  interference: 0\n  images: 300\n" WORKED);
    char *trace = NULL;
    ss_run_result r;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(run_text(yaml, &trace, &r, &err), 0);
    CU_ASSERT_EQUAL(extra(&r, "predictions"), 6);
    int seen[2][3] = {{0}};
    size_t msgs = 0;
    for (char *line = strtok(trace, "\n"); line; line = strtok(NULL, "\n")) {
        char member[32];
        unsigned long long req, seg;
        unsigned images;
        if (!strstr(line, ",predictions,")) continue;
        msgs++;
        if (sscanf(line, "%*[^,],predictions,%*u,%31[^,],%*[^,],%llu,%llu,%u", member, &req, &seg, &images) != 4) {
            CU_FAIL("unreadable trace line");
            continue;
        }
        CU_ASSERT_EQUAL(req, 0);
        CU_ASSERT(seg < 3);
        if (seg < 3) {
            seen[strcmp(member, "tiny-b") == 0][seg]++;
            CU_ASSERT_EQUAL(images, seg < 2 ? 128u : 44u);
        }
    }
    CU_ASSERT_EQUAL(msgs, 6);
    for (int m = 0; m < 2; m++)
        for (int s = 0; s < 3; s++) CU_ASSERT_EQUAL(seen[m][s], 1);
    free(trace);
    ss_run_result_free(&r);
    free(yaml);
}

/* ---- Eq. 1 and Eq. 2 (E §2.1, §2.2) ------------------------------------------- */

static void test_eq1(void)
{
    /* 8 DNNs, 4 GPUs + 1 CPU, B = 5: (6^5 - 1)^8 = 7775^8 ~ 1.3E31. */
    double n = ss_ens_total_matrices(5, 5, 8);
    CU_ASSERT_DOUBLE_EQUAL(n / pow(7775.0, 8), 1.0, 1e-12);
    CU_ASSERT(n > 1.25e31 && n < 1.35e31);
    /* By enumeration: every matrix of values {0, 8, 16} on 2 devices x 2
     * models that ss_ens_invalid accepts, against ((2 + 1)^2 - 1)^2 = 64;
     * and on 3 x 2 with one value, ((1 + 1)^3 - 1)^2 = 49. */
    const uint32_t b2[] = {8, 16}, b1[] = {8};
    uint32_t a[6];
    size_t valid = 0;
    for (int code = 0; code < 81; code++) {
        int c = code;
        for (int i = 0; i < 4; i++, c /= 3) a[i] = (uint32_t)(c % 3) * 8;
        valid += ss_ens_invalid(a, 2, 2, b2, 2) < 0;
    }
    CU_ASSERT_EQUAL(valid, 64);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_total_matrices(2, 2, 2), 64, 0);
    valid = 0;
    for (int code = 0; code < 64; code++) {
        for (int i = 0; i < 6; i++) a[i] = (uint32_t)((code >> i) & 1) * 8;
        valid += ss_ens_invalid(a, 3, 2, b1, 1) < 0;
    }
    CU_ASSERT_EQUAL(valid, 49);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_total_matrices(1, 3, 2), 49, 0);
    /* A value outside the allowed set, and an all-zero column, are invalid. */
    uint32_t bad[4] = {8, 12, 0, 8};
    CU_ASSERT_EQUAL(ss_ens_invalid(bad, 2, 2, b2, 2), 1);
    uint32_t zero[4] = {8, 0, 16, 0};
    CU_ASSERT_EQUAL(ss_ens_invalid(zero, 2, 2, b2, 2), 1);
}

/* Each neighbour differs from a in exactly one entry, is valid, and no two
 * are the same. */
static void check_neighbours(const uint32_t *a, uint32_t d, uint32_t m, const uint32_t *bs, uint32_t nb, size_t n)
{
    size_t cells = (size_t)d * m;
    uint32_t *out = ss_xcalloc(n * cells + 1, sizeof *out);
    CU_ASSERT_EQUAL(ss_ens_neighbours(a, d, m, bs, nb, out), n);
    for (size_t k = 0; k < n; k++) {
        size_t diff = 0;
        for (size_t i = 0; i < cells; i++) diff += out[k * cells + i] != a[i];
        CU_ASSERT_EQUAL(diff, 1);
        CU_ASSERT_EQUAL(ss_ens_invalid(out + k * cells, d, m, bs, nb), -1);
        for (size_t j = 0; j < k; j++) CU_ASSERT(memcmp(out + k * cells, out + j * cells, cells * sizeof *out) != 0);
    }
    free(out);
}

static void test_eq2(void)
{
    const uint32_t bs[] = {8, 16, 32, 64, 128};
    /* E's example: 8 DNNs, 4 GPUs + 1 CPU: "between 232 and 240". */
    CU_ASSERT_EQUAL(ss_ens_total_neighs(5, 5, 8, 0), 240);
    CU_ASSERT_EQUAL(ss_ens_total_neighs(5, 5, 8, 8), 232);
    /* Algorithm 1's kind of matrix: one worker per model (batch 8), the
     * GPUs first: every column has one non-zero entry, so F = M = 8; the
     * distinct neighbours are Eq. 2 less the D x M "same value" moves it
     * counts (E §2.2 [reconstruction]): 232 - 40 = 192. */
    uint32_t a1[5 * 8] = {0};
    for (uint32_t m = 0; m < 8; m++) a1[(1 + m % 4) * 8 + m] = 8;
    CU_ASSERT_EQUAL(ss_ens_forbidden(a1, 5, 8), 8);
    CU_ASSERT_EQUAL(ss_ens_neighbours(a1, 5, 8, bs, 5, NULL), ss_ens_total_neighs(5, 5, 8, 8) - 5 * 8);
    CU_ASSERT_EQUAL(ss_ens_neighbours(a1, 5, 8, bs, 5, NULL), 192);
    check_neighbours(a1, 5, 8, bs, 5, 192);
    /* Every entry non-zero: F = 0, 240 - 40 = 200. */
    uint32_t full[5 * 8];
    for (size_t i = 0; i < 40; i++) full[i] = bs[i % 5];
    CU_ASSERT_EQUAL(ss_ens_forbidden(full, 5, 8), 0);
    CU_ASSERT_EQUAL(ss_ens_neighbours(full, 5, 8, bs, 5, NULL), 200);
    check_neighbours(full, 5, 8, bs, 5, 200);
}

/* ---- runs computed by hand (docs/ensembles.md, "A worked example") ------------- */

/* The time of member `member`'s prediction message for segment seg in a trace. */
static double message_s(const char *trace, const char *member, unsigned seg)
{
    char *copy = ss_xstrdup(trace), *save = NULL;
    double t = NAN;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double at;
        char m[32];
        unsigned long long s;
        if (sscanf(line, "%lf,predictions,%*u,%31[^,],%*[^,],%*u,%llu", &at, m, &s) == 3 && strcmp(m, member) == 0 &&
            s == seg)
            t = at;
    }
    free(copy);
    return t;
}

static void test_benchmark_by_hand(void)
{
    /* interference 0: co-located workers do not slow each other.
     *  tiny-a (gpu0, b 16): segments 128, 128 -> 8 batches x 0.016 each;
     *    44 -> 16 + 16 + 12: 0.032 + latency(12) = 0.032 + 0.013 (linear
     *    between 8 and 16); messages at 0.128, 0.256, 0.301.
     *  tiny-b: worker gpu0 (b 8) takes segment 0: 16 x 0.020 = 0.320;
     *    worker gpu1 (b 32) segment 1: 4 x 0.050 = 0.200, then segment 2
     *    (44 = 32 + 12): 0.050 + latency(12) = 0.050 + 0.025 -> 0.275.
     *  Makespan 0.320 s, 300 / 0.320 = 937.5 images/s; batches
     *  8 + 8 + 3 + 16 + 4 + 2 = 41. */
    char *yaml = scenario(16, "  interference: 0\n  images: 300\n" WORKED);
    char *trace = NULL;
    ss_run_result r;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(run_text(yaml, &trace, &r, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "makespan_s"), 0.320, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "throughput_img_s"), 937.5, 1e-9);
    CU_ASSERT_EQUAL(extra(&r, "batches"), 41);
    CU_ASSERT_EQUAL(extra(&r, "images"), 300);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-a", 0), 0.128, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-a", 1), 0.256, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-a", 2), 0.301, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-b", 0), 0.320, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-b", 1), 0.200, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-b", 2), 0.275, 1e-12);
    CU_ASSERT_EQUAL(r.ntasks, 1);
    CU_ASSERT_EQUAL(r.tasks[0].completed, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.util[1], 1.0, 1e-12);        /* gpu0 busy throughout */
    CU_ASSERT_DOUBLE_EQUAL(r.util[2], 0.275 / 0.320, 1e-12); /* gpu1 */
    CU_ASSERT_EQUAL(r.util[0], 0);                        /* the CPU holds no worker */
    free(trace);
    ss_run_result_free(&r);
    free(yaml);
    /* interference 1 (time slicing): gpu0 does all of tiny-a's work
     * (0.301 s) and tiny-b's segment 0 (0.320 s) at one device-second per
     * second, busy from 0 to the end; gpu1 still takes segments 1 and 2
     * (free at 0.200, before gpu0's tiny-b worker): makespan 0.621 s. */
    yaml = scenario(16, "  interference: 1\n  images: 300\n" WORKED);
    CU_ASSERT_EQUAL_FATAL(run_text(yaml, &trace, &r, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "makespan_s"), 0.621, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(message_s(trace, "tiny-b", 2), 0.275, 1e-12);
    CU_ASSERT_EQUAL(extra(&r, "batches"), 41);
    free(trace);
    ss_run_result_free(&r);
    free(yaml);
    /* interference 0.5, both workers of gpu0 busy from 0: two batches run at
     * 1 / 1.5 each, so tiny-a's first batch (0.016 s of work) ends at 0.024. */
    yaml = scenario(16, "  interference: 0.5\n  images: 300\n" WORKED);
    CU_ASSERT_EQUAL_FATAL(run_text(yaml, &trace, &r, &err), 0);
    CU_ASSERT(strstr(trace, "0.024000000,batch,0,tiny-a,n0/gpu0,0,0,16\n") != NULL);
    /* tiny-b's first batch (0.020 s of work) had 0.004 left at 0.024, still
     * two batches on gpu0 (tiny-a's second started): it ends at 0.030. */
    CU_ASSERT(strstr(trace, "0.030000000,batch,1,tiny-b,n0/gpu0,0,0,8\n") != NULL);
    double mk = extra(&r, "makespan_s");
    CU_ASSERT(mk > 0.320 && mk < 0.621);
    free(trace);
    ss_run_result_free(&r);
    free(yaml);
}

static void test_partial_batch(void)
{
    ss_ens_point pts[] = {{8, 0.010, 2e8}, {16, 0.016, 4e8}, {32, 0.028, 8e8}};
    ss_ens_curve c = {.type = "V100", .pts = pts, .npts = 3};
    CU_ASSERT_EQUAL(ss_ens_latency_s(&c, 16), 0.016);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_latency_s(&c, 12), 0.013, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_latency_s(&c, 4), 0.005, 1e-15);  /* proportional below 8 */
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_latency_s(&c, 40), 0.034, 1e-15); /* the 16-32 line, extended */
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_latency_s(&c, 24), 0.022, 1e-15);
}

static void test_deploy(void)
{
    /* Requests of 300 images every second: each alone on the workers, so
     * each takes the benchmark's 0.320 s. */
    char *yaml = scenario(16, "  interference: 0\n  mode: deploy\n  images_per_request: 300\n"
                              "  interarrival: {dist: deterministic, value_s: 1}\n" WORKED);
    char *full = ss_xasprintf("requests: 3\n%s", yaml);
    ss_run_result r;
    ss_err err = {0};
    int rc = run_text(full, NULL, &r, &err);
    if (rc) fprintf(stderr, "\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(r.tasks[0].arrived, 3);
    CU_ASSERT_EQUAL(r.tasks[0].completed, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_mean_s, 0.320, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.tasks[0].latency_max_s, 0.320, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "makespan_s"), 3.320, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(extra(&r, "throughput_img_s"), 900 / 3.320, 1e-9);
    CU_ASSERT_EQUAL(extra(&r, "predictions"), 18);
    ss_run_result_free(&r);
    free(full);
    /* Requests every 0.1 s: they queue behind each other; latency grows. */
    char *quick = scenario(16, "  interference: 0\n  mode: deploy\n  images_per_request: 300\n"
                               "  interarrival: {dist: deterministic, value_s: 0.1}\n" WORKED);
    char *fast = ss_xasprintf("requests: 20\n%s", quick);
    free(quick);
    CU_ASSERT_EQUAL_FATAL(run_text(fast, NULL, &r, &err), 0);
    CU_ASSERT_EQUAL(r.tasks[0].completed, 20);
    CU_ASSERT(r.tasks[0].latency_max_s > 1.0);
    ss_run_result_free(&r);
    free(fast);
    free(yaml);
}

static void test_deterministic(void)
{
    char *yaml = scenario(16, "  interference: 0.3\n  mode: deploy\n  images_per_request: 200\n"
                              "  interarrival: {dist: exponential, mean_s: 0.3}\n" WORKED);
    char *a = ss_xasprintf("requests: 200\n%s", yaml);
    ss_run_result r1, r2, r3;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(run_text(a, NULL, &r1, &err), 0);
    CU_ASSERT_EQUAL_FATAL(run_text(a, NULL, &r2, &err), 0);
    CU_ASSERT_EQUAL(memcmp(&r1.tasks[0].latency_mean_s, &r2.tasks[0].latency_mean_s, sizeof(double)), 0);
    CU_ASSERT_EQUAL(extra(&r1, "makespan_s"), extra(&r2, "makespan_s"));
    char *b = ss_xasprintf("%s", a);
    memcpy(strstr(b, "seed: 7"), "seed: 8", 7);
    CU_ASSERT_EQUAL_FATAL(run_text(b, NULL, &r3, &err), 0);
    CU_ASSERT(r1.tasks[0].latency_mean_s != r3.tasks[0].latency_mean_s);
    ss_run_result_free(&r1);
    ss_run_result_free(&r2);
    ss_run_result_free(&r3);
    free(a);
    free(b);
    free(yaml);
}

/* ---- memory and bad input -------------------------------------------------- */

static void test_memory(void)
{
    /* gpu0 holds tiny-a at 16 (0.1 + 0.4 GB) and tiny-b at 8 (0.5 + 0.3
     * GB): 1.3e9 bytes, over a 1 GiB card (1.07e9), under 2 GiB. */
    char *yaml = scenario(1, "  images: 300\n" WORKED);
    ss_test_refused_at(yaml, 12, "matrix row of device 'n0/gpu0': its workers need 1.21072 GiB");
    free(yaml);
    yaml = scenario(2, "  images: 300\n" WORKED);
    ss_run_result r;
    ss_err err = {0};
    CU_ASSERT_EQUAL(run_text(yaml, NULL, &r, &err), 0);
    ss_run_result_free(&r);
    free(yaml);
}

static void test_bad_input(void)
{
    char *y = scenario(16, "  images: 300\n  matrix: [[0, 0], [16, 0], [0, 0]]\n");
    ss_test_refused_at(y, 12, "s.yaml:12:16: matrix: the column of member 'tiny-b' (column 2) is all zero");
    free(y);
    y = scenario(16, "  images: 300\n  matrix: [[0, 0], [16, 8], [0, 24]]\n");
    ss_test_refused_at(y, 12, "batch size 24 is not allowed (0 or one of 8, 16, 32, 64, 128)");
    free(y);
    y = scenario(16, "  images: 300\n  batch_sizes: [8, 16]\n  matrix: [[0, 0], [16, 8], [0, 32]]\n");
    ss_test_refused_at(y, 13, "batch size 32 is not allowed (0 or one of 8, 16)");
    free(y);
    y = scenario(16, "  images: 300\n  matrix: [[16, 8], [0, 32]]\n");
    ss_test_refused_at(y, 12, "matrix: expected 3 rows (one per device, in hosts order), got 2");
    free(y);
    y = scenario(16, "  images: 300\n  matrix: [[0, 0], [16, 8, 8], [0, 32]]\n");
    ss_test_refused_at(y, 12, "matrix row of device 'n0/gpu0': expected 2 entries (one per member), got 3");
    free(y);
    /* tiny-a's profile has no device type 'T4'. */
    y = scenario(16, "  images: 300\n  matrix: [[0, 0], [16, 8], [0, 32]]\n");
    char *p = strstr(y, "type: V100");
    memcpy(p, "type: T4  ", 10);
    ss_test_refused_at(y, 12, "member 'tiny-a' is placed on device 'n0/gpu0' (type 'T4')");
    free(y);
    y = scenario(16, "  images: 300\n  matrix: [[8, 0], [0, 8], [0, 32]]\n");
    memcpy(strstr(y, "type: host-cpu"), "type: arm-cpu ", 14);
    ss_test_refused_at(y, 12, "member 'tiny-a' is placed on device 'n0/cpu' (type 'arm-cpu')");
    free(y);
    y = scenario(16, "  matrix: [[0, 0], [16, 8], [0, 32]]\n");
    ss_test_refused_at(y, 10, "missing required key 'images'");
    free(y);
    y = scenario(16, "  images: 300\n  models: [x]\n  matrix: [[0, 0], [16, 8], [0, 32]]\n");
    ss_test_refused_at(y, 12, "unknown key 'models'");
    free(y);
}

SS_TEST_SUITE("ensemble", {"segments: 300 images, N 128 -> 128/128/44, 6 messages", test_segments},
              {"Eq. 1: 1.3E31 and enumerated counts", test_eq1},
              {"Eq. 2: 232 to 240 and the distinct neighbours", test_eq2},
              {"benchmark mode computed by hand, three interference laws", test_benchmark_by_hand},
              {"partial batches: linear between profiled points", test_partial_batch},
              {"deploy mode: open-loop requests and their latency", test_deploy},
              {"same seed, same results; another seed, others", test_deterministic},
              {"memory: a matrix that does not fit is refused", test_memory},
              {"bad input: zero column, batch, shape, profile", test_bad_input})
