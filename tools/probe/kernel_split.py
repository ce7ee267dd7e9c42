"""tools/probe/kernel_split.py: issue 41 item 4, how much of a ResNet50 block's compute time on a
GPU is kernel time (docs/blockflow.md, "GPU-busy time vs host time"). For each block and process of
models/resnet50-split.json (blocks.py), scripted with TorchScript as BlockFlow runs them, batch 1,
float32: the wall time of `model(x)` plus a synchronize, timed on the host, and, under
torch.profiler, the GPU time of its kernels per call. kernel_fraction = kernel / wall is the split
profile's key. Needs a CUDA build of torch and torchvision; NOT YET RUN (no GPU was at hand when
it was written: models/resnet50-split.json carries a published estimate instead).

    python3 tools/probe/kernel_split.py [--reps 200] [--warmup 50] [-o FILE.json]

It prints one line per piece and writes {environment, pieces: [{name, wall_s, kernel_s,
kernel_fraction}]}: wall_s the per-call wall times, kernel_s the profiled kernel time per call
(mean over the profiled calls), kernel_fraction their ratio of means.
"""
import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def merged_busy_us(intervals):
    """Length of the union of (start, end) intervals: a GPU's busy time from its kernels."""
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def kernel_intervals(prof, device_type):
    """(start, end) in us of every kernel the profiler saw on the GPU."""
    out = []
    for ev in prof.events():
        if getattr(ev, "device_type", None) == device_type and ev.time_range.end > ev.time_range.start:
            out.append((ev.time_range.start, ev.time_range.end))
    return out


def measure(torch, mod, in_shape, reps, warmup):
    """(wall times per call in s, kernel time per call in s) of scripted mod at batch 1."""
    from torch.profiler import ProfilerActivity, profile
    dev = torch.device("cuda:0")
    m = torch.jit.script(mod.to(dev).eval())
    x = torch.randn((1,) + tuple(in_shape), device=dev)
    walls = []
    with torch.inference_mode():
        for _ in range(warmup):
            m(x)
        torch.cuda.synchronize()
        for _ in range(reps):
            t0 = time.perf_counter_ns()
            m(x)
            torch.cuda.synchronize()
            walls.append((time.perf_counter_ns() - t0) * 1e-9)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                m(x)
                torch.cuda.synchronize()
    busy_us = merged_busy_us(kernel_intervals(prof, torch.autograd.DeviceType.CUDA))
    return walls, busy_us * 1e-6 / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("-o", "--out", help="write the measurements to this JSON file")
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("kernel_split: torch sees no CUDA device: nothing measured", file=sys.stderr)
        return 2
    import blocks
    split = blocks.load_split()
    pieces = blocks.pieces(split, blocks.build_resnet())
    rows = []
    for name, (mod, in_shape, _) in pieces.items():
        walls, kernel_s = measure(torch, mod, in_shape, args.reps, args.warmup)
        wall = sum(walls) / len(walls)
        rows.append({"name": name, "wall_s": walls, "kernel_s": kernel_s, "kernel_fraction": kernel_s / wall})
        print(f"{name:14s} wall {wall * 1e3:7.3f} ms  kernels {kernel_s * 1e3:7.3f} ms  "
              f"kernel_fraction {kernel_s / wall:.3f}")
    if args.out:
        env = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "cuda": torch.version.cuda, "python": platform.python_version(),
               "date": time.strftime("%Y-%m-%d"), "reps": args.reps, "warmup": args.warmup}
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"source": "tools/probe/kernel_split.py (measured)", "environment": env, "pieces": rows},
                      f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
