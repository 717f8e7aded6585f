#!/usr/bin/env bash
# Memory with many distinct names: usage CSVs whose every row names a new user and a new app
# (Benchmarks/make_many_names_log.py, seeded), imported into a fresh database; prints rows/s and
# peak RSS (/usr/bin/time -f %M) for each size, so that growth with the number of names shows.
#
#   Benchmarks/many-names-benchmark.sh [ROWS...]      (default: 1000000 10000000)
#
# BASELINE_BIN=another fetchlab build (e.g. an earlier commit's: `git worktree add /tmp/base REV &&
# swift build -c release --package-path /tmp/base`) is measured on the same files in the same run.
# Results go to Benchmarks/results/many-names-ROWS.json.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000000 10000000)
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results

swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab

measure() {  # name, command...; prints "seconds peak_kb"
  local name=$1; shift
  /usr/bin/time -o "$WORK/time.txt" -f "%e %M" bash -c "$*" >/dev/null 2>"$WORK/$name.stderr" \
    || { echo "$name failed:" >&2; cat "$WORK/$name.stderr" >&2; exit 1; }
  tail -n 1 "$WORK/time.txt"
}

for ROWS in "${SIZES[@]}"; do
  FILE="$WORK/names-$ROWS.csv.gz"
  if [ ! -s "$FILE" ]; then
    echo "generating $FILE ..." >&2
    python3 Benchmarks/make_many_names_log.py "$ROWS" | gzip -1 > "$FILE.tmp" && mv "$FILE.tmp" "$FILE"
  fi
  rm -f "$WORK"/names.sqlite* "$WORK"/names-base.sqlite*
  read -r s m < <(measure fetchlab "'$BIN' import --db '$WORK/names.sqlite' '$FILE'")
  STORED=$(sqlite3 "$WORK/names.sqlite" 'SELECT (SELECT count(*) FROM usage_event) || " events, " || (SELECT count(*) FROM user) || " users, " || (SELECT count(*) FROM app) || " apps"')
  bs=""; bm=""
  if [ -n "${BASELINE_BIN:-}" ]; then
    read -r bs bm < <(measure baseline "'$BASELINE_BIN' import --db '$WORK/names-base.sqlite' '$FILE'")
  fi
  rm -f "$WORK"/names.sqlite* "$WORK"/names-base.sqlite*
  python3 - "$ROWS" "$s" "$m" "$STORED" "$bs" "$bm" <<'PY'
import json, sys, datetime, platform, os
rows, s, m, stored, bs, bm = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
print(f"{rows:,} rows, {2 * rows:,} distinct names; stored {stored}")
print(f"  fetchlab  {s:8.2f} s {rows / s:12,.0f} rows/s  peak RSS {m / 1024:6.0f} MB")
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    "rows": rows, "distinct_names": 2 * rows, "seconds": s, "peak_rss_kb": m,
}
if bs:
    bs, bm = float(bs), int(bm)
    print(f"  baseline  {bs:8.2f} s {rows / bs:12,.0f} rows/s  peak RSS {bm / 1024:6.0f} MB")
    result["baseline"] = {"seconds": bs, "peak_rss_kb": bm}
with open(f"Benchmarks/results/many-names-{rows}.json", "w") as f:
    json.dump(result, f, indent=2)
PY
done
