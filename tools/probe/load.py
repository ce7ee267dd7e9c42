"""tools/probe/load.py: the clients of the probe pipeline and the statistics of one run.

Two load generators, both in the probe's own process (the client is on the same 2 cores):
  closed   N synchronous clients, zero think time: N requests in flight, each completion sends
           that client's next request (BlockFlow's TaskGenerator, synchronous mode).
  poisson  open loop: exponential inter-arrival times at rate_per_s from a seeded
           random.Random (arrivals.py), sent by a thread at their scheduled instants.
Latency is client send -> client has the output tensor (time.perf_counter_ns, CLOCK_MONOTONIC).
A run has a warm-up, then a measured window of duration_s: the statistics cover the requests
sent inside the window; throughput is the completions received inside the window over its
length. After the window no new request is sent and the pipeline is drained.

The machine may be shared: over the window, CpuMeter reads the machine's busy CPU time
(/proc/stat, hypervisor steal included) and the probe's own processes' (/proc/PID/stat), so a
run says how many cores others took from it (background_cores) and how many it used.
"""
import os
import threading
import time

import zmq

import pipeline as pl
import transports as tp

NS = 1_000_000_000
CLK_TCK = os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU use over a window: mark() at its start and at its end, then cores()."""

    def __init__(self, pids):
        self.pids = list(pids)
        self.marks = []

    def _read(self):
        with open("/proc/stat", encoding="ascii") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        busy = sum(v[i] for i in (0, 1, 2, 5, 6, 7) if i < len(v))   # user nice system irq softirq steal
        own, per = 0, {}
        for pid in self.pids:
            try:
                with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                per[pid] = int(fields[11]) + int(fields[12])            # utime, stime
                own += per[pid]
            except (OSError, IndexError, ValueError):
                pass
        return time.monotonic(), busy, own, self._waited_ns(), per

    def _waited_ns(self):
        """Time the probe's threads were runnable but not running (schedstat's run_delay), ns;
        with a core idle meanwhile, the scheduler's wake-up stacking (stacking.py)."""
        total = 0
        for pid in self.pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as f:
                        total += int(f.read().split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        return total

    def mark(self):
        if len(self.marks) < 2:
            self.marks.append(self._read())

    def cores(self):
        """{'background_cores', 'probe_cores', 'waiting_cores', 'cpu_s_by_pid'}: mean cores busy with
        others / with the probe, the probe's threads waiting for a core (in cores' worth of time),
        and each process's CPU time over the window (s; the clock tick's resolution, 10 ms)."""
        if len(self.marks) < 2:
            return {"background_cores": float("nan"), "probe_cores": float("nan"), "waiting_cores": float("nan"),
                    "cpu_s_by_pid": {}}
        (t0, b0, o0, w0, p0), (t1, b1, o1, w1, p1) = self.marks
        span = max(t1 - t0, 1e-9) * CLK_TCK
        return {"background_cores": max(0.0, (b1 - b0) - (o1 - o0)) / span, "probe_cores": (o1 - o0) / span,
                "waiting_cores": (w1 - w0) / NS / max(t1 - t0, 1e-9),
                "cpu_s_by_pid": {pid: (p1[pid] - p0[pid]) / CLK_TCK for pid in p1 if pid in p0}}


def _meter(pipe):
    return CpuMeter([os.getpid()] + list(pipe.pids.values()))


def percentile(sorted_vals, q):
    """Linear-interpolated percentile (numpy's default) of an ascending list; q in [0, 100]."""
    if not sorted_vals:
        return float("nan")
    pos = (len(sorted_vals) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def summarise(sent, done, w0, w1):
    """Results of a run from {rid: send ns} and {rid: receive ns}, window [w0, w1) in ns."""
    lat = sorted((done[r] - t) / NS for r, t in sent.items() if w0 <= t < w1 and r in done)
    in_window = sum(1 for t in done.values() if w0 <= t < w1)
    lost = sum(1 for r, t in sent.items() if w0 <= t < w1 and r not in done)
    return {
        "requests": len(lat),
        "throughput_per_s": in_window / ((w1 - w0) / NS),
        "latency_mean_s": sum(lat) / len(lat) if lat else float("nan"),
        "latency_p50_s": percentile(lat, 50),
        "latency_p99_s": percentile(lat, 99),
    }, lost


RESET_TAG, REPORT_TAG = 0, 1


def _receive(pipe, done):
    """Receive one output; returns (rid, cid), or (None, tag) for a control message."""
    hdr, _, release = pipe.client_rx.recv()
    t = time.perf_counter_ns()
    release()
    if hdr[0] < 0:
        return None, hdr[1]
    done[hdr[0]] = t
    return hdr[0], hdr[1]


def _send(pipe, payload, rid, cid, sent):
    t = time.perf_counter_ns()
    pipe.client_tx.send_raw([tp.HDR.pack(rid, cid, t, t), payload])
    sent[rid] = t


def _drain(pipe, sent, done, timeout_s):
    """Wait for every request sent so far (bounded), then for the STATS marker."""
    deadline = time.monotonic() + timeout_s
    pipe.client_rx.sock.setsockopt(zmq.RCVTIMEO, 1000)
    try:
        while len(done) < len(sent) and time.monotonic() < deadline:
            try:
                _receive(pipe, done)
            except zmq.Again:
                pass
        pipe.control(pl.STATS_ID, REPORT_TAG)
        while True:
            try:
                if _receive(pipe, done) == (None, REPORT_TAG):
                    break
            except zmq.Again:
                if time.monotonic() > deadline + 30:
                    break
    finally:
        pipe.client_rx.sock.setsockopt(zmq.RCVTIMEO, -1)
    return pipe.collect_stats(REPORT_TAG)


def _reset_counters(pipe):
    pipe.control(pl.STATS_ID, RESET_TAG)   # counters restart at the window


def run_closed(pipe, payload, clients, warmup_s, duration_s, drain_s=60):
    """N closed-loop clients; returns (results, lost, per-process counters, CPU use)."""
    sent, done = {}, {}
    meter = _meter(pipe)
    t0 = time.perf_counter_ns()
    w0 = t0 + int(warmup_s * NS)
    w1 = w0 + int(duration_s * NS)
    next_rid = 0
    for cid in range(clients):
        _send(pipe, payload, next_rid, cid, sent)
        next_rid += 1
    reset = False
    while True:
        got = _receive(pipe, done)
        now = time.perf_counter_ns()
        if not reset and now >= w0:
            _reset_counters(pipe)
            meter.mark()
            reset = True
        if got[0] is None:
            continue
        if now >= w1:
            meter.mark()
            break
        _send(pipe, payload, next_rid, got[1], sent)
        next_rid += 1
    stats = _drain(pipe, sent, done, drain_s)
    res, lost = summarise(sent, done, w0, w1)
    return res, lost, stats, meter.cores()


def run_poisson(pipe, payload, arrivals, warmup_s, duration_s, drain_s=60):
    """Open loop: a request at each offset (s) of arrivals (arrivals.py's schedule), from the
    run's start; returns (results, lost, per-process counters, CPU use)."""
    sent, done = {}, {}
    meter = _meter(pipe)
    t0 = time.perf_counter_ns()
    w0 = t0 + int(warmup_s * NS)
    w1 = w0 + int(duration_s * NS)
    # the sender thread has its own socket: a ZeroMQ socket belongs to one thread
    sender = tp.Sender(pipe.ctx, "zmq-copy", pipe.run_dir, "h0")

    def send_all():
        reset = False
        for rid, off in enumerate(arrivals):
            at = t0 + int(off * NS)
            delay = (at - time.perf_counter_ns()) / NS
            if delay > 0:
                time.sleep(delay)
            if not reset and at >= w0:
                sender.send_raw([tp.HDR.pack(pl.STATS_ID, RESET_TAG, 0, 0), b""])
                reset = True
            t = time.perf_counter_ns()
            sent[rid] = t
            sender.send_raw([tp.HDR.pack(rid, 0, t, t), payload])

    th = threading.Thread(target=send_all, daemon=True)
    th.start()
    pipe.client_rx.sock.setsockopt(zmq.RCVTIMEO, 200)
    while th.is_alive() or len(done) < len(sent):
        try:
            _receive(pipe, done)
        except zmq.Again:
            pass
        now = time.perf_counter_ns()
        if now >= w0 and not meter.marks:
            meter.mark()
        if now >= w1:
            meter.mark()
        if not th.is_alive() and time.perf_counter_ns() > w1 + int(drain_s * NS):
            break
    pipe.client_rx.sock.setsockopt(zmq.RCVTIMEO, -1)
    th.join()
    if len(meter.marks) < 2:               # everything came back before the window's end
        time.sleep(max(0.0, (w1 - time.perf_counter_ns()) / NS))
        meter.mark()
    sender.sock.close(linger=1000)
    stats = _drain(pipe, sent, done, drain_s)
    res, lost = summarise(sent, done, w0, w1)
    return res, lost, stats, meter.cores()
