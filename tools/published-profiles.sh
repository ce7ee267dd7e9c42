#!/bin/sh
# published-profiles.sh: the shipped profiles that come from published tables,
# rebuilt by `servesim calibrate --base` from the transcriptions of those tables
# (profiles/published/, docs/calibration.md "Published tables").
#
#   tools/published-profiles.sh SERVESIM OUTDIR     write them to OUTDIR (`make profiles`: models)
#   tools/published-profiles.sh SERVESIM --check    rebuild into a temporary folder and compare
#                                                   byte for byte with models/ (suite published)
#
# Every line below is one shipped file: its base (the parts that are not
# measurements: architecture, notes, citations) and the transcriptions its
# numbers are fitted from.  Paths are relative to the repository root, so the
# files record the same command wherever they are built.
set -eu
bin=$1
out=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $out in /* | --check) ;; *) out=$(pwd)/$out ;; esac
cd "$(dirname "$0")/.."
check=
if [ "$out" = --check ]; then
    check=1
    out=$(mktemp -d "${TMPDIR:-/tmp}/published.XXXXXX")
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/masa"
BF=profiles/published/blockflow

# FILE then calibrate's arguments (the profiles, the base and its options)
build() {
    name=$1
    shift
    "$bin" calibrate "$@" -o "$out/$name" --quiet
}

build resnet50-split.json $BF/table-4-2.json --model resnet50-split --no-batch-law \
    --base $BF/resnet50-split.base.json --fill service_traced=resnet50-split-traced
build resnet50.json $BF/table-4-2.json --model resnet50-split --no-batch-law --base $BF/resnet50.base.json
build transports.json $BF/pipeline-overhead.json $BF/table-4-3.json --base $BF/transports.base.json
# MASA: the five networks whose per-layer times the EdgeCaffe repository publishes (the other
# four, emotionnet, memnet, scenenet and tinyyolo, are estimates: docs/masa-models.md section 1.3)
for net in agenet gendernet facenet sos googlenet; do
    build masa/$net.json profiles/published/masa/$net.json --no-batch-law --base profiles/published/masa/$net.base.json
done

if [ -n "$check" ]; then
    bad=0
    for f in "$out"/*.json "$out"/masa/*.json; do
        n=${f#"$out"/}
        if ! cmp -s "$f" "models/$n"; then
            echo "published-profiles: models/$n differs from what calibrate rebuilds from its transcriptions" \
                "(make profiles rewrites it; diff: $bin calibrate ... as in tools/published-profiles.sh)" >&2
            bad=1
        fi
    done
    [ $bad = 0 ] && echo "published-profiles: $(find "$out" -name '*.json' | wc -l) files rebuilt byte for byte"
    exit $bad
fi
