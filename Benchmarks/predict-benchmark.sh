#!/usr/bin/env bash
# Prediction speed: fit and predict for a large generated population.
#
#   Benchmarks/predict-benchmark.sh [USERS] [DAYS]      (defaults: 10000 90)
#
# Generates the population (seed 1) and imports its usage log into a fresh database (both timed
# for reference), then times `fetchlab predict` for every user: fitting the blend's weights on
# 40 users, each user's predictors learning the whole log, and a 24-hour forecast and fetch plan
# for every app of every user. Results also go to Benchmarks/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-10000}
DAYS=${2:-90}
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
POP="$WORK/population-$USERS-$DAYS"
DB="$WORK/predict-$USERS-$DAYS.sqlite"
rm -rf "$POP" "$DB" "$DB"-*
/usr/bin/time -o "$WORK/t-gen.txt" -f "%e %M" "$BIN" generate --users "$USERS" --days "$DAYS" --seed 1 --output "$POP" >/dev/null
/usr/bin/time -o "$WORK/t-import.txt" -f "%e %M" "$BIN" import --db "$DB" "$POP/usage.csv.gz" >/dev/null
/usr/bin/time -o "$WORK/t-predict.txt" -f "%e %M" "$BIN" predict --db "$DB" > "$WORK/predict.txt"
python3 - "$USERS" "$DAYS" "$WORK" <<'PY'
import json, sys, datetime, platform, os
users, days, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
t = {k: open(f"{work}/t-{k}.txt").read().split() for k in ["gen", "import", "predict"]}
summary = open(f"{work}/predict.txt").read().strip()
print(f"population {users} users x {days} days: generate {float(t['gen'][0]):.1f} s, import usage {float(t['import'][0]):.1f} s")
print(f"fetchlab predict (all users): {float(t['predict'][0]):.1f} s, peak RSS {int(t['predict'][1])/1024:.0f} MB (target < 60 s)")
print(f"  {summary}")
json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores", "users": users, "days": days,
           "seconds": {k: float(v[0]) for k, v in t.items()}, "peak_rss_kb": {k: int(v[1]) for k, v in t.items()},
           "summary": summary}, open(f"Benchmarks/results/predict-{users}x{days}.json", "w"), indent=2)
PY
