#!/bin/sh
# tools/gen-man.sh: the man page servesim(1), made from the commands' --help
# (`servesim --help`, then `servesim CMD --help` for each command it lists),
# so that it says what the binary says; `make install` installs it
# (share/man/man1/servesim.1).  No date in it: the same binary, the same page.
#
#   tools/gen-man.sh BIN >servesim.1 && man -l servesim.1
set -eu
bin=$1
version=$("$bin" --version | awk '{ print $2 }')
# Help text as roff in a no-fill block: backslashes and hyphens escaped, a
# line that begins with a dot or a quote kept from being a request.
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
cmds=$("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
cat <<EOF2
.TH SERVESIM 1 "" "servesim $version" "User Commands"
.SH NAME
servesim \\- a discrete-event simulator of DNN inference serving
.SH SYNOPSIS
.B servesim
.I command
.RI [ options ]
.br
.B servesim run
.IR scenario | name
.RI [ options ]
.SH DESCRIPTION
servesim simulates the serving of DNN inference: hosts and devices, model profiles,
deployment, workloads and policies are described in a YAML scenario; a run prints a
summary table and writes CSV files (results, and on request every request, time series,
cold starts).  Policies are plugins (shared objects) loaded at run time.
.PP
A scenario on the command line of
.BR run ,
.B check
or
.B sweep
is a file; where no file has that name, it is looked for, as given and with
.I .yaml
added, in each folder of
.BR SERVESIM_SCENARIO_PATH ,
then in the scenarios installed beside the binary
.RI ( prefix /share/servesim/scenarios,
then
.IR prefix /share/servesim),
so that
.B servesim run default
runs the shipped default scenario and
.B servesim run substrate/autoscale-bursty
another.
.PP
The text below is each command's
.BR \\-\\-help .
.SH COMMANDS
.nf
EOF2
"$bin" --help | roff
echo ".fi"
for c in $cmds; do
    printf '.SS "servesim %s"\n.nf\n' "$c"
    { "$bin" "$c" --help || true; } 2>&1 | roff
    echo ".fi"
done
cat <<EOF2
.SH ENVIRONMENT
.TP
.B SERVESIM_SCENARIO_PATH
Folders (colon-separated) where a scenario named on the command line is looked for.
.TP
.B SERVESIM_PLUGIN_PATH
Folders of policy plugins, searched before the installed ones
.RI ( prefix /lib/servesim/policies).
.TP
.B SERVESIM_MODEL_PATH
Folders of model profiles, searched after the scenario's folder and those above it, before the installed ones
.RI ( prefix /share/servesim/models).
.TP
.B SERVESIM_GNUPLOT
The gnuplot that
.B servesim plot
runs (default: gnuplot on the PATH).
.SH FILES
.TP
.IR prefix /share/servesim/
scenarios, models, traces, topologies, benchmark scenarios, plot scripts and the docs
.RI ( prefix /share/servesim/docs/README.md
indexes them).
.TP
.IR prefix /lib/servesim/policies/
the shipped policy plugins.
.TP
.IR prefix /include/servesim/ ", " prefix /lib/pkgconfig/servesim.pc
the plugin ABI, for building plugins:
.B cc \$(pkg-config \-\-cflags servesim) \-fPIC \-shared \-o mine.so mine.c
.SH EXIT STATUS
0 ok; 1 the run failed; 2 bad input, reported as
.I file:line:col: message
(or
.IR "servesim CMD: message" ),
with no result file written.
.SH SEE ALSO
.BR gnuplot (1),
.BR pkg-config (1)
EOF2
