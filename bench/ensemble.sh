#!/usr/bin/env bash
# bench/ensemble.sh: the ensemble optimizer's benchmark of `make bench` (issue 17).
#
# E's Algorithm 2 (servesim optimize --algo greedy, max_neighs 100, max_iter 10)
# for 1,000 evaluations of E's IMN12 on 12 GPUs: scenarios/ensemble/imn12-12gpu.yaml,
# the twelve ImageNet networks (models/ensemble/*.json, estimates of
# tools/ensemble_profiles.py, docs/ensembles-models.md) on one host CPU and
# twelve 16 GiB V100s, 30,720 images (240 segments of 128).
# Also annealing on the same budget, and greedy with -j 2.
# Target (issue 17): 1,000 evaluations of IMN12 on 12 GPUs under 60 s.
set -euo pipefail
bin=${1:-build/servesim}
n=${ENSEMBLE_EVALS:-1000}
scen=scenarios/ensemble/imn12-12gpu.yaml
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== ensemble: optimize on $scen (IMN12: 12 members, 12 GPUs + CPU), budget $n ($(date -u +%F), $(nproc) cores)"
worst=0
for run in "greedy 1" "greedy 2" "anneal 1"; do
    set -- $run
    start=$(date +%s.%N)
    "$bin" optimize "$scen" --algo "$1" --budget "$n" -j "$2" --trace "$out/trace.csv" --quiet > "$out/best"
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    evals=$(($(wc -l < "$out/trace.csv") - 1))
    awk -v a="$1" -v j="$2" -v w="$wall" -v e="$evals" -v best="$(cut -d' ' -f1 "$out/best")" \
        'BEGIN { printf "%-7s -j %d  %5d evaluations  wall %6.2f s  %8.0f evaluations/s  best %.1f img/s\n", a, j, e, w, e / w, best }'
    if [ "$1" = greedy ] && [ "$2" = 1 ]; then worst=$wall; fi
done
awk -v w="$worst" 'BEGIN { printf "target 1,000 evaluations (12 members, 12 GPUs) < 60 s: %s (greedy -j 1 %.2f s)\n", (w < 60 ? "met" : "MISSED"), w }'
