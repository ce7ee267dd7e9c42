"""tools/probe/stacking.py: the scheduler micro-benchmark - wake-up stacking, measured without torch.

The running pipeline's processes take turns on the cores: a block computes, sends, and the next
block wakes. When a thread wakes while one core is busy and another free, Linux does not always
give it the free core: it may queue it on its waker's core (or the core of the ZeroMQ I/O thread
that woke it), where another thread is computing, and the two share that core until the load
balancer migrates one of them, the free core idle meanwhile. The simulator's processor sharing
is work-conserving and does not do this (serve/pipeline_compute.c, "wake-up stacking").

The benchmark: a ring of processes passing K tokens over ZeroMQ PUSH/PULL ipc sockets (as the
probe's hops, I/O threads and all); each process, per token, burns WORK_S of its own CPU time in
a Python loop (time.thread_time: the CPU work is fixed, whatever the scheduler does) and passes
the token on. The ring has max(RING, 4K) processes and the tokens start ring/K stages and WORK_S/K
apart, so no token catches up with another (it would queue behind it and the two would wake
together from then on) and each burn sees the other tokens' wake-ups in its middle, as
calibrate's estimator assumes (sim/calib/calibrate_stacking.c). A stacking slows both of its threads
alike, so these offsets hold. Per burn it records the stretch: wall time minus CPU time, the time the thread was
runnable but not running. With K = 1 nothing else computes (the baseline: timer and interrupt
noise); with K = the cores, every start finds the other cores busy but, in processor sharing, a
core for itself, so any stretch beyond the baseline is stacking. Samples: kind "stacking",
runnable K, cores, stretch_s per burn, and delivery_s: the token's delivery before each burn (its
sender's send to this receive, both on CLOCK_MONOTONIC; the injected first tokens have none).
`servesim calibrate` turns them into the stacking probability and mean migration time
(docs/calibration.md, "Wake-up stacking"), and simulates the ring on the run queues with the
baseline ring's deliveries ("Run queues").
"""
import multiprocessing as mp
import os
import tempfile
import time

RING = 6
WORK_S = 0.020          # a block's batch-1 compute is 20-29 ms here


def _burn(s):
    t0 = time.thread_time()
    x = 0
    while time.thread_time() - t0 < s:
        for i in range(500):
            x += i


def _stage(i, ring, d, work_s, q):
    import zmq
    ctx = zmq.Context()
    rx = ctx.socket(zmq.PULL)
    rx.bind(f"ipc://{d}/s{i}")
    tx = ctx.socket(zmq.PUSH)
    tx.connect(f"ipc://{d}/s{(i + 1) % ring}")
    out = []
    while True:
        m = rx.recv()
        if m == b"q":
            tx.send(b"q")
            q.put(out)
            rx.close(linger=0)            # tokens still in flight are dropped: no wait at exit
            tx.close(linger=0)
            ctx.term()
            return
        w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        sent = int(m) if m != b"t" else None   # the injector's token carries no send time
        _burn(work_s)
        w1, c1 = time.perf_counter_ns(), time.thread_time_ns()
        out.append((w0, ((w1 - w0) - (c1 - c0)) * 1e-9, None if sent is None else (w0 - sent) * 1e-9))
        tx.send(str(time.perf_counter_ns()).encode("ascii"))  # CLOCK_MONOTONIC: one clock for every process


def _ring(tokens, window_s, warmup_s):
    """(stretch, delivery) (s) of the burns that started inside the window, every process pooled: the
    delivery is the token's, from its sender's send to this receive (None for the injected first)."""
    import zmq
    d = tempfile.mkdtemp(prefix="servesim-sched-")
    q = mp.get_context("spawn").Queue()
    ring = max(RING, 4 * tokens)
    ps = [mp.get_context("spawn").Process(target=_stage, args=(i, ring, d, WORK_S, q), daemon=True)
          for i in range(ring)]
    for p in ps:
        p.start()
    ctx = zmq.Context()
    inj = []
    for k in range(tokens):              # token k into stage k * ring / tokens, WORK_S / tokens later
        s = ctx.socket(zmq.PUSH)
        s.connect(f"ipc://{d}/s{k * ring // tokens}")
        inj.append(s)
    time.sleep(1.0)                       # every stage bound
    for k, s in enumerate(inj):
        if k:
            time.sleep(WORK_S / tokens)
        s.send(b"t")
    t0 = time.perf_counter_ns() + int(warmup_s * 1e9)
    t1 = t0 + int(window_s * 1e9)
    time.sleep(warmup_s + window_s)
    inj[0].send(b"q")
    got = [q.get(timeout=60) for _ in ps]
    for p in ps:
        p.join(10)
        if p.is_alive():
            p.terminate()
            p.join()
    for s in inj:
        s.close(linger=0)
    ctx.term()
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    return [(s, dl) for out in got for (w0, s, dl) in out if t0 <= w0 < t1]


def stacking_samples(window_s, log, warmup_s=1.0):
    """kind "stacking" samples: the ring with 1 token (baseline), then with one per core; none on
    one core (no core is ever free to be stacked away from)."""
    cores = len(os.sched_getaffinity(0))
    if cores < 2:
        log("stacking: skipped: one core, nothing to stack away from")
        return []
    samples = []
    for tokens in (1, cores):
        got = _ring(tokens, window_s, warmup_s)
        st = sorted(s for s, _ in got)
        dl = sorted(round(d, 7) for _, d in got if d is not None and round(d, 7) > 0)
        n = len(st)
        if n < 2:
            log(f"stacking: {tokens} token(s): {n} burns in the window; left out")
            return []
        log(f"stacking: ring of {max(RING, 4 * tokens)} processes, {tokens} token(s), {1e3 * WORK_S:.0f} ms of CPU "
            f"per burn: {n} burns, stretch mean {1e3 * sum(st) / n:.3f} ms, p90 {1e3 * st[int(0.9 * n)]:.3f} ms, "
            f"p99 {1e3 * st[int(0.99 * n)]:.3f} ms"
            + (f"; token delivery mean {1e3 * sum(dl) / len(dl):.3f} ms, median {1e3 * dl[len(dl) // 2]:.3f} ms"
               if dl else ""))
        sample = {"kind": "stacking", "runnable": tokens, "cores": cores, "work_s": WORK_S,
                  "stretch_s": [round(s, 7) for s in st]}
        if dl:
            sample["delivery_s"] = dl
        samples.append(sample)
    return samples
