#!/bin/sh
# tests/install-tour.sh: an install that stands alone (issue 43 item 4), as a
# user meets it; run by suite install (tests/test_install.c).
#
#   tests/install-tour.sh SRC BUILD WORK
#
# From a copy of BUILD (a rebuild for another prefix never touches the build
# the other suites use): make install PREFIX=WORK/prefix; then, from /, the
# installed binary runs a shipped scenario by name and draws it; man -l shows
# its page without a warning; the bash completion completes commands, plot
# kinds and options in bash -i (and the zsh one parses, where zsh is); a
# plugin builds with pkg-config --cflags servesim and is found; the README's
# tour runs from a folder outside the tree, its inputs taken from the install;
# make uninstall leaves the prefix empty.  Each step says what it checks; the
# first that fails stops the script (exit 1).
set -eu
src=$1
build=$2
work=$3
P=$work/prefix
S=$P/share/servesim
T=$work/elsewhere
mkdir -p "$work/build" "$P" "$T/results" "$T/tmp"
fail() { echo "install-tour: FAILED: $*" >&2; exit 1; }
step() { echo "install-tour: $*"; }
# No plugin, model or scenario path of the caller's; no build folder on PATH.
unset SERVESIM_PLUGIN_PATH SERVESIM_MODEL_PATH SERVESIM_SCENARIO_PATH
PATH=/usr/local/bin:/usr/bin:/bin
export PATH

step "make install PREFIX=$P"
(cd "$build" && tar cf - --exclude=./mpi --exclude=./asan --exclude=./fuzz --exclude=./probe-quick .) |
    (cd "$work/build" && tar xf -)
make -s -C "$src" install PREFIX="$P" BUILD="$work/build" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "make install"; }
for f in bin/servesim share/man/man1/servesim.1 share/bash-completion/completions/servesim \
    share/zsh/site-functions/_servesim lib/pkgconfig/servesim.pc share/servesim/scenarios/default.yaml \
    share/servesim/traces/example-bursty.csv share/servesim/plots/timeseries.gp share/servesim/docs/README.md \
    include/servesim/policy.h lib/servesim/policies/atl.so; do
    [ -f "$P/$f" ] || fail "no $f in the prefix"
done
sv=$P/bin/servesim

step "from /: servesim run default, a shipped scenario by name, and its picture"
(cd / && "$sv" run default -o "$T/default.csv" --timeseries-csv "$T/default-ts.csv" >"$T/default.txt") ||
    fail "servesim run default"
grep -q '^flashpoint ' "$T/default.txt" || fail "the default scenario's table: $(cat "$T/default.txt")"
(cd / && "$sv" run substrate/autoscale-bursty -o "$T/bursty.csv" --timeseries-csv "$T/bursty-ts.csv" --quiet &&
    "$sv" plot timeseries "$T/bursty-ts.csv" -o "$T/bursty.png") || fail "a scenario in a folder, by name, and its plot"
head -c 4 "$T/bursty.png" | grep -q PNG || fail "no PNG"

step "man -l shows the page, every command in it, no warning"
MANPAGER=cat MANWIDTH=100 man --warnings -l "$S/../man/man1/servesim.1" >"$T/man.txt" 2>"$T/man.err" || fail "man -l"
[ ! -s "$T/man.err" ] || fail "man warns: $(cat "$T/man.err")"
for c in run check sweep plot; do grep -q "servesim $c" "$T/man.txt" || fail "the page lacks servesim $c"; done

step "the bash completion completes commands, plot kinds and options in bash -i"
got=$(HOME=$work bash --norc -i -c ". '$P/share/bash-completion/completions/servesim'
    COMP_WORDS=(servesim pl); COMP_CWORD=1; _servesim; echo \"\${COMPREPLY[*]}\"
    COMP_WORDS=(servesim plot ti); COMP_CWORD=2; _servesim; echo \"\${COMPREPLY[*]}\"
    COMP_WORDS=(servesim run --timeseries-c); COMP_CWORD=2; _servesim; echo \"\${COMPREPLY[*]}\"
    complete -p servesim" 2>/dev/null)
want="plan plugins plot
timeseries
--timeseries-csv
complete -o bashdefault -o default -F _servesim servesim"
[ "$got" = "$want" ] || fail "completions: got
$got
want
$want"
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$P/share/zsh/site-functions/_servesim" || fail "the zsh completion does not parse"
fi

step "a plugin builds with pkg-config --cflags servesim, and servesim finds it"
mkdir -p "$T/plug"
cp "$src/policies/round-robin.c" "$T/plug/round-robin.c"
cflags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags servesim | sed "s/ *$//") || fail "pkg-config"
[ "$cflags" = "-I$P/include" ] || fail "pkg-config --cflags servesim: '$cflags'"
(cd "$T/plug" && cc $cflags -fPIC -shared -o round-robin.so round-robin.c) || fail "building the plugin"
SERVESIM_PLUGIN_PATH=$T/plug "$sv" plugins | grep -q "$T/plug/round-robin.so" || fail "the plugin is not listed"
[ "$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --variable=plugindir servesim)" = "$P/lib/servesim/policies" ] ||
    fail "pkg-config --variable=plugindir"

step "the README's tour, from $T, its inputs from the install"
awk '/^## A quick tour/ { f = 1 } f && /^```sh/ { g = 1; next } g && /^```/ { exit } g && NF && !/^#/' \
    "$src/README.md" >"$T/tour.txt"
[ "$(wc -l <"$T/tour.txt")" -ge 10 ] || fail "the README's tour: $(cat "$T/tour.txt")"
n=0
while IFS= read -r line; do
    n=$((n + 1))
    # the installed binary; docs/ (read by cp and calibrate) from share/servesim; /tmp/ here.
    # Scenarios and bench/ stay as written: servesim finds them by name.
    cmd=$(printf '%s\n' "$line" | sed -e "s#/tmp/#$T/tmp/#g" -e "s#^build/servesim#$sv#" -e "s# docs/# $S/docs/#g")
    (cd "$T" && sh -c "$cmd") >"$T/tour-$n.log" 2>&1 || { cat "$T/tour-$n.log" >&2; fail "README tour, line $n: $cmd"; }
done <"$T/tour.txt"
step "$n commands of the tour ran"

step "make uninstall leaves the prefix empty"
make -s -C "$src" uninstall PREFIX="$P" >/dev/null || fail "make uninstall"
left=$(cd "$P" && find . -mindepth 1 | head -5)
[ -z "$left" ] || fail "left in the prefix: $left"
step "ok"
