#!/usr/bin/env bash
# How long the README's set-up takes on this machine: `.ci/run` (the README's set-up and test
# command, as CI runs it) on a fresh clone of this repository's HEAD, with the first `swift build`
# (dependencies resolved, everything compiled), `fetchlab demo` (the README's main command, after
# that build) and `swift test` (the README's test command) each timed by the wall clock. The README
# links to what it writes instead of quoting it.
#
#   Benchmarks/setup-times.sh     writes Benchmarks/results/setup-times.json and setup-times.md
#
# It takes as long as the whole CI run (over an hour on 2 shared cores); the machine's load at the
# time is recorded beside the figures (`/proc/loadavg`'s 1-minute load before each step). The whole
# CI log is kept in $SETUP_TIMES_LOG (default /tmp/setup-times-ci.log), also when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
log=${SETUP_TIMES_LOG:-/tmp/setup-times-ci.log}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
commit=$(git -C "$work/clone" rev-parse --short HEAD)
echo "setup-times: .ci/run on a fresh clone of $commit (log: $log)…" >&2
rc=0
(cd "$work/clone" && FETCHLAB_STEP_TIMES="$work/times" .ci/run) > "$log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
  echo "setup-times: .ci/run failed (exit $rc); the last lines of $log:" >&2
  tail -n 40 "$log" >&2
  grep -n -B2 -A6 'recorded an issue' "$log" | head -80 >&2 || true
  exit "$rc"
fi
tests=$(grep -Eo 'Test run with [0-9]+ tests' "$log" | grep -Eo '[0-9]+' | tail -1 || true)
python3 - "$commit" "$(nproc)" "${tests:-0}" "$work/times" <<'PY'
import json, sys
commit, cores, tests, times = sys.argv[1:]
rows = {}
for line in open(times):
    name, seconds, load, rc = line.split()
    rows[name] = {"seconds": float(seconds), "load_before": None if load == "null" else float(load), "exit": int(rc)}
labels = [
    ("build", "swift build (first, from a fresh clone)"),
    ("demo", "fetchlab demo (after that build)"),
    ("test", f"swift test ({tests} tests)"),
]
json.dump({"commit": commit, "cores": int(cores), "tests": int(tests), "steps": rows},
          open("Benchmarks/results/setup-times.json", "w"), indent=2)
with open("Benchmarks/results/setup-times.md", "w") as md:
    md.write(f"# How long the set-up takes\n\nWritten by `Benchmarks/setup-times.sh`: `.ci/run` on a fresh clone "
             f"(commit {commit}, {cores} cores, debug build, the machine shared with other work).\n\n")
    md.write("| step | wall clock | load before | exit |\n|---|---:|---:|---:|\n")
    for key, label in labels:
        r = rows[key]
        m, sec = divmod(r["seconds"], 60)
        md.write(f"| `{label}` | {int(m)} min {sec:.0f} s | {r['load_before']} | {r['exit']} |\n")
print(open("Benchmarks/results/setup-times.md").read(), end="")
PY
