"""tools/probe/micro.py: micro-benchmarks for calibration, each piece measured alone.

  compute    each block (and fused process) of the split vs batch and torch threads, in this
             process with nothing else of the probe running (latency_s per call)
  transport  one hop of each transport vs message size: a sender process -> a receiver process,
             one message at a time (the next one leaves when the previous is acknowledged), so
             nothing queues. latency_s = sender starts sending (tensor in hand) -> receiver has
             a tensor it can compute on; sender_s = time inside the sender's send call (pickling
             or the copy into the slot); receiver_s = receiver's decode after ZeroMQ handed
             it the message (unpickling, or mapping the slot)
  memcpy     torch copy_ between two preallocated float32 tensors, one thread

Compute and transport samples are timed in one of two modes (micro_mode, recorded in every
sample as `micro_mode` and in the environment notes):

  warm       each configuration's calls back to back in a loop: the piece's weights, its input
             and its buffers stay in the caches from one call to the next (the probe's first
             mode; the best case, and what most benchmarks report).
  pipeline   each call timed the way the running pipeline makes it (the default).
             [ASSUMPTION] In the pipeline a block's process makes one call per request and, between
             two of its own calls, the other pieces of the request's chain run on the same cores
             (the other blocks' compute, every hop's pickling and copies), so its weights,
             activations and buffers have been evicted from the caches and TLBs; that eviction,
             not the scheduler's wake-ups (which are not inside a timed call) or an idle spell
             (which evicts nothing by itself), is what makes the same call dearer in the pipeline
             (docs/calibration.md, "Where the missing CPU is"). So:
               compute: the pieces in chain order, round-robin, one call each per round, each on a
               fresh copy of its input (as a decoded message is), so between two calls of a piece
               every other piece of the chain has run (_compute_interleaved);
               transport: every hop of the pipeline (hop_plan: dispatcher -> block1 ... block4_class
               -> client) in chain order, round-robin, with each side doing the compute the
               pipeline does around the hop: the sender computes the tensor it sends (the
               producing block's output, not a random tensor), the receiver computes the consuming
               block on the decoded tensor before it acknowledges (and, under shm-handle, before it
               returns the slot); the sizes the chain does not carry (the fit's range beyond it)
               go round-robin after the chain, without compute. Two processes take turns as the
               pipeline's processes do with one request in flight (_hop_rounds).
"""
import contextlib
import multiprocessing as mp
import os
import shutil
import struct
import tempfile
import time

import torch
import zmq

import transports as tp

ACK = struct.Struct("<qqqq")    # hop latency ns, receiver decode ns, receiver compute ns (pipeline mode),
                                # the receiver's clock when it acknowledged (ns; wake.py: its idle time)
MODES = ("pipeline", "warm")    # --micro-mode; the first is the default


def _timed(fn, reps, warmup, budget_s=None, min_reps=3):
    """reps timed calls after warmup ones; with budget_s, stop early once min_reps calls
    have taken budget_s together (a slow configuration on a busy machine)."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - t0) * 1e-9)
        if budget_s is not None and len(out) >= min_reps and sum(out) > budget_s:
            break
    return out


def compute_samples(piece_map, names, batches, threads_list, reps, warmup, log,
                    budget_s=1.5, first_threads_only=(), mode="pipeline"):
    """kind 'compute' samples: every piece x batch x threads, up to reps calls each (at least
    3, fewer than reps once they took budget_s). Pieces in first_threads_only are measured
    with threads_list[0] only (the fused process: the sum of its blocks, measured as run).
    mode 'warm': each configuration's calls back to back; 'pipeline': the pieces of one
    (threads, batch) round-robin in the order of names (_compute_interleaved)."""
    samples = []

    def record(name, batch, threads, x, y, lat):
        samples.append({"kind": "compute", "model": "resnet50-split", "block": name,
                        "device": "cpu", "batch": batch, "threads": threads,
                        "in_bytes": x.nelement() * x.element_size(),
                        "out_bytes": y.nelement() * y.element_size(),
                        "micro_mode": mode, "latency_s": lat})
        log(f"compute {name:13s} batch {batch} threads {threads} ({mode}): "
            f"mean {1e3 * sum(lat) / len(lat):8.2f} ms  min {1e3 * min(lat):8.2f} ms")

    with torch.inference_mode():
        for threads in threads_list:
            torch.set_num_threads(threads)
            todo = [n for n in names if threads == threads_list[0] or n not in first_threads_only]
            if mode == "warm":          # piece by piece, batch by batch, calls back to back
                for name in todo:
                    mod, in_shape, _ = piece_map[name]
                    for batch in batches:
                        x = torch.randn((batch,) + in_shape)
                        y = mod(x)  # the tensors it receives and sends at this batch (float32)
                        record(name, batch, threads, x, y, _timed(lambda: mod(x), reps, warmup, budget_s))
                continue
            for batch in batches:       # pipeline: all pieces of one batch round-robin
                xs = {n: torch.randn((batch,) + piece_map[n][1]) for n in todo}
                ys = {n: piece_map[n][0](xs[n]) for n in todo}
                lats = _compute_interleaved(piece_map, todo, xs, reps, warmup, budget_s)
                for name in todo:
                    record(name, batch, threads, xs[name], ys[name], lats[name])
    torch.set_num_threads(1)
    return samples


def _compute_interleaved(piece_map, names, xs, reps, warmup, budget_s, min_reps=3):
    """{name: [s, ...]}: rounds of one call of every piece in the order of names, each on a
    fresh copy of its input made outside the timed call (a decoded message is a new buffer);
    warmup rounds first, then up to reps rounds, fewer once min_reps rounds took budget_s per
    piece on average (the warm mode's budget, per piece)."""
    out = {n: [] for n in names}
    for r in range(warmup + reps):
        for name in names:
            mod = piece_map[name][0]
            x = xs[name].clone()
            t0 = time.perf_counter_ns()
            mod(x)
            dt = (time.perf_counter_ns() - t0) * 1e-9
            if r >= warmup:
                out[name].append(dt)
        done = r + 1 - warmup
        if done >= min_reps and sum(sum(v) for v in out.values()) > budget_s * len(names):
            break
    return out


def _hop_receiver(kinds, run_dir, slots, slot_bytes, consumers=()):
    """Receiver process of the hop benchmark, one transport after the other: decode each
    message, compute on it in pipeline mode (the consuming piece that the header's client-id
    field names: 1 + its index in consumers; 0: none), acknowledge its timings; a stop message
    ends a transport."""
    torch.set_num_threads(1)
    mods = []
    if consumers:                             # the same seeded ResNet50 as the sender's
        import blocks
        piece_map = blocks.pieces(blocks.load_split(), blocks.build_resnet(seed=0))
        mods = [piece_map[c][0] for c in consumers]
    ctx = tp.new_context()
    ack = ctx.socket(zmq.PUSH)
    ack.connect(tp.endpoint(run_dir, "ack"))
    # pipeline mode computes as the blocks do (inference mode); the warm mode decodes as before
    with torch.inference_mode() if mods else contextlib.nullcontext():
        for kind in kinds:
            rx = tp.Receiver(ctx, kind, run_dir, "m1-" + kind, slots, slot_bytes)
            ack.send(ACK.pack(0, 0, 0, time.perf_counter_ns()))  # ready
            while True:
                frames = rx.recv_frames()
                t1 = time.perf_counter_ns()
                hdr, x, release = rx.decode(frames)
                t2 = time.perf_counter_ns()
                if x is None:
                    break
                float(x.view(-1)[-1])         # touch the tensor: it is there
                t3 = t2
                if hdr[1] > 0:                # pipeline mode: the consuming block, before the slot returns
                    mods[hdr[1] - 1](x)
                    t3 = time.perf_counter_ns()
                release()
                ack.send(ACK.pack(t2 - hdr[3], t2 - t1, t3 - t2, time.perf_counter_ns()))
    ctx.destroy(linger=0)


def transport_samples(kinds, sizes_bytes, reps, warmup, log, mode="pipeline", chain=(), piece_map=None):
    """kind 'transport' samples: for each transport, reps one-at-a-time hops per size
    (one receiver process serves the transports in turn). mode 'warm': size after size,
    reps messages of one size back to back (_hop_sizes); 'pipeline': rounds over chain,
    the pipeline's hops [(bytes, producing piece or None, consuming piece or None)] in
    order, then the other sizes, with the compute around each hop (_hop_rounds; piece_map
    gives the sender's pieces)."""
    pipeline = mode == "pipeline"
    if pipeline:
        sizes_bytes = [b for b, _, _ in chain] + [n for n in sizes_bytes if n not in {b for b, _, _ in chain}]
    consumers = [c for _, _, c in chain if c] if pipeline else []
    samples = []
    with hop_receiver(kinds, max(sizes_bytes), consumers) as (ctx, ack, run_dir, slots, slot_bytes):
        for kind in kinds:
            tx = tp.Sender(ctx, kind, run_dir, "m1-" + kind, slots, slot_bytes)
            ack.recv()
            if pipeline:
                samples += _hop_rounds(tx, ack, kind, sizes_bytes, reps, chain, consumers, piece_map, log)
            else:
                samples += _hop_sizes(tx, ack, kind, sizes_bytes, reps, warmup, log)
            tx.send_stop()
    return samples


@contextlib.contextmanager
def hop_receiver(kinds, slot_bytes, consumers):
    """The hop benchmarks' receiver process (_hop_receiver, serving the transports in turn: each
    sender of one waits for its ready acknowledgement, and ends it with a stop message), its
    shared-memory rings and sockets; yields (context, ack socket, run folder, slots, slot bytes)
    and removes them all at the end."""
    run_dir = tempfile.mkdtemp(prefix="ssprobe-hop-")
    slots = 4
    rings = [tp.create_ring(run_dir, "m1-" + k, slots, slot_bytes) for k in kinds if k == "shm-handle"]
    ctx = tp.new_context()
    ack = ctx.socket(zmq.PULL)
    ack.bind(tp.endpoint(run_dir, "ack"))
    proc = mp.get_context("spawn").Process(target=_hop_receiver, daemon=True,
                                           args=(list(kinds), run_dir, slots, slot_bytes, list(consumers)))
    proc.start()
    try:
        yield ctx, ack, run_dir, slots, slot_bytes
    finally:
        proc.join(timeout=20)
        if proc.is_alive():
            proc.terminate()
        ctx.destroy(linger=0)
        for ring in rings:
            os.unlink(ring)
        shutil.rmtree(run_dir, ignore_errors=True)


def _transport_sample(kind, nbytes, mode, lat, snd, rcv, log):
    n = len(lat)
    log(f"transport {kind:10s} {nbytes:9d} B ({mode}): hop mean {1e3 * sum(lat) / n:7.3f} ms, "
        f"sender {1e3 * sum(snd) / n:7.3f} ms, receiver {1e3 * sum(rcv) / n:7.3f} ms")
    return {"kind": "transport", "transport": kind, "bytes": nbytes, "micro_mode": mode,
            "latency_s": lat, "sender_s": snd, "receiver_s": rcv}


def _hop_sizes(tx, ack, kind, sizes_bytes, reps, warmup, log):
    """The warm mode: for each size, warmup then reps messages of one tensor back to back."""
    samples = []
    for nbytes in sizes_bytes:
        x = torch.randn(1, nbytes // tp.ITEM_BYTES)
        lat, snd, rcv = [], [], []
        for i in range(warmup + reps):
            t0 = time.perf_counter_ns()
            tx.send(i, 0, t0, x)
            t1 = time.perf_counter_ns()
            hop_ns, rx_ns, _, _ = ACK.unpack(ack.recv())
            if i >= warmup:
                lat.append(hop_ns * 1e-9)
                snd.append((t1 - t0) * 1e-9)
                rcv.append(rx_ns * 1e-9)
        samples.append(_transport_sample(kind, nbytes, "warm", lat, snd, rcv, log))
    return samples


def _hop_rounds(tx, ack, kind, sizes_bytes, reps, chain, consumers, piece_map, log, warmup_rounds=1):
    """The pipeline mode: warmup_rounds then reps rounds; a round walks the chain as one request
    does (this process is every hop's sender: it computes the producing piece on the tensor it
    sent on the previous hop, or forwards the input where the dispatcher sends, then sends the
    output; the receiver decodes it and computes the consuming piece), then sends each size the
    chain does not carry (a random tensor, no compute). Between two messages of one size every
    other hop and piece of the chain has run. The compute here is logged, not sampled."""
    x0 = torch.randn((1,) + piece_map[chain[0][2]][1])
    in_chain = {b for b, _, _ in chain}
    plan = list(chain) + [(n, None, None) for n in sizes_bytes if n not in in_chain]
    extra = {n: torch.randn(1, n // tp.ITEM_BYTES) for n, _, _ in plan if n not in in_chain}
    obs = {n: ([], [], []) for n, _, _ in plan}
    sent_comp, recv_comp = {}, {}
    i = 0
    with torch.inference_mode():
        for r in range(warmup_rounds + reps):
            x = x0.clone()                    # the request's input, a fresh buffer as decoded
            for nbytes, producer, consumer in plan:
                tc = 0
                if nbytes in extra:
                    y = extra[nbytes]
                elif producer is None:
                    y = x
                else:
                    t = time.perf_counter_ns()
                    y = piece_map[producer][0](x)
                    tc = time.perf_counter_ns() - t
                if y.nelement() * tp.ITEM_BYTES != nbytes:
                    raise ValueError(f"hop of {nbytes} B: {producer or 'the input'} gives "
                                     f"{y.nelement() * tp.ITEM_BYTES} B")
                cid = consumers.index(consumer) + 1 if consumer else 0
                t0 = time.perf_counter_ns()
                tx.send(i, cid, t0, y)
                t1 = time.perf_counter_ns()
                hop_ns, rx_ns, comp_ns, _ = ACK.unpack(ack.recv())
                i += 1
                if nbytes not in extra:
                    x = y
                if r < warmup_rounds:
                    continue
                for arr, v in zip(obs[nbytes], (hop_ns, t1 - t0, rx_ns)):
                    arr.append(v * 1e-9)
                if producer:
                    sent_comp.setdefault(producer, []).append(tc * 1e-9)
                if consumer:
                    recv_comp.setdefault(consumer, []).append(comp_ns * 1e-9)
    samples = [_transport_sample(kind, n, "pipeline", *obs[n], log) for n in sorted(sizes_bytes)]
    for side, comp in (("sender, before its send", sent_comp), ("receiver, after its decode", recv_comp)):
        log(f"transport {kind:10s} compute in the rounds ({side}; logged, not sampled): " + ", ".join(
            f"{name} {1e3 * sum(v) / len(v):.2f} ms" for name, v in comp.items()))
    return samples


def memcpy_samples(sizes_bytes, reps, warmup, log):
    """kind 'memcpy' samples: one-thread copy_ of float32 buffers of each size."""
    torch.set_num_threads(1)
    samples = []
    for nbytes in sizes_bytes:
        src = torch.randn(nbytes // tp.ITEM_BYTES)
        dst = torch.empty_like(src)
        lat = _timed(lambda: dst.copy_(src), reps, warmup)
        samples.append({"kind": "memcpy", "bytes": nbytes, "latency_s": lat})
        best = min(lat)
        log(f"memcpy {nbytes:9d} B: mean {1e3 * sum(lat) / len(lat):7.3f} ms, "
            f"best {nbytes / best / 1e9:6.2f} GB/s")
    return samples
