#!/usr/bin/env bash
# What a partial costs per user (issue 47, item 4): for each population size, one unsharded
# `compare --partial` (the standard set) and a `merge` of that partial, each timed with its peak
# memory; the partial's bytes, and per user its bytes, replay CPU seconds and merge seconds (what
# the 10-million-user estimate in Docs/fleet.md multiplies).
#
#   Benchmarks/partial-size-benchmark.sh [USERS...]     (default: 1000 10000; DAYS=14 by default)
#
# Release build; populations generated with seed 1 and imported into $BENCH_DIR (bench-out).
# With BASE_BIN=an/older/fetchlab, that build compares and merges the same database in the same
# run (its own partials: an older build reads only its own format), and the two merged reports
# must agree apart from their bootstrap intervals (numbers equal, or within 10⁻⁹ relative: the
# count of such last-digit differences is recorded). Results go to
# Benchmarks/results/partial-size-DAYSd.json with the commit measured and the load average.
set -euo pipefail
cd "$(dirname "$0")/.."
DAYS=${DAYS:-14}
USERS=("$@")
[ ${#USERS[@]} -gt 0 ] || USERS=(1000 10000)
WORK=${BENCH_DIR:-bench-out}/partial-size
rm -rf "$WORK"
mkdir -p "$WORK" Benchmarks/results
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
source "$(dirname "$0")/population.sh"
source "$(dirname "$0")/stage.sh"
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo "+changes")
BASE_COMMIT=${BASE_COMMIT:-$(base_commit)}

for u in "${USERS[@]}"; do
  echo "partial-size benchmark: $u users x $DAYS days" >&2
  db=$(prepare_population partial "$u" "$DAYS")
  stage "compare-$u" "$BIN" compare --db "$db" --partial "$WORK/new-$u.partial" --force --no-store --format csv
  stage "merge-$u" "$BIN" merge "$WORK/new-$u.partial" --format json --no-store
  if [ -n "${BASE_BIN:-}" ]; then
    stage "base-compare-$u" "$BASE_BIN" compare --db "$db" --partial "$WORK/base-$u.partial" --force --no-store --format csv
    stage "base-merge-$u" "$BASE_BIN" merge "$WORK/base-$u.partial" --format json --no-store
  fi
  rm -f "$db" "$db"-*
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$DAYS" "$COMMIT" "$BASE_COMMIT" "$LOAD_START" "$LOAD_END" "${USERS[@]}" <<'PY'
import datetime, json, os, platform, sys
sys.path.insert(0, "Benchmarks")
from stage_results import same_but_intervals, strip, timed
work, days, commit, base_commit, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:7]
sizes = [int(u) for u in sys.argv[7:]]

def build(prefix, tag, u):
    report = json.load(open(f"{work}/out-{prefix}merge-{u}.txt"))
    users = report["settings"]["users"]
    size = os.path.getsize(f"{work}/{tag}-{u}.partial")
    compare, merge = timed(work, f"{prefix}compare-{u}"), timed(work, f"{prefix}merge-{u}")
    return {"users": users, "partial_bytes": size, "partial_bytes_per_user": round(size / users, 1),
            "compare": compare, "compare_cpu_seconds_per_user": round(compare["cpu_seconds"] / users, 4),
            "merge": merge, "merge_seconds_per_user": round(merge["wall_seconds"] / users, 6)}, report

runs, base_runs = [], []
for u in sizes:
    run, report = build("", "new", u)
    if base_commit:
        base, base_report = build("base-", "base", u)
        problem, close = same_but_intervals(strip(base_report), strip(report))
        if problem:
            sys.exit(f"partial-size-benchmark: {u} users: the base build's report differs: {problem}")
        run["same_as_base_but_intervals"] = True
        run["last_digit_differences"] = close
        run["partial_bytes_vs_base"] = round(run["partial_bytes"] / base["partial_bytes"], 3)
        base_runs.append(base)
    runs.append(run)
first, last = runs[0], runs[-1]
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "commit": commit, "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": load,
    "days": days, "policies": "the standard set", "runs": runs,
    "partial_growth": {"users_ratio": round(last["users"] / first["users"], 2),
                       "bytes_ratio": round(last["partial_bytes"] / first["partial_bytes"], 2)},
}
if base_commit:
    result["base"] = {"commit": base_commit, "runs": base_runs,
                      "bytes_ratio": round(base_runs[-1]["partial_bytes"] / base_runs[0]["partial_bytes"], 2)}
out = f"Benchmarks/results/partial-size-{days}d.json"
json.dump(result, open(out, "w"), indent=2)
open(out, "a").write("\n")
print(f"partial size, {days} days; load {load[0]} -> {load[1]}; commit {commit}")
for i, r in enumerate(runs):
    line = (f"  {r['users']:>7} users: partial {r['partial_bytes'] / 1e6:8.2f} MB ({r['partial_bytes_per_user']:8.1f} B a user), "
            f"compare {r['compare']['cpu_seconds']:7.1f} CPU s, merge {r['merge']['wall_seconds']:6.2f} s / {r['merge']['peak_rss_kb'] / 1024:5.0f} MB")
    if base_commit:
        b = base_runs[i]
        line += f"; base {b['partial_bytes'] / 1e6:.2f} MB, merge {b['merge']['wall_seconds']:.2f} s (x{r['partial_bytes_vs_base']} bytes)"
    print(line)
print(f"partial bytes x{result['partial_growth']['bytes_ratio']} for users x{result['partial_growth']['users_ratio']}; written to {out}")
PY
