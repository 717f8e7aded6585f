#!/usr/bin/env bash
# The README's screenshot of the HTML report: `fetchlab demo` on the bundled sample, then the same
# headless Chromium screenshot the browser test takes (Tests/FetchLabCLITests/BrowserTests.swift).
# Docs/report.png.sha256 holds the SHA-256 of the report the screenshot shows (the report is the
# same bytes for the same sample and the same fetchlab), so a stale screenshot can be told.
#
#   Docs/report-screenshot.sh            writes Docs/report.png and Docs/report.png.sha256
#   Docs/report-screenshot.sh --check    fails when the report fetchlab writes now is not the one
#                                        in Docs/report.png (Docs/examples.sh calls it so in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FETCHLAB_BIN:-}" ]; then
  swift build --product fetchlab >&2
  FETCHLAB_BIN="$(swift build --show-bin-path)/fetchlab"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$FETCHLAB_BIN" demo --db "$work/demo.sqlite" >/dev/null
sum=$(sha256sum "$work/report.html" | cut -d' ' -f1)
if [ "${1:-}" = "--check" ]; then
  if [ "$sum" != "$(cat Docs/report.png.sha256 2>/dev/null)" ]; then
    echo "examples: Docs/report.png shows another report than fetchlab demo writes now (sha256 $sum); run Docs/examples.sh and commit" >&2
    exit 1
  fi
  echo "examples: Docs/report.png shows the report fetchlab demo writes now" >&2
  exit 0
fi
BROWSER=${FETCHLAB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}
"$BROWSER" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$work/profile" --hide-scrollbars --force-color-profile=srgb \
  --screenshot="$PWD/Docs/report.png" --window-size=1300,1700 "file://$work/report.html" 2>/dev/null
echo "$sum" > Docs/report.png.sha256
echo "Docs/report.png written (report sha256 $sum)" >&2
