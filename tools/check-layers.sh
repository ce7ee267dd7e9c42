#!/bin/sh
# check-layers.sh: the layering rules of sim/ (docs/architecture.md), checked
# on the #include lines of every file under sim/.  Run by `make test`
# (tests/test_layers.c); exit 0 when they hold, 1 with one line per breach.
#
#   1. Folders form layers, bottom to top: core net input serve cmd.  A file
#      includes only headers of its own folder or of folders below it.
#   2. No circle between modules.  A module is X.c with X.h and a private
#      X_internal.h; including X.h (or X_internal.h) uses module X.  The
#      modules, with "uses" as edges, must form a DAG (checked with tsort).
#   3. Every servesim header is included with its folder ("core/util.h").
set -u
cd "$(dirname "$0")/../sim" || exit 1
rank() {
    case $1 in core) echo 1 ;; net) echo 2 ;; input) echo 3 ;; serve) echo 4 ;; cmd) echo 5 ;; *) echo 0 ;; esac
}
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in */*.c */*.h; do
    dir=${f%%/*}
    r=$(rank "$dir")
    if [ "$r" = 0 ]; then echo "$f: folder '$dir' is not a layer"; bad=1; continue; fi
    mod=$(basename "$f"); mod=${mod%.[ch]}; mod=${mod%_internal}
    grep -n '^#include "' "$f" | while IFS= read -r line; do
        n=${line%%:*}
        inc=$(printf '%s' "$line" | sed 's/^[0-9]*:#include "\([^"]*\)".*/\1/')
        case $inc in
        */*) ;;
        *) echo "$f:$n: include \"$inc\" without its folder"; echo bad >>"$edges.bad"; continue ;;
        esac
        idir=${inc%%/*}
        ir=$(rank "$idir")
        if [ "$ir" = 0 ] || [ ! -f "$inc" ]; then
            echo "$f:$n: \"$inc\" is not a header of sim/"; echo bad >>"$edges.bad"; continue
        fi
        if [ "$ir" -gt "$r" ]; then
            echo "$f:$n: $dir/ includes $inc from $idir/, a layer above"; echo bad >>"$edges.bad"
        fi
        imod=$(basename "$inc"); imod=${imod%.h}; imod=${imod%_internal}
        [ "$dir/$mod" = "$idir/$imod" ] || echo "$dir/$mod $idir/$imod" >>"$edges"
    done
done
if [ -f "$edges.bad" ]; then bad=1; rm -f "$edges.bad"; fi
if ! sort -u "$edges" | tsort >/dev/null 2>"$edges.err"; then
    echo "module circle (tsort):"; sed 's/^/  /' "$edges.err"; bad=1
fi
rm -f "$edges.err"
[ "$bad" = 0 ] && echo "layers: $(ls */*.c */*.h | wc -l) files in $(ls -d */ | wc -l) layers, $(sort -u "$edges" | wc -l) module edges, no include upwards, no circle"
exit "$bad"
