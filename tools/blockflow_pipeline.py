#!/usr/bin/env python3
"""tools/blockflow_pipeline.py: reference calculation of the BlockFlow pipeline timings for one
synchronous client (no queueing): per-block overhead o_b, delivery d_b and compute m_b for the
transports tensormq, zmq-copy and http, summed as the thesis sums them (Eq. 4.1).

Reads models/resnet50-split.json and models/transports.json; the derivation and the
calibration equations are in docs/blockflow-models.md §5. Python 3 standard library only.

  python3 tools/blockflow_pipeline.py               # batch 1, one GPU: the acceptance figures
  python3 tools/blockflow_pipeline.py --batch 8     # tensor bytes x 8; compute by the batch rule
  python3 tools/blockflow_pipeline.py --placements  # PDI 25/50/100 on the 8x L40S host (tensormq D2D)
  python3 tools/blockflow_pipeline.py --reading echo  # Table 4.3 read as an echo (payload both ways)
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Thesis figures the model is checked against (seed §3.5): one sync client, batch 1, GV100.
TARGET = {"zmq-copy": {"T": 44.9e-3, "O": 21.18e-3}, "tensormq": {"T": 44.9e-3 / 2.8, "O": 2.55e-3}}
OFFLINE_S = 11.703e-3

# Awenode, thesis Table A.1: GPUs 0-3 on NUMA node 0, 4-7 on node 1; NODE within a node, SYS across.
def link_class(gpu_a, gpu_b):
    return "SAME" if gpu_a == gpu_b else ("NODE" if gpu_a // 4 == gpu_b // 4 else "SYS")

# Placements of the multi-GPU test (darioruta/BlockFlow multi_gpu/base_config/block_device_translator_*.json):
# client1 and dispatcher on cuda:0; A = PDI 25, C = PDI 50, D = PDI 100. B (3+1, also PDI 50) is defined, not run.
PLACEMENTS = {"PDI 25 (A)": [0, 0, 0, 0], "PDI 50 (C)": [0, 0, 2, 2], "PDI 100 (D)": [0, 1, 2, 3],
              "PDI 50, 3+1 (B, not run)": [0, 0, 0, 3]}
CLIENT_GPU = 0


def load():
    with open(os.path.join(ROOT, "models", "resnet50-split.json")) as f:
        model = json.load(f)
    with open(os.path.join(ROOT, "models", "transports.json")) as f:
        tr = json.load(f)
    return model, tr


def processes(model, batch):
    """[(name, in_bytes, out_bytes, m_s)] of the pipeline processes at BATCH."""
    blocks = {b["name"]: b for b in model["blocks"]}
    eff = model["gpu_eff_flops_per_s"]
    out = []
    for p in model["pipeline"]["processes"]:
        bl = [blocks[n] for n in p["blocks"]]
        m = 0.0
        for b in bl:  # the batch rule per block: launch-bound floor, compute-bound above it
            m += max(b["service"]["mean_s"], batch * b["gflop_per_sample"] * 1e9 / eff)
        out.append((p["name"], batch * bl[0]["in_bytes_per_sample"], batch * bl[-1]["out_bytes_per_sample"], m))
    return out


def pipeline(procs, t, gpus=None):
    """Per-process (d, o, m, d2d) and totals for transport dict T; GPUS = device per process."""
    rows = []
    for i, (name, inb, outb, m) in enumerate(procs):
        d = t["delivery_fixed_s"] + inb * t["delivery_s_per_byte"] + t.get("request_fixed_s", 0.0)
        o = t["block_fixed_s"] + inb * t["block_in_s_per_byte"] + outb * t["block_out_s_per_byte"]
        d2d = 0.0
        if gpus is not None and "cross_gpu_copy" in t:
            nxt = gpus[i + 1] if i + 1 < len(gpus) else CLIENT_GPU
            lc = link_class(gpus[i], nxt)
            if lc != "SAME":
                c = t["cross_gpu_copy"]
                d2d = c["fixed_s"] + outb / c["bytes_per_s"][lc]
        rows.append((name, d, o + d2d, m, d2d))
    return rows


def ms(x):
    return f"{x * 1e3:8.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--reading", choices=("one-way", "echo"), default="one-way",
                    help="how Table 4.3's tensor RTT is read for the per-byte delivery cost")
    ap.add_argument("--placements", action="store_true", help="also the multi-GPU placements (tensormq)")
    a = ap.parse_args()
    model, tr = load()
    T = tr["transports"]
    if a.reading == "echo":
        for name in ("zmq-copy", "http"):
            T[name]["delivery_s_per_byte"] /= 2.0
    procs = processes(model, a.batch)
    print(f"# batch {a.batch}; Table 4.3 read {a.reading}; processes: " + ", ".join(
        f"{n} (in {i} B, out {o} B, m {m * 1e3:.3f} ms)" for n, i, o, m in procs))
    res = {}
    for mode in ("zmq-copy", "tensormq"):
        rows = pipeline(procs, T[mode])
        print(f"\n{mode}:\n  {'process':13} {'d_b ms':>8} {'o_b ms':>8} {'m_b ms':>8} {'sum ms':>8}")
        for name, d, o, m, _ in rows:
            print(f"  {name:13} {ms(d)} {ms(o)} {ms(m)} {ms(d + o + m)}")
        D, O, M = (sum(r[k] for r in rows) for k in (1, 2, 3))
        tot = D + O + M
        back = T[mode]["delivery_fixed_s"] + procs[-1][2] * T[mode]["delivery_s_per_byte"]
        res[mode] = (tot, O)
        print(f"  {'total':13} {ms(D)} {ms(O)} {ms(M)} {ms(tot)}   client RTT ~ {tot * 1e3 + back * 1e3:.2f} ms")
        if a.batch == 1 and a.reading == "one-way":
            for key, val, lab in (("T", tot, "computing time"), ("O", O, "overhead")):
                tv = TARGET[mode][key]
                print(f"  {lab:15} model {val * 1e3:7.3f} ms  thesis {tv * 1e3:7.3f} ms  error {100 * (val - tv) / tv:+6.2f}%")
    z, t = res["zmq-copy"], res["tensormq"]
    print(f"\nratios zmq-copy / tensormq: computing time {z[0] / t[0]:.3f} (thesis 2.8, abstract 2.89), "
          f"overhead {z[1] / t[1]:.3f} (thesis 8.30); offline floor {sum(p[3] for p in procs) * 1e3:.3f} ms "
          f"(thesis {OFFLINE_S * 1e3:.3f} at batch 1)")

    # http: the unsplit ResNet50 behind REST (one process) and the split pipeline.
    h = T["http"]
    blocks = {b["name"]: b for b in model["blocks"]}
    full = [("resnet50", procs[0][1], procs[-1][2], sum(p[3] for p in procs))]
    hu = sum(d + o + m for _, d, o, m, _ in pipeline(full, h))
    hs = sum(d + o + m for _, d, o, m, _ in pipeline(procs, h))
    print(f"http: unsplit {hu * 1e3:.1f} ms (thesis ~200, calibrated), split {hs * 1e3:.1f} ms "
          f"(thesis: tensormq up to ~40x faster, i.e. ~{40 * t[0] * 1e3:.0f} ms)")

    if a.placements:
        tm = T["tensormq"]
        print("\ntensormq on the 8x L40S host (client on cuda:0), GV100 compute and FullSuper constants:")
        for lab, gpus in PLACEMENTS.items():
            rows = pipeline(procs, tm, gpus)
            O = sum(r[2] for r in rows)
            tot = sum(r[1] + r[2] + r[3] for r in rows)
            hops = [f"{rows[i][0]}->{'client' if i + 1 == len(gpus) else rows[i + 1][0]} "
                    f"{link_class(gpus[i], gpus[i + 1] if i + 1 < len(gpus) else CLIENT_GPU)}"
                    for i in range(len(gpus)) if rows[i][4] > 0]
            print(f"  {lab:24} GPUs {gpus}  overhead {O * 1e3:6.3f} ms  computing time {tot * 1e3:7.3f} ms  "
                  f"zmq/tmq overhead {z[1] / O:5.2f}  cross-GPU hops: {', '.join(hops) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
