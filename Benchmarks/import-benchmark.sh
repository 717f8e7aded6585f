#!/usr/bin/env bash
# Import speed and memory: fetchlab import vs the sqlite3 CLI's .import, in one run.
#
#   Benchmarks/import-benchmark.sh [EVENTS] [REPEATS]      (defaults: 5000000 3)
#
# Generates a gzip'd usage CSV of EVENTS rows (seeded, so the same file every time), then
# measures, REPEATS times each, interleaved:
#   floor    gzip -dc FILE > /dev/null
#   sqlite3  zcat FILE | sqlite3 DB '.import --csv --skip 1 /dev/stdin events'  (index-free TEXT table)
#   fetchlab fetchlab import --db DB FILE  (validating, deduplicating, indexed, fresh database)
#   baseline  BASELINE_BIN import ...  (only when BASELINE_BIN names another fetchlab build, e.g.
#             one of an earlier commit: `git worktree add /tmp/base REV && swift build -c release
#             --package-path /tmp/base`; then BASELINE_BIN=/tmp/base/.build/release/fetchlab)
# and prints the median wall time, rows/s and peak RSS of each, and fetchlab's rows/s as a
# ratio of sqlite3's (the target is >= 1.2), and of the baseline's when measured. Results also go
# to Benchmarks/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
EVENTS=${1:-5000000}
REPEATS=${2:-3}
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 CLI (apt-get install sqlite3)" >&2; exit 1; }

swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab

FILE="$WORK/usage-$EVENTS.csv.gz"
if [ ! -s "$FILE" ]; then
  echo "generating $FILE ..." >&2
  python3 Benchmarks/make_usage_log.py "$EVENTS" | gzip -6 > "$FILE.tmp" && mv "$FILE.tmp" "$FILE"
fi
BYTES=$(stat -c %s "$FILE")

measure() {  # name, command...; prints "seconds peak_kb" (peak RSS of the largest process)
  local name=$1; shift
  /usr/bin/time -o "$WORK/time.txt" -f "%e %M" bash -c "$*" >/dev/null 2>"$WORK/$name.stderr" \
    || { echo "$name failed:" >&2; cat "$WORK/$name.stderr" >&2; exit 1; }
  tail -n 1 "$WORK/time.txt"
}

declare -A T M
for tool in floor sqlite3 fetchlab baseline; do T[$tool]=""; M[$tool]=""; done
for r in $(seq "$REPEATS"); do
  rm -f "$WORK"/bench.sqlite* "$WORK"/cli.sqlite*
  read -r s m < <(measure floor "gzip -dc '$FILE' > /dev/null"); T[floor]+="$s "; M[floor]+="$m "
  sqlite3 "$WORK/cli.sqlite" 'CREATE TABLE events(timestamp TEXT, user TEXT, app TEXT, event TEXT);'
  read -r s m < <(measure sqlite3 "gzip -dc '$FILE' | sqlite3 '$WORK/cli.sqlite' '.import --csv --skip 1 /dev/stdin events'"); T[sqlite3]+="$s "; M[sqlite3]+="$m "
  read -r s m < <(measure fetchlab "'$BIN' import --db '$WORK/bench.sqlite' '$FILE'"); T[fetchlab]+="$s "; M[fetchlab]+="$m "
  if [ -n "${BASELINE_BIN:-}" ]; then
    rm -f "$WORK"/base.sqlite*
    read -r s m < <(measure baseline "'$BASELINE_BIN' import --db '$WORK/base.sqlite' '$FILE'"); T[baseline]+="$s "; M[baseline]+="$m "
  fi
  echo "run $r/$REPEATS (seconds so far): floor ${T[floor]}| sqlite3 ${T[sqlite3]}| fetchlab ${T[fetchlab]}" >&2
done

ROWS_CLI=$(sqlite3 "$WORK/cli.sqlite" 'SELECT count(*) FROM events')
ROWS_FL=$(sqlite3 "$WORK/bench.sqlite" 'SELECT count(*) FROM usage_event')
python3 - "$EVENTS" "$BYTES" "$ROWS_CLI" "$ROWS_FL" "${T[floor]}" "${T[sqlite3]}" "${T[fetchlab]}" "${M[floor]}" "${M[sqlite3]}" "${M[fetchlab]}" "${T[baseline]}" "${M[baseline]}" <<'PY'
import json, statistics, sys, datetime, platform, os
events, size, rows_cli, rows_fl = map(int, sys.argv[1:5])
times = [list(map(float, a.split())) for a in sys.argv[5:8]]
mems = [list(map(int, a.split())) for a in sys.argv[8:11]]
base_t = list(map(float, sys.argv[11].split())) if len(sys.argv) > 11 and sys.argv[11].strip() else []
base_m = list(map(int, sys.argv[12].split())) if len(sys.argv) > 12 and sys.argv[12].strip() else []
names = ["gzip -dc (floor)", "sqlite3 .import", "fetchlab import"]
med = [statistics.median(t) for t in times]
print(f"input: {events:,} events, {size/1e6:.1f} MB gzip'd; sqlite3 stored {rows_cli:,} rows, fetchlab {rows_fl:,} events")
print(f"{'':18} {'median s':>9} {'runs':>22} {'rows/s':>12} {'peak RSS':>9}")
for n, t, m, ts in zip(names, med, mems, times):
    print(f"{n:18} {t:9.2f} {' '.join(f'{x:.2f}' for x in ts):>22} {events/t:12,.0f} {max(m)/1024:7.0f} MB")
ratio = med[1] / med[2]
if base_t:
    b = statistics.median(base_t)
    print(f"{'baseline import':18} {b:9.2f} {' '.join(f'{x:.2f}' for x in base_t):>22} {events/b:12,.0f} {max(base_m)/1024:7.0f} MB")
print(f"fetchlab rows/s ÷ sqlite3 rows/s = {ratio:.2f}  (target >= 1.2); peak memory {max(mems[2])/1024:.0f} MB (target < 150 MB)")
if base_t:
    print(f"fetchlab rows/s ÷ baseline rows/s = {statistics.median(base_t) / med[2]:.2f}; peak memory {max(mems[2])/1024:.0f} MB vs {max(base_m)/1024:.0f} MB")
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    "events": events, "gzip_bytes": size,
    "median_seconds": dict(zip(["floor", "sqlite3", "fetchlab"], med)),
    "runs_seconds": dict(zip(["floor", "sqlite3", "fetchlab"], times)),
    "peak_rss_kb": dict(zip(["floor", "sqlite3", "fetchlab"], [max(m) for m in mems])),
    "ratio_fetchlab_over_sqlite3": ratio,
}
if base_t:
    result["baseline"] = {"runs_seconds": base_t, "peak_rss_kb": max(base_m),
                          "ratio_fetchlab_over_baseline": statistics.median(base_t) / med[2]}
with open(f"Benchmarks/results/import-{events}.json", "w") as f:
    json.dump(result, f, indent=2)
PY
