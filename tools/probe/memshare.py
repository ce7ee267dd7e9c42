#!/usr/bin/python3
"""tools/probe/memshare.py: the memory-bandwidth benchmark - does a memory copy slow down when other
cores copy at the same time? (issue 41 item 5(ii); docs/calibration.md, "Copies sharing memory
bandwidth").

k = 1..C processes (C = this machine's cores) each copy a buffer of B bytes into another, over and
over, all released together by a pipe once every buffer is in memory, until a common deadline
`secs` away; each process times every copy (time.perf_counter around one memoryview slice
assignment: one memcpy, no numpy). A process's last copy (it may end after the others stopped)
is dropped. If one copy alone already used the host's memory bandwidth, k copies on k cores
would each run at 1/k of its rate; if the memory had room for all, each would run as fast as
alone. A round runs every (B, k) once in an order shuffled by random.Random(seed); several rounds
spread the host's drift over all conditions. k stays at most C: more copies than cores would be
time-sliced, which is the cores' sharing, not the memory's.

Samples: kind "memshare", bytes B, streams k, cores C, latency_s (every copy of every process of
that condition, pooled over the rounds). `servesim calibrate` turns them into the host's
memory-bandwidth law: one copy's rate and the rate all cores' copies share
(sim/calib/calibrate_memshare.c, `memory_bandwidth`), which the pipeline model uses as a host
resource on its max-min solver (`pipeline.memory_bandwidth`, docs/blockflow.md).

  tools/probe/memshare.py --out DIR [--quick] [--seed 11]
"""
import argparse
import datetime
import os
import random
import sys
import time
from multiprocessing import Process, Queue

FULL = {"sizes_mib": [64, 256], "rounds": 6, "secs": 0.8}
QUICK = {"sizes_mib": [64], "rounds": 1, "secs": 0.3}


def _worker(q, nbytes, go_r, secs):
    src = bytearray(os.urandom(1 << 20)) * (nbytes >> 20)
    dst = bytearray(nbytes)
    md, ms = memoryview(dst), memoryview(src)
    md[:] = ms  # every page of both in memory before the clock
    q.put("ready")
    os.read(go_r, 1)
    deadline = time.perf_counter() + secs
    lat = []
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        md[:] = ms
        lat.append(time.perf_counter() - t0)
    q.put(lat[:-1] if len(lat) > 1 else lat)


def one_condition(nbytes, k, secs):
    """k processes copying nbytes each, together: every copy's latency, pooled."""
    q = Queue()
    go_r, go_w = os.pipe()
    ps = [Process(target=_worker, args=(q, nbytes, go_r, secs)) for _ in range(k)]
    for p in ps:
        p.start()
    for _ in ps:
        assert q.get() == "ready"
    os.write(go_w, b"g" * k)
    lat = []
    for _ in ps:
        lat += q.get()
    for p in ps:
        p.join()
    os.close(go_r)
    os.close(go_w)
    return lat


def memshare_samples(cfg, log, seed=11):
    cores = os.cpu_count() or 1
    plan = [(mib, k) for mib in cfg["sizes_mib"] for k in range(1, cores + 1)]
    pooled = {c: [] for c in plan}
    rng = random.Random(seed)
    for rnd in range(cfg["rounds"]):
        order = plan[:]
        rng.shuffle(order)
        for mib, k in order:
            lat = one_condition(mib << 20, k, cfg["secs"])
            pooled[(mib, k)] += lat
            rate = (mib << 20) / sorted(lat)[len(lat) // 2] / 1e9
            log(f"round {rnd + 1}: {k} cop{'y' if k == 1 else 'ies'} of {mib} MiB together: median {rate:5.2f} GB/s "
                f"each, {k * rate:5.2f} together ({len(lat)} copies)")
    return [{"kind": "memshare", "bytes": mib << 20, "streams": k, "cores": cores,
             "latency_s": [round(x, 9) for x in pooled[(mib, k)]]} for mib, k in plan]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for probe-memshare.json and memshare-log.txt")
    ap.add_argument("--quick", action="store_true", help="a short plan for development (~2 s)")
    ap.add_argument("--seed", type=int, default=11, help="seed of the conditions' order")
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run as probe_run
    os.makedirs(a.out, exist_ok=True)
    cfg = QUICK if a.quick else FULL
    t0 = time.monotonic()
    with open(os.path.join(a.out, "memshare-log.txt"), "w", encoding="utf-8") as logf:
        log = probe_run.tee_log(logf, t0)
        before = os.getloadavg()
        smp = memshare_samples(cfg, log, a.seed)
        wall = time.monotonic() - t0
        notes = (f"{'quick' if a.quick else 'full'} memory-bandwidth benchmark (tools/probe/memshare.py), seed "
                 f"{a.seed}, {cfg['rounds']} rounds of {cfg['secs']} s per condition, wall {wall:.0f} s; each copy a "
                 f"memoryview slice assignment (one memcpy) between two buffers already in memory; uptime load "
                 f"average (1, 5, 15 min) before {' '.join(f'{x:.2f}' for x in before)}, after "
                 f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
                 f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}")
        path = os.path.join(a.out, "probe-memshare.json")
        probe_run.write_profile(path, probe_run.environment(notes),
                                "tools/probe (measured): concurrent memory copies, one per core (memshare.py)",
                                samples=smp)
        log(f"memshare: done in {wall:.0f} s, {len(smp)} conditions, {path}")


if __name__ == "__main__":
    main()
