#!/usr/bin/env bash
# Replay speed and memory: `fetchlab compare` (the standard set) over a generated population of
# about a million launches, per policy family and in total, with peak RSS at two sizes.
#
#   Benchmarks/replay-benchmark.sh [USERS] [DAYS]      (defaults: 1000 56, about 1 M launches)
#   REPEATS=N (default 3) runs; medians are reported. BENCH_DIR as the other benchmarks.
#
# Generates the population (seed 1) and one of half the users, imports each (usage, context,
# content) into a fresh database, then times (/usr/bin/time, release build) REPEATS runs of
# `compare --format json --timings` with the standard set on the full population, and one on the
# half-size population.
#   - per family: `--timings` reports the CPU seconds each policy took inside the replay (summed
#     over the threads; the closed-form and event-by-event work, the scoring and the energy
#     accounting, not reading the database) and launch·policy steps per CPU second, steps being
#     the launches of the evaluated (user, app) pairs (warm-up included: policies see the whole
#     log) × the family's policies. On this 2-core machine the wall-clock rate of a family is up
#     to twice its per-CPU-second rate (users replay on both cores); the bar is checked on the
#     per-CPU-second rate, the stricter of the two.
#   - total: the whole run's wall time (the 60 s bar), reading the database included.
#   - memory: peak RSS of the full and the half-size runs (compare reads users 64 at a time, so
#     it should not grow with the number of users: bounded when the ratio is at most 1.25).
# BASELINE_BIN=PATH also times another fetchlab build (an earlier commit's) on the full population,
# REPEATS runs interleaved with this build's, checks that its JSON is identical (apart from the run
# id: every run is stored in the same database) and records its figures and the ratios.
# The machine is shared: the load average is recorded with the results.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-1000}
DAYS=${2:-56}
REPEATS=${REPEATS:-3}
HALF=$(( USERS / 2 ))
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
[ "$HALF" -ge 1 ] || { echo "USERS must be at least 2 (the half-size population)" >&2; exit 64; }
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

. Benchmarks/population.sh

run() {  # label db [binary]: one timed compare; its JSON, stderr (timings) and "seconds peak_kb" kept
  local label=$1 db=$2 bin=${3:-$BIN}
  /usr/bin/time -o "$WORK/time-$label.txt" -f "%e %M" "$bin" compare --db "$db" --format json --timings \
    > "$WORK/replay-$label.json" 2> "$WORK/replay-$label.stderr"
  echo "  $label: $(tail -n 1 "$WORK/time-$label.txt") (seconds, peak KB)" >&2
}

echo "generating and importing $USERS and $HALF users x $DAYS days …" >&2
DB=$(prepare_population replay "$USERS" "$DAYS")
DB_HALF=$(prepare_population replay "$HALF" "$DAYS")
rm -f "$WORK"/replay-baseline-*.json
for i in $(seq 1 "$REPEATS"); do
  run "full-$i" "$DB"
  if [ -n "${BASELINE_BIN:-}" ]; then run "baseline-$i" "$DB" "$BASELINE_BIN"; fi
done
run half "$DB_HALF"
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$USERS" "$DAYS" "$REPEATS" "$LOAD_START" "$LOAD_END" "${BASELINE_BIN:-}" <<'PY'
import json, re, statistics, sys, datetime, platform, os
work, users, days, repeats, load_start, load_end, baseline = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
def timed(label):
    s, kb = open(f"{work}/time-{label}.txt").read().split()[-2:]
    return float(s), int(kb)
def families(label):
    out = {}
    launches = None
    for line in open(f"{work}/replay-{label}.stderr"):
        m = re.match(r"timings: (\d+) launches", line)
        if m: launches = int(m.group(1))
        m = re.match(r"\s+(\S+): (\d+) polic(?:y|ies), ([\d.]+) s, ([\d.]+) M launch·policy steps/s", line)
        if m: out[m.group(1)] = (int(m.group(2)), float(m.group(3)), float(m.group(4)))
    return launches, out
def summary(runs):  # per family: policies, median CPU seconds and M steps per CPU-second
    rows = {}
    for name in families(runs[0])[1]:
        count = families(runs[0])[1][name][0]
        seconds = statistics.median(families(r)[1][name][1] for r in runs)
        rate = statistics.median(families(r)[1][name][2] for r in runs)
        rows[name] = {"policies": count, "cpu_seconds": seconds, "m_steps_per_cpu_second": rate}
    return rows
# Issue 47's bars, M launch·policy steps per CPU second: 10 overall, 3 for every family, 50 for
# the planned ones (never, fixed and the oracles).
def bar_of(name):
    return 10 if name == "total" else 50 if name in ("never", "fixed", "oracle", "budget-oracle") else 3
runs = [f"full-{i}" for i in range(1, repeats + 1)]
launches, _ = families(runs[0])
report = json.load(open(f"{work}/replay-{runs[0]}.json"))
wall = statistics.median(timed(r)[0] for r in runs)
peak = max(timed(r)[1] for r in runs)
half_wall, half_peak = timed("half")
rows = summary(runs)
compared = None
if baseline:
    base_runs = [f"baseline-{i}" for i in range(1, repeats + 1)]
    base_rows = summary(base_runs)
    base_wall = statistics.median(timed(r)[0] for r in base_runs)
    # Every run is stored in the same database: all but the run id must match.
    unstored = lambda label: {**json.load(open(f"{work}/replay-{label}.json")), "run_id": None}
    same = all(unstored(r) == unstored(runs[0]) for r in base_runs)
    # A build from before the Poisson bootstrap (issue 47, item 4) draws other intervals, and its
    # points read from fetches per day may differ in their last digits: everything else must match.
    sys.path.insert(0, "Benchmarks")
    from stage_results import same_but_intervals, strip
    but_intervals = [same_but_intervals(strip(unstored(r)), strip(unstored(runs[0]))) for r in base_runs]
    compared = {"binary": baseline, "families": base_rows, "wall_seconds_median": base_wall,
                "peak_rss_kb": max(timed(r)[1] for r in base_runs), "json_identical": same,
                "json_identical_but_intervals": all(problem is None for problem, _ in but_intervals),
                "first_difference_but_intervals": next((p for p, _ in but_intervals if p), None),
                "numbers_differing_in_last_digits": max(close for _, close in but_intervals),
                "replay_cpu_ratio": base_rows["total"]["cpu_seconds"] / rows["total"]["cpu_seconds"],
                "wall_ratio": base_wall / wall}
print(f"population {users} users x {days} days: {launches:,} launches in {report['settings']['pairs']:,} evaluated pairs, "
      f"{report['settings']['scored_launches']:,} scored; load {load_start} -> {load_end}")
print(f"{'family':24s} {'policies':>8s} {'CPU s':>8s} {'M steps/CPU-s':>14s}")
for name, r in rows.items():
    rate = r["m_steps_per_cpu_second"]
    target = bar_of(name)
    bar = f"  (bar {target:g}: " + ("passed" if rate and rate >= target else "not met") + ")"
    print(f"{name:24s} {r['policies']:8d} {r['cpu_seconds']:8.2f} {rate if rate else float('nan'):14.1f}{bar}")
print(f"whole standard comparison: {wall:.1f} s wall (median of {repeats}; bar 60 s: {'passed' if wall < 60 else 'not met'}), "
      f"peak RSS {peak/1024:.0f} MB; half the users: {half_wall:.1f} s, {half_peak/1024:.0f} MB "
      f"(ratio {peak/half_peak:.2f}: {'bounded' if peak / half_peak <= 1.25 else 'grows'})")
if compared:
    print(f"baseline {baseline}: replay CPU {compared['families']['total']['cpu_seconds']:.1f} s, "
          f"{compared['replay_cpu_ratio']:.2f}x this build's; wall {compared['wall_seconds_median']:.1f} s, "
          f"{compared['wall_ratio']:.2f}x; JSON identical: {'yes' if compared['json_identical'] else 'no'}; "
          f"identical but the intervals: {'yes' if compared['json_identical_but_intervals'] else 'NO: ' + compared['first_difference_but_intervals']}"
          f" ({compared['numbers_differing_in_last_digits']} numbers differ in their last digits)")
    for name, r in rows.items():
        b = compared["families"].get(name)
        if b and r["cpu_seconds"] > 0:
            print(f"  {name:24s} {b['cpu_seconds']:8.2f} -> {r['cpu_seconds']:8.2f} CPU s ({b['cpu_seconds'] / r['cpu_seconds']:.2f}x)")
json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": [load_start, load_end],
           "users": users, "days": days, "launches_of_evaluated_pairs": launches, "pairs": report["settings"]["pairs"],
           "scored_launches": report["settings"]["scored_launches"], "families": rows,
           "bars_m_steps_per_cpu_second": {name: bar_of(name) for name in rows},
           "bars_met": {name: bool(r["m_steps_per_cpu_second"] and r["m_steps_per_cpu_second"] >= bar_of(name)) for name, r in rows.items()},
           "wall_seconds_median": wall, "peak_rss_kb": peak, "half": {"wall_seconds": half_wall, "peak_rss_kb": half_peak},
           **({"baseline": compared} if compared else {})},
          open(f"Benchmarks/results/replay-{users}x{days}.json", "w"), indent=2)
PY
