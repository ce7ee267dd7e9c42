#!/usr/bin/env python3
"""roma_cpu_scaling.py: measures how batch-1 CPU inference of GoogLeNet, ResNet-50 and VGG16
speeds up with intra-op threads 1..6 (ROMA's CPU containers have 1 to 6 cores), and writes the
latencies as a servesim profile (docs/profiles.md: compute samples per model, device cpu,
batch 1, threads n).  It is evidence for the Amdahl serial fraction of docs/roma-models.md,
not a measurement of ROMA's hardware: PyTorch (torchvision, random weights, nothing
downloaded) on whatever CPU runs it, not TF Serving on a Haswell E5-2690 v3.

usage: taskset -c 0-5 python3 tools/roma_cpu_scaling.py OUT.json [--reps N]"""
import json, os, platform, sys, time

def main():
    out = sys.argv[1]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 20
    import torch, torchvision
    def build(fn, **kw):
        try:
            return fn(weights=None, **kw)
        except TypeError:  # torchvision < 0.13
            return fn(pretrained=False, **kw)
    m = torchvision.models
    nets = {"googlenet": lambda: build(m.googlenet, aux_logits=False, init_weights=False),
            "resnet50": lambda: build(m.resnet50), "vgg16": lambda: build(m.vgg16)}
    x = torch.randn(1, 3, 224, 224)
    samples = []
    for name, make in nets.items():
        net = make().eval()
        for threads in (1, 2, 3, 4, 5, 6):
            torch.set_num_threads(threads)
            with torch.inference_mode():
                for _ in range(2):
                    net(x)  # warm-up
                lat = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    net(x)
                    lat.append(round(time.perf_counter() - t0, 6))
            samples.append({"kind": "compute", "model": name, "device": "cpu", "batch": 1, "threads": threads,
                            "in_bytes": 602112, "latency_s": lat})
            print(name, threads, "mean %.4f s" % (sum(lat) / len(lat)), flush=True)
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    prof = {"servesim_profile": 1,
            "source": "tools/roma_cpu_scaling.py (measured): torchvision GoogLeNet, ResNet-50, VGG16, random weights, "
                      "batch 1, 224x224, torch.set_num_threads(1..6), %d repetitions after 2 warm-ups" % reps,
            "environment": {"machine": platform.node() or "device", "cpu_model": cpu, "cores": os.cpu_count() or 1,
                            "memory_bytes": 0, "os": platform.platform(),
                            "libraries": {"python": platform.python_version(), "torch": torch.__version__,
                                          "torchvision": torchvision.__version__},
                            "date": time.strftime("%Y-%m-%d", time.gmtime()),
                            "notes": "affinity: %s" % sorted(os.sched_getaffinity(0))},
            "samples": samples}
    with open(out, "w") as f:
        json.dump(prof, f, indent=1)
        f.write("\n")

if __name__ == "__main__":
    main()
