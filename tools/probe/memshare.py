#!/usr/bin/python3
"""tools/probe/memshare.py: does a memory copy slow down when other cores copy at the same time?
(issue 41 item 5(ii): memcpy sharing the host's memory bandwidth; docs/calibration.md, "Copies
sharing memory bandwidth").

k = 1..K processes (default K = 2 x cores) each copy a buffer of --mib MiB into another, --reps
times, all starting together (a pipe releases them once every buffer is in memory); per process
the copy rate (bytes copied / s), and their sum.  A memory copy is a Python memoryview slice
assignment: one memcpy, no numpy needed.  If one copy alone already uses the host's memory
bandwidth, two on two cores each run at half its rate and the sum stays flat: the copies of a
pipeline's processes (pickling, a shared-memory slot) then slow each other down under load,
which the simulator's cores alone (max-min over cores) would not show.

  tools/probe/memshare.py [--mib 256] [--reps 20] [--max-streams K] [--json FILE]
"""
import argparse
import json
import os
import time
from multiprocessing import Process, Queue


def _worker(q, nbytes, reps, go_r):
    src = bytearray(os.urandom(1 << 20)) * (nbytes >> 20)
    dst = bytearray(nbytes)
    md, ms = memoryview(dst), memoryview(src)
    md[:] = ms  # every page of both in memory before the clock
    os.read(go_r, 1)
    t0 = time.perf_counter()
    for _ in range(reps):
        md[:] = ms
    q.put(reps * nbytes / (time.perf_counter() - t0))


def measure(mib, reps, max_streams):
    rows = []
    for k in range(1, max_streams + 1):
        q = Queue()
        go_r, go_w = os.pipe()
        ps = [Process(target=_worker, args=(q, mib << 20, reps, go_r)) for _ in range(k)]
        for p in ps:
            p.start()
        time.sleep(0.5 + 0.002 * mib * k)
        os.write(go_w, b"g" * k)
        rates = [q.get() for _ in ps]
        for p in ps:
            p.join()
        os.close(go_r)
        os.close(go_w)
        rows.append({"streams": k, "bytes": mib << 20, "per_stream_Bps": [round(r) for r in rates],
                     "sum_Bps": round(sum(rates))})
        print(f"{k} concurrent copies of {mib} MiB: per copy "
              f"{' '.join(f'{r / 1e9:5.2f}' for r in rates)} GB/s, together {sum(rates) / 1e9:5.2f} GB/s", flush=True)
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--max-streams", type=int, default=2 * (os.cpu_count() or 1))
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    out = measure(a.mib, a.reps, a.max_streams)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"machine_cores": os.cpu_count(), "rows": out}, f, indent=1)
