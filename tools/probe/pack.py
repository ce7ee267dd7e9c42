"""tools/probe/pack.py: where does a thread waking beside a busy core run, by how long the other
core has idled?

This VM's kernel is not upstream Linux: it boots with `sched_vcpu_pack=15` (/proc/cmdline; the
sysctl /proc/sys/kernel/sched_vcpu_pack, not writable from the guest, and debugfs refuses reads).
Upstream, a thread that wakes while one core computes and the other is idle runs on the idle core
(select_idle_sibling); a scheduler that packs work onto fewer vCPUs (to spare the host the cost of
waking an idle vCPU) would put it beside the busy one instead, the more so the longer the idle one
has been idle. This measures which.

One process burns CPU without stopping (the busy core). A second sleeps for a gap, then burns a
fixed amount of its own CPU time (thread_time), and records how much longer than that its burn
took on the wall clock: about 0 where it ran on the idle core, up to the burn itself where it
shared the busy one (two threads on one core run at half speed) until a migration. Gaps are
shuffled, repeated, and the gap is the second core's idle time (nothing else runs). The same with
no busy process is the baseline (a lone thread's stretch: the vCPU's own wake-up and the host).

  python3 tools/probe/pack.py [--gaps-ms 0.2,1,5,20,100] [--burn-ms 5] [--reps 40] [--out FILE]
"""
import argparse
import json
import multiprocessing as mp
import os
import random
import statistics
import time


def _busy(stop):
    while not stop.is_set():
        for _ in range(20000):
            pass


def _burn(cpu_ns):
    t0 = time.thread_time_ns()
    while time.thread_time_ns() - t0 < cpu_ns:
        pass


def _waker(gaps_s, burn_ns, q, rfd=None, done_w=None):
    """Sleep each gap (timer), or (rfd) wait for the busy process's byte; then burn."""
    out = []
    _burn(burn_ns)
    for g in gaps_s:
        if rfd is None:
            time.sleep(g)
        else:
            os.write(done_w, b"d")
            os.read(rfd, 1)
        w0 = time.perf_counter_ns()
        _burn(burn_ns)
        out.append((g, (time.perf_counter_ns() - w0 - burn_ns) * 1e-9))
    q.put(out)


def _busy_waking(gaps_s, wfd, done_r):
    """Burn without stopping; after the waker's burn is done, wait (burning) its next gap, then
    wake it with a byte through a pipe, still burning."""
    for g in gaps_s:
        os.read(done_r, 1)
        due = time.perf_counter_ns() + int(g * 1e9)
        while time.perf_counter_ns() < due:
            pass
        os.write(wfd, b"w")
    stop = time.perf_counter_ns() + 200_000_000
    while time.perf_counter_ns() < stop:
        pass


def _steal_ticks():
    with open("/proc/stat", encoding="ascii") as f:
        v = f.readline().split()
    return int(v[8]) if len(v) > 8 else 0


def measure(gaps_s, burn_ns, busy, piped=False):
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    q = ctx.Queue()
    s0 = _steal_ticks()
    if piped:
        r, w = os.pipe()
        dr, dw = os.pipe()
        hog = ctx.Process(target=_busy_waking, args=(gaps_s, w, dr))
        p = ctx.Process(target=_waker, args=(gaps_s, burn_ns, q, r, dw))
        hog.start()
        p.start()
        out = q.get()
        p.join()
        hog.join()
        return out, _steal_ticks() - s0
    hog = ctx.Process(target=_busy, args=(stop,)) if busy else None
    if hog:
        hog.start()
        time.sleep(0.2)
    p = ctx.Process(target=_waker, args=(gaps_s, burn_ns, q))
    p.start()
    out = q.get()
    p.join()
    steal = _steal_ticks() - s0
    if hog:
        stop.set()
        hog.join()
    return out, steal


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gaps-ms", default="0.2,1,5,20,100")
    ap.add_argument("--burn-ms", type=float, default=5.0)
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    gaps = [float(g) * 1e-3 for g in args.gaps_ms.split(",")]
    plan = gaps * args.reps
    random.Random(args.seed).shuffle(plan)
    burn_ns = int(args.burn_ms * 1e6)
    res = {"kernel": os.uname().release, "burn_s": burn_ns * 1e-9, "cpus": os.cpu_count(), "conditions": []}
    with open("/proc/cmdline", encoding="ascii") as f:
        res["vcpu_pack"] = next((w.split("=", 1)[1] for w in f.read().split() if w.startswith("sched_vcpu_pack=")),
                                None)
    print(f"kernel {res['kernel']}, sched_vcpu_pack {res['vcpu_pack']}, burn {args.burn_ms} ms, "
          f"{args.reps} per gap", flush=True)
    for busy, piped in ((False, False), (True, False), (True, True)):
        out, steal = measure(plan, burn_ns, busy, piped)
        for g in gaps:
            xs = sorted(s for gg, s in out if gg == g)
            half = sum(1 for s in xs if s > burn_ns * 1e-9 / 4)
            row = {"busy_core": busy, "woken_by": "busy core" if piped else "timer", "gap_s": g, "n": len(xs), "stretch_mean_s": statistics.mean(xs),
                   "stretch_median_s": statistics.median(xs), "shared_fraction": half / len(xs),
                   "steal_ticks": steal}
            res["conditions"].append(row)
            print(f"{('woken by the busy core' if piped else 'beside a busy core') if busy else 'alone':24s} gap {g * 1e3:7.2f} ms: stretch mean "
                  f"{row['stretch_mean_s'] * 1e3:6.3f} ms, median {row['stretch_median_s'] * 1e3:6.3f} ms, "
                  f"shared (stretch > burn/4) {row['shared_fraction']:.2f}  (steal ticks {steal})", flush=True)
    if args.out:
        with open(args.out, "w", encoding="ascii") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
