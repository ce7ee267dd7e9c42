/* plan_cmd.c: `servesim plan PLAN.yaml [-o CSV] [--set k=v] [--quiet]`:
 * loads a deployment plan (plan.h), prints the VRAM table and writes one
 * CSV row per (model, mix, deployment). */
#include "plan_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "plan.h"

static const char usage[] =
    "usage: servesim plan PLAN.yaml [options]\n"
    "\n"
    "  -o, --output PATH   one CSV row per (model, mix, deployment): processes, vram_mib,\n"
    "                      host_ram_mib, savings_pct[, gpus]\n"
    "  --set KEY=VALUE     override a key of the plan (repeatable)\n"
    "  --quiet             do not print the table\n"
    "\n"
    "The plan names split-model profiles (models/*-split.json), the blocks of the path, task\n"
    "classes by how many leading blocks they share, mixes of classes, and deployments\n"
    "(modular with optional block fusion, traditional).  See docs/blockflow.md.\n"
    "Exit 0, 1 if the CSV cannot be written, 2 on bad input.\n";

int ss_cmd_plan(int argc, char **argv)
{
    const char *path = NULL, *output = NULL;
    char **sets = NULL;
    size_t nsets = 0;
    int quiet = 0, rc = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            goto done;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && val) {
            output = argv[++i];
        } else if (strcmp(a, "--set") == 0 && val) {
            sets = ss_xrealloc(sets, (nsets + 1) * sizeof *sets);
            sets[nsets++] = argv[++i];
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            int needs = !val && (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--set"));
            rc = ss_bad_usage("plan", needs ? "%s needs a value" : "unknown option '%s'", a);
            goto done;
        } else if (!path) {
            path = a;
        } else {
            rc = ss_bad_usage("plan", "unexpected argument '%s'", a);
            goto done;
        }
    }
    if (!path) {
        rc = ss_bad_usage("plan", "%s", "missing PLAN.yaml");
        goto done;
    }
    ss_err err = {0};
    ss_plan *p = ss_plan_load(path, sets, nsets, &err);
    if (!p) {
        fprintf(stderr, "%s\n", err.msg);
        rc = 2;
        goto done;
    }
    if (output) {
        ss_afile f;
        if (ss_afile_open(&f, output, &err) < 0) {
            rc = 1;
        } else {
            ss_plan_csv(p, f.fp);
            if (ss_afile_commit(&f, &err) < 0) rc = 1;
        }
        if (rc) fprintf(stderr, "%s\n", err.msg);
    }
    if (!quiet && rc == 0) ss_plan_print(p, stdout);
    ss_plan_free(p);
done:
    free(sets);
    return rc;
}
