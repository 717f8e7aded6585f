#!/usr/bin/env bash
# Every command output shown in README.md and Docs/, and the README's screenshot of the HTML report,
# written from the bundled sample by the fetchlab built here (Docs/examples.py says how a Markdown
# file marks an example).
#
#   Docs/examples.sh                 rewrite every example block, and Docs/report.png
#   Docs/examples.sh --check         fail, showing the differences, when a block or the screenshot
#                                    is stale (CI runs this); writes nothing
#   Docs/examples.sh FILE.md...      only these files' blocks
set -euo pipefail
cd "$(dirname "$0")/.."
check=()
files=()
for arg in "$@"; do
  case "$arg" in
    --check) check=(--check) ;;
    *) files+=("$arg") ;;
  esac
done
swift build --product fetchlab >&2
bin="$(swift build --show-bin-path)/fetchlab"
python3 Docs/examples.py --bin "$bin" "${check[@]}" "${files[@]}"
if [ ${#files[@]} -eq 0 ]; then
  FETCHLAB_BIN="$bin" Docs/report-screenshot.sh "${check[@]}"
fi
