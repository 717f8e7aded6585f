#!/usr/bin/env bash
# `compare --per-user` memory: peak RSS of `compare --format json` (the standard set, output to a
# file, run stored) with and without `--per-user`, at USERS and at a quarter of them. Per-user rows
# are spooled to $TMPDIR as users finish, so the peak should not grow with the population: the
# script states the ratio of the per-user peaks (full / quarter) and the per-user overhead.
#
#   Benchmarks/per-user-benchmark.sh [USERS] [DAYS]    (defaults: 2000 56)
#   BENCH_DIR as the other benchmarks (default bench-out).
#
# Writes Benchmarks/results/per-user-USERSxDAYS.json. The machine is shared: the load average is
# recorded with the results; memory, not time, is what this measures.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-2000}
DAYS=${2:-56}
QUARTER=$(( USERS / 4 ))
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
[ "$QUARTER" -ge 1 ] || { echo "USERS must be at least 4 (the quarter-size population)" >&2; exit 64; }
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

. Benchmarks/population.sh

run() {  # label db [flags]: one timed compare to a JSON file; "seconds peak_kb" kept
  local label=$1 db=$2
  shift 2
  rm -f "$WORK/per-user-$label.json"  # --output refuses an existing file
  /usr/bin/time -o "$WORK/time-$label.txt" -f "%e %M" "$BIN" compare --db "$db" --format json \
    --output "$WORK/per-user-$label.json" "$@" 2> "$WORK/per-user-$label.stderr"
  echo "  $label: $(tail -n 1 "$WORK/time-$label.txt") (seconds, peak KB)" >&2
}

echo "generating and importing $USERS and $QUARTER users x $DAYS days …" >&2
DB=$(prepare_population per-user "$USERS" "$DAYS")
DB_QUARTER=$(prepare_population per-user "$QUARTER" "$DAYS")
run full "$DB"
run full-per-user "$DB" --per-user
run quarter "$DB_QUARTER"
run quarter-per-user "$DB_QUARTER" --per-user
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$USERS" "$QUARTER" "$DAYS" "$LOAD_START" "$LOAD_END" <<'PY'
import json, os, sys, datetime, platform
work, users, quarter, days, load_start, load_end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
def timed(label):
    s, kb = open(f"{work}/time-{label}.txt").read().split()[-2:]
    return {"wall_seconds": float(s), "peak_rss_kb": int(kb),
            "output_bytes": os.path.getsize(f"{work}/per-user-{label}.json")}
runs = {label: timed(label) for label in ["full", "full-per-user", "quarter", "quarter-per-user"]}
report = json.load(open(f"{work}/per-user-full-per-user.json"))
rows = sum(len(p["per_user"]) for p in report["policies"])
growth = runs["full-per-user"]["peak_rss_kb"] / runs["quarter-per-user"]["peak_rss_kb"]
overhead = runs["full-per-user"]["peak_rss_kb"] / runs["full"]["peak_rss_kb"]
mb = lambda kb: kb / 1024
print(f"{users} users x {days} days, {len(report['policies'])} policies, {rows:,} per-user rows "
      f"({runs['full-per-user']['output_bytes'] / 1e6:.0f} MB of JSON); load {load_start} -> {load_end}")
for label, r in runs.items():
    print(f"  {label:18s} {r['wall_seconds']:7.1f} s  {mb(r['peak_rss_kb']):7.0f} MB")
print(f"--per-user peak, {users} vs {quarter} users: ratio {growth:.2f} ({'bounded' if growth <= 1.25 else 'grows'}); "
      f"--per-user vs without at {users} users: ratio {overhead:.2f}")
json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": [load_start, load_end],
           "users": users, "quarter_users": quarter, "days": days, "policies": len(report["policies"]),
           "per_user_rows": rows, "runs": runs, "per_user_growth_ratio": round(growth, 3),
           "per_user_overhead_ratio": round(overhead, 3)},
          open(f"Benchmarks/results/per-user-{users}x{days}.json", "w"), indent=2)
PY
