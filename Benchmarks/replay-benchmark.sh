#!/usr/bin/env bash
# Replay speed and memory: `fetchlab compare` (the standard set) over a generated population of
# about a million launches, per policy family and in total, with peak RSS at two sizes.
#
#   Benchmarks/replay-benchmark.sh [USERS] [DAYS]      (defaults: 1000 56, about 1 M launches)
#   REPEATS=N (default 5) rounds, interleaved; medians are reported. BENCH_DIR as the others.
#
# Generates the population (seed 1), imports all its files (usage, context, content) into a fresh
# database, does the same for a population of half the users (USERS/2 x DAYS), then, in each
# round, times (/usr/bin/time -f "%e %M %U %S", release build) these `compare --format json` runs:
#   full      the standard set, default policies (the issue's "whole standard comparison")
#   load      --min-launches 1000000: reads every user and builds its replay set-up exactly as
#             the other runs do, but no (user, app) pair is evaluated, so no policy is replayed
#             (compare then exits 1, "no launch was scored": expected here)
#   never     --policies never
#   <family>  --policies <the family's standard members>, one run per family of the full run's
#             JSON (`family` field; budget-oracle counted with oracle, as the issue does)
#   half      the standard set on the half-size population (peak RSS: memory bounded?)
#
# compare always replays the reference policies too (never, fixed(15m,30m,1h,2h,4h,8h,24h),
# oracle, budget-oracle(1,2,4,8,16): gap closed needs them) but reports only those asked for. So:
#   - a family outside the references (predictive, predictive-cost-aware): its time is
#     (median time of its run) - (median time of the never run), which replays exactly the
#     references; both runs read the same users.
#   - the references together: (median never run) - (median load run).
#   - a family among the references (never, fixed, oracle): compare cannot replay it alone; its
#     run replays the same 14 policies as the never run (its raw time is printed as a noise
#     check). Its time is at most the references' time, so its rate is at least
#     steps(family) / time(references): reported as a lower bound ("≥"); its bar passes when that
#     lower bound reaches the target.
#   - total: the full run's raw wall time (the 60 s bar), and steps over it.
# Steps (launch·policy steps) = launches of the evaluated (user, app) pairs, all of them (warm-up
# included: the policies see the whole log; scoring starts after the warm-up), x policies
# replayed. Evaluated pairs are counted in SQL the way compare picks them (>= --min-launches
# launches in the whole log) and checked against the `pairs` of the full run's JSON; the DB's
# total launches and the JSON's scored_launches are reported beside them.
# Memory bounded: compare reads users in batches of 64, so peak RSS should not grow with the
# number of users; reported as peak(USERS) / peak(USERS/2) (bounded: at most 1.25).
# The machine is shared: the load average at the start and end is recorded with the results, and
# every difference is also computed from CPU time (user + system), which other processes disturb
# less than wall time; "M steps/CPU-s" is per CPU second (the replay runs on every core, so on an
# idle 2-core machine the wall-clock rate would be up to twice that). The bars use wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-1000}
DAYS=${2:-56}
REPEATS=${REPEATS:-5}
HALF=$(( USERS / 2 ))
WORK=${BENCH_DIR:-bench-out}
mkdir -p "$WORK" Benchmarks/results
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 CLI (apt-get install sqlite3)" >&2; exit 1; }
[ "$HALF" -ge 1 ] || { echo "USERS must be at least 2 (the half-size population)" >&2; exit 64; }
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
TIMES="$WORK/replay-times.txt"
: > "$TIMES"

prepare() {  # users days: generate and import into a fresh database; prints the database path
  local u=$1 d=$2
  local pop="$WORK/population-$u-$d" db="$WORK/replay-$u-$d.sqlite"
  rm -rf "$pop" "$db" "$db"-*
  /usr/bin/time -o "$WORK/t-gen-$u.txt" -f "%e %M" "$BIN" generate --users "$u" --days "$d" --seed 1 --output "$pop" >/dev/null
  /usr/bin/time -o "$WORK/t-import-$u.txt" -f "%e %M" "$BIN" import --db "$db" "$pop"/*.csv.gz >/dev/null
  echo "$db"
}

run() {  # label db [compare options...]: one timed compare; appends "label seconds peak_kb cpu_seconds" to $TIMES
  local label=$1 db=$2; shift 2
  local status=0
  /usr/bin/time -o "$WORK/time.txt" -f "%e %M %U %S" "$BIN" compare --db "$db" --format json "$@" \
    > "$WORK/replay-$label.json" 2> "$WORK/replay-$label.stderr" || status=$?
  if [ "$status" -ne 0 ] && ! { [ "$label" = load ] && grep -q "no launch was scored" "$WORK/replay-$label.stderr"; }; then
    echo "compare ($label) failed with status $status:" >&2; cat "$WORK/replay-$label.stderr" >&2; exit 1
  fi
  read -r s kb us sy < <(tail -n 1 "$WORK/time.txt")
  cpu=$(python3 -c "print(round($us + $sy, 2))")
  echo "$label $s $kb $cpu" >> "$TIMES"
  echo "  $label: $s s (CPU $cpu s), $(( kb / 1024 )) MB" >&2
}

echo "population $USERS x $DAYS and $HALF x $DAYS: generating and importing ..." >&2
DB=$(prepare "$USERS" "$DAYS")
DB_HALF=$(prepare "$HALF" "$DAYS")

for r in $(seq "$REPEATS"); do
  echo "round $r/$REPEATS" >&2
  run full "$DB"
  if [ "$r" = 1 ]; then
    # The families of the standard set, from the full run: "group<TAB>policy,policy,..."
    python3 - "$WORK/replay-full.json" > "$WORK/replay-groups.txt" <<'PY'
import json, sys
groups = {}
for p in json.load(open(sys.argv[1]))["policies"]:
    g = "oracle" if p["family"] == "budget-oracle" else p["family"]
    groups.setdefault(g, []).append(p["name"])
for g, names in groups.items():
    print(f"{g}\t{','.join(names)}")
PY
  fi
  run load "$DB" --min-launches 1000000
  run never "$DB" --policies never
  while IFS=$'\t' read -r group names; do
    [ "$group" = never ] && continue
    run "family-$group" "$DB" --policies "$names"
  done < "$WORK/replay-groups.txt"
  run half "$DB_HALF"
done

MIN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["settings"]["min_launches"])' "$WORK/replay-full.json")
launch_counts() {  # db: "all_launches evaluated_launches evaluated_pairs"
  sqlite3 -separator ' ' "$1" "SELECT (SELECT count(*) FROM usage_event WHERE kind = 0), coalesce(sum(n), 0), count(*)
    FROM (SELECT count(*) AS n FROM usage_event WHERE kind = 0 GROUP BY user_id, app_id HAVING n >= $MIN)"
}
COUNTS=$(launch_counts "$DB")
COUNTS_HALF=$(launch_counts "$DB_HALF")
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$USERS" "$DAYS" "$HALF" "$REPEATS" "$WORK" "$COUNTS" "$COUNTS_HALF" "$LOAD_START" "$LOAD_END" <<'PY'
import json, statistics, sys, datetime, platform, os
users, days, half, repeats, work = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
all_launches, launches, pairs_sql = map(int, sys.argv[6].split())
all_half, launches_half, pairs_half = map(int, sys.argv[7].split())
load_start, load_end = sys.argv[8], sys.argv[9]
TARGET_RATE, TARGET_FULL_S, BOUNDED_RATIO, M = 20e6, 60.0, 1.25, 1e6
REFERENCES = (["never"] + [f"fixed({t})" for t in ["15m", "30m", "1h", "2h", "4h", "8h", "24h"]] + ["oracle"]
              + [f"budget-oracle({k})" for k in [1, 2, 4, 8, 16]])

runs = {}  # label -> [(wall s, peak kB, CPU s)]
for line in open(f"{work}/replay-times.txt"):
    label, s, kb, cpu = line.split()
    runs.setdefault(label, []).append((float(s), int(kb), float(cpu)))
wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
cpu = {k: statistics.median(r[2] for r in v) for k, v in runs.items()}
peak = {k: max(r[1] for r in v) for k, v in runs.items()}
full = json.load(open(f"{work}/replay-full.json"))
half_json = json.load(open(f"{work}/replay-half.json"))
st = full["settings"]

def split_names(s):  # a --policies list: commas inside parentheses belong to the name
    out, cur, depth = [], "", 0
    for c in s:
        depth += c == "("; depth -= c == ")"
        if c == "," and depth == 0: out.append(cur); cur = ""
        else: cur += c
    return out + [cur]
groups = [line.rstrip("\n").split("\t") for line in open(f"{work}/replay-groups.txt")]
groups = [(g, split_names(names)) for g, names in groups]
standard = [p["name"] for p in full["policies"]]
replayed_full = len(standard) + len([r for r in REFERENCES if r not in standard])

ref_wall, ref_cpu = wall["never"] - wall["load"], cpu["never"] - cpu["load"]
def rate(steps, secs): return steps / secs if secs > 0 else None
def fmt(x, bound=False): return "–" if x is None else (f"≥ {x / M:.1f}" if bound else f"{x / M:.1f}")
print(f"population {users} users x {days} days (seed 1): {all_launches:,} launches; "
      f"{st['users']:,} users, {st['pairs']:,} evaluated pairs (SQL: {pairs_sql:,}) holding {launches:,} launches "
      f"(≥ {st['min_launches']} each), {st['scored_launches']:,} of them scored after the {st['warm_up_days']}-day warm-up")
print(f"steps = {launches:,} launches of evaluated pairs x policies replayed; medians of {repeats} rounds; "
      f"load average {load_start} at the start, {load_end} at the end (2 shared cores)")
print(f"read + set-up only (no policy replayed): {wall['load']:.2f} s (CPU {cpu['load']:.2f} s); never run (replays "
      f"the 14 references): {wall['never']:.2f} s (CPU {cpu['never']:.2f} s) -> references {ref_wall:.2f} s, "
      f"{fmt(rate(14 * launches, ref_wall))} M steps/s (CPU {ref_cpu:.2f} s, {fmt(rate(14 * launches, ref_cpu))} M steps/CPU-s)")
print()
print(f"{'family':22} {'policies':>8} {'run s':>6} {'family s':>9} {'M steps/s':>10} {'CPU s':>8} {'M steps/CPU-s':>14}  bar: ≥ 20 M steps/s")
families = []
for g, names in groups:
    n, steps = len(names), len(names) * launches
    reference = all(x in REFERENCES for x in names)
    label = "never" if g == "never" else f"family-{g}"
    if reference:  # replayed with (and no slower than) all 14 references: bounds, not measurements
        secs, csecs = ref_wall, ref_cpu
    else:
        secs, csecs = wall[label] - wall["never"], cpu[label] - cpu["never"]
    r, rc = rate(steps, secs), rate(steps, csecs)
    bar = None
    if g in ("fixed", "oracle"):
        bar = r is not None and r >= TARGET_RATE
    families.append({"family": g, "policies": names, "count": n, "steps": steps,
                     "run_seconds": wall[label], "run_cpu_seconds": cpu[label],
                     "runs_seconds": [x[0] for x in runs[label]], "runs_cpu_seconds": [x[2] for x in runs[label]],
                     "family_seconds": None if reference else secs, "family_cpu_seconds": None if reference else csecs,
                     "family_seconds_at_most": secs if reference else None,
                     "family_cpu_seconds_at_most": csecs if reference else None,
                     "steps_per_second": r, "steps_per_cpu_second": rc, "rates_are_lower_bounds": reference,
                     "bar_passed": bar})
    le = "≤ " if reference else ""
    bs = "" if bar is None else ("pass" + (" (lower bound)" if reference else "") if bar
                                 else ("not shown: only a lower bound" if reference else "FAIL"))
    print(f"{g:22} {n:>8} {wall[label]:>6.2f} {le + f'{secs:.2f}':>9} {fmt(r, reference):>10} "
          f"{le + f'{csecs:.2f}':>8} {fmt(rc, reference):>14}  {bs}")
t_full = wall["full"]
total_steps = replayed_full * launches
full_ok = t_full < TARGET_FULL_S
print(f"{'total (standard set)':22} {replayed_full:>8} {t_full:>6.2f} {t_full:>9.2f} {fmt(rate(total_steps, t_full)):>10} "
      f"{cpu['full']:>8.2f} {fmt(rate(total_steps, cpu['full'])):>14}  whole comparison < 60 s: {'pass' if full_ok else 'FAIL'}")
print(f"  without the read + set-up: {t_full - wall['load']:.2f} s, {fmt(rate(total_steps, t_full - wall['load']))} M steps/s")
ratio = peak["full"] / peak["half"]
bounded = ratio <= BOUNDED_RATIO
print()
print(f"peak RSS of the full comparison: {peak['full'] / 1024:.0f} MB at {users} users ({launches:,} evaluated launches, "
      f"{t_full:.1f} s), {peak['half'] / 1024:.0f} MB at {half} users ({launches_half:,}; {wall['half']:.1f} s): "
      f"ratio {ratio:.2f} -> {'bounded' if bounded else 'NOT bounded'} (≤ {BOUNDED_RATIO})")
print("every run, wall s: " + "; ".join(f"{k} " + " ".join(f"{x[0]:.2f}" for x in v) for k, v in runs.items()))

gen = {u: open(f"{work}/t-gen-{u}.txt").read().split() for u in (users, half)}
imp = {u: open(f"{work}/t-import-{u}.txt").read().split() for u in (users, half)}
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": {"start": load_start, "end": load_end},
    "users": users, "days": days, "repeats": repeats,
    "launches": all_launches, "evaluated_launches": launches, "evaluated_pairs": st["pairs"], "evaluated_pairs_sql": pairs_sql,
    "scored_launches": st["scored_launches"], "users_replayed": st["users"],
    "steps_definition": "launches of evaluated (user, app) pairs (whole log) x policies replayed",
    "targets": {"fixed_and_oracle_steps_per_second": TARGET_RATE, "full_seconds": TARGET_FULL_S,
                "peak_rss_ratio_full_to_half": BOUNDED_RATIO},
    "load_seconds": wall["load"], "load_cpu_seconds": cpu["load"],
    "never_seconds": wall["never"], "never_cpu_seconds": cpu["never"],
    "references": {"policies": REFERENCES, "seconds": ref_wall, "cpu_seconds": ref_cpu,
                   "steps_per_second": rate(14 * launches, ref_wall), "steps_per_cpu_second": rate(14 * launches, ref_cpu)},
    "families": families,
    "total": {"policies_replayed": replayed_full, "seconds": t_full, "cpu_seconds": cpu["full"],
              "runs_seconds": [x[0] for x in runs["full"]], "steps": total_steps,
              "steps_per_second": rate(total_steps, t_full), "steps_per_cpu_second": rate(total_steps, cpu["full"]),
              "steps_per_second_without_load": rate(total_steps, t_full - wall["load"]), "bar_passed": full_ok},
    "peak_rss_kb": {"full": peak["full"], "half": peak["half"], "by_run": peak},
    "half": {"users": half, "launches": all_half, "evaluated_launches": launches_half, "seconds": wall["half"],
             "pairs": half_json["settings"]["pairs"]},
    "memory_bounded": bounded,
    "median_seconds_by_run": wall, "median_cpu_seconds_by_run": cpu,
    "runs": {k: [{"seconds": x[0], "peak_rss_kb": x[1], "cpu_seconds": x[2]} for x in v] for k, v in runs.items()},
    "generate_seconds": {str(u): float(v[0]) for u, v in gen.items()},
    "import_seconds": {str(u): float(v[0]) for u, v in imp.items()},
}
json.dump(result, open(f"Benchmarks/results/replay-{users}x{days}.json", "w"), indent=2)
PY
