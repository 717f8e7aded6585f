extension HTMLReport {
    /// The page's inline style sheet and scripts.
    enum Assets {
        /// Runs first: collects script errors for the `#selftest` summary.
        static let errorCollector = """
            window.fetchlabErrors = [];
            window.onerror = function (message, source, line) {
              window.fetchlabErrors.push(String(message) + (line ? " (line " + line + ")" : ""));
            };
            """

        /// Okabe–Ito colours and five of Paul Tol's (colour-blind safe); families cycle through
        /// c0–c11 (c6 is the text colour and turns light in the dark scheme) and through five
        /// marker shapes, so each of the first 60 has its own pair.
        static let css = """
            :root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1b1b; --muted: #5f6368; --grid: #e4e4e4;
              --panel: #f6f7f8; --rec: #fff4d6;
              --c0: #0072B2; --c1: #E69F00; --c2: #009E73; --c3: #D55E00; --c4: #CC79A7; --c5: #56B4E9; --c6: #1b1b1b;
              --c7: #882255; --c8: #44AA99; --c9: #999933; --c10: #332288; --c11: #AA4499;
              --yellow: #F0E442; }
            @media (prefers-color-scheme: dark) {
              :root { --bg: #16181b; --fg: #e6e6e6; --muted: #a4a8ad; --grid: #34373c; --panel: #1f2226; --rec: #3a3320;
                --c0: #3d9fe0; --c6: #e6e6e6; --c7: #cc6677; --c10: #8877dd; }
            }
            * { box-sizing: border-box; }
            body { margin: 0 auto; max-width: 1240px; padding: 1rem 1.25rem 3rem; background: var(--bg); color: var(--fg);
              font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
            h1 { font-size: 1.5rem; margin: 0.5rem 0 0.25rem; }
            h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid var(--grid); padding-bottom: 0.2rem; }
            code { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
            .source { color: var(--muted); margin: 0; overflow-wrap: anywhere; }
            .headline { font-size: 1.08rem; background: var(--panel); border-left: 4px solid var(--c1); padding: 0.6rem 0.8rem; }
            .tuned { font-size: 1.02rem; background: var(--panel); border-left: 4px solid var(--muted); padding: 0.5rem 0.8rem; }
            dl.facts { display: grid; grid-template-columns: minmax(auto, max-content) minmax(0, 1fr); gap: 0.2rem 1rem; margin: 0.5rem 0; }
            dl.facts dt { color: var(--muted); }
            dl.facts dd { margin: 0; }
            .caption, figcaption { color: var(--muted); font-size: 0.92rem; margin: 0.4rem 0; }
            figure { margin: 0.5rem 0 1.5rem; }
            svg { width: 100%; height: auto; display: block; font-size: 11px; font-family: inherit; }
            .scroll { overflow-x: auto; }
            td, th, dd, p, li, figcaption, .caption, .headline { overflow-wrap: anywhere; unicode-bidi: plaintext; }
            text, bdi { unicode-bidi: isolate; }
            table { border-collapse: collapse; font-size: 0.8rem; font-variant-numeric: tabular-nums; }
            th, td { padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--grid); text-align: right; white-space: nowrap; }
            tbody th { text-align: left; font-weight: normal; }
            thead th { cursor: pointer; user-select: none; position: sticky; top: 0; background: var(--bg); }
            thead th[aria-sort="ascending"]::after { content: " ▲"; }
            thead th[aria-sort="descending"]::after { content: " ▼"; }
            tr.recommended { background: var(--rec); font-weight: 600; }
            select { font: inherit; max-width: 100%; }
            tr.tuned, tr.differs { background: var(--panel); font-weight: 600; }
            .hatch { stroke: var(--muted); stroke-width: 1.5; }
            .assumed { stroke: var(--muted); stroke-dasharray: 3 2; }
            .assumed-label { fill: var(--fg); font-weight: 600; paint-order: stroke; stroke: var(--bg); stroke-width: 3px; }
            .label.recommended { font-weight: 700; }
            .grid { stroke: var(--grid); stroke-width: 1; }
            .axis { stroke: var(--fg); fill: none; }
            .tick, .legend, .label { fill: var(--fg); }
            .tick { fill: var(--muted); }
            .axis-title { fill: var(--muted); font-size: 12px; }
            .f0 { fill: var(--c0); } .f1 { fill: var(--c1); } .f2 { fill: var(--c2); } .f3 { fill: var(--c3); }
            .f4 { fill: var(--c4); } .f5 { fill: var(--c5); } .f6 { fill: var(--c6); } .f7 { fill: var(--c7); }
            .f8 { fill: var(--c8); } .f9 { fill: var(--c9); } .f10 { fill: var(--c10); } .f11 { fill: var(--c11); }
            .s0 { stroke: var(--c0); } .s1 { stroke: var(--c1); } .s2 { stroke: var(--c2); } .s3 { stroke: var(--c3); }
            .s4 { stroke: var(--c4); } .s5 { stroke: var(--c5); } .s6 { stroke: var(--c6); } .s7 { stroke: var(--c7); }
            .s8 { stroke: var(--c8); } .s9 { stroke: var(--c9); } .s10 { stroke: var(--c10); } .s11 { stroke: var(--c11); }
            .leader { stroke: var(--muted); stroke-width: 1; }
            .budget-label { fill: var(--muted); }
            .bar-zero { stroke: var(--fg); stroke-width: 1; }
            .scroll-hint { margin: 0.2rem 0; font-size: 0.8rem; color: var(--muted); text-align: right; }
            .scroll-hint[hidden] { display: none; }
            .scroll.chart { box-shadow: inset -10px 0 8px -8px var(--muted); }
            .scroll.chart.fits { box-shadow: none; }
            #ranking tr[data-band-start] > * { border-top: 2px solid var(--fg); }
            #ranking.resorted tr[data-band-start] > * { border-top: 1px solid var(--grid); }
            .pt { stroke: var(--bg); stroke-width: 1; }
            .pt.on-front { stroke: var(--fg); stroke-width: 1.5; }
            .pt.chosen { fill: var(--c1); stroke: var(--fg); stroke-width: 2.5; }
            .best-fixed { fill: none; stroke: var(--c3); stroke-width: 2.5; }
            .pt.best-fixed { fill: var(--c3); }
            h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
            pre.snippet { background: var(--panel); padding: 0.5rem 0.75rem; overflow-x: auto; font-size: 0.85rem; }
            .front { fill: none; stroke: var(--fg); stroke-width: 1.5; }
            .frontier { fill: none; stroke: var(--fg); stroke-width: 1.5; stroke-dasharray: 5 4; }
            .fixed-curve { fill: none; stroke: var(--muted, #888); stroke-width: 2; }
            .never-line { stroke: var(--muted, #888); stroke-width: 1; stroke-dasharray: 2 3; }
            .budget-mark { stroke: var(--muted, #888); stroke-width: 0.5; opacity: 0.5; }
            #budget-table td { text-align: right; white-space: normal; vertical-align: top; min-width: 7.5em; }
            #ranking th, #ranking td { padding: 0.25rem 0.22rem; }
            #ranking thead th { white-space: normal; overflow-wrap: normal; vertical-align: bottom; }
            #ranking tbody th { white-space: normal; overflow-wrap: normal; min-width: 9em; }
            .nb { white-space: nowrap; }
            #budget-table td small { color: var(--muted, #888); font-size: 0.8em; }
            .curve { fill: none; stroke-width: 2; }
            .dash1 { stroke-dasharray: 6 3; } .dash2 { stroke-dasharray: 2 3; } .dash3 { stroke-dasharray: 8 3 2 3; }
            .bar-never { fill: var(--muted); }
            .bar-base { opacity: 0.75; }
            .r0 { fill: #000000; } .r1 { fill: #999999; } .r2 { fill: #E69F00; } .r3 { fill: #D55E00; } .r4 { fill: #56B4E9; }
            .r5 { fill: #CC79A7; } .r6 { fill: #0072B2; } .r7 { fill: #009E73; } .r8 { fill: #F0E442; } .r9 { fill: #6b4c9a; }
            @media (prefers-color-scheme: dark) { .r0 { fill: #dddddd; } }
            .charging { fill: var(--yellow); opacity: 0.45; }
            .battery { fill: none; stroke: var(--fg); stroke-width: 1.5; }
            .frame { fill: none; stroke: var(--grid); }
            .net-wifi { fill: #56B4E9; } .net-cellular { fill: #E69F00; } .net-none { fill: #999999; }
            .row { stroke: var(--grid); }
            .launch, .lkey { stroke-width: 1.5; stroke: var(--fg); }
            .launch.fresh, .lkey.fresh { fill: var(--fg); }
            .launch.stale, .lkey.stale { fill: var(--bg); }
            .fetch { stroke-width: 1.5; }
            .o-useful { fill: #009E73; stroke: none; }
            .o-wasted { fill: none; stroke: #D55E00; }
            .o-used { fill: #0072B2; stroke: none; }
            .o-expired { fill: none; stroke: #E69F00; }
            .o-other { fill: none; stroke: var(--muted); }
            .skip { stroke: #CC79A7; stroke-width: 2; }
            @media print {
              :root { --bg: #ffffff; --fg: #000000; --muted: #444444; --grid: #d0d0d0; --panel: #f2f2f2; --rec: #f2f2f2;
                --c0: #0072B2; --c6: #000000; }
              body { max-width: none; padding: 0; font-size: 10pt; }
              .controls { display: none; }
              figure, table, dl { break-inside: avoid; }
              thead th::after { content: "" !important; }
              .r0 { fill: #000000; }
            }
            """

        /// The sortable table, the timeline's policy choice, and the `#selftest` summary:
        /// `{"errors": [...], "rows": n, "sortColumn": "...", "sortedOk": bool, "timelineSwitchOk": bool | null,
        /// "sections": [ids], "charts": {svg id: {data attribute (without "data-"): number}},
        /// "resources": the number of resources the page loaded (0: no request left the file),
        /// "layout": {"width": window width, "overflow", "textOutside", "labelOverlaps", "clippedTables":
        /// [each failure naming its element]}, "recommendation": {"headline": the policy the headline
        /// recommends, "rows": the ranking's highlighted rows, "problems": [...]}}`.
        static let script = """
            (function () {
              "use strict";
              var table = document.getElementById("ranking");
              var heads = table ? Array.prototype.slice.call(table.tHead.rows[0].cells) : [];
              function value(row, col) {
                var cell = row.cells[col];
                var v = cell.getAttribute("data-v");
                return v === null ? cell.textContent : v;
              }
              function sortBy(col, dir) {
                var body = table.tBodies[0];
                var rows = Array.prototype.slice.call(body.rows);
                var numeric = heads[col].getAttribute("data-type") === "num";
                rows.sort(function (a, b) {
                  var x = value(a, col), y = value(b, col);
                  var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
                  return dir * c;
                });
                rows.forEach(function (r) { body.appendChild(r); });
                table.classList.add("resorted");
                heads.forEach(function (th, i) {
                  th.setAttribute("aria-sort", i === col ? (dir > 0 ? "ascending" : "descending") : "none");
                });
              }
              heads.forEach(function (th, i) {
                function go() { sortBy(i, th.getAttribute("aria-sort") === "ascending" ? -1 : 1); }
                th.addEventListener("click", go);
                th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
              });
              var select = document.getElementById("timeline-policy");
              function showDay(index) {
                var days = document.querySelectorAll("#timeline g.day");
                for (var k = 0; k < days.length; k++) {
                  days[k].setAttribute("display", String(k) === String(index) ? "inline" : "none");
                }
              }
              /// Each "scroll sideways" hint shown only while its box does scroll.
              function hints() {
                Array.prototype.forEach.call(document.querySelectorAll(".scroll-hint"), function (h) {
                  var box = h.nextElementSibling;
                  var scrolls = !!box && box.scrollWidth > box.clientWidth + 1;
                  h.hidden = !scrolls;
                  if (box) { box.classList.toggle("fits", !scrolls); }
                });
              }
              hints();
              window.addEventListener("resize", hints);
              if (select) { select.addEventListener("change", function () { showDay(select.value); }); }

              /// How an element is named in a failure: tag#id.class "text".
              function describe(el) {
                var name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "");
                var cls = el.getAttribute("class");
                if (cls) { name += "." + cls.trim().split(/\\s+/).join("."); }
                var text = (el.textContent || "").replace(/\\s+/g, " ").trim();
                if (text) { name += " \\"" + (text.length > 60 ? text.slice(0, 59) + "…" : text) + "\\""; }
                return name;
              }
              /// The deepest elements under `root` whose right edge passes `limit` (at most 5).
              function pastRight(root, limit) {
                var found = [];
                (function walk(el) {
                  var kids = Array.prototype.filter.call(el.children, function (k) {
                    return k.getBoundingClientRect().right > limit + 1;
                  });
                  var deeper = false;
                  kids.forEach(function (k) {
                    if (k.tagName.toLowerCase() !== "svg" && k.children.length > 0) { deeper = walk(k) || deeper; }
                  });
                  if (!deeper) { kids.forEach(function (k) { if (found.length < 5) { found.push(describe(k)); } }); }
                  return kids.length > 0;
                })(root);
                return found;
              }
              /// The page's layout at this window width: what overflows the page or a section
              /// horizontally, SVG text outside its SVG's box, labels drawn over each other, and
              /// tables wider than the box they scroll in.
              function layoutChecks() {
                var res = { width: window.innerWidth, overflow: [], textOutside: [], labelOverlaps: [], clippedTables: [] };
                var doc = document.documentElement;
                if (doc.scrollWidth > doc.clientWidth) {
                  res.overflow.push("document: scrollWidth " + doc.scrollWidth + " > clientWidth " + doc.clientWidth
                    + " (" + pastRight(document.body, doc.clientWidth).join("; ") + ")");
                }
                Array.prototype.forEach.call(document.querySelectorAll("section"), function (s) {
                  if (s.scrollWidth > s.clientWidth) {
                    res.overflow.push("section#" + s.id + ": scrollWidth " + s.scrollWidth + " > clientWidth " + s.clientWidth
                      + " (" + pastRight(s, s.getBoundingClientRect().right).join("; ") + ")");
                  }
                });
                Array.prototype.forEach.call(document.querySelectorAll("svg"), function (svg) {
                  var box = svg.getBoundingClientRect();
                  var labels = [];
                  Array.prototype.forEach.call(svg.querySelectorAll("text"), function (t) {
                    var r = t.getBoundingClientRect();
                    if (r.width === 0 && r.height === 0) { return; }
                    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
                      res.textOutside.push("svg#" + svg.id + " " + describe(t) + ": [" + Math.round(r.left - box.left) + ", "
                        + Math.round(r.right - box.left) + "] × [" + Math.round(r.top - box.top) + ", " + Math.round(r.bottom - box.top)
                        + "] outside [0, " + Math.round(box.width) + "] × [0, " + Math.round(box.height) + "]");
                    }
                    if (/\\blabel\\b/.test(t.getAttribute("class") || "")) { labels.push([t, r]); }
                  });
                  for (var i = 0; i < labels.length; i++) {
                    for (var j = i + 1; j < labels.length; j++) {
                      var a = labels[i][1], b = labels[j][1];
                      var dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
                      var dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
                      if (dx > 1 && dy > 1) {
                        res.labelOverlaps.push("svg#" + svg.id + ": " + describe(labels[i][0]) + " over " + describe(labels[j][0]));
                      }
                    }
                  }
                });
                Array.prototype.forEach.call(document.querySelectorAll(".scroll > table"), function (t) {
                  var wrap = t.parentElement;
                  if (t.getBoundingClientRect().width > wrap.clientWidth + 1) {
                    res.clippedTables.push("table#" + t.id + ": " + Math.round(t.getBoundingClientRect().width) + " px in "
                      + wrap.clientWidth + " px");
                  }
                });
                return res;
              }
              /// The page says one thing: one headline; the policy it recommends (`data-recommended`)
              /// is named in it and is the ranking's one highlighted row; no other table highlights
              /// a recommendation; the recommended point of the Pareto chart has a label.
              function recommendationChecks() {
                var res = { headline: null, rows: [], problems: [] };
                var heads = document.querySelectorAll(".headline");
                if (heads.length > 1) {
                  res.problems.push(heads.length + " headlines: " + Array.prototype.map.call(heads, describe).join("; "));
                }
                Array.prototype.forEach.call(document.querySelectorAll("table"), function (t) {
                  var marked = t.querySelectorAll("tr.recommended");
                  if (marked.length > 1) { res.problems.push("table#" + t.id + " has " + marked.length + " recommended rows"); }
                  if (marked.length > 0 && t.id !== "ranking") {
                    res.problems.push("table#" + t.id + " highlights a second recommendation: " + describe(marked[0]));
                  }
                });
                var h = document.getElementById("headline");
                var ranking = document.getElementById("ranking");
                if (!h || !ranking) { return res; }
                var named = h.getAttribute("data-recommended");
                res.headline = named;
                res.rows = Array.prototype.map.call(ranking.querySelectorAll("tr.recommended"), function (r) {
                  return r.cells[1].textContent;
                });
                if (named === null) { res.problems.push("p#headline has no data-recommended"); return res; }
                if (named && h.textContent.indexOf(named) < 0) {
                  res.problems.push("the headline does not name " + named + ": " + describe(h));
                }
                if (named ? !(res.rows.length === 1 && res.rows[0] === named) : res.rows.length > 0) {
                  res.problems.push("headline recommends \\"" + named + "\\", the ranking highlights [" + res.rows.join(", ") + "]");
                }
                var pareto = document.getElementById("pareto");
                if (named && pareto) {
                  var labelled = Array.prototype.some.call(pareto.querySelectorAll("text.label"), function (t) {
                    return t.getAttribute("data-name") === named;
                  });
                  if (!labelled) { res.problems.push("svg#pareto: the recommended " + named + " has no label"); }
                }
                return res;
              }
              if (location.hash !== "#selftest") { return; }
              var out = { errors: window.fetchlabErrors || [], rows: 0, sortColumn: null, sortedOk: false,
                timelineSwitchOk: null, sections: [], charts: {},
                resources: performance.getEntriesByType("resource").length };
              try {
                if (table) {
                  out.rows = table.tBodies[0].rows.length;
                  var col = -1;
                  heads.forEach(function (th, i) { if (col < 0 && th.textContent === "fetches/app/day") { col = i; } });
                  if (col < 0) { col = heads.length - 1; }
                  out.sortColumn = heads[col].textContent;
                  heads[col].click();
                  var values = Array.prototype.map.call(table.tBodies[0].rows, function (r) { return parseFloat(value(r, col)); });
                  var ok = values.length === out.rows && values.length === parseInt(table.getAttribute("data-rows"), 10);
                  for (var i = 1; i < values.length; i++) { if (!(values[i - 1] <= values[i])) { ok = false; } }
                  out.sortedOk = ok && heads[col].getAttribute("aria-sort") === "ascending";
                }
                if (select && select.options.length > 0) {
                  var last = select.options.length - 1;
                  select.value = String(last);
                  select.dispatchEvent(new Event("change"));
                  var days = document.querySelectorAll("#timeline g.day");
                  var visible = [];
                  for (var k = 0; k < days.length; k++) { if (days[k].getAttribute("display") !== "none") { visible.push(k); } }
                  out.timelineSwitchOk = visible.length === 1 && visible[0] === last;
                }
                Array.prototype.forEach.call(document.querySelectorAll("main > section"), function (s) { out.sections.push(s.id); });
                out.pageWidth = document.documentElement.scrollWidth;
                out.viewWidth = window.innerWidth;
                Array.prototype.forEach.call(document.querySelectorAll("svg[id]"), function (svg) {
                  var counts = {};
                  Array.prototype.forEach.call(svg.attributes, function (a) {
                    if (a.name.indexOf("data-") === 0) { counts[a.name.slice(5)] = parseFloat(a.value); }
                  });
                  out.charts[svg.id] = counts;
                });
                out.layout = layoutChecks();
                out.recommendation = recommendationChecks();
              } catch (e) {
                out.errors.push(String(e && e.message ? e.message : e));
              }
              var pre = document.getElementById("selftest");
              pre.textContent = JSON.stringify(out);
              pre.hidden = false;
            })();
            """
    }
}
