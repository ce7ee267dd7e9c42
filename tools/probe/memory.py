#!/usr/bin/python3
"""tools/probe/memory.py: the resident memory of a process serving a torchvision network on this
machine's CPU, beside the network's own bytes (issue 44 item 1; docs/memory.md).

Each condition runs in a fresh process (python3 memory.py --child NET BATCH THREADS), which reads
its own /proc/self/status (VmRSS: resident now; VmHWM: the most resident so far) at three stages:

  import   after `import torch, torchvision` (the framework's resident set, no model);
  loaded   after building NET with random weights (torchvision, weights=None: nothing downloaded)
           and model.eval(); weights_bytes = its parameters' and buffers' bytes;
  forward  after FORWARDS forward passes at batch BATCH (torch.no_grad, 224x224 RGB; inception_v3
           299x299): a serving process's high-water mark settles from the second pass on (glibc's
           heap keeps what the first freed); then one more forward under the PyTorch profiler's
           memory view on CPU
           (profile_memory=True), whose allocations and frees, summed in order, give the most
           bytes the operators held at once: activation_bytes (the input tensor excluded: it is
           input_bytes, allocated before).

The process is a plain one, OpenBLAS's OpenMP build first on the library path as in the rest of
the probe, torch.set_num_threads(THREADS), under one of two allocators (`allocator` in the
samples, one file each):
  glibc             glibc malloc with its default thresholds (probe-memory.json): its mmap
                    threshold rises with every large block freed (up to 32 MiB), so later
                    tensors come from the heap, which keeps what they free: the resident set
                    carries the heap's fragmentation;
  glibc-mmap-128k   MALLOC_MMAP_THRESHOLD_=131072 (probe-memory-mmap.json): a fixed threshold,
                    every tensor above 128 KiB mapped and unmapped on its own, so the resident
                    set holds only what is live.
Every (allocator, network, batch) runs `reps` times, in an order shuffled by
random.Random(seed); the readings of its processes are pooled into one sample per (network,
stage, batch).

Samples: kind "resident", model (absent for the import stage), device "cpu", stage, threads, allocator,
weights_bytes (loaded, forward), batch, input_bytes and activation_bytes (forward), rss_bytes and
peak_bytes (one reading per process). `servesim calibrate` fits the resident law from them
(sim/calib/calibrate_resident.c).

  tools/probe/memory.py --out DIR [--quick] [--seed 44] [--threads 2]
"""
import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import time

FULL = {"networks": ["resnet50", "resnet152", "densenet121", "vgg16", "mobilenet_v2", "googlenet"],
        "batches": [1, 4, 16], "reps": 2}
QUICK = {"networks": ["resnet18", "mobilenet_v2"], "batches": [1, 2], "reps": 1}
FORWARDS = 2
ALLOCATORS = {"glibc": ("probe-memory.json", {}),
              "glibc-mmap-128k": ("probe-memory-mmap.json", {"MALLOC_MMAP_THRESHOLD_": "131072"})}
SIDE = {"inception_v3": 299}


def status():
    """VmRSS and VmHWM of this process, bytes."""
    out = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, val = line.split(":", 1)
                out[key] = int(val.split()[0]) * 1024
    return out["VmRSS"], out["VmHWM"]


def child(net, batch, threads):
    """One condition in this (fresh) process: the readings as one JSON line on stdout."""
    rec = {}
    import torch
    import torchvision
    rec["import"] = status()
    torch.set_num_threads(threads)
    kwargs = {"aux_logits": False, "init_weights": True} if net in ("googlenet", "inception_v3") else {}
    model = getattr(torchvision.models, net)(weights=None, **kwargs).eval()
    wbytes = sum(t.numel() * t.element_size() for t in list(model.parameters()) + list(model.buffers()))
    rec["loaded"] = status()
    side = SIDE.get(net, 224)
    x = torch.randn(batch, 3, side, side)
    with torch.no_grad():
        for _ in range(FORWARDS):
            model(x)
    rec["forward"] = status()
    from torch.profiler import ProfilerActivity, profile
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        model(x)
    live = peak = 0
    for e in prof.profiler.kineto_results.events():  # in the order recorded
        if e.name() == "[memory]":
            live += e.nbytes()
            peak = max(peak, live)
    rec.update(weights_bytes=wbytes, input_bytes=x.numel() * x.element_size(), activation_bytes=peak)
    print(json.dumps(rec), flush=True)


def run_child(net, batch, threads, alloc):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.update(ALLOCATORS[alloc][1])
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", net, str(batch), str(threads)],
                         check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory_samples(cfg, threads, log, seed=44):
    """{allocator: its samples}."""
    plan = [(a, n, b) for a in ALLOCATORS for n in cfg["networks"] for b in cfg["batches"]] * cfg["reps"]
    random.Random(seed).shuffle(plan)
    got = {}
    for alloc, net, b in plan:
        r = run_child(net, b, threads, alloc)
        got.setdefault(alloc, {}).setdefault((net, b), []).append(r)
        log(f"{alloc:>15} {net:>13} batch {b:>2}: import {r['import'][0] / 2**20:6.1f} MiB, loaded {r['loaded'][0] / 2**20:6.1f} "
            f"(weights {r['weights_bytes'] / 2**20:6.1f}), forward rss {r['forward'][0] / 2**20:6.1f} peak "
            f"{r['forward'][1] / 2**20:6.1f} (activations {r['activation_bytes'] / 2**20:6.1f} MiB)")
    return {a: samples_of(got[a], cfg, threads, a) for a in ALLOCATORS}


def samples_of(got, cfg, threads, alloc):
    common = {"kind": "resident", "device": "cpu", "threads": threads, "allocator": alloc}
    smp = [dict(common, stage="import", rss_bytes=[r["import"][0] for rs in got.values() for r in rs],
                peak_bytes=[r["import"][1] for rs in got.values() for r in rs])]
    for net in cfg["networks"]:
        rs = [r for b in cfg["batches"] for r in got[(net, b)]]
        smp.append(dict(common, model=net, stage="loaded", weights_bytes=rs[0]["weights_bytes"],
                        rss_bytes=[r["loaded"][0] for r in rs], peak_bytes=[r["loaded"][1] for r in rs]))
        for b in cfg["batches"]:
            rs = got[(net, b)]
            smp.append(dict(common, model=net, stage="forward", weights_bytes=rs[0]["weights_bytes"], batch=b,
                            input_bytes=rs[0]["input_bytes"],
                            activation_bytes=max(r["activation_bytes"] for r in rs),
                            rss_bytes=[r["forward"][0] for r in rs], peak_bytes=[r["forward"][1] for r in rs]))
    return smp


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for probe-memory.json, probe-memory-mmap.json and memory-log.txt")
    ap.add_argument("--quick", action="store_true", help="two small networks at batches 1 and 2, one process each (~30 s)")
    ap.add_argument("--seed", type=int, default=44, help="seed of the conditions' order")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="torch threads (default: the cores)")
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run as probe_run
    probe_run._reexec_with_env(system_malloc=True)  # OpenBLAS first on the path; each child sets its malloc
    os.makedirs(a.out, exist_ok=True)
    cfg = QUICK if a.quick else FULL
    t0 = time.monotonic()
    with open(os.path.join(a.out, "memory-log.txt"), "w", encoding="utf-8") as logf:
        log = probe_run.tee_log(logf, t0)
        before = os.getloadavg()
        per = memory_samples(cfg, a.threads, log, a.seed)
        wall = time.monotonic() - t0
        for alloc, smp in per.items():
            fname, env = ALLOCATORS[alloc]
            how = (f"glibc malloc with {', '.join(f'{k}={v}' for k, v in env.items())}" if env
                   else "glibc malloc, default thresholds")
            notes = (f"{'quick' if a.quick else 'full'} resident-memory probe (tools/probe/memory.py), seed {a.seed}, "
                     f"{cfg['reps']} processes per (network, batch), torch threads {a.threads}, wall {wall:.0f} s for "
                     f"both allocators; /proc/self/status VmRSS and VmHWM after import, after building the network "
                     f"(random weights), after {FORWARDS} forward passes; activation_bytes from torch.profiler "
                     f"(profile_memory, CPU); allocator {alloc}: {how}; uptime load average (1, 5, 15 min) before "
                     f"{' '.join(f'{x:.2f}' for x in before)}, after {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
                     f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}")
            path = os.path.join(a.out, fname)
            probe_run.write_profile(path, probe_run.environment(notes),
                                    "tools/probe (measured): a process's resident memory with torch and a torchvision "
                                    "network (memory.py)", samples=smp)
            log(f"memory: {alloc}: {len(smp)} samples, {path}")
        log(f"memory: done in {wall:.0f} s")


if __name__ == "__main__":
    main()
