#!/usr/bin/env python3
"""ensemble.py: E's experiments on ensembles (issue 17, item 6; seed ensembles.md, cited E §n),
the part that is not the simulator: it writes the scenarios, runs `servesim optimize` on them and
tabulates what it prints.

  scenario ENS GPUS [--images N]   print the benchmark scenario of ensemble ENS (imn1, imn4,
                                   imn12, fos14, cif36) on 1 host CPU + GPUS V100s
  scaling [-j N] [--bin B] [--ensembles a,b] [--gpus 1,2] [--seeds 1,2,3] [-o CSV]
                                   E §3.5 item 1: every ensemble on 1-16 GPUs (+1 CPU), Algorithm 1
                                   (A1) and Algorithm 2 from A1 (A2, one run per seed; E reports the
                                   median of 3); default -o results/reference/ensemble-scaling.csv
  bbs [-j N] [--bin B] [-o CSV]    E §3.5 item 2: IMN1 on 1 GPU, IMN4 on 4, IMN12 on 12: BBS,
                                   Algorithm 2 (max_iter 10 and 20, 3 seeds), annealing on greedy's
                                   budget; default -o results/reference/ensemble-bbs.csv
  imn1 [--bin B]                   the acceptance check: IMN1's A1 and A2 on E's GPU counts against
                                   E §3.4's table; exit 1 unless A1 is flat at 106 img/s (within
                                   1%) and A2 within 10% everywhere
  report [DIR]                     Markdown tables from DIR's two CSVs (default results/reference),
                                   and DIR/ensemble-summary.csv, the input of plots/ensemble-scaling.gp

The calibration set is IMAGES = 30,720 images (240 segments of 128) unless --images says otherwise:
E does not give its size (E §3.3 gap); docs/ensembles.md says why 240 segments and how much the
results depend on it.  Standard library only; run from the repository root."""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ensemble_profiles as prof  # noqa: E402

IMAGES = 30720
GPUS = [1, 2, 3, 4, 5, 6, 8, 12, 16]                  # E §3.5 item 1
SEEDS = [1, 2, 3]                                     # E: the median of 3 runs of Algorithm 2
ENSEMBLES = {"imn1": prof.IMN1, "imn4": prof.IMN4, "imn12": prof.IMN12,
             "fos14": ["fos14-m%02d" % i for i in range(1, 15)],
             "cif36": ["cif36-m%02d" % i for i in range(1, 37)]}
# E §3.4 (Table I): IMN1 throughput, img/s, by number of GPUs (+1 CPU)
E_IMN1_A1 = {g: 106 for g in GPUS}
E_IMN1_A2 = {1: 136, 2: 270, 3: 394, 4: 539, 5: 617, 6: 722, 8: 974, 12: 1436, 16: 1897}
BBS_CASES = [("imn1", 1), ("imn4", 4), ("imn12", 12)]  # E §3.5 item 2
VRAM_GIB = 16       # [ASSUMPTION] E §3.1 gap: 16 or 32 GB V100s; 16 GB is the smaller
HOST_RAM_GIB = 256  # [ASSUMPTION] E §3.1 gap: the host's memory is not stated
REF = "results/reference"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scenario(ens, gpus, images=IMAGES):
    """The YAML of ensemble ens on 1 host CPU and gpus V100s.  Its matrix (one worker per member
    at batch 8, all on the host CPU, which holds them all) only has to be valid and fit: the
    optimizer's searches start from Algorithm 1's matrix."""
    members = ENSEMBLES[ens]
    lines = ["# %s on 1 host CPU + %d V100 (%d GiB): written by tools/ensemble.py scenario" %
             (ens.upper(), gpus, VRAM_GIB),
             "name: %s-%dgpu" % (ens, gpus), "seed: 1", "hosts:", "  - name: n0", "    devices:",
             "      - {name: cpu, kind: cpu, type: host-cpu, ram_gib: %d}" % HOST_RAM_GIB]
    lines += ["      - {name: gpu%d, kind: gpu, type: V100, vram_gib: %d}" % (g, VRAM_GIB)
              for g in range(gpus)]
    lines += ["ensemble:", "  members: [%s]" % ", ".join(members),
              "  segment_images: %d" % prof.SEGMENT, "  interference: 1", "  mode: benchmark",
              "  resident: {cuda_context_bytes: %d}  # per GPU worker, estimated (docs/memory.md)"
              % prof.GPU_RUNTIME_BYTES,
              "  images: %d" % images, "  matrix:", "    - [%s]" % ", ".join("8" for _ in members)]
    lines += ["    - [%s]" % ", ".join("0" for _ in members) for _ in range(gpus)]
    return "\n".join(lines) + "\n"


def optimize(binary, path, algo, seed=1, extra=()):
    """(best throughput, evaluations, best matrix) of one `servesim optimize` run."""
    trace = path + ".%s.%d.trace.csv" % (algo, seed)
    env = dict(os.environ, SERVESIM_MODEL_PATH=os.path.join(ROOT, "models"))
    res = subprocess.run([binary, "optimize", path, "--algo", algo, "--seed", str(seed),
                          "--trace", trace, "--quiet", *extra], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode == 2 and "Algorithm 1" in res.stderr:
        return 0.0, 0, "-"   # nothing fits: E's '-' (out of memory)
    if res.returncode != 0:
        raise RuntimeError("%s optimize %s --algo %s: exit %d\n%s" % (binary, path, algo, res.returncode,
                                                                      res.stderr))
    out = res.stdout.split()
    with open(trace) as f:
        evals = sum(1 for _ in f) - 1
    return float(out[0]), evals, out[1]


def _jobs(binary, tmp, cases, images):
    """cases: (ensemble, gpus, algo, seed, extra options, label); writes each scenario once."""
    paths = {}
    for ens, gpus, *_ in cases:
        if (ens, gpus) not in paths:
            p = os.path.join(tmp, "%s-%d.yaml" % (ens, gpus))
            with open(p, "w") as f:
                f.write(scenario(ens, gpus, images))
            paths[(ens, gpus)] = p
    return [(binary, paths[(c[0], c[1])], c) for c in cases]


def _run(job):
    binary, path, (ens, gpus, algo, seed, extra, label) = job
    t = time.time()
    try:
        score, evals, matrix = optimize(binary, path, algo, seed, extra)
    except (RuntimeError, OSError) as e:   # reported, and the other runs go on
        print(e, file=sys.stderr)
        return [ens, gpus, label, seed, "", "", "%.2f" % (time.time() - t), "error"]
    return [ens, gpus, label, seed, "%.3f" % score, evals, "%.2f" % (time.time() - t), matrix]


def run_cases(binary, cases, jobs, out_csv, images):
    with tempfile.TemporaryDirectory() as tmp:
        todo = _jobs(binary, tmp, cases, images)
        with ThreadPoolExecutor(jobs) as ex:
            rows = list(ex.map(_run, todo))
    header = ["ensemble", "gpus", "algorithm", "seed", "throughput_img_s", "evaluations",
              "wall_s", "matrix"]
    if out_csv:
        tmp_csv = out_csv + ".tmp"
        with open(tmp_csv, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)
        os.replace(tmp_csv, out_csv)
    return [dict(zip(header, r)) for r in rows]


def _opt(args, name, default):
    if name in args:
        i = args.index(name)
        val = args[i + 1]
        del args[i:i + 2]
        return val
    return default


def _common(args, default_out):
    """The options scaling and bbs share: (binary, jobs, images, output CSV)."""
    return (_opt(args, "--bin", "build/servesim"), int(_opt(args, "-j", "2")),
            int(_opt(args, "--images", str(IMAGES))), _opt(args, "-o", os.path.join(REF, default_out)))


def _run_and_report(what, binary, cases, jobs, out, images):
    """Run the cases, print one line; exit status 1 if any run failed."""
    t = time.time()
    rows = run_cases(binary, cases, jobs, out, images)
    bad = sum(r["matrix"] == "error" for r in rows)
    print("ensemble %s: %d runs (%d failed), wall %.1f s, -> %s" % (what, len(cases), bad, time.time() - t, out))
    return 1 if bad else 0


def cmd_scaling(args):
    binary, jobs, images, out = _common(args, "ensemble-scaling.csv")
    ens = _opt(args, "--ensembles", ",".join(ENSEMBLES)).split(",")
    gpus = [int(g) for g in _opt(args, "--gpus", ",".join(map(str, GPUS))).split(",")]
    seeds = [int(s) for s in _opt(args, "--seeds", ",".join(map(str, SEEDS))).split(",")]
    cases = []
    for e in ens:
        for g in gpus:
            cases.append((e, g, "wfd", 1, (), "A1"))
            cases += [(e, g, "greedy", s, (), "A2") for s in seeds]
    return _run_and_report("scaling", binary, cases, jobs, out, images)


def cmd_bbs(args):
    binary, jobs, images, out = _common(args, "ensemble-bbs.csv")
    cases = []
    for e, g in BBS_CASES:
        cases.append((e, g, "bbs", 1, (), "BBS"))
        cases += [(e, g, "greedy", s, (), "A2") for s in SEEDS]
        cases += [(e, g, "greedy", s, ("--max-iter", "20"), "A2 max_iter 20") for s in SEEDS]
        # annealing on the budget of E's greedy bound: 1 + max_iter x max_neighs
        cases += [(e, g, "anneal", s, (), "anneal") for s in SEEDS]
    return _run_and_report("bbs", binary, cases, jobs, out, images)


def by_gpus(rows):
    """{gpus: (A1 scores, A2 scores)} from the rows of one ensemble."""
    out = {}
    for r in rows:
        a1, a2 = out.setdefault(int(r["gpus"]), ([], []))
        (a1 if r["algorithm"] == "A1" else a2 if r["algorithm"] == "A2" else []).append(float(r["throughput_img_s"]))
    return dict(sorted(out.items()))


def a1_a2_cell(scores):
    """(A1, median A2) of one GPU count's (A1 scores, A2 scores); 0 where a column has no run."""
    a1, a2 = scores
    return a1[0] if a1 else 0, statistics.median(a2) if a2 else 0


def a1_a2(rows):
    """{gpus: (A1, median A2)} from the rows of one ensemble."""
    return {g: a1_a2_cell(v) for g, v in by_gpus(rows).items()}


def cmd_imn1(args):
    binary = _opt(args, "--bin", "build/servesim")
    images = int(_opt(args, "--images", str(IMAGES)))
    cases = []
    for g in GPUS:  # IMN1's neighbourhood (5 D - 1 < max_neighs) is taken whole: one seed suffices
        cases += [("imn1", g, "wfd", 1, (), "A1"), ("imn1", g, "greedy", 1, (), "A2")]
    table = a1_a2(run_cases(binary, cases, 2, None, images))
    ok = True
    print("gpus a1_img_s e_a1 a1_err a2_img_s e_a2 a2_err")
    for g, (a1, a2) in table.items():
        e1, e2 = (a1 - E_IMN1_A1[g]) / E_IMN1_A1[g], (a2 - E_IMN1_A2[g]) / E_IMN1_A2[g]
        ok = ok and abs(e1) <= 0.01 and abs(e2) <= 0.10
        print("%d %.1f %d %+.4f %.1f %d %+.4f" % (g, a1, E_IMN1_A1[g], e1, a2, E_IMN1_A2[g], e2))
    print("imn1: A1 flat at 106 (1%%) and A2 within 10%% of E section 3.4: %s" % ("yes" if ok else "NO"))
    return 0 if ok else 1


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_summary(rows, path):
    """ensemble,gpus,a1_img_s,a2_img_s (median),e_a1_img_s,e_a2_img_s (IMN1 only): the plot's input."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["ensemble", "gpus", "a1_img_s", "a2_img_s", "e_a1_img_s", "e_a2_img_s"])
        for e in ENSEMBLES:
            sel = [r for r in rows if r["ensemble"] == e]
            for g, (a1, a2) in a1_a2(sel).items():
                w.writerow([e, g, "%.3f" % a1, "%.3f" % a2, E_IMN1_A1[g] if e == "imn1" else "",
                            E_IMN1_A2[g] if e == "imn1" else ""])
    os.replace(tmp, path)


def cmd_report(args):
    d = args[0] if args else REF
    rows = read(os.path.join(d, "ensemble-scaling.csv"))
    write_summary(rows, os.path.join(d, "ensemble-summary.csv"))
    imn1 = a1_a2([r for r in rows if r["ensemble"] == "imn1"])
    print("IMN1 (ResNet152) against E section 3.4, img/s (A2: median of %d seeds)\n" % len(SEEDS))
    print("| GPUs | " + " | ".join(str(g) for g in imn1) + " |")
    print("|---|" + "---|" * len(imn1))
    print("| A1 simulated | " + " | ".join("%.0f" % v[0] for v in imn1.values()) + " |")
    print("| A1 E | " + " | ".join(str(E_IMN1_A1[g]) for g in imn1) + " |")
    print("| A2 simulated | " + " | ".join("%.0f" % v[1] for v in imn1.values()) + " |")
    print("| A2 E | " + " | ".join(str(E_IMN1_A2[g]) for g in imn1) + " |")
    print("| A2 error | " + " | ".join("%+.1f%%" % (100 * (v[1] - E_IMN1_A2[g]) / E_IMN1_A2[g])
                                      for g, v in imn1.items()) + " |")
    print("\nAll ensembles, img/s: A1 / A2 (median of seeds); 0 = Algorithm 1 fails (out of memory)\n")
    gpus = sorted({int(r["gpus"]) for r in rows})
    head = "| ensemble | " + " | ".join("%d GPU" % g for g in gpus) + " |\n|---|" + "---|" * len(gpus)
    tables = {e: by_gpus([r for r in rows if r["ensemble"] == e]) for e in ENSEMBLES}
    print(head)
    for e, t in tables.items():
        cells = [("%.0f / %.0f" % a1_a2_cell(t[g])) if g in t else "" for g in gpus]
        print("| %s | %s |" % (e.upper(), " | ".join(cells)))
    print("\nAlgorithm 2's spread over the seeds (E section 4 item 3): RSD of A2 in %, and the sampling "
          "ratio max_neighs / neighbours (100 / (5 D M - M), at most 1)\n")
    print(head)
    for e, t in tables.items():
        m = len(ENSEMBLES[e])
        cells = []
        for g in gpus:
            a2 = t[g][1] if g in t else []
            ratio = min(1.0, 100.0 / (5 * (g + 1) * m - m))
            rsd = 100 * statistics.stdev(a2) / statistics.mean(a2) if len(a2) > 1 and statistics.mean(a2) else 0
            cells.append("%.1f (%.2f)" % (rsd, ratio) if a2 else "")
        print("| %s | %s |" % (e.upper(), " | ".join(cells)))
    path = os.path.join(d, "ensemble-bbs.csv")
    if os.path.exists(path):
        rows = read(path)
        print("\nBBS against the optimizer (E section 3.5 item 2): img/s, evaluations (#bench); "
              "A2 and annealing: median of %d seeds\n" % len(SEEDS))
        print("| case | BBS | A2 (max_iter 10) | A2 (max_iter 20) | annealing |")
        print("|---|---|---|---|---|")
        for e, g in BBS_CASES:
            cells = []
            for label in ("BBS", "A2", "A2 max_iter 20", "anneal"):
                sel = [r for r in rows if r["ensemble"] == e and int(r["gpus"]) == g and r["algorithm"] == label]
                if not sel:
                    cells.append("")
                    continue
                cells.append("%.0f, %d" % (statistics.median(float(r["throughput_img_s"]) for r in sel),
                                           statistics.median(int(r["evaluations"]) for r in sel)))
            print("| %s on %d GPU | %s |" % (e.upper(), g, " | ".join(cells)))
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    cmd, args = argv[0], argv[1:]
    if cmd == "scenario":
        images = int(_opt(args, "--images", str(IMAGES)))
        if len(args) != 2 or args[0] not in ENSEMBLES:
            print("ensemble.py scenario: expected ENS GPUS, ENS one of %s" % ", ".join(ENSEMBLES),
                  file=sys.stderr)
            return 2
        sys.stdout.write(scenario(args[0], int(args[1]), images))
        return 0
    fn = {"scaling": cmd_scaling, "bbs": cmd_bbs, "imn1": cmd_imn1, "report": cmd_report}.get(cmd)
    if fn is None:
        print("ensemble.py: unknown command '%s' (scenario, scaling, bbs, imn1, report)" % cmd,
              file=sys.stderr)
        return 2
    return fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
