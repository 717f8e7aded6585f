#!/usr/bin/env bash
# Generation speed and memory: fetchlab generate for a large population, timed, with gzip -dc
# of its output as a reference for the bytes involved.
#
#   Benchmarks/generate-benchmark.sh [USERS] [DAYS]      (defaults: 10000 90)
#
# Prints wall time, peak RSS, rows and bytes; results also go to Benchmarks/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-10000}
DAYS=${2:-90}
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
OUT="$WORK/population-$USERS-$DAYS"
rm -rf "$OUT"
/usr/bin/time -o "$WORK/time.txt" -f "%e %M" "$BIN" generate --users "$USERS" --days "$DAYS" --seed 1 \
  --output "$OUT" --format json > "$WORK/generate.json"
read -r SECONDS_WALL PEAK_KB < "$WORK/time.txt"
/usr/bin/time -o "$WORK/time-zcat.txt" -f "%e" bash -c "gzip -dc '$OUT/usage.csv.gz' '$OUT/context.csv.gz' | wc -c" > "$WORK/raw-bytes.txt"
python3 - "$USERS" "$DAYS" "$SECONDS_WALL" "$PEAK_KB" "$(cat "$WORK/raw-bytes.txt")" "$(cat "$WORK/time-zcat.txt")" "$WORK/generate.json" <<'PY'
import json, sys, datetime, platform, os
users, days = int(sys.argv[1]), int(sys.argv[2])
secs, peak_kb, raw, zcat_s = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
summary = json.load(open(sys.argv[7]))
rows = summary["usageEvents"] + summary["contextSamples"] + summary["contentUpdates"]
print(f"fetchlab generate --users {users} --days {days}: {secs:.1f} s, peak RSS {peak_kb/1024:.0f} MB")
print(f"  {summary['usageEvents']:,} usage events, {summary['contextSamples']:,} context samples, {summary['contentUpdates']:,} content updates ({rows/secs:,.0f} rows/s)")
print(f"  {sum(summary['files'].values())/1e6:.0f} MB written, {raw/1e6:.0f} MB of CSV inside; gzip -dc of it alone takes {zcat_s:.1f} s")
result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
          "machine": f"{platform.machine()}, {os.cpu_count()} cores", "users": users, "days": days,
          "seconds": secs, "peak_rss_kb": peak_kb, "rows": rows, "csv_bytes": raw, "gzip_dc_seconds": zcat_s,
          "summary": summary}
json.dump(result, open(f"Benchmarks/results/generate-{users}x{days}.json", "w"), indent=2)
PY
