/* test_published.c: the shipped profiles that come from published tables
 * (models/resnet50-split.json, models/resnet50.json, models/transports.json,
 * five of models/masa/) are exactly what
 * `servesim calibrate --base` rebuilds from their transcriptions
 * (profiles/published/, tools/published-profiles.sh, docs/calibration.md
 * "Published tables"):
 *   - the committed files, byte for byte;
 *   - a transcription edited alone, or a model file edited alone, fails the
 *     same check (on a copy of the tree);
 *   - a summary's numbers reach the model file: mean and sd by moments, a
 *     fused process and the offline floor as the blocks in series, rounded to
 *     the decimals the table was written with. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/util.h"

/* `tools/published-profiles.sh BIN --check` in the tree at `root`: its exit status. */
static int check_in(const char *root, char **out)
{
    return ss_test_sh(out, "cd '%s' && tools/published-profiles.sh '%s/servesim' --check", root, SS_BUILD_DIR);
}

static void test_committed_files_rebuilt(void)
{
    char *out = NULL;
    int rc = check_in(SS_SRC_DIR, &out);
    if (rc != 0) fprintf(stderr, "\n%s", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(ss_test_has(out, "rebuilt byte for byte"));
    free(out);
}

/* A copy of what the rebuild reads (the script, the transcriptions, models/). */
static char *copy_tree(void)
{
    char *dir = ss_test_tmpdir();
    int rc = ss_test_sh(NULL, "cd '%s' && mkdir -p '%s/tools' '%s/profiles' && cp tools/published-profiles.sh '%s/tools/' "
                              "&& cp -R profiles/published '%s/profiles/' && cp -R models '%s/'",
                        SS_SRC_DIR, dir, dir, dir, dir, dir);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return dir;
}

/* Replace the first `from` in dir/path by `to`. */
static void edit(const char *dir, const char *path, const char *from, const char *to)
{
    char *full = ss_xasprintf("%s/%s", dir, path);
    size_t len;
    ss_err err = {0};
    char *text = ss_read_file(full, SS_INPUT_DOCUMENT, &len, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *at = strstr(text, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    *at = '\0';
    char *edited = ss_xasprintf("%s%s%s", text, to, at + strlen(from));
    FILE *f = fopen(full, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(edited, f);
    fclose(f);
    free(edited);
    free(text);
    free(full);
}

static void test_edit_alone_fails(void)
{
    /* block3's mean in the transcription of Table 4.2, and nothing else */
    char *dir = copy_tree(), *out = NULL;
    edit(dir, "profiles/published/blockflow/table-4-2.json", "\"mean\": 4.021", "\"mean\": 4.022");
    CU_ASSERT_EQUAL(check_in(dir, &out), 1);
    CU_ASSERT_TRUE(ss_test_has(out, "models/resnet50-split.json differs"));
    CU_ASSERT_TRUE(ss_test_has(out, "models/resnet50.json differs")); /* the whole model sums the blocks */
    free(out);
    ss_test_rmtree(dir);
    /* a row of Table 4.3: the law no longer gives the value typed in the base */
    dir = copy_tree();
    out = NULL;
    edit(dir, "profiles/published/blockflow/table-4-3.json", "\"mean\": 10.885", "\"mean\": 10.985");
    CU_ASSERT_NOT_EQUAL(check_in(dir, &out), 0);
    CU_ASSERT_TRUE(ss_test_has(out, "transports.http.delivery_s_per_byte: typed as 1.529449e-08"));
    free(out);
    ss_test_rmtree(dir);
    /* the pipeline overhead: block_fixed_s = 2.55 ms / 4 is written, the per-byte cost checked */
    dir = copy_tree();
    out = NULL;
    edit(dir, "profiles/published/blockflow/pipeline-overhead.json", "\"mean\": 2.55", "\"mean\": 2.56");
    CU_ASSERT_NOT_EQUAL(check_in(dir, &out), 0);
    CU_ASSERT_TRUE(ss_test_has(out, "transports.zmq-copy.block_in_s_per_byte: typed as 1.572743e-09"));
    free(out);
    ss_test_rmtree(dir);
    /* one layer of one MASA network: its file, and only it */
    dir = copy_tree();
    out = NULL;
    edit(dir, "profiles/published/masa/agenet.json", "\"mean\": 11007", "\"mean\": 11008");
    CU_ASSERT_EQUAL(check_in(dir, &out), 1);
    CU_ASSERT_TRUE(ss_test_has(out, "models/masa/agenet.json differs"));
    CU_ASSERT_PTR_NULL(strstr(out, "gendernet"));
    free(out);
    ss_test_rmtree(dir);
    /* the model file alone */
    dir = copy_tree();
    out = NULL;
    edit(dir, "models/resnet50-split.json", "0.004021", "0.004022");
    CU_ASSERT_EQUAL(check_in(dir, &out), 1);
    CU_ASSERT_TRUE(ss_test_has(out, "models/resnet50-split.json differs"));
    free(out);
    ss_test_rmtree(dir);
}

static const cJSON *at(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static void test_numbers_reach_the_file(void)
{
    size_t len;
    ss_err err = {0};
    char *text = ss_read_file(SS_SRC_DIR "/models/resnet50-split.json", SS_INPUT_DOCUMENT, &len, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *m = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const cJSON *b3 = cJSON_GetArrayItem(at(m, "blocks"), 2);
    CU_ASSERT_STRING_EQUAL(at(b3, "name")->valuestring, "block3");
    /* Table 4.2: 4.021 ms, sd 0.253 ms, lognormal by moments */
    CU_ASSERT_STRING_EQUAL(at(at(b3, "service"), "dist")->valuestring, "lognormal");
    CU_ASSERT_DOUBLE_EQUAL(at(at(b3, "service"), "mean_s")->valuedouble, 0.004021, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(b3, "service"), "sd_s")->valuedouble, 0.000253, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(b3, "service_traced"), "mean_s")->valuedouble, 0.003914, 1e-15);
    /* block4_class = block4 + class_h in series: 2.276 + 0.287 ms, sqrt(0.161^2 + 0.055^2) = 0.170 ms */
    const cJSON *p = cJSON_GetArrayItem(at(at(m, "pipeline"), "processes"), 3);
    CU_ASSERT_DOUBLE_EQUAL(at(at(p, "service"), "mean_s")->valuedouble, 0.002563, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(p, "service"), "sd_s")->valuedouble, 0.000170, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(m, "pipeline"), "offline_floor_s")->valuedouble, 0.011703, 1e-15);
    /* every number put in cites its table */
    const cJSON *v = at(at(m, "calibrate"), "values");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_TRUE(ss_test_has(at(v, "blocks[2].service")->valuestring, "Table 4.2, SCRIPTED block3"));
    cJSON_Delete(m);
    /* MASA: a layer's time in us, the input layer apart, the totals its sums */
    text = ss_read_file(SS_SRC_DIR "/models/masa/agenet.json", SS_INPUT_DOCUMENT, &len, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    m = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const cJSON *conv1 = cJSON_GetArrayItem(at(m, "layers"), 0);
    CU_ASSERT_STRING_EQUAL(at(conv1, "name")->valuestring, "conv1");
    CU_ASSERT_DOUBLE_EQUAL(at(conv1, "exec_s")->valuedouble, 0.011007, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(conv1, "load_s")->valuedouble, 0.000745, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(m, "init"), "load_s")->valuedouble, 0.000462, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(m, "totals"), "exec_s")->valuedouble, 0.157265, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(at(m, "totals"), "exec_conv_part_s")->valuedouble, 0.142548, 1e-15);
    v = at(at(m, "calibrate"), "values");
    CU_ASSERT_TRUE(ss_test_has(at(v, "layers[0].exec_s")->valuestring,
                               "networks/AgeNet/description.yaml @ 1a59f977f36a8faef5d00bbb15ebba1bd59a3b70, id 1"));
    cJSON_Delete(m);
}

/* Summaries in calibrate's own format: the moments rule per family, deterministic
 * without sd, a law through published means, citations kept. */
static void test_summaries_calibrated(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    free(ss_test_write(
        dir, "t.json",
        "{\"servesim_profile\": 1, \"source\": \"a paper\", \"environment\": {\"machine\": \"m\", \"cpu_model\": "
        "\"c\", \"cores\": 1, \"memory_bytes\": 0, \"os\": \"o\", \"libraries\": {}, \"date\": \"2025\"},\n"
        "\"samples\": [\n"
        "{\"kind\": \"compute\", \"model\": \"m\", \"block\": \"a\", \"device\": \"g\", \"batch\": 1, \"threads\": 1, "
        "\"latency_ms\": {\"mean\": 2.0, \"sd\": 0.5, \"dist\": \"gamma\"}, \"source\": \"Table 1, a, batch 1\"},\n"
        "{\"kind\": \"compute\", \"model\": \"m\", \"block\": \"a\", \"device\": \"g\", \"batch\": 4, \"threads\": 1, "
        "\"latency_ms\": {\"mean\": 5.0, \"sd\": 0.5, \"dist\": \"gamma\"}, \"source\": \"Table 1, a, batch 4\"},\n"
        "{\"kind\": \"compute\", \"model\": \"m\", \"block\": \"b\", \"device\": \"g\", \"batch\": 1, \"threads\": 1, "
        "\"latency_ms\": {\"mean\": 1.0}, \"source\": \"Table 1, b\"},\n"
        "{\"kind\": \"compute\", \"model\": \"m\", \"block\": \"b\", \"device\": \"g\", \"batch\": 2, \"threads\": 1, "
        "\"latency_ms\": {\"mean\": 1.5, \"sd\": 0.1, \"n\": 30, \"dist\": \"normal\"}, \"source\": \"Table 1, b\"},\n"
        "{\"kind\": \"transport\", \"transport\": \"zmq-copy\", \"bytes\": 0, \"latency_ms\": {\"mean\": 0.069}, "
        "\"source\": \"Table 2, string\"},\n"
        "{\"kind\": \"transport\", \"transport\": \"zmq-copy\", \"bytes\": 602112, \"latency_ms\": {\"mean\": 1.054}, "
        "\"source\": \"Table 2, tensor\"}\n]}\n"));
    int rc = ss_test_sh(&out, "cd '%s' && '%s/servesim' calibrate t.json -o m.json --quiet && cat m.json", dir,
                        SS_BUILD_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    cJSON *m = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const cJSON *a = cJSON_GetArrayItem(at(m, "blocks"), 0), *b = cJSON_GetArrayItem(at(m, "blocks"), 1);
    /* gamma by moments: shape (2.0 / 0.5)^2 = 16 */
    CU_ASSERT_STRING_EQUAL(at(at(a, "service"), "dist")->valuestring, "gamma");
    CU_ASSERT_DOUBLE_EQUAL(at(at(a, "service"), "shape")->valuedouble, 16, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(at(at(a, "service"), "mean_s")->valuedouble, 0.002, 1e-15);
    /* exact through (1, 2 ms) and (4, 5 ms): 1 ms + 1 ms x batch */
    CU_ASSERT_DOUBLE_EQUAL(at(at(a, "batch_law"), "fixed_s")->valuedouble, 0.001, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(at(at(a, "batch_law"), "per_sample_s")->valuedouble, 0.001, 1e-12);
    /* no sd: deterministic at the mean */
    CU_ASSERT_STRING_EQUAL(at(at(b, "service"), "dist")->valuestring, "deterministic");
    CU_ASSERT_DOUBLE_EQUAL(at(at(b, "service"), "value_s")->valuedouble, 0.001, 1e-15);
    /* the hop through the two published means */
    const cJSON *t = at(at(m, "transports"), "zmq-copy");
    CU_ASSERT_DOUBLE_EQUAL(at(t, "delivery_fixed_s")->valuedouble, 0.000069, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(at(t, "delivery_s_per_byte")->valuedouble, (1.054e-3 - 0.069e-3) / 602112, 1e-18);
    const cJSON *from = at(at(at(m, "transport_fits"), "zmq-copy"), "from");
    CU_ASSERT_STRING_EQUAL(at(cJSON_GetArrayItem(from, 1), "source")->valuestring, "Table 2, tensor");
    cJSON_Delete(m);
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("published",
              {"summaries: moments per family, deterministic without sd, laws through means, cited",
               test_summaries_calibrated}, {"the shipped profiles are rebuilt byte for byte", test_committed_files_rebuilt},
              {"a transcription or a model file edited alone fails", test_edit_alone_fails},
              {"a table's numbers reach the model file, cited", test_numbers_reach_the_file})
