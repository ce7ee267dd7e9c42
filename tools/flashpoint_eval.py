#!/usr/bin/env python3
"""flashpoint_eval.py: summarises a flashpoint-eval sweep (scenarios/sweeps/flashpoint-eval.yaml)
as the Flashpoint thesis reports its evaluation (seed flashpoint.md §4 items 16-23):
 - per placement and autoscaler: mean and p99 end-to-end latency over all requests, the mean
   cold start over the models' cold starts, and the average replicas (all models' replica-seconds
   over HOUR_S, the drain after the hour included);
 - per placement, against `flashpoint` (LC+MC): for each model and autoscaler the ratio of the
   placement's value to Flashpoint's, averaged over models and autoscalers, reported as
   1 - 1/mean ratio (item 23's aggregation), for mean cold start, mean and p99 latency.
Means are over the sweep's replications.  Standard library only.

  python3 tools/flashpoint_eval.py results/reference/flashpoint-eval.csv [HOUR_S]"""
import csv
import sys
from collections import defaultdict

path = sys.argv[1] if len(sys.argv) > 1 else "results/reference/flashpoint-eval.csv"
hour_s = float(sys.argv[2]) if len(sys.argv) > 2 else 3600.0
rows = list(csv.DictReader(open(path)))
models = sorted({r["model"] for r in rows if r["model"] != "all"})
placements, autoscalers = [], []
for r in rows:
    if r["placement.policy"] not in placements: placements.append(r["placement.policy"])
    if r["autoscaling.policy"] not in autoscalers: autoscalers.append(r["autoscaling.policy"])


def num(r, k):
    v = r.get(k, "")
    return float(v) if v not in ("", None) else float("nan")


acc = defaultdict(list)  # (placement, autoscaler, model, metric) -> values over replications
for r in rows:
    key = (r["placement.policy"], r["autoscaling.policy"], r["model"])
    acc[key + ("lat",)].append(num(r, "latency_mean_ms") / 1e3)
    acc[key + ("p99",)].append(num(r, "latency_p99_ms") / 1e3)
    if r["model"] == "all":
        n = sum(num(r, "coldstarts_" + m) for m in models)
        acc[key + ("cold",)].append(sum(num(r, "coldstarts_" + m) * num(r, "coldstart_mean_s_" + m)
                                        for m in models if num(r, "coldstarts_" + m) > 0) / n if n else float("nan"))
        acc[key + ("reps",)].append(sum(num(r, "instance_s_" + m) for m in models) / hour_s)
    else:
        acc[key + ("cold",)].append(num(r, "coldstart_mean_s_" + r["model"]))


def mean(xs):
    xs = [x for x in xs if x == x]
    return sum(xs) / len(xs) if xs else float("nan")


def short(a):
    return a.split(",")[0].replace("{name: ", "").replace("}", "")


print("%-14s %-5s %12s %12s %14s %13s" % ("placement", "as", "mean e2e s", "p99 e2e s", "mean cold s", "avg replicas"))
for p in placements:
    for a in autoscalers:
        k = (p, a, "all")
        print("%-14s %-5s %12.2f %12.2f %14.2f %13.1f" % (p, short(a), mean(acc[k + ("lat",)]), mean(acc[k + ("p99",)]),
                                                          mean(acc[k + ("cold",)]), mean(acc[k + ("reps",)])))
print()
ref = "flashpoint"
print("against %s (1 - 1/mean ratio over %d models x %d autoscalers; FP item 23):" % (ref, len(models), len(autoscalers)))
print("%-14s %16s %16s %16s" % ("placement", "cold start", "mean e2e", "p99 e2e"))
for p in placements:
    if p == ref: continue
    out = []
    for metric in ("cold", "lat", "p99"):
        ratios = []
        for a in autoscalers:
            for m in models:
                x, y = mean(acc[(p, a, m, metric)]), mean(acc[(ref, a, m, metric)])
                if x == x and y == y and y > 0: ratios.append(x / y)
        r = mean(ratios)
        out.append("%15.1f%%" % (100 * (1 - 1 / r)) if r == r and r > 0 else "%16s" % "n/a")
    print("%-14s %s" % (p, " ".join(out)))
