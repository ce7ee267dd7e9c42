# flashpoint-ablation.gp: the factor by which each technique reduces the mean
# cold start and the mean end-to-end latency against the baseline at equal
# resources (BL / technique, the mean over six models and four autoscalers,
# FP §4 items 16-18), from tools/flashpoint_ablation.py's reductions file.
#
#   python3 tools/flashpoint_ablation.py report results/flashpoint-ablation.csv -o results/reference
#   gnuplot -e "in='results/reference/flashpoint-ablation-reductions.dat'; out='red.png'; load=0" plots/flashpoint-ablation.gp
#
# Variables: in, out (PNG), load (0 Twitter-like, 1 Azure-like), title.
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='REDUCTIONS.dat'; out='PLOT.png'; load=0\" plots/flashpoint-ablation.gp"
    exit status 2
}
if (!exists("load")) load = 0
if (!exists("title")) title = "reduction against the baseline at equal resources (" . (load == 0 ? "Twitter" : "Azure") . "-like hour)"
set terminal pngcairo size 900,500 enhanced font "Sans,10"
set output out
set title title noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set logscale y 2
set ylabel "BL / technique (mean over models and autoscalers; log scale)"
set key top left
set yrange [0.25:*]
plot in index load using 2:xtic(1) title "mean cold start", '' index load using 3 title "mean end-to-end latency", \
     1 with lines lc rgb "black" dt 2 notitle
