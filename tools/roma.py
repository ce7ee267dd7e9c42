#!/usr/bin/env python3
"""roma.py: ROMA's comparison (issue 16; seed roma.md §4, cited R §n), the
part that is not the simulator.

  run [-j N] [BIN]   run the three tests (scenarios/roma/{pair-i,pair-ii,allapps}.yaml:
                     5 systems x 3 repetitions each, 45 runs) in parallel, into
                     results/reference/roma-<test>.csv, and the All Apps test's ROMA
                     and RR+rules time series (repetition 0) into
                     results/reference/roma-allapps-ts.csv; prints the wall time
  report [DIR]       the comparison table (like R Table 2) from those CSVs:
                     DIR/roma-table.csv and Markdown on standard output

Per (test, system, app), over the 3 repetitions (mean, and the 95% t interval of
the mean response time): the average, maximum and standard deviation of the
response time (s), the SLA violations in both readings of docs/control.md (1-s
windows whose mean response time exceeds the SLA; requests over it), the share
served on the GPUs; per (test, system) the core-seconds Res (R §1.3 item 7).
Standard library only; run from the repository root."""
import csv
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

TESTS = [("pair-i", ["skylines", "googlenet"]), ("pair-ii", ["resnet", "vgg16"]),
         ("allapps", ["skylines", "googlenet", "resnet", "vgg16"])]
SYSTEMS = ["roma", "rr-ct", "rr-rules", "rr-max", "rr-min"]
REF = "results/reference"
# Student t, 97.5% quantile, for n - 1 = 1..4 degrees of freedom
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}


def run_one(job):
    binary, args = job
    start = time.time()
    subprocess.run([binary, "run", *args, "--quiet"], check=True)
    return time.time() - start


def cmd_run(argv):
    jobs, binary = 2, "build/servesim"
    while argv:
        a = argv.pop(0)
        if a == "-j":
            jobs = int(argv.pop(0))
        else:
            binary = a
    os.makedirs(REF, exist_ok=True)
    work = [(binary, ["scenarios/roma/%s.yaml" % t, "-o", "%s/roma-%s.csv" % (REF, t)]) for t, _ in TESTS]
    start = time.time()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(run_one, work))
    wall = time.time() - start
    for t, _ in TESTS:  # the per-variant summaries are not reference results
        os.remove("%s/roma-%s.summary.csv" % (REF, t))
    print("roma: 3 tests x 5 systems x 3 repetitions = 45 runs in %.2f s (-j %d)" % (wall, jobs))
    ts = "%s/roma-allapps-ts.csv" % REF
    parts = []
    for v in ("roma", "rr-rules"):
        out = ts + "." + v
        subprocess.run([binary, "run", "scenarios/roma/allapps.yaml", "--variant", v, "--replication", "0",
                        "-o", "-", "--timeseries-csv", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)
        parts.append(out)
    with open(ts + ".tmp", "w") as f:
        for i, p in enumerate(parts):
            with open(p) as g:
                lines = g.readlines()
            f.writelines(lines if i == 0 else lines[1:])
            os.remove(p)
    os.replace(ts + ".tmp", ts)


def mean_ci(xs):
    m = statistics.mean(xs)
    if len(xs) < 2:
        return m, 0.0
    return m, T975.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / len(xs) ** 0.5


def cmd_report(argv):
    ref = argv[0] if argv else REF
    rows = []
    for test, apps in TESTS:
        with open("%s/roma-%s.csv" % (ref, test)) as f:
            data = list(csv.DictReader(f))
        for system in SYSTEMS:
            mine = [r for r in data if r["variant"] == system]
            for app in apps:
                per = [r for r in mine if r["model"] == app]
                rt = [float(r["latency_mean_ms"]) / 1e3 for r in per]
                mx = [float(r["latency_max_ms"]) / 1e3 for r in per]
                sd = [float(r["rt_sd_s_" + app]) for r in per]
                vw = [float(r["sla_viol_windows_" + app]) for r in per]
                vr = [float(r["sla_viol_requests_" + app]) for r in per]
                gpu = [float(r["gpu_share_" + app]) for r in per]
                res = [float(r["core_s"]) for r in per]
                m, ci = mean_ci(rt)
                rows.append({"test": test, "system": system, "app": app, "reps": len(per),
                             "rt_mean_s": "%.4f" % m, "rt_mean_ci_s": "%.4f" % ci,
                             "rt_max_s": "%.3f" % statistics.mean(mx), "rt_sd_s": "%.4f" % statistics.mean(sd),
                             "viol_windows": "%.1f" % statistics.mean(vw), "viol_requests": "%.1f" % statistics.mean(vr),
                             "gpu_share": "%.3f" % statistics.mean(gpu), "core_s": "%.1f" % statistics.mean(res)})
    out = "%s/roma-table.csv" % ref
    with open(out + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    os.replace(out + ".tmp", out)
    print("| test | system | app | τ_R (s) | τ_RM (s) | τ_Rσ (s) | V (1-s windows) | V (requests) | GPU share | Res (core·s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s ± %s | %s | %s | %s | %s | %s | %s |" % (
            r["test"], r["system"], r["app"], r["rt_mean_s"], r["rt_mean_ci_s"], r["rt_max_s"], r["rt_sd_s"],
            r["viol_windows"], r["viol_requests"], r["gpu_share"], r["core_s"]))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("run", "report"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "run":
        cmd_run(sys.argv[2:])
    else:
        cmd_report(sys.argv[2:])


if __name__ == "__main__":
    main()
