/* test_outputs.c: no output destroys an input or another output, and none
 * is left half-made (issue 12, items 1, 4, 7 and 8): `run`, `sweep` and
 * `compare` refuse an output that is one of their inputs (also through a
 * hard link) or another of their outputs, and a directory given as an
 * output, before anything runs (exit 2, the input untouched); SIGTERM in
 * the middle of a run leaves no temporary file; a sweep's workers die with
 * a killed parent. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

static char *setup(void)
{
    char *dir = ss_test_tmpdir();
    ss_test_sh(NULL,
               "cd '%s' && cp '%s/scenarios/tour/load-balancers.yaml' s.yaml && mkdir -p models d && cp '%s/models/resnet50.json' models/ && "
               "printf 'name: sw\\nscenario: s.yaml\\nvariants: []\\nset: {duration_s: %%s, warmup_s: 1}\\naxes:\\n  - key: seed\\n    values: [1, 2]\\n' 2 > sw.yaml && "
               "printf 'name: sw\\nscenario: s.yaml\\nvariants: []\\nset: {duration_s: %%s, warmup_s: 1}\\naxes:\\n  - key: seed\\n    values: [1, 2]\\n' 100000 > long.yaml",
               dir, SS_SRC_DIR, SS_SRC_DIR);
    return dir;
}

/* Run a command in dir; expect exit 2, `msg` in its output and the file
 * `keep` unchanged (same checksum as before). */
static void refused(const char *dir, const char *cmd, const char *msg, const char *keep)
{
    char *before = NULL, *after = NULL, *out = NULL;
    ss_test_sh(&before, "cd '%s' && md5sum '%s'", dir, keep);
    int rc = ss_test_sh(&out, "cd '%s' && %s", dir, cmd);
    ss_test_sh(&after, "cd '%s' && md5sum '%s'", dir, keep);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(ss_test_has(out, msg));
    if (!ss_test_has(out, msg)) fprintf(stderr, "\n%s: expected '%s' in:\n%s\n", cmd, msg, out ? out : "");
    CU_ASSERT_STRING_EQUAL(before ? before : "", after ? after : "x");
    free(before);
    free(after);
    free(out);
}

static void outputs_refused(void)
{
    char *dir = setup();
    char cmd[1024];
    const char *B = SS_BUILD_DIR "/servesim";
    snprintf(cmd, sizeof cmd, "'%s' run s.yaml -o s.yaml", B);
    refused(dir, cmd, "s.yaml: the results CSV would overwrite the scenario 's.yaml'", "s.yaml");
    snprintf(cmd, sizeof cmd, "ln -f s.yaml link.yaml && '%s' run s.yaml -o link.yaml", B);
    refused(dir, cmd, "link.yaml: the results CSV would overwrite the scenario 's.yaml'", "s.yaml");
    snprintf(cmd, sizeof cmd, "'%s' run s.yaml -o r.csv --requests-csv models/resnet50.json", B);
    refused(dir, cmd, "the requests CSV would overwrite the model profile", "models/resnet50.json");
    snprintf(cmd, sizeof cmd, "'%s' run s.yaml -o r.csv --timeseries-csv r.summary.csv", B);
    refused(dir, cmd, "the time-series CSV and the summary CSV are one file", "s.yaml");
    snprintf(cmd, sizeof cmd, "'%s' run s.yaml -o d", B);
    refused(dir, cmd, "d: cannot write: it is a folder", "s.yaml");
    CU_ASSERT_NOT_EQUAL(ss_test_sh(NULL, "test -e '%s/d.summary.csv'", dir), 0);
    snprintf(cmd, sizeof cmd, "'%s' sweep sw.yaml -o sw.yaml", B);
    refused(dir, cmd, "the results CSV would overwrite the sweep file 'sw.yaml'", "sw.yaml");
    snprintf(cmd, sizeof cmd, "'%s' sweep sw.yaml -o s.yaml", B);
    refused(dir, cmd, "the results CSV would overwrite the base scenario", "s.yaml");
    ss_test_sh(NULL, "cd '%s' && '%s' run s.yaml -o r.csv --quiet --set duration_s=2", dir, B);
    snprintf(cmd, sizeof cmd, "'%s' compare r.csv --by variant --baseline round-robin --csv -o r.csv", B);
    refused(dir, cmd, "the comparison output would overwrite the results CSV 'r.csv'", "r.csv");
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void sigterm_leaves_no_temp(void)
{
    char *dir = setup();
    /* A run long enough to be caught in the middle, writing three outputs. */
    int rc = ss_test_sh(NULL,
                        "cd '%s' && ('%s/servesim' run s.yaml -o r.csv --requests-csv q.csv --timeseries-csv t.csv "
                        "--quiet --set duration_s=100000 --set replications=1 & p=$!; sleep 1; kill -TERM $p; wait $p; "
                        "test $? -eq 143)",
                        dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    char *out = NULL;
    ss_test_sh(&out, "cd '%s' && ls", dir);
    CU_ASSERT_PTR_NULL(strstr(out ? out : "", ".tmp."));
    CU_ASSERT_PTR_NULL(strstr(out ? out : "", "r.csv"));
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

static void workers_die_with_the_sweep(void)
{
    char *dir = setup();
    /* Two long units on two workers; kill -9 the parent; the workers must go. */
    int rc = ss_test_sh(NULL,
                        "cd '%s' && ('%s/servesim' sweep long.yaml -o o.csv -j 2 --quiet & "
                        "p=$!; sleep 1; n=$(pgrep -P $p | wc -l); kill -KILL $p; wait $p 2>/dev/null; sleep 1; "
                        "left=$(pgrep -f 'servesim swee[p] long.yaml' | wc -l); "
                        "echo workers $n left $left; test $n -ge 1 && test $left -eq 0)",
                        dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    ss_test_sh(NULL, "pkill -KILL -f 'servesim sweep long.yaml -o o.csv'; rm -rf '%s'", dir);
    free(dir);
}

static void unrelated_library_not_loaded(void)
{
    /* An unrelated library beside the scenario whose constructor aborts: neither
     * `plugins SCENARIO` nor `run` may load it (issue 12 item 9). */
    char *dir = setup();
    int rc = ss_test_sh(NULL,
                        "cd '%s' && printf '#include <stdlib.h>\n__attribute__((constructor)) static void boom(void) { abort(); }\n' "
                        "> boom.c && ${CC:-cc} -shared -fPIC -o boom.so boom.c",
                        dir);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' plugins s.yaml", dir, SS_BUILD_DIR), 0);
    CU_ASSERT(ss_test_has(out, "round-robin"));
    free(out);
    CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --quiet --set duration_s=2 --set warmup_s=1",
                               dir, SS_BUILD_DIR),
                    0);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* An output that is not a regular file (a FIFO, which would wait for a
 * reader; a device such as /dev/null, which a rename would replace) is refused before
 * anything runs: exit 2, the path named, nothing written, no folder made
 * for the other outputs left behind (issue 40). */
static void special_output_refused(void)
{
    char *dir = setup(), *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && mkfifo pipe && timeout 20 '%s' run s.yaml -o new/r.csv --requests-csv pipe --quiet; "
                        "echo rc=$?; test -p pipe && echo still-a-fifo; ls",
                        dir, SS_BIN);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(ss_test_has(out, "pipe: cannot write: it is a FIFO, not a regular file"));
    CU_ASSERT(ss_test_has(out, "rc=2\nstill-a-fifo\n"));
    CU_ASSERT(!strstr(out, "new")); /* the folder made for r.csv was removed with it */
    CU_ASSERT(!strstr(out, ".tmp."));
    free(out);
    out = NULL;
    /* A device node of its own (as root): a refusal that broke would replace it, not /dev/null. */
    if (ss_test_sh(NULL, "cd '%s' && mknod nulldev c 1 3 2>/dev/null", dir) == 0) {
        rc = ss_test_sh(&out, "cd '%s' && '%s' run s.yaml -o nulldev --quiet; echo rc=$?; test -c nulldev && echo device",
                        dir, SS_BIN);
        CU_ASSERT(ss_test_has(out, "nulldev: cannot write: it is a character device"));
        CU_ASSERT(ss_test_has(out, "rc=2\ndevice\n"));
        free(out);
    }
    ss_test_rmtree(dir);
}

/* The outputs of one run appear together or not at all: a requests CSV
 * that fails to be written (a file-size limit standing in for a full disk)
 * leaves no results CSV and no summary either, exit 1 (issue 40). */
static void outputs_all_or_none(void)
{
    char *dir = setup(), *out = NULL;
    ss_test_sh(&out,
               "cd '%s' && sh -c \"trap '' XFSZ; ulimit -f 200; exec '%s' run s.yaml -o r.csv --requests-csv req.csv "
               "--quiet --set duration_s=20\"; echo rc=$?; ls",
               dir, SS_BIN);
    CU_ASSERT(ss_test_has(out, "req.csv: cannot write: File too large"));
    CU_ASSERT(ss_test_has(out, "rc=1\n"));
    CU_ASSERT(!strstr(out, "r.csv\n") && !strstr(out, "summary") && !strstr(out, "req.csv\n") && !strstr(out, ".tmp."));
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("outputs", {"an unrelated library beside the scenario is never loaded", unrelated_library_not_loaded}, {"an output that is an input or another output is refused", outputs_refused},
              {"SIGTERM leaves no temporary file", sigterm_leaves_no_temp},
              {"a sweep's workers die with it", workers_die_with_the_sweep},
              {"a device or FIFO output is refused", special_output_refused},
              {"a run's outputs appear together or not at all", outputs_all_or_none})
