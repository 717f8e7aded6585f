#!/usr/bin/env bash
# The Spark driver against one process (issue 27): the same population, the same cores, from the
# gzip'd logs to the merged report, and what sharding adds (partials, merge).
#
#   Benchmarks/spark-benchmark.sh [USERS] [DAYS] [SHARDS]      (defaults: 1000 28 4)
#
# Release build; the population (seed 1, with context and content logs) is generated into
# $BENCH_DIR (default bench-out/, gitignored) and removed afterwards. Timed with /usr/bin/time:
#   single   `fetchlab import` + `fetchlab compare --format json` (the standard set), one process
#            using both cores;
#   spark    `Fleet/fleet.py --master local[2] --shards SHARDS`: Spark starts, reads and partitions
#            the logs, each shard is imported and compared on an executor (two at a time), the driver
#            merges the partials (and fetches the timeline's user);
#   merge    `fetchlab merge` of the partials alone, and their size per user.
# Both reports must be byte for byte the same (checked). The overhead is spark / single (wall).
# From the single process's CPU seconds per user, the script estimates a 10-million-user fleet on
# a cluster (CPU hours; the merge's memory from the partials' size). Results go to
# Benchmarks/results/spark-USERSxDAYS.json. The machine is shared: the load average is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-1000}
DAYS=${2:-28}
SHARDS=${3:-4}
WORK=${BENCH_DIR:-bench-out}/spark-$USERS-$DAYS
rm -rf "$WORK"
mkdir -p "$WORK" Benchmarks/results
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
Fleet/setup

source "$(dirname "$0")/stage.sh"

echo "spark benchmark: $USERS users x $DAYS days, $SHARDS shards, in $WORK" >&2
"$BIN" generate --users "$USERS" --days "$DAYS" --seed 1 --output "$WORK/logs" >/dev/null
LOGS=("$WORK/logs/usage.csv.gz" "$WORK/logs/context.csv.gz" "$WORK/logs/content.csv.gz")
stage import "$BIN" import --db "$WORK/single.sqlite" "${LOGS[@]}"
stage compare "$BIN" compare --db "$WORK/single.sqlite" --format json --output "$WORK/single.json"
stage spark Fleet/.venv/bin/python Fleet/fleet.py --master 'local[2]' --shards "$SHARDS" --fetchlab "$BIN" \
  --out "$WORK/spark" --usage "${LOGS[0]}" --context "${LOGS[1]}" --content "${LOGS[2]}"
cmp "$WORK/single.json" "$WORK/spark/report.json" || { echo "spark-benchmark: the reports differ" >&2; exit 1; }
stage merge "$BIN" merge "$WORK"/spark/partials/*.partial --format json --no-store
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
PARTIAL_BYTES=$(du -cb "$WORK"/spark/partials/*.partial | tail -n 1 | cut -f1)

python3 - "$WORK" "$USERS" "$DAYS" "$SHARDS" "$PARTIAL_BYTES" "$LOAD_START" "$LOAD_END" <<'PY'
import datetime, json, os, platform, sys
work, users, days, shards, partial_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
load = sys.argv[6:8]
t = {}
for name in ("import", "compare", "spark", "merge"):
    wall, user, system, kb = open(f"{work}/time-{name}.txt").read().split()[-4:]
    t[name] = {"wall_seconds": float(wall), "cpu_seconds": round(float(user) + float(system), 2), "peak_rss_kb": int(kb)}
# Spark's executors run fetchlab from Python workers forked by the JVM: /usr/bin/time sees the
# driver's own CPU time and memory, not theirs, so only the wall time of that stage is a figure.
t["spark"] = {"wall_seconds": t["spark"]["wall_seconds"], "note": "wall time only: the executors' processes are not counted by /usr/bin/time"}
s = json.load(open(f"{work}/single.json"))["settings"]
single = t["import"]["wall_seconds"] + t["compare"]["wall_seconds"]
spark = t["spark"]["wall_seconds"]
cpu_per_user = (t["import"]["cpu_seconds"] + t["compare"]["cpu_seconds"]) / s["users"]
fleet = 10_000_000
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": load,
    "users": users, "days": days, "shards": shards, "replayed_users": s["users"],
    "scored_launches": s["scored_launches"], "stages": t, "reports_identical": True,
    "single_process_seconds": round(single, 2), "spark_local_seconds": round(spark, 2),
    "spark_overhead_ratio": round(spark / single, 2),
    "partial_bytes_per_user": round(partial_bytes / s["users"]),
    "cpu_seconds_per_user": round(cpu_per_user, 4),
    "estimate_10M_users": {
        "cpu_hours": round(cpu_per_user * fleet / 3600),
        "partials_gb": round(partial_bytes / s["users"] * fleet / 1e9),
        "note": f"{days}-day logs; import + compare CPU per user from the single process, times 10 million users",
    },
}
print(f"{users} users x {days} days ({s['users']} replayed, {s['scored_launches']:,} scored launches), {shards} shards; load {load[0]} -> {load[1]}")
print(f"one process (import + compare): {single:.1f} s; Spark local[2] (start, partition, {shards} shards, merge): {spark:.1f} s; "
      f"overhead x{spark / single:.2f}; the reports are byte for byte the same")
print(f"merge alone: {t['merge']['wall_seconds']:.1f} s, {t['merge']['peak_rss_kb'] / 1024:.0f} MB; partials {partial_bytes / s['users'] / 1024:.1f} kB per user")
e = result["estimate_10M_users"]
print(f"10 million users: about {e['cpu_hours']:,} CPU hours of import + compare; {e['partials_gb']:,} GB of partials to merge")
out = f"Benchmarks/results/spark-{users}x{days}.json"
json.dump(result, open(out, "w"), indent=2)
print(f"written to {out}")
PY
rm -rf "$WORK"
