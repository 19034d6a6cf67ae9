#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS]: builds the cargo-fuzz targets (fuzz/) in release and runs each
# for a bounded time, then prints per target the executions and the crashes.
#
#   SECONDS            total time budget, split evenly between the targets (default 60)
#   OVERFLOW_CHECKS=1  build with integer-overflow checks (and debug assertions) on;
#                      otherwise off, as a default release build
#   FUZZ_MEM_MB        address-space limit for each run (ulimit -v, default 8192): allocations
#                      beyond it FAIL, and tensile must return its allocator error
#   TARGETS            which targets (default "api layout geometry io"): `api` random programs
#                      over the public API (ops, nn modules, init, optimizers, schedulers),
#                      `layout` the layout functions, `geometry` the shape rules of
#                      `tensile::geometry` and their invariants, `io` the checkpoint/array
#                      loaders and save→load round
#                      trips. An empty fuzz/corpus/io is first seeded from the committed
#                      fixtures tensile/tests/data/io/* (one byte picking the loader + the file).
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs on the stable toolchain through
# RUSTC_BOOTSTRAP=1. No sanitizer (`-s none`), for speed. Crashing inputs are written to
# fuzz/artifacts/<target>/crash-*; minimise one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz tmin -s none -O <target> <file>     (from fuzz/)
# and save it under tensile/tests/fuzz_regressions/<target>/ (replayed by `cargo test`).
set -uo pipefail

SECS=${1:-60}
MEM_MB=${FUZZ_MEM_MB:-8192}
TARGETS=${TARGETS:-api layout geometry io}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT/fuzz" || exit 2
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2
    exit 2
fi

# Separate target dirs, so switching the flag does not rebuild everything each time.
if [ "${OVERFLOW_CHECKS:-0}" = 1 ]; then
    FLAGS=(-O -a)
    TDIR="$ROOT/fuzz/target-oc"
    MODE="overflow-checks on"
    TAG=oc
else
    FLAGS=(-O)
    TDIR="$ROOT/fuzz/target"
    MODE="overflow-checks off"
    TAG=plain
fi

n_targets=$(echo $TARGETS | wc -w)
PER=$(( SECS / n_targets ))
[ "$PER" -lt 1 ] && PER=1

echo "== building (release, $MODE)"
cargo fuzz build -s none "${FLAGS[@]}" --target-dir "$TDIR" || exit 2
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
BIN_DIR="$TDIR/$TRIPLE/release"

# Seeds io's corpus from the fixtures: the first byte picks the loader (see `run_io`).
seed_io() {
    local f b
    for f in "$ROOT"/tensile/tests/data/io/*; do
        case "$f" in
            *.safetensors) b='\x00' ;;
            *.npy) b='\x01' ;;
            *.npz) b='\x02' ;;
            *.pt) b='\x03' ;;
            *) continue ;;
        esac
        { printf "$b"; cat "$f"; } >"corpus/io/seed-$(basename "$f")"
        # torch files also through load_state_dict
        [ "$b" = '\x03' ] && { printf '\x04'; cat "$f"; } >"corpus/io/seed-sd-$(basename "$f")"
    done
}

status=0
summary=""
for t in $TARGETS; do
    mkdir -p "corpus/$t" "artifacts/$t"
    if [ "$t" = io ] && [ -z "$(ls -A corpus/io)" ]; then
        seed_io
    fi
    # io's inputs are files: room for the fixtures (a few KiB)
    max_len=512
    [ "$t" = io ] && max_len=8192
    log="artifacts/$t/last_run-$TAG.log"
    echo "== fuzzing $t for ${PER}s ($MODE, ulimit -v ${MEM_MB} MB)"
    # -rss_limit_mb/-malloc_limit_mb above the address-space limit: a big allocation that
    # fails is tensile's business (it must return an error), not a libFuzzer OOM report.
    (
        ulimit -v $(( MEM_MB * 1024 ))
        "$BIN_DIR/$t" "corpus/$t" \
            -artifact_prefix="artifacts/$t/" \
            -max_total_time="$PER" \
            -rss_limit_mb=$(( MEM_MB * 2 )) \
            -malloc_limit_mb=$(( MEM_MB * 2 )) \
            -timeout=60 \
            -max_len=$max_len \
            -print_final_stats=1
    ) >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # counted from this run's own log: another run (the other build) may write into the same
    # artifacts folder at the same time
    crashes=$(grep -c 'Test unit written to .*/crash-' "$log" || true)
    if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
        # a deadly signal / OOM / timeout report without a crash- file
        crashes=$(grep -cE '^==[0-9]+== ERROR: libFuzzer' "$log" || true)
    fi
    [ "$crashes" -gt 0 ] && status=1
    summary+=$(printf '%-7s executions: %-12s crashes: %s  (%s, %ss; log %s)' \
        "$t" "${execs:-?}" "$crashes" "$MODE" "$PER" "fuzz/$log")$'\n'
done
echo "== summary"
printf '%s' "$summary"
exit $status
