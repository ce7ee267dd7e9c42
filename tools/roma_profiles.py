#!/usr/bin/env python3
"""roma_profiles.py: writes models/roma/{skylines,resnet,googlenet,vgg16}.json, the ESTIMATED
per-application profiles of ROMA's four apps (issue 16, deliverable 7), by the rules of
docs/roma-models.md, from the source constants below (each with its citation) and the
thread-scaling measurement profiles/measured/roma-cpu-scaling.json.  The ROMA paper gives no
per-request GPU time and no CPU time vs cores (seed roma.md section 3.2, Appendix A).

  python3 tools/roma_profiles.py            write the four files
  python3 tools/roma_profiles.py --check    exit 1 unless the committed files are what it writes
  python3 tools/roma_profiles.py --tables   print the derivation and load/capacity tables (markdown)

Standard library only; run from the repository root."""
import json
import os
import statistics
import sys

APPS = ["skylines", "googlenet", "resnet", "vgg16"]

# ---- R itself (seed roma.md) ------------------------------------------------------------
SLA_S = {"skylines": 0.38, "googlenet": 0.45, "resnet": 0.54, "vgg16": 0.56}  # R Table 1
STEP_S = 35.0                                                            # R Table 1: 8 steps of 35 s
TESTS = {  # R Table 1: req/s per step and app
    "pair i": {"skylines": [20, 20, 80, 80, 20, 20, 20, 20], "googlenet": [20, 20, 20, 20, 70, 70, 20, 20]},
    "pair ii": {"resnet": [40, 30, 20, 40, 30, 20, 30, 30], "vgg16": [20, 30, 40, 20, 40, 40, 30, 30]},
    "AllApps": {"skylines": [10, 10, 10, 10, 30, 30, 30, 10], "googlenet": [10, 30, 30, 30, 10, 10, 10, 10],
                "resnet": [10, 20, 30, 10, 20, 30, 10, 20], "vgg16": [10, 30, 20, 10, 30, 20, 10, 20]},
}
WORKERS = 2                # R section 3.1: 2 NV6 workers
CORES_PER_WORKER = 6       # NV6: 6 vCPUs (MC = 6)
RR_MAX_CORES = 6           # RR+max: all 6 cores of a worker, split evenly among the apps (R section 5)
RR_MIN_CORES = 1           # RR+min: 1 core per worker, split evenly

# ---- Seed Appendix A: profiled_rt of a related public config (unverified) -----------------
# alexnet 0.05 and vgg16 0.07 s look measured; resnet_NHWC, skyline_extraction and the trivial
# half_plus_two all carry 0.15 s, so 0.15 reads as a default and is not used.
PROFILED_RT_S = {"alexnet": 0.05, "vgg16": 0.07}

# ---- Relative GPU cost on the same architecture (Maxwell) ---------------------------------
# jcjohnson/cnn-benchmarks README @ 83d441f852134f4a98aa3e665499d9369b6141c9 (Torch, cuDNN 5.1.05,
# Maxwell GTX Titan X, forward pass of a 16 x 3 x 224 x 224 batch, ms).
TITANX_FWD_B16_MS = {"alexnet": 7.09, "googlenet": 19.29,  # Inception-V1 row
                     "vgg16": 62.30, "resnet": 55.75}      # ResNet-50 row
TITANX_TFLOPS = 6.14       # same README, GPU table (Maxwell Titan X FP32)
M60_GPU_TFLOPS = 4.825     # one GM204 of a Tesla M60 at 1178 MHz boost (2048 cores x 2 x 1.178 GHz)

# ---- Work per inference (multiply-adds, 224 x 224, batch 1) ------------------------------
GMAC = {"googlenet": 1.50,   # Szegedy et al. 2015 (GoogLeNet), section 1: a budget of "1.5 billion multiply-adds"
        "resnet": 4.12,      # ResNet-50 (He et al. 2016 Table 1 gives 3.8e9); 4.12 as torchvision / mmcls count it
        "vgg16": 15.47}      # VGG-16, torchvision / mmcls model-zoo tables (15.5 GMAC); the VGG paper gives none
PARAMS_M = {"googlenet": 6.62, "resnet": 25.56, "vgg16": 138.36}  # same tables; weights_bytes = 4 x params (fp32)

# ---- CPU: one Haswell core of the NV6 (Xeon E5-2690 v3) ----------------------------------
CPU_GHZ = 2.6              # E5-2690 v3 base clock (Intel ARK)
CPU_FLOP_PER_CYCLE = 32    # AVX2: 2 FMA ports x 8 fp32 lanes x 2 FLOP
ETA_CPU = 0.20             # [JUDGEMENT] fraction of that peak TF Serving's CPU kernels reach at batch 1
                           # (bracket: 4-13% Torch7 on Haswell at batch 16 in cnn-benchmarks; 80% torch
                           # 1.13 on EPYC in profiles/measured/committed-2026-11-26/probe-micro.json; docs/roma-models.md 3.2)
CPU_OVERHEAD_SHARE = 1.0   # [ASSUMPTION] the serving overhead (GPU fit's fixed term) is one core's work
                           # on the CPU path too (REST/JSON decode, session); 0 is the other reading

# ---- Skyline extraction: the one measured run we found -----------------------------------
# Frajberg, Fraternali, Torres, "Convolutional Neural Network for Pixel-Wise Skyline Detection",
# ICANN 2017 (Politecnico di Milano, PeakLens): 273 ms per image on a Nexus 6 phone.
SKY_PHONE_S = 0.273
PHONE_CORE_GFLOPS = 2.7 * 8  # Nexus 6: Snapdragon 805, Krait 450 at 2.7 GHz; NEON 4 fp32 lanes x FMA = 8 FLOP/cycle
                             # [ASSUMPTION] it ran on one core at the same fraction of peak as a Haswell core
SKY_GPU_LIKE = "googlenet"   # [ASSUMPTION] its GPU kernel costs per MAC what GoogLeNet's does (small convs)

# ---- Speed-up law and variability ----------------------------------------------------------
SCALING_PROFILE = "profiles/measured/roma-cpu-scaling.json"  # torch, threads 1..6, tools/roma_cpu_scaling.py
SCALING_MODEL = {"googlenet": "googlenet", "resnet": "resnet50", "vgg16": "vgg16"}
SKY_SERIAL = "max"         # [ASSUMPTION] skylines' CV post-processing is serial: the most serial CNN's fit
CV_GPU = 0.10              # [JUDGEMENT] lognormal cv of a GPU request (docs/roma-models.md 3.4)
CV_CPU = 0.15              # [JUDGEMENT] lognormal cv of a CPU request's work


def gpu_fit():
    """P_G = a + k x TitanX forward ms, through Appendix A's two measured points."""
    t_a, t_v = TITANX_FWD_B16_MS["alexnet"], TITANX_FWD_B16_MS["vgg16"]
    k = (PROFILED_RT_S["vgg16"] - PROFILED_RT_S["alexnet"]) / (t_v - t_a)
    return PROFILED_RT_S["alexnet"] - k * t_a, k


def serial_fits():
    """Least-squares Amdahl fit of each measured model: T(c)/T(1) = s + (1 - s)/c on the medians."""
    with open(SCALING_PROFILE) as f:
        prof = json.load(f)
    med = {}
    for smp in prof["samples"]:
        med.setdefault(smp["model"], {})[smp["threads"]] = statistics.median(smp["latency_s"])
    fits = {}
    for app, model in SCALING_MODEL.items():
        t1 = med[model][1]
        num = den = 0.0
        for c, t in med[model].items():
            if c == 1:
                continue
            x = 1.0 / c
            num += (t / t1 - x) * (1 - x)
            den += (1 - x) ** 2
        fits[app] = {"s": max(0.0, num / den), "speedup6": t1 / med[model][max(med[model])]}
    return fits


def derive(eta=None, gpu_overhead_share=1.0, cpu_overhead_share=None):
    """The four apps' numbers; eta and gpu_overhead_share vary the derivation for the sensitivity
    tables only (the profiles use ETA_CPU, CPU_OVERHEAD_SHARE and the whole fixed term on the GPU)."""
    eta = ETA_CPU if eta is None else eta
    cpu_share = CPU_OVERHEAD_SHARE if cpu_overhead_share is None else cpu_overhead_share
    a, k = gpu_fit()
    core_gflops = CPU_GHZ * CPU_FLOP_PER_CYCLE
    eff_gflops = core_gflops * eta
    fits = serial_fits()
    d = {}
    for app in ["googlenet", "resnet", "vgg16"]:
        kern_g = k * TITANX_FWD_B16_MS[app]
        kern_c = 2 * GMAC[app] / eff_gflops
        d[app] = {"gmac": GMAC[app], "gpu_kernel_s": kern_g, "gpu_s": gpu_overhead_share * a + kern_g,
                  "cpu_kernel_s": kern_c,
                  "cpu_s": cpu_share * a + kern_c, "serial": fits[app]["s"]}
    # skylines: CPU kernel from the phone run (efficiency cancels), MACs from it at ETA_CPU
    kern_c = SKY_PHONE_S * PHONE_CORE_GFLOPS / core_gflops
    gmac = kern_c * eff_gflops / 2
    kern_g = gmac * d[SKY_GPU_LIKE]["gpu_kernel_s"] / GMAC[SKY_GPU_LIKE]
    s = max(f["s"] for f in fits.values()) if SKY_SERIAL == "max" else SKY_SERIAL
    d["skylines"] = {"gmac": gmac, "gpu_kernel_s": kern_g, "gpu_s": gpu_overhead_share * a + kern_g,
                     "cpu_kernel_s": kern_c,
                     "cpu_s": cpu_share * a + kern_c, "serial": s}
    for app in APPS:
        d[app]["gpu_s"] = round(d[app]["gpu_s"], 4)
        d[app]["cpu_s"] = round(d[app]["cpu_s"], 4)
        d[app]["serial"] = round(d[app]["serial"], 3)
    return d, a, k, fits


def lognormal(mean, cv):
    return {"dist": "lognormal", "mean_s": mean, "sd_s": round(mean * cv, 5)}


DESC = {"skylines": "Skyline Extraction (ROMA's app [9], probably the PeakLens pixel-wise skyline CNN of Frajberg et al., "
                    "Politecnico di Milano), one request = one image",
        "googlenet": "GoogLeNet (Inception-V1) image classifier, batch 1, 224x224",
        "resnet": "ResNet-50 image classifier (Appendix A's resnet_NHWC: TF's official ResNet-50 SavedModel), batch 1, 224x224",
        "vgg16": "VGG16 image classifier, batch 1, 224x224"}


def source(app, v, a, k):
    common = ("ESTIMATES, not measurements: the ROMA paper gives no per-request times (seed roma.md 3.2). "
              "service = the GPU path's time on one Tesla M60 GPU through TF Serving, batch 1: %.4f s fixed "
              "serving overhead + %.3g s per ms of Maxwell Titan X batch-16 forward time (jcjohnson/cnn-benchmarks @ 83d441f), "
              "the line through Appendix A's profiled_rt alexnet 0.05 s and vgg16 0.07 s (related public code, unverified). "
              "cpu_service = one core of a Xeon E5-2690 v3: the same overhead + 2 x MACs / (%.1f GFLOP/s peak x %.2f efficiency). "
              % (a, k, CPU_GHZ * CPU_FLOP_PER_CYCLE, ETA_CPU))
    if app == "skylines":
        own = ("Skylines: the least known app. Its CPU kernel is the 273 ms per image Frajberg et al. (ICANN 2017) report "
               "on a Nexus 6, scaled by per-core peak (21.6 vs 83.2 GFLOP/s, one phone core assumed): %.4f core-s; its GPU "
               "kernel charges the implied %.2f GMAC at GoogLeNet's cost per MAC. serial_fraction: the largest fitted for "
               "the three CNNs (its post-processing assumed serial). "
               % (v["cpu_kernel_s"], v["gmac"]))
    else:
        own = ("%s: %.2f GMAC; serial_fraction fitted (Amdahl, least squares on medians) to profiles/measured/"
               "roma-cpu-scaling.json (torch, threads 1-6, a modern Xeon, not TF on Haswell). "
               % (app, v["gmac"]))
    return (common + own + "cv %.2f (GPU) and %.2f (CPU), lognormal, by judgement. Derivation and load check: "
            "docs/roma-models.md; regenerate with tools/roma_profiles.py; replace by servesim calibrate when measured."
            % (CV_GPU, CV_CPU))


def profile(app, v, a, k):
    p = {"name": app,
         "description": DESC[app],
         "source": source(app, v, a, k),
         "service": lognormal(v["gpu_s"], CV_GPU),
         "cpu_service": lognormal(v["cpu_s"], CV_CPU),
         "serial_fraction": v["serial"]}
    if app in PARAMS_M:
        p["weights_bytes"] = int(round(PARAMS_M[app] * 1e6 * 4))
    return json.dumps(p, indent=2) + "\n"


def speed(s, c):
    """The simulator's law (sim/serve/serve.h ss_speedup)."""
    return c if c <= 1 else 1 / (s + (1 - s) / c)


def capacity_rows(d):
    """Per test and static allocation: per step, the GPU utilisation needed once every app's CPU
    containers run flat out (fluid bound; > 1 means no scheduler can keep up)."""
    rows = []
    for test, rates in TESTS.items():
        for system, cores in (("RR+max", RR_MAX_CORES), ("RR+min", RR_MIN_CORES)):
            share = cores / len(rates)
            cpu_cap = {m: WORKERS * speed(d[m]["serial"], share) / d[m]["cpu_s"] for m in rates}
            steps = []
            for i in range(8):
                gpu_work = sum(max(0.0, rates[m][i] - cpu_cap[m]) * d[m]["gpu_s"] for m in rates)
                steps.append(gpu_work / WORKERS)
            mean_rates = {m: sum(r) / len(r) for m, r in rates.items()}
            mean = sum(max(0.0, mean_rates[m] - cpu_cap[m]) * d[m]["gpu_s"] for m in rates) / WORKERS
            rows.append((test, system, share, cpu_cap, steps, mean))
    return rows


def tables():
    d, a, k, fits = derive()
    out = []
    out.append("GPU line: P_G = %.5f s + %.4e s x (Titan X batch-16 forward ms); M60/Titan X peak ratio %.3f\n"
               % (a, k, TITANX_TFLOPS / M60_GPU_TFLOPS))
    out.append("| app | GMAC | GPU kernel s | GPU service s | batch-1 penalty | CPU kernel core-s | cpu_service core-s | "
               "serial s | speed at 1.5/3/6 cores | SLA s | SLA / GPU |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for app in APPS:
        v = d[app]
        pen = ""
        if app in TITANX_FWD_B16_MS:
            per_img = TITANX_FWD_B16_MS[app] / 16 * TITANX_TFLOPS / M60_GPU_TFLOPS / 1e3
            pen = "%.1f x" % (v["gpu_kernel_s"] / per_img)
        sp = "/".join("%.2f" % speed(v["serial"], c) for c in (1.5, 3, 6))
        out.append("| %s | %.2f | %.4f | %.4f | %s | %.4f | %.4f | %.3f | %s | %.2f | %.1f |"
                   % (app, v["gmac"], v["gpu_kernel_s"], v["gpu_s"], pen, v["cpu_kernel_s"], v["cpu_s"],
                      v["serial"], sp, SLA_S[app], SLA_S[app] / v["gpu_s"]))
    out.append("\nAmdahl fits (torch, threads 1..6): " + ", ".join(
        "%s s=%.3f (speed-up %.2f at 6)" % (m, f["s"], f["speedup6"]) for m, f in fits.items()))
    out.append("\n| test | system | cores per app per worker | CPU capacity req/s (both workers) | "
               "GPU utilisation needed per step (8 x 35 s) | over the mean rates |")
    out.append("|---|---|---|---|---|---|")
    for test, system, share, cap, steps, mean in capacity_rows(d):
        out.append("| %s | %s | %g | %s | %s | %.2f |"
                   % (test, system, share, ", ".join("%s %.1f" % (m, c) for m, c in cap.items()),
                      " ".join("%.2f" % s for s in steps), mean))
    # other readings of the derivation: GPU utilisation RR+max needs, mean rates / worst step
    readings = [("as derived (the profiles)", {}),
                ("CPU efficiency 0.5 instead of %.2f" % ETA_CPU, {"eta": 0.5}),
                ("fixed term not CPU work (CPU path = kernel only)", {"cpu_overhead_share": 0.0}),
                ("fixed term not holding the GPU (GPU = kernel only)", {"gpu_overhead_share": 0.0}),
                ("both of the last two", {"cpu_overhead_share": 0.0, "gpu_overhead_share": 0.0})]
    out.append("\n| reading | " + " | ".join("%s RR+max | %s RR+min" % (t, t) for t in TESTS) + " |")
    out.append("|---|" + "---|---|" * len(TESTS))
    for label, kw in readings:
        rows = {(r[0], r[1]): r for r in capacity_rows(derive(**kw)[0])}
        cells = ["%.2f / %.2f" % (rows[(t, sy)][5], max(rows[(t, sy)][4])) for t in TESTS for sy in ("RR+max", "RR+min")]
        out.append("| %s | %s |" % (label, " | ".join(cells)))
    # R's two qualitative claims (RR+max copes, RR+min does badly) against the share of the fixed term
    # that holds the GPU, scanned in steps of 0.01: where does each hold in all three tests (mean rates)?
    ok_max, bad_min = [], []
    for i in range(101):
        rows = capacity_rows(derive(gpu_overhead_share=i / 100)[0])
        if all(r[5] <= 1 for r in rows if r[1] == "RR+max"):
            ok_max.append(i / 100)
        if all(r[5] > 1 for r in rows if r[1] == "RR+min"):
            bad_min.append(i / 100)
    out.append("\nShare of the fixed term holding the GPU at which RR+max is feasible on the mean rates in all tests: "
               + ("%.2f to %.2f" % (ok_max[0], ok_max[-1]) if ok_max else "none")
               + "; at which RR+min is infeasible on the mean rates in all tests: "
               + ("%.2f to %.2f" % (bad_min[0], bad_min[-1]) if bad_min else "none") + ".")
    return "\n".join(out)


def main():
    d, a, k, _ = derive()
    files = {"models/roma/%s.json" % app: profile(app, d[app], a, k) for app in APPS}
    if "--tables" in sys.argv:
        print(tables())
        return 0
    if "--check" in sys.argv:
        bad = [p for p, text in files.items() if not os.path.exists(p) or open(p).read() != text]
        for p in bad:
            print("roma_profiles: %s differs from what tools/roma_profiles.py writes" % p, file=sys.stderr)
        return 1 if bad else 0
    os.makedirs("models/roma", exist_ok=True)
    for p, text in files.items():
        with open(p, "w") as f:
            f.write(text)
        print("wrote", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
