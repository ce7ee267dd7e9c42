#!/usr/bin/env bash
# bench/big-inputs.sh: the big-input benchmark of `make bench` (issue 40,
# item 6: input checks in linear time).  tools/gen_big_inputs.py writes:
#   - 100,000 devices three ways, each deployed under two models:
#     sl-100k (spine_leaf: 12,500 hosts x 8 GPUs, autoscaled and cold-started
#     as scenarios/default.yaml is), nodes-100k (100,000 one-GPU hosts written
#     node by node and link by link), hosts-100k (`hosts:`, no topology);
#     `servesim check` reads each (target: under 2 s each; 22 s before);
#   - 20,000 transfers all starting at 0 s on topologies/flashpoint-dc.yaml
#     (200 hosts, 2.5:1 oversubscribed), replayed by `servesim flows`
#     (target: under 2 s; 26 s before).
set -euo pipefail
bin=${1:-build/servesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 tools/gen_big_inputs.py "$out"
export SERVESIM_MODEL_PATH=$PWD/models

echo "== big inputs: check on 100,000 devices, flows of 20,000 at once ($(date -u +%F), $(nproc) cores)"
report() { # what, wall seconds, target seconds
    awk -v what="$1" -v w="$2" -v t="$3" 'BEGIN { printf "%-44s wall %6.2f s; target < %d s: %s\n", what, w, t,
                                                  (w < t ? "met" : "MISSED") }'
}
for s in sl-100k nodes-100k hosts-100k; do
    start=$(date +%s.%N)
    "$bin" check "$out/$s-scenario.yaml" > /dev/null
    end=$(date +%s.%N)
    report "check $s-scenario.yaml" "$(echo "$end - $start" | bc)" 2
done
start=$(date +%s.%N)
"$bin" flows topologies/flashpoint-dc.yaml "$out/concurrent-20k.csv" -o "$out/finish.csv" --stats 2> "$out/stats.txt"
end=$(date +%s.%N)
cat "$out/stats.txt"
report "flows concurrent-20k.csv (20,000 at 0 s)" "$(echo "$end - $start" | bc)" 2
