#!/usr/bin/env python3
"""flashpoint_ablation.py: Flashpoint's technique ablation (issue 14; seed
flashpoint.md §4 items 14-25, §5), the part that is not the simulator.

  variants                 rewrite the variants of scenarios/flashpoint/ablation.yaml:
                           technique x load x autoscaler, plus the baselines tuned to
                           each technique's resources (scenarios/flashpoint/ablation-tuned.json)
  tune --from CSV [-j N] [--only A,B] [--cells L/A/T/M,...]
                           for every (load, autoscaler, technique, model) whose model, alone on
                           the data centre, uses more than 5% more or less replica-seconds
                           under the baseline than under the technique at the defaults (the
                           sweep's results CSV), `servesim tune` bisects the baseline's
                           parameter for that model; writes ablation-tuned.json ($SERVESIM:
                           the binary, default build/servesim)
  joint-summary DIR        one row per joint tune log in DIR (tune-LOAD-tsk-TECHNIQUE.log):
                           runs, found or not, the run `tune` keeps (whose worst model came
                           nearest, among those within 5% in total), each model's value and
                           ratio there, and the spread of each model's ratio
                           while its own value was held and the others' moved (the first
                           finite differences): CSV on standard output
  stages COLDSTARTS.csv [--from S]
                           a cold start's stages (waiting for the link, download at one
                           connection's full rate, load, send), mean per variant, model and
                           source, of the starts begun at or after S (a run's warm-up)
  report CSV [-o DIR]      tables from the sweep's results (default DIR results/reference):
                           flashpoint-ablation-resources.csv, -summary.csv, -table81.csv,
                           -reductions.dat (for plots/flashpoint-ablation.gp), and the
                           same as Markdown on standard output

Equal resources (FP §1.10).  The thesis tunes thresholds so that every system
uses about the same replicas.  Each model runs alone on the data centre (the
sweep's axes; seed flashpoint.md §1.9a), so each is tuned on its own: the
baseline's autoscaler parameter, bisected by `servesim tune` with the other
models' loads off, until the model uses the technique's replica-seconds (5%),
where the defaults are not already within 5%; the variant
bl-eq-<technique>-<load>-<autoscaler> gives each model its value
(autoscaling.per_model).  `joint-summary` reads the logs of the joint solves
that the six-models-together set-up needed before (results/reference/
flashpoint-tsk-joint/, docs/flashpoint.md).

Aggregation (FP §4 item 23): per model and autoscaler, the ratio of the
compared system's mean latency to the technique's; averaged over models and
autoscalers; reported as the factor (the mean ratio) and the improvement
1 - 1/mean ratio, next to the plain mean of the per-cell improvements.
Standard library only; run from the repository root."""
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SCENARIO = "scenarios/flashpoint/ablation.yaml"
TUNED = "scenarios/flashpoint/ablation-tuned.json"
MODELS = ["codebert-base", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]
WORKLOADS = ["codebert", "albert", "bart", "dialogpt", "gpt2", "t5"]
# technique: (placement, partitioned)
TECHNIQUES = [("bl", "cloud", False), ("mp", "cloud", True), ("mc", "flashpoint-mc", False),
              ("lc", "flashpoint-lc", False), ("lc-mc", "flashpoint", False), ("lc-mc-mp", "flashpoint", True),
              ("gpu-faas", "gpu-faas", False)]
LOADS = ["twitter", "azure"]
# autoscaler: (its policy map with the thesis' defaults, the parameter tuned per model, its range
# for the baseline, its default)
AUTOSCALERS = [("tsk", "{name: tsk, target_s: 7}", "target_s", (0.5, 20000), 7),
               ("atl", "{name: atl, headroom: 1}", "headroom", (0.25, 4), 1),
               ("owk", "{name: owk, target: 0.6}", "target", (0.3, 0.999), 0.6),
               ("sm", "{name: sm, target_per_min: 600, out_datapoints: 3, in_datapoints: 15, in_ratio: 0.9}",
                "target_per_min", (60, 60000), 600)]
# each autoscaler's evaluation period, its framework's documented default (FP §3.4; seed §1.9a;
# docs/flashpoint.md): the Kubernetes HPA's sync period (TSK, OWK), CloudWatch's one-minute
# datapoints (SM), and [ASSUMPTION] 1 s for Atoll, whose period the sources at hand do not give
PERIOD_S = {"tsk": 15, "atl": 1, "owk": 15, "sm": 60}
# coupled per model (docs/flashpoint.md, equal resources): solved for all models at once
# (`servesim tune --per-model --joint`), from the value tuned on the total
CAP = 40  # the autoscaler's replica cap per model, as the sweep sets it
SERVESIM = os.environ.get("SERVESIM", "build/servesim")
MP_ON = "flashpoint-mp"
MP_OFF = "{name: flashpoint-mp, max_parts: 1}"
FLASHPOINT = "lc-mc-mp"


def policy_with(as_name, value):
    """The autoscaler's policy map with its tuned parameter set to value (its other parameters kept)."""
    _, policy, key, _, _ = next(a for a in AUTOSCALERS if a[0] == as_name)
    return re.sub(r"\b%s: [^,}]+" % key, "%s: %s" % (key, repr(value)), policy)


def per_model_set(as_name, values):
    """The `set:` entry giving each model the baseline's tuned value of the autoscaler's parameter
    (entries named MODEL.KEY2: that parameter of the model's, as `tune --key-for` prints them)."""
    key = next(a for a in AUTOSCALERS if a[0] == as_name)[2]
    own = {}
    for name, v in values.items():
        m, _, k = name.partition(".")
        own.setdefault(m, []).append("%s: %s" % (k or key, repr(v)))
    return "autoscaling.per_model: {%s}" % ", ".join("%s: {%s}" % (m, ", ".join(own[m])) for m in MODELS if m in own)


def variant_line(name, placement, mp, load, policy, extra=None):
    as_name = re.match(r"\{name: (\w+)", policy).group(1)
    sets = ["autoscaling.policy: %s" % policy, "autoscaling.period_s: %s" % PERIOD_S[as_name],
            "placement.policy: %s" % placement,
            "partitioning.policy: %s" % (MP_ON if mp else MP_OFF)]
    sets += ["workloads.%s.shape: %s" % (w, load) for w in WORKLOADS]
    sets += [extra] if extra else []
    return "  - {name: %s, set: {%s}}" % (name, ", ".join(sets))


def cmd_variants():
    tuned = json.load(open(TUNED)) if os.path.exists(TUNED) else {}
    lines = []
    for as_name, policy, _, _, default in AUTOSCALERS:
        for load in LOADS:
            for tech, placement, mp in TECHNIQUES:
                lines.append(variant_line("%s-%s-%s" % (tech, load, as_name), placement, mp, load, policy))
            for tech, _, _ in TECHNIQUES:
                values = tuned.get("%s/%s/%s" % (load, as_name, tech))
                name = "bl-eq-%s-%s-%s" % (tech, load, as_name)
                if tech != "bl" and isinstance(values, dict) and any(v != default for v in values.values()):
                    lines.append(variant_line(name, "cloud", False, load, policy, per_model_set(as_name, values)))
                elif tech != "bl" and isinstance(values, (int, float)):  # one value for every model
                    lines.append(variant_line(name, "cloud", False, load, policy_with(as_name, values)))
    text = open(SCENARIO).read()
    head, _, tail = text.partition("variants:\n")
    rest = tail[tail.index("outputs:"):]
    with open(SCENARIO + ".tmp", "w") as f: # atomic: a tune running may read it meanwhile
        f.write(head + "variants:\n" + "\n".join(lines) + "\n" + rest)
    os.replace(SCENARIO + ".tmp", SCENARIO)
    print("flashpoint_ablation: %d variants in %s" % (len(lines), SCENARIO))


def nearest_run(ref, runs, total_within=0.05):
    """Of a joint tune's runs (parse_joint_log), the one whose worst model is nearest its
    reference (max |log ratio|; the first such run) among those whose total is within
    total_within of the reference's (None: any run), or None."""
    best = None
    for k, (_, got) in sorted(runs.items()):
        if set(got) != set(ref) or (total_within is not None and
                                    abs(sum(r for _, r, _ in got.values()) / sum(ref.values()) - 1) > total_within):
            continue
        worst = max(abs(math.log(got[m][1] / ref[m])) for m in ref)
        if best is None or worst < best[0]:
            best = (worst, k)
    return best[1] if best else None


def alone(model):
    """--set arguments that leave model's workload alone on the data centre (the sweep's axes)."""
    return [a for w, m in zip(WORKLOADS, MODELS) for a in ("--set", "workloads.%s.scale=%d" % (w, m == model))]


def tune_one(job):
    """The baseline's parameter at which the model, alone on the data centre, uses the
    technique's replica-seconds (5%): `servesim tune`'s bisection of the policy's parameter."""
    load, as_name, tech, model = job
    _, _, key, (lo, hi), _ = next(a for a in AUTOSCALERS if a[0] == as_name)
    argv = [SERVESIM, "tune", SCENARIO, "--variant", "bl-%s-%s" % (load, as_name),
            "--reference", "%s-%s-%s" % (tech, load, as_name), "--lo", str(lo), "--hi", str(hi),
            "--key", "autoscaling.policy." + key, "--set", "autoscaling.max_replicas=%d" % CAP,
            "--set", "replications=5", "--quiet"] + alone(model)
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode == 0:
        return job, float(p.stdout.strip().split()[-1]), ""
    return job, None, "not reached: " + " ".join((p.stdout + p.stderr).split())[:400]


def cmd_tune(args):
    """Tune the baseline for every (load, autoscaler, technique, model) whose replica-seconds at the
    defaults (the sweep's CSV given with --from) are more than 5% from the technique's."""
    for opt in ("--from", "-j", "--only", "--cells"):
        if opt in args and args.index(opt) + 1 >= len(args) or ("--from" not in args and opt == "--from"):
            sys.exit("flashpoint_ablation.py tune: expected --from CSV [-j N] [--only A,B] [--cells L/A/T/M,...] "
                     f"({opt} needs a value)")
    jobs = int(args[args.index("-j") + 1]) if "-j" in args else 2
    only = args[args.index("--only") + 1].split(",") if "--only" in args else [a[0] for a in AUTOSCALERS]
    res = load_results(args[args.index("--from") + 1])
    tuned = json.load(open(TUNED)) if os.path.exists(TUNED) else {}
    cells = args[args.index("--cells") + 1].split(",") if "--cells" in args else None
    work = []
    for load in LOADS:
        for a in AUTOSCALERS:
            for t in TECHNIQUES:
                if a[0] not in only or t[0] == "bl":
                    continue
                bl, cell = res.get(("bl", load, a[0])), res.get((t[0], load, a[0]))
                for m in MODELS:
                    job = (load, a[0], t[0], m)
                    if cells is not None and "/".join(job) not in cells:
                        continue
                    # tuned again, or (within 5% at the defaults now) not at all
                    old = tuned.get("%s/%s/%s" % job[:3])
                    if isinstance(old, dict):
                        old.pop(m, None)
                    if bl and cell and m in bl and m in cell and cell[m]["replica_s"] > 0 and \
                            abs(bl[m]["replica_s"] / cell[m]["replica_s"] - 1) > 0.05:
                        work.append(job)
    tuned = {k: v for k, v in tuned.items() if v}
    print("flashpoint_ablation: %d (load, autoscaler, technique, model) to tune" % len(work), flush=True)
    with ThreadPoolExecutor(jobs) as pool:
        for (load, as_name, tech, model), value, note in pool.map(tune_one, work):
            if value is not None:
                tuned.setdefault("%s/%s/%s" % (load, as_name, tech), {})[model] = value
            print("%s %s %s %s: %s%s" % (load, as_name, tech, model, value, " (%s)" % note if note else ""),
                  flush=True)
            with open(TUNED + ".tmp", "w") as f:  # kept as it goes
                json.dump(tuned, f, indent=1, sort_keys=True)
                f.write("\n")
            os.replace(TUNED + ".tmp", TUNED)


def split_variant(v):
    """(technique, load, autoscaler) of a variant name."""
    parts = v.split("-")
    return "-".join(parts[:-2]), parts[-2], parts[-1]


def mean(xs):
    xs = [x for x in xs if x == x]
    return statistics.mean(xs) if xs else float("nan")


def num(s):
    try:
        return float(s)
    except ValueError:
        return float("nan")


def load_results(path):
    """(technique, load, autoscaler) -> {model: {latency, coldstart, replica_s}} means over replications,
    and replica_s_runs: the replications' own replica-seconds."""
    acc = {}
    for r in csv.DictReader(open(path)):
        if r["model"] not in MODELS:
            continue
        w = WORKLOADS[MODELS.index(r["model"])]  # a run holds one model alone (the sweep's axes)
        if float(r.get("workloads.%s.scale" % w, "1") or 1) == 0:
            continue
        key = split_variant(r["variant"])
        m = r["model"]
        d = acc.setdefault(key, {}).setdefault(m, {"latency": [], "coldstart": [], "replica_s": []})
        d["latency"].append(num(r["latency_mean_ms"]) / 1e3)
        d["coldstart"].append(num(r["coldstart_mean_s_" + m]))
        d["replica_s"].append(num(r["instance_s_" + m]))
    return {k: {m: dict({q: mean(v) for q, v in d.items()}, replica_s_runs=d["replica_s"]) for m, d in ms.items()}
            for k, ms in acc.items()}


# Student's t, 97.5% quantile, by degrees of freedom (1-30); beyond, the normal's
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def ratio_ci(a, b):
    """95% interval of mean(a) / mean(b) from the replications' values: the delta method on the log
    of the ratio, Welch's degrees of freedom (each mean's relative standard error squared,
    s^2 / (n mean^2), adds); (lo, hi), or the ratio twice where neither varies."""
    ma, mb = statistics.mean(a), statistics.mean(b)
    va = statistics.variance(a) / (len(a) * ma * ma) if len(a) > 1 and ma > 0 else 0
    vb = statistics.variance(b) / (len(b) * mb * mb) if len(b) > 1 and mb > 0 else 0
    r = ma / mb
    if va + vb == 0:
        return r, r
    df = (va + vb) ** 2 / ((va * va / (len(a) - 1) if va else 0) + (vb * vb / (len(b) - 1) if vb else 0))
    t = T975[min(int(df), 30) - 1] if df >= 1 else T975[0]
    half = t * math.sqrt(va + vb)
    return r * math.exp(-half), r * math.exp(half)


def total(cell):
    return sum(cell[m]["replica_s"] for m in MODELS)


def worst_ratio(cell, base):
    """How far the model farthest from equal resources is: max |log(technique / baseline)|."""
    return max(abs(math.log(cell[m]["replica_s"] / base[m]["replica_s"])) for m in MODELS)


def baseline_for(res, tech, load, as_name):
    """The baseline a technique is compared with: the one tuned to its resources, if there
    is one and it is within 5% of them in total (the thesis' criterion) or nearer than the
    baseline at its defaults model by model; else the baseline at its defaults."""
    eq, bl, cell = res.get(("bl-eq-" + tech, load, as_name)), res[("bl", load, as_name)], res[(tech, load, as_name)]
    if eq and (abs(total(eq) / total(cell) - 1) <= 0.05 or worst_ratio(cell, eq) < worst_ratio(cell, bl)):
        return "bl-eq-" + tech, eq
    return "bl", bl


def parse_joint_log(text):
    """A joint tune's log: ({model: reference}, {run: (why, {model: (value, replica_s, name)})}),
    name being MODEL, or MODEL.KEY2 for a model tuned by its own parameter (--key-for)."""
    ref = {m: float(v) for m, v in re.findall(r"^([\w.-]+): reference (\S+)$", text, re.M)}
    runs = {}
    for k, why, name, v, rs in re.findall(r"^run (\d+) \((\w+)\) ([\w.-]+)=(\S+): (\S+) ", text, re.M):
        m = name if name in ref else name.rsplit(".", 1)[0]
        runs.setdefault(int(k), (why, {}))[1][m] = (float(v), float(rs), name)
    return ref, runs


def cmd_joint_summary(args):
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["load", "technique", "runs", "found", "nearest_run", "nearest_total_ratio"] +
               ["%s_%s" % (q, m) for m in MODELS for q in ("value", "ratio")] +
               ["held_ratio_range_" + m for m in MODELS])
    for name in sorted(os.listdir(args[0])):
        got = re.match(r"tune-(\w+)-tsk-([\w-]+)\.log$", name)
        if not got:
            continue
        ref, runs = parse_joint_log(open(os.path.join(args[0], name)).read())
        if not runs or set(ref) != set(MODELS):
            continue
        ratio = {k: {m: rs / ref[m] for m, (_, rs, _) in r.items()} for k, (_, r) in runs.items()}
        total = {k: sum(rs for _, rs, _ in r.values()) / sum(ref.values()) for k, (_, r) in runs.items()}
        # the run `tune` keeps; where none is within 5% in total (tune then keeps the value tuned on
        # the total), the nearest of all
        best = nearest_run(ref, runs) or nearest_run(ref, runs, None)
        found = any(all(abs(x - 1) <= 0.05 for x in q.values()) for q in ratio.values())
        held = []
        for m in MODELS:  # the start and the first finite differences, m's own value as at the start
            xs = [ratio[k][m] for k in sorted(runs) if (k == 1 or runs[k][0] == "jacobian") and
                  all(runs[j][0] in ("start", "jacobian") for j in range(1, k + 1)) and
                  runs[k][1][m][0] == runs[1][1][m][0]]
            held.append("%.3f-%.3f" % (min(xs), max(xs)))
        w.writerow([got.group(1), got.group(2), len(runs), str(found).lower(), best,
                    "%.4f" % total[best]] +
                   [x for m in MODELS for x in ("%.6g" % runs[best][1][m][0], "%.4f" % ratio[best][m])] + held)


def cmd_report(args):
    path = args[0]
    out = args[args.index("-o") + 1] if "-o" in args else "results/reference"
    res = load_results(path)
    techs = [t[0] for t in TECHNIQUES if t[0] != "bl"]
    as_names = [a[0] for a in AUTOSCALERS]
    # resources: each technique against its baseline, per autoscaler and model
    rows = []
    for load in LOADS:
        for a in as_names:
            for t in techs:
                if (t, load, a) not in res:
                    continue
                bname, b = baseline_for(res, t, load, a)
                cell = res[(t, load, a)]
                ratios = [cell[m]["replica_s"] / b[m]["replica_s"] for m in MODELS]
                cis = [ratio_ci(cell[m]["replica_s_runs"], b[m]["replica_s_runs"]) for m in MODELS]
                rows.append([load, a, t, bname, "%.4f" % (total(cell) / total(b))] + ["%.4f" % x for x in ratios] +
                            [str(all(abs(x - 1) <= 0.05 for x in ratios)).lower()] +
                            ["%.4f-%.4f" % ci for ci in cis] +
                            [str(all(lo <= 1.05 and hi >= 0.95 for lo, hi in cis)).lower()] +
                            [str(abs(total(cell) / total(b) - 1) <= 0.05).lower()])
    with open(os.path.join(out, "flashpoint-ablation-resources.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "autoscaler", "technique", "baseline", "replica_s_ratio_all"] +
                   ["replica_s_ratio_" + m for m in MODELS] + ["every_model_within_5pct"] +
                   ["replica_s_ratio_ci95_" + m for m in MODELS] + ["every_model_ci95_meets_5pct", "all_within_5pct"])
        w.writerows(rows)
    # reductions: per technique and load, BL / technique over models and autoscalers
    summary = []
    for load in LOADS:
        for t in techs:
            for metric in ("latency", "coldstart"):
                ratios = []
                for a in as_names:
                    if (t, load, a) not in res:
                        continue
                    _, b = baseline_for(res, t, load, a)
                    for m in MODELS:
                        x, y = b[m][metric], res[(t, load, a)][m][metric]
                        if x == x and y == y and y > 0:
                            ratios.append(x / y)
                if not ratios:
                    continue
                factor = statistics.mean(ratios)
                plain = statistics.mean([1 - 1 / r for r in ratios])
                summary.append([load, t, metric, len(ratios), "%.4f" % factor, "%.4f" % (1 - 1 / factor),
                                "%.4f" % plain])
    with open(os.path.join(out, "flashpoint-ablation-summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "technique", "metric", "cells", "factor_bl_over_technique", "improvement_thesis",
                    "improvement_plain_mean"])
        w.writerows(summary)
    # Table 8.1: Flashpoint's % improvement in mean latency per model, against GPU-enabled FaaS and BL
    t81 = []
    for m in MODELS:
        row = [m]
        for load in ("azure", "twitter"):
            for other in ("gpu-faas", "bl"):
                ratios = []
                for a in as_names:
                    f_cell = res.get((FLASHPOINT, load, a))
                    o_cell = res.get((other, load, a)) if other != "bl" else baseline_for(res, FLASHPOINT, load, a)[1]
                    if f_cell and o_cell:
                        ratios.append(o_cell[m]["latency"] / f_cell[m]["latency"])
                row.append("%.1f" % (100 * (1 - 1 / statistics.mean(ratios))) if ratios else "")
        t81.append(row)
    with open(os.path.join(out, "flashpoint-ablation-table81.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "azure_vs_gpu_faas_pct", "azure_vs_bl_pct", "twitter_vs_gpu_faas_pct",
                    "twitter_vs_bl_pct"])
        w.writerows(t81)
    # plot data: reduction factors by technique, one block per load
    with open(os.path.join(out, "flashpoint-ablation-reductions.dat"), "w") as f:
        f.write("# technique coldstart_factor latency_factor (BL / technique, mean over models and autoscalers)\n")
        for load in LOADS:
            f.write("# %s\n" % load)
            for t in techs:
                get = {s[2]: s[4] for s in summary if s[0] == load and s[1] == t}
                f.write("%s %s %s\n" % (t, get.get("coldstart", "nan"), get.get("latency", "nan")))
            f.write("\n\n")
    # the same as Markdown
    print("## Reductions against the baseline at equal resources (factor = mean of BL/technique; "
          "improvement = 1 - 1/factor, FP §4 item 23; plain = mean of per-cell improvements)\n")
    print("| load | technique | metric | cells | factor | improvement | plain mean |")
    print("|---|---|---|---|---|---|---|")
    for s in summary:
        print("| %s | %s | %s | %d | %.2f | %.1f%% | %.1f%% |" % (s[0], s[1], s[2], s[3], float(s[4]),
                                                            100 * float(s[5]), 100 * float(s[6])))
    print("\n## Table 8.1: Flashpoint's improvement in mean end-to-end latency per model\n")
    print("| model | Azure vs GPU-FaaS | Azure vs BL | Twitter vs GPU-FaaS | Twitter vs BL |")
    print("|---|---|---|---|---|")
    for r in t81:
        print("| %s | %s%% | %s%% | %s%% | %s%% |" % tuple(r))
    print("\n## Resources: replica-seconds of each technique over its baseline's\n")
    print("(all models: the ratio of the totals, the thesis's criterion (FP §1.10); worst model: the ratio "
          "farthest from 1, with its 95% interval over the five replications of each side; the last column: "
          "every model's interval reaches [0.95, 1.05])\n")
    print("| load | autoscaler | technique | baseline | all models | within 5% in total | worst model "
          "| every model within 5% | every model's 95% interval meets 5% |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        k = max(range(6), key=lambda i: abs(float(r[5 + i]) - 1))
        print("| %s | %s | %s | %s | %s | %s | %.3f [%s] | %s | %s |" % (
            r[0], r[1], r[2], r[3], r[4], r[19], float(r[5 + k]), r[12 + k].replace("-", ", "), r[11], r[18]))
    print("\nRows within 5%, per autoscaler (of " + str(len(rows) // len(as_names)) + "):\n")
    print("| autoscaler | in total | every model | every model's 95% interval |")
    print("|---|---|---|---|")
    for a in as_names:
        mine = [r for r in rows if r[1] == a]
        print("| %s | %d | %d | %d |" % (a, sum(r[19] == "true" for r in mine), sum(r[11] == "true" for r in mine),
                                        sum(r[18] == "true" for r in mine)))


# a model's data from each source at the full rate of one connection: the storage link's per
# connection rate (FP §3.2: 2,203 Mbit/s) and the peer rate (FP §3.4: 7,507 Mbit/s), as
# topologies/flashpoint-dc.yaml and the scenarios have them
SOURCE_BPS = {"storage": 2203e6, "peer": 7506.89e6}


def cmd_stages(args):
    """A cold start's stages, mean per (variant, model, source), from a cold-starts CSV
    (`servesim run --coldstarts-csv`), the starts begun at or after --from S: the data stage
    split into its time at one connection's full rate and the rest, waiting for the link
    (sharing the storage link, a peer's uplink or the host's one download), then load and send."""
    since = float(args[args.index("--from") + 1]) if "--from" in args else 0.0
    size = {m: json.load(open("models/%s.json" % m))["weights_bytes"] for m in MODELS}
    acc = {}
    for r in csv.DictReader(open(args[0])):
        if float(r["start_s"]) < since:
            continue
        d = acc.setdefault((r["variant"], r["model"], r["source"]), [])
        full = 8 * size[r["model"]] / SOURCE_BPS[r["source"]] if r["source"] in SOURCE_BPS else 0.0
        data = float(r["data_s"])
        d.append((data, min(full, data), max(0.0, data - full), float(r["load_s"]), float(r["send_s"]),
                  float(r["duration_s"])))
    print("| variant | model | source | cold starts | waiting for the link (s) | download at full rate (s) "
          "| load (s) | send (s) | total (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (v, m, src), d in sorted(acc.items()):
        mean = [statistics.mean(x[i] for x in d) for i in range(6)]
        print("| %s | %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f |" % (v, m, src, len(d), mean[2], mean[1],
                                                                           mean[3], mean[4], mean[5]))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "stages":
        cmd_stages(sys.argv[2:])
        return 0
    if len(sys.argv) < 2 or sys.argv[1] not in ("variants", "tune", "report", "joint-summary"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "variants":
        cmd_variants()
    elif sys.argv[1] == "tune":
        cmd_tune(sys.argv[2:])
    elif sys.argv[1] == "joint-summary":
        if len(sys.argv) < 3:
            print("usage: flashpoint_ablation.py joint-summary DIR", file=sys.stderr)
            return 2
        cmd_joint_summary(sys.argv[2:])
    else:
        if len(sys.argv) < 3:
            print("usage: flashpoint_ablation.py report RESULTS.csv [-o DIR]", file=sys.stderr)
            return 2
        cmd_report(sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
