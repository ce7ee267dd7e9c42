#!/usr/bin/env bash
# bench/masa.sh: the edge-device benchmark of `make bench` (issue 5).
#
# MASA Scenario I (scenarios/masa/scenario1.yaml, variant 2g-i0.8): 100,000
# images, each requesting one of the paper's nine networks (37.7 layers on
# average, so about 7.5 M load and execute tasks), normal inter-generation
# times, 2 workers, 2 GiB, under the masa scheduler and the other four.
# Target (issue 5): the whole 100,000-job run under 5 seconds.
set -euo pipefail
bin=${1:-build/servesim}
n=${MASA_N:-100000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== masa: Scenario I, $n jobs, 2 workers, 2 GiB, intensity 0.8 ($(date -u +%F), $(nproc) cores)"
worst=0
for s in masa masa-repo bulk deepeye deepeye-frugal; do
    start=$(date +%s.%N)
    /usr/bin/env time -f "%M" -o "$out/rss" "$bin" run scenarios/masa/scenario1.yaml --variant 2g-i0.8 \
        --set requests="$n" --set edge.scheduler="$s" -o "$out/$s.csv" --quiet
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    awk -F, -v s="$s" -v w="$wall" -v rss="$(cat "$out/rss")" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["model"] == "all" { printf "%-15s %7d jobs  wall %5.2f s  mean response %8.1f ms  misses %5.1f%%  peak rss %5.1f MiB\n",
                               s, $c["completed"], w, $c["latency_mean_ms"], 100 * $c["deadline_miss_frac"], rss / 1024 }' "$out/$s.csv"
    worst=$(echo "if ($wall > $worst) $wall else $worst" | bc)
done
awk -v w="$worst" 'BEGIN { printf "target 100,000-job run < 5 s: %s (slowest scheduler %.2f s)\n", (w < 5 ? "met" : "MISSED"), w }'
