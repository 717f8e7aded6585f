#!/usr/bin/env bash
# Foreground logs: a dense log (about four samples a second, 1% of lines up to 30 s late) read with
# a huge --reorder-window (every sample stays pending to the end of the file) against a sparse one
# (a sample every 5-60 s, default window), in one run.
#
#   Benchmarks/dense-foreground-benchmark.sh [LINES] [REPEATS] [WINDOW]   (defaults: 3000000 3 7d: the largest window import accepts)
#
# Both files are generated seeded (Benchmarks/make_foreground_log.py), gzip'd, and imported
# REPEATS times each, interleaved, into fresh databases with the release binary (BASELINE_BIN: also
# another build, e.g. an earlier commit's; BASELINE_TIMEOUT bounds its runs, default 600 s).
# Prints the median wall time, rows/s and peak RSS (/usr/bin/time -f %M) of each, and the dense
# rate as a fraction of the sparse one (target >= 0.5). Results go to Benchmarks/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-3000000}
REPEATS=${2:-3}
WINDOW=${3:-7d}
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results

swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab

for kind in sparse dense; do
  f="$WORK/foreground-$kind-$LINES.log.gz"
  if [ ! -s "$f" ]; then
    echo "generating $f ..." >&2
    python3 Benchmarks/make_foreground_log.py "$LINES" --$kind | gzip -1 > "$f.tmp" && mv "$f.tmp" "$f"
  fi
done

measure() {  # name, timeout, command...; prints "seconds peak_kb" (or "timeout peak_kb")
  local name=$1 limit=$2; shift 2
  local rc=0
  /usr/bin/time -o "$WORK/time.txt" -f "%e %M" timeout "$limit" bash -c "$*" >/dev/null 2>"$WORK/$name.stderr" || rc=$?
  if [ "$rc" = 124 ]; then echo "timeout $(tail -n 1 "$WORK/time.txt" | cut -d' ' -f2)"; return; fi
  [ "$rc" = 0 ] || { echo "$name failed:" >&2; cat "$WORK/$name.stderr" >&2; exit 1; }
  tail -n 1 "$WORK/time.txt"
}

declare -A T M
for k in sparse dense base_sparse base_dense; do T[$k]=""; M[$k]=""; done
for r in $(seq "$REPEATS"); do
  rm -f "$WORK"/fg-*.sqlite*
  read -r s m < <(measure sparse 3600 "'$BIN' import --db '$WORK/fg-sparse.sqlite' --user u '$WORK/foreground-sparse-$LINES.log.gz'"); T[sparse]+="$s "; M[sparse]+="$m "
  read -r s m < <(measure dense 3600 "'$BIN' import --db '$WORK/fg-dense.sqlite' --user u --reorder-window $WINDOW '$WORK/foreground-dense-$LINES.log.gz'"); T[dense]+="$s "; M[dense]+="$m "
  if [ -n "${BASELINE_BIN:-}" ]; then
    read -r s m < <(measure base_sparse "${BASELINE_TIMEOUT:-600}" "'$BASELINE_BIN' import --db '$WORK/fg-base-sparse.sqlite' --user u '$WORK/foreground-sparse-$LINES.log.gz'"); T[base_sparse]+="$s "; M[base_sparse]+="$m "
    read -r s m < <(measure base_dense "${BASELINE_TIMEOUT:-600}" "'$BASELINE_BIN' import --db '$WORK/fg-base-dense.sqlite' --user u --reorder-window $WINDOW '$WORK/foreground-dense-$LINES.log.gz'"); T[base_dense]+="$s "; M[base_dense]+="$m "
  fi
  echo "run $r/$REPEATS (seconds so far): sparse ${T[sparse]}| dense ${T[dense]}| baseline ${T[base_sparse]}| ${T[base_dense]}" >&2
done

SPARSE_EVENTS=$(sqlite3 "$WORK/fg-sparse.sqlite" 'SELECT count(*) FROM usage_event WHERE kind = 0' 2>/dev/null || echo "?")
DENSE_EVENTS=$(sqlite3 "$WORK/fg-dense.sqlite" 'SELECT count(*) FROM usage_event WHERE kind = 0' 2>/dev/null || echo "?")
python3 - "$LINES" "$WINDOW" "$SPARSE_EVENTS" "$DENSE_EVENTS" "${T[sparse]}" "${T[dense]}" "${M[sparse]}" "${M[dense]}" \
  "${T[base_sparse]}" "${T[base_dense]}" "${M[base_sparse]}" "${M[base_dense]}" <<'PY'
import json, statistics, sys, datetime, platform, os
lines, window, sparse_ev, dense_ev = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def times(a): return [float(x) if x != "timeout" else float("inf") for x in a.split()]
def mems(a): return [int(x) for x in a.split()]
rows = {}
for name, t, m in [("sparse", 5, 7), ("dense", 6, 8), ("baseline sparse", 9, 11), ("baseline dense", 10, 12)]:
    if sys.argv[t].strip():
        rows[name] = (times(sys.argv[t]), mems(sys.argv[m]))
print(f"input: {lines:,} foreground lines each; dense read with --reorder-window {window}, sparse with the default (1h)")
print(f"launches stored: sparse {sparse_ev}, dense {dense_ev}")
print(f"{'':16} {'median s':>9} {'runs':>24} {'lines/s':>12} {'peak RSS':>9}")
med = {}
for name, (t, m) in rows.items():
    med[name] = statistics.median(t)
    rate = lines / med[name] if med[name] != float("inf") else 0
    runs = " ".join("timeout" if x == float("inf") else f"{x:.2f}" for x in t)
    print(f"{name:16} {med[name]:9.2f} {runs:>24} {rate:12,.0f} {max(m)/1024:7.0f} MB")
ratio = med["sparse"] / med["dense"]
print(f"dense lines/s ÷ sparse lines/s = {ratio:.2f}  (target >= 0.5)")
if "baseline dense" in med and med["baseline dense"] != float("inf"):
    print(f"baseline: dense ÷ sparse = {med['baseline sparse'] / med['baseline dense']:.2f}")
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    "lines": lines, "reorder_window_dense": window,
    "runs_seconds": {k: [x if x != float("inf") else None for x in v[0]] for k, v in rows.items()},
    "peak_rss_kb": {k: max(v[1]) for k, v in rows.items()},
    "ratio_dense_over_sparse": ratio,
}
with open(f"Benchmarks/results/dense-foreground-{lines}.json", "w") as f:
    json.dump(result, f, indent=2)
PY
