#!/bin/sh
# run.sh: runs each libFuzzer harness for a while (`make fuzz`, and `make test`
# under CI; docs/fuzzing.md).
#   tests/fuzz/run.sh BUILD SECONDS NAME...
# BUILD/fuzz_NAME runs SECONDS on the seeds tests/fuzz/NAME/ (read only) and
# BUILD/corpus/NAME/ (where it keeps what it finds), with tests/fuzz/NAME.dict
# when there is one.  Its log goes to BUILD/NAME.log; printed here are its
# run count ("Done N runs in S second(s)") and final stats, or the end of the
# log if it found something (saved as BUILD/NAME-crash-*, NAME-leak-*, NAME-timeout-*
# ...).  Exit status 1 if any harness failed.
set -u
build=$1 seconds=$2
shift 2
src=$(dirname "$0")
failed=""
for name in "$@"; do
    mkdir -p "$build/corpus/$name"
    dict=""
    [ -f "$src/$name.dict" ] && dict="-dict=$src/$name.dict"
    echo "fuzz: $name for ${seconds} s (log: $build/$name.log)"
    # -timeout: one input taking longer is a finding; -rss_limit_mb: libFuzzer's default.
    if "$build/fuzz_$name" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/$name-" $dict "$build/corpus/$name" "$src/$name" >"$build/$name.log" 2>&1; then
        grep -E '^(Done [0-9]+ runs|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' \
            "$build/$name.log" | sed "s/^/fuzz: $name: /"
    else
        echo "fuzz: $name FAILED; the end of $build/$name.log:"
        tail -n 60 "$build/$name.log"
        failed="$failed $name"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: failed:$failed (reproduce: $build/fuzz_NAME FILE, docs/fuzzing.md)" >&2
    exit 1
fi
