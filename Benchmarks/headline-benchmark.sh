#!/usr/bin/env bash
# The headline for its two audiences (issue 44), on the dev logs, the bundled sample and a
# generated population: what an app team can ship and what a system scheduler could do.
#
#   Benchmarks/headline-benchmark.sh [DEV_DIR]     (default: ../shared/datasets/dev)
#
# Imports the dev logs plainly (`import --db DB DEV_DIR/`, no options), the bundled sample and a
# generated population (GEN_USERS 60 × GEN_DAYS 35, seed 3, with signals, context and content),
# runs `compare --format json --no-store` (the standard set, τ 15 min, --platform none, with the
# headline's iOS and Android lines) on each, and writes Benchmarks/results/headline.json and
# headline.md: per dataset the headline (the app-scope setting, its iOS and Android lines, the
# setting of any scope, each with its own figures), and at each standard budget the share of the
# possible gain of the best single app-scope and the best single setting of any scope at or under it,
# (setting − baseline) / (bound − baseline) with the closed-form baseline and the bound at the
# budget. It checks that each named setting's figures are its own row's, that the app's setting is
# app scope, and that each platform line's figures are those of `compare --platform ios|android
# --policies <its policy>`; it also writes what `demo` prints on the sample
# (Benchmarks/results/compare-sample.txt). BIN: the fetchlab binary (default: a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=${1:-../shared/datasets/dev}
WORK=${BENCH_DIR:-bench-out}/headline
mkdir -p "$WORK" Benchmarks/results
if [ -z "${BIN:-}" ]; then
  swift build -c release --product fetchlab >/dev/null
  BIN=$(swift build -c release --show-bin-path)/fetchlab
fi
rm -rf "$WORK"/*.db "$WORK/generated"
"$BIN" import --db "$WORK/dev.db" "$DEV"/ >/dev/null 2>&1
"$BIN" import --db "$WORK/sample.db" Datasets/sample/ >/dev/null 2>&1
"$BIN" generate --users "${GEN_USERS:-60}" --days "${GEN_DAYS:-35}" --seed 3 --signals --output "$WORK/generated" >/dev/null 2>&1
"$BIN" import --db "$WORK/generated.db" "$WORK/generated"/ >/dev/null 2>&1
for d in dev sample generated; do
  "$BIN" compare --db "$WORK/$d.db" --format json --no-store >"$WORK/$d.json" 2>/dev/null
  # Each platform line's setting replayed alone under its platform: its figures must be the line's.
  python3 -c 'import json,sys; [print(p["platform"], p["policy"]) for p in json.load(open(sys.argv[1]))["headline"]["platforms"]]' \
    "$WORK/$d.json" | while read -r platform policy; do
    "$BIN" compare --db "$WORK/$d.db" --platform "$platform" --policies "$policy" --format json --no-store \
      >"$WORK/$d-$platform.json" 2>/dev/null
  done
done
# What `fetchlab demo` prints on the sample (the docs link here instead of copying it).
"$BIN" compare --db "$WORK/sample.db" --no-store >Benchmarks/results/compare-sample.txt 2>/dev/null
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
out, md = {}, ["# The headline for its two audiences", "",
               "Written by `Benchmarks/headline-benchmark.sh` (`compare --format json`, the standard set, "
               "τ 15 min, --platform none; the dev logs imported plainly). Share = (setting − baseline) / "
               "(bound − baseline) of the best single setting at or under the budget, the baseline in closed form.", ""]
for name in ["dev", "sample", "generated"]:
    r = json.load(open(f"{work}/{name}.json"))
    h = r["headline"]
    rows = {p["name"]: p for p in r["policies"]}
    for who in ["app", "os"]:
        s = h[who]; m = rows[s["policy"]]["metrics"]
        assert s["fresh"] == m["fresh_15m"] and s["gain_vs_fixed"] == m["gain_vs_fixed"], (name, who)
        assert s["fetches_per_app_day"] == m["fetches_per_app_day"], (name, who)
    assert rows[h["app"]["policy"]]["scope"] == "app", name
    assert sorted(p["platform"] for p in h["platforms"]) == ["android", "ios"], name
    for p in h["platforms"]:
        alone = json.load(open(f"{work}/{name}-{p['platform']}.json"))
        m = next(q for q in alone["policies"] if q["name"] == p["policy"])["metrics"]
        assert (p["fresh"], p["gain_vs_fixed"], p["fetches_per_app_day"]) == (
            m["fresh_15m"], m["gain_vs_fixed"], m["fetches_per_app_day"]), (name, p["platform"])
        assert p.get("gain_ci") == m.get("gain_ci"), (name, p["platform"], p.get("gain_ci"), m.get("gain_ci"))
    causal = [p for p in r["policies"] if p["scope"] in ("app", "os") and p["family"] != "never"]
    shares = []
    for c in r["budget_curve"]:
        b, base, bound = c["budget"], c["fixed"], c["bound"]
        def best(scopes):
            ok = [p for p in causal if p["scope"] in scopes and p["metrics"]["fetches_per_app_day"] <= b + 1e-9]
            if not ok: return None
            p = max(ok, key=lambda p: p["metrics"]["fresh_15m"])
            f = p["metrics"]["fresh_15m"]
            return {"policy": p["name"], "fresh": f, "gain": f - base,
                    "share": (f - base) / (bound - base) if bound - base >= 0.02 else None}
        shares.append({"budget": b, "baseline": base, "bound": bound, "app": best({"app"}), "os": best({"app", "os"})})
    out[name] = {"users": r["settings"]["users"], "scored_launches": r["settings"]["scored_launches"],
                 "interval_over": r["budget"].get("interval_over"), "headline": h, "by_budget": shares}
    pct = lambda x: f"{100 * x:.1f} %"
    md += [f"## {name}: {r['settings']['users']} users, {r['settings']['scored_launches']:,} scored launches "
           f"(intervals over {r['budget'].get('interval_over', 'users')})", "",
           f"At {h['budget']:g} fetches/app/day:", ""]
    def line(s):
        ci = s.get("gain_ci") or [float("nan")] * 2
        return (f"`{s['policy']}`: {pct(s['fresh'])} fresh@15, {100 * s['gain_vs_fixed']:+.1f} points "
                f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}] over the baseline, {s['fetches_per_app_day']:.2f} fetches/app/day")
    md.append(f"- for an app team: {line(h['app'])}" + ("" if h["app"]["beats_baseline"] else " — not more than its interval"))
    for p in h["platforms"]:
        md.append(f"  - on {p['platform']}: {p['setting']} (replayed as `{p['policy']}`): " + line(p).split(": ", 1)[1])
    if h.get("lever"): md.append(f"  - the biggest lever that beats the baseline: {h['lever']}")
    md.append(f"- for a system scheduler: {line(h['os'])}")
    md += ["", "| fetches/app/day | " + " | ".join(f"{s['budget']:g}" for s in shares) + " |",
           "|---|" + "---|" * len(shares)]
    for key, label in [("baseline", "fixed baseline"), ("bound", "clairvoyant bound")]:
        md.append(f"| {label} | " + " | ".join(pct(s[key]) for s in shares) + " |")
    for who, label in [("app", "best app-scope setting"), ("os", "best setting, any scope")]:
        cells = []
        for s in shares:
            v = s[who]
            if v is None:
                cells.append("–")
                continue
            share = "–" if v["share"] is None else f"{v['share']:.2f}"
            cells.append(f"{pct(v['fresh'])} ({share}) `{v['policy']}`")
        md.append(f"| {label} (share) | " + " | ".join(cells) + " |")
    md.append("")
json.dump(out, open("Benchmarks/results/headline.json", "w"), indent=1, sort_keys=True)
open("Benchmarks/results/headline.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
