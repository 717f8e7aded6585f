#!/usr/bin/env bash
# The learned family's figures (issue 26) and its replay speed against predictive's.
#
#   Benchmarks/learned-benchmark.sh [DEV_DIR]     (default: ../shared/datasets/dev)
#
# Imports the dev foreground logs (no options) and the bundled sample into fresh databases, runs
# `compare --format json --no-store` (the standard set: launch refreshes on, τ 15 min,
# --platform none) on each, and writes Benchmarks/results/learned.json: per dataset, the learned
# families' share of the possible gain at each standard budget (budget_curve), each learned
# policy's fetches/app/day and its reliability bins with at least 30 fetches, and the best other
# causal family at each budget (and the same as tables in Benchmarks/results/learned.md). Speed: one run of `compare --timings --policies
# 'learned(2),predictive(15m,0.3)'` on the sample (REPEATS runs, default 3; the CPU seconds each
# policy took, medians; release build). The machine is shared: the load average is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=${1:-../shared/datasets/dev}
REPEATS=${REPEATS:-3}
WORK=${BENCH_DIR:-bench-out}/learned
mkdir -p "$WORK" Benchmarks/results
swift build -c release --product fetchlab >/dev/null
BIN=$(swift build -c release --show-bin-path)/fetchlab
rm -f "$WORK/dev.db" "$WORK/sample.db"
"$BIN" import "$DEV"/foreground-*.csv.gz --db "$WORK/dev.db" >/dev/null 2>&1
"$BIN" import Datasets/sample/usage.csv.gz Datasets/sample/context.csv.gz Datasets/sample/content.csv.gz \
  --db "$WORK/sample.db" >/dev/null 2>&1
"$BIN" compare --db "$WORK/dev.db" --format json --no-store >"$WORK/dev.json" 2>/dev/null
"$BIN" compare --db "$WORK/sample.db" --format json --no-store >"$WORK/sample.json" 2>/dev/null
for r in $(seq 1 "$REPEATS"); do
  "$BIN" compare --db "$WORK/sample.db" --format json --no-store --timings \
    --policies 'learned(2),predictive(15m,0.3)' >/dev/null 2>"$WORK/timings-$r.txt"
done
python3 - "$WORK" "$REPEATS" <<'EOF'
import json, os, re, statistics, sys
work, repeats = sys.argv[1], int(sys.argv[2])
out = {"load_average": os.getloadavg(), "datasets": {}}
for name in ("dev", "sample"):
    d = json.load(open(f"{work}/{name}.json"))
    curve = []
    for row in d["budget_curve"]:
        fams = row["families"]
        others = {f: x.get("share_of_possible") for f, x in fams.items()
                  if not f.startswith("learned") and "oracle" not in f and x.get("share_of_possible") is not None}
        best = max(others.items(), key=lambda kv: kv[1]) if others else (None, None)
        curve.append({
            "budget": row["budget"], "bound": row["bound"], "fixed": row.get("fixed"),
            "learned_share": fams.get("learned", {}).get("share_of_possible"),
            "learned_cost_aware_share": fams.get("learned-cost-aware", {}).get("share_of_possible"),
            "best_other_family": best[0], "best_other_share": best[1],
        })
    policies = []
    for p in d["policies"]:
        if not p["family"].startswith("learned"):
            continue
        m = p["metrics"]
        bins = [{"mean_stated": b["mean_stated"], "observed": b["observed"], "count": b["count"]}
                for b in (m.get("reliability") or {}).get("bins", []) if b["count"] >= 30]
        policies.append({"name": p["name"], "fetches_per_app_day": m["fetches_per_app_day"],
                         "fresh_15m": m["fresh_15m"],
                         "max_gap_30": max((abs(b["mean_stated"] - b["observed"]) for b in bins), default=None),
                         "bins": bins})
    out["datasets"][name] = {"budget_curve": curve, "policies": policies}
seconds = {"learned": [], "predictive": []}
for r in range(1, repeats + 1):
    for line in open(f"{work}/timings-{r}.txt"):
        m = re.match(r"\s*(learned|predictive): 1 policy, ([0-9.]+) s", line)
        if m:
            seconds[m.group(1)].append(float(m.group(2)))
med = {k: statistics.median(v) for k, v in seconds.items() if v}
out["speed"] = {"cpu_seconds_median": med,
                "learned_rate_vs_predictive": med["predictive"] / med["learned"] if len(med) == 2 else None}
json.dump(out, open("Benchmarks/results/learned.json", "w"), indent=1)
# The same figures as tables, for the documentation to link to.
f = lambda x, d=3: "–" if x is None else f"{x:.{d}f}"
md = ["# The learned family, measured (written by Benchmarks/learned-benchmark.sh)", "",
      "Launch refreshes on, τ = 15 min, `--platform none`, the standard set; share of the possible gain "
      "from `budget_curve`. Issue 26's bars on the dev logs: ≥ .18 at 1, ≥ .14 at 2, ≥ .27 at 5, ≥ .40 at 10; "
      "spend within ±15 % of B at 1, 2, 5; every reliability bin with ≥ 30 fetches within 0.05.", ""]
for name, ds in out["datasets"].items():
    curve = ds["budget_curve"]
    md += [f"## {name}", "", "| | " + " | ".join(f"{r['budget']:g}" for r in curve) + " |",
           "|---|" + "---|" * len(curve),
           "| `learned` share | " + " | ".join(f(r["learned_share"]) for r in curve) + " |",
           "| `learned-cost-aware` share | " + " | ".join(f(r["learned_cost_aware_share"]) for r in curve) + " |",
           "| best other causal family | " + " | ".join(f"{f(r['best_other_share'])} ({r['best_other_family']})" for r in curve) + " |",
           "| bound (fresh) | " + " | ".join(f(r["bound"]) for r in curve) + " |",
           "| best fixed interval (fresh) | " + " | ".join(f(r["fixed"]) for r in curve) + " |", "",
           "| policy | fetches/app/day | largest reliability gap (bins ≥ 30 fetches) |", "|---|---|---|"]
    md += [f"| `{p['name']}` | {f(p['fetches_per_app_day'], 2)} | {f(p['max_gap_30'])} |" for p in ds["policies"]]
    md.append("")
sp = out["speed"]
md += ["## Speed", "", f"`compare --timings --policies 'learned(2),predictive(15m,0.3)'` on the sample, medians of {repeats}: "
       f"`learned` {sp['cpu_seconds_median'].get('learned')} s of CPU, `predictive` {sp['cpu_seconds_median'].get('predictive')} s; "
       f"`learned`'s rate is {f(sp['learned_rate_vs_predictive'], 2)} of `predictive`'s (issue 26's bar: 0.5). "
       f"Load average at the time: {', '.join(f'{x:.2f}' for x in out['load_average'])}.", ""]
open("Benchmarks/results/learned.md", "w").write("\n".join(md))
print(json.dumps(out["speed"]))
EOF
