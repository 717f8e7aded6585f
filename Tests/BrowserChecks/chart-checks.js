// Checks that a FetchLab HTML report's charts can be trusted at a glance (issue 46), run in the
// browser on any report, old or new: BrowserTests (and check-report.sh) insert this script just
// before the report's `<pre id="selftest">`, so it runs on the fully parsed page before the
// report's own script sorts the ranking. It writes `{"width": n, "checks": {name: [failures]},
// "minTextPx": n}` into a new `pre#chartchecks` (and `window.fetchlabChartChecks`).
(function () {
  "use strict";
  var out = { width: window.innerWidth, minTextPx: null, checks: {
    sharedStyles: [], familyLooks: [], smallText: [], labelToPoint: [], legendOverData: [], zeroBars: [],
    budgetMarksUnlabelled: [], axisFarFromData: [], bandDividers: [], midWordBreaks: [], unhintedScroll: [] } };
  var c = out.checks;
  function all(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }
  function svgScale(svg) {
    var vb = svg.viewBox && svg.viewBox.baseVal;
    return vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
  }
  function centre(el) { var r = el.getBoundingClientRect(); return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 }; }
  function distToRect(p, r) {
    var dx = Math.max(r.left - p.x, 0, p.x - r.right), dy = Math.max(r.top - p.y, 0, p.y - r.bottom);
    return Math.sqrt(dx * dx + dy * dy);
  }
  function inRect(p, r, pad) { return p.x >= r.left - pad && p.x <= r.right + pad && p.y >= r.top - pad && p.y <= r.bottom + pad; }
  function titleOf(el) { var t = el.querySelector("title"); return t ? t.textContent : ""; }
  /// The screen positions along a polyline: its vertices and points every 4 units between them.
  function polylinePoints(pl) {
    var m = pl.getScreenCTM(), svg = pl.ownerSVGElement, res = [];
    if (!m || !svg) { return res; }
    var raw = (pl.getAttribute("points") || "").trim().split(/\s+/).map(function (s) { var a = s.split(","); return [parseFloat(a[0]), parseFloat(a[1])]; });
    function push(x, y) { var p = svg.createSVGPoint(); p.x = x; p.y = y; p = p.matrixTransform(m); res.push({ x: p.x, y: p.y }); }
    for (var i = 0; i < raw.length; i++) {
      if (i > 0) {
        var a = raw[i - 1], b = raw[i], len = Math.hypot(b[0] - a[0], b[1] - a[1]), steps = Math.floor(len / 4);
        for (var k = 1; k < steps; k++) { push(a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps); }
      }
      push(raw[i][0], raw[i][1]);
    }
    return res;
  }
  function visible(el) { var r = el.getBoundingClientRect(); return r.width > 0 || r.height > 0; }
  function lookOf(el) {
    var s = getComputedStyle(el);
    return [el.getAttribute("data-marker") || el.tagName.toLowerCase(), s.fill, s.stroke, s.strokeDasharray].join(" ");
  }

  // Legends: each `text.legend` and the mark drawn just before it.
  var looks = {};
  all(document, "svg[id]").forEach(function (svg) {
    var entries = all(svg, "text.legend").map(function (t) {
      var mark = t.previousElementSibling;
      return { name: t.getAttribute("data-family") || t.textContent, text: t, mark: mark, look: mark ? lookOf(mark) : "" };
    });
    if (svg.id === "budget-curve" || svg.id === "pareto") {
      var byLook = {};
      entries.forEach(function (e) { (byLook[e.look] = byLook[e.look] || []).push(e.name); });
      Object.keys(byLook).forEach(function (k) {
        if (byLook[k].length > 1) { c.sharedStyles.push("svg#" + svg.id + ": " + byLook[k].join(", ") + " share " + k); }
      });
      entries.forEach(function (e) {
        if (looks[e.name] !== undefined && looks[e.name].look !== e.look) {
          c.familyLooks.push(e.name + ": " + looks[e.name].look + " in svg#" + looks[e.name].svg + ", " + e.look + " in svg#" + svg.id);
        }
        looks[e.name] = { look: e.look, svg: svg.id };
      });
    }
    // Legend over data: no plotted point or line passes under a legend entry.
    var data = all(svg, ".pt").map(centre);
    all(svg, "polyline.curve, polyline.front, polyline.frontier, polyline.fixed-curve").forEach(function (pl) {
      if (!pl.closest(".legend")) { data = data.concat(polylinePoints(pl)); }
    });
    entries.forEach(function (e) {
      var boxes = [e.text.getBoundingClientRect()].concat(e.mark ? [e.mark.getBoundingClientRect()] : []);
      var hit = data.filter(function (p) { return boxes.some(function (b) { return inRect(p, b, 0); }); }).length;
      if (hit > 0) { c.legendOverData.push("svg#" + svg.id + ": legend \"" + e.name + "\" covers " + hit + " plotted positions"); }
    });
    // Rendered text size.
    var scale = svgScale(svg);
    all(svg, "text").forEach(function (t) {
      if (!visible(t) || !t.textContent.trim()) { return; }
      var px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (out.minTextPx === null || px < out.minTextPx) { out.minTextPx = Math.round(px * 10) / 10; }
      if (px < 11 - 0.05) { c.smallText.push("svg#" + svg.id + " \"" + t.textContent.trim().slice(0, 30) + "\": " + px.toFixed(1) + " px"); }
    });
  });

  // Labels attached to their points: a label's own point is the nearest to it, within 14 units
  // (chart units), unless a leader line joins the two.
  ["pareto", "budget-curve"].forEach(function (id) {
    var svg = document.getElementById(id);
    if (!svg) { return; }
    var scale = svgScale(svg), pts = all(svg, ".pt");
    all(svg, "text.label[data-name]").forEach(function (t) {
      var name = t.getAttribute("data-name");
      var own = pts.filter(function (p) {
        var tip = titleOf(p);
        return p.getAttribute("data-name") === name || tip.indexOf(name + " (") === 0 || tip.indexOf(name + ":") === 0;
      })[0];
      if (!own) { c.labelToPoint.push("svg#" + id + " \"" + name + "\": no point of that name"); return; }
      var box = t.getBoundingClientRect(), p = centre(own), d = distToRect(p, box) / scale;
      var nearer = pts.filter(function (q) { return q !== own && distToRect(centre(q), box) / scale < d - 2; }).length;
      var leader = all(svg, "line.leader").some(function (l) {
        if (l.getAttribute("data-name") !== name) { return false; }
        var m = l.getScreenCTM(), a = svg.createSVGPoint(), b = svg.createSVGPoint();
        a.x = l.x1.baseVal.value; a.y = l.y1.baseVal.value; b.x = l.x2.baseVal.value; b.y = l.y2.baseVal.value;
        a = a.matrixTransform(m); b = b.matrixTransform(m);
        return Math.hypot(a.x - p.x, a.y - p.y) / scale < 10 && distToRect(b, box) / scale < 4;
      });
      if (!leader && (d > 14 || nearer > 0)) {
        c.labelToPoint.push("svg#" + id + " \"" + name + "\": " + d.toFixed(0) + " units from its point" + (nearer ? ", " + nearer + " other points nearer" : ""));
      }
    });
  });

  // Per app: every bar visible, a zero one too.
  var perApp = document.getElementById("per-app");
  if (perApp) {
    all(perApp, "rect").forEach(function (r) {
      if (!r.querySelector("title")) { return; }
      if (r.getBoundingClientRect().width < 1) { c.zeroBars.push("svg#per-app: " + titleOf(r) + " draws " + r.getBoundingClientRect().width.toFixed(1) + " px"); }
    });
  }

  // Budget chart: each budget mark labelled; the x axis starts near the data (points, family
  // fronts, budget marks): less than a tenth of its width before the first.
  var budget = document.getElementById("budget-curve");
  if (budget) {
    var labels = all(budget, "text.budget-label");
    all(budget, "line.budget-mark").forEach(function (l) {
      var x = l.getBoundingClientRect().left;
      var ok = labels.some(function (t) { var r = t.getBoundingClientRect(); return visible(t) && x >= r.left - 3 && x <= r.right + 3; });
      if (!ok) { c.budgetMarksUnlabelled.push("svg#budget-curve: " + titleOf(l)); }
    });
    var axis = budget.querySelector("path.axis");
    if (axis) {
      var a = axis.getBoundingClientRect();
      var xs = all(budget, ".pt").map(function (p) { return centre(p).x; });
      all(budget, "g.family polyline").forEach(function (pl) { xs = xs.concat(polylinePoints(pl).map(function (p) { return p.x; })); });
      // The budget marks are drawn content too: the axis may start at the smallest budget.
      all(budget, "line.budget-mark").forEach(function (l) { xs.push(l.getBoundingClientRect().left); });
      if (xs.length) {
        var gap = (Math.min.apply(null, xs) - a.left) / a.width;
        if (gap > 0.1) { c.axisFarFromData.push("svg#budget-curve: the data starts " + Math.round(gap * 100) + " % of the axis from its start"); }
      }
    }
  }

  // Ranking: a divider where the budget band changes; names not broken inside a word.
  var ranking = document.getElementById("ranking");
  if (ranking) {
    var col = -1;
    Array.prototype.forEach.call(ranking.tHead.rows[0].cells, function (th, i) { if (th.textContent === "fetches/app/day") { col = i; } });
    var bands = [0.5, 1, 2, 5, 10], last = null;
    Array.prototype.forEach.call(ranking.tBodies[0].rows, function (row) {
      var band = row.getAttribute("data-band");
      if (band === null) {
        var fam = row.getAttribute("data-family") || "";
        var v = parseFloat(row.cells[col].getAttribute("data-v"));
        band = /oracle/.test(fam) ? "oracle" : String(bands.filter(function (b) { return v > b + 1e-9; }).length);
      }
      if (last !== null && band !== last) {
        var cell = row.cells[0], s = getComputedStyle(cell);
        var ruled = parseFloat(s.borderTopWidth) >= 2 && s.borderTopStyle !== "none";
        var divider = row.previousElementSibling && row.previousElementSibling.classList.contains("band-divider");
        if (!ruled && !divider) { c.bandDividers.push("table#ranking: no divider above " + row.cells[1].textContent + " (band " + band + ")"); }
      }
      last = band;
    });
  }
  all(document, "#ranking tbody th, #budget-table tbody th").forEach(function (th) {
    var walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT), text;
    while ((text = walker.nextNode()) !== null) {
    var s = text.textContent, re = /[^\s,(]+[,(]?/g, m;
    while ((m = re.exec(s)) !== null) {
      var range = document.createRange();
      range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
      var tops = {};
      Array.prototype.forEach.call(range.getClientRects(), function (r) { if (r.width > 0) { tops[Math.round(r.top)] = 1; } });
      if (Object.keys(tops).length > 1) { c.midWordBreaks.push(th.closest("table").id + ": \"" + m[0] + "\" broken over " + Object.keys(tops).length + " lines"); }
    }
    }
  });

  // Anything that scrolls sideways says so where it is seen.
  all(document, ".scroll").forEach(function (w) {
    if (w.scrollWidth <= w.clientWidth + 1) { return; }
    var hints = [w.previousElementSibling, w.nextElementSibling, w.querySelector(".scroll-hint")].filter(function (h) {
      return h && h.classList.contains("scroll-hint") && visible(h);
    });
    if (!hints.length) {
      var inner = w.querySelector("table, svg");
      c.unhintedScroll.push((inner ? inner.tagName.toLowerCase() + "#" + inner.id : "div") + ": " + w.scrollWidth + " px in " + w.clientWidth + " px, no hint");
    }
  });

  window.fetchlabChartChecks = out;
  var pre = document.createElement("pre");
  pre.id = "chartchecks";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
