"""tools/probe/corun.py: the CPU interference micro-benchmark - a block's forward alone, co-running
one per core, and time-sliced two per core.

In the running pipeline the block processes compute at the same time: on C cores up to C of them
run side by side (sharing the caches and the memory bandwidth), and with more than C runnable the
scheduler time-slices them on a core (each slice refills the caches the other evicted). The
compute micro-benchmarks (micro.py) time each block with the others idle, so neither cost is in
them; the simulator's processor sharing gives a block its alone time per forward whatever runs
beside it.

The benchmark: persistent worker processes, one per (block, copy), each holding one pipeline
process's module (blocks.process_names: block1, block2, block3, block4_class), batch 1, one torch
thread, torch.inference_mode(), input torch.randn of its in_shape. A configuration is a group of
k workers that compute at once: on a command they loop forwards until a common deadline, `secs`
of wall time away, timing each forward's CPU time (time.thread_time: the thread's own work,
whatever the scheduler does meanwhile), and send the times back. The states, by runnable k:
  1     each block alone (the other cores idle);
  C     co-running, one per core;
  2*C   time-sliced, two per core.
For k up to the number of blocks the groups are every set of k distinct blocks (C = 2: the six
pairs, and the four blocks at once) while there are at most twice as many sets as blocks; beyond,
k workers over the blocks round-robin from each starting offset (a block may run in several
copies), duplicates dropped. Each worker's first forward in a configuration (it may start before
the others) and its last (it ends after the deadline, as the others stop) are dropped. A round
runs every configuration once in an order shuffled by random.Random(seed); several rounds spread
the host's speed drift over all states. The log gives, per state, the cores other jobs kept busy
meanwhile (load.CpuMeter: on a shared machine "alone" is alone among the probe's processes only).
Samples: kind "corun", what (the block), device "cpu",
cores C, runnable k, cpu_s per forward, pooled over the rounds and the block's partners.
`servesim calibrate` turns them into the co-running and time-slicing factors
(sim/calib/calibrate_interference.c).
"""
import itertools
import math
import multiprocessing as mp
import os
import random
import time

WARMUP_FORWARDS = 3


def _worker(split, name, conn):
    """One block's forwards on command: (deadline on CLOCK_MONOTONIC) -> [CPU s per forward];
    None stops it."""
    import torch
    import blocks
    torch.set_num_threads(1)
    mod, in_shape, _ = blocks.pieces(split, blocks.build_resnet(seed=0))[name]
    x = torch.randn((1,) + tuple(in_shape))
    with torch.inference_mode():
        for _ in range(WARMUP_FORWARDS):
            mod(x)
        conn.send("ready")
        while True:
            deadline = conn.recv()
            if deadline is None:
                conn.close()
                return
            cpu = []
            while time.monotonic() < deadline:
                c0 = time.thread_time()
                mod(x)
                cpu.append(time.thread_time() - c0)
            conn.send(cpu)


def _groups(names, k):
    """The groups of k blocks that compute at once (module docstring), each a tuple of names."""
    n = len(names)
    if k <= n and math.comb(n, k) <= 2 * n:
        return list(itertools.combinations(names, k))
    seen, out = set(), []
    for offset in range(n):
        group = tuple(names[(offset + i) % n] for i in range(k))
        if tuple(sorted(group)) not in seen:
            seen.add(tuple(sorted(group)))
            out.append(group)
    return out


def stop_workers(workers):
    """Tell every worker {key: (process, connection)} to stop (None), and end the ones that do not
    within 10 s (corun.py's and slicemix.py's)."""
    for _, conn in workers.values():
        try:
            conn.send(None)
        except (BrokenPipeError, OSError):
            pass
    for p, _ in workers.values():
        p.join(10)
        if p.is_alive():
            p.terminate()
            p.join()


def _keys(group):
    """(block, copy) worker keys of a group: a block's i-th place in it runs on its copy i."""
    seen = {}
    keys = []
    for name in group:
        keys.append((name, seen.get(name, 0)))
        seen[name] = seen.get(name, 0) + 1
    return keys


def _mean_ms(v):
    return 1e3 * sum(v) / len(v)


def corun_samples(split, secs, rounds, log, seed=0):
    """kind "corun" samples, one per (block, runnable): runnable 1, cores and 2 x cores; none on one
    core (nothing to co-run beside)."""
    import blocks
    import load
    cores = len(os.sched_getaffinity(0))
    if cores < 2:
        log("corun: skipped: one core, nothing runs beside a block")
        return []
    names = blocks.process_names(split)
    states = (1, cores, 2 * cores)
    configs = [(k, group) for k in states for group in _groups(names, k)]
    ctx = mp.get_context("spawn")
    workers = {}
    t0 = time.monotonic()
    try:
        for key in sorted({key for _, group in configs for key in _keys(group)}):
            here, there = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(split, key[0], there), daemon=True)
            p.start()
            there.close()
            workers[key] = (p, here)
        for _, conn in workers.values():
            conn.recv()
        log(f"corun: {len(workers)} worker processes up in {time.monotonic() - t0:.1f} s; {len(configs)} "
            f"configurations x {rounds} rounds, {secs:g} s each, on {cores} cores")
        cpu, others = {}, {k: [] for k in states}
        rng = random.Random(seed)
        for _ in range(rounds):
            order = configs[:]
            rng.shuffle(order)
            for k, group in order:
                meter = load.CpuMeter([os.getpid()] + [workers[key][0].pid for key in _keys(group)])
                meter.mark()
                deadline = time.monotonic() + secs
                for key in _keys(group):
                    workers[key][1].send(deadline)
                for key in _keys(group):
                    cpu.setdefault((key[0], k), []).extend(workers[key][1].recv()[1:-1])
                meter.mark()
                others[k].append(meter.cores()["background_cores"])
    finally:
        stop_workers(workers)
    samples = []
    totals = {k: 0.0 for k in states}
    for name in names:
        got = {k: cpu.get((name, k), []) for k in states}
        if any(len(v) < 2 for v in got.values()):
            log(f"corun: {name}: fewer than two forwards in a state "
                f"({'/'.join(str(len(got[k])) for k in states)}); left out")
            continue
        alone, co, sliced = (_mean_ms(got[k]) for k in states)
        for k in states:
            totals[k] += _mean_ms(got[k])
        log(f"corun {name:13s} alone {alone:6.2f} ms, co-run {co:6.2f} ms (x{co / alone:.3f}), sliced {sliced:6.2f} ms "
            f"(x{sliced / co:.3f} over co-run, x{sliced / alone:.3f} over alone); CPU per forward, "
            f"{'/'.join(str(len(got[k])) for k in states)} forwards")
        samples += [{"kind": "corun", "what": name, "device": "cpu", "cores": cores, "runnable": k,
                     "cpu_s": [round(v, 7) for v in got[k]]} for k in states]
    if samples:
        a, c, s = (totals[k] for k in states)
        log(f"corun: the blocks' means summed: alone {a:6.2f} ms, co-run {c:6.2f} ms (x{c / a:.3f}), "
            f"sliced {s:6.2f} ms (x{s / c:.3f} over co-run)")
        log("corun: cores other jobs kept busy meanwhile (mean over the configurations): " + ", ".join(
            f"{word} {sum(others[k]) / len(others[k]):.2f}" for word, k in zip(("alone", "co-run", "sliced"), states)))
    return samples
