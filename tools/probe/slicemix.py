#!/usr/bin/python3
"""tools/probe/slicemix.py: what time-slicing costs a block's forward, by what shares its core
(issue 41 item 5(ii); docs/calibration.md, "Past saturation").

corun.py measures a block's CPU time per forward time-sliced two per core with other *blocks*
(slice_factor: each slice refills the caches the other block evicted). Past saturation the
threads that share a block's core are mostly the pipeline's transport threads (receive, decode,
pickle, send), not other blocks. This benchmark times a block's forward (batch 1, one torch
thread, CPU time by time.thread_time, as corun.py) in three states on C cores:
  co-run   C blocks computing at once, one per core (corun.py's middle state);
  heavy    2 C blocks, two per core (corun.py's sliced state);
  light    C blocks and C transport workers, two per core: each worker pickles and unpickles the
           pipeline's largest hop tensor (block1's output, as zmq-copy's sender and receiver do)
           in a loop.
Every configuration runs `secs` of wall time from a common deadline, each worker's first and last
forward dropped; rounds in a shuffled order (random.Random(seed)). It prints the ratios of the
blocks' summed mean CPU per forward: heavy / co-run (corun.py's slice factor again, measured in
the same window) and light / co-run. It writes no profile: the question is whether the simulator's
one slice factor should depend on what shares the core, and the log (--log, committed as
profiles/measured/slicemix-log.txt) answers it (docs/calibration.md, "Past saturation").

  /usr/bin/python3 tools/probe/slicemix.py [--secs 1.0] [--rounds 4] [--log FILE]
"""
import argparse
import multiprocessing as mp
import os
import pickle
import random
import sys
import time


def _light(conn, shape):
    """A transport worker: pickle and unpickle a tensor of shape in a loop until each deadline."""
    import torch
    torch.set_num_threads(1)
    t = torch.randn((1,) + tuple(shape))
    conn.send("ready")
    while True:
        deadline = conn.recv()
        if deadline is None:
            conn.close()
            return
        n = 0
        while time.monotonic() < deadline:
            pickle.loads(pickle.dumps(t))
            n += 1
        conn.send([n])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--secs", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--log", help="also append the lines here")
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import blocks
    import corun
    split = blocks.load_split()
    names = blocks.process_names(split)
    cores = len(os.sched_getaffinity(0))
    shape = next(b["out_shape"] for b in split["blocks"] if b["name"] == names[0])
    logf = open(a.log, "a", encoding="utf-8") if a.log else None

    def log(msg):
        print(msg, flush=True)
        if logf:
            logf.write(msg + "\n")

    ctx = mp.get_context("spawn")
    workers = {}
    # configurations: (state, blocks' keys, light workers)
    groups = corun._groups(names, cores)
    configs = [("co-run", corun._keys(g), 0) for g in groups]
    configs += [("heavy", corun._keys(g), 0) for g in corun._groups(names, 2 * cores)]
    configs += [("light", corun._keys(g), cores) for g in groups]
    try:
        for key in sorted({k for _, keys, _ in configs for k in keys}):
            here, there = ctx.Pipe()
            p = ctx.Process(target=corun._worker, args=(split, key[0], there), daemon=True)
            p.start()
            workers[key] = (p, here)
        for i in range(cores):
            here, there = ctx.Pipe()
            p = ctx.Process(target=_light, args=(there, shape), daemon=True)
            p.start()
            workers[("light", i)] = (p, here)
        for _, conn in workers.values():
            conn.recv()
        log(f"slicemix: {cores} cores, {len(configs)} configurations x {a.rounds} rounds of {a.secs:g} s; light "
            f"workers pickle a tensor of {shape}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        cpu = {}
        rng = random.Random(a.seed)
        for _ in range(a.rounds):
            order = configs[:]
            rng.shuffle(order)
            for state, keys, nlight in order:
                lights = [("light", i) for i in range(nlight)]
                deadline = time.monotonic() + a.secs
                for key in keys + lights:
                    workers[key][1].send(deadline)
                for key in keys:
                    cpu.setdefault((key[0], state), []).extend(workers[key][1].recv()[1:-1])
                for key in lights:
                    workers[key][1].recv()
    finally:
        corun.stop_workers(workers)
    tot = {s: 0.0 for s in ("co-run", "heavy", "light")}
    short = [f"{name} {s}" for name in names for s in tot if not cpu.get((name, s))]
    if short:  # each worker's first and last forward are dropped: a window of two forwards or fewer keeps none
        log(f"slicemix: no forward kept for {', '.join(short)}: give a longer --secs or more --rounds")
        return 1
    for name in names:
        m = {s: 1e3 * sum(cpu[(name, s)]) / len(cpu[(name, s)]) for s in tot}
        for s in tot:
            tot[s] += m[s]
        log(f"slicemix {name:13s} co-run {m['co-run']:6.2f} ms, sliced with blocks {m['heavy']:6.2f} ms "
            f"(x{m['heavy'] / m['co-run']:.3f}), sliced with transport work {m['light']:6.2f} ms "
            f"(x{m['light'] / m['co-run']:.3f}); forwards {'/'.join(str(len(cpu[(name, s)])) for s in tot)}")
    log(f"slicemix: the blocks' means summed: co-run {tot['co-run']:6.2f} ms, sliced with blocks "
        f"{tot['heavy']:6.2f} ms (x{tot['heavy'] / tot['co-run']:.3f}), sliced with transport work "
        f"{tot['light']:6.2f} ms (x{tot['light'] / tot['co-run']:.3f})")


if __name__ == "__main__":
    sys.exit(main())
