#!/usr/bin/env bash
# Every command's output on the bundled sample, for checking that a change which should not change
# behaviour (a refactor) does not: run it with the binary before and after, then diff the two
# directories.
#
#   .ci/golden.sh BIN OUTDIR        e.g. .ci/golden.sh .build/debug/fetchlab /tmp/golden-after
#   diff -r /tmp/golden-before /tmp/golden-after
#
# Runs with --no-store where a command stores a run (the ids and dates would differ), and prints
# stored runs from a database made the same way by both binaries (their created_at lines removed).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
rm -rf "$OUT"
mkdir -p "$OUT"
DB="$OUT/sample.sqlite"
S=Datasets/sample

run() {  # name args...: stdout to OUT/name, stderr (timings and paths removed) to OUT/name.err
  local name=$1
  shift
  "$BIN" "$@" > "$OUT/$name" 2> "$OUT/$name.err" || echo "exit $?" >> "$OUT/$name.err"
  sed -i -E 's/ in [0-9.]+ s( \([0-9,]+ rows\/s\))?//; s/[0-9.]+ rows\/s//g' "$OUT/$name.err"
}

run import.txt import --db "$DB" "$S"/usage.csv.gz "$S"/context.csv.gz "$S"/content.csv.gz --format json
sed -i -E 's/"(started_at|finished_at|seconds|rows_per_second)" : [^,]*,?//' "$OUT/import.txt"
run inspect.txt inspect --db "$DB" --top 3
run inspect.json inspect --db "$DB" --format json
run describe.txt describe --db "$DB"
run describe.json describe --db "$DB" --format json --per-user
run predict.txt predict --db "$DB" --user u00003 --at "2024-04-10 08:00"
run predict.json predict --db "$DB" --user u00003 --at "2024-04-10 08:00" --format json
run evaluate.json evaluate-predictors --db "$DB" --truth "$S/truth.json" --format json
run compare.txt compare --db "$DB" --no-store
run compare.json compare --db "$DB" --no-store --format json --per-user
run compare.md compare --db "$DB" --no-store --format markdown
run compare.csv compare --db "$DB" --no-store --format csv
run compare.html compare --db "$DB" --no-store --format html
run compare-ios.json compare --db "$DB" --no-store --format json --platform ios --policies "fixed(1h),ios-adaptive,predictive(15m,0.3)"
run tune.txt tune --db "$DB" --no-store --family fixed
run tune.json tune --db "$DB" --no-store --format json --family predictive
# Stored runs, made the same way by both binaries: their listings without dates.
run store-compare.txt compare --db "$DB" --policies "never,fixed(1h),predictive(15m,0.3),oracle" --per-user
run store-tune.txt tune --db "$DB" --format json --family fixed
run runs.json runs list --db "$DB" --format json
sed -i -E '/"created_at"/d' "$OUT/runs.json"
run runs-show.json runs show 1 --db "$DB" --format json
run report.html report --db "$DB" --output "$OUT/report-out.html"
sed -i -E '/created_at|generated/d' "$OUT"/report-out.html "$OUT/store-tune.txt" 2>/dev/null || true
rm -f "$DB" "$DB"-* "$DB".*
# The scratch directory's name differs between the runs compared.
sed -i "s#$OUT#OUT#g" "$OUT"/*
echo "wrote $(ls "$OUT" | wc -l) files to $OUT"
