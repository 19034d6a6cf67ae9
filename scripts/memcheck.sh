#!/usr/bin/env bash
# scripts/memcheck.sh [TEST_FILTER]: builds the unit tests (the lib) and the fuzz regression
# test in debug and runs them under valgrind's memcheck
# (`--error-exitcode=1 --track-origins=yes`), printing each run's error count.
#
#   TEST_FILTER  passed to both test binaries (default: every test); e.g. `layout` or `reduce`
#   SUITES       which binaries (default "lib fuzz_regressions hostile")
#
# Slow (valgrind runs ~30-50x slower): use a filter for a quick check. Exits 1 if any run
# reports an error. Logs: target/memcheck/<suite>.log.
set -uo pipefail

FILTER=${1:-}
SUITES=${SUITES:-lib fuzz_regressions hostile}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 2; }
mkdir -p target/memcheck

total=0
status=0
for s in $SUITES; do
    if [ "$s" = lib ]; then sel=(--lib); else sel=(--test "$s"); fi
    echo "== building $s (debug)"
    bin=$(cargo test -p tensile "${sel[@]}" --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    if [ -z "$bin" ]; then
        echo "build of $s failed" >&2
        exit 2
    fi
    log="target/memcheck/$s.log"
    echo "== valgrind $s ${FILTER:+(filter: $FILTER)}"
    # One test thread: memcheck serialises threads anyway, and the output stays readable.
    RUST_TEST_THREADS=1 valgrind --tool=memcheck --error-exitcode=1 --track-origins=yes \
        --num-callers=30 "$bin" $FILTER --test-threads=1 >"$log" 2>&1
    rc=$?
    errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
    echo "$s: ${errs:-?} errors (exit $rc; log $log)"
    grep -E 'test result:' "$log" | tail -1
    total=$(( total + ${errs:-0} ))
    [ "$rc" -ne 0 ] && status=1
done
echo "== memcheck total: $total errors"
exit $status
