#!/usr/bin/env bash
# How long the README's set-up takes on this machine: a fresh clone of this repository's HEAD, then
# the first `swift build` (dependencies resolved, everything compiled), `swift run fetchlab demo`
# (the README's main command, after that build) and `swift test` (the README's test command), each
# timed by the wall clock. The README links to what it writes instead of quoting it.
#
#   Benchmarks/setup-times.sh     writes Benchmarks/results/setup-times.json and setup-times.md
#
# It takes as long as all three (about an hour on 2 shared cores); the machine's load at the time
# is recorded beside the figures (`uptime`'s 1-minute load before each step). Each step's whole log
# is kept in $SETUP_TIMES_LOGS (default /tmp/setup-times-logs), also when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
logs=${SETUP_TIMES_LOGS:-/tmp/setup-times-logs}
mkdir -p "$logs"
trap 'cp "$work"/*.log "$logs"/ 2>/dev/null || true; rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone"
commit=$(git rev-parse --short HEAD)

step() { # name, command...: prints "seconds load exit"
  local name=$1; shift
  local load start end rc
  load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "")
  echo "setup-times: $name…" >&2
  start=$(date +%s.%N)
  set +e
  "$@" > "$work/$name.log" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  echo "$(python3 -c "print(round($end - $start, 1))") ${load:-null} $rc"
}

read -r build_s build_load build_rc < <(step build swift build)
read -r demo_s demo_load demo_rc < <(step demo swift run fetchlab demo)
read -r test_s test_load test_rc < <(step test swift test)
tests=$(grep -Eo 'Test run with [0-9]+ tests' "$work/test.log" | grep -Eo '[0-9]+' | tail -1 || true)

cd "$repo"
python3 - "$commit" "$(nproc)" "$build_s" "$build_load" "$build_rc" "$demo_s" "$demo_load" "$demo_rc" \
  "$test_s" "$test_load" "$test_rc" "${tests:-0}" <<'PY'
import json, sys
commit, cores, bs, bl, brc, ds, dl, drc, ts, tl, trc, tests = sys.argv[1:]
steps = [
    ("swift build (first, from a fresh clone)", "build", bs, bl, brc),
    ("swift run fetchlab demo (after that build)", "demo", ds, dl, drc),
    (f"swift test ({tests} tests)", "test", ts, tl, trc),
]
result = {
    "commit": commit, "cores": int(cores),
    "steps": {key: {"seconds": float(s), "load_before": (float(l) if l != "null" else None), "exit": int(rc)}
              for _, key, s, l, rc in steps},
    "tests": int(tests),
}
json.dump(result, open("Benchmarks/results/setup-times.json", "w"), indent=2)
with open("Benchmarks/results/setup-times.md", "w") as md:
    md.write(f"# How long the set-up takes\n\nWritten by `Benchmarks/setup-times.sh` (commit {commit}, {cores} cores, "
             "a fresh clone, debug build, the machine shared with other work).\n\n")
    md.write("| step | wall clock | load before | exit |\n|---|---:|---:|---:|\n")
    for label, key, s, l, rc in steps:
        m, sec = divmod(float(s), 60)
        md.write(f"| `{label}` | {int(m)} min {sec:.0f} s | {l} | {rc} |\n")
print(open("Benchmarks/results/setup-times.md").read(), end="")
PY
if [ "$test_rc" != 0 ]; then
  grep -n -B2 -A6 'recorded an issue' "$work/test.log" | head -80 >&2 || true
fi
echo "setup-times: the steps' logs are in $logs" >&2
[ "$build_rc" = 0 ] && [ "$demo_rc" = 0 ] && [ "$test_rc" = 0 ]
