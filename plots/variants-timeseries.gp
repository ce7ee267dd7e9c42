# variants-timeseries.gp: the variants of one run side by side over time -
# per model (a column each), the replicas up, the replicas cold-starting and
# the requests queued, every variant a line of its own colour - from the CSV
# of `servesim run ... --timeseries-csv FILE` (serve/timeseries.c).  `make
# run` draws the default scenario's with it:
#
#   servesim run scenarios/default.yaml       # writes results/serverless.timeseries.csv (its outputs:)
#   gnuplot -e "in='results/serverless.timeseries.csv'; out='results/serverless.png'" plots/variants-timeseries.gp
#
# A time series with a ttft_mean_s column (LLM models, docs/llm.md) gets a
# last row: the mean time to first token of the requests whose first token
# came in each sample's interval (log scale; none: not drawn).
#
# Variables: in, out (PNG), replication (default 0), title, logq (1, the
# default: the queue on a log scale, an empty queue not drawn; 0: linear),
# xmax (minutes: the time axis ends there; default: the last sample).
if (!exists("in") || !exists("out")) {
    print "usage: gnuplot -e \"in='TIMESERIES.csv'; out='PLOT.png'\" plots/variants-timeseries.gp"
    exit status 2
}
if (!exists("replication")) replication = 0
if (!exists("logq")) logq = 1
if (!exists("title")) title = sprintf("replicas and queues over time, every variant (replication %d)", replication)
# Variants and models in the order of the file; a scenario without variants is "-".
variants = system(sprintf("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%%s \", ($1 == \"\" ? \"-\" : $1) }' '%s'", in))
models = system(sprintf("awk -F, 'NR > 1 && !seen[$4]++ { printf \"%%s \", $4 }' '%s'", in))
# Whether any replica was ever starting (column 9): an autoscaled run; else that row is left out.
has_starting = int(system(sprintf("awk -F, 'NR > 1 && $9 > 0 { n = 1; exit } END { print n + 0 }' '%s'", in)))
# The ttft_mean_s column's number, 0 if none.
ttft_col = int(system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == \"ttft_mean_s\") c = i; print c + 0; exit }' '%s'", in)))
# One variant's samples of one model as "minutes replicas queued starting ttft" lines (ttft "-": none).
rows(v, m) = sprintf("< awk -F, -v v='%s' -v r=%d -v m='%s' -v tc=%d 'NR > 1 && ($1 == \"\" ? \"-\" : $1) == v && $2 == r && $4 == m { print $3 / 60, $5, $6, $9, (tc && $tc != \"\" ? $tc : \"-\") }' '%s'", v, replication, m, ttft_col, in)
# Line widths fall from the first variant to the last, so that a variant
# drawn over another's equal samples leaves the one below visible.
nv = words(variants)
lw(i) = 1.2 + 1.8 * (nv - i) / (nv > 1 ? nv - 1 : 1)

nm = words(models)
nrows = (has_starting ? 3 : 2) + (ttft_col > 0)
set terminal pngcairo size (nm > 1 ? 1400 : 900),(nrows * 330 + 60) enhanced font "Sans,11"
set datafile missing "-"
set output out
set multiplot layout nrows,nm columnsfirst title title noenhanced font "Sans,13"
set grid
set lmargin 11
if (exists("xmax")) { set xrange [0:xmax] } else { set xrange [0:*]; set autoscale xfixmax }
do for [k = 1:nm] {
    m = word(models, k)
    set title "model " . m noenhanced
    set xlabel ""
    unset logscale y
    set yrange [0:*]
    set ylabel "replicas up"
    set key top center horizontal noenhanced box opaque   # the key on the top row only, above the lines
    set offsets 0, 0, graph 0.22, 0
    plot for [i = 1:words(variants)] rows(word(variants, i), m) using 1:2 with steps lw lw(i) lc i \
        title word(variants, i)
    unset title
    unset key
    set offsets 0, 0, 0, 0
    if (has_starting) {
        set ylabel "replicas cold-starting"
        plot for [i = 1:words(variants)] rows(word(variants, i), m) using 1:4 with steps lw lw(i) lc i \
            title word(variants, i)
    }
    if (ttft_col == 0) { set xlabel "simulated time (min)" }
    if (logq) {
        set logscale y
        set yrange [1:*]
        set ylabel "requests queued (log; 0 not drawn)"
        plot for [i = 1:words(variants)] rows(word(variants, i), m) using 1:($3 > 0 ? $3 : 1/0) with steps lw lw(i) \
            lc i title word(variants, i)
    } else {
        set ylabel "requests queued"
        plot for [i = 1:words(variants)] rows(word(variants, i), m) using 1:3 with steps lw lw(i) lc i \
            title word(variants, i)
    }
    if (ttft_col > 0) {
        set xlabel "simulated time (min)"
        set logscale y
        set yrange [*:*]
        set ylabel "mean time to first token (s, log)"
        plot for [i = 1:words(variants)] rows(word(variants, i), m) using 1:5 with lines lw lw(i) lc i \
            title word(variants, i)
    }
}
unset multiplot
