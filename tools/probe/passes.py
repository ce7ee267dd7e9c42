#!/usr/bin/env python3
"""tools/probe/passes.py: a validation table over the passes of a probe run (run.py --passes K).

  tools/probe/passes.py VALIDATE_CSV     # the CSV `servesim validate -o` wrote

The runs of pass k > 1 repeat pass 1's conditions under ids ending -passk (tools/probe/README.md).
Per condition (the id without that ending) and judged metric (throughput, mean latency), it prints
the mean over the passes of the measured and of the simulated values, each pass's measured value,
their spread (largest minus smallest, over the mean), the error of the means and whether it is
within the tolerance validate applied to the first pass; then how many conditions and how many
single runs are beyond. Exit 0 when every mean is within, 1 otherwise. Standard library only."""
import collections
import csv
import re
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(open(sys.argv[1], encoding="utf-8"))
            if r["metric"] in ("throughput_per_s", "latency_mean_s")]
    by = collections.OrderedDict()
    for r in rows:
        by.setdefault((re.sub(r"-pass\d+$", "", r["run"]), r["metric"]), []).append(r)
    beyond = 0
    for (stem, metric), rs in by.items():
        measured = [float(r["measured"]) for r in rs]
        mm = statistics.mean(measured)
        sm = statistics.mean(float(r["simulated"]) for r in rs)
        tol = float(rs[0]["tolerance"])
        err = sm / mm - 1
        beyond += abs(err) > tol
        print(f"{stem:26s} {metric:16s} measured {mm:8.4g} ({' '.join(f'{x:.4g}' for x in measured)}; "
              f"spread {100 * (max(measured) - min(measured)) / mm:4.1f}%)  simulated {sm:8.4g}  "
              f"error {100 * err:+6.1f}%  tolerance {100 * tol:.0f}%{'' if abs(err) <= tol else '  beyond'}")
    single = sum(r["pass"] == "no" for r in rows)
    print(f"passes.py: means over the passes: {beyond} of {len(by)} beyond their tolerance; "
          f"single runs: {single} of {len(rows)}")
    return 1 if beyond else 0


if __name__ == "__main__":
    sys.exit(main())
