"""tools/probe/schedtrace.py: a diagnostic - the real pipeline under the kernel's scheduler trace.

Runs the probe's pipeline (pipeline.py) with N closed-loop clients for a few seconds while ftrace
records sched_switch, sched_wakeup and sched_migrate_task on every CPU, then says, per request:
  - each thread class's time on a CPU (the blocks' main threads, their ZeroMQ I/O threads, the
    dispatcher, the client, other processes) and the idle time;
  - how often each block's main thread was preempted (switched out while still runnable), and by
    what kind of thread;
  - "stacked" episodes: a CPU idle while a probe thread waits to run on the other one (the
    scheduler not using a free core; docs/calibration.md, "Wake-up stacking"), how many, how long,
    what began them (a thread going to sleep, or a wake-up), their waiter (its kind, how it came
    to wait: preempted, or woken onto a busy CPU, and whether it had run within 0.5 ms, the
    kernel's default migration cost below which a task counts as cache-hot), and how they ended.
Nothing here feeds calibrate or validate: it is the evidence behind docs/calibration.md's
"CPU interference" and "Wake-up stacking" notes. It needs root and tracefs (it mounts
/sys/kernel/tracing when absent) and says so otherwise (exit 1).

  sudo /usr/bin/python3 tools/probe/schedtrace.py --transport zmq-copy --clients 2 [--out F.json]
  python3 tools/probe/schedtrace.py --self-test        # the analysis on a hand-made trace

The trace's known gap: a task woken onto an idle CPU from an interrupt may start running without a
recorded sched_switch; a wake-up onto an idle CPU is therefore taken as that task running there,
and every event's own task column (who is on the CPU) corrects the picture as it goes.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

TRACEFS = "/sys/kernel/tracing"
EVENTS = "sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new sched:sched_migrate_task"
LINE = re.compile(r"-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)")
KV = re.compile(r"(\w+)=(\S+)")


def parse(lines):
    """[(t_s, cpu, event, {field: value}, pid on the CPU)] from ftrace's text output."""
    out = []
    for line in lines:
        m = LINE.search(line)
        if not m:
            continue
        rest = m.group(5)
        if m.group(4) == "sched_switch":
            a, b = rest.split("==>")
            f = {"prev_" + k if not k.startswith("prev_") else k: v for k, v in KV.findall(a)}
            f.update({k: v for k, v in KV.findall(b)})
        else:
            f = dict(KV.findall(rest))
        out.append((float(m.group(3)), int(m.group(2)), m.group(4), f, int(m.group(1))))
    return out


def kind(threads, tid):
    """idle, main, io, client, dispatcher or other: the class of a thread id."""
    if tid == 0:
        return "idle"
    if tid not in threads:
        return "other"
    role, comm = threads[tid]
    if role in ("client", "dispatcher"):
        return role
    return "io" if "IO" in comm else "zmq" if comm.startswith("ZMQ") else "main"


def analyse(events, threads, requests, ncpu=2, skip_s=0.0):
    """Per-request figures of a trace (module docstring). threads: {tid: (role, comm)}; requests:
    the requests completed over the analysed span (from skip_s after the first event to the last)."""
    running = {c: 0 for c in range(ncpu)}
    waiting = {}                       # tid -> CPU it is queued on
    oncpu = collections.Counter()      # role:class -> s
    preempt = collections.Counter()    # (role, by kind) -> count
    episodes = []                      # (start_s, length_s, what began it, waiter, how it ended)
    ep = None
    how = {}                           # tid -> how it came to wait: "preempted" or "woken onto a busy CPU"
    off = {}                           # tid -> when it last left a CPU
    t_lo = events[0][0] + skip_s if events else 0.0
    last = None
    ours = ("main", "io", "client", "dispatcher")

    def name(tid):
        k = kind(threads, tid)
        return k if k in ("idle", "other") else f"{threads[tid][0]}:{k}"

    for t, cpu, ev, f, cur in events:
        if last is not None and t >= t_lo:
            for c in running:
                oncpu[name(running[c])] += t - last
        last = t
        if cur != running[cpu]:        # the event's own task is on this CPU now
            running[cpu] = cur
            waiting.pop(cur, None)
        began = ev
        if ev == "sched_switch":
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            if prev:
                off[prev] = t
            if prev and f["prev_state"].startswith("R"):
                waiting[prev] = cpu
                how[prev] = "preempted"
                if t >= t_lo and kind(threads, prev) == "main":
                    preempt[(threads[prev][0], kind(threads, nxt))] += 1
            began = f"sleep of {kind(threads, prev)}" if nxt == 0 else "switch"
            waiting.pop(nxt, None)
            running[cpu] = nxt
        elif ev in ("sched_wakeup", "sched_wakeup_new"):
            tid, tc = int(f["pid"]), int(f["target_cpu"])
            began = f"wake-up of {kind(threads, tid)}"
            if running.get(tc) == 0:
                running[tc] = tid
                waiting.pop(tid, None)
            elif running.get(tc) != tid:
                waiting[tid] = tc
                how[tid] = "woken onto a busy CPU"
        elif ev == "sched_migrate_task":
            tid = int(f["pid"])
            if tid in waiting:
                waiting[tid] = int(f["dest_cpu"])
        waiters = [tid for tid, qc in waiting.items()
                   if kind(threads, tid) in ours and any(running[c] == 0 for c in running if c != qc)]
        if waiters and ep is None:
            w = waiters[0]             # the waiter: how it came to wait, and how long since it last ran
            since = t - off[w] if w in off else float("inf")
            ep = (t, began, f"{kind(threads, w)} {how.get(w, 'waiting')}, "
                            f"{'ran < 0.5 ms before' if since < 5e-4 else 'ran >= 0.5 ms before'}", w, waiting[w])
        elif not waiters and ep is not None:
            w, qc = ep[3], ep[4]       # how it ended
            on = [c for c in running if running[c] == w]
            if ev == "sched_migrate_task" and int(f["pid"]) == w:
                end = "the waiter migrated to the idle CPU"
            elif on:
                end = "the waiter ran where it waited" if on[0] == qc else "the waiter ran on the other CPU"
            elif all(running[c] != 0 for c in running):
                end = "the idle CPU took other work"
            else:
                end = "other"
            if ep[0] >= t_lo:
                episodes.append((ep[0], t - ep[0], ep[1], ep[2], end))
            ep = None
    long_ = [e for e in episodes if e[1] > 2e-4]
    per = 1.0 / requests if requests else float("nan")
    starts = collections.Counter(e[2] for e in long_)
    waiters_ = collections.Counter(e[3] for e in long_)
    ends = collections.Counter(e[4] for e in long_)
    return {
        "requests": requests,
        "cpu_ms_per_request": {k: round(1e3 * v * per, 3) for k, v in sorted(oncpu.items())},
        "preemptions_per_request": {f"{r} by {k}": round(v * per, 3) for (r, k), v in sorted(preempt.items())},
        "stacked_per_request": round(len(long_) * per, 3),
        "stacked_ms_per_request": round(1e3 * sum(e[1] for e in long_) * per, 3),
        "stacked_mean_ms": round(1e3 * sum(e[1] for e in long_) / len(long_), 3) if long_ else 0.0,
        "stacked_began_by": {k: round(v * per, 3) for k, v in starts.most_common()},
        "stacked_waiter": {k: round(v * per, 3) for k, v in waiters_.most_common()},
        "stacked_ended_by": {k: round(v * per, 3) for k, v in ends.most_common()},
    }


def _write(path, value):
    with open(os.path.join(TRACEFS, path), "w", encoding="ascii") as f:
        f.write(value)


def trace_pipeline(transport, clients, seconds):
    """Run the pipeline under ftrace; (events, threads, requests in the traced window)."""
    import blocks
    import load
    import pipeline as pl
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=False)
    if not os.access(os.path.join(TRACEFS, "trace"), os.W_OK):
        raise SystemExit(f"schedtrace: {TRACEFS} is not writable here (needs root and tracefs)")
    split = blocks.load_split()
    payload = pl.pickled_input(split["blocks"][0]["in_shape"], 0)
    pipe = pl.Pipeline(split, transport, threads=1, seed=0)
    try:
        load.run_closed(pipe, payload, clients, 0.5, 2.0)          # warm, and every thread started
        threads = {}
        for role, pid in list(pipe.pids.items()) + [("client", os.getpid())]:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/comm", encoding="utf-8") as f:
                    threads[int(tid)] = (role, f.read().strip())
        _write("trace_clock", "mono")
        _write("buffer_size_kb", "65536")
        _write("trace", "")
        _write("set_event", EVENTS)
        _write("tracing_on", "1")
        try:
            res, _, _, _ = load.run_closed(pipe, payload, clients, 1.0, seconds)
        finally:
            _write("tracing_on", "0")
        with open(os.path.join(TRACEFS, "trace"), encoding="utf-8", errors="replace") as f:
            events = parse(f)
        _write("set_event", "")
        _write("trace", "")
    finally:
        pipe.close()
    return events, threads, res


def self_test():
    """The analysis on a hand-made trace of two CPUs: block a's main thread (10) computes on CPU 0;
    block b's main thread (20) is woken onto CPU 0 and preempts it; CPU 1's thread (30, block c)
    goes to sleep at 1.000 s while 10 waits: a stacked episode of 4 ms, begun by a sleep, its waiter
    10 preempted 4.9 ms before, until 10 migrates and runs on CPU 1 at 1.004 s."""
    lines = [
        " python3-30 [001] d..2. 0.990000: sched_wakeup: comm=python3 pid=30 prio=120 target_cpu=001",
        " python3-10 [000] d..2. 0.995000: sched_wakeup: comm=python3 pid=20 prio=120 target_cpu=000",
        " python3-10 [000] d..2. 0.995100: sched_switch: prev_comm=python3 prev_pid=10 prev_prio=120 "
        "prev_state=R ==> next_comm=python3 next_pid=20 next_prio=120",
        " python3-30 [001] d..2. 1.000000: sched_switch: prev_comm=python3 prev_pid=30 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
        " <idle>-0 [001] d..2. 1.004000: sched_migrate_task: comm=python3 pid=10 prio=120 orig_cpu=0 dest_cpu=1",
        " <idle>-0 [001] d..2. 1.004000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 "
        "prev_state=R ==> next_comm=python3 next_pid=10 next_prio=120",
        " python3-20 [000] d..2. 1.010000: sched_switch: prev_comm=python3 prev_pid=20 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    ]
    threads = {10: ("block1", "python3"), 20: ("block2", "python3"), 30: ("block3", "python3")}
    got = analyse(parse(lines), threads, requests=1)
    want = {"stacked_per_request": 1.0, "stacked_ms_per_request": 4.0,
            "stacked_began_by": {"sleep of main": 1.0}, "preemptions_per_request": {"block1 by main": 1.0},
            "stacked_waiter": {"main preempted, ran >= 0.5 ms before": 1.0},
            "stacked_ended_by": {"the waiter migrated to the idle CPU": 1.0}}
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    # block1 is seen on CPU 0 from its first event (0.995 s) until preempted (0.9951 s), then on CPU 1
    # from 1.004 to 1.010 s: 6.1 ms
    if abs(got["cpu_ms_per_request"]["block1:main"] - 6.1) > 1e-6:
        bad["block1 on-CPU ms"] = (got["cpu_ms_per_request"]["block1:main"], 6.1)
    if bad:
        print(f"schedtrace self-test: FAILED {bad}")
        return 1
    print("schedtrace self-test: ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--transport", default="zmq-copy", choices=("zmq-copy", "shm-handle"))
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=6.0, help="the traced window after a 1 s warm-up")
    ap.add_argument("--out", help="write the figures as JSON here too")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run
    run._reexec_with_env(False)        # the probe's BLAS and malloc settings, as every probe process
    os.chdir(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    t0 = time.monotonic()
    events, threads, res = trace_pipeline(args.transport, args.clients, args.seconds)
    span = events[-1][0] - events[0][0] - 1.5 if events else 0.0
    fig = analyse(events, threads, res["throughput_per_s"] * span, ncpu=os.cpu_count() or 2, skip_s=1.5)
    fig.update({"transport": args.transport, "clients": args.clients, "throughput_per_s": res["throughput_per_s"],
                "latency_mean_s": res["latency_mean_s"], "events": len(events),
                "wall_s": round(time.monotonic() - t0, 1)})
    print(json.dumps(fig, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(fig, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
