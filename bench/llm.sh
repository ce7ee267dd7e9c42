#!/usr/bin/env bash
# bench/llm.sh: LLM serving's speed in `make bench` (issue 42), each the whole process, best of
# five (the million: one run):
#  1. the measured vLLM run of ../shared/llm (RTX 4090, Llama-3.1-8B, 300 requests, 184 s of real
#     serving) replayed by `servesim validate --llm-perf`: target < 0.1 s, also as simulated
#     seconds per wall second beside BLIS's stated 212x and Vidur's ~140x;
#  2. the Azure LLM conversation trace (19,366 requests) on eight engines (bench/llm-azure8.yaml):
#     target < 1 s;
#  3. one million requests on 64 engines (bench/llm-million.yaml): target < 30 s, memory that
#     follows the requests in flight (peak RSS printed).
# 1 and 2 are skipped, saying so, without the shared data.
set -euo pipefail
bin=${1:-build/servesim}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
best_of() { # best_of N CMD...: the least wall seconds of N runs
    local n=$1 best= s e w
    shift
    for _ in $(seq "$n"); do
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || true
        e=$(date +%s.%N)
        w=$(echo "$e - $s" | bc)
        if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then best=$w; fi
    done
    echo "$best"
}
llm=${LLM_DATA:-../shared/llm}
run=$llm/runs/RTX4090/Llama-3.1-8B/vllm
if [ ! -f "$run/requests.jsonl" ]; then
    echo "== llm: the measured run skipped ($llm absent)"
else
    echo "== llm: the 300-request vLLM run replayed ($(date -u +%F), $(nproc) cores), best of 5"
    best=$(best_of 5 "$bin" validate "$run" --llm-perf "$llm/perf/RTX4090/meta-llama/Llama-3.1-8B/bf16/tp1" \
        --llm-model "$llm/model/meta-llama/Llama-3.1-8B.json" --intervals 0 --quiet)
awk -v w="$best" 'BEGIN { printf "300 requests, 190 simulated s, wall %.3f s (%.0fx real time)\ntarget < 0.1 s: %s\n", w, 190 / w, (w < 0.1 ? "met" : "MISSED") }'
fi
if [ ! -f "$here/../../shared/traces/azure_llm_conv_2023.csv" ]; then
    echo "== llm: the Azure conversation trace skipped (../shared/traces absent)"
else
    echo "== llm: the Azure conversation trace, 19,366 requests on 8 engines, best of 5"
    w=$(best_of 5 "$bin" run "$here/llm-azure8.yaml" -o "$out/a.csv" --quiet)
    awk -v w="$w" 'BEGIN { printf "wall %.3f s\ntarget < 1 s: %s\n", w, (w < 1 ? "met" : "MISSED") }'
fi
echo "== llm: one million requests on 64 engines"
/usr/bin/time -f "%e %M" -o "$out/t" "$bin" run "$here/llm-million.yaml" -o "$out/m.csv" --quiet
read -r w kb <"$out/t"
awk -v w="$w" -v kb="$kb" 'BEGIN { printf "wall %.2f s, peak RSS %.1f MiB\ntarget < 30 s: %s\n", w, kb / 1024, (w < 30 ? "met" : "MISSED") }'
