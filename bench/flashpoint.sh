#!/usr/bin/env bash
# bench/flashpoint.sh: the data-centre benchmark of `make bench` (issue 13).
#
# scenarios/flashpoint/six-models.yaml: Flashpoint's six models on 1,600
# GPUs (200 hosts, spine-leaf), each with a Twitter-like load, ATL
# autoscaling, flashpoint-lc placement: every cold start's download, load
# and send are flows on the fabric.  One hour, then 24 hours (--duration
# 86400: the synthetic shapes drawn for 86,400 s).  Targets (issue 13): one hour in
# under 2 s wall, 24 hours in under 60 s; memory flat in the trace length
# (what grows is the request pool: requests in flight at the worst burst,
# printed beside the peak memory).
set -euo pipefail
bin=${1:-build/servesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== flashpoint: six models, 1,600 GPUs, atl + flashpoint-lc ($(date -u +%F), $(nproc) cores)"
for run in 1 24 1mp 24mp; do
    hours=${run%mp}
    len=$((hours * 3600))
    sets=(--duration "$len") # the run and every workload's synthetic shape that long
    [ "$run" != "$hours" ] && sets+=(--set partitioning.policy=flashpoint-mp) # model partitioning on (issue 14)
    start=$(date +%s.%N)
    "$bin" run scenarios/flashpoint/six-models.yaml --variant lc "${sets[@]}" -o "$out/r.csv" --quiet --stats \
        2> "$out/stats"
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    target=$([ "$hours" = 1 ] && echo 2 || echo 60)
    awk -v h="$hours" -v mp="$([ "$run" != "$hours" ] && echo ' + MP')" -v w="$wall" -v t="$target" '
        /^stats:/ { match($0, /events [0-9]+/); ev = substr($0, RSTART + 7, RLENGTH - 7)
                    match($0, /[0-9.]+ M events\/s/); eps = substr($0, RSTART, RLENGTH)
                    match($0, /peak RSS [0-9.]+ MiB/); rss = substr($0, RSTART, RLENGTH)
                    match($0, /in flight [0-9]+/); fl = substr($0, RSTART + 10, RLENGTH - 10) }
        END { printf "%2d h%s: %d events, %s, wall %.2f s, %s, peak requests in flight %d; target < %d s: %s\n",
                     h, mp, ev, eps, w, rss, fl, t, (w < t ? "met" : "MISSED") }' "$out/stats"
done
