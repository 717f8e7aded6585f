#!/usr/bin/env bash
# Fleet scale on one machine (issue 27): every stage from gzip'd logs to the comparison report,
# timed, with its peak memory, for one population size.
#
#   Benchmarks/fleet-benchmark.sh [USERS] [DAYS]      (defaults: 10000 90)
#
# Stages (release build, /usr/bin/time each; the population is generated with seed 1 into
# $BENCH_DIR, default bench-out/, gitignored, and removed afterwards):
#   generate  `fetchlab generate --users USERS --days DAYS --seed 1` (gzip'd usage, context and
#             content logs; not part of the end-to-end figure: a fleet already has its logs)
#   import    `fetchlab import` of the gzip'd logs into a fresh database
#   compare   `fetchlab compare --format json` with the standard set (the run is stored)
#   report    `fetchlab report` (the HTML report of the stored run)
#   tune      `fetchlab tune --family predictive` (the default 12-setting grid)
# Each stage's wall time, CPU time (user + system), peak RSS, and the end to end wall time from
# the gzip'd logs to the report (import + compare + report) go to
# Benchmarks/results/fleet-USERSxDAYS.json. Issue 27's targets on this 2-core machine: 100,000
# users x 90 days from the logs to the report in under 15 minutes, peak memory under 2 GB at any
# size, the 12-setting grid over 10,000 x 90 in under 2 minutes. With two or more sizes measured,
# the script also states how the stages' costs grow with the users (the exponent of a power law
# fitted through the sizes measured with the same DAYS by the same build: the commit, recorded in
# each results file, "-dirty" when the sources differ from it). SKIP_TUNE=1 leaves out the tune stage.
# COMPARE_SHARD=I/N replays only shard I of N of the users in the compare stage (`compare --shard`:
# the users whose stable hash falls in it, a random sample), for a size whose whole comparison
# would take hours: the file then records the shard, and the whole comparison and the logs to the
# report as N times the shard's, labelled estimates (the replay's cost is linear in the users);
# such a size gives the growth fit its import, not its compare.
# The machine is shared: the load average is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-10000}
DAYS=${2:-90}
WORK=${BENCH_DIR:-bench-out}/fleet-$USERS-$DAYS
rm -rf "$WORK"
mkdir -p "$WORK" Benchmarks/results
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- Sources Package.swift 2>/dev/null || COMMIT="$COMMIT-dirty"
swift build -c release --product fetchlab >&2
BIN=$(swift build -c release --show-bin-path)/fetchlab
DB="$WORK/fleet.sqlite"

source "$(dirname "$0")/stage.sh"

echo "fleet benchmark: $USERS users x $DAYS days in $WORK" >&2
stage generate "$BIN" generate --users "$USERS" --days "$DAYS" --seed 1 --output "$WORK/logs"
LOG_BYTES=$(du -cb "$WORK"/logs/*.csv.gz | tail -n 1 | cut -f1)
stage import "$BIN" import --db "$DB" "$WORK"/logs/*.csv.gz
stage compare "$BIN" compare --db "$DB" --format json ${COMPARE_SHARD:+--shard "$COMPARE_SHARD"}
stage report "$BIN" report --db "$DB" --output "$WORK/report.html"
STAGES=(generate import compare report)
if [ -z "${SKIP_TUNE:-}" ]; then
  stage tune "$BIN" tune --db "$DB" --family predictive --format json
  STAGES+=(tune)
fi
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$USERS" "$DAYS" "$LOG_BYTES" "$LOAD_START" "$LOAD_END" "$COMMIT" "${COMPARE_SHARD:-}" "${STAGES[@]}" <<'PY'
import datetime, glob, json, math, os, platform, sys
work, users, days, log_bytes, load_start, load_end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
commit = sys.argv[7]
shard = sys.argv[8]
shards = int(shard.split("/")[1]) if shard else 1
stages = {}
for name in sys.argv[9:]:
    wall, user, system, kb = open(f"{work}/time-{name}.txt").read().split()[-4:]
    stages[name] = {"wall_seconds": float(wall), "cpu_seconds": round(float(user) + float(system), 2), "peak_rss_kb": int(kb)}
compare = json.load(open(f"{work}/out-compare.txt"))
s = compare["settings"]
# The whole comparison's wall time: the stage's, or N times one shard's (an estimate).
compare_wall = stages["compare"]["wall_seconds"] * shards
end_to_end = stages["import"]["wall_seconds"] + compare_wall + stages["report"]["wall_seconds"]
peak = max(r["peak_rss_kb"] for r in stages.values())
result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "commit": commit,
    "machine": f"{platform.machine()}, {os.cpu_count()} cores", "load_average": [load_start, load_end],
    "users": users, "days": days, "gzip_log_bytes": log_bytes,
    "replayed_users": s["users"], "pairs": s["pairs"], "scored_launches": s["scored_launches"],
    "policies": len(compare["policies"]), "stages": stages,
}
if shard:
    # The compare stage replayed one shard: the whole comparison is estimated as N shards.
    result["compare_shard"] = shard
    result["estimated"] = {
        "how": f"compare of shard {shard} times {shards} (the replay's cost is linear in the users)",
        "compare_wall_seconds": round(compare_wall, 1),
        "compare_cpu_seconds": round(stages["compare"]["cpu_seconds"] * shards, 1),
        "end_to_end_seconds": round(end_to_end, 1),
    }
    result["peak_rss_kb_measured_stages"] = peak
else:
    result["end_to_end_seconds"] = round(end_to_end, 2)
    result["peak_rss_kb"] = peak
print(f"population {users} users x {days} days ({log_bytes / 1e6:.0f} MB of gzip'd logs; {s['users']} users replayed"
      + (f" (compare shard {shard})" if shard else "")
      + f", {s['pairs']} pairs, {s['scored_launches']:,} scored launches, {len(compare['policies'])} policies); "
      f"load {load_start} -> {load_end}")
print(f"{'stage':10s} {'wall s':>9s} {'CPU s':>9s} {'peak MB':>8s}")
for name, r in stages.items():
    print(f"{name:10s} {r['wall_seconds']:9.1f} {r['cpu_seconds']:9.1f} {r['peak_rss_kb'] / 1024:8.0f}")
if shard:
    print(f"logs to report, estimated with the whole comparison as {shards} x shard {shard}: {end_to_end:.1f} s "
          f"(target at 100,000 x 90: under 900 s); peak RSS of the stages run {peak / 1024:.0f} MB")
else:
    print(f"logs to report (import + compare + report): {end_to_end:.1f} s; peak RSS {peak / 1024:.0f} MB "
          f"(targets at 100,000 x 90: under 900 s; under 2,048 MB at any size)")
if "tune" in stages:
    t = stages["tune"]["wall_seconds"]
    verdict = ("passed" if t < 120 else "not met") if (users, days) == (10000, 90) else "not this size"
    print(f"tune, 12-setting grid: {t:.1f} s (target at 10,000 x 90: under 120 s: {verdict})")
out = f"Benchmarks/results/fleet-{users}x{days}.json"
json.dump(result, open(out, "w"), indent=2)
# How the costs grow with the users: a power law through every size measured with these days by
# this build (another build's times would bend the fit).
sizes = []
for path in glob.glob(f"Benchmarks/results/fleet-*x{days}.json"):
    r = json.load(open(path))
    if r.get("days") == days and r.get("commit") == commit and not commit.startswith("unknown"):
        sizes.append(r)
sizes.sort(key=lambda r: r["users"])
if len(sizes) >= 2:
    growth = {}
    for name in ("import", "compare", "report", "tune"):
        # A size whose compare replayed one shard (or whose report read that shard's run) says
        # nothing of the whole comparison's growth.
        fitted = [r for r in sizes if not (r.get("compare_shard") and name in ("compare", "report"))]
        ys = [r["stages"].get(name, {}).get("cpu_seconds") for r in fitted]
        if len(fitted) >= 2 and all(y and y > 0 for y in ys):
            xs = [math.log(r["users"]) for r in fitted]
            ly = [math.log(y) for y in ys]
            mx, my = sum(xs) / len(xs), sum(ly) / len(ly)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ly)) / sum((x - mx) ** 2 for x in xs)
            growth[name] = round(slope, 3)
    summary = {"days": days, "commit": commit, "users_measured": [r["users"] for r in sizes],
               "cpu_exponent_in_users": growth}
    json.dump(summary, open(f"Benchmarks/results/fleet-growth-{days}d.json", "w"), indent=2)
    print(f"CPU time ~ users^k over {', '.join(str(r['users']) for r in sizes)} users: "
          + ", ".join(f"{n} k = {k:.2f}" for n, k in growth.items()) + " (1: linear)")
print(f"written to {out}")
PY
rm -rf "$WORK/logs"
