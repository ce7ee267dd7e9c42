#!/bin/sh
# bad-corpus.sh: rewrites the expectations of the malformed-input corpus
# (tests/bad/, README there) from what its cases do now, for a deliberate
# change of a message.  `make test` compares them (tests/test_bad_corpus.c,
# suite bad-corpus); this runs that suite in its update mode.
#
#   tools/bad-corpus.sh [KIND | KIND/CASE ...]    (default: every case)
#
# Each .expect file that differs is rewritten, its comment lines kept, and
# named; review `git diff tests/bad` before committing.  A case that breaks
# the bad-input contract (exit 2, no output, a file:line:col message) is
# still reported as a failure.  BUILD=dir picks the build folder (default build).
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
make --no-print-directory -s BUILD="$build" build "$build/tests/run_tests"
SS_BAD_CORPUS_UPDATE=1 SS_BAD_CORPUS_CASES="$*" "$build/tests/run_tests" bad-corpus
