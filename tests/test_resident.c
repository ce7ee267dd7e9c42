/* test_resident.c: the resident memory beside a model (sim/input/resident.c,
 * sim/calib/calibrate_resident.c; docs/memory.md).  The acceptance of issue
 * 44 item 1, on the committed probe measurements (profiles/measured/
 * probe-memory.json: glibc's default malloc; probe-memory-mmap.json: a fixed
 * mmap threshold) and the laws calibrate writes from them
 * (models/resident-cpu.json, resident-cpu-mmap.json, checked byte for byte):
 *   - a process with torch and a loaded torchvision network: predicted within
 *     10% under both allocators, six networks, in sample and with each
 *     network left out of the fit;
 *   - after forwards at batch 1, 4 and 16: within 10% with the fixed
 *     threshold, in sample and left out; under glibc's default, whose heap
 *     keeps what the forwards freed, the errors are printed and held within
 *     25% in sample (docs/memory.md says why);
 * and an ensemble's ledger with its resident terms, worked by hand. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "input/ensemble_cfg.h"
#include "input/hwprofile.h"
#include "input/resident.h"
#include "input/scenario_load.h"
#include "test.h"

#define GLIBC SS_SRC_DIR "/profiles/measured/probe-memory.json"
#define GLIBC_LAW SS_SRC_DIR "/models/resident-cpu.json"
#define MMAP SS_SRC_DIR "/profiles/measured/probe-memory-mmap.json"
#define MMAP_LAW SS_SRC_DIR "/models/resident-cpu-mmap.json"
#define MIB 1048576.0

static double median(const double *v, size_t n)
{
    double *w = malloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    double m = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
    free(w);
    return m;
}

/* The law calibrate fits from p's resident samples less those of `leave_out` (NULL: none). */
static int fit_without(const ss_hwprofile *p, const char *leave_out, ss_resident_law *l)
{
    ss_hwprofile q = *p;
    q.samples = calloc(p->nsamples, sizeof *q.samples);
    q.nsamples = 0;
    for (size_t i = 0; i < p->nsamples; i++)
        if (!leave_out || !p->samples[i].model || strcmp(p->samples[i].model, leave_out) != 0)
            q.samples[q.nsamples++] = p->samples[i];
    ss_hwprofile *pp = &q;
    ss_calib_opts o = {.name = "resident-loo"};
    char *json = NULL, *sum = NULL;
    ss_err err = {0};
    int rc = ss_calibrate(&pp, 1, &o, &json, &sum, &err);
    if (rc == 0) {
        cJSON *root = cJSON_Parse(json), *r = cJSON_GetObjectItem(root, "resident");
        l->framework_rss_bytes = cJSON_GetObjectItem(r, "framework_rss_bytes")->valuedouble;
        l->weights_factor = cJSON_GetObjectItem(r, "weights_factor")->valuedouble;
        l->workspace_bytes = cJSON_GetObjectItem(r, "workspace_bytes")->valuedouble;
        l->activation_factor = cJSON_GetObjectItem(r, "activation_factor")->valuedouble;
        cJSON_Delete(root);
    } else {
        fprintf(stderr, "calibrate without %s: %s\n", leave_out ? leave_out : "-", err.msg);
    }
    free(json);
    free(sum);
    free(q.samples);
    return rc;
}

/* Every sample of stage `stage` (1 loaded: the median resident set; 2 forward: the median peak)
 * of network `only` (NULL: all) against the law's prediction; the largest |error|. */
static double worst_error(const ss_hwprofile *p, const ss_resident_law *l, const char *only, int stage)
{
    double worst = 0;
    for (size_t i = 0; i < p->nsamples; i++) {
        const ss_hwp_sample *s = &p->samples[i];
        if (s->kind != SS_HWP_RESIDENT || s->rstage != stage) continue;
        if (only && strcmp(s->model, only) != 0) continue;
        double meas = median(stage == 2 ? s->peak_bytes : s->rss_bytes, s->nrss);
        double pred = ss_resident_predict(l, s->weights_bytes, stage == 2 ? s->activation_bytes : 0);
        double e = pred / meas - 1;
        printf("    %-13s %-7s", s->model, s->stage);
        if (stage == 2) printf(" batch %2u", s->batch);
        printf(": measured %7.1f MiB, predicted %7.1f MiB, %+5.1f%%\n", meas / MIB, pred / MIB, 100 * e);
        if (fabs(e) > worst) worst = fabs(e);
    }
    return worst;
}

/* The committed law `law` against measurement `path` at `stage`, in sample and with each network
 * left out of the fit: the largest |error| of both, and in *in_sample the one in sample (at least
 * three networks asserted). */
static double check(const char *path, const char *law, int stage, double *in_sample)
{
    ss_hwprofile p;
    ss_err err = {0};
    ss_resident_law l;
    CU_ASSERT_FATAL(ss_hwprofile_load(path, &p, &err) == 0);
    CU_ASSERT_FATAL(ss_resident_law_load(law, &l, &err) == 0);
    printf("\n  %s against %s (medians of the processes):\n", law + strlen(SS_SRC_DIR) + 1,
           path + strlen(SS_SRC_DIR) + 1);
    double in = worst_error(&p, &l, NULL, stage), out = 0;
    printf("  in sample: worst |error| %.1f%%\n  each network by the law fitted without it:\n", 100 * in);
    const char *seen[32];
    size_t nseen = 0;
    for (size_t i = 0; i < p.nsamples; i++) {
        const ss_hwp_sample *s = &p.samples[i];
        if (s->kind != SS_HWP_RESIDENT || s->rstage != 1) continue;
        int dup = 0;
        for (size_t k = 0; k < nseen; k++) dup |= strcmp(seen[k], s->model) == 0;
        if (dup || nseen == 32) continue;
        seen[nseen++] = s->model;
        ss_resident_law lo;
        CU_ASSERT_FATAL(fit_without(&p, s->model, &lo) == 0);
        double w = worst_error(&p, &lo, s->model, stage);
        if (w > out) out = w;
    }
    printf("  left out: worst |error| %.1f%% over %zu networks\n", 100 * out, nseen);
    CU_ASSERT(nseen >= 3);
    ss_hwprofile_free(&p);
    if (in_sample) *in_sample = in;
    return in > out ? in : out;
}

static void test_loaded(void)
{
    CU_ASSERT(check(GLIBC, GLIBC_LAW, 1, NULL) <= 0.10);
    CU_ASSERT(check(MMAP, MMAP_LAW, 1, NULL) <= 0.10);
}

static void test_forward_mmap(void) { CU_ASSERT(check(MMAP, MMAP_LAW, 2, NULL) <= 0.10); }

/* glibc's heap keeps what a forward freed, by an order the law does not see: in sample the law
 * stays within 25%; a network left out may not (printed, not asserted: docs/memory.md). */
static void test_forward_glibc(void)
{
    double in = 1;
    check(GLIBC, GLIBC_LAW, 2, &in);
    CU_ASSERT(in <= 0.25);
}

/* The committed model files are calibrate's output for the committed measurements, byte for byte. */
static void test_committed_laws(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' calibrate profiles/measured/probe-memory.json -o '%s/r.json' "
                              "--name resident-cpu --quiet && cmp '%s/r.json' models/resident-cpu.json && "
                              "'%s/servesim' calibrate profiles/measured/probe-memory-mmap.json -o '%s/m.json' "
                              "--name resident-cpu-mmap --quiet && cmp '%s/m.json' models/resident-cpu-mmap.json",
                        SS_SRC_DIR, SS_BUILD_DIR, dir, dir, SS_BUILD_DIR, dir, dir);
    if (rc != 0) fprintf(stderr, "%s\n", out ? out : "");
    CU_ASSERT(rc == 0);
    free(out);
    ss_test_rmtree(dir);
}

static void test_tf_min_system(void)
{
    /* TensorFlow 1.x's MinSystemMemory: 225 MiB below 2 GiB free, else max(300 MiB, 5%) */
    CU_ASSERT_DOUBLE_EQUAL(ss_resident_tf_min_system_bytes(1.0 * 1073741824), 225 * MIB, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(ss_resident_tf_min_system_bytes(4.0 * 1073741824), 300 * MIB, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(ss_resident_tf_min_system_bytes(16.0 * 1073741824), 0.05 * 16 * 1073741824, 1e-3);
}

/* An ensemble on tiny-a and tiny-b (TEST DATA: weights 0.1 and 0.5 GB; memory at batch 8/16/32
 * 0.2/0.4/0.8 GB and 0.3/0.6/1.2 GB) with `resident` (one flow-style map): the CPU holds tiny-a at
 * 8, gpu0 tiny-a at 16 and tiny-b at 8, gpu1 tiny-b at 32.  0 ok. */
static int load_ens(ss_scenario *sc, const char *resident)
{
    char src[4096], yaml[12288];
    if (!realpath(SS_SRC_DIR, src)) return -1;
    snprintf(yaml, sizeof yaml,
             "name: t\nhosts:\n  - name: n0\n    devices:\n"
             "      - {name: cpu, kind: cpu, type: host-cpu, ram_gib: 64}\n"
             "      - {name: gpu0, kind: gpu, type: V100, vram_gib: 16}\n"
             "      - {name: gpu1, kind: gpu, type: V100, vram_gib: 16}\n"
             "ensemble:\n  members: [{name: tiny-a, profile: %.4000s/models/ensemble/tiny-a.json}, "
             "{name: tiny-b, profile: %.4000s/models/ensemble/tiny-b.json}]\n  images: 300\n  resident: %.200s\n"
             "  matrix: [[8, 0], [16, 8], [0, 32]]\n", src, src, resident);
    char *dir = ss_test_tmpdir(), *path = ss_test_write(dir, "s.yaml", yaml);
    ss_err err = {0};
    int rc = ss_scenario_load(sc, path, NULL, NULL, 0, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    free(path);
    ss_test_rmtree(dir);
    return rc;
}

static void test_ensemble_ledger(void)
{
    const double gib = 1073741824.0;
    ss_scenario sc;
    /* no resident terms: the weights and activations alone, as before the terms */
    CU_ASSERT_FATAL(load_ens(&sc, "{}") == 0);
    ss_ensemble_cfg *e = sc.ensemble;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 1), 1.3e9, 1);
    ss_scenario_free(&sc);
    /* growth: each GPU worker's context beside its need; the host's CPU device holds its OS and the
     * framework of all four worker processes (on the CPU and on the GPUs) */
    CU_ASSERT_FATAL(load_ens(&sc, "{os_reserve_bytes: 1e9, framework_rss_bytes: 3e8, cuda_context_bytes: 5e8}") == 0);
    e = sc.ensemble;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 0), 0.3e9 + 1e9 + 4 * 0.3e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 1), (0.5e9 + 0.5e9) + (0.5e9 + 0.8e9), 1);
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 2), 0.5e9 + 1.7e9, 1);
    /* fraction: each GPU worker reserves its share whatever it uses; a worker beyond it is out of memory */
    e->resident.gpu_allocator = SS_GPU_ALLOC_FRACTION;
    e->resident.gpu_memory_fraction = 0.25;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 1), 2 * (0.5e9 + 0.25 * 16 * gib), 1);
    e->resident.gpu_memory_fraction = 0.05;
    CU_ASSERT(isinf(ss_ens_device_bytes(e, e->matrix, 2)));
    /* all (TensorFlow 1.x's default): one worker takes what is free less max(300 MiB, 5%); a second
     * worker on the same GPU gets the rest less 225 MiB, too little for tiny-b */
    e->resident.gpu_allocator = SS_GPU_ALLOC_ALL;
    double free1 = 16 * gib - 0.5e9;
    CU_ASSERT_DOUBLE_EQUAL(ss_ens_device_bytes(e, e->matrix, 2), 0.5e9 + free1 - 0.05 * free1, 1);
    CU_ASSERT(isinf(ss_ens_device_bytes(e, e->matrix, 1)));
    ss_scenario_free(&sc);
}

SS_TEST_SUITE("resident", {"ensemble ledger", test_ensemble_ledger}, {"tf min system", test_tf_min_system},
              {"committed laws", test_committed_laws}, {"loaded within 10%", test_loaded},
              {"forward within 10% (fixed mmap threshold)", test_forward_mmap},
              {"forward within 25% in sample (glibc's default)", test_forward_glibc})
