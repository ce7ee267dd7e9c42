/* test_docs.c: every command README.md and the docs/ pages show runs as shown
 * (tools/doc-test.py, in a copy of the tree with this build; the rules and
 * the skip markers are in docs/doc-test.md), and the docs have not drifted
 * from the tree; the runner itself reports a failing command or output no
 * longer printed by file:line, refuses a skip without a reason and an
 * untagged block, and each drift check fails on a copy of the tree broken
 * its way. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Not captured: the runner names each command as it starts it (minutes of
 * them), then the failures, on the test's stderr. */
static void test_doc_commands(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "python3 '%s/tools/doc-test.py' --build '%s' >&2", SS_SRC_DIR, SS_BUILD_DIR);
    fflush(NULL);
    int st = system(cmd);
    CU_ASSERT_EQUAL(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
}

/* tools/doc-test.py ARGS run in dir: it exits `want_rc` and says each of
 * the NULL-terminated messages. */
static void runner(const char *dir, const char *args, int want_rc, const char *const *says)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "cd '%s' && python3 '%s/tools/doc-test.py' --build '%s' %s", dir, SS_SRC_DIR,
                        SS_BUILD_DIR, args);
    CU_ASSERT_EQUAL(rc, want_rc);
    for (; *says; says++) CU_ASSERT_TRUE(ss_test_has(out, *says));
    free(out);
}

static void test_runner_reports(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    free(ss_test_write(dir, "bad.md",
                       "# t\n\n```sh\nservesim check scenarios/default.yaml\nservesim run nope.yaml\n"
                       "servesim run nope.yaml  # doc-test: expect-exit 2\nfalse  # doc-test: skip (shows a failure)\n"
                       "```\n"));
    free(ss_test_write(dir, "noreason.md", "<!-- doc-test: skip -->\n```sh\ntrue\n```\n"));
    free(ss_test_write(dir, "untagged.md", "text\n\n```\nservesim run x.yaml\n```\n"));
    free(ss_test_write(dir, "output.md", "```console\n$ servesim --version\nservesim 0.0.0\n```\n"));
    runner(dir, "bad.md", 1,
           (const char *const[]){"doc-test: [1/3] ", "bad.md:4: servesim check scenarios/default.yaml\n",
                                 "doc-test: [3/3] ", "bad.md:6: servesim run nope.yaml\n",
                                 "bad.md:5: servesim run nope.yaml: exit 2\n    nope.yaml: cannot read",
                                 "bad.md:7: skipped (shows a failure): false",
                                 "3 commands run, 2 passed, 1 failed, 1 skipped", NULL});
    runner(dir, "--list noreason.md", 2,
           (const char *const[]){"noreason.md:1: doc-test: skip needs a reason in parentheses", NULL});
    runner(dir, "--list untagged.md", 2, (const char *const[]){"untagged.md:3: code block without a language", NULL});
    runner(dir, "output.md", 1,
           (const char *const[]){"output.md:2: servesim --version: its output has no line (in the order shown)\n"
                                 "    servesim 0.0.0",
                                 NULL});
    ss_test_rmtree(dir);
}

/* `doc-test.py --drift` on a copy of the docs, the plugins and the plugin
 * header, made by `setup` (shell, run in the copy): it exits `want_rc` and
 * says `says`. */
static void drift(const char *dir, const char *setup, int want_rc, const char *says)
{
    char *out = NULL;
    int rc = ss_test_sh(&out,
                        "rm -rf '%s/b' && cp -R '%s/t' '%s/b' && cd '%s/b' && { %s; } && "
                        "python3 '%s/tools/doc-test.py' --drift --root '%s/b' --build '%s'",
                        dir, dir, dir, dir, setup, SS_SRC_DIR, dir, SS_BUILD_DIR);
    CU_ASSERT_EQUAL(rc, want_rc);
    CU_ASSERT_TRUE(ss_test_has(out, says));
    free(out);
}

static void test_drift_checks(void)
{
    char *dir = ss_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    int rc = ss_test_sh(NULL,
                        "mkdir -p '%s/t/include/servesim' '%s/t/results' && cd '%s' && "
                        "cp -R README.md docs policies '%s/t/' && cp include/servesim/policy.h '%s/t/include/servesim/' && "
                        "cp -R results/reference '%s/t/results/'", /* the pictures the docs show */
                        dir, dir, SS_SRC_DIR, dir, dir, dir);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    drift(dir, "true", 0, "drift checks: 0 found");
    drift(dir, "printf '# Orphan\\n' > docs/notes/orphan.md", 1,
          "docs/notes/orphan.md: not linked from docs/README.md");
    drift(dir, "echo '[gone](gone.md)' >> docs/tutorial.md", 1, "link to 'gone.md', which is not there");
    drift(dir, "echo 'the notes: ../shared/seeds/roma.md' >> docs/roma.md", 1,
          "'../shared': the docs must not point outside the repository");
    drift(dir, "cp policies/fifo.c policies/new-lb.c", 1,
          "docs/plugins.md: the policy table lacks 'new-lb' (policies/new-lb.c)");
    drift(dir, "rm policies/gillis.c", 1, "the policy table names 'gillis', which policies/ does not ship");
    drift(dir, "sed -i 's/^| `gpu-rr` | device_scheduler |/| `gpu-rr` | scheduler |/' docs/plugins.md", 1,
          "'gpu-rr' is a device_scheduler (servesim plugins), the table says scheduler");
    drift(dir, "sed -i 's/SS_KIND_SCHEDULER = 1,/SS_KIND_SCHEDULER = 1, SS_KIND_ROUTER = 99,/' include/servesim/policy.h",
          1, "SS_KIND_ROUTER (include/servesim/policy.h) is not described");
    drift(dir, "sed -i 's/^#define SS_POLICY_ABI [0-9]*u/#define SS_POLICY_ABI 99u/' include/servesim/policy.h", 1,
          "its 'ABI history' table runs 1..");
    drift(dir, "sed -i 's/^#define SS_POLICY_ABI [0-9]*u/#define SS_POLICY_ABI 99u/' include/servesim/policy.h", 1,
          "include/servesim/policy.h says SS_POLICY_ABI 99 (one row per ABI, 1 to 99)");
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("docs", {"the runner reports by file:line, refuses silent skips", test_runner_reports},
              {"each drift check fails on a copy of the tree broken its way", test_drift_checks},
              {"every command in README.md and docs/**/*.md exits as shown, no drift", test_doc_commands})
