#!/usr/bin/env python3
"""tools/probe/name_speed_checks.py: name the end-to-end speed checks of a measurement written
before the probe named them, each after the run it stood beside, verified against the log.

The probe checks the host's speed before and after every end-to-end run (speed.py, phase "e2e")
and now writes each check's run (`run`, the run's id in probe-e2e.json) and `at` ("before" or
"after"). The measurements of 2026-11-27 were written before that: their e2e checks are in the
order they were taken, two per run, with nothing saying which run. This tool names them:

  python3 tools/probe/name_speed_checks.py DIR...          # name the checks, write probe-speed.json
  python3 tools/probe/name_speed_checks.py --check DIR...  # write nothing; fail unless already named

DIR holds probe-speed.json, probe-e2e.json and probe-log.txt. The order of the runs is the log's
(probe-e2e.json's `runs` need not be in the order they ran): every run line of the log names its
transport (the preceding "e2e TRANSPORT: pipeline up"), its pass ("probe: pass K of N"), its
clients or rate, its requests and throughput, and ends "host speed check X ms before, Y ms after",
each the median of one check as speed.text formats it. The tool builds each run's id as run.py
does (run.run_id), and requires that the log's runs be exactly probe-e2e.json's (each id once,
with the same requests and throughput as logged), that there be two e2e checks per run, and that
EVERY check's median, formatted as the log formats it, equal the logged text. On any mismatch it
prints which and leaves that directory's file as it was (exit 1); a run left out for want of a
completed request has no speed text in the log, so such a measurement cannot be confirmed. The
file is written back as run.py writes it (json indent 1, a final newline), the two fields between
`phase` and `latency_s`, so that the diff is the added lines only. Standard library only (no torch).
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as probe_run  # noqa: E402  (run_id, write_json; run.py imports torch only inside main)
import speed  # noqa: E402  (text; speed.py imports torch only inside SpeedCheck)

PASS_RE = re.compile(r"^\[\s*\d+ s\] probe: pass (\d+) of (\d+)$")
TRANSPORT_RE = re.compile(r"^\[\s*\d+ s\] e2e (\S+): pipeline up in ")
RUN_HEAD_RE = re.compile(r"^\[\s*\d+ s\]   (closed \d+ clients|poisson +\S+ /s \(\d+%\)): ")
RUN_RE = re.compile(r"^\[\s*\d+ s\]   (?:closed (?P<clients>\d+) clients|poisson +(?P<rate>\d+(?:\.\d+)?) /s "
                    r"\(\d+%\)): +(?P<tput>\d+\.\d\d) /s .*\((?P<requests>\d+) requests(?:, \d+ not back)?\)  "
                    r"cores: .*, host speed check (?P<before>\S+ ms) before, (?P<after>\S+ ms) after$")


class Mismatch(Exception):
    pass


def log_runs(path):
    """The log's end-to-end runs in the order they ran: [(run id, requests, throughput text,
    before text, after text, line number)]."""
    runs, kind, suffix = [], None, ""
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = PASS_RE.match(line)
            if m:
                suffix = f"-pass{m.group(1)}" if int(m.group(1)) > 1 else ""
                continue
            m = TRANSPORT_RE.match(line)
            if m:
                kind = m.group(1)
                continue
            if not RUN_HEAD_RE.match(line):
                continue
            m = RUN_RE.match(line)
            if not m:
                raise Mismatch(f"{path}:{no}: a run line without the form this tool knows (a run left out, "
                               f"or no host speed check): {line.strip()}")
            if kind is None:
                raise Mismatch(f"{path}:{no}: a run before any 'e2e TRANSPORT: pipeline up' line")
            if m.group("clients"):
                rid = probe_run.run_id(kind, "closed", int(m.group("clients")), suffix)
            else:
                rid = probe_run.run_id(kind, "poisson", float(m.group("rate")), suffix)
            runs.append((rid, int(m.group("requests")), m.group("tput"), m.group("before"), m.group("after"), no))
    return runs


def _within_rounding(times, logged):
    """Whether `logged` is what speed.text gave for times that the file holds rounded to 0.1 us
    (run.py's round(t, 7)): the median then lies within 5e-8 s of the stored one's."""
    flat = sorted(times)
    m = (flat[(len(flat) - 1) // 2] + flat[len(flat) // 2]) / 2
    return logged in (speed.text([m - 5e-8]), speed.text([m + 5e-8]))


def name_checks(d, within_rounding=False):
    """(the speed document with every e2e check named, changed?, a summary line); raises Mismatch.
    within_rounding: accept a check whose median, as the file rounds it, could have given the logged
    text (a stored median on the edge between two of the log's tenths of a millisecond)."""
    spath, epath, lpath = (os.path.join(d, n) for n in ("probe-speed.json", "probe-e2e.json", "probe-log.txt"))
    with open(spath, encoding="utf-8") as f:
        doc = json.load(f)
    with open(epath, encoding="utf-8") as f:
        e2e = {r["id"]: r for r in json.load(f).get("runs", [])}
    runs = log_runs(lpath)
    if not runs:
        raise Mismatch(f"{lpath}: no end-to-end run line with host speed checks")
    seen = set()
    for rid, requests, tput, _, _, no in runs:
        if rid in seen:
            raise Mismatch(f"{lpath}:{no}: run {rid} logged twice")
        seen.add(rid)
        if rid not in e2e:
            raise Mismatch(f"{lpath}:{no}: run {rid} is not in {epath}")
        res = e2e[rid]["results"]
        if res["requests"] != requests or f"{res['throughput_per_s']:.2f}" != tput:
            raise Mismatch(f"{lpath}:{no}: run {rid}: logged {requests} requests at {tput} /s, {epath} has "
                           f"{res['requests']} at {res['throughput_per_s']:.2f} /s")
    if set(e2e) != seen:
        raise Mismatch(f"{epath}: runs not in the log: {', '.join(sorted(set(e2e) - seen))}")
    checks = [s for s in doc["samples"] if s.get("kind") == "speed" and s.get("phase") == "e2e"]
    if len(checks) != 2 * len(runs):
        raise Mismatch(f"{spath}: {len(checks)} e2e checks, the log has {len(runs)} runs (expected "
                       f"{2 * len(runs)} checks, two per run)")
    bad, edge = [], []
    for i, (rid, _, _, before, after, no) in enumerate(runs):
        for at, logged, s in (("before", before, checks[2 * i]), ("after", after, checks[2 * i + 1])):
            got = speed.text(s["latency_s"])
            what = (f"e2e check {2 * i + (at == 'after')} (run {rid}, {at}): median {got}, "
                    f"the log (line {no}) has {logged}")
            if got != logged:
                if within_rounding and _within_rounding(s["latency_s"], logged):
                    edge.append(what)
                else:
                    bad.append(what + (" (within the file's rounding to 0.1 us)"
                                       if _within_rounding(s["latency_s"], logged) else ""))
            if ("run" in s or "at" in s) and (s.get("run"), s.get("at")) != (rid, at):
                bad.append(f"e2e check {2 * i + (at == 'after')} already named {s.get('run')!r} {s.get('at')!r}, "
                           f"the log says {rid} {at}")
    if bad:
        raise Mismatch(f"{spath}: {len(bad)} of {len(checks)} e2e checks do not match the log:\n  "
                       + "\n  ".join(bad))
    named = sum("run" in s for s in checks)
    samples = []
    k = 0
    for s in doc["samples"]:
        if s.get("kind") == "speed" and s.get("phase") == "e2e":
            rid, at = runs[k // 2][0], ("before", "after")[k % 2]
            k += 1
            out = {}
            for key, value in s.items():
                if key in ("run", "at"):
                    continue
                if key == "latency_s":
                    out["run"], out["at"] = rid, at
                out[key] = value
            if "run" not in out:
                out["run"], out["at"] = rid, at
            s = out
        samples.append(s)
    doc["samples"] = samples
    passes = len({r[0].rsplit("-pass", 1)[1] if "-pass" in r[0] else "1" for r in runs})
    summary = (f"{d}: {len(checks)} e2e checks of {len(runs)} runs ({passes} pass{'es' * (passes > 1)}) "
               f"verified against {os.path.basename(lpath)}, "
               + (f"{len(checks) - len(edge)} checks' medians as logged, {len(edge)} within the file's rounding "
                  f"({'; '.join(edge)})" if edge else "every check's median as logged"))
    return doc, named != len(checks), summary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", metavar="DIR", help="a measurement: probe-speed.json, probe-e2e.json, "
                                                           "probe-log.txt")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 unless every e2e check is "
                                                         "already named as the log says")
    ap.add_argument("--within-rounding", action="store_true",
                    help="also accept a check whose median the file holds on the edge between two of the log's "
                         "tenths of a millisecond (the file rounds each time to 0.1 us); default: the formatted "
                         "median must equal the logged text")
    args = ap.parse_args()
    failed = 0
    for d in args.dirs:
        try:
            doc, changed, summary = name_checks(d, args.within_rounding)
        except (Mismatch, OSError, ValueError, KeyError, TypeError) as e:
            print(f"name_speed_checks: {d}: left as it was: {e}", file=sys.stderr)
            failed = 1
            continue
        if args.check:
            print(summary + ("; NOT named" if changed else "; named"))
            failed |= changed
        elif changed:
            probe_run.write_json(os.path.join(d, "probe-speed.json"), doc)
            print(summary + "; named (run, at) and written")
        else:
            print(summary + "; already named, unchanged")
    return failed


if __name__ == "__main__":
    sys.exit(main())
