# roma-ts.gp: ROMA against RR+rules over time in the All Apps test (issue 16;
# seed roma.md §4 item 6, R Fig. 2): each app's cores (its two containers,
# summed) and the mean response time of its requests completed in each
# second, with its SLA, from a time series of `servesim run ...
# --timeseries-csv` (tools/roma.py run writes results/reference/roma-allapps-ts.csv).
#
#   gnuplot -e "in='results/reference/roma-allapps-ts.csv'; out='ts.png'" plots/roma-ts.gp
#
# Variables: in, out (PNG), title.
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='ROMA-TS.csv'; out='PLOT.png'\" plots/roma-ts.gp"
    exit status 2
}
if (!exists("title")) title = "All Apps test (R Table 1), replication 0: ROMA against RR+rules"
apps = "skylines googlenet resnet vgg16"
sla(i) = i == 1 ? 0.38 : i == 2 ? 0.45 : i == 3 ? 0.54 : 0.56
# One app's samples of one variant as "t cores rt" lines (rt empty: no completion that second).
rows(v, m) = sprintf("< awk -F, -v v='%s' -v m='%s' 'NR > 1 && $1 == v && $2 == 0 && $4 == m { print $3, $11, ($12 == \"\" ? \"NaN\" : $12) }' '%s'", v, m, in)

set terminal pngcairo size 1100,900 enhanced font "Sans,10"
set output out
set multiplot layout 2,2 title title noenhanced
set grid
set key top left noenhanced
set xlabel "time (s)"
set xrange [0:300]
set ylabel "cores (both workers)"
set yrange [0:12]
set title "ROMA: cores"
plot for [m in apps] rows("roma", m) using 1:2 with steps lw 2 title m
set title "RR+rules: cores"
plot for [m in apps] rows("rr-rules", m) using 1:2 with steps lw 2 title m
set ylabel "mean response time in the second (s, log)"
set logscale y
set yrange [0.03:*]
set title "ROMA: response time (dashed: SLAs)"
plot for [i=1:4] rows("roma", word(apps, i)) using 1:3 with lines lw 1.5 title word(apps, i), \
     for [i=1:4] sla(i) with lines dt 2 lc i notitle
set title "RR+rules: response time (dashed: SLAs)"
plot for [i=1:4] rows("rr-rules", word(apps, i)) using 1:3 with lines lw 1.5 title word(apps, i), \
     for [i=1:4] sla(i) with lines dt 2 lc i notitle
unset multiplot
