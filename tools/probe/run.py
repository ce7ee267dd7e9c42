#!/usr/bin/python3
"""tools/probe/run.py: measure the real ResNet50 block pipeline on this machine and write
servesim profile files (format: docs/profiles.md, version 1): micro-benchmarks for calibration
(probe-micro.json, "samples") and end-to-end runs for validation (probe-e2e.json, "runs").

  tools/probe/run.py                  # the full probe (make probe), about 5-7 minutes on 2 cores
  tools/probe/run.py --quick          # one to two minutes, to build/probe-quick/, for development
  tools/probe/run.py --only micro     # or e2e
  tools/probe/run.py --micro-mode warm  # the micro-benchmarks back to back (default: pipeline)
Everything derived from the machine is measured here: the Poisson rates are fractions of the
capacity measured by the closed-loop runs just before them, nothing is typed in.
"""
import argparse
import datetime
import json
import os
import platform
import socket
import sys
import sysconfig
import time

import arrivals
import kernel

OPENBLAS_DIR = f"/usr/lib/{sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu'}/openblas-openmp"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FULL = {"few_sizes": False, "batches": [1, 2, 4, 8], "threads": [1, 2], "compute_reps": 8,
        "compute_budget_s": 1.0, "hop_reps": 40, "memcpy_reps": 30, "clients": [1, 2, 3, 4, 5, 6, 7, 8],
        "loads": [0.2, 0.4, 0.6, 0.8, 0.95], "warmup_s": 1.5, "closed_s": 5.0, "poisson_s": 10.0,
        "stacking_s": 20.0, "corun_s": 1.0, "corun_rounds": 3, "wake_gaps_s": [0.0, 0.3, 0.6, 1.2],
        "wake_reps": 6}
QUICK = {"few_sizes": True, "batches": [1, 2], "threads": [1], "compute_reps": 3,
         "compute_budget_s": 0.3, "hop_reps": 8, "memcpy_reps": 8, "clients": [1, 3],
         "loads": [0.6], "warmup_s": 1.0, "closed_s": 3.0, "poisson_s": 4.0,
         "stacking_s": 4.0, "corun_s": 0.5, "corun_rounds": 1, "wake_gaps_s": [0.0, 0.6], "wake_reps": 2}


MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(128 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}


def _reexec_with_env(system_malloc):
    """Re-run this script once with the environment every probe process should have.

    BLAS: Debian's torch calls the system BLAS; the reference libblas is ~10x slower than
    OpenBLAS on ResNet50's 1x1 convolutions. LD_LIBRARY_PATH puts OpenBLAS's OpenMP build (it
    follows torch.set_num_threads) first, without switching the machine's BLAS alternative.
    malloc: by default glibc gives every buffer over a (moving) threshold fresh mmap()ed pages
    and returns them at free(), so each pickled tensor page-faults its whole buffer in again;
    on the development VM that made pickling a 3.2 MB tensor take ~20 ms instead of ~0.3 ms,
    and vary from run to run. The two thresholds keep such buffers on the heap for reuse (as
    a long-running server's allocator would); --system-malloc measures without them.
    """
    if os.environ.get("SERVESIM_PROBE_ENV") == "1":
        return
    env = dict(os.environ, SERVESIM_PROBE_ENV="1")
    if os.path.isdir(OPENBLAS_DIR):
        env["LD_LIBRARY_PATH"] = OPENBLAS_DIR + (":" + env["LD_LIBRARY_PATH"]
                                                 if env.get("LD_LIBRARY_PATH") else "")
    if not system_malloc:
        for key, value in MALLOC_ENV.items():
            env.setdefault(key, value)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def _malloc_note():
    tuned = [f"{k}={os.environ[k]}" for k in MALLOC_ENV if k in os.environ]
    return "glibc malloc with " + ", ".join(tuned) if tuned else "glibc malloc, default thresholds"


def _loadavg():
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


def environment(notes):
    """The profile's environment block, read from this machine."""
    try:  # the transfer experiment (transfer.py) runs where torch is absent
        import numpy
        import torch
        import torchvision
        versions = {"torch": torch.__version__, "torchvision": torchvision.__version__, "numpy": numpy.__version__}
    except ImportError:
        versions = {"torch": "absent", "torchvision": "absent", "numpy": "absent"}
    try:  # the GPU part alone (--only gpu) runs where pyzmq may be absent
        import zmq
        zmq_v, libzmq_v = zmq.__version__, zmq.zmq_version()
    except ImportError:
        zmq_v = libzmq_v = "absent"
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo", encoding="ascii") as f:
        mem = int(f.readline().split()[1]) * 1024
    osname = platform.platform()
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    blas = "reference libblas"
    if OPENBLAS_DIR in os.environ.get("LD_LIBRARY_PATH", ""):
        blas = "OpenBLAS (openmp) " + os.path.basename(os.path.realpath(
            os.path.join(OPENBLAS_DIR, "libopenblas.so.0")))
    return {
        "machine": socket.gethostname(), "cpu_model": cpu, "cores": os.cpu_count(),
        "memory_bytes": mem, "os": osname,
        "libraries": {"python": platform.python_version(), "torch": versions["torch"],
                      "torchvision": versions["torchvision"], "pyzmq": zmq_v,
                      "libzmq": libzmq_v, "numpy": versions["numpy"], "blas": blas},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "notes": notes,
        "kernel": kernel.kernel(),
    }


def tee_log(logf, t0):
    """A log function: each line stamped with the seconds since t0 (time.monotonic), printed and
    written to the open file logf. The probe's parts (run.py, transfer.py, memshare.py) log alike."""
    def log(msg):
        line = f"[{time.monotonic() - t0:5.0f} s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()
    return log


def write_profile(path, env, source, samples=None, runs=None):
    doc = {"servesim_profile": 1, "source": source, "environment": env}
    if samples:
        doc["samples"] = samples
    if runs:
        doc["runs"] = runs
    write_json(path, doc)


def write_json(path, doc):
    """A profile document as the probe writes it: indent 1, no NaN, a final newline, through a
    temporary file (name_speed_checks.py rewrites committed ones the same way)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(path + ".tmp", path)


def hop_sizes(split):
    """Message sizes spanning the blocks' tensors: every per-sample tensor, and the largest x 2, x 4."""
    sizes = set()
    for b in split["blocks"]:
        sizes.add(b["in_bytes_per_sample"])
        sizes.add(b["out_bytes_per_sample"])
    top = max(sizes)
    return sorted(sizes | {2 * top, 4 * top})


def hop_chain(split):
    """The pipeline's hops for the micro-benchmarks' pipeline mode: [(bytes, producing piece,
    consuming piece)] in request order, None where the dispatcher sends (it forwards the
    input) or the client receives (pipeline.hop_plan)."""
    import pipeline
    return [(nbytes, None if snd == "dispatcher" else snd, None if rcv == "client" else rcv)
            for _, snd, rcv, nbytes in pipeline.hop_plan(split)]


MICRO_MODE_NOTE = {
    "warm": "micro-benchmarks in warm mode (--micro-mode warm): each configuration's calls back to "
            "back, caches warm",
    "pipeline": "micro-benchmarks in pipeline mode (--micro-mode pipeline, tools/probe/micro.py): compute "
                "timed round-robin over the chain's pieces, hops timed round-robin over the pipeline's "
                "hops with the producing and consuming blocks' compute around each [ASSUMPTION: between "
                "two of its calls the rest of the chain evicts a piece's caches, as in the pipeline]; "
                "memcpy back to back",
}


def run_micro(cfg, split, log, mode="pipeline", check=lambda: None):
    """The micro-benchmark samples, and the CPU use while the compute ones ran; the host's speed
    checked (check()) before, between and after the compute and transport parts."""
    import blocks
    import load
    import micro
    net = blocks.build_resnet(seed=0)
    pieces = blocks.pieces(split, net)
    blocks.check_shapes(pieces)
    names = [b["name"] for b in split["blocks"]] + [
        p for p in blocks.process_names(split) if p not in {b["name"] for b in split["blocks"]}]
    fused = [n for n in names if n not in {b["name"] for b in split["blocks"]}]
    check()
    meter = load.CpuMeter([os.getpid()])
    meter.mark()
    samples = micro.compute_samples(pieces, names, cfg["batches"], cfg["threads"], cfg["compute_reps"],
                                    1, log, cfg["compute_budget_s"], first_threads_only=fused, mode=mode)
    meter.mark()
    cpu = meter.cores()
    log(f"compute micro-benchmarks: {_cpu_text(cpu)}")
    check()
    sizes = hop_sizes(split)
    if cfg["few_sizes"]:
        sizes = [sizes[0], sizes[len(sizes) // 2], sizes[-1]]
    samples += micro.transport_samples(("zmq-copy", "shm-handle"), sizes, cfg["hop_reps"], 3, log,
                                       mode=mode, chain=hop_chain(split), piece_map=pieces)
    check()
    samples += micro.memcpy_samples(sizes, cfg["memcpy_reps"], 2, log)
    check()
    return samples, cpu


def _placement(threads):
    return (f"all on one host's CPU: client, dispatcher and 4 block processes (block1, block2, "
            f"block3, block4_class), one process each, torch threads {threads} per process, "
            f"sharing {os.cpu_count()} cores; ipc:// sockets")


def run_id(kind, arrival, value, suffix=""):
    """A run's id in probe-e2e.json (and in its speed checks' `run`): transport, arrival, the clients
    or the rate, and the pass suffix (-pass2, ...); name_speed_checks.py builds the same ids."""
    if arrival == "poisson":
        return f"{kind}-poisson-{value:g}{suffix}"
    return f"{kind}-closed-{value}{suffix}"


def _run_entry(kind, arrival, value, res, cfg, threads, duration_s, cpu, sched=None, sched_seed=None, suffix=""):
    cond = {"model": "resnet50-split", "transport": kind, "arrival": arrival}
    if arrival == "poisson":
        cond["rate_per_s"] = value
    else:
        cond["clients"] = value
    rid = run_id(kind, arrival, value, suffix)
    cond.update({"batch": 1, "placement": _placement(threads), "duration_s": duration_s,
                 "warmup_s": cfg["warmup_s"]})
    if cpu["background_cores"] == cpu["background_cores"]:      # not NaN
        cond["background_cores"] = round(cpu["background_cores"], 3)
    entry = {"id": rid, "conditions": cond, "results": res}
    if sched is not None:
        cond["arrivals_s"] = sched                      # replayed by servesim validate
        entry["notes"] = arrivals.seed_note(sched_seed)
    return entry


def _cpu_text(cpu):
    import speed
    checks = cpu.get("speed_s")
    return (f"cores: probe {cpu['probe_cores']:.2f}, others {cpu['background_cores']:.2f}, "
            f"probe threads waiting for a core {cpu['waiting_cores']:.2f}"
            + (f", host speed check {speed.text(checks[0])} before, {speed.text(checks[1])} after"
               if checks else ""))


def _log_counters(counters, log, cpu=None, pids=None, requests=0):
    """Each process's counters over the window; with cpu (CpuMeter.cores()) and pids (role -> pid),
    its CPU time per message too (utime + stime over the window, all its threads), and the client's
    (this process's) per request."""
    by_pid = (cpu or {}).get("cpu_s_by_pid", {})
    for role, st in sorted(counters.items()):
        n = max(st["messages"], 1)
        c = by_pid.get((pids or {}).get(role))
        log(f"    {role:13s} msgs {st['messages']:5d}  compute {1e3 * st['compute_s'] / n:7.2f} ms"
            f"  decode {1e3 * st['decode_s'] / n:6.2f} ms  send {1e3 * st['send_s'] / n:6.2f} ms"
            f"  idle {st['idle_s']:6.2f} s  rss {st['rss_bytes'] / 2**20:6.1f} MiB"
            + (f"  cpu {1e3 * c / n:7.2f} ms/msg" if c is not None else ""))
    if os.getpid() in by_pid and requests:
        log(f"    {'client':13s} cpu {1e3 * by_pid[os.getpid()] / requests:7.2f} ms/request")


def _capacity(closed):
    """The pipeline's measured capacity: the median closed-loop throughput over the runs with
    at least half the largest client count (the saturated plateau; the median, because one run
    on a busy machine can be far off)."""
    top = sorted(x for n, x in closed.items() if n >= max(closed) / 2)
    mid = len(top) // 2
    return top[mid] if len(top) % 2 else (top[mid - 1] + top[mid]) / 2


def run_e2e(cfg, split, seed, threads, log, check, capacities, rss, suffix=""):
    """Both transports, each on a pipeline of its own, the host's speed checked before and after
    every run (check(run id, "before" or "after") returns the check's times). Returns the runs.
    `capacities` ({transport: /s}): the Poisson rates' base, filled in by the first pass and reused
    by later ones (so that every pass repeats the same conditions); `rss` ({process: bytes}): each
    process's peak, over every pass; `suffix` goes on every run id (-pass2, ...)."""
    import pipeline as pl
    runs = []
    payload = pl.pickled_input(split["blocks"][0]["in_shape"], seed)
    for ti, kind in enumerate(arrivals.TRANSPORTS):
        t0 = time.monotonic()
        pipe = pl.Pipeline(split, kind, threads=threads, seed=seed)
        log(f"e2e {kind}: pipeline up in {time.monotonic() - t0:.1f} s")
        try:
            runs += _e2e_transport(pipe, kind, (seed, ti), cfg, threads, payload, rss, log, check, capacities,
                                   suffix)
        finally:
            pipe.close()
    return runs


def _e2e_transport(pipe, kind, seeds, cfg, threads, payload, rss, log, check, capacities, suffix):
    """Closed loop for every client count, then Poisson at fractions of the capacity those
    runs measured (_capacity), each on the arrival schedule of (probe seed, transport index) = seeds
    and its load index (arrivals.py), recorded in the run as arrivals_s. Peak RSS per process goes into rss."""
    import load
    runs, closed = [], {}

    def record(arrival, value, res, lost, counters, cpu, window_s, text, sched=None, sched_seed=None):
        if not res["requests"]:
            log(f"  {text}: no request completed in the window; run left out")
            return
        runs.append(_run_entry(kind, arrival, value, res, cfg, threads, window_s, cpu, sched, sched_seed, suffix))
        log(f"  {text}: {res['throughput_per_s']:6.2f} /s  mean {1e3 * res['latency_mean_s']:7.1f} ms"
            f"  p50 {1e3 * res['latency_p50_s']:7.1f} ms  p99 {1e3 * res['latency_p99_s']:7.1f} ms"
            f"  ({res['requests']} requests{', %d not back' % lost if lost else ''})  {_cpu_text(cpu)}")
        _log_counters(counters, log, cpu, pipe.pids, res["requests"])
        for role, st in counters.items():
            rss[role] = max(rss.get(role, 0), st["rss_bytes"])

    for n in cfg["clients"]:
        rid = run_id(kind, "closed", n, suffix)
        before = check(rid, "before")
        res, lost, counters, cpu = load.run_closed(pipe, payload, n, cfg["warmup_s"], cfg["closed_s"])
        cpu["speed_s"] = (before, check(rid, "after"))
        record("closed", n, res, lost, counters, cpu, cfg["closed_s"], f"closed {n} clients")
        if res["requests"]:
            closed[n] = res["throughput_per_s"]
    if not closed:
        log("  no closed-loop run completed: no capacity, Poisson runs left out")
        return runs
    measured = _capacity(closed)
    capacity = capacities.setdefault(kind, measured)
    log(f"  capacity (median closed-loop throughput, clients >= {max(closed) / 2:g}): {measured:.2f} /s"
        + (f"; the Poisson rates from the first pass's {capacity:.2f} /s" if capacity != measured else ""))
    for li, frac in enumerate(cfg["loads"]):
        rate = round(frac * capacity, 2)
        sched_seed = arrivals.schedule_seed(*seeds, li)
        sched = arrivals.schedule(rate, sched_seed, cfg["warmup_s"], cfg["poisson_s"])
        rid = run_id(kind, "poisson", rate, suffix)
        before = check(rid, "before")
        res, lost, counters, cpu = load.run_poisson(pipe, payload, sched, cfg["warmup_s"], cfg["poisson_s"])
        cpu["speed_s"] = (before, check(rid, "after"))
        record("poisson", rate, res, lost, counters, cpu, cfg["poisson_s"],
               f"poisson {rate:6.2f} /s ({100 * frac:.0f}%)", sched, sched_seed)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="short runs for development (1-2 min)")
    ap.add_argument("--out", help="output folder (default profiles/measured, quick: build/probe-quick)")
    ap.add_argument("--only", choices=("micro", "e2e", "gpu", "stacking", "corun", "wake"),
                    help="one part of the probe (gpu: item 7 alone; stacking: the scheduler's wake-up stacking; "
                         "corun: a block's CPU time alone, co-running and time-sliced; "
                         "wake: hops into a process that has been idle)")
    ap.add_argument("--seed", type=int, default=1, help="seed of weights, input and arrivals")
    ap.add_argument("--threads", type=int, default=1, help="torch threads per block process")
    ap.add_argument("--closed-s", type=float, help="measured window of each closed-loop run (full: 5)")
    ap.add_argument("--poisson-s", type=float, help="measured window of each Poisson run (full: 10)")
    ap.add_argument("--warmup-s", type=float, help="warm-up before each window (full: 1.5)")
    ap.add_argument("--loads", type=float, nargs="+",
                    help="the Poisson runs' offered loads, as fractions of the measured capacity (full: 0.2 0.4 "
                         "0.6 0.8 0.95; above 1 overloads the pipeline: issue 41 item 5(ii))")
    ap.add_argument("--micro-mode", choices=("pipeline", "warm"), default="pipeline",
                    help="how compute and hops are timed: pipeline (default: each piece's calls interleaved "
                         "with the rest of the chain, as the running pipeline makes them) or warm (back to "
                         "back); tools/probe/micro.py")
    ap.add_argument("--passes", type=int, default=1,
                    help="repeat the micro-benchmarks and the end-to-end runs this many times, interleaved "
                         "(micro, e2e, micro, e2e, ...): calibrate pools the micro-benchmarks, and the runs of "
                         "pass k > 1 repeat pass 1's conditions under ids ending -passk (default 1)")
    ap.add_argument("--system-malloc", action="store_true",
                    help="leave glibc's malloc thresholds at their defaults (see _reexec_with_env)")
    args = ap.parse_args()
    if args.passes < 1:
        ap.error("--passes: expected a whole number >= 1")
    _reexec_with_env(args.system_malloc)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.chdir(ROOT)
    cfg = dict(QUICK if args.quick else FULL)
    for key in ("closed_s", "poisson_s", "warmup_s", "loads"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    if any(not (0 < x <= 10) for x in cfg["loads"]):
        ap.error("--loads: expected fractions of the capacity in (0, 10]")
    out = args.out or os.path.join(ROOT, "build/probe-quick" if args.quick else "profiles/measured")
    os.makedirs(out, exist_ok=True)
    logf = open(os.path.join(out, "probe-log.txt"), "w", encoding="utf-8")

    log = tee_log(logf, time.monotonic())

    import torch
    import blocks
    torch.set_num_threads(1)
    split = blocks.load_split()
    t_start = time.monotonic()
    load_before = _loadavg()
    mode = "quick" if args.quick else "full"
    parts = f"only {args.only}" if args.only else "every part"
    micro = f", micro-benchmarks in {args.micro_mode} mode" if args.only in (None, "micro") else ""
    log(f"probe: {mode} run ({parts}), seed {args.seed}{micro}, load average before {load_before}")
    samples, runs, micro_cpu = [], [], None
    import speed
    checker = speed.SpeedCheck(split) if args.only in (None, "micro", "e2e") else None
    checks = {"micro": [], "e2e": []}

    def check(phase, run=None, at=None):
        """One speed check; beside an end-to-end run it carries the run's id and "before" or "after"
        (speed.samples writes them as `run` and `at`; a run left out for want of a completed request
        keeps its checks, under the id it would have had)."""
        times = checker()
        checks[phase].append(times if run is None else (times, run, at))
        return times
    capacities, rss = {}, {}
    for k in range(args.passes):
        if args.passes > 1:
            log(f"probe: pass {k + 1} of {args.passes}")
        if args.only in (None, "micro"):
            got, micro_cpu = run_micro(cfg, split, log, args.micro_mode, lambda: check("micro"))
            samples += got
            log(f"host speed checks beside the micro-benchmarks (the chain at batch 1, speed.py): median "
                f"{speed.text(checks['micro'])} over {len(checks['micro'])} checks")
        if args.only in (None, "e2e"):
            runs += run_e2e(cfg, split, args.seed, args.threads, log, lambda rid, at: check("e2e", rid, at),
                            capacities, rss, f"-pass{k + 1}" if k else "")
    mem = [{"kind": "memory", "what": role, "device": "cpu", "bytes": b} for role, b in sorted(rss.items())]
    stack = []
    if args.only in (None, "stacking"):
        import stacking
        stack = stacking.stacking_samples(cfg["stacking_s"], log)
    corun_smp = []
    if args.only in (None, "corun"):
        import corun
        corun_smp = corun.corun_samples(split, cfg["corun_s"], cfg["corun_rounds"], log)
    wake_smp = []
    if args.only in (None, "wake"):
        import wake
        wake_smp = wake.wake_samples(("zmq-copy", "shm-handle"), hop_chain(split),
                                     blocks.pieces(split, blocks.build_resnet(seed=0)), cfg["wake_gaps_s"],
                                     cfg["wake_reps"], log)
    host = speed.samples(checks)
    gpu = []
    if args.only in (None, "gpu"):
        import gpu as gpumod
        ok, why = gpumod.available()
        if ok:
            gpu = gpumod.gpu_samples(hop_sizes(split), cfg["hop_reps"], 3, log)
        else:
            log(f"probe: GPU measurements skipped: {why}")
    wall = time.monotonic() - t_start
    notes = (f"{mode} probe run (tools/probe/run.py), seed {args.seed}, "
             + (f"{args.passes} passes (micro-benchmarks pooled; runs of pass k > 1 named -passk), "
                if args.passes > 1 else "")
             + f"wall {wall:.0f} s; uptime load average (1, 5, 15 min) before {load_before}, "
             f"after {_loadavg()}; machine shared with other jobs"
             + (f" (they kept {micro_cpu['background_cores']:.2f} of the {os.cpu_count()} cores busy "
                f"while the compute micro-benchmarks ran; each run's conditions.background_cores says "
                f"the same for its window)" if micro_cpu else "")
             + (f"; {MICRO_MODE_NOTE[args.micro_mode]}" if samples else "")
             + f"; torch threads {args.threads} per "
             f"block process in the end-to-end runs; Debian python3-torch on {OPENBLAS_DIR}; "
             f"{_malloc_note()}")
    env = environment(notes)
    for name, source, smp, rns in (
            ("probe-micro.json", "micro-benchmarks, resnet50-split blocks alone", samples, None),
            ("probe-e2e.json", "end-to-end runs of the block pipeline", mem, runs),
            ("probe-stacking.json", "the scheduler's wake-up stacking, a ring of burn loops over ZeroMQ", stack, None),
            ("probe-corun.json", "CPU interference: a block's forward alone, co-running one per core, and "
                                 "time-sliced two per core (corun.py)", corun_smp, None),
            ("probe-wake.json", "hops into a block process after an idle gap (wake.py)", wake_smp, None),
            ("probe-speed.json", "the host's speed, the block chain checked beside the micro-benchmarks and "
                                 "beside every end-to-end run (speed.py)", host, None),
            ("probe-gpu.json", "GPU copies", gpu, None)):
        if smp or rns:  # (memory readings come only with runs: record() takes both)
            write_profile(os.path.join(out, name), env, "tools/probe (measured): " + source, samples=smp, runs=rns)
    log(f"probe: done in {wall:.0f} s, files in {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
