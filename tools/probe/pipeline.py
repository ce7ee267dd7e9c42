"""tools/probe/pipeline.py: the real block pipeline, one OS process per block, as BlockFlow runs it.

  client --h0 (zmq-copy)--> dispatcher --h1--> block1 --h2--> block2 --h3--> block3
         --h4--> block4_class --h5--> client

h1..h5 use the transport under test (transports.py); h0 always copies the pickled input, as
TensorMQ falls back to a copy on the client -> dispatcher hop. Each process is single-threaded
FIFO, one request at a time (BlockFlow's main thread; ZeroMQ's own I/O thread queues arrivals),
with torch.set_num_threads(threads) (1 by default), so the block processes, the dispatcher and
the client share the machine's cores: the CPU contention the simulator has to model.

Control messages walk the chain behind the requests (FIFO): STATS makes every process report and
reset its counters (compute, decode and send time, messages, RSS) on the control socket; STOP
makes it forward the stop and exit.
"""
import multiprocessing as mp
import os
import pickle
import shutil
import tempfile
import time

import zmq

import transports as tp

STATS_ID = -2
SLOTS_PER_HOP = 16


def _rss_bytes():
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def hop_plan(split):
    """[(hop, sender, receiver, bytes per sample)] for h1..h5, from the split file."""
    from blocks import process_names
    names = process_names(split)
    blocks = {b["name"]: b for b in split["blocks"]}
    procs = {p["name"]: p["blocks"] for p in split["pipeline"]["processes"]}
    in_bytes = lambda p: blocks[procs[p][0]]["in_bytes_per_sample"]
    out_bytes = lambda p: blocks[procs[p][-1]]["out_bytes_per_sample"]
    hops = [("h1", "dispatcher", names[0], in_bytes(names[0]))]
    for i in range(len(names) - 1):
        hops.append((f"h{i + 2}", names[i], names[i + 1], out_bytes(names[i])))
    hops.append((f"h{len(names) + 1}", names[-1], "client", out_bytes(names[-1])))
    return hops


def _process_main(role, kind, run_dir, rx_hop, tx_hop, rings, threads, seed):
    """Body of the dispatcher (role 'dispatcher') or of a block process (role = its name)."""
    t_start = time.perf_counter_ns()
    import torch
    torch.set_num_threads(threads)
    module = None
    if role != "dispatcher":
        import blocks
        split = blocks.load_split()
        module, in_shape, _ = blocks.pieces(split, blocks.build_resnet(seed))[role]
        with torch.inference_mode():
            for _ in range(2):
                module(torch.zeros((1,) + in_shape))
    ctx = tp.new_context()
    rx_kind = "zmq-copy" if role == "dispatcher" else kind
    rx = tp.Receiver(ctx, rx_kind, run_dir, rx_hop, *rings.get(rx_hop, (0, 0)))
    tx = tp.Sender(ctx, kind, run_dir, tx_hop, *rings.get(tx_hop, (0, 0)))
    ctl = ctx.socket(zmq.PUSH)
    ctl.connect(tp.endpoint(run_dir, "ctl"))
    ctl.send_pyobj(("ready", role, os.getpid(), (time.perf_counter_ns() - t_start) * 1e-9))
    zero = {"messages": 0, "compute_s": 0.0, "decode_s": 0.0, "send_s": 0.0, "idle_s": 0.0}
    st = dict(zero)
    with torch.inference_mode():
        while True:
            t0 = time.perf_counter_ns()
            frames = rx.recv_frames()
            t1 = time.perf_counter_ns()
            rid, tag = tp.HDR.unpack(frames[0].bytes)[:2]
            if rid in (tp.STOP_ID, STATS_ID):
                if rid == STATS_ID:
                    ctl.send_pyobj(("stats", role, tag, dict(st, rss_bytes=_rss_bytes())))
                    st = dict(zero)
                tx.send_raw(frames)
                if rid == tp.STOP_ID:
                    break
                continue
            st["idle_s"] += (t1 - t0) * 1e-9
            if role == "dispatcher" and kind == "zmq-copy":
                tx.send_raw(frames)     # the pickle goes on unchanged (models §5.6)
                st["send_s"] += (time.perf_counter_ns() - t1) * 1e-9
                st["messages"] += 1
                continue
            hdr, x, release = rx.decode(frames)
            t2 = time.perf_counter_ns()
            y = x if module is None else module(x)
            release()
            t3 = time.perf_counter_ns()
            tx.send(hdr[0], hdr[1], hdr[2], y)
            t4 = time.perf_counter_ns()
            st["decode_s"] += (t2 - t1) * 1e-9
            st["compute_s"] += (t3 - t2) * 1e-9
            st["send_s"] += (t4 - t3) * 1e-9
            st["messages"] += 1
    ctx.destroy(linger=1000)


class Pipeline:
    """The dispatcher and the block processes of one transport, started and ready.

    client_tx sends (header, pickled input) frames to the dispatcher; client_rx receives the
    last block's output. close() stops every process and removes the rings and sockets.
    """

    def __init__(self, split, kind, threads=1, seed=0, ready_timeout_s=300):
        from blocks import process_names
        self.kind = kind
        self.run_dir = tempfile.mkdtemp(prefix="ssprobe-")
        self.hops = hop_plan(split)
        self.rings = {}
        if kind == "shm-handle":
            for hop, _, _, nbytes in self.hops:
                self.rings[hop] = (SLOTS_PER_HOP, nbytes)
                tp.create_ring(self.run_dir, hop, SLOTS_PER_HOP, nbytes)
        self.ctx = tp.new_context()
        self.ctl = self.ctx.socket(zmq.PULL)
        self.ctl.bind(tp.endpoint(self.run_dir, "ctl"))
        last = self.hops[-1][0]
        self.client_rx = tp.Receiver(self.ctx, kind, self.run_dir, last, *self.rings.get(last, (0, 0)))
        self.client_tx = tp.Sender(self.ctx, "zmq-copy", self.run_dir, "h0")
        roles = ["dispatcher"] + process_names(split)
        spawn = mp.get_context("spawn")
        self.procs = []
        for i, role in enumerate(roles):
            args = (role, kind, self.run_dir, f"h{i}", f"h{i + 1}", self.rings, threads, seed)
            p = spawn.Process(target=_process_main, args=args, name=f"probe-{role}", daemon=True)
            p.start()
            self.procs.append(p)
        self.startup_s = {}
        self.pids = {}
        poller = zmq.Poller()
        poller.register(self.ctl, zmq.POLLIN)
        deadline = time.monotonic() + ready_timeout_s
        while len(self.startup_s) < len(roles):
            if not poller.poll(1000):
                dead = [p.name for p in self.procs if not p.is_alive()]
                if dead or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError(f"pipeline did not start (dead: {dead})")
                continue
            _, role, pid, secs = self.ctl.recv_pyobj()
            self.startup_s[role] = secs
            self.pids[role] = pid
        self.roles = roles

    def control(self, rid, tag=0):
        """Send a control message (STATS_ID or STOP_ID) down the chain behind the requests;
        tag travels in the client-id field (STATS: which report this is)."""
        self.client_tx.send_raw([tp.HDR.pack(rid, tag, 0, 0), b""])

    def collect_stats(self, tag, timeout_s=60):
        """{role: counters} of the STATS message with this tag; reports of other tags are
        dropped (a STATS with another tag only resets the counters)."""
        out = {}
        poller = zmq.Poller()
        poller.register(self.ctl, zmq.POLLIN)
        while len(out) < len(self.roles) and poller.poll(int(timeout_s * 1000)):
            kind, role, got_tag, st = self.ctl.recv_pyobj()
            if kind == "stats" and got_tag == tag:
                out[role] = st
        return out

    def close(self):
        try:
            self.control(tp.STOP_ID)
        except zmq.ZMQError:
            pass
        for p in self.procs:
            p.join(timeout=20)
            if p.is_alive():
                p.terminate()
                p.join()
        self.ctx.destroy(linger=0)
        for hop in self.rings:
            try:
                os.unlink(tp.slot_file(self.run_dir, hop))
            except FileNotFoundError:
                pass
        shutil.rmtree(self.run_dir, ignore_errors=True)


def pickled_input(in_shape, seed=0):
    """The client's request payload: one random input tensor, pickled once and resent."""
    import torch
    g = torch.Generator().manual_seed(seed)
    x = torch.randn((1,) + tuple(in_shape), generator=g)
    return pickle.dumps(x, protocol=pickle.HIGHEST_PROTOCOL)
