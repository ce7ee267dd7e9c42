/* test_timeline.c: the timeline (serve/timeline.c) is valid trace-event
 * JSON - an object with a traceEvents array, every event with a phase, a
 * process and a time, async begins and ends paired in order - carries the
 * request, queue and service slices and the life-cycle marks of a run with
 * a failure, samples requests as asked, stays within max_events, and
 * changes nothing in the run's results. */
#include "test.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "world/world.h"

static const char *SCEN = "seed: 5\nrequests: 300\nhosts:\n  - name: h\n    devices: [{name: g0, kind: gpu}, {name: g1, kind: gpu}]\n"
                          "models:\n  - {name: m, service: {dist: exponential, mean_s: 1.0}}\n"
                          "  - {name: p, service: {dist: exponential, mean_s: 1.0}}\n"
                          "deployment:\n  - {model: m, device: g0, queue: shared}\n  - {model: m, device: g1, queue: shared}\n"
                          "  - {model: p, device: g1, discipline: ps}\n"
                          "workloads:\n  - {name: w, kind: poisson, target: m, rate_rps: 1.0}\n"
                          "  - {name: v, kind: poisson, target: p, rate_rps: 0.5}\n"
                          "events:\n  - {at_s: 50, action: fail, instance: m@g0, requests: requeue}\n"
                          "  - {at_s: 60, action: add, model: m, device: g0}\n";

/* Run SCEN with a timeline; returns the JSON text (and the mean latency). */
static char *timeline(const ss_timeline_opts *o, double *lat)
{
    char *dir = ss_test_tmpdir();
    char *path = ss_test_write(dir, "s.yaml", SCEN);
    ss_scenario sc;
    ss_err err = {0};
    CU_ASSERT_EQUAL_FATAL(ss_scenario_load(&sc, path, NULL, NULL, 0, &err), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = ss_xmemstream(&text, &len);
    ss_world *w = ss_world_build(&sc, 0, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    if (o) {
        ss_timeline_begin(fp);
        ss_world_timeline(w, fp, o, 1);
    }
    ss_world_run(w);
    CU_ASSERT_PTR_NULL(ss_world_broken(w));
    ss_run_result r;
    ss_world_result(w, &r);
    *lat = r.tasks[0].latency_mean_s;
    ss_run_result_free(&r);
    ss_world_free(w);
    if (o) ss_timeline_end(fp);
    fclose(fp);
    ss_scenario_free(&sc);
    free(path);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
    return text;
}

/* Check the format; count events, and the named ones. */
static int valid(const char *text, size_t *nevents, const char *const *names, size_t *found, uint64_t every)
{
    cJSON *root = cJSON_Parse(text);
    if (!root) return 0;
    cJSON *ev = cJSON_GetObjectItem(root, "traceEvents");
    int ok = cJSON_IsArray(ev);
    *nevents = 0;
    /* Open async slices: key "pid/cat/id/name" -> begin time. */
    char **open = NULL;
    double *open_ts = NULL;
    size_t nopen = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        (*nevents)++;
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph"));
        cJSON *pid = cJSON_GetObjectItem(e, "pid"), *ts = cJSON_GetObjectItem(e, "ts");
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
        if (!ph || !cJSON_IsNumber(pid) || !name) {
            ok = 0;
            continue;
        }
        for (size_t k = 0; names[k]; k++) found[k] += strncmp(name, names[k], strlen(names[k])) == 0;
        if (strcmp(ph, "M") == 0) continue;
        if (!cJSON_IsNumber(ts) || ts->valuedouble < 0) ok = 0;
        if (strcmp(ph, "i") == 0) continue;
        const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat"));
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(e, "id"));
        if (!cat || !id || (strcmp(ph, "b") && strcmp(ph, "e"))) {
            ok = 0;
            continue;
        }
        const char *dot = strchr(id, '.');
        if (!dot || strtoull(dot + 1, NULL, 10) % every) ok = 0; /* only sampled requests */
        char *key = ss_xasprintf("%d/%s/%s/%s", pid->valueint, cat, id, name);
        if (ph[0] == 'b') {
            open = realloc(open, (nopen + 1) * sizeof *open);
            open_ts = realloc(open_ts, (nopen + 1) * sizeof *open_ts);
            open[nopen] = key;
            open_ts[nopen++] = ts->valuedouble;
        } else {
            size_t k = nopen;
            while (k > 0 && strcmp(open[k - 1], key)) k--;
            if (k == 0 || ts->valuedouble < open_ts[k - 1]) ok = 0;
            else {
                free(open[k - 1]);
                open[k - 1] = open[--nopen];
                open_ts[k - 1] = open_ts[nopen];
            }
            free(key);
        }
    }
    if (nopen) ok = 0;
    for (size_t k = 0; k < nopen; k++) free(open[k]);
    free(open);
    free(open_ts);
    cJSON_Delete(root);
    return ok;
}

static void valid_and_complete(void)
{
    double lat0, lat1;
    free(timeline(NULL, &lat0));
    ss_timeline_opts o = {.from_s = 0, .to_s = 1e9, .every = 1, .max_events = 1000000};
    char *text = timeline(&o, &lat1);
    CU_ASSERT_EQUAL(lat0, lat1); /* the timeline changes nothing */
    static const char *const names[] = {"request", "queue m", "service m", "failed m #0", "up m #1", "process_name",
                                        "service p", NULL};
    size_t found[7] = {0}, n = 0;
    CU_ASSERT_TRUE(valid(text, &n, names, found, 1));
    CU_ASSERT_EQUAL(found[0], 2 * 300); /* every request: one begin and one end */
    CU_ASSERT(found[1] > 0);
    CU_ASSERT(found[2] > 0);
    CU_ASSERT_EQUAL(found[3], 1);
    CU_ASSERT_EQUAL(found[4], 1);
    CU_ASSERT_EQUAL(found[5], 1 + 2 + 1); /* requests, two devices, the closing one */
    CU_ASSERT(found[6] > 0);                 /* ps services overlap: async slices */
    free(text);
}

static void sampled_and_bounded(void)
{
    double lat;
    ss_timeline_opts o = {.from_s = 0, .to_s = 100, .every = 10, .max_events = 1000000};
    char *text = timeline(&o, &lat);
    static const char *const names[] = {"request", NULL};
    size_t found[1] = {0}, n = 0;
    CU_ASSERT_TRUE(valid(text, &n, names, found, 10));
    CU_ASSERT(found[0] > 0 && found[0] < 2 * 30); /* ids 0, 10, 20... created before 100 s */
    free(text);
    o = (ss_timeline_opts){.from_s = 0, .to_s = 1e9, .every = 1, .max_events = 50};
    text = timeline(&o, &lat);
    CU_ASSERT_TRUE(valid(text, &n, names, found, 1));
    CU_ASSERT(n <= 50 + 4 + 1); /* 50 slices or marks, metadata, the note */
    CU_ASSERT(ss_test_has(text, "events left out (max_events)"));
    free(text);
}

static void from_the_command_line(void)
{
    char *dir = ss_test_tmpdir();
    free(ss_test_write(dir, "s.yaml", SCEN));
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --quiet --timeline t.json "
                                     "--timeline-window 0:100 --timeline-sample 2 && cat t.json",
                               dir, SS_BUILD_DIR),
                    0);
    static const char *const names[] = {"request", NULL};
    size_t found[1] = {0}, n = 0;
    CU_ASSERT_TRUE(valid(out ? out : "", &n, names, found, 2));
    CU_ASSERT(found[0] > 0);
    free(out);
    /* a bad window: exit 2, nothing written */
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && rm -f r.csv t.json && '%s/servesim' run s.yaml -o r.csv --timeline t.json "
                                     "--timeline-window 10:5",
                               dir, SS_BUILD_DIR),
                    2);
    CU_ASSERT(ss_test_has(out, "--timeline-window expects FROM:TO seconds with 0 <= FROM <= TO, got '10:5'"));
    free(out);
    CU_ASSERT_NOT_EQUAL(ss_test_sh(NULL, "test -e '%s/t.json' || test -e '%s/r.csv'", dir, dir), 0);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* A block pipeline's requests carry their hops (client -> blocks -> client),
 * each a slice from the send to the delivery, paired and in order. */
static void pipeline_hops(void)
{
    char *dir = ss_test_tmpdir(), *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && '%s' run '%s/scenarios/blockflow/single-gv100.yaml' --variant tensormq --replication 0 "
                        "--set duration_s=3 -o r.csv --timeline t.json --timeline-window 0:2 --quiet && cat t.json",
                        dir, SS_BIN, SS_SRC_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    static const char *const names[] = {"hop -> block1", "hop -> block4_class", "hop -> client", "request", NULL};
    size_t found[4] = {0}, n = 0;
    CU_ASSERT(valid(out, &n, names, found, 1));
    for (int k = 0; k < 4; k++) CU_ASSERT(found[k] > 0 && found[k] == found[3]); /* every request, every hop */
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("timeline", {"valid trace events, complete, no effect on results", valid_and_complete},
              {"sampled by id and window, bounded by max_events", sampled_and_bounded},
              {"--timeline from the command line, and a bad window refused", from_the_command_line},
              {"a pipeline's hops are slices of its requests", pipeline_hops})
