# latency-cdf.gp: the distribution of request latency, one curve per
# variant, from a per-request CSV (`servesim run ... --requests-csv FILE`).
#
#   servesim run scenarios/tour/load-balancers.yaml --requests-csv results/default.requests.csv
#   gnuplot -e "in='results/default.requests.csv'; out='cdf.png'" plots/latency-cdf.gp
#
# Variables: in, out (PNG), replication (default 0), logx (1 = log scale),
# title.  Only measured (after warm-up), completed requests are counted;
# gnuplot's `smooth cnormal` gives the empirical CDF.
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='REQUESTS.csv'; out='PLOT.png'\" plots/latency-cdf.gp"
    exit status 2
}
if (!exists("replication")) replication = 0
if (!exists("title")) title = "request latency CDF (replication " . replication . ")"
variants = system(sprintf("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%%s \", ($1 == \"\" ? \"-\" : $1) }' '%s'", in))

set terminal pngcairo size 900,560 enhanced font "Sans,11"
set output out
set datafile separator ","
set datafile columnheaders
set title title noenhanced
set xlabel "latency (ms)"
set ylabel "fraction of requests"
set key bottom right noenhanced
set grid
set yrange [0:1]
if (exists("logx") && logx) set logscale x
# The rows of one variant, measured and completed, latency only (awk picks
# them, so that gnuplot's cumulative sum sees no gaps).
rows(v) = sprintf("< awk -F, -v v='%s' -v r=%d 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print \"latency_ms\"; next } ($c[\"variant\"] == \"\" ? \"-\" : $c[\"variant\"]) == v && $c[\"replication\"] == r && $c[\"dropped\"] == 0 && $c[\"measured\"] == 1 { print $c[\"latency_ms\"] }' '%s'", v, replication, in)
plot for [v in variants] rows(v) using 1:(1) smooth cnormal lw 2 title v
