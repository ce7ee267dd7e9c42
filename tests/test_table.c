/* test_table.c: the printed table (issue 12 item 13): an edge scenario
 * shows its workers' utilisation (not 0.0%), columns stay aligned when a
 * half-width reaches 100, and variants with their own replication counts
 * are not summarised by the first one's. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* Display width of a line (UTF-8 continuation bytes do not count). */
static size_t width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static void table(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run scenarios/masa/fig4.yaml -o /dev/null 2>&1 | tail -1",
                               SS_SRC_DIR, SS_BUILD_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "62.5%"));
    free(out);
    char *dir = ss_test_tmpdir();
    ss_test_sh(NULL,
               "cd '%s' && cp '%s/scenarios/tour/load-balancers.yaml' s.yaml && mkdir models && cp '%s/models/resnet50.json' models/ && "
               "sed -i 's/  - {name: random, set: {policies.load_balancer: random}}/"
               "  - {name: random, set: {policies.load_balancer: random, replications: 2}}/' s.yaml",
               dir, SS_SRC_DIR, SS_SRC_DIR);
    CU_ASSERT_EQUAL(ss_test_sh(&out, "cd '%s' && '%s/servesim' run s.yaml -o r.csv --set duration_s=10 --set warmup_s=1 "
                                     "--set workloads.images.rate_rps=335",
                               dir, SS_BUILD_DIR),
                    0);
    CU_ASSERT(ss_test_has(out, "3 variants with their own replications"));
    CU_ASSERT(ss_test_has(out, "(replications differ between variants;"));
    /* every row of the table as wide as the header, wide half-widths included */
    const char *hdr = strstr(out ? out : "", "variant ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
    size_t w = width(hdr, strcspn(hdr, "\n"));
    int rows = 0, wide = 0;
    for (const char *l = strchr(hdr, '\n') + 1; *l && *l != '('; l = strchr(l, '\n') + 1) {
        size_t len = strcspn(l, "\n");
        CU_ASSERT_EQUAL(width(l, len), w);
        rows++;
        for (const char *p = l; p < l + len && (p = strstr(p, "\xc2\xb1")); p += 2) wide |= p[2] != ' ' && atof(p + 2) >= 100;
        if (!l[len]) break;
    }
    CU_ASSERT_EQUAL(rows, 3);
    CU_ASSERT(wide); /* the case that used to shift the columns is there */
    free(out);
    ss_test_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

SS_TEST_SUITE("table", {"edge utilisation, aligned columns, per-variant replications", table})
