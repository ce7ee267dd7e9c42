#!/usr/bin/env python3
"""predict.py: the probe's end-to-end runs against servesim's prediction (issue 15,
docs/calibration.md), until `servesim validate` reads the scenario itself.

For each run of profiles/measured/probe-e2e.json it runs scenarios/probe/resnet50-cpu.yaml
(every figure from models/resnet50-cpu.json, calibrated from the micro-benchmarks alone)
with the run's transport and load, the host's CPU set to 2 cores less the run's
conditions.background_cores (the cores other processes took during its window), and
prints measured vs predicted throughput, mean and p99 latency as a Markdown table.

  python3 tools/probe/predict.py [E2E.json] [--bin build/servesim] [--no-background]"""
import csv
import json
import os
import subprocess
import sys
import tempfile

SCENARIO = "scenarios/probe/resnet50-cpu.yaml"


def predict(binary, run, background, out):
    c = run["conditions"]
    if c["arrival"] == "closed":
        wl = "{name: client, kind: closed, target: classify, clients: %d}" % c["clients"]
    else:
        wl = "{name: client, kind: poisson, target: classify, rate_rps: %r}" % c["rate_per_s"]
    cores = 2 - (c.get("background_cores", 0) if background else 0)
    subprocess.run([binary, "run", SCENARIO, "--variant", c["transport"], "--quiet", "-o", out,
                    "--set", "workloads.0=" + wl, "--set", "pipeline.host_cores.vm=%.3f" % cores], check=True)
    rows = [r for r in csv.DictReader(open(out)) if r["model"] == "classify"]
    mean = lambda k: sum(float(r[k]) for r in rows) / len(rows)
    return mean("throughput_rps"), mean("latency_mean_ms"), mean("latency_p99_ms")


def main(argv):
    path = next((a for a in argv if a.endswith(".json")), "profiles/measured/probe-e2e.json")
    binary = argv[argv.index("--bin") + 1] if "--bin" in argv else "build/servesim"
    background = "--no-background" not in argv
    print("| transport | load | background cores | throughput /s measured | predicted | error "
          "| mean ms measured | predicted | error | p99 ms measured | predicted | error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for run in json.load(open(path))["runs"]:
            c, m = run["conditions"], run["results"]
            tp, mean_ms, p99_ms = predict(binary, run, background, os.path.join(tmp, "r.csv"))
            load = "%d clients" % c["clients"] if c["arrival"] == "closed" else "Poisson %.2f/s" % c["rate_per_s"]
            mt, mm, mp = m["throughput_per_s"], 1e3 * m["latency_mean_s"], 1e3 * m["latency_p99_s"]
            err = lambda p, x: "%+.1f%%" % (100 * (p - x) / x)
            print("| %s | %s | %.2f | %.2f | %.2f | %s | %.1f | %.1f | %s | %.1f | %.1f | %s |" % (
                c["transport"], load, c.get("background_cores", 0), mt, tp, err(tp, mt), mm, mean_ms,
                err(mean_ms, mm), mp, p99_ms, err(p99_ms, mp)))


if __name__ == "__main__":
    main(sys.argv[1:])
