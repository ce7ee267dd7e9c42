#!/usr/bin/env bash
# plots/render.sh: renders the reference results in results/reference/ to
# PNG (`make plots`), and with --rerun first regenerates the reference CSV
# by running the reference sweep again (`make reference`).
#
# Reference outputs:
#   lb-load.csv          servesim sweep scenarios/sweeps/lb-load.yaml (3 load balancers x 5 loads x 3 reps)
#   lb-load.compare.csv  servesim compare of it against round-robin (mean and p99 latency)
#   lb-load.png          mean latency vs offered load, per load balancer, 95% CI bars
#   lb-load-p99.png      the same for p99 latency
#   default-cdf.png      latency CDF of the default scenario (one 30 s replication per variant)
#   default-ts.png       time series of the default scenario, round-robin variant, 1 s samples
set -euo pipefail
bin=${1:-build/servesim}
rerun=${2:-}
ref=results/reference
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$ref"

if [ "$rerun" = "--rerun" ]; then
    "$bin" sweep scenarios/sweeps/lb-load.yaml -o "$ref/lb-load.csv" --quiet
fi
"$bin" compare "$ref/lb-load.csv" --by load_balancer --baseline round-robin \
    --metric latency_mean_ms --metric latency_p99_ms --csv -o "$ref/lb-load.compare.csv"
gnuplot -e "in='$ref/lb-load.compare.csv'; out='$ref/lb-load.png'; axis='workloads.images.rate_rps';
            metric='latency_mean_ms'; xlabel='offered load (requests/s)'; ylabel='mean latency (ms)'; logy=1;
            title='ResNet50 on 4 GV100s: mean latency vs load (3 reps, 95% CI)'" plots/metric-vs-axis.gp
gnuplot -e "in='$ref/lb-load.compare.csv'; out='$ref/lb-load-p99.png'; axis='workloads.images.rate_rps';
            metric='latency_p99_ms'; xlabel='offered load (requests/s)'; ylabel='p99 latency (ms)'; logy=1;
            title='ResNet50 on 4 GV100s: p99 latency vs load (3 reps, 95% CI)'" plots/metric-vs-axis.gp

# The per-request and time-series files are large; they are made here and not kept.
"$bin" run scenarios/default.yaml --set replications=1 --set duration_s=30 --set warmup_s=5 --quiet \
    -o "$tmp/default.csv" --requests-csv "$tmp/requests.csv" --timeseries-csv "$tmp/ts.csv"
gnuplot -e "in='$tmp/requests.csv'; out='$ref/default-cdf.png'; logx=1;
            title='default scenario: latency CDF per load balancer (rho 0.85)'" plots/latency-cdf.gp
gnuplot -e "in='$tmp/ts.csv'; out='$ref/default-ts.png'; variant='round-robin';
            title='default scenario, round-robin: 1 s samples'" plots/timeseries.gp
echo "plots: rendered $(ls "$ref"/*.png | wc -l) PNG files in $ref"
