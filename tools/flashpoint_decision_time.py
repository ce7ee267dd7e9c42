#!/usr/bin/env python3
"""flashpoint_decision_time.py: how long a Flashpoint autoscaler decision takes, measured on
this machine (issue 41 item 0; seed flashpoint.md §1.9a, "Decisions take time").

The thesis' simulator "incorporates the time to perform autoscaling and scheduling decisions.
This means that the actions do not take effect until time is incremented by the wall time it
took to make the decisions" (FP §8.2.2).  Its autoscaler is Python (Listing 5.1's
`autoscaler.py`, Listing 7.1's `scale_up`).  So the delay is the wall time of that Python code on
the thesis' data centre, which this script measures: the decision of one tick for one model
(ATL's rule, seed §1.10: the 99th percentile of the per-second arrival counts over a 60 s
window times the mean execution time), and a scale-up's scheduling (Listing 7.1 as the text
says, with §2.8's Pareto-greedy receivers: every free GPU of the hosts holding the model, then
one GPU per other host) on 200 hosts of 8 GPUs, 10 hosts holding the model, for k = 1, 8 and 40
new replicas.  Standard library only; prints one CSV row per case (median and quartiles of
`--reps` timings, in milliseconds), then the figure the Flashpoint scenarios use:
the tick plus the scale-up of 8 replicas (the median burst of the ablation's ATL runs is a few
replicas; 8 is one host's worth).

    python3 tools/flashpoint_decision_time.py [--reps N]
"""
import math
import statistics
import sys
import time

HOSTS, GPUS_PER_HOST, HOLDERS = 200, 8, 10


class Gpu:
    __slots__ = ("parent", "model")

    def __init__(self, parent):
        self.parent, self.model = parent, None


class Host:
    __slots__ = ("index", "rack", "children", "models")

    def __init__(self, index):
        self.index, self.rack = index, index // 20
        self.children = [Gpu(self) for _ in range(GPUS_PER_HOST)]
        self.models = set()


def atl_tick(counts, exec_s):
    """ATL's replicas: the 99th percentile of the window's per-second arrival counts x the mean
    execution time (seed §1.10, [ASSUMPTION] n_d = ceil(lambda_p99 x d_e))."""
    s = sorted(counts)
    q = s[min(len(s) - 1, int(math.ceil(0.99 * len(s))) - 1)]
    return math.ceil(q * exec_s)


def get_receivers(hosts, model, scale):
    """§2.8 as the text says: every free GPU of the hosts that hold the model, then one free GPU
    per other host, round after round."""
    out = []
    for host in hosts:
        if model in host.models:
            for gpu in host.children:
                if gpu.model is None and len(out) < scale:
                    gpu.model = model
                    out.append(gpu)
    while len(out) < scale:
        took = False
        for host in hosts:
            if model in host.models:
                continue
            for gpu in host.children:
                if gpu.model is None:
                    gpu.model = model
                    out.append(gpu)
                    took = True
                    break
            if len(out) == scale:
                break
        if not took:
            break
    return out, {g.parent for g in out}


def scale_up(hosts, model, scale):
    """Listing 7.1, abridged: receivers, senders, the sender-receiver map (receivers split evenly
    over the holders, nearest rack first), the flows' descriptions, the deployments."""
    receivers, receiver_hosts = get_receivers(hosts, model, scale)
    senders = [h for h in hosts if model in h.models]
    need = sorted((h for h in receiver_hosts if model not in h.models), key=lambda h: h.index)
    mapping = {s: [] for s in senders}
    for h in need:
        near = [s for s in senders if s.rack == h.rack] or senders
        s = min(near, key=lambda x: len(mapping[x]))
        mapping[s].append(h)
    flows = [(s.index, [h.index for h in hs]) for s, hs in mapping.items() if hs]
    reverse = {h: s for s, hs in mapping.items() for h in hs}
    deployed = [(model, g, reverse.get(g.parent, g.parent)) for g in receivers]
    for g in receivers:  # undo, so that every repetition starts from the same state
        g.model = None
    return len(deployed), len(flows)


def timed(fn, reps):
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1e3)
    q = statistics.quantiles(out, n=4)
    return statistics.median(out), q[0], q[2]


def main():
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 2000
    hosts = [Host(i) for i in range(HOSTS)]
    for h in hosts[:HOLDERS]:
        h.models.add("t5-3b")
        for g in h.children[:4]:
            g.model = "t5-3b"
    counts = [57 + (i * 37) % 23 for i in range(60)]
    print("case,median_ms,q1_ms,q3_ms")
    tick = timed(lambda: atl_tick(counts, 0.0681), reps)
    print("atl tick (one model),%.4f,%.4f,%.4f" % tick)
    ups = {}
    for k in (1, 8, 40):
        ups[k] = timed(lambda: scale_up(hosts, "t5-3b", k), reps)
        print("scale-up of %d (200 hosts x 8 GPUs),%.4f,%.4f,%.4f" % ((k,) + ups[k]))
    print("decision_delay_s,%.6f" % ((tick[0] + ups[8][0]) / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
