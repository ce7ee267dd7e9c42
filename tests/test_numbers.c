/* test_numbers.c: one number syntax for every input (issue 40, item 4;
 * core/util.h ss_strtod, ss_strtou64): decimal only, in YAML, --set, JSON
 * profiles, CSV transfers, traces and command-line flags.  Hexadecimal
 * numbers and floats, inf and nan, and signs on counts are refused where
 * a number is expected, each at its position, exit 2. */
#include "test.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static void strtod_decimal_only(void)
{
    static const struct {
        const char *s;
        double v;
        size_t used; /* characters converted; 0: none */
    } cases[] = {
        {"1.5", 1.5, 3},     {"-2", -2, 2},       {"+3e2", 300, 4},   {".5", 0.5, 2},    {"5.", 5, 2},
        {" 7", 7, 2},        {"1e", 1, 1},        {"1e+", 1, 1},      {"2E-1", 0.2, 4},  {"0x10", 0, 1},
        {"0x1p3", 0, 1},     {"inf", 0, 0},       {"nan", 0, 0},      {"infinity", 0, 0}, {"-", 0, 0},
        {".", 0, 0},         {"", 0, 0},          {"12abc", 12, 2},   {"1,5", 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *end = NULL;
        double v = ss_strtod(cases[i].s, &end);
        CU_ASSERT_EQUAL((size_t)(end - cases[i].s), cases[i].used);
        CU_ASSERT_DOUBLE_EQUAL(v, cases[i].v, 1e-12);
        if ((size_t)(end - cases[i].s) != cases[i].used)
            fprintf(stderr, "\n'%s': converted %zu characters, expected %zu\n", cases[i].s, (size_t)(end - cases[i].s),
                    cases[i].used);
    }
    /* A long decimal (past any small buffer) converts whole. */
    char big[300];
    memset(big, '1', 250);
    strcpy(big + 250, ".25e-240");
    char *end = NULL;
    double v = ss_strtod(big, &end);
    CU_ASSERT_EQUAL(*end, '\0');
    CU_ASSERT(v > 1.1e9 && v < 1.2e10);
}

static void strtou64_digits_only(void)
{
    char *end = NULL;
    CU_ASSERT_EQUAL(ss_strtou64("18446744073709551615", &end), 18446744073709551615ULL);
    CU_ASSERT_EQUAL(*end, '\0');
    errno = 0;
    ss_strtou64("18446744073709551616", &end);
    CU_ASSERT_EQUAL(errno, ERANGE);
    static const char *const none[] = {"-1", "+1", " 1", "x1", ""};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        ss_strtou64(none[i], &end);
        CU_ASSERT_PTR_EQUAL(end, none[i]);
    }
    CU_ASSERT_EQUAL(ss_strtou64("0x1", &end), 0); /* "0", then "x1" left */
}

/* Each input that carries numbers, given a hexadecimal one or a sign on a
 * count: exit 2 and the offending text quoted. */
static void refused_everywhere(void)
{
    char *dir = ss_test_tmpdir();
    int rc = ss_test_sh(NULL,
                        "cd '%s' && S='%s' && mkdir models && cp \"$S/scenarios/tour/load-balancers.yaml\" s.yaml && "
                        "cp \"$S/models/resnet50.json\" models/ && cp \"$S/topologies/three-hosts-one-tor.yaml\" t.yaml && "
                        "printf 'start_s,src,dst,bytes\\n0,0,1,0x100000\\n' > hex.csv && "
                        "printf 'start_s,src,dst,bytes\\n0,0,1,1000\\n' > ok.csv && "
                        "sed 's/rate_rps: 290/rate_rps: 0x122/' s.yaml > hex.yaml && "
                        "printf 'timestamp_s\\n0.5\\n0x1p1\\n' > trace.csv",
                        dir, SS_SRC_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    static const struct {
        const char *cmd, *quoted;
    } cases[] = {
        {"check hex.yaml", "0x122"},
        {"check s.yaml --set workloads.images.rate_rps=0x1p8", "0x1p8"},
        {"check s.yaml --set workloads.images.rate_rps=nan", "nan"},
        {"check s.yaml --set seed=-1", "-1"},
        {"check s.yaml --set seed=0x10", "0x10"},
        {"run s.yaml --seed 0x10 --quiet", "0x10"},
        {"check s.yaml --set \"workloads.images={name: images, kind: trace, target: resnet50, file: trace.csv}\"", "0x1p1"},
        {"flows t.yaml hex.csv", "0x100000"},
        {"flows t.yaml ok.csv --seed -1", "-1"},
        {"flows t.yaml ok.csv --goodput 0x1p-1", "0x1p-1"},
        {"partition t5-3b --gpus 0x8", "--gpus: expected whole numbers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) ss_test_cmd_refused(dir, cases[i].cmd, cases[i].quoted);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("numbers", {"ss_strtod reads decimal numbers only", strtod_decimal_only},
              {"ss_strtou64 reads plain digits only", strtou64_digits_only},
              {"hexadecimal, inf, nan and signed counts are refused in every input", refused_everywhere})
