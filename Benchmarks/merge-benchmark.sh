#!/usr/bin/env bash
# What `fetchlab merge` holds as the merged population grows (issue 27): a database's users
# sharded into partials, then merges of more and more of them, each timed with its peak memory.
#
#   Benchmarks/merge-benchmark.sh DB [SHARDS] [NAME]      (defaults: 10 shards; NAME from DB's folder)
#
# Release build. Each shard I of SHARDS is replayed with `fetchlab compare --shard I/SHARDS
# --partial` (the standard set; its time and peak recorded), then `fetchlab merge` (no --db, JSON)
# combines the first 1, 2, … SHARDS partials. The merge's memory is fitted as a line in the users
# merged: its slope (kB a user) is what a merge of a larger fleet grows by, its intercept what one
# partial's header (every app's sums) costs. The merge of all the partials is checked against
# the merge of the same partials in reverse order (the same JSON). With BASE_BIN=an/older/fetchlab,
# that build merges the same partials right after each merge (its fit beside this build's, and the
# same JSON required). Results go to
# Benchmarks/results/merge-NAME.json with the commit measured. The machine is shared: the load
# average is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
DB=$1
SHARDS=${2:-10}
NAME=${3:-$(basename "$(dirname "$DB")")}
WORK=${BENCH_DIR:-bench-out}/merge-$NAME
rm -rf "$WORK"
mkdir -p "$WORK" Benchmarks/results
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo "+changes")

source "$(dirname "$0")/stage.sh"

echo "merge benchmark: $DB in $SHARDS shards, in $WORK" >&2
PARTIALS=()
BASE_PARTIALS=()
for i in $(seq 1 "$SHARDS"); do
  PARTIALS+=("$WORK/shard-$i-of-$SHARDS.partial")
  stage "shard-$i" "$BIN" compare --db "$DB" --shard "$i/$SHARDS" --partial "${PARTIALS[-1]}" --force --no-store --format csv
  if [ -n "${BASE_BIN:-}" ]; then
    BASE_PARTIALS+=("$WORK/base-shard-$i-of-$SHARDS.partial")
    stage "base-shard-$i" "$BASE_BIN" compare --db "$DB" --shard "$i/$SHARDS" --partial "${BASE_PARTIALS[-1]}" --force --no-store --format csv
  fi
done
for k in $(seq 1 "$SHARDS"); do
  stage "merge-$k" "$BIN" merge "${PARTIALS[@]:0:$k}" --format json --no-store
  if [ -n "${BASE_BIN:-}" ]; then
    stage "base-merge-$k" "$BASE_BIN" merge "${BASE_PARTIALS[@]:0:$k}" --format json --no-store
  fi
done
REVERSED=()
for ((i = SHARDS - 1; i >= 0; i--)); do REVERSED+=("${PARTIALS[$i]}"); done
stage merge-reversed "$BIN" merge "${REVERSED[@]}" --format json --no-store
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

BASE_COMMIT=${BASE_COMMIT:-$(base_commit)}

python3 - "$WORK" "$SHARDS" "$NAME" "$COMMIT" "$DB" "$LOAD_START" "$LOAD_END" "$BASE_COMMIT" <<'PY'
import datetime, json, os, platform, sys
sys.path.insert(0, "Benchmarks")
from stage_results import memory_fit, same_but_intervals, strip, timed
work, shards, name, commit, db = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
load = sys.argv[6:8]
base_commit = sys.argv[8]
merges = []
for k in range(1, shards + 1):
    report = json.load(open(f"{work}/out-merge-{k}.txt"))
    size = sum(os.path.getsize(f"{work}/shard-{i}-of-{shards}.partial") for i in range(1, k + 1))
    merges.append({"partials": k, "users": report["settings"]["users"], "partial_bytes": size, **timed(work, f"merge-{k}")})
last = json.load(open(f"{work}/out-merge-{shards}.txt"))
reversed_ = json.load(open(f"{work}/out-merge-reversed.txt"))
if strip(last) != strip(reversed_):
    sys.exit("merge-benchmark: merging the partials in reverse order gave another report")
fit = memory_fit([m["users"] for m in merges], [m["peak_rss_kb"] for m in merges], "merge")
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "commit": commit, "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": load,
    "database": db, "shards": shards,
    "shard_compares": [{"shard": f"{i}/{shards}", **timed(work, f"shard-{i}")} for i in range(1, shards + 1)],
    "merges": merges,
    "merge_memory_fit": fit,
    "reversed_order_identical": True,
}
if base_commit:
    base = [{"partials": k, "users": merges[k - 1]["users"],
             "partial_bytes": sum(os.path.getsize(f"{work}/base-shard-{i}-of-{shards}.partial") for i in range(1, k + 1)),
             **timed(work, f"base-merge-{k}")} for k in range(1, shards + 1)]
    close = 0
    for k in range(1, shards + 1):
        problem, n = same_but_intervals(strip(json.load(open(f"{work}/out-base-merge-{k}.txt"))),
                                        strip(json.load(open(f"{work}/out-merge-{k}.txt"))))
        if problem:
            sys.exit(f"merge-benchmark: the base build's merge of {k} partials gave another report: {problem}")
        close = max(close, n)
    result["base_shard_compares"] = [{"shard": f"{i}/{shards}", **timed(work, f"base-shard-{i}")} for i in range(1, shards + 1)]
    result["base"] = {"commit": base_commit, "merges": base,
                      "merge_memory_fit": memory_fit([m["users"] for m in base], [m["peak_rss_kb"] for m in base], "merge"),
                      "same_reports_but_intervals": True, "last_digit_differences": close}
out = f"Benchmarks/results/merge-{name}.json"
json.dump(result, open(out, "w"), indent=2)
open(out, "a").write("\n")
print(f"{db}: {shards} shards; load {load[0]} -> {load[1]}; commit {commit}")
for m in merges:
    print(f"  merge of {m['partials']:>3} partials, {m['users']:>7} users: {m['wall_seconds']:7.1f} s, {m['peak_rss_kb'] / 1024:7.0f} MB")
print(f"merge memory: {fit['kb_per_user']:.1f} kB a user + {fit['intercept_mb']:.0f} MB; written to {out}")
if base_commit:
    b = result["base"]["merge_memory_fit"]
    print(f"base build {base_commit}: {b['kb_per_user']:.1f} kB a user + {b['intercept_mb']:.0f} MB")
    for m, bm in zip(merges, result["base"]["merges"]):
        print(f"  {m['partials']:>3} partials: {m['wall_seconds'] / bm['wall_seconds']:.2f}x the base's merge time, "
              f"{m['partial_bytes'] / bm['partial_bytes']:.2f}x its partial bytes")
PY
