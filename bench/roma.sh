#!/usr/bin/env bash
# bench/roma.sh: ROMA's whole comparison in `make bench` (issue 16): the three
# tests of R Table 1 (scenarios/roma/{pair-i,pair-ii,allapps}.yaml), five systems,
# three repetitions each: 45 runs of 300 simulated seconds, one after the other
# (no -j).  Target (issue 16): all 45 under 30 s on this 2-core machine.
set -euo pipefail
bin=${1:-build/servesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== roma: 3 tests x 5 systems x 3 repetitions ($(date -u +%F), $(nproc) cores)"
start=$(date +%s.%N)
events=0
for t in pair-i pair-ii allapps; do
    "$bin" run "scenarios/roma/$t.yaml" -o "$out/$t.csv" --quiet
    n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["model"] == "all" { s += $c["completed"] } END { print s + 0 }' "$out/$t.csv")
    events=$((events + n))
done
end=$(date +%s.%N)
wall=$(echo "$end - $start" | bc)
awk -v w="$wall" -v n="$events" 'BEGIN { printf "45 runs, %d requests served, wall %.2f s (%.0f requests/s)\ntarget 45 runs < 30 s: %s\n", n, w, n / w, (w < 30 ? "met" : "MISSED") }'
