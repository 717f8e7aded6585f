#!/usr/bin/env bash
# Fits the population weights of the learned family's model (issue 26): NextUseModel.weights.
#
#   Benchmarks/fit-learned-weights.sh [DEV_DIR]     (default: ../shared/datasets/dev)
#
# 1. Generates a population with signals that no figure of the family is judged on
#    (`fetchlab generate --users 25 --days 42 --seed 2026 --signals`), imports it and replays
#    `learned(1)` with FETCHLAB_LEARNED_TRIALS=1, which writes every resolved question of the model
#    (its 15 features and whether the app was launched within τ) to standard error. The features do
#    not depend on the weights (per-user hit-rate tables, session, recency, trigger kind), so the
#    fit does not depend on the binary's current weights.
# 2. Rolling origin: fits a logistic regression (Newton, L2 1) on the questions of the first half
#    in time, pooled across all users and apps, and measures the ranking (AUC) on the second half;
#    when DEV_DIR holds the dev logs, also on the second half of their questions (nothing is fitted
#    on them).
# Writes Benchmarks/results/learned-weights.json and prints the weights as NextUseModel takes them.
# numpy from Notebooks/.venv (created from Notebooks/requirements.txt when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=${1:-../shared/datasets/dev}
WORK=${BENCH_DIR:-bench-out}/fit-learned
mkdir -p "$WORK" Benchmarks/results
if [ ! -x Notebooks/.venv/bin/python ]; then
  python3 -m venv Notebooks/.venv
  Notebooks/.venv/bin/pip install --quiet --disable-pip-version-check -r Notebooks/requirements.txt
  cp Notebooks/requirements.txt Notebooks/.venv/requirements.txt
fi
swift build -c release --product fetchlab >/dev/null
BIN=$(swift build -c release --show-bin-path)/fetchlab
rm -rf "$WORK/pop" "$WORK/pop.db" "$WORK/dev.db"
"$BIN" generate --users 25 --days 42 --seed 2026 --signals --output "$WORK/pop" >/dev/null
"$BIN" import "$WORK/pop/usage.csv.gz" "$WORK/pop/context.csv.gz" --db "$WORK/pop.db" >/dev/null 2>&1
FETCHLAB_LEARNED_TRIALS=1 "$BIN" compare --db "$WORK/pop.db" --policies 'learned(1)' --format json --no-store \
  2>"$WORK/pop-trials.txt" >/dev/null
: >"$WORK/dev-trials.txt"
if ls "$DEV"/foreground-*.csv.gz >/dev/null 2>&1; then
  "$BIN" import "$DEV"/foreground-*.csv.gz --db "$WORK/dev.db" >/dev/null 2>&1
  FETCHLAB_LEARNED_TRIALS=1 "$BIN" compare --db "$WORK/dev.db" --policies 'learned(1)' --format json --no-store \
    2>"$WORK/dev-trials.txt" >/dev/null
fi
Notebooks/.venv/bin/python - "$WORK" <<'PY'
import json, sys
import numpy as np
work = sys.argv[1]
def load(path):
    rows = [l.rstrip("\n").split(",")[1:] for l in open(path) if l.startswith("T,")]
    a = np.array(rows, dtype=float) if rows else np.zeros((0, 21))
    return a[np.argsort(a[:, 2], kind="stable")]  # time order
def auc(p, y):
    order = np.argsort(p, kind="stable"); r = np.empty(len(p)); r[order] = np.arange(1, len(p) + 1)
    n1 = y.sum(); n0 = len(y) - n1
    return float((r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))
def fit(X, y, l2=1.0, iterations=30):
    w = np.zeros(X.shape[1])
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-X @ w))
        g = X.T @ (p - y) + l2 * w
        H = (X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(X.shape[1])
        w -= np.linalg.solve(H, g)
    return w
pop = load(f"{work}/pop-trials.txt")
half = len(pop) // 2
w = fit(pop[:half, 6:21], pop[:half, 4])
out = {"population": "fetchlab generate --users 25 --days 42 --seed 2026 --signals",
       "questions": len(pop), "fitted_on": "first half in time, pooled", "weights": [round(float(v), 4) for v in w],
       "held_out_auc": {}}
def score(a, name):
    h = len(a) // 2
    t = a[h:]
    out["held_out_auc"][name] = {"population_weights": auc(t[:, 6:21] @ w, t[:, 4]), "questions": len(t)}
score(pop, "population_second_half")
dev = load(f"{work}/dev-trials.txt")
if len(dev):
    score(dev, "dev_logs_second_half")
json.dump(out, open("Benchmarks/results/learned-weights.json", "w"), indent=1)
print(json.dumps(out["held_out_auc"]))
print("NextUseModel.weights = [" + ", ".join(f"{v:.3g}" for v in w) + ", 0]")
PY
