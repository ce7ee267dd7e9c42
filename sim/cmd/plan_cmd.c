/* plan_cmd.c: `servesim plan PLAN.yaml [-o CSV] [--set k=v] [--quiet]`:
 * loads a deployment plan (plan.h), prints the VRAM table and writes one
 * CSV row per (model, mix, deployment). */
#include "cmd/plan_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "cmd/plan.h"
#include "input/scenpath.h"

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
    "(modular with optional block fusion, traditional).  See docs/deployment-planning.md.\n"
    "Exit 0, 1 if the CSV cannot be written, 2 on bad input.\n";

int ss_cmd_plan(int argc, char **argv)
{
    ss_cli c = {0};
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        int t = ss_cli_take(&c, "plan", argc, argv, &i);
        if (t == 1) continue;
        if (t) rc = t;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            ss_cli_free(&c);
            return 0;
        } else
            rc = ss_bad_usage("plan", "unknown option '%s'", argv[i]);
    }
    if (rc == 0 && !c.path) rc = ss_bad_usage("plan", "%s", "missing PLAN.yaml");
    if (rc) {
        ss_cli_free(&c);
        return rc;
    }
    ss_err err = {0};
    ss_plan *p = ss_plan_load(ss_scenario_locate(c.path), c.sets, c.nsets, &err); /* a file, or a shipped plan by name */
    if (!p) {
        fprintf(stderr, "%s\n", err.msg);
        ss_cli_free(&c);
        return 2;
    }
    if (c.output) {
        ss_afile f;
        if (ss_afile_open(&f, c.output, &err) < 0) {
            rc = 2; /* the path named: bad input (afile.h) */
        } else {
            ss_plan_csv(p, f.fp);
            if (ss_afile_commit(&f, &err) < 0) rc = 1;
        }
        if (rc) fprintf(stderr, "%s\n", err.msg);
    }
    if (!c.quiet && rc == 0) ss_plan_print(p, stdout);
    ss_plan_free(p);
    ss_cli_free(&c);
    return rc;
}
