# Sourced by the fleet benchmarks: `stage NAME COMMAND...` runs one timed stage with /usr/bin/time,
# its stdout in $WORK/out-NAME.txt, stderr in $WORK/err-NAME.txt and "wall user sys peak_kb" in
# $WORK/time-NAME.txt; a failing stage prints its last lines and stops the benchmark.
# Expects $WORK (the benchmark's scratch directory) to be set.
# `base_commit`: the short commit of the checkout $BASE_BIN (an older fetchlab, measured beside this
# build) was built in; empty without BASE_BIN, "unknown" outside a checkout.
base_commit() {
  [ -z "${BASE_BIN:-}" ] || git -C "$(dirname "$BASE_BIN")" rev-parse --short HEAD 2>/dev/null || echo "unknown"
}

stage() {
  local name=$1
  shift
  echo "  $name …" >&2
  /usr/bin/time -o "$WORK/time-$name.txt" -f "%e %U %S %M" "$@" > "$WORK/out-$name.txt" 2> "$WORK/err-$name.txt" || {
    echo "$(basename "$0"): stage $name failed:" >&2
    tail -n 5 "$WORK/err-$name.txt" >&2
    exit 1
  }
  echo "  $name: $(tail -n 1 "$WORK/time-$name.txt") (wall s, user s, sys s, peak KB)" >&2
}
