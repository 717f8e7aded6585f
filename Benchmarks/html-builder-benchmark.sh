#!/usr/bin/env bash
# Issue 24: a typed HTML builder (JohnSundell/Plot 0.14.0) against the report's string builder, on
# one section (the ranking table).
#
#   Benchmarks/html-builder-benchmark.sh [REPORTS] [RENDERS]      (defaults: 20 200)
#
# TRIAL (default: the trial commit named below) builds the ranking section with Plot and keeps the
# string version beside it; BASE (default: TRIAL's parent) is the report before the trial. Figures:
# - the section: HTMLBuilderTrialTests (FetchLabReportTests) at TRIAL with FETCHLAB_HTML_BENCH=RENDERS
#   renders both builders' ranking section RENDERS times on a sample-sized report (20 policies) and
#   the whole page once more per render; a debug build, as `swift test` builds. The test asserts only
#   that both sections are the same bytes.
# - the whole report: `fetchlab report` (release) on the sample's demo database, REPORTS runs of BASE's
#   binary and TRIAL's, alternating; the median wall time, the output's size, whether they are equal.
# - the build: release binary sizes; the compile time of the Plot module alone and of FetchLabReport
#   at BASE and at TRIAL (each rebuilt alone, its dependencies already built).
# Writes Benchmarks/results/html-builder.json.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
REPORTS=${1:-20}
RENDERS=${2:-200}
TRIAL=$(git rev-parse "${TRIAL:-210fef1}")
BASE=$(git rev-parse "${BASE:-$TRIAL^}")
WORK=${BENCH_DIR:-bench-out}/html-builder
mkdir -p "$WORK" Benchmarks/results
WORK=$(cd "$WORK" && pwd)
tree="$WORK/tree"
scratch="$WORK/build"  # kept: a second run builds incrementally
cleanup() { git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
git worktree add --detach "$tree" "$BASE" >/dev/null

seconds() { /usr/bin/time -f %e -o "$WORK/t.txt" "$@" >&2; cat "$WORK/t.txt"; }
cd "$tree"
swift build -c release --product fetchlab --scratch-path "$scratch" >&2
bin=$(swift build -c release --show-bin-path --scratch-path "$scratch")
rm -rf "$bin/FetchLabReport.build"
report_base=$(seconds swift build -c release --target FetchLabReport --scratch-path "$scratch")
swift build -c release --product fetchlab --scratch-path "$scratch" >&2
cp "$bin/fetchlab" "$WORK/fetchlab-base"

git checkout -q --detach "$TRIAL"
swift package resolve --scratch-path "$scratch" >&2
rm -rf "$bin/Plot.build" "$bin/FetchLabReport.build"
plot_module=$(seconds swift build -c release --target Plot --scratch-path "$scratch")
report_trial=$(seconds swift build -c release --target FetchLabReport --scratch-path "$scratch")
swift build -c release --product fetchlab --scratch-path "$scratch" >&2
cp "$bin/fetchlab" "$WORK/fetchlab-trial"

# The section, in a debug build: this checkout's own when it is TRIAL, else the scratch tree's.
if [ "$(git -C "$root" rev-parse HEAD)" = "$TRIAL" ] && git -C "$root" diff --quiet HEAD -- Sources Tests Package.swift; then
  section_dir=$root; section_scratch=$root/.build
else
  section_dir=$tree; section_scratch=$WORK/debug
fi
(cd "$section_dir" && FETCHLAB_HTML_BENCH=$RENDERS swift test --scratch-path "$section_scratch" \
  --filter HTMLBuilderTrialTests) > "$WORK/section.txt" 2>&1 || { cat "$WORK/section.txt" >&2; exit 1; }

# The whole report, on the sample.
rm -f "$WORK/sample.sqlite"*
"$WORK/fetchlab-base" demo --db "$WORK/sample.sqlite" > "$WORK/demo.txt"
: > "$WORK/t-base.txt"; : > "$WORK/t-trial.txt"
for _ in $(seq "$REPORTS"); do
  for kind in base trial; do
    rm -f "$WORK/report-$kind.html"  # report refuses an existing file (no --force in older builds)
    /usr/bin/time -f %e -a -o "$WORK/t-$kind.txt" "$WORK/fetchlab-$kind" report --db "$WORK/sample.sqlite" \
      --output "$WORK/report-$kind.html" > /dev/null
  done
done
cd "$root"
python3 - "$WORK" "$BASE" "$TRIAL" "$REPORTS" "$report_base" "$report_trial" "$plot_module" <<'PY'
import json, sys, datetime, platform, os, re, statistics
work, base, trial, reports = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
report_base, report_trial, plot_module = map(float, sys.argv[5:8])
line = next(l for l in open(f"{work}/section.txt") if "html-builder-section: " in l)
s = json.loads(line.split("html-builder-section: ", 1)[1])
wall = {k: statistics.median(float(x) for x in open(f"{work}/t-{k}.txt").read().split()) for k in ["base", "trial"]}
page = {k: open(f"{work}/report-{k}.html", "rb").read() for k in ["base", "trial"]}
size = {k: os.path.getsize(f"{work}/fetchlab-{k}") for k in ["base", "trial"]}
out = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    "base": base, "trial": trial,
    "section": {
        "what": "the ranking section (HTMLReport.ranking) on a sample-sized report, debug build",
        "renders": s["renders"], "rows": s["rows"],
        "seconds_per_render": {"before": s["strings_seconds"], "after": s["plot_seconds"]},
        "ratio": s["plot_seconds"] / s["strings_seconds"],
        "bytes": {"before": s["strings_bytes"], "after": s["plot_bytes"]},
        "page_seconds_per_render_with_plot_section": s["page_seconds_with_plot"],
        "section_share_of_page": s["plot_seconds"] / s["page_seconds_with_plot"],
    },
    "whole_report": {
        "what": f"fetchlab report (release) on the demo database of Datasets/sample, median of {reports} runs",
        "wall_seconds": {"before": wall["base"], "after": wall["trial"]},
        "ratio": wall["trial"] / wall["base"],
        "bytes": {"before": len(page["base"]), "after": len(page["trial"])},
        "identical": page["base"] == page["trial"],
    },
    "build": {
        "release_binary_bytes": {"before": size["base"], "after": size["trial"], "added": size["trial"] - size["base"]},
        "plot_module_compile_seconds": plot_module,
        "fetchlab_report_module_compile_seconds": {"before": report_base, "after": report_trial},
    },
}
json.dump(out, open("Benchmarks/results/html-builder.json", "w"), indent=2)
print(f"ranking section: {s['strings_seconds']*1e3:.2f} ms with strings, {s['plot_seconds']*1e3:.2f} ms with Plot "
      f"(x{out['section']['ratio']:.2f}), {s['strings_bytes']} vs {s['plot_bytes']} bytes (debug build)")
print(f"fetchlab report: {wall['base']:.3f} s before, {wall['trial']:.3f} s after; {len(page['base'])} vs "
      f"{len(page['trial'])} bytes, identical: {out['whole_report']['identical']}")
print(f"release binary +{size['trial'] - size['base']} bytes; Plot compiles in {plot_module:.1f} s; "
      f"FetchLabReport {report_base:.1f} s before, {report_trial:.1f} s after")
PY
