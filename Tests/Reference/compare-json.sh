#!/usr/bin/env bash
# The identical-JSON check of the replay (issue 47): `fetchlab compare --format json` of the
# standard set, on the bundled sample and on a small generated population (with signals, context
# and content), must be byte for byte the reference kept here. A change to the replay that is
# meant to be only faster must leave them as they are; a change meant to change a figure
# regenerates them with this script (never by hand) and says why in its commit.
#
#   Tests/Reference/compare-json.sh [--check] [--bin PATH]
#
# Without --check it writes Tests/Reference/compare-{sample,generated}.json.gz (gzip -n: the same
# bytes for the same JSON); with --check it
# writes nothing, shows a diff of what differs and exits 1. PATH defaults to the debug build
# (`swift build` first). CI runs it with --check.
set -euo pipefail
cd "$(dirname "$0")/../.."
CHECK=0
BIN=.build/debug/fetchlab
while [ $# -gt 0 ]; do
  case "$1" in
    --check) CHECK=1 ;;
    --bin) BIN=$2; shift ;;
    *) echo "usage: $0 [--check] [--bin PATH]" >&2; exit 64 ;;
  esac
  shift
done
[ -x "$BIN" ] || { echo "$0: no fetchlab binary at $BIN (run swift build, or give --bin PATH)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN" import --db "$WORK/sample.sqlite" Datasets/sample/usage.csv.gz Datasets/sample/context.csv.gz \
  Datasets/sample/content.csv.gz > /dev/null
"$BIN" generate --users 24 --days 21 --seed 47 --signals --start 2024-09-02 --output "$WORK/generated" > /dev/null
"$BIN" import --db "$WORK/generated.sqlite" "$WORK"/generated/*.csv.gz > /dev/null
status=0
for name in sample generated; do
  "$BIN" compare --db "$WORK/$name.sqlite" --format json --no-store > "$WORK/$name.json"
  reference=Tests/Reference/compare-$name.json.gz
  if [ "$CHECK" = 1 ]; then
    gzip -dc "$reference" > "$WORK/$name.reference.json"
    if ! cmp -s "$WORK/$name.json" "$WORK/$name.reference.json"; then
      echo "compare --format json on the $name data differs from $reference:" >&2
      diff -u "$WORK/$name.reference.json" "$WORK/$name.json" | head -n 40 >&2 || true
      status=1
    fi
  else
    gzip -9n -c "$WORK/$name.json" > "$reference"
    echo "wrote $reference" >&2
  fi
done
if [ "$status" != 0 ]; then
  echo "the replay's answers changed: if that is meant, run Tests/Reference/compare-json.sh and commit" >&2
fi
exit "$status"
