#!/bin/sh
# Runs chart-checks.js on a FetchLab HTML report in headless Chromium at a viewport width and
# prints its JSON summary: check-report.sh REPORT.html [WIDTH, default 1400].
# (Chromium's window is at least 500 px wide: narrower widths load the report in an iframe.)
set -eu
html=$(realpath "$1"); width=${2:-1400}
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$html" "$here/chart-checks.js" "$work/page.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
js = open(sys.argv[2], encoding="utf-8").read()
at = page.index('<pre id="selftest"')
open(sys.argv[3], "w", encoding="utf-8").write(page[:at] + "<script>" + js + "</script>" + page[at:])
PY
cat > "$work/frame.html" <<HTML
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="file://$work/page.html" style="width:${width}px;height:2000px;border:0"></iframe>
<pre id="chartchecks"></pre><script>
document.getElementById("f").onload = function () {
  var d = this.contentDocument, pre = d && d.getElementById("chartchecks");
  document.getElementById("chartchecks").textContent = pre ? pre.textContent : '{"error":"no checks in the frame"}';
};
</script></body></html>
HTML
"${CHROMIUM:-chromium}" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$work/profile" --virtual-time-budget=5000 --allow-file-access-from-files \
  --window-size=$((width + 40 > 800 ? width + 40 : 800)),2100 --dump-dom "file://$work/frame.html" 2>/dev/null |
  python3 -c 'import sys,re,html; m=re.search(r"<pre id=\"chartchecks\">(.*?)</pre>", sys.stdin.read(), re.S); print(html.unescape(m.group(1)) if m else "{\"error\":\"no output\"}")'
