# blockflow-overhead.gp: per-block overhead o_b as clustered bars, one
# cluster per block process, one bar per run (transport / placement) - from
# the CSV plots/render.sh extracts from `servesim run` results
# (columns: block, then one column per run, values in ms).
#
#   gnuplot -e "in='results/reference/blockflow-overhead.csv'; out='o.png'" plots/blockflow-overhead.gp
#
# Variables: in, out (PNG), title, logy (1 = log scale).
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='OVERHEAD.csv'; out='PLOT.png'\" plots/blockflow-overhead.gp"
    exit status 2
}
if (!exists("title")) title = "per-block overhead o_b (ms)"
ncol = int(system(sprintf("awk -F, 'NR == 1 { print NF; exit }' '%s'", in)))
set terminal pngcairo size 900,560 enhanced font "Sans,11"
set output out
set title title noenhanced
set datafile separator ","
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top right noenhanced
set grid ytics
set ylabel "overhead per request (ms)"
set xtics noenhanced
if (exists("logy") && logy) set logscale y
plot for [c = 2:ncol] in using c:xtic(1) title columnheader(c)
