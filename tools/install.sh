#!/bin/sh
# tools/install.sh: `make install` and `make uninstall` (docs/development.md).
#
#   tools/install.sh install DESTDIR PREFIX BUILD   (DESTDIR may be "")
#   tools/install.sh uninstall DESTDIR PREFIX
#
# install puts under DESTDIR/PREFIX the binary, the policy plugins, the
# plugin headers and servesim.pc (pkg-config), the man page and the bash
# and zsh completion (made from the commands' --help in BUILD), and, under
# share/servesim/, the models, scenarios, traces, topologies, benchmark
# scenarios, plot scripts, docs and the reference pictures the docs show.
# Every file it writes and every folder it makes is listed, relative to
# the prefix, in share/servesim/install-manifest; uninstall removes exactly
# those (folders only when empty, deepest first), so a prefix that was
# empty before is empty after.  Installing again adds to the list.
set -eu
mode=${1:-}
destdir=${2:-}
prefix=${3:-}
build=${4:-build}
[ -n "$prefix" ] || { echo "install.sh: no PREFIX" >&2; exit 2; }
case $prefix in /*) ;; *) echo "install.sh: PREFIX must be an absolute path, got '$prefix'" >&2; exit 2 ;; esac
root=$destdir$prefix
list=share/servesim/install-manifest

if [ "$mode" = uninstall ]; then
    [ -f "$root/$list" ] || { echo "uninstall: nothing installed in $root (no $list)" >&2; exit 1; }
    old=$(mktemp)
    trap 'rm -f "$old"' EXIT
    cp "$root/$list" "$old" # the list is one of the files
    # files first, then folders, the deepest first
    grep '^f ' "$old" | cut -c3- | while IFS= read -r f; do rm -f "$root/$f"; done
    grep '^d ' "$old" | cut -c3- | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- |
        while IFS= read -r d; do
            [ -d "$root/$d" ] || continue
            rmdir "$root/$d" 2>/dev/null || echo "uninstall: kept $root/$d (it holds files servesim did not install)" >&2
        done
    echo "uninstall: removed what $list listed from $root"
    exit 0
fi
[ "$mode" = install ] || { echo "usage: tools/install.sh install|uninstall DESTDIR PREFIX [BUILD]" >&2; exit 2; }

new=$(mktemp)
trap 'rm -f "$new"' EXIT
# What an earlier install made stays on the list (its folders are ours to remove).
[ -f "$root/$list" ] && cat "$root/$list" >"$new"
mkdir -p "$root"
note() { grep -qxF "$1" "$new" || printf '%s\n' "$1" >>"$new"; }
# mkd REL: make the folder and each missing one above it, noting those made.
mkd() {
    [ -d "$root/$1" ] && return 0
    parent=$(dirname "$1")
    [ "$parent" = . ] || mkd "$parent"
    mkdir "$root/$1"
    note "d $1"
}
# put MODE SRC REL: install one file.
put() {
    mkd "$(dirname "$3")"
    install -m "$1" "$2" "$root/$3"
    note "f $3"
}
# tree DIR PATTERN...: every file under DIR matching a pattern, to share/servesim/DIR.
tree() {
    dir=$1
    shift
    for pat in "$@"; do
        find "$dir" -type f -name "$pat"
    done | LC_ALL=C sort | while IFS= read -r f; do put 644 "$f" "share/servesim/$f"; done
}

put 755 "$build/servesim" bin/servesim
for so in "$build"/policies/*.so; do put 644 "$so" "lib/servesim/policies/$(basename "$so")"; done
put 644 include/servesim/policy.h include/servesim/policy.h
put 644 include/servesim/partition.h include/servesim/partition.h
put 644 "$build/servesim.1" share/man/man1/servesim.1
put 644 "$build/servesim.bash" share/bash-completion/completions/servesim
put 644 "$build/_servesim" share/zsh/site-functions/_servesim
pc=$(mktemp)
version=$("$build/servesim" --version | awk '{ print $2 }')
cat >"$pc" <<EOF
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib
plugindir=\${libdir}/servesim/policies
datadir=\${prefix}/share/servesim

Name: servesim
Description: policy plugins for servesim, a discrete-event simulator of DNN inference serving (docs/plugins.md)
Version: $version
Cflags: -I\${includedir}
EOF
put 644 "$pc" lib/pkgconfig/servesim.pc
rm -f "$pc"
tree models '*.json'
tree scenarios '*.yaml' '*.json'
tree traces '*.csv' '*.md'
tree topologies '*.yaml'
tree bench '*.yaml'
tree plots '*.gp'
tree docs '*.md' '*.json' '*.yaml'
put 644 README.md share/servesim/README.md
for png in results/reference/*.png; do put 644 "$png" "share/servesim/$png"; done
note "f $list"
mkd share/servesim
install -m 644 "$new" "$root/$list"
echo "install: $(grep -c '^f ' "$new") files in $root (listed in $root/$list; make uninstall PREFIX=$prefix removes them)"
