#!/usr/bin/env bash
# Tuning speed and memory: `fetchlab tune --family predictive` with the default 12-setting grid
# (lead=5m,10m,15m × threshold=0.2,0.3,0.4,0.55) over a generated population, and a
# `--family fixed` run (7 settings) for reference.
#
#   Benchmarks/tune-benchmark.sh [USERS] [DAYS]      (defaults: 10000 90; the bar: under 2 minutes)
#
# The population (seed 1) is generated and imported (usage, context, content) once per USERS×DAYS
# into $BENCH_DIR (default bench-out/, gitignored) and reused by later runs; delete it to start
# over. Then (release build, /usr/bin/time) one `tune --format json` per family: wall time, CPU
# time (user + system; CPU/wall near 2 means both cores were busy), peak RSS, the settings tried
# and replayed by the search, and the launches scored on the training and the held-out days (from
# the tune JSON). BASELINE_BIN=PATH also times another fetchlab build (an earlier commit's) on
# the same database in the same run, checks that its JSON is identical and prints the ratios;
# FETCHLAB_BIN=PATH times that build instead of building this checkout. HALVING=1 also times the same
# grid searched by successive halving (`--search halving`) and says whether it chose the same setting
# with the same held-out figures; FEW_KEPT=N also times the grid keeping only N users in memory (the
# others in a temporary file since 2026-11-27, read from SQLite again by every pass before; with
# BASELINE_BIN that build too) and checks its JSON is the same; GRID_PARTS=1 also
# times parts of the grid (one setting; one lead's four thresholds; the three leads at one threshold),
# which show what a setting of the grid costs beyond the run's fixed work. SHARDS=N also spreads the
# grid's search over N shards (`tune --shard I/N --partial FILE`, one after another here, each timed
# as one machine of N would run it) and finishes the tune from their partials (`--search-from`),
# checking its JSON is the grid's and estimating the wall time on N machines (the slowest shard,
# then the finishing tune).
# Results also go to Benchmarks/results/tune-USERSxDAYS.json (tune-USERSxDAYS-shardsN.json with
# SHARDS=N). The machine is shared: the load
# average is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-10000}
DAYS=${2:-90}
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

if [ -n "${FETCHLAB_BIN:-}" ]; then
  BIN=$FETCHLAB_BIN  # a given build (e.g. a copy of this branch's) instead of building
else
  swift build -c release --product fetchlab >&2
  BIN=$(swift build -c release --show-bin-path)/fetchlab
fi

POP="$WORK/population-$USERS-$DAYS-seed1"
DB="$WORK/tune-$USERS-$DAYS-seed1.sqlite"
if [ ! -f "$DB.ready" ]; then
  echo "generating and importing $USERS users x $DAYS days (kept in $WORK for later runs) …" >&2
  rm -rf "$POP" "$DB" "$DB"-* "$DB.ready"
  /usr/bin/time -o "$WORK/tune-time-generate.txt" -f "%e %M" \
    "$BIN" generate --users "$USERS" --days "$DAYS" --seed 1 --output "$POP" >/dev/null
  /usr/bin/time -o "$WORK/tune-time-import.txt" -f "%e %M" \
    "$BIN" import --db "$DB" "$POP"/*.csv.gz >/dev/null
  rm -rf "$POP"
  touch "$DB.ready"
else
  echo "reusing $DB" >&2
fi

run() {  # label binary family [options]: one timed tune; its JSON and "wall user sys peak_kb" kept
  local label=$1 bin=$2 family=$3
  shift 3
  /usr/bin/time -o "$WORK/tune-time-$label.txt" -f "%e %U %S %M" \
    "$bin" tune --db "$DB" --family "$family" --format json "$@" > "$WORK/tune-$label.json" 2> "$WORK/tune-$label.stderr"
  echo "  $label: $(tail -n 1 "$WORK/tune-time-$label.txt") (wall s, user s, sys s, peak KB)" >&2
}

LABELS=(predictive fixed)
# Every user kept in memory (KEEP_USERS, default 10000; tune's own default is 2,000).
run predictive "$BIN" predictive --keep-users "${KEEP_USERS:-10000}"
run fixed "$BIN" fixed --keep-users "${KEEP_USERS:-10000}"
if [ -n "${HALVING:-}" ]; then  # the same grid by successive halving over users
  run predictive-halving "$BIN" predictive --keep-users "${KEEP_USERS:-10000}" --search halving
  LABELS+=(predictive-halving)
fi
if [ -n "${GRID_PARTS:-}" ]; then  # parts of the grid: one setting, one lead's 4 thresholds, 3 leads at one threshold
  run grid-one-setting "$BIN" predictive --keep-users "${KEEP_USERS:-10000}" --grid "lead=15m;threshold=0.2"
  run grid-one-lead "$BIN" predictive --keep-users "${KEEP_USERS:-10000}" --grid "lead=15m;threshold=0.2,0.3,0.4,0.55"
  run grid-one-threshold "$BIN" predictive --keep-users "${KEEP_USERS:-10000}" --grid "lead=5m,10m,15m;threshold=0.2"
  LABELS+=(grid-one-setting grid-one-lead grid-one-threshold)
fi
if [ -n "${SHARDS:-}" ]; then  # the grid's search over SHARDS shards, then the tune finished from them
  rm -f "$WORK"/tune-search-*-of-"$SHARDS".gz
  for i in $(seq 1 "$SHARDS"); do
    /usr/bin/time -o "$WORK/tune-time-shard-$i-of-$SHARDS.txt" -f "%e %U %S %M" \
      "$BIN" tune --db "$DB" --family predictive --keep-users "${KEEP_USERS:-10000}" --shard "$i/$SHARDS" \
      --partial "$WORK/tune-search-$i-of-$SHARDS.gz" --force --format json > "$WORK/tune-shard-$i-of-$SHARDS.json"
    echo "  shard $i/$SHARDS: $(tail -n 1 "$WORK/tune-time-shard-$i-of-$SHARDS.txt") (wall s, user s, sys s, peak KB)" >&2
  done
  run predictive-from-shards "$BIN" predictive --keep-users "${KEEP_USERS:-10000}" \
    --search-from "$WORK"/tune-search-*-of-"$SHARDS".gz
  LABELS+=(predictive-from-shards)
fi
if [ -n "${FEW_KEPT:-}" ]; then  # the grid keeping only FEW_KEPT users in memory
  run predictive-few-kept "$BIN" predictive --keep-users "$FEW_KEPT"
  LABELS+=(predictive-few-kept)
  if [ -n "${BASELINE_BIN:-}" ]; then
    run baseline-predictive-few-kept "$BASELINE_BIN" predictive --keep-users "$FEW_KEPT"
    LABELS+=(baseline-predictive-few-kept)
  fi
fi
if [ -n "${BASELINE_BIN:-}" ]; then
  run baseline-predictive "$BASELINE_BIN" predictive
  run baseline-fixed "$BASELINE_BIN" fixed
  LABELS+=(baseline-predictive baseline-fixed)
fi
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$USERS" "$DAYS" "$LOAD_START" "$LOAD_END" "${LABELS[@]}" <<'PY'
import json, sys, datetime, platform, os
work, users, days, load_start, load_end, labels = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:]
rows = {}
for label in labels:
    wall, user, system, kb = open(f"{work}/tune-time-{label}.txt").read().split()[-4:]
    result = json.load(open(f"{work}/tune-{label}.json"))
    folds = result["folds"]
    rows[label] = {
        "wall_seconds": float(wall), "cpu_seconds": float(user) + float(system), "peak_rss_kb": int(kb),
        "settings": len(folds[0]["tried"]), "replays": result["replays"],
        "train_scored_launches": folds[0]["chosen_train"]["scored_launches"],
        "test_scored_launches": folds[0]["chosen_test"]["scored_launches"],
        "chosen": folds[0]["chosen"], "best_fixed": folds[0].get("best_fixed"),
    }
print(f"population {users} users x {days} days; load {load_start} -> {load_end}")
print(f"{'run':22s} {'wall s':>8s} {'CPU s':>8s} {'CPU/wall':>8s} {'peak MB':>8s} {'settings':>8s} {'replays':>7s} {'train launches':>14s} {'test launches':>13s}  chosen")
for label, r in rows.items():
    print(f"{label:22s} {r['wall_seconds']:8.1f} {r['cpu_seconds']:8.1f} {r['cpu_seconds']/r['wall_seconds']:8.2f} "
          f"{r['peak_rss_kb']/1024:8.0f} {r['settings']:8d} {r['replays']:7d} {r['train_scored_launches']:14,d} "
          f"{r['test_scored_launches']:13,d}  {r['chosen']} (best fixed {r['best_fixed']})")
def same_json(x, y):  # each run is stored in the same database: all but the run id must match
    mine, theirs = (json.load(open(f"{work}/tune-{label}.json")) for label in (x, y))
    return {**mine, "run_id": None} == {**theirs, "run_id": None}
for family in ("predictive", "fixed"):
    if f"baseline-{family}" in rows:
        a, b = rows[family], rows[f"baseline-{family}"]
        same = same_json(family, f"baseline-{family}")
        print(f"{family}: wall {b['wall_seconds']/a['wall_seconds']:.2f}x faster than the baseline, CPU {b['cpu_seconds']/a['cpu_seconds']:.2f}x, "
              f"peak RSS {a['peak_rss_kb']/1024:.0f} vs {b['peak_rss_kb']/1024:.0f} MB; JSON identical: {'yes' if same else 'NO'}")
for label in ("predictive-few-kept", "baseline-predictive-few-kept"):
    if label not in rows:
        continue
    a, b = rows["predictive"], rows[label]
    b["same_json_as_predictive"] = same_json("predictive", label)
    print(f"{label} (keep {os.environ['FEW_KEPT']}): CPU {b['cpu_seconds']/a['cpu_seconds']:.2f}x, "
          f"wall {b['wall_seconds']/a['wall_seconds']:.2f}x, peak RSS {b['peak_rss_kb']/a['peak_rss_kb']:.2f}x "
          f"the run keeping every user; JSON identical: {'yes' if b['same_json_as_predictive'] else 'NO'}")
if "predictive-halving" in rows:
    a, b = rows["predictive"], rows["predictive-halving"]
    mine, theirs = (json.load(open(f"{work}/tune-{label}.json"))["folds"][0] for label in ("predictive", "predictive-halving"))
    b["same_choice_and_test_figures_as_grid"] = (mine["chosen"], mine["chosen_test"]) == (theirs["chosen"], theirs["chosen_test"])
    print(f"successive halving: wall {b['wall_seconds']/a['wall_seconds']:.2f}x the grid's; same choice and held-out "
          f"figures: {'yes' if b['same_choice_and_test_figures_as_grid'] else 'no'}")
extra = {}
if "predictive-from-shards" in rows:
    n = int(os.environ["SHARDS"])
    shards = []
    for i in range(1, n + 1):
        wall, user, system, kb = open(f"{work}/tune-time-shard-{i}-of-{n}.txt").read().split()[-4:]
        line = json.load(open(f"{work}/tune-shard-{i}-of-{n}.json"))
        shards.append({"shard": f"{i}/{n}", "wall_seconds": float(wall), "cpu_seconds": float(user) + float(system),
                       "peak_rss_kb": int(kb), "training_users": line["users"],
                       "partial_bytes": os.path.getsize(f"{work}/tune-search-{i}-of-{n}.gz")})
    a, b = rows["predictive"], rows["predictive-from-shards"]
    slowest = max(s["wall_seconds"] for s in shards)
    summary = {"shards": n, "per_shard": shards, "finish_wall_seconds": b["wall_seconds"],
               "finish_cpu_seconds": b["cpu_seconds"], "same_json_as_grid": same_json("predictive", "predictive-from-shards"),
               "estimated_wall_seconds_on_n_machines": slowest + b["wall_seconds"],
               "total_cpu_seconds": sum(s["cpu_seconds"] for s in shards) + b["cpu_seconds"]}
    extra["shards"] = summary
    print(f"search over {n} shards: slowest shard {slowest:.1f} s, finishing tune {b['wall_seconds']:.1f} s "
          f"({b['wall_seconds']/a['wall_seconds']:.2f}x the whole tune); on {n} machines about "
          f"{summary['estimated_wall_seconds_on_n_machines']:.1f} s against {a['wall_seconds']:.1f} s; CPU in all "
          f"{summary['total_cpu_seconds']/a['cpu_seconds']:.2f}x; JSON identical: {'yes' if summary['same_json_as_grid'] else 'NO'}")
if "grid-one-setting" in rows:
    one, lead, leads, grid = (rows[k]["wall_seconds"] for k in ("grid-one-setting", "grid-one-lead", "grid-one-threshold", "predictive"))
    parts = {"one_setting_wall_seconds": one,
             "per_extra_threshold_of_a_lead_wall_seconds": (lead - one) / 3,
             "per_extra_lead_at_one_threshold_wall_seconds": (leads - one) / 2,
             "whole_grid_wall_seconds": grid}
    extra["grid_parts"] = parts
    print(f"grid parts (wall s): one setting {one:.1f}; each more threshold of that lead +{parts['per_extra_threshold_of_a_lead_wall_seconds']:.1f}; "
          f"each more lead +{parts['per_extra_lead_at_one_threshold_wall_seconds']:.1f}; the 12-setting grid {grid:.1f}")
p = rows["predictive"]
print(f"tune --family predictive, {p['settings']} settings, {users} users x {days} days: {p['wall_seconds']:.1f} s wall, "
      f"{p['cpu_seconds']:.1f} s CPU, peak RSS {p['peak_rss_kb']/1024:.0f} MB "
      f"(bar: 12 settings, 10,000 users x 90 days under 120 s: "
      f"{('passed' if p['wall_seconds'] < 120 else 'not met') if (users, days, p['settings']) == (10000, 90, 12) else 'not this size'})")
json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": [load_start, load_end],
           "users": users, "days": days, "runs": rows, **extra},
          open(f"Benchmarks/results/tune-{users}x{days}{'-shards' + os.environ['SHARDS'] if 'shards' in extra else ''}.json", "w"),
          indent=2)
PY
