/* calibrate_llm.c: `servesim calibrate --llm-perf PERF_DIR --llm-model
 * CONFIG.json -o FIT.json`: the per-operator profile in PERF_DIR (for the
 * model of CONFIG.json's num_hidden_layers) fitted into the five
 * coefficients of llm/llm_fit.h, written with where they came from and the
 * fit's error, for a scenario's `step_time: {fit: FIT.json}` (docs/llm.md,
 * "A fitted step time").  Exit 0, 1 if the file cannot be written, 2 on
 * bad input (nothing written). */
#include "calib/calibrate_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/util.h"
#include "input/llm_model.h"
#include "llm/llm_fit.h"
#include "llm/llm_perf.h"

int ss_cal_llm(const char *perf_dir, const char *model_path, unsigned budget, const char *output, int quiet)
{
    ss_err err = {0};
    ss_llm_model model;
    ss_llm_perf *perf = NULL;
    ss_afile f = {0};
    int rc = 2;
    if (ss_llm_model_read(model_path, &model, &err) < 0) goto out;
    if (!(perf = ss_llm_perf_load(perf_dir, model.layers, &err))) goto out;
    char *dn = ss_path_join(perf_dir, "dense.csv"), *ps = ss_path_join(perf_dir, "per_sequence.csv"),
         *at = ss_path_join(perf_dir, "attention.csv");
    const char *ins[] = {dn, ps, at, model_path};
    static const char *const what[] = {"profile", "profile", "profile", "model config"};
    static const char *const out_what[] = {"fitted step time"};
    int bad = ss_check_outputs(ins, what, 4, &output, out_what, 1, &err) < 0;
    free(dn), free(ps), free(at);
    if (bad) goto out;
    ss_llm_fit fit;
    ss_llm_fit_stats st;
    if (ss_llm_fit_perf(perf, model.layers, budget, &fit, &st) < 0) {
        ss_err_at(&err, perf_dir, 1, 1, "%s", "the least-squares fit of the step time failed");
        goto out;
    }
    if (ss_afile_open(&f, output, &err) < 0) goto out;
    fprintf(f.fp,
            "{\n"
            "\t\"kind\": \"llm_step_fit\",\n"
            "\t\"description\": \"An LLM engine's step time as coefficients fitted to a per-operator profile, part by "
            "part (docs/llm.md, 'A fitted step time'; sim/llm/llm_fit.h): layers x (dense + attention) + once + "
            "per_sequence.\",\n"
            "\t\"source\": \"[DERIVED] servesim calibrate --llm-perf %s --llm-model %s, a budget of %u tokens a step, "
            "weighted least squares of the relative error\",\n",
            perf_dir, model_path, budget);
    for (int k = 0; k < SS_LLM_FIT_N; k++) fprintf(f.fp, "\t\"%s\": %.9g,\n", ss_llm_fit_names[k], fit.c[k]);
    fprintf(f.fp, "\t\"fit\": {\"samples\": %u, \"budget_tokens\": %u, \"mean_abs_rel_error\": %.6g, "
                  "\"max_abs_rel_error\": %.6g}\n}\n",
            st.samples, budget, st.mean_abs_rel, st.max_abs_rel);
    if (ss_afile_commit(&f, &err) < 0) {
        rc = 1;
        goto out;
    }
    if (!quiet)
        printf("calibrate: %s fitted part by part (budget %u tokens): the whole step's relative error over %u "
               "sampled batches mean %.2f%%, max %.2f%% -> %s\n",
               perf_dir, budget, st.samples, 100 * st.mean_abs_rel, 100 * st.max_abs_rel, output);
    rc = 0;
out:
    if (rc == 2 && f.fp) ss_afile_abort(&f);
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    ss_llm_perf_free(perf);
    return rc;
}
