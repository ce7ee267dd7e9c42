/* plot.h: `servesim plot KIND CSV... -o PNG` (plot.c): CSVs of run and sweep
 * drawn by gnuplot, their axes labelled from core/columns.h. */
#ifndef SS_PLOT_H
#define SS_PLOT_H

/* The command; argv after "plot".  Exit status 0, 1 (gnuplot failed), 2 (bad input). */
int ss_cmd_plot(int argc, char **argv);

#endif
