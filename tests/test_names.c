/* test_names.c: what a name may be (issue 40, item 4; core/util.h
 * ss_name_problem, core/cfg.h ss_cfg_name): non-empty, at most 256 bytes,
 * UTF-8 without control characters, no '/'; and no value anywhere holds a
 * NUL byte.  Each refused at its position, exit 2. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static void name_rules(void)
{
    static const char *const good[] = {"gpu0", "h3", "résumé", "GPT-2 XL", "a.b_c:d", "模型"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) CU_ASSERT_PTR_NULL(ss_name_problem(good[i]));
    static const char *const bad[] = {"", "a/b", "../x", "tab\there", "bell\a", "\xff", "\xc0\xaf", "\xed\xa0\x80",
                                      "\xe2\x82", "del\x7f", "\xc2\x85"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_PTR_NOT_NULL(ss_name_problem(bad[i]));
        if (!ss_name_problem(bad[i])) fprintf(stderr, "\nname %zu accepted\n", i);
    }
    char *long_name = malloc(258);
    memset(long_name, 'n', 257);
    long_name[257] = '\0';
    CU_ASSERT_PTR_NOT_NULL(ss_name_problem(long_name));
    long_name[256] = '\0';
    CU_ASSERT_PTR_NULL(ss_name_problem(long_name));
    free(long_name);
}

static void refused_in_scenarios(void)
{
    char *dir = ss_test_tmpdir();
    int rc = ss_test_sh(NULL,
                        "cd '%s' && S='%s' && mkdir models && cp \"$S/scenarios/tour/load-balancers.yaml\" s.yaml && "
                        "cp \"$S/models/resnet50.json\" models/ && mkdir nul && "
                        "sed '0,/\"resnet50\"/s//\"res\\\\u0000net50\"/' models/resnet50.json > nul/resnet50.json && "
                        "python3 -c \"import re; t = open('s.yaml').read(); "
                        "open('big.yaml', 'w').write(re.sub('(?m)^name: .*$', 'name: ' + 'n' * 10000000, t))\"",
                        dir, SS_SRC_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    static const struct {
        const char *cmd, *said;
    } cases[] = {
        {"check s.yaml --set hosts.0.name=a/b", "1:14: name: expected a name, got one with '/'"},
        {"check s.yaml --set 'hosts.0.devices.0.name=\"\"'", "name: expected a name, got an empty one"},
        {"check s.yaml --set 'name=\"x\\0y\"'", "a NUL byte inside a value"},
        {"check s.yaml --set name=../../etc", "name: expected a name, got one with '/'"},
        /* cJSON would end the name at the NUL and read "res" */
        {"check s.yaml --set 'models.0={name: resnet50, profile: nul/resnet50.json}'", "resnet50.json:2:14: a NUL character (\\u0000) in a string"},
        {"check big.yaml", "name: expected a name, got one longer than 256 bytes"},
        {"check s.yaml --set \"workloads.0.name=$(printf 'w\\377')\"", "invalid leading UTF-8 octet"}, /* libyaml's */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) ss_test_cmd_refused(dir, cases[i].cmd, cases[i].said);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("names", {"a name: non-empty, short, UTF-8, printable, no '/'", name_rules},
              {"a bad name or a NUL byte is refused at its position", refused_in_scenarios})
