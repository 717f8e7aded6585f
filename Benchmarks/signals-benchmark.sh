#!/usr/bin/env bash
# What signals buy (issue 26): per-signal ceilings and the learned family with and without signals.
#
#   Benchmarks/signals-benchmark.sh [USERS] [DAYS] [DEV_DIR]   (defaults: 60 35 ../shared/datasets/dev)
#
# 1. Generates one population twice with the same seed (11), without and with `--signals`: the
#    launches, closes and context are the same bytes, only the unlocks, screen-on and notifications
#    differ. Imports each and runs `compare --format json --no-store --policies 'learned(0.5,1,2,5,10)'`
#    (launch refreshes on, τ 15 min, --platform none; the bound and the fixed-interval baseline
#    do not depend on the policies run). Records learned's fresh and share of the possible gain at
#    each standard budget on both, their difference, and the ceilings of each signal set.
# 2. When DEV_DIR holds the dev foreground logs: imports them with no options (launcher and
#    system-UI rows become system_ui signals) and records the ceilings (DOMAIN.md's bound restricted
#    to launches of other apps, plus unlocks/screen-on/system UI, plus notifications, anywhere).
# Writes Benchmarks/results/signals-USERSxDAYS.json. Release build; deterministic figures.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-60}
DAYS=${2:-35}
DEV=${3:-../shared/datasets/dev}
WORK=${BENCH_DIR:-bench-out}/signals
mkdir -p "$WORK" Benchmarks/results
swift build -c release --product fetchlab >/dev/null
BIN=$(swift build -c release --show-bin-path)/fetchlab
for kind in plain signals; do
  rm -rf "$WORK/$kind" "$WORK/$kind.db"
  flag=""
  [ "$kind" = signals ] && flag="--signals"
  "$BIN" generate --users "$USERS" --days "$DAYS" --seed 11 $flag --output "$WORK/$kind" >/dev/null
  "$BIN" import "$WORK/$kind/usage.csv.gz" "$WORK/$kind/context.csv.gz" --db "$WORK/$kind.db" >/dev/null 2>&1
  "$BIN" compare --db "$WORK/$kind.db" --policies 'learned(0.5,1,2,5,10)' --format json --no-store \
    >"$WORK/$kind.json" 2>/dev/null
done
HAVE_DEV=0
if ls "$DEV"/foreground-*.csv.gz >/dev/null 2>&1; then
  rm -f "$WORK/dev.db"
  "$BIN" import "$DEV"/foreground-*.csv.gz --db "$WORK/dev.db" >/dev/null 2>&1
  "$BIN" compare --db "$WORK/dev.db" --policies never --format json --no-store >"$WORK/dev.json" 2>/dev/null
  HAVE_DEV=1
fi
python3 - "$WORK" "$USERS" "$DAYS" "$HAVE_DEV" <<'PY'
import json, sys, datetime
work, users, days, have_dev = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
def load(name): return json.load(open(f"{work}/{name}.json"))
def ceilings(d):
    return {s["set"]: {"unlimited": s["fresh_unlimited"], "signals_present": s["signals_present"],
                       "at_budget": {str(b["budget"]): b["fresh"] for b in s["fresh_at_budget"]}}
            for s in d["ceilings"]["sets"]}
def learned(d):
    out = {}
    for p in d["budget_curve"]:
        f = p["families"].get("learned", {})
        out[str(p["budget"])] = {"fresh": f.get("fresh"), "share_of_possible": f.get("share_of_possible"),
                                 "fixed": p["fixed"], "bound": p["bound"]}
    return out
plain, signals = load("plain"), load("signals")
lp, ls = learned(plain), learned(signals)
result = {
    "benchmark": "signals",
    "date": datetime.date.today().isoformat(),
    "population": {"users": users, "days": days, "seed": 11,
                   "command": f"fetchlab generate --users {users} --days {days} --seed 11 [--signals]"},
    "protocol": "compare --format json --no-store, tau 15 min, launch refreshes on, --platform none",
    "learned_without_signals": lp,
    "learned_with_signals": ls,
    "share_gain_from_signals": {b: (ls[b]["share_of_possible"] or 0) - (lp[b]["share_of_possible"] or 0) for b in lp},
    "ceilings_without_signals": ceilings(plain),
    "ceilings_with_signals": ceilings(signals),
}
if have_dev:
    dev = load("dev")
    result["dev_logs"] = {"import": "fetchlab import ../shared/datasets/dev/foreground-*.csv.gz (no options)",
                          "scored_launches": dev["settings"]["scored_launches"], "ceilings": ceilings(dev)}
out = f"Benchmarks/results/signals-{users}x{days}.json"
json.dump(result, open(out, "w"), indent=2, sort_keys=True)
print(out)
for b in lp:
    print(f"  budget {b}: learned share {lp[b]['share_of_possible']:.3f} without signals, "
          f"{ls[b]['share_of_possible']:.3f} with (+{result['share_gain_from_signals'][b]:.3f})")
if have_dev:
    for name, c in result["dev_logs"]["ceilings"].items():
        print(f"  dev ceiling {name}: {c['unlimited'] * 100:.1f} % unlimited")
PY
