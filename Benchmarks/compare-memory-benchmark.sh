#!/usr/bin/env bash
# What `fetchlab compare` holds as the population grows (issue 27): the standard set replayed over
# a quarter, a half and all of a database's users (`--shard 1/4`, `1/2`, the whole), each timed
# with its peak memory, and the peak fitted as a line in the users replayed: its slope (kB a user)
# is what a comparison of a larger fleet grows by, its intercept what the replay in flight holds.
#
#   Benchmarks/compare-memory-benchmark.sh DB [NAME]      (NAME from DB's folder by default)
#
# POLICIES=LIST replays those policies instead of the standard set (`--policies never` leaves
# little in flight, so the peak is mostly what the run keeps per user). Release build. With
# BASE_BIN=path/to/an/older/fetchlab, that build is measured in the same run,
# each of its compares right after the same compare of this build (the machine is shared, so the
# two are compared as a ratio), and the two builds' reports must be the same JSON apart from the
# run id and timings. Results go to Benchmarks/results/compare-memory-NAME.json with the commits
# measured; the load average is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
DB=$1
NAME=${2:-$(basename "$(dirname "$DB")")}
WORK=${BENCH_DIR:-bench-out}/compare-memory-$NAME
rm -rf "$WORK"
mkdir -p "$WORK" Benchmarks/results
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo "+changes")
BASE_BIN=${BASE_BIN:-}

source "$(dirname "$0")/stage.sh"
BASE_COMMIT=$(base_commit)

echo "compare memory benchmark: $DB, in $WORK" >&2
for n in 4 2 1; do
  stage "new-$n" "$BIN" compare --db "$DB" --shard "1/$n" --no-store --format json ${POLICIES:+--policies "$POLICIES"}
  if [ -n "$BASE_BIN" ]; then
    stage "base-$n" "$BASE_BIN" compare --db "$DB" --shard "1/$n" --no-store --format json ${POLICIES:+--policies "$POLICIES"}
  fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$NAME" "$COMMIT" "$DB" "$LOAD_START" "$LOAD_END" "$BASE_COMMIT" "${POLICIES:-standard set}" <<'PY'
import datetime, json, os, platform, sys
sys.path.insert(0, "Benchmarks")
from stage_results import memory_fit, strip, timed
work, name, commit, db = sys.argv[1:5]
load = sys.argv[5:7]
base_commit = sys.argv[7]
policies = sys.argv[8]
builds = ["new"] + (["base"] if base_commit else [])
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": load, "database": db,
    "policies": policies,
}
reports = {}
for build in builds:
    runs = []
    for n in (4, 2, 1):
        report = json.load(open(f"{work}/out-{build}-{n}.txt"))
        reports[(build, n)] = strip(report)
        runs.append({"shard": f"1/{n}", "users": report["settings"]["users"], **timed(work, f"{build}-{n}")})
    result[build] = {"commit": commit if build == "new" else base_commit, "runs": runs, "memory_fit": memory_fit([r["users"] for r in runs], [r["peak_rss_kb"] for r in runs], "compare")}
if base_commit:
    for n in (4, 2, 1):
        if reports[("new", n)] != reports[("base", n)]:
            sys.exit(f"compare-memory-benchmark: the two builds' reports differ on shard 1/{n}")
    result["same_reports"] = True
    whole = {b: result[b]["runs"][-1] for b in builds}
    result["whole_new_over_base"] = {
        k: round(whole["new"][k] / whole["base"][k], 3) for k in ("wall_seconds", "cpu_seconds", "peak_rss_kb")}
out = f"Benchmarks/results/compare-memory-{name}.json"
json.dump(result, open(out, "w"), indent=2)
open(out, "a").write("\n")
print(f"{db}; load {load[0]} -> {load[1]}")
for build in builds:
    f = result[build]["memory_fit"]
    for r in result[build]["runs"]:
        print(f"  {build} ({result[build]['commit']}) {r['shard']:>4}: {r['users']:>7} users, {r['wall_seconds']:7.1f} s, "
              f"{r['cpu_seconds']:7.1f} CPU s, {r['peak_rss_kb'] / 1024:6.0f} MB")
    print(f"  {build}: {f['kb_per_user']:.1f} kB a user + {f['intercept_mb']:.0f} MB")
print(f"written to {out}")
PY
