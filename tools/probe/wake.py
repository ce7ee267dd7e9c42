"""tools/probe/wake.py: the wake micro-benchmark - a hop into a block process that has been idle.

At low load the pipeline's processes sleep between requests, and on this VM a hop into a process
that slept for a second took 5 to 6 ms longer than one into a process that had just worked
(docs/calibration.md, "Waking after idle"); the hop micro-benchmarks (micro.py) time hops with
only the producing block's compute between two messages and do not see it.

The benchmark: micro.py's hop receiver (one block process holding the consuming pieces, decoding
and computing each message as the pipeline does), and this process as every hop's sender. Per
message it sleeps a gap, computes the producing piece (as the pipeline-mode hop benchmark does;
the dispatcher's hop forwards the input), and sends; the messages are the pipeline's hops into
blocks, the gaps and hops in a shuffled order (the host's speed drifts: a gap's messages are
spread over the whole benchmark). Per message it records the hop's latency (send until decoded)
and the receiver's idle time when it was sent (the receiver stamps its clock as it acknowledges
each message: CLOCK_MONOTONIC, one clock for both processes). Samples: kind "wake", transport,
gap_s, idle_s and latency_s per message. `servesim calibrate` turns them into the extra latency
by idle time (sim/calib/calibrate_wake.c).
"""
import random
import time

import torch

import micro
import transports as tp


def wake_samples(kinds, chain, piece_map, gaps_s, reps, log, seed=5):
    """kind 'wake' samples: per transport and gap, reps messages on each hop into a block."""
    hops = [(nbytes, producer, consumer) for nbytes, producer, consumer in chain if consumer]
    consumers = [consumer for _, _, consumer in hops]
    with torch.inference_mode():  # each hop's input: the chain's tensor there, computed once
        x = torch.randn((1,) + piece_map[hops[0][2]][1])
        inputs = {}
        for consumer in consumers:
            inputs[consumer] = x.clone()
            x = piece_map[consumer][0](x)
    samples = []
    rng = random.Random(seed)
    with micro.hop_receiver(kinds, max(nbytes for nbytes, _, _ in chain), consumers) as (ctx, ack, run_dir, slots,
                                                                                        slot_bytes):
        with torch.inference_mode():
            for kind in kinds:
                tx = tp.Sender(ctx, kind, run_dir, "m1-" + kind, slots, slot_bytes)
                last_ack = micro.ACK.unpack(ack.recv())[3]
                plan = [(g, h) for g in gaps_s for h in range(len(hops)) for _ in range(reps)]
                rng.shuffle(plan)
                warm = [(0.0, h) for h in range(len(hops))] * 2
                obs = {g: ([], []) for g in gaps_s}
                for i, (gap, h) in enumerate(warm + plan):
                    _, producer, consumer = hops[h]
                    time.sleep(gap)
                    y = inputs[consumer] if producer is None else piece_map[producer][0](inputs[producer])
                    t0 = time.perf_counter_ns()
                    tx.send(i, consumers.index(consumer) + 1, t0, y)
                    hop_ns, _, _, t_ack = micro.ACK.unpack(ack.recv())
                    if i >= len(warm):
                        obs[gap][0].append(max(0, t0 - last_ack) * 1e-9)
                        obs[gap][1].append(hop_ns * 1e-9)
                    last_ack = t_ack
                tx.send_stop()
                for gap in gaps_s:
                    idle, lat = obs[gap]
                    log(f"wake {kind:10s} gap {gap:4.2f} s: receiver idle {1e3 * sum(idle) / len(idle):7.1f} ms, "
                        f"hop mean {1e3 * sum(lat) / len(lat):6.3f} ms ({len(lat)} messages)")
                    samples.append({"kind": "wake", "transport": kind, "gap_s": gap, "micro_mode": "pipeline",
                                    "idle_s": [round(v, 7) for v in idle], "latency_s": [round(v, 7) for v in lat]})
    return samples
