# timeseries.gp: a run's time series - replicas, queue length, requests in
# service and utilisation per model over simulated time - from the CSV of
# `servesim run ... --timeseries-csv FILE` (see sim/timeseries.c).
#
#   servesim run scenarios/tour/load-balancers.yaml --timeseries-csv results/default.timeseries.csv
#   gnuplot -e "in='results/default.timeseries.csv'; out='ts.png'; variant='round-robin'" plots/timeseries.gp
#
# Variables: in, out (PNG), variant (default: the first in the file; '-'
# for a scenario without variants), replication (default 0), title.
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='TIMESERIES.csv'; out='PLOT.png'\" plots/timeseries.gp"
    exit status 2
}
if (!exists("replication")) replication = 0
if (!exists("variant")) variant = system(sprintf("awk -F, 'NR == 2 { print ($1 == \"\" ? \"-\" : $1); exit }' '%s'", in))
if (!exists("title")) title = "time series, variant " . variant . ", replication " . replication
models = system(sprintf("awk -F, 'NR > 1 && !seen[$4]++ { printf \"%%s \", $4 }' '%s'", in))
# One model's samples as "t replicas queued in_service utilisation" lines.
rows(m) = sprintf("< awk -F, -v v='%s' -v r=%d -v m='%s' 'NR > 1 && ($1 == \"\" ? \"-\" : $1) == v && $2 == r && $4 == m { print $3, $5, $6, $7, $8 }' '%s'", variant, replication, m, in)

set terminal pngcairo size 1000,900 enhanced font "Sans,10"
set output out
set multiplot layout 4,1 title title noenhanced
set grid
set key top right noenhanced
set lmargin 10
set xlabel ""
set ylabel "replicas"
set yrange [0:*]
plot for [m in models] rows(m) using 1:2 with steps lw 2 title m
set ylabel "queued"
plot for [m in models] rows(m) using 1:3 with steps lw 1 title m
set ylabel "in service"
plot for [m in models] rows(m) using 1:4 with steps lw 1 title m
set ylabel "utilisation"
set yrange [0:1.05]
set xlabel "simulated time (s)"
plot for [m in models] rows(m) using 1:5 with lines lw 2 title m
unset multiplot
