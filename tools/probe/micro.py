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
"""
import multiprocessing as mp
import os
import shutil
import struct
import tempfile
import time

import torch
import zmq

import transports as tp

ACK = struct.Struct("<qq")      # hop latency ns, receiver decode ns


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
                    budget_s=1.5, first_threads_only=()):
    """kind 'compute' samples: every piece x batch x threads, up to reps calls each (at least
    3, fewer than reps once they took budget_s). Pieces in first_threads_only are measured
    with threads_list[0] only (the fused process: the sum of its blocks, measured as run)."""
    samples = []
    with torch.inference_mode():
        for threads in threads_list:
            torch.set_num_threads(threads)
            for name in names:
                if threads != threads_list[0] and name in first_threads_only:
                    continue
                mod, in_shape, _ = piece_map[name]
                for batch in batches:
                    x = torch.randn((batch,) + in_shape)
                    y = mod(x)  # the tensors it receives and sends at this batch (float32)
                    lat = _timed(lambda: mod(x), reps, warmup, budget_s)
                    samples.append({"kind": "compute", "model": "resnet50-split", "block": name,
                                    "device": "cpu", "batch": batch, "threads": threads,
                                    "in_bytes": x.nelement() * x.element_size(),
                                    "out_bytes": y.nelement() * y.element_size(),
                                    "latency_s": lat})
                    log(f"compute {name:13s} batch {batch} threads {threads}: "
                        f"mean {1e3 * sum(lat) / len(lat):8.2f} ms  min {1e3 * min(lat):8.2f} ms")
    torch.set_num_threads(1)
    return samples


def _hop_receiver(kinds, run_dir, slots, slot_bytes):
    """Receiver process of the hop benchmark, one transport after the other: decode each
    message, acknowledge its timings; a stop message ends a transport."""
    torch.set_num_threads(1)
    ctx = tp.new_context()
    ack = ctx.socket(zmq.PUSH)
    ack.connect(tp.endpoint(run_dir, "ack"))
    for kind in kinds:
        rx = tp.Receiver(ctx, kind, run_dir, "m1-" + kind, slots, slot_bytes)
        ack.send(ACK.pack(0, 0))              # ready
        while True:
            frames = rx.recv_frames()
            t1 = time.perf_counter_ns()
            hdr, x, release = rx.decode(frames)
            t2 = time.perf_counter_ns()
            if x is None:
                break
            float(x.view(-1)[-1])             # touch the tensor: it is there
            release()
            ack.send(ACK.pack(t2 - hdr[3], t2 - t1))
    ctx.destroy(linger=0)


def transport_samples(kinds, sizes_bytes, reps, warmup, log):
    """kind 'transport' samples: for each transport, reps one-at-a-time hops per size
    (one receiver process serves the transports in turn)."""
    run_dir = tempfile.mkdtemp(prefix="ssprobe-hop-")
    slots, slot_bytes = 4, max(sizes_bytes)
    rings = [tp.create_ring(run_dir, "m1-" + k, slots, slot_bytes) for k in kinds if k == "shm-handle"]
    ctx = tp.new_context()
    ack = ctx.socket(zmq.PULL)
    ack.bind(tp.endpoint(run_dir, "ack"))
    proc = mp.get_context("spawn").Process(target=_hop_receiver, daemon=True,
                                           args=(list(kinds), run_dir, slots, slot_bytes))
    proc.start()
    samples = []
    try:
        for kind in kinds:
            tx = tp.Sender(ctx, kind, run_dir, "m1-" + kind, slots, slot_bytes)
            ack.recv()
            samples += _hop_sizes(tx, ack, kind, sizes_bytes, reps, warmup, log)
            tx.send_stop()
    finally:
        proc.join(timeout=20)
        if proc.is_alive():
            proc.terminate()
        ctx.destroy(linger=0)
        for ring in rings:
            os.unlink(ring)
        shutil.rmtree(run_dir, ignore_errors=True)
    return samples


def _hop_sizes(tx, ack, kind, sizes_bytes, reps, warmup, log):
    samples = []
    for nbytes in sizes_bytes:
        x = torch.randn(1, nbytes // tp.ITEM_BYTES)
        lat, snd, rcv = [], [], []
        for i in range(warmup + reps):
            t0 = time.perf_counter_ns()
            tx.send(i, 0, t0, x)
            t1 = time.perf_counter_ns()
            hop_ns, rx_ns = ACK.unpack(ack.recv())
            if i >= warmup:
                lat.append(hop_ns * 1e-9)
                snd.append((t1 - t0) * 1e-9)
                rcv.append(rx_ns * 1e-9)
        samples.append({"kind": "transport", "transport": kind, "bytes": nbytes,
                        "latency_s": lat, "sender_s": snd, "receiver_s": rcv})
        log(f"transport {kind:10s} {nbytes:9d} B: hop mean {1e3 * sum(lat) / reps:7.3f} ms, "
            f"sender {1e3 * sum(snd) / reps:7.3f} ms, receiver {1e3 * sum(rcv) / reps:7.3f} ms")
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
