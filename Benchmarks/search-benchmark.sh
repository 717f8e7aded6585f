#!/usr/bin/env bash
# The smarter searches against the grid: `fetchlab tune --family predictive` over a 48-setting
# grid (lead 2m…30m × threshold 0.05…0.6) under fetches<=2, on a generated population, with
# --search grid, halving and coordinate in the same run.
#
#   Benchmarks/search-benchmark.sh [USERS] [DAYS]      (defaults: 1000 35; seed 11)
#
# Reports, per search, the chosen setting and its training score, the replays it used in replays of
# all training users (halving's rungs on a share of the users count for that share), the share of
# the grid's replays, whether the score is within 1 % of the grid's best, and the wall time (the
# machine is shared: the load average is recorded). Results in Benchmarks/results/search-USERSxDAYS.json.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-1000}
DAYS=${2:-35}
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
POP="$WORK/search-$USERS-$DAYS"
DB="$WORK/search-$USERS-$DAYS.sqlite"
if [ ! -f "$DB" ]; then
  rm -rf "$POP"
  "$BIN" generate --users "$USERS" --days "$DAYS" --seed 11 --output "$POP" >&2
  "$BIN" import --db "$DB" "$POP" >&2
fi
GRID="lead=2m,5m,10m,15m,20m,30m;threshold=0.05,0.1,0.15,0.2,0.3,0.4,0.5,0.6"
for m in grid halving coordinate; do
  rm -f "$WORK/search-$m.json"  # --output refuses an existing file
  start=$(date +%s.%N)
  "$BIN" tune --db "$DB" --family predictive --grid "$GRID" --subject-to "fetches<=2" --search "$m" \
    --format json --output "$WORK/search-$m.json" 2>/dev/null
  end=$(date +%s.%N)
  echo "$m $(echo "$end - $start" | bc)" >> "$WORK/search-times.txt.$$"
done
python3 - "$WORK" "$USERS" "$DAYS" "$$" <<'PY'
import json, os, sys
work, users, days, pid = sys.argv[1:]
times = dict(l.split() for l in open(f"{work}/search-times.txt.{pid}"))
os.remove(f"{work}/search-times.txt.{pid}")
runs = {m: json.load(open(f"{work}/search-{m}.json")) for m in ("grid", "halving", "coordinate")}
best = runs["grid"]["folds"][0]["chosen_train"]["objective"]
out = {"users": int(users), "days": int(days), "load_average": open("/proc/loadavg").read().split()[:3], "searches": {}}
for m, d in runs.items():
    f = d["folds"][0]
    score = f["chosen_train"]["objective"]
    r = {"chosen": f["chosen"], "train_fresh_15m": round(score, 4), "test_fresh_15m": round(f["chosen_test"]["fresh_15m"], 4),
         "replay_cost": round(d["replay_cost"], 2), "share_of_grid": round(d["replay_cost"] / runs["grid"]["replay_cost"], 3),
         "within_1pct": score >= 0.99 * best, "wall_seconds": round(float(times[m]), 1)}
    out["searches"][m] = r
    print(f"{m:10} {r['chosen']:22} train fresh@15m {score:.4f}  cost {r['replay_cost']:5.1f} replays "
          f"({100 * r['share_of_grid']:.0f}% of the grid)  within 1%: {'yes' if r['within_1pct'] else 'no'}  {r['wall_seconds']} s")
json.dump(out, open(f"Benchmarks/results/search-{users}x{days}.json", "w"), indent=2)
PY
