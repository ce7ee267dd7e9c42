# metric-vs-axis.gp (servesim plot axis draws the same from a sweep's results CSV, its axes
# labelled from the column table): a metric against a sweep axis, one line per policy, with
# 95% confidence bars - from the CSV of `servesim compare --csv`.
#
#   servesim compare results/lb-load.csv --by load_balancer --baseline round-robin \
#       --metric latency_mean_ms --csv -o results/lb-load.compare.csv
#   gnuplot -e "in='results/lb-load.compare.csv'; out='lb-load.png'; \
#               axis='workloads.images.rate_rps'; metric='latency_mean_ms'" plots/metric-vs-axis.gp
#
# Variables: in, out (PNG), axis (the axis column), metric (default: the first
# metric in the file), ylabel, xlabel, title, logy (1 = log scale), key (where
# the legend goes, as gnuplot's `set key`: default "top left").
# The policy_mean and policy_ci95 columns give each point and its bar.
if (!exists("in") || !exists("out") || !exists("axis")) {
    print "usage: gnuplot -e \"in='CMP.csv'; out='PLOT.png'; axis='AXIS COLUMN'\" plots/metric-vs-axis.gp"
    exit status 2
}
if (!exists("metric")) metric = system(sprintf("awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) if (h[i] == \"metric\") print $i; exit } NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i }' '%s'", in))
policies = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == \"policy\") c = i; next } $1 == \"point\" && !seen[$c]++ { printf \"%%s \", $c }' '%s'", in))
if (!exists("xlabel")) xlabel = axis
if (!exists("ylabel")) ylabel = metric
if (!exists("title")) title = metric . " vs " . axis . " (95% CI)"

set terminal pngcairo size 900,560 enhanced font "Sans,11"
set output out
set title title noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
if (!exists("key")) key = "top left"
eval("set key " . key . " noenhanced")
set grid
if (exists("logy") && logy) set logscale y
# One policy's points as "x mean ci" lines (awk picks them, so that the
# line through them has no gaps); a missing interval (one replication) is 0.
rows(p) = sprintf("< awk -F, -v p='%s' -v m='%s' -v a='%s' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"kind\"] == \"point\" && $c[\"policy\"] == p && $c[\"metric\"] == m { print $c[a], $c[\"policy_mean\"], ($c[\"policy_ci95\"] == \"\" ? 0 : $c[\"policy_ci95\"]) }' '%s'", p, metric, axis, in)
plot for [p in policies] rows(p) using 1:2:3 with yerrorlines lw 2 pt 7 title p
