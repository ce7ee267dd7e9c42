#!/usr/bin/env bash
# plots/render.sh: renders the reference results in results/reference/ to
# PNG (`make plots`), and with --rerun first regenerates the reference CSV
# by running the reference sweep again (`make reference`).
#
# Reference outputs:
#   lb-load.csv          servesim sweep scenarios/sweeps/lb-load.yaml (3 load balancers x 5 loads x 3 reps)
#   lb-load.compare.csv  servesim compare of it against round-robin (mean and p99 latency)
#   lb-load.png          mean latency vs offered load, per load balancer, 95% CI bars (servesim plot axis)
#   lb-load-p99.png      the same for p99 latency
#   default-cdf.png      latency CDF of scenarios/tour/load-balancers.yaml (one 30 s replication per variant;
#                        servesim plot cdf)
#   default-ts.png       time series of scenarios/tour/load-balancers.yaml, every variant, 1 s samples
#                        (servesim plot timeseries)
#   substrate-autoscale-ts.png  the six autoscalers on the stepped load (scenarios/substrate/autoscale.yaml,
#                        replication 0): arrival rate, replicas up and cold-starting, queue
#   autoscale-bursty-ts.png     the same six on traces/example-bursty.csv (scenarios/substrate/autoscale-bursty.yaml)
#   flashpoint-t5-atl-ts.png    T5-3B under ATL on a Twitter-like hour (scenarios/flashpoint/t5-atl.yaml)
#   flashpoint-t5-coldstart-cdf.png  its cold-start durations by source, all placements
#   llm-serverless-ts.png       Llama-3.1-8B from zero on the 1,600-A10 data centre: replicas, cold starts, queue and
#                               TTFT over time, every variant (scenarios/llm/serverless-dc.yaml, docs/llm.md)
#   blockflow-rate.csv, blockflow-clients.csv   servesim sweep scenarios/sweeps/blockflow-{rate,clients}.yaml
#   blockflow-throughput.png   throughput vs Poisson rate, tensormq vs zmq-copy (GV100, 4 blocks)
#   blockflow-clients.png      mean client RTT vs number of synchronous clients
#   blockflow-overhead.csv/.png per-block overhead o_b: one sync client on the GV100, and the L40S PDI placements
#   blockflow-rate-shared.csv  servesim sweep scenarios/sweeps/blockflow-rate-shared.yaml (compute: shared: kernels share the GPU, host time on the cores)
#   blockflow-throughput-shared.png  throughput vs Poisson rate under shared compute (kernels share the GPU)
#   blockflow-cores.csv/.png   servesim sweep scenarios/sweeps/blockflow-cores.yaml: capacity vs the host's cores (shared compute)
#   masa-*.csv           servesim sweep scenarios/masa/sweeps/*.yaml (edge devices, issue 5; docs/masa.md)
#   flashpoint-eval.csv  servesim sweep scenarios/sweeps/flashpoint-eval.yaml (7 placements x 4 autoscalers x 3 reps;
#                        summarised by tools/flashpoint_eval.py, docs/coldstart.md)
#   flashpoint-ablation.csv  servesim sweep scenarios/sweeps/flashpoint-ablation.yaml (7 systems x 2 loads x
#                        4 autoscalers + tuned baselines, each model alone, 5 reps; tools/flashpoint_ablation.py: .md, -*.csv, -*.png)
#   masa-*.compare.csv   servesim compare of each against bulk (masa for mem-estimate)
#   masa-*.png           mean response time per layer scheduler vs memory, intensity, workers or estimate
#   ensemble-scaling.csv, ensemble-bbs.csv, ensemble-summary.csv  tools/ensemble.py scaling, bbs, report (issue 17)
#   ensemble-scaling.png throughput vs GPUs: IMN1 against E's Table I, and every ensemble's Algorithm 2
set -euo pipefail
bin=${1:-build/servesim}
rerun=${2:-}
ref=results/reference
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$ref"

masa_sweeps="det-small det-mixed det-lifelogging scenario1 scenario2 workers mem-estimate"
if [ "$rerun" = "--rerun" ]; then
    "$bin" sweep scenarios/sweeps/lb-load.yaml -o "$ref/lb-load.csv" --quiet --force
    "$bin" sweep scenarios/sweeps/blockflow-rate.yaml -j 2 -o "$ref/blockflow-rate.csv" --quiet --force
    "$bin" sweep scenarios/sweeps/blockflow-clients.yaml -j 2 -o "$ref/blockflow-clients.csv" --quiet --force
    "$bin" sweep scenarios/sweeps/blockflow-rate-shared.yaml -j 2 -o "$ref/blockflow-rate-shared.csv" --quiet --force
    "$bin" sweep scenarios/sweeps/blockflow-cores.yaml -j 2 -o "$ref/blockflow-cores.csv" --quiet --force
    for s in $masa_sweeps; do "$bin" sweep "scenarios/masa/sweeps/$s.yaml" -j 2 -o "$ref/masa-$s.csv" --quiet --force; done
    "$bin" sweep scenarios/sweeps/flashpoint-eval.yaml -j 2 -o "$ref/flashpoint-eval.csv" --quiet --force
    "$bin" sweep scenarios/sweeps/flashpoint-ablation.yaml -j 2 -o "$ref/flashpoint-ablation.csv" --quiet --force
fi
"$bin" compare "$ref/lb-load.csv" --by load_balancer --baseline round-robin \
    --metric latency_mean_ms --metric latency_p99_ms --csv -o "$ref/lb-load.compare.csv"
"$bin" plot axis "$ref/lb-load.csv" --y latency_mean_ms --logy -o "$ref/lb-load.png" \
    --title 'ResNet50 on 4 GV100s: mean latency against the offered load, mean and 95% CI over 3 replications'
"$bin" plot axis "$ref/lb-load.csv" --y latency_p99_ms --logy -o "$ref/lb-load-p99.png" \
    --title 'ResNet50 on 4 GV100s: p99 latency against the offered load, mean and 95% CI over 3 replications'

# Edge devices (MASA): mean response time of each layer scheduler.
masa_plot() { # sweep, baseline, axis, xlabel, title, [filter column, value]
    local s=$1 base=$2 axis=$3 xl=$4 title=$5 in="$ref/masa-$1.compare.csv" out="$ref/masa-$1.png"
    "$bin" compare "$ref/masa-$s.csv" --by edge.scheduler --baseline "$base" --metric latency_mean_ms \
        --csv -o "$in"
    if [ $# -ge 7 ]; then # one value of another axis
        awk -F, -v col="$6" -v v="$7" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
                                       $c == v' "$in" > "$tmp/$s-$7.csv"
        in="$tmp/$s-$7.csv"; out="$ref/masa-$s-$7.png"
    fi
    gnuplot -e "in='$in'; out='$out'; axis='$axis'; metric='latency_mean_ms'; xlabel='$xl';
                ylabel='mean response time (ms)'; logy=1; title='$title'" plots/metric-vs-axis.gp
}
for set in small mixed lifelogging; do
    masa_plot "det-$set" bulk edge.memory_mib "memory (MiB)" "MASA deterministic $set set: mean response time, 150 images"
done
for m in 512 1024 2048; do
    masa_plot scenario1 bulk edge.workload.intensity "traffic intensity" \
        "MASA Scenario I, $m MiB: mean response time (3 reps, 95% CI)" edge.memory_mib "$m"
    masa_plot scenario2 bulk edge.workload.intensity "traffic intensity" \
        "MASA Scenario II, $m MiB: mean response time (3 reps, 95% CI)" edge.memory_mib "$m"
done
masa_plot workers bulk edge.workers "workers" "small set, random composition, intensity 1.2: 2 vs 4 workers"
masa_plot mem-estimate masa edge.mem_estimate "memory estimate / true memory" \
    "six AgeNets per image, 160 MiB: sensitivity to the memory estimate"

# The per-request and time-series files are large; they are made here and not kept.
"$bin" run scenarios/tour/load-balancers.yaml --set replications=1 --set duration_s=30 --set warmup_s=5 --quiet \
    -o "$tmp/default.csv" --requests-csv "$tmp/requests.csv" --timeseries-csv "$tmp/ts.csv"
"$bin" plot cdf "$tmp/requests.csv" --logx -o "$ref/default-cdf.png" \
    --title 'ResNet50 on 4 GV100s at rho 0.85: latency by load balancer, p50, p90 and p99 marked (one 30 s run)'
"$bin" plot timeseries "$tmp/ts.csv" --panels arrivals,queued,in_service,utilisation -o "$ref/default-ts.png" \
    --title 'ResNet50 on 4 GV100s at rho 0.85, every load balancer: 1 s samples'
# Autoscaling (docs/autoscaling.md): the six autoscalers overlaid, on a stepped load and on a trace.
"$bin" run scenarios/substrate/autoscale.yaml --replication 0 --quiet \
    -o "$tmp/autoscale.csv" --timeseries-csv "$tmp/autoscale-ts.csv"
"$bin" plot timeseries "$tmp/autoscale-ts.csv" -o "$ref/substrate-autoscale-ts.png" \
    --title 'Six autoscalers on a stepped load: ResNet50 on up to 16 GV100s, 5 s start-up (replication 0)'
"$bin" run scenarios/substrate/autoscale-bursty.yaml --quiet -o "$tmp/bursty.csv" --timeseries-csv "$tmp/bursty-ts.csv"
"$bin" plot timeseries "$tmp/bursty-ts.csv" -o "$ref/autoscale-bursty-ts.png" \
    --title 'Six autoscalers on traces/example-bursty.csv: T5-3B on up to 16 A10s, 5 s start-up'
# Flashpoint's T5-3B under ATL on a Twitter-like hour (scenarios/flashpoint/t5-atl.yaml; FP Fig. 3.2's timeline).
"$bin" run scenarios/flashpoint/t5-atl.yaml --quiet -o "$tmp/t5.csv" --timeseries-csv "$tmp/t5-ts.csv" \
    --coldstarts-csv "$tmp/t5-cold.csv"
gnuplot -e "in='$tmp/t5-ts.csv'; out='$ref/flashpoint-t5-atl-ts.png'; variant='bl';
            title='T5-3B under ATL, the baseline (every cold start from storage): a 600 s lead-in, then a Twitter-like hour (median 57 req/s, peak 4.68x)'" \
    plots/timeseries.gp
# ... and its cold starts by source, every placement variant pooled (docs/coldstart.md).
"$bin" plot cdf "$tmp/t5-cold.csv" -o "$ref/flashpoint-t5-coldstart-cdf.png" \
    --title 'T5-3B under ATL: cold-start durations by source (bl, atoll, gpu-faas, lc, mc, lc-mc, tiered pooled)'
# Serverless LLM serving on the 1,600-A10 data centre (scenarios/llm/serverless-dc.yaml; docs/llm.md).
"$bin" run scenarios/llm/serverless-dc.yaml --quiet -o "$tmp/llm.csv" --timeseries-csv "$tmp/llm-ts.csv"
gnuplot -e "in='$tmp/llm-ts.csv'; out='$ref/llm-serverless-ts.png'; xmax=70;
            title='Llama-3.1-8B from zero on 1,600 A10s: a 10 min lead-in, then an Azure-like hour'" \
    plots/variants-timeseries.gp
# Flashpoint's ablation at equal resources (docs/flashpoint.md): tables, and the reductions by technique.
python3 tools/flashpoint_ablation.py report "$ref/flashpoint-ablation.csv" -o "$ref" > "$ref/flashpoint-ablation.md"
for load in 0 1; do
    name=$([ $load = 0 ] && echo twitter || echo azure)
    gnuplot -e "in='$ref/flashpoint-ablation-reductions.dat'; out='$ref/flashpoint-ablation-$name.png'; load=$load" \
        plots/flashpoint-ablation.gp
done
# BlockFlow pipelines (docs/blockflow.md): a metric per transport against a sweep axis.
bf_plot() { # csv, png, axis, metric, xlabel, ylabel, title, [more gnuplot settings], [filter column, value]
    local in="$tmp/${2%.png}.cmp.csv"
    "$bin" compare "$ref/$1" --by pipeline.transport --baseline zmq-copy --metric "$4" --csv -o "$in"
    if [ $# -ge 10 ]; then # only the points where another axis has one value
        awk -F, -v col="$9" -v v="${10}" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
                                           $c == v' "$in" > "$in.only"
        in="$in.only"
    fi
    gnuplot -e "in='$in'; out='$ref/$2'; axis='$3'; metric='$4'; xlabel='$5'; ylabel='$6'; title='$7'; ${8:-}" \
        plots/metric-vs-axis.gp
}
bf_plot blockflow-rate.csv blockflow-throughput.png workloads.client.rate_rps throughput_rps \
    "offered load (Poisson, requests/s)" "throughput (results/s)" \
    "BlockFlow ResNet50, 4 blocks on one GV100: throughput vs offered load (3 reps, 95% CI)"
bf_plot blockflow-clients.csv blockflow-clients.png workloads.client.clients latency_mean_ms \
    "synchronous clients" "mean client RTT (ms)" \
    "BlockFlow ResNet50, 4 blocks on one GV100: RTT vs clients (3 reps, 95% CI)"
# Shared compute (docs/blockflow.md, "Shared compute"; "GPU-busy time vs host time").
bf_plot blockflow-rate-shared.csv blockflow-throughput-shared.png workloads.client.rate_rps throughput_rps \
    "offered load (Poisson, requests/s)" "throughput (results/s)" \
    "BlockFlow ResNet50 on one GV100, shared compute (kernels share the GPU, 32 cores): throughput vs load"
bf_plot blockflow-cores.csv blockflow-cores.png pipeline.host_cores.fullsuper throughput_rps \
    "host cores" "capacity (results/s at 300/s offered)" \
    "BlockFlow ResNet50 on one GV100, shared compute: capacity vs the host cores (3 reps, 95% CI)" "key='bottom right'"
"$bin" run scenarios/blockflow/single-gv100.yaml --set replications=1 --quiet -o "$tmp/bf-gv100.csv"
"$bin" run scenarios/blockflow/l40s-pdi.yaml --set replications=1 --quiet -o "$tmp/bf-pdi.csv"
# One row per block, one column per run: overhead_ms_<block> of replication 0, row "all".
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         $c["model"] == "all" && $c["replication"] == 0 {
             run = (FILENAME ~ /gv100/ ? "GV100 " : "L40S ") $c["variant"]; runs[++n] = run
             for (k in c) if (k ~ /^overhead_ms_/) { b = substr(k, 13); v[run, b] = $c[k]; blocks[b] = 1 } }
         END { printf "block"; for (i = 1; i <= n; i++) printf ",%s", runs[i]; print ""
               split("block1 block2 block3 block4_class", order, " ")
               for (j = 1; j <= 4; j++) { b = order[j]; printf "%s", b
                   for (i = 1; i <= n; i++) printf ",%s", v[runs[i], b]; print "" } }' \
    "$tmp/bf-gv100.csv" "$tmp/bf-pdi.csv" > "$ref/blockflow-overhead.csv"
gnuplot -e "in='$ref/blockflow-overhead.csv'; out='$ref/blockflow-overhead.png'; logy=1;
            title='BlockFlow per-block overhead o_b: GV100 (1 sync client) and L40S PDI 25/50/100 (300/s)'" plots/blockflow-overhead.gp
# Ensembles (issue 17): E's scaling experiment, from the summary `tools/ensemble.py report` writes
# (the runs themselves, `tools/ensemble.py scaling`, take about 30 minutes; not part of --rerun).
gnuplot -e "in='$ref/ensemble-summary.csv'; out='$ref/ensemble-scaling.png'" plots/ensemble-scaling.gp
echo "plots: rendered $(ls "$ref"/*.png | wc -l) PNG files in $ref"
