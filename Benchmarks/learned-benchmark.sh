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
# causal family at each budget (and the same as tables in Benchmarks/results/learned.md).
# Reliability: each bin's gap is also set against chance. A perfectly calibrated predictor with the
# same bins (binomial counts, normal approximation) would keep every gap within 0.05 with the
# probability `chance_all_within_0_05`, and `beyond_chance` lists the bins that compare's JSON marks
# `beyond_chance` (gap above `chance_gap`, 1.96 binomial standard errors: a miscalibration the bin's
# size resolves).
# Speed, on the replay benchmark's population of about a million launches (generated, SPEED_USERS
# 1000 × SPEED_DAYS 56, seed 1): `compare --timings --policies 'learned(2),predictive(15m,0.55),…'`, the
# standard set's five predictive settings (REPEATS runs, default 3; CPU seconds per policy, medians;
# release build); learned's rate against the predictive family's mean and against its
# predictive(15m,0.3); and the learned family's five budgets replayed together (one model per pair
# answers for all of them), per policy. The machine is shared: the load average is recorded.
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
SPEED_USERS=${SPEED_USERS:-1000}
SPEED_DAYS=${SPEED_DAYS:-56}
. Benchmarks/population.sh
SPEED_DB=$(prepare_population learned-speed "$SPEED_USERS" "$SPEED_DAYS")
for r in $(seq 1 "$REPEATS"); do
  "$BIN" compare --db "$SPEED_DB" --format json --no-store --timings \
    --policies 'learned(2),predictive(15m,0.55),predictive(15m,0.4),predictive(15m,0.3),predictive(15m,0.2),predictive(15m,0.15)' >/dev/null 2>"$WORK/timings-$r.txt"
  "$BIN" compare --db "$SPEED_DB" --format json --no-store --timings \
    --policies 'predictive(15m,0.3)' >/dev/null 2>"$WORK/timings-one-$r.txt"
  "$BIN" compare --db "$SPEED_DB" --format json --no-store --timings \
    --policies 'learned(0.5,1,2,5,10)' >/dev/null 2>"$WORK/timings-family-$r.txt"
done
python3 - "$WORK" "$REPEATS" "$SPEED_USERS" "$SPEED_DAYS" <<'EOF'
import json, math, os, re, statistics, sys
work, repeats, speed_users, speed_days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def within(p, n, gap=0.05):
    # P(|observed - p| <= gap) for a calibrated bin of n fetches at p (normal approximation).
    se = math.sqrt(max(p * (1 - p), 1e-9) / n)
    return math.erf(gap / se / math.sqrt(2))
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
        bins = [{"mean_stated": b["mean_stated"], "observed": b["observed"], "count": b["count"],
                 "chance_gap": b["chance_gap"], "beyond_chance": b["beyond_chance"]}
                for b in (m.get("reliability") or {}).get("bins", []) if b["count"] >= 30]
        chance = math.prod(within(b["mean_stated"], b["count"]) for b in bins)
        beyond = [b for b in bins if b["beyond_chance"]]
        policies.append({"name": p["name"], "fetches_per_app_day": m["fetches_per_app_day"],
                         "fresh_15m": m["fresh_15m"],
                         "max_gap_30": max((abs(b["mean_stated"] - b["observed"]) for b in bins), default=None),
                         "chance_all_within_0_05": chance, "beyond_chance": beyond,
                         "bins": bins})
    out["datasets"][name] = {"budget_curve": curve, "policies": policies}
seconds = {"learned": [], "predictive": [], "predictive(15m,0.3)": [], "learned family": []}
launches = None
for r in range(1, repeats + 1):
    for name, label in ((f"timings-{r}.txt", None), (f"timings-one-{r}.txt", "predictive(15m,0.3)"),
                        (f"timings-family-{r}.txt", "learned family")):
        for line in open(f"{work}/{name}"):
            m = re.match(r"timings: (\d+) launches", line)
            if m:
                launches = int(m.group(1))
            m = re.match(r"\s*(learned|predictive): (\d+) polic(?:y|ies), ([0-9.]+) s", line)
            if m:
                seconds[label or m.group(1)].append(float(m.group(3)) / int(m.group(2)))
med = {k: statistics.median(v) for k, v in seconds.items() if v}
rate = lambda k: med[k] / med["learned"] if k in med and med.get("learned") else None
out["speed"] = {"population": f"fetchlab generate --users {speed_users} --days {speed_days} --seed 1",
                "launches_of_evaluated_pairs": launches,
                "cpu_seconds_per_policy_median": med,
                "learned_rate_vs_predictive": rate("predictive"),
                "learned_rate_vs_predictive_15m_0_3": rate("predictive(15m,0.3)"),
                "learned_family_rate_vs_predictive": med["predictive"] / med["learned family"]
                if med.get("learned family") and med.get("predictive") else None}
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
           "| policy | fetches/app/day | largest reliability gap (bins ≥ 30 fetches) | chance a calibrated predictor keeps every such bin within 0.05 | bins beyond chance (gap > 1.96 SE) |",
           "|---|---|---|---|---|"]
    md += [f"| `{p['name']}` | {f(p['fetches_per_app_day'], 2)} | {f(p['max_gap_30'])} | {f(p['chance_all_within_0_05'], 2)} | "
           + (", ".join(f"{b['mean_stated']:.2f} → {b['observed']:.2f} ({b['count']})" for b in p["beyond_chance"]) or "none") + " |"
           for p in ds["policies"]]
    md.append("")
sp = out["speed"]
cs = sp["cpu_seconds_per_policy_median"]
md += ["## Speed", "", f"`{sp['population']}` ({sp['launches_of_evaluated_pairs']:,} launches of evaluated pairs), "
       f"`compare --timings`, CPU seconds per policy, medians of {repeats}: `learned(2)` {f(cs.get('learned'), 2)} s; "
       f"the standard set's five `predictive` settings {f(cs.get('predictive'), 2)} s each; `predictive(15m,0.3)` alone "
       f"{f(cs.get('predictive(15m,0.3)'), 2)} s. `learned`'s rate is {f(sp['learned_rate_vs_predictive'], 2)} of the predictive "
       f"family's and {f(sp['learned_rate_vs_predictive_15m_0_3'], 2)} of `predictive(15m,0.3)`'s (issue 26's bar: 0.5). "
       f"The five budgets `learned(0.5,1,2,5,10)` replayed together share each pair's model: "
       f"{f(cs.get('learned family'), 2)} s per policy, {f(sp['learned_family_rate_vs_predictive'], 2)} of the predictive family's rate. "
       f"Load average at the time: {', '.join(f'{x:.2f}' for x in out['load_average'])}.", ""]
open("Benchmarks/results/learned.md", "w").write("\n".join(md))
print(json.dumps(out["speed"]))
EOF
