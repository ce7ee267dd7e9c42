#!/usr/bin/env python3
"""tools/probe/summary.py: the probe's profile files as Markdown tables (standard library only):
compute per block, batch and threads; hop cost per transport and size; memcpy bandwidth; the
end-to-end runs. For docs and reports; the files themselves are the data.

  python3 tools/probe/summary.py profiles/measured/probe-micro.json profiles/measured/probe-e2e.json
"""
import json
import statistics
import sys


def _ms(xs):
    return f"{1e3 * statistics.mean(xs):.2f}"


def micro_tables(doc):
    out = []
    comp = [s for s in doc.get("samples", []) if s["kind"] == "compute"]
    if comp:
        batches = sorted({s["batch"] for s in comp})
        out += ["| block | threads | " + " | ".join(f"batch {b} (ms)" for b in batches) + " |",
                "|---|---|" + "---|" * len(batches)]
        keys = []
        for s in comp:
            if (s["block"], s["threads"]) not in keys:
                keys.append((s["block"], s["threads"]))
        for block, threads in sorted(keys, key=lambda k: (k[1], k[0])):
            row = {s["batch"]: _ms(s["latency_s"]) for s in comp
                   if s["block"] == block and s["threads"] == threads}
            out.append(f"| {block} | {threads} | " + " | ".join(row.get(b, "") for b in batches) + " |")
        out.append("")
    hops = [s for s in doc.get("samples", []) if s["kind"] == "transport"]
    if hops:
        out += ["| transport | bytes | hop mean (ms) | hop p50 (ms) | sender (ms) | receiver (ms) |",
                "|---|---|---|---|---|---|"]
        for s in hops:
            out.append(f"| {s['transport']} | {s['bytes']} | {_ms(s['latency_s'])} | "
                       f"{1e3 * statistics.median(s['latency_s']):.3f} | "
                       f"{_ms(s.get('sender_s', [0]))} | {_ms(s.get('receiver_s', [0]))} |")
        out.append("")
    mc = [s for s in doc.get("samples", []) if s["kind"] == "memcpy"]
    if mc:
        out += ["| memcpy bytes | mean (ms) | best (GB/s) |", "|---|---|---|"]
        for s in mc:
            out.append(f"| {s['bytes']} | {1e3 * statistics.mean(s['latency_s']):.4f} | "
                       f"{s['bytes'] / min(s['latency_s']) / 1e9:.1f} |")
        out.append("")
    return out


def e2e_table(doc):
    runs = doc.get("runs", [])
    if not runs:
        return []
    out = ["| transport | load | requests | throughput (/s) | mean (ms) | p50 (ms) | p99 (ms) |",
           "|---|---|---|---|---|---|---|"]
    for r in runs:
        c, res = r["conditions"], r["results"]
        load = f"{c['clients']} clients" if c["arrival"] == "closed" else f"Poisson {c['rate_per_s']:g}/s"
        out.append(f"| {c['transport']} | {load} | {res['requests']} | {res['throughput_per_s']:.2f} | "
                   f"{1e3 * res['latency_mean_s']:.1f} | {1e3 * res['latency_p50_s']:.1f} | "
                   f"{1e3 * res['latency_p99_s']:.1f} |")
    return out + [""]


def main(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        print(f"### {path}\n")
        print("\n".join(micro_tables(doc) + e2e_table(doc)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
