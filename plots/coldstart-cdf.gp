# coldstart-cdf.gp: the CDF of cold-start durations by source (gpu, sleep,
# local, disk, peer, storage) from the CSV of
# `servesim run ... --coldstarts-csv FILE` (sim/elastic/coldstart_report.c).
#
#   servesim run scenarios/flashpoint/t5-atl.yaml --coldstarts-csv results/t5-cold.csv
#   gnuplot -e "in='results/t5-cold.csv'; out='cdf.png'" plots/coldstart-cdf.gp
#
# Variables: in, out (PNG), variant (default: every variant), title.
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='COLDSTARTS.csv'; out='PLOT.png'\" plots/coldstart-cdf.gp"
    exit status 2
}
if (!exists("variant")) variant = ""
if (!exists("title")) title = "cold-start duration by source" . (variant eq "" ? "" : ", variant " . variant)
sources = "gpu sleep local disk peer storage"
# One source's durations, sorted, as "duration cumulative-fraction" lines.
rows(s) = sprintf("< awk -F, -v v='%s' -v s='%s' 'NR > 1 && (v == \"\" || $1 == v) && $6 == s { print ($9 < 1e-3 ? 1e-3 : $9) }' '%s' | sort -g | awk '{ d[NR] = $1 } END { for (i = 1; i <= NR; i++) print d[i], i / NR }'", variant, s, in)
count(s) = int(system(sprintf("awk -F, -v v='%s' -v s='%s' 'NR > 1 && (v == \"\" || $1 == v) && $6 == s { n++ } END { print n + 0 }' '%s'", variant, s, in)))

set terminal pngcairo size 900,550 enhanced font "Sans,10"
set output out
set title title noenhanced
set grid
set logscale x
set xrange [1e-3:1000]
set xlabel "cold-start duration (s; a start from a GPU's own copy, 0 s, is drawn at 1 ms)"
set ylabel "fraction of cold starts"
set yrange [0:1.02]
set key bottom right noenhanced
present = ""
do for [s in sources] { if (count(s) > 0) { present = present . s . " " } }
plot for [s in present] rows(s) using 1:2 with steps lw 2 title sprintf("%s (%d)", s, count(s))
