/* test_partition.c: model partitioning's latency model and plans
 * (servesim/partition.h, policies/partition_common.h, the partitioner
 * plugins): FP §2.4's worked example by the model; the search over cuts
 * against brute force on random chains of up to 12 layers; flashpoint-mp's
 * precalculated table against the search; Gillis' and SerFer's part counts
 * on either side of flashpoint-mp's under one cap (seed flashpoint.md,
 * cited FP §n). */
#include "test.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <servesim/partition.h>

#include "../policies/partition_common.h"
#include "serve/plugin.h"

/* FP §4.1.3: 8 queued requests, 2 GPUs, 4 s a request, a full cold start of
 * 24 s or 12 s per half, 1 s between the halves.  Two layers of one byte,
 * 12 s of cold start and 2 s of execution each, 1 s across the cut. */
static void worked_example(void)
{
    ss_part_layer layers[2] = {{1, 1, 2.0}, {1, 0, 2.0}};
    ss_part_model m = {.layers = layers, .nlayers = 2, .cold_s_per_byte = 12, .net_s_per_byte = 1};
    ss_part_cost whole, halves;
    uint32_t cut = 0;
    ss_part_cost_of(&m, NULL, 0, &whole);
    ss_part_cost_of(&m, &cut, 1, &halves);
    CU_ASSERT_DOUBLE_EQUAL(whole.c_s, 24, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(halves.c_s, 12, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(halves.in_s, 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ss_part_mean_s(&whole, 8, 2, 1), 34.0, 1e-12);  /* 24 + (4 + 8 + 12 + 16) / 4 */
    CU_ASSERT_DOUBLE_EQUAL(ss_part_mean_s(&halves, 8, 2, 0), 34.5, 1e-12); /* 12 + (5 + 10 + ... + 40) / 8 */
    CU_ASSERT_DOUBLE_EQUAL(ss_part_mean_s(&halves, 8, 2, 1), 24.0, 1e-12); /* 12 + (5 + 7 + ... + 19) / 8 */
    /* the search picks the halves: 24 s */
    pc_front *f = pc_build(&m, 2, 0, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    pc_pick p = pc_best(f, 8, 2, 0);
    CU_ASSERT_EQUAL(p.p, 2);
    CU_ASSERT_DOUBLE_EQUAL(p.value_s, 24.0, 1e-12);
    pc_free(f);
}

/* A random chain: bytes 10-200 MB a layer, 1-30 ms, outputs 0.1-20 MB;
 * cold start at 2,203 Mbit/s + load + send (the T5-3B path) and a 10 Gbit/s
 * link between parts. */
static void random_model(gsl_rng *r, uint32_t L, ss_part_layer *layers, ss_part_model *m)
{
    for (uint32_t l = 0; l < L; l++) {
        layers[l].weights_bytes = 10e6 + 190e6 * gsl_rng_uniform(r);
        layers[l].exec_s = 0.001 + 0.029 * gsl_rng_uniform(r);
        layers[l].output_bytes = 0.1e6 + 19.9e6 * gsl_rng_uniform(r);
    }
    *m = (ss_part_model){.layers = layers, .nlayers = L, .cold_s_per_byte = 8 / 2203e6 + 1 / 806.9e6 + 8 / 75.68e9,
                         .cold_fixed_s = gsl_rng_uniform(r), .net_s_per_byte = 8 / 10e9, .net_fixed_s = 0.001};
}

/* The least mean end-to-end time over every cut set of at most gpus parts,
 * no part over cap (0: none); its part count in *parts. */
static double brute(const ss_part_model *m, double x, uint32_t gpus, double cap, uint32_t *parts)
{
    uint32_t L = m->nlayers, cuts[16];
    double best = INFINITY;
    for (uint32_t set = 0; set < 1u << (L - 1); set++) {
        uint32_t n = 0;
        for (uint32_t k = 0; k + 1 < L; k++)
            if (set >> k & 1) cuts[n++] = k;
        if (cap > 0) { /* every part under the cap */
            int over = 0;
            double b = 0;
            for (uint32_t l = 0, c = 0; l < L; l++) {
                b += m->layers[l].weights_bytes;
                if (b > cap) over = 1;
                if (c < n && cuts[c] == l) b = 0, c++;
            }
            if (over) continue;
        }
        ss_part_cost c;
        ss_part_cost_of(m, cuts, n, &c);
        double v = ss_part_mean_s(&c, x, gpus, 1);
        if (v < best) best = v, *parts = n + 1;
    }
    return best;
}

/* The value of a plan the plugin returned. */
static double value_of(const ss_part_model *m, const uint32_t *cuts, uint32_t parts, double x, uint32_t gpus)
{
    ss_part_cost c;
    ss_part_cost_of(m, cuts, parts - 1, &c);
    return ss_part_mean_s(&c, x, gpus, 1);
}

static void search_is_exact(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 14);
    ss_part_layer layers[12];
    for (int trial = 0; trial < 300; trial++) {
        uint32_t L = 1 + (uint32_t)gsl_rng_uniform_int(r, 12);
        ss_part_model m;
        random_model(r, L, layers, &m);
        double cap = trial % 3 == 0 ? 300e6 + 400e6 * gsl_rng_uniform(r) : 0;
        pc_front *f = pc_build(&m, L, cap, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        for (int q = 0; q < 10; q++) {
            double x = 1 + floor(3000 * pow(gsl_rng_uniform(r), 3));
            uint32_t gpus = 1 + (uint32_t)gsl_rng_uniform_int(r, 16), parts = 0;
            double want = brute(&m, x, gpus, cap, &parts);
            pc_pick p = pc_best(f, x, gpus, 0);
            if (!isfinite(want)) { /* nothing fits under the cap in so few parts */
                CU_ASSERT_EQUAL(p.p, 0);
                continue;
            }
            CU_ASSERT_DOUBLE_EQUAL(p.value_s, want, 1e-9 * want);
            uint32_t cuts[16];
            CU_ASSERT_EQUAL(pc_cuts(f, p, cuts), p.p);
            CU_ASSERT_DOUBLE_EQUAL(value_of(&m, cuts, p.p, x, gpus), want, 1e-9 * want); /* the cuts are that plan */
        }
        pc_free(f);
    }
    gsl_rng_free(r);
}

typedef struct loaded {
    ss_plugin pl;
    void *state;
} loaded;

static void load_partitioner(loaded *l, const char *name, const char *cap_mb)
{
    ss_err err = {0};
    setenv("SERVESIM_PLUGIN_PATH", SS_BUILD_DIR "/policies", 1);
    CU_ASSERT_EQUAL_FATAL(ss_plugin_load(&l->pl, name, SS_KIND_PARTITIONER, NULL, "t.yaml", 1, 1, &err), 0);
    ss_param kv[1] = {{"max_part_mb", cap_mb}};
    ss_params params = {kv, cap_mb ? 1 : 0};
    ss_policy_init init = {.params = &params};
    char msg[256];
    l->state = NULL;
    CU_ASSERT_EQUAL_FATAL(l->pl.pol->init(&l->state, &init, msg, sizeof msg), 0);
}

static void unload(loaded *l)
{
    l->pl.pol->fini(l->state);
    ss_plugin_unload(&l->pl);
}

static void mp_table_matches_search(void)
{
    /* flashpoint-mp answers from intervals of x found by exponential
     * search and bisection: on these chains its plan is the search's best
     * at every x asked (an interval shorter than the steps that skip it
     * would show here). */
    loaded mp;
    load_partitioner(&mp, "flashpoint-mp", NULL);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 15);
    ss_part_layer layers[12];
    int asked = 0;
    for (uint32_t trial = 0; trial < 100; trial++) {
        uint32_t L = 2 + (uint32_t)gsl_rng_uniform_int(r, 11);
        ss_part_model m;
        random_model(r, L, layers, &m);
        m.model = trial; /* a new model each: the plugin caches per model */
        for (int q = 0; q < 20; q++) {
            double x = 1 + floor(3000 * pow(gsl_rng_uniform(r), 3));
            uint32_t gpus = 1 + (uint32_t)gsl_rng_uniform_int(r, 16), cuts[16], parts = 0;
            uint32_t got = mp.pl.pol->ops.partitioner.plan(mp.state, &m, x, gpus, cuts);
            double want = brute(&m, x, gpus, 0, &parts);
            CU_ASSERT(got >= 1 && got <= gpus);
            CU_ASSERT_DOUBLE_EQUAL(value_of(&m, cuts, got, x, gpus), want, 1e-9 * want);
            asked++;
        }
    }
    CU_ASSERT_EQUAL(asked, 2000);
    gsl_rng_free(r);
    unload(&mp);
}

static void gillis_and_serfer_bracket_mp(void)
{
    /* Under one cap (250 MB a part, FP §5's Lambda limit) Gillis uses no
     * more parts than flashpoint-mp and SerFer no fewer (FP §4: Gillis
     * minimises transfers, SerFer ignores them); and each plan keeps every
     * part under the cap and uses at most the GPUs added. */
    loaded mp, gl, sf;
    load_partitioner(&mp, "flashpoint-mp", "250");
    load_partitioner(&gl, "gillis", NULL);
    load_partitioner(&sf, "serfer", NULL);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 16);
    ss_part_layer layers[12];
    int compared = 0;
    for (uint32_t trial = 0; trial < 200; trial++) {
        uint32_t L = 2 + (uint32_t)gsl_rng_uniform_int(r, 11);
        ss_part_model m;
        random_model(r, L, layers, &m);
        m.model = trial;
        double x = 1 + floor(3000 * pow(gsl_rng_uniform(r), 3));
        uint32_t gpus = 16, c1[16], c2[16], c3[16];
        uint32_t pm = mp.pl.pol->ops.partitioner.plan(mp.state, &m, x, gpus, c1);
        uint32_t pg = gl.pl.pol->ops.partitioner.plan(gl.state, &m, x, gpus, c2);
        uint32_t ps = sf.pl.pol->ops.partitioner.plan(sf.state, &m, x, gpus, c3);
        uint32_t parts = 0;
        if (!isfinite(brute(&m, x, gpus, 250e6, &parts))) continue; /* no plan under the cap */
        CU_ASSERT(pg <= pm);
        CU_ASSERT(ps >= pm);
        const uint32_t *cs[3] = {c1, c2, c3};
        uint32_t ps3[3] = {pm, pg, ps};
        for (int k = 0; k < 3; k++) { /* every part under the cap */
            double b = 0;
            for (uint32_t l = 0, c = 0; l < L; l++) {
                b += layers[l].weights_bytes;
                CU_ASSERT(b <= 250e6);
                if (c + 1 < ps3[k] && cs[k][c] == l) b = 0, c++;
            }
        }
        compared++;
    }
    CU_ASSERT(compared > 100);
    gsl_rng_free(r);
    unload(&mp);
    unload(&gl);
    unload(&sf);
}

/* Run servesim partition in dir with args; its exit status, output in *out. */
static int partition_cmd(const char *dir, char **out, const char *args)
{
    return ss_test_sh(out, "cd '%s' && SERVESIM_PLUGIN_PATH='%s/policies' SERVESIM_MODEL_PATH='%s/models' '%s/servesim' "
                           "partition %s 2>&1",
                      dir, SS_BUILD_DIR, SS_SRC_DIR, SS_BUILD_DIR, args);
}

static void command_prints_plans(void)
{
    /* T5-3B on 64 GPUs with 1,000 requests waiting (FP Fig. 8.1's
     * comparison): the whole model's cold start from storage is FP §3.2's
     * 41.4 + 14.1 + 1.2 s; flashpoint-mp cuts into 50 parts, Gillis into 49
     * (fewest under 250 MB), SerFer into 53 (every layer). */
    char *dir = ss_test_tmpdir(), *out = NULL;
    CU_ASSERT_EQUAL(partition_cmd(dir, &out, "t5-3b --gpus 1,64 --x 1000 -o p.csv"), 0);
    CU_ASSERT(ss_test_has(out, "     1   1000     1    56.771"));
    CU_ASSERT(ss_test_has(out, "    64   1000    50     1.336"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cat '%s/p.csv'", dir), 0);
    CU_ASSERT(ss_test_has(out, "model,partitioner,gpus,x,parts,cuts_after,c_s,e_s,n_s,in_s,t_s,whole_t_s\n"));
    CU_ASSERT(ss_test_has(out, "t5-3b,flashpoint-mp,64,1000,50,embed|enc0|"));
    free(out);
    CU_ASSERT_EQUAL(partition_cmd(dir, &out, "t5-3b --gpus 64 --x 1000 --partitioner gillis"), 0);
    CU_ASSERT(ss_test_has(out, "    64   1000    49 "));
    free(out);
    CU_ASSERT_EQUAL(partition_cmd(dir, &out, "t5-3b --gpus 64 --x 1000 --partitioner serfer"), 0);
    CU_ASSERT(ss_test_has(out, "    64   1000    53 "));
    free(out);
    ss_test_rmtree(dir);
}

static void command_refuses_bad_input(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    struct {
        const char *args, *says;
    } bad[] = {
        {"t5-3b --gpus 0", "--gpus: expected whole numbers >= 1"},
        {"t5-3b --x 1,,2", "--x: expected whole numbers >= 1"},
        {"t5-3b --net-gbps -1", "--net-gbps: expected 1e-09 to 1e+06 Gbit/s, got '-1'"},
        {"t5-3b --net-latency-s 1e300", "--net-latency-s: expected 0 or 1e-09 to 1e+09 s, got '1e300'"},
        {"t5-3b --set bogus=1", "--set bogus=1: partitioner 'flashpoint-mp' takes KEY=VALUE"},
        {"t5-3b --set max_parts=-1", "partitioner 'flashpoint-mp': max_part_mb wants"},
        {"t5-3b --partitioner atl", "is an autoscaler, expected a partitioner"},
        {"no-such-model", "no per-layer profile for model 'no-such-model'"},
        {"bad.json", "bad.json:1:"},
        {"neg.json", "neg.json:4:"},
    };
    free(ss_test_write(dir, "bad.json", "[1, 2]\n"));
    free(ss_test_write(dir, "neg.json", "{\"name\": \"x-layers\", \"model\": \"t5-3b\", \"layers\": [\n"
                                       "  {\"name\": \"a\", \"weights_bytes\": 1, \"output_bytes\": 1, \"exec_s\": 1},\n"
                                       "  {\"name\": \"b\", \"weights_bytes\": 1, \"output_bytes\": 1, \"exec_s\": 1},\n"
                                       "  {\"name\": \"c\", \"weights_bytes\": -5, \"output_bytes\": 1, \"exec_s\": 1}]}\n"));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = partition_cmd(dir, &out, bad[i].args);
        if (rc != 2 || !ss_test_has(out, bad[i].says)) fprintf(stderr, "\n%s: rc %d: %s\n", bad[i].args, rc, out);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT(ss_test_has(out, bad[i].says));
        free(out);
    }
    CU_ASSERT_NOT_EQUAL(partition_cmd(dir, &out, "t5-3b --gpus 0 -o never.csv"), 0); /* nothing written */
    free(out);
    CU_ASSERT_NOT_EQUAL(ss_test_sh(NULL, "test -e '%s/never.csv'", dir), 0);
    ss_test_rmtree(dir);
}

static void layer_profiles_regenerate(void)
{
    /* The committed per-layer profiles are what tools/flashpoint_layers.py writes. */
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && python3 tools/flashpoint_layers.py --check 2>&1", SS_SRC_DIR);
    if (rc) fprintf(stderr, "\n%s\n", out);
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
}

SS_TEST_SUITE("partition", {"FP §2.4's example: 34 s, 34.5 s, 24 s", worked_example},
              {"the search over cuts equals brute force (up to 12 layers)", search_is_exact},
              {"flashpoint-mp's table of x gives the search's best", mp_table_matches_search},
              {"Gillis <= flashpoint-mp <= SerFer in parts, under one cap", gillis_and_serfer_bracket_mp},
              {"servesim partition prints T5-3B's plans (MP 50, Gillis 49, SerFer 53 parts)", command_prints_plans},
              {"servesim partition refuses bad input (exit 2, nothing written)", command_refuses_bad_input},
              {"the per-layer profiles are what the tool writes", layer_profiles_regenerate})
