"""tools/probe/idlescan.py: does a waking thread look for the idle core when the cores were busy?

docs/calibration.md, "The idle-core scan". Linux's select_idle_sibling puts a waking thread on its
previous core if idle; if not, since Linux 6.0 (SIS_UTIL) it scans the last-level cache's other cores
for an idle one only while their recent utilisation (PELT's util_avg, 32 ms half-life) leaves the
scan any core: floor(n (1 - (u x 117 / 100)^2)) >= 1, on two cores u <= 0.604. Above that the
thread stays on its busy previous core beside an idle one.

Core A runs a busy process (pinned) that wakes a second process through a pipe 3-8 ms after the
second has finished its last burn (a handshake: every wake-up is one); the second was last on A (pinned there a moment, then allowed both cores) and burns 2 ms of its own
CPU time when woken. Core B runs a third process (pinned) that burns `on` ms and sleeps `off` ms,
so B's utilisation is on / (on + off). Only wake-ups that find B idle (inside its sleep, 20 us
margins) count: the thread could have run on B at once. Woke on A: the core it runs on right
after the wake-up (sched_getcpu) is the busy A; there it preempts the pinned busy process, which
then waits beside the idle B. Stretched: its own 2 ms burn took more than 0.5 ms longer on the
wall clock (rare: the woken thread runs, the preempted one waits).

  python3 tools/probe/idlescan.py [--wakes 150]
"""
import argparse
import ctypes
import multiprocessing as mp
import os
import random
import statistics
import time

A, B = 0, 1
_sched_getcpu = ctypes.CDLL(None, use_errno=True).sched_getcpu   # glibc: the core this thread runs on


def _burn_ns(ns):
    t0 = time.thread_time_ns()
    while time.thread_time_ns() - t0 < ns:
        pass


def _waker(wfd, done_r, waits_ns, stop_ns):
    """On core A without stopping: after each burn of the wakee, wait (burning) a gap, then wake it."""
    os.sched_setaffinity(0, {A})
    for w in waits_ns:
        os.read(done_r, 1)
        due = time.perf_counter_ns() + w
        while time.perf_counter_ns() < due:
            pass
        os.write(wfd, b"w")
    while time.perf_counter_ns() < stop_ns:
        pass


def _duty(on_ns, off_ns, stop_ns, q):
    os.sched_setaffinity(0, {B})
    idle = []
    while time.perf_counter_ns() < stop_ns:
        _burn_ns(on_ns)
        t0 = time.perf_counter_ns()
        time.sleep(off_ns * 1e-9)
        idle.append((t0, time.perf_counter_ns()))
    q.put(idle)


def _wakee(rfd, done_w, n, burn_ns, q):
    out = []
    for _ in range(n):
        os.sched_setaffinity(0, {A})        # last ran on A ...
        os.sched_setaffinity(0, {A, B})     # ... and may run on either
        os.write(done_w, b"d")              # the waker's gap starts now: every read below blocks
        os.read(rfd, 1)
        t = time.perf_counter_ns()
        cpu = _sched_getcpu()
        _burn_ns(burn_ns)
        out.append((t, (time.perf_counter_ns() - t - burn_ns) * 1e-9, cpu))
    q.put(out)


def run(on_ms, off_ms, n, burn_ns=2_000_000, seed=1):
    rng = random.Random(seed)
    waits = [int(rng.uniform(3e6, 8e6)) for _ in range(n)]
    stop_ns = time.perf_counter_ns() + int(sum(waits) + 4 * n * burn_ns + 1e9)
    r, w = os.pipe()
    done_r, done_w = os.pipe()
    ctx = mp.get_context("fork")
    q1, q2 = ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=_waker, args=(w, done_r, waits, stop_ns)),
             ctx.Process(target=_wakee, args=(r, done_w, n, burn_ns, q1))]
    if on_ms:
        procs.append(ctx.Process(target=_duty, args=(int(on_ms * 1e6), int(off_ms * 1e6), stop_ns, q2)))
    for p in procs:
        p.start()
    out = q1.get()
    idle = q2.get() if on_ms else None
    for p in procs:
        p.join()
    sel = [(s, cpu) for t, s, cpu in out if idle is None or any(a <= t - 20000 and t + 20000 <= b for a, b in idle)]
    on_a = sum(1 for _, cpu in sel if cpu == A)
    stacked = sum(1 for s, _ in sel if s > burn_ns * 1e-9 / 4)
    sel = [s for s, _ in sel]
    util = on_ms / (on_ms + off_ms) if on_ms else 0.0
    print(f"core B busy {util:4.0%} ({on_ms or 0:g}/{off_ms or 0:g} ms): wake-ups finding B idle {len(sel):3d} of {n}, "
          f"woke on A {on_a / len(sel) if sel else float('nan'):.2f}, "
          f"stretched {stacked / len(sel) if sel else float('nan'):.2f}, mean stretch "
          f"{statistics.mean(sel) * 1e3 if sel else float('nan'):.3f} ms", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wakes", type=int, default=150)
    args = ap.parse_args()
    print(f"kernel {os.uname().release}", flush=True)
    for on, off in ((None, None), (1, 9), (5, 5), (9, 1)):
        run(on, off, args.wakes)


if __name__ == "__main__":
    main()
