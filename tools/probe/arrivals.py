"""tools/probe/arrivals.py: the Poisson runs' arrival schedules, one place for how they are drawn.

A Poisson run of the probe sends its requests at the offsets of a schedule drawn from
random.Random(seed) (exponential gaps at rate_per_s, over warm-up + duration), the seed being
schedule_seed(probe seed, transport index, load index). The probe writes the schedule into the
run's conditions as `arrivals_s` (offsets from the run's start, to the microsecond; the sender
thread sends each request at its offset, late by its wake-up), and `servesim validate` replays it:
the simulated run sees the arrivals the real one saw, not another draw at the same rate.

    python3 tools/probe/arrivals.py PROFILE            # add arrivals_s where a Poisson run lacks it
    python3 tools/probe/arrivals.py --check PROFILE    # every arrivals_s is its seed's schedule

Adding is for profiles written before runs carried the field (the committed probe-e2e.json of
2026-11-26): the schedule is drawn again from the seed the file's environment.notes records, and
each run's count of arrivals inside its window must equal its measured `requests` (all came back),
else nothing is written. Standard library only (no torch, no zmq).
"""
import argparse
import json
import os
import random
import re
import sys

TRANSPORTS = ("zmq-copy", "shm-handle")   # the order run.py measures them in (the transport index)


def poisson_times(rate_per_s, seed, horizon_s):
    """Arrival offsets (s) of a Poisson process on [0, horizon_s), from random.Random(seed)."""
    rng = random.Random(seed)
    t, out = 0.0, []
    while True:
        t += rng.expovariate(rate_per_s)
        if t >= horizon_s:
            return out
        out.append(t)


def schedule_seed(seed, transport_index, load_index):
    """The seed of a Poisson run's schedule: probe seed, transport, load (run.py's order)."""
    return seed * 1000 + transport_index * 100 + load_index


SEED_NOTE = re.compile(r"arrival schedule: random\.Random\((\d+)\)")


def seed_note(seed):
    """A run's `notes`: the seed its schedule was drawn from (what --check reads first)."""
    return f"arrival schedule: random.Random({seed}), exponential gaps at rate_per_s (tools/probe/arrivals.py)"


def schedule(rate_per_s, seed, warmup_s, duration_s):
    """The offsets as the profile records them: to the microsecond."""
    return [round(t, 6) for t in poisson_times(rate_per_s, seed, warmup_s + duration_s)]


def _expected(doc):
    """{run id: schedule} for every Poisson run: from the seed its notes name (the probe writes it),
    else from the probe seed in environment.notes and the run's place among its transport's Poisson
    runs (files written before runs named their seed; a run the probe left out would shift it)."""
    m = re.search(r"\bseed (\d+)\b", doc["environment"].get("notes", ""))
    out, li = {}, {}
    for r in doc.get("runs", []):
        c = r["conditions"]
        if c["arrival"] != "poisson":
            continue
        own = SEED_NOTE.search(r.get("notes", ""))
        ti = TRANSPORTS.index(c["transport"])
        k = li.get(ti, 0)
        li[ti] = k + 1
        if own:
            s = int(own.group(1))
        elif m:
            s = schedule_seed(int(m.group(1)), ti, k)
        else:
            raise SystemExit(f"arrivals: run {r['id']} names no schedule seed, nor does environment.notes")
        out[r["id"]] = schedule(c["rate_per_s"], s, c["warmup_s"], c["duration_s"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare instead of adding")
    ap.add_argument("profile")
    a = ap.parse_args()
    with open(a.profile) as f:
        doc = json.load(f)
    want, bad, added = _expected(doc), [], 0
    for r in doc.get("runs", []):
        if r["id"] not in want:
            continue
        c, sched = r["conditions"], want[r["id"]]
        if a.check:
            if c.get("arrivals_s") != sched:
                bad.append(f"{r['id']}: arrivals_s is not its seed's schedule")
            continue
        if "arrivals_s" in c:
            continue
        n = sum(1 for t in sched if t >= c["warmup_s"])
        if n != r["results"]["requests"]:
            bad.append(f"{r['id']}: {n} scheduled in the window, {r['results']['requests']} measured")
        c["arrivals_s"] = sched
        added += 1
    if bad:
        print("\n".join(f"arrivals: {a.profile}: {b}" for b in bad), file=sys.stderr)
        return 1
    if a.check:
        print(f"arrivals: {a.profile}: {len(want)} Poisson runs, each its seed's schedule")
        return 0
    with open(a.profile + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(a.profile + ".tmp", a.profile)
    print(f"arrivals: {a.profile}: added to {added} Poisson runs (window counts equal the measured requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
