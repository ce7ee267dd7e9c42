/* test_docs.c: every command README.md and the docs/ pages show runs as shown
 * (tools/doc-test.py, in a copy of the tree with this build; the rules and
 * the skip markers are in docs/doc-test.md), and the runner itself reports
 * a failing command or output no longer printed by file:line, and refuses
 * a skip without a reason and an untagged block. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

static void test_doc_commands(void)
{
    char *out = NULL;
    int rc = ss_test_sh(&out, "python3 '%s/tools/doc-test.py' --build '%s'", SS_SRC_DIR, SS_BUILD_DIR);
    if (rc != 0) fprintf(stderr, "\n%s", out ? out : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
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
           (const char *const[]){"bad.md:5: servesim run nope.yaml: exit 2\n    nope.yaml: cannot read",
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

SS_TEST_SUITE("docs", {"the runner reports by file:line, refuses silent skips", test_runner_reports},
              {"every command in README.md and docs/*.md exits as shown", test_doc_commands})
