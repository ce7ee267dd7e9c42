#!/usr/bin/env python3
"""tools/probe/check_profile.py: structure check of servesim profile files (format version 1,
docs/profiles.md) with the standard library only, so `make probe-check` runs without torch.
It checks what the probe writes against the shared format: required fields, kinds, units,
positive finite latencies, integer byte counts, one time unit per file. `servesim calibrate` is
the authority; this catches a probe that drifted from the format before calibrate sees it.

  tools/probe/check_profile.py FILE...     # exit 0 when all pass, 2 with one line per problem
  tools/probe/check_profile.py --self-test # the checker on built-in good and bad documents
"""
import json
import math
import re
import sys

KINDS = {
    "compute": {"device": str, "batch": "count", "latency_s": "times"},
    "transport": {"transport": str, "bytes": "bytes", "latency_s": "times"},
    "memcpy": {"bytes": "bytes", "latency_s": "times"},
    "memory": {"what": str, "device": str, "bytes": "bytes"},
    "coldstart": {"model": str, "stage": ("load", "init", "transfer"), "duration_s": "times"},
    "stacking": {"runnable": "count", "cores": "count", "stretch_s": "diffs"},
    "speed": {"model": str, "device": str, "threads": "count", "phase": ("micro", "e2e"), "latency_s": "requests"},
    "wake": {"transport": str, "gap_s": "time0", "idle_s": "idles", "latency_s": "requests"},
    "corun": {"what": str, "device": str, "cores": "count", "runnable": "count", "cpu_s": "requests"},
    "memshare": {"bytes": "count", "streams": "count", "cores": "count", "latency_s": "requests"},
    "transfer": {"mode": ("unicast", "chain"), "receivers": "count", "bytes": "count", "use": ("fit", "validate"),
                 "done_s": "times", "first_s": "firsts"},
    "resident": {"device": str, "stage": ("import", "loaded", "forward"), "rss_bytes": "readings",
                 "peak_bytes": "readings"},
}
MICRO_MODES = ("warm", "pipeline")
OPTIONAL = {"compute": {"model": str, "block": str, "layer": str, "threads": "count", "in_bytes": "bytes",
                        "out_bytes": "bytes", "micro_mode": MICRO_MODES},
            "transport": {"micro_mode": MICRO_MODES},
            "stacking": {"work_s": "time", "delivery_s": "times"},
            "speed": {"run": str, "at": ("before", "after")},
            "wake": {"micro_mode": MICRO_MODES},
            "transfer": {"chunk_bytes": "bytes", "rep": "count"},
            "resident": {"model": str, "threads": "count", "allocator": str, "weights_bytes": "bytes", "batch": "count",
                         "input_bytes": "bytes", "activation_bytes": "bytes"}}
ENV = {"machine": str, "cpu_model": str, "cores": "count", "memory_bytes": "bytes", "os": str,
       "libraries": dict, "date": "date"}
# environment.kernel (optional, tools/probe/kernel.py): each constant a number or null (not read)
KERNEL = {"release": str, "slice_s": "time?", "tick_s": "time?", "migration_cost_s": "time0?"}
RESULTS = {"requests": "bytes", "throughput_per_s": "rate", "latency_mean_s": "time",
           "latency_p50_s": "time", "latency_p99_s": "time"}
UNIT_RE = re.compile(r"_(s|ms|us)$")


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_value(path, v, want, errs):
    ok = True
    if isinstance(want, str) and want.endswith("?"):  # a number, or null where it was not read
        if v is None:
            return
        want = want[:-1]
    if want is str:
        ok = isinstance(v, str) and v != ""
        what = "a non-empty string"
    elif want is dict:
        ok = isinstance(v, dict)
        what = "an object"
    elif isinstance(want, tuple):
        ok = v in want
        what = "one of " + ", ".join(want)
    elif want == "count":
        ok = isinstance(v, int) and not isinstance(v, bool) and v >= 1
        what = "an integer >= 1"
    elif want == "bytes":
        ok = isinstance(v, int) and not isinstance(v, bool) and v >= 0
        what = "an integer >= 0"
    elif want == "time":
        ok = _num(v) and v > 0
        what = "a positive finite number"
    elif want == "time0":
        ok = _num(v) and v >= 0
        what = "a finite number >= 0"
    elif want == "rate":
        ok = _num(v) and v >= 0
        what = "a finite rate >= 0"
    elif want in ("times", "requests"):  # requests: a speed check, at least two
        ok = isinstance(v, list) and len(v) > (want == "requests") and all(_num(x) and x > 0 for x in v)
        what = ("an array of at least two positive finite numbers" if want == "requests"
                else "a non-empty array of positive finite numbers")
    elif want == "firsts":               # transfer: per receiver, its first byte
        ok = isinstance(v, list) and len(v) >= 1 and all(_num(x) and x >= 0 for x in v)
        what = "a non-empty array of finite numbers >= 0"
    elif want == "idles":                # wake: per message, the receiver's idle time
        ok = isinstance(v, list) and len(v) >= 2 and all(_num(x) and x >= 0 for x in v)
        what = "an array of at least two finite numbers >= 0"
    elif want == "diffs":                # wall minus CPU time: two clocks, may dip below 0
        ok = isinstance(v, list) and len(v) >= 2 and all(_num(x) for x in v)
        what = "an array of at least two finite numbers"
    elif want == "readings":             # resident: one byte count per process
        ok = isinstance(v, list) and len(v) >= 1 and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                                         for x in v)
        what = "a non-empty array of integers >= 0"
    elif want == "date":
        ok = isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) is not None
        what = "a date YYYY-MM-DD"
    if not ok:
        errs.append(f"{path}: expected {what}")


def _check_fields(path, obj, spec, errs, required=True):
    for key, want in spec.items():
        if key not in obj:
            if required:
                errs.append(f"{path}: missing required field '{key}'")
            continue
        _check_value(f"{path}.{key}", obj[key], want, errs)


def _units(obj, path, found):
    """Collect (unit, path) of every time-unit key, depth first in file order."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if path == "$" and k == "environment":
                continue  # the environment holds no time of the measurement (kernel constants are in s)
            m = UNIT_RE.search(k)
            if m and not re.search(r"_per_(s|ms|us)$", k):
                found.append((m.group(1), f"{path}.{k}"))
            _units(v, f"{path}.{k}", found)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _units(v, f"{path}[{i}]", found)


def _check_resident(p, s, errs):
    """A resident sample's fields by stage, and one peak per process, none below its resident set."""
    stage = s.get("stage")
    need = {"import": (), "loaded": ("model", "weights_bytes"),
            "forward": ("model", "weights_bytes", "batch", "activation_bytes")}.get(stage, ())
    for k in need:
        if k not in s:
            errs.append(f"{p}: missing required field '{k}' (stage {stage})")
    for k in ("weights_bytes", "batch", "input_bytes", "activation_bytes"):
        if k in s and k not in need and not (k == "input_bytes" and stage == "forward"):
            errs.append(f"{p}.{k}: not a field of stage {stage}")
    rss, peak = s.get("rss_bytes"), s.get("peak_bytes")
    if isinstance(rss, list) and isinstance(peak, list):
        if len(rss) != len(peak):
            errs.append(f"{p}.peak_bytes: expected one reading per process ({len(rss)}, as rss_bytes)")
        elif any(_num(a) and _num(b) and b < a for a, b in zip(rss, peak)):
            errs.append(f"{p}.peak_bytes: expected each at least its process's rss_bytes")


def check(doc):
    """List of problems of one parsed profile document (empty when it passes)."""
    errs = []
    if not isinstance(doc, dict):
        return ["$: expected an object"]
    if doc.get("servesim_profile") != 1:
        errs.append("$.servesim_profile: expected 1")
    _check_fields("$", doc, {"source": str, "environment": dict}, errs)
    if isinstance(doc.get("environment"), dict):
        _check_fields("$.environment", doc["environment"], ENV, errs)
        kern = doc["environment"].get("kernel")
        if kern is not None:
            if isinstance(kern, dict):
                _check_fields("$.environment.kernel", kern, KERNEL, errs)
            else:
                errs.append("$.environment.kernel: expected an object")
    if "samples" not in doc and "runs" not in doc:
        errs.append("$: expected 'samples' or 'runs' (at least one)")
    for i, s in enumerate(doc.get("samples", []) if isinstance(doc.get("samples"), list) else []):
        p = f"$.samples[{i}]"
        if not isinstance(s, dict) or s.get("kind") not in KINDS:
            errs.append(f"{p}.kind: expected one of {', '.join(KINDS)}")
            continue
        _check_fields(p, s, KINDS[s["kind"]], errs)
        _check_fields(p, s, OPTIONAL.get(s["kind"], {}), errs, required=False)
        if s["kind"] == "speed" and ("run" in s) != ("at" in s):
            errs.append(f"{p}: expected both 'run' and 'at' (the run a check stood beside, and before or after "
                        f"it), or neither")
        if s["kind"] == "speed" and "run" in s and s.get("phase") != "e2e":
            errs.append(f"{p}.run: only a check beside the end-to-end runs (phase e2e) stands beside a run")
        if s["kind"] == "wake" and isinstance(s.get("idle_s"), list) and isinstance(s.get("latency_s"), list) \
                and len(s["idle_s"]) != len(s["latency_s"]):
            errs.append(f"{p}.idle_s: expected one idle time per message ({len(s['latency_s'])}, as latency_s)")
        if s["kind"] == "transfer" and isinstance(s.get("done_s"), list) and isinstance(s.get("first_s"), list) \
                and not len(s["done_s"]) == len(s["first_s"]) == s.get("receivers"):
            errs.append(f"{p}.done_s: expected one last and one first byte per receiver ({s.get('receivers')})")
        if s["kind"] == "corun" and all(isinstance(s.get(k), int) and not isinstance(s.get(k), bool)
                                        for k in ("runnable", "cores")) and s["runnable"] > 2 * s["cores"]:
            errs.append(f"{p}.runnable: expected at most 2 x cores ({2 * s['cores']}): alone, one per core or "
                        f"two per core")
        if s["kind"] == "memshare" and all(isinstance(s.get(k), int) and not isinstance(s.get(k), bool)
                                           for k in ("streams", "cores")) and s["streams"] > s["cores"]:
            errs.append(f"{p}.streams: expected at most the cores ({s['cores']}): one copy per core")
        if s["kind"] == "resident":
            _check_resident(p, s, errs)
    ids = set()
    for i, r in enumerate(doc.get("runs", []) if isinstance(doc.get("runs"), list) else []):
        p = f"$.runs[{i}]"
        if not isinstance(r, dict):
            errs.append(f"{p}: expected an object")
            continue
        _check_fields(p, r, {"id": str, "conditions": dict, "results": dict}, errs)
        if r.get("id") in ids:
            errs.append(f"{p}.id: duplicate id '{r['id']}'")
        ids.add(r.get("id"))
        c = r.get("conditions", {})
        if isinstance(c, dict):
            _check_fields(f"{p}.conditions", c, {"model": str, "transport": str,
                                                 "arrival": ("poisson", "closed"), "batch": "count",
                                                 "placement": str, "duration_s": "time"}, errs)
            _check_fields(f"{p}.conditions", c, {"warmup_s": "time0", "background_cores": "rate"}, errs,
                          required=False)
            if c.get("arrival") == "poisson":
                _check_fields(f"{p}.conditions", c, {"rate_per_s": "time"}, errs)
                _check_arrivals(f"{p}.conditions", c, errs)
            elif c.get("arrival") == "closed":
                _check_fields(f"{p}.conditions", c, {"clients": "count"}, errs)
        if isinstance(r.get("results"), dict):
            _check_fields(f"{p}.results", r["results"], RESULTS, errs)
    found = []
    _units(doc, "$", found)
    if found:
        first = found[0]
        for unit, path in found:
            if unit != first[0]:
                errs.append(f"{path}: mixed units: '_{unit}' after '_{first[0]}' at {first[1]}")
                break
    return errs


def _check_arrivals(p, c, errs):
    """A poisson run's optional arrivals_s: offsets >= 0, in order, inside warm-up + duration."""
    a = c.get("arrivals_s")
    if a is None:
        return
    if not isinstance(a, list) or not a:
        errs.append(f"{p}.arrivals_s: expected a non-empty list of offsets (s)")
        return
    end = c.get("warmup_s", 0) + c.get("duration_s", 0) if all(
        isinstance(c.get(k, 0), (int, float)) for k in ("warmup_s", "duration_s")) else float("inf")
    prev = 0.0
    for i, t in enumerate(a):
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t < prev or t >= end:
            errs.append(f"{p}.arrivals_s[{i}]: expected an offset in order, from {prev:g} to below {end:g} s")
            return
        prev = t


def check_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (OSError, ValueError) as e:
        return [f"{path}: {e}"]
    return [f"{path}: {e}" for e in check(doc)]


def self_test():
    """Good and bad documents; returns the number of failed expectations."""
    env = {"machine": "m", "cpu_model": "c", "cores": 2, "memory_bytes": 1, "os": "o",
           "libraries": {}, "date": "2026-11-26",
           "kernel": {"release": "6.18.44", "slice_s": 0.0014, "tick_s": 0.004, "migration_cost_s": None}}
    good = {"servesim_profile": 1, "source": "s", "environment": env,
            "samples": [{"kind": "compute", "block": "block1", "device": "cpu", "batch": 1,
                         "threads": 1, "micro_mode": "pipeline", "latency_s": [0.01]},
                        {"kind": "transport", "transport": "zmq-copy", "bytes": 4000, "latency_s": [1e-4]},
                        {"kind": "wake", "transport": "zmq-copy", "gap_s": 0.3, "idle_s": [0.32, 0.33],
                         "latency_s": [0.004, 0.005]},
                        {"kind": "corun", "what": "block1", "device": "cpu", "cores": 2, "runnable": 4,
                         "cpu_s": [0.0214, 0.0217]},
                        {"kind": "speed", "model": "m", "device": "cpu", "threads": 1, "phase": "e2e",
                         "run": "a", "at": "before", "latency_s": [0.09, 0.091]},
                        {"kind": "memshare", "bytes": 67108864, "streams": 2, "cores": 2,
                         "latency_s": [0.0062, 0.0064]},
                        {"kind": "resident", "model": "resnet50", "device": "cpu", "stage": "forward",
                         "threads": 2, "weights_bytes": 102400000, "batch": 1, "input_bytes": 602112,
                         "activation_bytes": 10000000, "rss_bytes": [400000000], "peak_bytes": [410000000]}],
            "runs": [{"id": "a", "conditions": {"model": "m", "transport": "zmq-copy", "arrival": "closed",
                                                "clients": 1, "batch": 1, "placement": "p",
                                                "duration_s": 1.0, "warmup_s": 0},
                      "results": {"requests": 3, "throughput_per_s": 1.0, "latency_mean_s": 0.1,
                                  "latency_p50_s": 0.1, "latency_p99_s": 0.2}}]}
    bad = {
        "missing field": lambda d: d["samples"][0].pop("batch"),
        "negative latency": lambda d: d["samples"][0].__setitem__("latency_s", [0.01, -1.0]),
        "mixed units": lambda d: d["samples"][1].__setitem__("latency_ms", [0.1]),
        "unknown kind": lambda d: d["samples"][0].__setitem__("kind", "gpu"),
        "float bytes": lambda d: d["samples"][1].__setitem__("bytes", 4000.5),
        "no clients": lambda d: d["runs"][0]["conditions"].pop("clients"),
        "unknown micro_mode": lambda d: d["samples"][1].__setitem__("micro_mode", "cold"),
        "wake idle times not one per message": lambda d: d["samples"][2].__setitem__("idle_s", [0.32, 0.3, 0.3]),
        "corun runnable above 2 x cores": lambda d: d["samples"][3].__setitem__("runnable", 5),
        "corun negative CPU time": lambda d: d["samples"][3].__setitem__("cpu_s", [0.0214, -0.0217]),
        "speed check with run but no at": lambda d: d["samples"][4].pop("at"),
        "memshare streams above the cores": lambda d: d["samples"][5].__setitem__("streams", 3),
        "memshare with no streams": lambda d: d["samples"][5].pop("streams"),
        "resident forward without its batch": lambda d: d["samples"][6].pop("batch"),
        "resident peak below the resident set": lambda d: d["samples"][6].__setitem__("peak_bytes", [300000000]),
        "resident import with weights": lambda d: d["samples"][6].__setitem__("stage", "import"),
        "speed check beside the micro-benchmarks naming a run": lambda d: d["samples"][4].__setitem__("phase", "micro"),
        "kernel slice of 0": lambda d: d["environment"].__setitem__(
            "kernel", {"release": "6.18", "slice_s": 0, "tick_s": 0.004, "migration_cost_s": None}),
        "kernel without its tick": lambda d: d["environment"].__setitem__(
            "kernel", {"release": "6.18", "slice_s": 0.0014, "migration_cost_s": None}),
        "arrivals out of order": lambda d: d["runs"].append(
            {"id": "b", "conditions": dict(d["runs"][0]["conditions"], arrival="poisson", rate_per_s=2.0,
                                           arrivals_s=[0.1, 0.5, 0.3]), "results": d["runs"][0]["results"]}),
    }
    failed = 0
    if check(good):
        print("self-test: good document rejected:", check(good))
        failed += 1
    for name, spoil in bad.items():
        doc = json.loads(json.dumps(good))
        spoil(doc)
        errs = check(doc)
        print(f"self-test: {name}: {'caught: ' + errs[0] if errs else 'NOT CAUGHT'}")
        failed += not errs
    return failed


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    errs = [e for path in argv[1:] for e in check_file(path)]
    for e in errs:
        print(e, file=sys.stderr)
    if not errs:
        print(f"check_profile: {len(argv) - 1} file(s) pass")
    return 2 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
