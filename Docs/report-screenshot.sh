#!/usr/bin/env bash
# The README's screenshot of the HTML report: `fetchlab demo` on the bundled sample, then the same
# headless Chromium screenshot the browser test takes (Tests/FetchLabCLITests/BrowserTests.swift).
#
#   Docs/report-screenshot.sh            (writes Docs/report.png)
set -euo pipefail
cd "$(dirname "$0")/.."
BROWSER=${FETCHLAB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}
swift build --product fetchlab >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$(swift build --show-bin-path)/fetchlab" demo --db "$work/demo.sqlite" >/dev/null
"$BROWSER" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$work/profile" --hide-scrollbars --force-color-profile=srgb \
  --screenshot="$PWD/Docs/report.png" --window-size=1300,1700 "file://$work/report.html" 2>/dev/null
echo "Docs/report.png written" >&2
