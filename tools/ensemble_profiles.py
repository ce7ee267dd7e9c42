#!/usr/bin/env python3
"""ensemble_profiles.py: writes the ensemble member profiles of issue 17, item 5:
models/ensemble/<net>.json for the twelve ImageNet networks of E's IMN1, IMN4 and IMN12, and the
SYNTHETIC families fos14-m01..m14 and cif36-m01..m36 (E's in-house AutoML ResNets, whose
architectures E does not publish), on a V100 ('V100') and the host CPU ('host-cpu'), by the rules
of docs/ensembles-models.md, from the source constants below, each with its citation.

  python3 tools/ensemble_profiles.py            write the files
  python3 tools/ensemble_profiles.py --check    exit 1 unless the committed files are what it writes
  python3 tools/ensemble_profiles.py --tables   print the derivation tables (markdown)

E (seed ensembles.md) gives no per-model latency or memory (E section 6, [gap]); it gives two
anchors for ResNet152 alone on one V100 (E section 3.4), which fix ResNet152's batch law.
Standard library only; run from the repository root."""
import json
import os
import random
import sys

BATCHES = [8, 16, 32, 64, 128]          # E section 1.2: the allowed batch values
SEGMENT = 128                           # E section 1.3: N

# ---- E section 3.4: the ResNet152 anchors on one V100 (+1 CPU) ---------------------------
A1_IMG_S = 106.0    # one worker at batch 8 on the GPU (Algorithm 1), any number of GPUs
A2_IMG_S = 136.0    # Algorithm 2's best on 1 GPU + 1 CPU; E does not say which matrix
# E section 1.6: "GPUs can run DNNs an order of magnitude faster than CPUs".  The host CPU's
# latency is this factor times the V100's, for every network and batch [ASSUMPTION: E names
# neither the CPU model nor its core count, section 3.1 gap].
CPU_FACTOR = 10.0

# ---- Relative latency of the twelve networks: one framework, one machine -----------------
# qubvel/classification_models README @ 08cacfc3eb24d70bbaa4cd9675719541c8acfe6d: "The
# inference Time was evaluated on 500 batches of size 16. All models have been tested using
# same hardware and software" (Keras / TensorFlow, as E's TensorFlow 1.14); ms per batch of 16.
# InceptionV3 and Xception at their native 299x299, the others at 224x224, as in E's ImageNet
# ensembles.
T16_MS = {"resnet18": 16.07, "resnet34": 17.37, "resnet50": 22.62, "resnet101": 33.03,
          "resnet152": 42.37, "resnext50": 37.57, "densenet121": 27.66, "vgg16": 24.95,
          "vgg19": 24.95, "inceptionv3": 38.94, "xception": 42.18, "mobilenetv2": 18.31}

# ---- Parameters (weights) and GFLOPs per image --------------------------------------------
# Parameters: the Keras Applications table (keras.io/api/applications: ResNet50 25.6M, ResNet101
# 44.7M, ResNet152 60.4M, DenseNet121 8.1M, VGG16 138.4M, VGG19 143.7M, InceptionV3 23.9M,
# Xception 22.9M, MobileNetV2 3.5M) and, for the three Keras lacks, torchvision's model table
# (ResNet18 11.69M, ResNet34 21.80M, ResNeXt50-32x4d 25.03M).  float32: 4 bytes each.
PARAMS_M = {"resnet18": 11.69, "resnet34": 21.80, "resnet50": 25.6, "resnet101": 44.7,
            "resnet152": 60.4, "resnext50": 25.03, "densenet121": 8.1, "vgg16": 138.4,
            "vgg19": 143.7, "inceptionv3": 23.9, "xception": 22.9, "mobilenetv2": 3.5}
# GFLOPs (multiply-adds) per 224x224 image, torchvision's model table; used only for the
# synthetic families' ResNet skeletons below.
RESNET_GFLOPS = {18: 1.82, 34: 3.68, 50: 4.13, 101: 7.87, 152: 11.60}
RESNET_PARAMS_M = {18: 11.69, 34: 21.80, 50: 25.56, 101: 44.55, 152: 60.19}

# ---- Activation memory per image, and the per-process runtime -----------------------------
# [ASSUMPTION, derived from the architectures] inference keeps a layer's input, its output and
# one residual (or concatenation) operand alive: 3 x the largest float32 activation tensor.
# Largest tensors: 224x224x64 after VGG's first convolution (12.8 MB); 112x112x64 after the
# ResNets', ResNeXt's and DenseNet's stem (and 56x56x256 in their first stage, the same 3.2 MB);
# 147x147x64 in InceptionV3's and Xception's stem at 299x299 (5.5 MB); 112x112x96 in
# MobileNetV2's first expansion (4.8 MB).
LARGEST_ACT = {"resnet18": (112, 112, 64), "resnet34": (112, 112, 64), "resnet50": (112, 112, 64),
               "resnet101": (112, 112, 64), "resnet152": (112, 112, 64),
               "resnext50": (112, 112, 64), "densenet121": (112, 112, 64),
               "vgg16": (224, 224, 64), "vgg19": (224, 224, 64), "inceptionv3": (147, 147, 64),
               "xception": (147, 147, 64), "mobilenetv2": (112, 112, 96)}
LIVE_TENSORS = 3
# [ESTIMATE] each worker process holds a CUDA context and TensorFlow's runtime on its GPU,
# about 0.5 GB, whatever its batch (one process per worker, E section 1.4): 300-400 MB per
# process at CUDA initialisation on V100s with CUDA 10 (pytorch/pytorch#20532), 0.67 GB with
# every kernel loaded (pytorch/pytorch#86509).  Not in the profiles: it is the scenarios'
# `ensemble.resident.cuda_context_bytes` (tools/ensemble.py writes it; docs/memory.md).
GPU_RUNTIME_BYTES = 500_000_000

# ---- The ensembles (E section 3.2) -------------------------------------------------------
IMN1 = ["resnet152"]
IMN4 = ["resnet50", "resnet101", "densenet121", "vgg19"]
IMN12 = IMN1 + IMN4 + ["resnet18", "resnet34", "resnext50", "inceptionv3", "xception", "vgg16",
                       "mobilenetv2"]

# ---- The synthetic families (E section 3.2: "built around the Resnet skeleton from 10 to 132
# layers and the number of filters in each convolution is multiplied from 0.5 to 3") ----------
FAMILIES = {"fos14": {"members": 14, "image": 224, "seed": 14},   # 224x224 RGB, 91 classes
            "cif36": {"members": 36, "image": 32, "seed": 36}}    # CIFAR100: 32x32 RGB
DEPTH_RANGE = (10, 132)
WIDTH_RANGE = (0.5, 3.0)


def resnet152_law():
    """(t0_s, t1_s): ResNet152's V100 batch latency t0 + t1 * b from E's two anchors.
    A1: one GPU worker at batch 8 gives 106 img/s, so t0 + 8 t1 = 8 / 106.
    A2 [ASSUMPTION: Algorithm 2's best on 1 GPU + 1 CPU is a GPU worker and a CPU worker, both
    at batch 128, whose throughputs add]: (1 + 1 / CPU_FACTOR) * 128 / (t0 + 128 t1) = 136."""
    at8 = 8.0 / A1_IMG_S
    at128 = (1.0 + 1.0 / CPU_FACTOR) * 128.0 / A2_IMG_S
    t1 = (at128 - at8) / (128 - 8)
    return at8 - 8 * t1, t1


def ratio_fit():
    """Least squares of the measured batch-16 ratio to ResNet152 against GFLOPs over the five
    ResNets: the synthetic members' relative latency (intercept = per-batch overhead)."""
    xs = [RESNET_GFLOPS[d] for d in sorted(RESNET_GFLOPS)]
    ys = [T16_MS["resnet%d" % d] / T16_MS["resnet152"] for d in sorted(RESNET_GFLOPS)]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def interp_depth(table, depth):
    """table[d] at depth d: linear between the ResNet depths, proportional below 18, the last
    segment's slope above 152."""
    ds = sorted(table)
    if depth <= ds[0]:
        return table[ds[0]] * depth / ds[0]
    for lo, hi in zip(ds, ds[1:]):
        if depth <= hi:
            return table[lo] + (table[hi] - table[lo]) * (depth - lo) / (hi - lo)
    lo, hi = ds[-2], ds[-1]
    return table[hi] + (table[hi] - table[lo]) * (depth - hi) / (hi - lo)


def act_bytes(shape, scale=1.0):
    h, w, c = shape
    return LIVE_TENSORS * h * w * c * 4 * scale


def profile(name, ratio, weights_bytes, act_per_image, source):
    t0, t1 = resnet152_law()
    gpu, cpu = {}, {}
    for b in BATCHES:
        lat = ratio * (t0 + t1 * b)
        mem = round(act_per_image * b)
        gpu[str(b)] = {"latency_s": round(lat, 6), "memory_bytes": mem}
        cpu[str(b)] = {"latency_s": round(lat * CPU_FACTOR, 6), "memory_bytes": mem}
    return {"name": name, "source": source, "weights_bytes": int(round(weights_bytes)),
            "devices": {"V100": gpu, "host-cpu": cpu}}


def real_members():
    out = {}
    for net in IMN12:
        ratio = T16_MS[net] / T16_MS["resnet152"]
        src = ("ESTIMATE by tools/ensemble_profiles.py (docs/ensembles-models.md): V100 latency = "
               "%.4f x ResNet152's law t0 + t1*b fixed by E section 3.4's anchors (106 img/s at "
               "batch 8; 136 img/s on 1 GPU + 1 CPU); %.4f = %s's batch-16 time over ResNet152's "
               "(qubvel/classification_models @ 08cacfc, %.2f / %.2f ms); host CPU = %g x V100 "
               "(E section 1.6); weights %.2fM float32 parameters (Keras Applications / "
               "torchvision); memory at batch b = %d x the largest activation (%s) x b; the "
               "%.1f GB of CUDA context and runtime per GPU worker is the scenario's "
               "resident.cuda_context_bytes"
               % (ratio, ratio, net, T16_MS[net], T16_MS["resnet152"], CPU_FACTOR, PARAMS_M[net],
                  LIVE_TENSORS, "x".join(str(v) for v in LARGEST_ACT[net]),
                  GPU_RUNTIME_BYTES / 1e9))
        out[net] = profile(net, ratio, PARAMS_M[net] * 4e6, act_bytes(LARGEST_ACT[net]), src)
    return out


def synthetic_members():
    """The synthetic families: depth and width multiplier drawn uniformly from E's ranges with a
    fixed seed (random.Random, stable across Python versions for random())."""
    a, b = ratio_fit()
    out, rows = {}, []
    for fam, spec in FAMILIES.items():
        rng = random.Random(spec["seed"])
        res = spec["image"] / 224.0
        for i in range(1, spec["members"] + 1):
            depth = int(DEPTH_RANGE[0] + rng.random() * (DEPTH_RANGE[1] - DEPTH_RANGE[0]) + 0.5)
            width = round(WIDTH_RANGE[0] + rng.random() * (WIDTH_RANGE[1] - WIDTH_RANGE[0]), 2)
            gflops = interp_depth(RESNET_GFLOPS, depth) * width ** 2 * res ** 2
            params_m = interp_depth(RESNET_PARAMS_M, depth) * width ** 2
            ratio = a + b * gflops
            name = "%s-m%02d" % (fam, i)
            src = ("SYNTHETIC member of E's %s (E section 3.2: in-house AutoML ResNets, not "
                   "published), by tools/ensemble_profiles.py: ResNet skeleton of depth %d, "
                   "filters x%.2f, %dx%d input; %.3f GFLOPs, %.2fM parameters (torchvision's "
                   "ResNets interpolated in depth, x width^2, x resolution^2); latency ratio to "
                   "ResNet152 %.4f = %.4f + %.4f x GFLOPs (least squares over the five ResNets' "
                   "measured batch-16 ratios)" % (fam.upper(), depth, width, spec["image"],
                                                  spec["image"], gflops, params_m, ratio, a, b))
            act = act_bytes((112, 112, 64), width * res ** 2)
            out[name] = profile(name, ratio, params_m * 4e6, act, src)
            rows.append((name, depth, width, gflops, params_m, ratio))
    return out, rows


def render(p):
    """One JSON file, one batch size per line (as the hand-written profiles)."""
    lines = ["{", '  "name": %s,' % json.dumps(p["name"]), '  "source": %s,' % json.dumps(p["source"]),
             '  "weights_bytes": %d,' % p["weights_bytes"], '  "devices": {']
    devs = list(p["devices"].items())
    for di, (dev, curve) in enumerate(devs):
        lines.append("    %s: {" % json.dumps(dev))
        items = list(curve.items())
        for bi, (b, pt) in enumerate(items):
            lines.append('      %s: {"latency_s": %s, "memory_bytes": %d}%s'
                         % (json.dumps(b), repr(pt["latency_s"]), pt["memory_bytes"],
                            "," if bi + 1 < len(items) else ""))
        lines.append("    }" + ("," if di + 1 < len(devs) else ""))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def tables(real, rows):
    t0, t1 = resnet152_law()
    a, b = ratio_fit()
    print("ResNet152 on the V100: latency(b) = %.4f s + %.5f s x b  (batch 8: %.4f s = %.1f img/s; "
          "batch 128: %.4f s = %.1f img/s)\n" % (t0, t1, t0 + 8 * t1, 8 / (t0 + 8 * t1),
                                                  t0 + 128 * t1, 128 / (t0 + 128 * t1)))
    print("| network | ratio to ResNet152 | V100 batch 8 ms | V100 batch 128 ms | V100 img/s at 128 "
          "| weights MB | memory at 128, GB (GPU) |")
    print("|---|---|---|---|---|---|---|")
    for net in IMN12:
        p = real[net]["devices"]["V100"]
        print("| %s | %.4f | %.1f | %.1f | %.1f | %.0f | %.2f |"
              % (net, T16_MS[net] / T16_MS["resnet152"], p["8"]["latency_s"] * 1e3,
                 p["128"]["latency_s"] * 1e3, 128 / p["128"]["latency_s"],
                 real[net]["weights_bytes"] / 1e6, (p["128"]["memory_bytes"] + GPU_RUNTIME_BYTES) / 1e9))
    print("\nSynthetic ratio law: ratio = %.4f + %.4f x GFLOPs\n" % (a, b))
    print("| member | depth | width | GFLOPs | params M | ratio |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %.2f | %.3f | %.2f | %.4f |" % r)


def main():
    real = real_members()
    synth, rows = synthetic_members()
    files = {os.path.join("models", "ensemble", n + ".json"): render(p)
             for n, p in list(real.items()) + list(synth.items())}
    if "--tables" in sys.argv[1:]:
        tables(real, rows)
        return 0
    if "--check" in sys.argv[1:]:
        bad = []
        for path, text in files.items():
            try:
                with open(path) as f:
                    if f.read() != text:
                        bad.append(path)
            except OSError:
                bad.append(path)
        for path in bad:
            print("ensemble_profiles: %s differs from what tools/ensemble_profiles.py writes" % path,
                  file=sys.stderr)
        print("ensemble_profiles: %d files, %d differ" % (len(files), len(bad)))
        return 1 if bad else 0
    for path, text in files.items():
        with open(path, "w") as f:
            f.write(text)
    print("ensemble_profiles: wrote %d files" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
