#!/usr/bin/env python3
"""azure_functions_sample.py: writes traces/azure-functions-sample.csv, a
small SYNTHETIC file in the format of the public Azure Functions 2019 trace's
per-minute invocation counts (invocations_per_function_md.anon.dNN.csv:
HashOwner, HashApp, HashFunction, Trigger, then the minutes 1..1440 of one
day).  Three made-up functions with a diurnal shape and Poisson noise; the
hashes are made up too.  The real file is not shipped (it is large and not
ours): download it from Microsoft's AzurePublicDataset and point a workload
of kind `azure_functions` at it.  Standard library only; seeded, so the file
is the same every time."""
import math
import random

rng = random.Random(2019)
header = ["HashOwner", "HashApp", "HashFunction", "Trigger"] + [str(m) for m in range(1, 1441)]
rows = []
for k, (trigger, peak) in enumerate([("http", 1200), ("queue", 300), ("timer", 60)]):
    counts = []
    for m in range(1440):
        day = 0.55 + 0.45 * math.sin(2 * math.pi * (m - 360) / 1440)  # low at night, high in the afternoon
        lam = peak * day
        # Poisson draw by inversion for small means, normal approximation above
        if lam < 50:
            x, p, u = 0, math.exp(-lam), rng.random()
            s = p
            while u > s:
                x += 1
                p *= lam / x
                s += p
        else:
            x = max(0, round(rng.gauss(lam, math.sqrt(lam))))
        counts.append(str(x))
    rows.append(["owner%02d" % k, "app%02d" % k, "func%02d" % k, trigger] + counts)
with open("traces/azure-functions-sample.csv", "w") as f:
    f.write(",".join(header) + "\n")
    for r in rows:
        f.write(",".join(r) + "\n")
