#!/bin/sh
# check-layers.sh: the layering rules of sim/ (docs/architecture.md), checked
# on the #include lines of every file under sim/ and on the names each .c
# file uses from another.  Run by `make test` (tests/test_layers.c); exit 0
# when they hold, 1 with one line per breach.
#
#   1. Folders form layers, bottom to top:
#        core  net  input  serve  {elastic control pipeline edge ensemble llm}
#        world  {calib search}  cmd
#      A file includes only headers of its own folder or of folders below
#      it.  Folders in braces are rooms of one layer: they never include
#      each other (a system does not know another system).
#   2. No circle between modules.  A module is X.c with X.h and a private
#      X_internal.h; including X.h (or X_internal.h) uses module X.  The
#      modules, with "uses" as edges, must form a DAG (checked with tsort).
#   3. Every servesim header is included with its folder ("core/util.h").
#   4. No call circle between .c files (tools/check_calls.py): not across
#      folders (a lower layer reaches an upper one only through a hook, a
#      pointer that names nothing), and not inside a room either, except the
#      circles named in tools/layers-allowed-circles (debt, each with its
#      reason; a listed circle that no longer exists is itself a breach).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../sim" || exit 1
rank() {
    case $1 in
    core) echo 1 ;; net) echo 2 ;; input) echo 3 ;; serve) echo 4 ;;
    elastic | control | pipeline | edge | ensemble | llm) echo 5 ;;
    world) echo 6 ;; calib | search) echo 7 ;; cmd) echo 8 ;;
    *) echo 0 ;;
    esac
}
bad=0
edges=$(mktemp)
trap 'rm -f "$edges" "$edges.bad" "$edges.err"' EXIT
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
        elif [ "$ir" = "$r" ] && [ "$idir" != "$dir" ]; then
            echo "$f:$n: $dir/ includes $inc from $idir/, another room of its layer"; echo bad >>"$edges.bad"
        fi
        imod=$(basename "$inc"); imod=${imod%.h}; imod=${imod%_internal}
        [ "$dir/$mod" = "$idir/$imod" ] || echo "$dir/$mod $idir/$imod" >>"$edges"
    done
done
if [ -f "$edges.bad" ]; then bad=1; rm -f "$edges.bad"; fi
if ! sort -u "$edges" | tsort >/dev/null 2>"$edges.err"; then
    echo "module circle (tsort):"; sed 's/^/  /' "$edges.err"; bad=1
fi
if ! calls=$(python3 "$here/check_calls.py" --allowed "$here/layers-allowed-circles" .); then
    printf '%s\n' "$calls"; bad=1
fi
[ "$bad" = 0 ] && echo "layers: $(ls */*.c */*.h | wc -l) files in $(ls -d */ | wc -l) folders, $(sort -u "$edges" | wc -l) module edges, no include upwards, no circle; $calls"
exit "$bad"
