/* test_io_contract.c: every command under one input/output contract
 * (issue 40, items 1, 2 and 8; core/afile.h, core/util.h ss_open_input):
 *
 *  - an output path that is one of the command's inputs (by its own name
 *    or through a symbolic link), a folder, a FIFO or a device is refused:
 *    exit 2, the output path named, the input unchanged byte for byte, no
 *    temporary file and no new folder left behind;
 *  - an input that is a FIFO or a device is refused at once (no hang on a
 *    FIFO without a writer, no endless read of /dev/zero): exit 2, named.
 *
 * A table: each command with the files it reads, and each hostile output
 * or input tried on each, in a copy of the files it needs. */
#include "test.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* One command: how to run it with OUT as its output (a printf format with
 * one %s), and the inputs it reads (paths in the fixture folder). */
typedef struct io_cmd {
    const char *name;
    const char *with_out; /* the command line, %s for the output path */
    const char *inputs[3];
    const char *with_in;  /* the command line, %s for the first input */
} io_cmd;

static const io_cmd cmds[] = {
    {"run", "run s.yaml --quiet --set duration_s=2 --set warmup_s=1 -o %s", {"s.yaml", "models/resnet50.json"},
     "run %s --quiet"},
    {"run (requests CSV)", "run s.yaml --quiet --set duration_s=2 --set warmup_s=1 -o r2.csv --requests-csv %s",
     {"s.yaml", "models/resnet50.json"}, NULL},
    {"sweep", "sweep sw.yaml -j 1 --quiet -o %s", {"sw.yaml", "s.yaml"}, "sweep %s --quiet"},
    {"compare", "compare r.csv --by variant --baseline round-robin --csv -o %s", {"r.csv"},
     "compare %s --by variant --baseline round-robin"},
    {"plan", "plan scenarios/blockflow/plan-vram.yaml --quiet -o %s",
     {"scenarios/blockflow/plan-vram.yaml", "models/resnet50-split.json"}, "plan %s --quiet"},
    {"partition", "partition models/t5-3b-layers.json --quiet -o %s", {"models/t5-3b-layers.json"},
     "partition %s --quiet"},
    {"flows", "flows t.yaml x.csv -o %s", {"t.yaml", "x.csv"}, "flows %s x.csv"},
    {"flows (links CSV)", "flows t.yaml x.csv -o f.csv --links-csv %s", {"t.yaml", "x.csv"}, "flows t.yaml %s"},
    {"calibrate", "calibrate prof.json --quiet -o %s", {"prof.json"}, "calibrate %s --quiet -o m.json"},
    {"validate", "validate val/v.yaml prof-e2e.json --quiet --set replications=1 -o %s",
     {"val/v.yaml", "prof-e2e.json", "val/models/example-cpu.json"}, "validate %s prof-e2e.json --quiet"},
    {"optimize", "optimize tiny.yaml --algo wfd -o %s", {"tiny.yaml"}, "optimize %s --algo wfd"},
    {"optimize (trace)", "optimize tiny.yaml --algo wfd --trace %s", {"tiny.yaml"}, NULL},
    {"validate (LLM run)", "validate llm/run --llm-roofline llm/gpu.json --llm-model llm/model.json --quiet -o %s",
     {"llm/model.json", "llm/run/requests.jsonl", "llm/run/meta.json"},
     "validate llm/run --llm-roofline llm/gpu.json --llm-model %s --quiet"},
    {"plot", "plot cdf rq.csv -o %s", {"rq.csv"}, "plot cdf %s -o p.png"},
    {"plot (script)", "plot axis r.csv --x replication --script %s", {"r.csv"}, "plot axis %s --x replication -o p.png"},
};
enum { NCMDS = sizeof cmds / sizeof *cmds };

/* The files the commands read, in a fresh folder. */
static char *fixture(void)
{
    char *dir = ss_test_tmpdir();
    int rc = ss_test_sh(
        NULL,
        "cd '%s' && mkdir -p models scenarios/blockflow val/models && S='%s' && "
        "cp \"$S/scenarios/tour/load-balancers.yaml\" s.yaml && cp \"$S\"/models/*.json models/ && "
        "cp \"$S/scenarios/blockflow/plan-vram.yaml\" scenarios/blockflow/ && "
        "cp \"$S/topologies/three-hosts-one-tor.yaml\" t.yaml && printf 'start_s,src,dst,bytes\\n0,0,1,1000000\\n' > x.csv && "
        "cp \"$S/docs/profile-example.json\" prof.json && cp \"$S/docs/validation-example.json\" prof-e2e.json && "
        "cp \"$S/docs/validation-example.yaml\" val/v.yaml && "
        "cp \"$S/scenarios/ensemble/tiny-benchmark.yaml\" tiny.yaml && cp -r \"$S/models/ensemble\" models/ && "
        "mkdir -p llm/run && cp \"$S/models/llm/rtx4090.json\" llm/gpu.json && "
        "printf '{\"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4, "
        "\"intermediate_size\": 128, \"vocab_size\": 100}\\n' > llm/model.json && "
        "printf '{\"input_toks\": 10, \"output_toks\": 3, \"queued_ts\": 1.0, \"first_token_ts\": 1.1, "
        "\"last_token_ts\": 1.2}\\n' > llm/run/requests.jsonl && "
        "printf '{\"engine_kwargs\": {\"max_num_seqs\": 8, \"max_num_batched_tokens\": 64}, "
        "\"kv_cache\": {\"block_size\": 16, \"num_gpu_blocks\": 16}}\\n' > llm/run/meta.json && "
        "printf 'name: sw\\nscenario: s.yaml\\nvariants: []\\nset: {duration_s: 2, warmup_s: 1}\\n"
        "axes:\\n  - key: seed\\n    values: [1]\\n' > sw.yaml && "
        "'%s' calibrate prof.json --quiet -o val/models/example-cpu.json && "
        "'%s' run s.yaml --quiet --set duration_s=2 --set warmup_s=1 --replications 2 -o r.csv --requests-csv rq.csv && rm -f r.summary.csv && "
        "mkfifo fifo && mkdir folder && "
        /* Device nodes of its own (as root; else none): a refusal that broke would replace
         * these copies, never the system's /dev/null and /dev/zero. */
        "{ mknod nulldev c 1 3 2>/dev/null && mknod zerodev c 1 5 2>/dev/null || true; }",
        dir, SS_SRC_DIR, SS_BIN, SS_BIN);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return dir;
}

/* Run `cmdline` in dir; expect exit 2 with `named` in its messages, every
 * input of c unchanged, no temporary file and no folder `new` left. */
static void refused(const char *dir, const io_cmd *c, const char *cmdline, const char *named)
{
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "cd '%s' && for f in %s %s %s; do md5sum \"$f\"; done > ../sums.$$ && "
                        "timeout 20 '%s' %s; echo \"rc=$?\"; md5sum -c --quiet ../sums.$$ && echo inputs-unchanged; "
                        "rm -f ../sums.$$; find . -name '*.tmp.*' | head -1; test -e new && echo new-left; true",
                        dir, c->inputs[0], c->inputs[1] ? c->inputs[1] : "", c->inputs[2] ? c->inputs[2] : "",
                        SS_BIN, cmdline);
    CU_ASSERT_EQUAL(rc, 0);
    int ok = ss_test_has(out, "rc=2\n") && ss_test_has(out, named) && ss_test_has(out, "inputs-unchanged") &&
             !strstr(out, ".tmp.") && !strstr(out, "new-left");
    CU_ASSERT(ok);
    if (!ok) fprintf(stderr, "\n%s: `%s`: expected exit 2 naming '%s', inputs unchanged, nothing left:\n%s", c->name,
                     cmdline, named, out ? out : "");
    free(out);
}

static char *line_with(const char *fmt, const char *arg)
{
    size_t n = strlen(fmt) + strlen(arg) + 1;
    char *s = malloc(n);
    snprintf(s, n, fmt, arg);
    return s;
}

/* The output is one of the command's inputs, by its name and through a link. */
static void output_is_an_input(void)
{
    char *dir = fixture();
    for (size_t i = 0; i < NCMDS; i++)
        for (size_t k = 0; k < 3 && cmds[i].inputs[k]; k++) {
            char *l = line_with(cmds[i].with_out, cmds[i].inputs[k]);
            refused(dir, &cmds[i], l, cmds[i].inputs[k]);
            free(l);
            CU_ASSERT_EQUAL(ss_test_sh(NULL, "cd '%s' && ln -sf \"$(realpath '%s')\" link", dir, cmds[i].inputs[k]), 0);
            l = line_with(cmds[i].with_out, "link");
            refused(dir, &cmds[i], l, "link");
            free(l);
        }
    ss_test_rmtree(dir);
}

/* The output is a folder, a FIFO or a device; or it is new, in a new
 * folder, beside another output that is refused (the folder goes too). */
static void output_not_a_file(void)
{
    char *dir = fixture();
    static const char *const bad[] = {"folder", "fifo", "nulldev", "zerodev"};
    int devices = ss_test_sh(NULL, "test -c '%s/nulldev' && test -c '%s/zerodev'", dir, dir) == 0;
    if (!devices) fprintf(stderr, "\n  (not root: no device nodes of its own, the device outputs are not tried)\n");
    for (size_t i = 0; i < NCMDS; i++)
        for (size_t b = 0; b < (devices ? 4u : 2u); b++) {
            char *l = line_with(cmds[i].with_out, bad[b]);
            refused(dir, &cmds[i], l, bad[b]);
            free(l);
        }
    refused(dir, &cmds[0], "run s.yaml --quiet -o new/deep/r.csv --requests-csv fifo", "fifo");
    refused(dir, &cmds[0], "run s.yaml --quiet -o new/r.csv --timeseries-csv s.yaml", "s.yaml");
    ss_test_rmtree(dir);
}

/* An input that is a FIFO (no writer: reading would wait for ever) or a
 * device (/dev/zero: reading would never end). */
static void input_not_a_file(void)
{
    char *dir = fixture();
    static const char *const bad[] = {"fifo", "/dev/zero", "/dev/urandom", "folder"};
    for (size_t i = 0; i < NCMDS; i++)
        for (size_t b = 0; cmds[i].with_in && b < sizeof bad / sizeof *bad; b++) {
            char *l = line_with(cmds[i].with_in, bad[b]);
            refused(dir, &cmds[i], l, bad[b]);
            free(l);
        }
    ss_test_rmtree(dir);
}

/* A number or a name in a file a command reads, replaced: the first
 * match of `pattern` (POSIX ERE) in the command's first input becomes
 * `repl` with V replaced by the variant, in a copy named `copy` given to
 * with_in; every variant is refused, at the copy's file:line:col. */
typedef struct content_case {
    size_t cmd;          /* index in cmds[] (with_in set) */
    const char *copy;    /* the altered copy */
    const char *pattern, *repl;
    const char *variants[8];
} content_case;

static const content_case contents[] = {
    /* run: a rate (> 0, requests/s), a seed (a count), a name */
    {0, "bad.yaml", "rate_rps: [0-9.]+", "rate_rps: V", {"0x1F", "1e300", "1e-300", "nan", ".inf", "-0", "1e9999", NULL}},
    {0, "bad.yaml", "\nseed: [0-9]+", "\nseed: V", {"2.5", "-1", "0x10", "1e30", "18446744073709551616", NULL}},
    {0, "bad.yaml", "name: images", "name: V", {"''", "a/b", "\"a\\0b\"", "\"\\x01\"", NULL}},
    /* sweep: an axis value that is a seed */
    {2, "bad.yaml", "values: \\[1\\]", "values: [V]", {"2.5", "-1", "0x1F", "1e300", NULL}},
    /* plan: a count of tasks */
    {4, "bad.yaml", "\ntasks: [0-9]+", "\ntasks: V", {"2.5", "-3", "0x64", "1e300", "nan", NULL}},
    /* partition: a layer's time (>= 0, s) */
    {5, "bad.json", "\"exec_s\": 0.001195695669", "\"exec_s\": V", {"1e300", "-1", "0x1F", "\"1\"", NULL}},
    /* flows: a link's bandwidth (> 0, Gbit/s) and a transfer's bytes */
    {6, "bad.yaml", "bandwidth_gbps: 100", "bandwidth_gbps: V", {"1e300", "1e-300", "0x64", "0", "nan", NULL}},
    {7, "bad.csv", "\n0,0,1,1000000", "\n0,0,1,V", {"1e300", "0x10", "nan", "-5", "0.5", NULL}},
    /* calibrate: a measured latency (s) */
    {8, "bad.json", "0.0212,", "V,", {"1e300", "0x1F", "nan", "-0.02", NULL}},
    /* optimize: a count of images */
    {10, "bad.yaml", "\n  images: [0-9]+", "\n  images: V", {"2.5", "0x10", "1e300", "-1", NULL}},
};

/* dir/from with the first match of pattern replaced, written to dir/to;
 * 0, or -1 if nothing matched. */
static int altered_copy(const char *dir, const char *from, const char *to, const char *pattern, const char *repl,
                        const char *variant)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, from);
    size_t len = 0;
    ss_err err = {0};
    char *text = ss_read_file(path, SS_INPUT_DOCUMENT, &len, &err);
    if (!text) return -1;
    regex_t re;
    regmatch_t m;
    int found = regcomp(&re, pattern, REG_EXTENDED) == 0 && regexec(&re, text, 1, &m, 0) == 0;
    regfree(&re);
    if (found) {
        snprintf(path, sizeof path, "%s/%s", dir, to);
        FILE *f = fopen(path, "w");
        fwrite(text, 1, (size_t)m.rm_so, f);
        for (const char *r = repl; *r; r++)
            if (*r == 'V') fputs(variant, f);
            else fputc(*r, f);
        fwrite(text + m.rm_eo, 1, len - (size_t)m.rm_eo, f);
        fclose(f);
    }
    free(text);
    return found ? 0 : -1;
}

/* Each variant of each case: exit 2, the copy named with a position, the
 * inputs unchanged, nothing left. */
static void content_refused(void)
{
    char *dir = fixture();
    for (size_t i = 0; i < sizeof contents / sizeof *contents; i++) {
        const content_case *k = &contents[i];
        const io_cmd *c = &cmds[k->cmd];
        for (size_t v = 0; k->variants[v]; v++) {
            const char *from = k->cmd == 7 ? c->inputs[1] : c->inputs[0]; /* flows' CSV comes second */
            int rc = altered_copy(dir, from, k->copy, k->pattern, k->repl, k->variants[v]);
            CU_ASSERT_EQUAL(rc, 0);
            if (rc) fprintf(stderr, "\n%s: '%s' matched nothing in %s\n", c->name, k->pattern, from);
            char named[64];
            snprintf(named, sizeof named, "%s:", k->copy);
            char *l = line_with(c->with_in, k->copy);
            refused(dir, c, l, named);
            free(l);
        }
    }
    ss_test_rmtree(dir);
}

/* A rerun of a sweep without --resume would replace the results a resume
 * would have kept: refused, the file untouched, unless --force. */
static void sweep_results_kept(void)
{
    char *dir = fixture(), *out = NULL;
    ss_test_sh(&out,
               "cd '%s' && '%s' sweep sw.yaml -j 1 --quiet -o out.csv && md5sum out.csv > ../m.$$ && "
               "'%s' sweep sw.yaml -j 1 --quiet -o out.csv; echo rc=$?; md5sum -c --quiet ../m.$$ && echo kept; "
               "'%s' sweep sw.yaml -j 1 --quiet -o out.csv --force; echo force-rc=$?; "
               "'%s' sweep sw.yaml -j 1 --quiet -o out.csv --resume; echo resume-rc=$?; rm -f ../m.$$",
               dir, SS_BIN, SS_BIN, SS_BIN, SS_BIN);
    CU_ASSERT(ss_test_has(out, "out.csv: holds a sweep's results"));
    CU_ASSERT(ss_test_has(out, "rc=2\nkept\nforce-rc=0\nresume-rc=0\n"));
    free(out);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("io-contract", {"an output that is an input is refused, by name and through a link", output_is_an_input},
              {"an output that is a folder, a FIFO or a device is refused", output_not_a_file},
              {"an input that is a FIFO, a device or a folder is refused", input_not_a_file},
              {"a sweep's results are not replaced without --resume or --force", sweep_results_kept},
              {"hex, inf, nan, out-of-range and fractional numbers and bad names in every kind of input", content_refused})
