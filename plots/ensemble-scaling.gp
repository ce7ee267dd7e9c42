# ensemble-scaling.gp: throughput against the number of GPUs (+1 CPU) for E's ensembles
# (issue 17, item 6; seed ensembles.md §3.4-§3.5): left, IMN1 (ResNet152) simulated under
# Algorithm 1 and Algorithm 2 against E's Table I; right, every ensemble's Algorithm 2.
# Reads the summary that `tools/ensemble.py report` writes (results/reference/ensemble-summary.csv:
# ensemble,gpus,a1_img_s,a2_img_s,e_a1_img_s,e_a2_img_s).
#
#   gnuplot -e "in='results/reference/ensemble-summary.csv'; out='scaling.png'" plots/ensemble-scaling.gp
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='ENSEMBLE-SUMMARY.csv'; out='PLOT.png'\" plots/ensemble-scaling.gp"
    exit status 2
}
ens = "imn1 imn4 imn12 fos14 cif36"
# One ensemble's rows as "gpus a1 a2 e_a1 e_a2" lines (E's columns empty except for IMN1).
rows(e) = sprintf("< awk -F, -v e='%s' 'NR > 1 && $1 == e { print $2, $3, $4, ($5 == \"\" ? \"NaN\" : $5), ($6 == \"\" ? \"NaN\" : $6) }' '%s'", e, in)

set terminal pngcairo size 1200,500 enhanced font "Sans,10"
set output out
set multiplot layout 1,2 title "Ensembles on 1-16 V100s + 1 CPU (E's Table I conditions, 30,720 images)" noenhanced
set grid
set key top left noenhanced
set xlabel "GPUs"
set xrange [0:17]
set ylabel "throughput (images/s)"
set title "IMN1 (ResNet152): simulated against E section 3.4"
plot rows("imn1") using 1:3 with linespoints lw 2 pt 7 title "A2 simulated", \
     rows("imn1") using 1:5 with points pt 6 ps 1.5 title "A2 E", \
     rows("imn1") using 1:2 with linespoints lw 2 pt 5 title "A1 simulated", \
     rows("imn1") using 1:4 with points pt 4 ps 1.5 title "A1 E"
set title "Algorithm 2 (median of 3 seeds), every ensemble"
set logscale y
plot for [e in ens] rows(e) using 1:3 with linespoints lw 2 title e
unset multiplot
