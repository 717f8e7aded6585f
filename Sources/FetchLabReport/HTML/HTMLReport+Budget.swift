import FetchLabCore
import FetchLabResults
import Foundation

extension HTMLReport {
    // MARK: - (2) Freshness at a budget

    /// The budget curve: fresh@τ against fetches per app per day — the clairvoyant bound, the
    /// fixed-interval baseline, each causal family's Pareto front, `never` — then the table of budgets.
    static func budget(_ r: ComparisonReport, _ picks: Picks) -> String {
        let ps = r.policies
        let frame = PlotFrame(width: 760, height: 400, top: 28)
        let n = SVGChart.n
        let bound = r.boundCurve.compactMap { $0.count >= 2 && $0[0] > 0 ? (x: $0[0], y: $0[1]) : nil }
        let lines = familyFronts(ps, picks)
        let costs = ps.map(\.metrics.fetchesPerAppDay).filter { $0 > 0 } + (r.budget?.budgets ?? [])
        // The axis starts at the cheapest policy or budget (a little before), not at a power of ten.
        let low = max(0.01, (costs.min() ?? 0.1) / 1.25)
        let high = max(costs.max() ?? 10, bound.last?.x ?? 1)
        let x = LogScale(domain: low...max(high, low * 10), from: frame.x0, to: frame.x1)
        // The baseline is joined linearly in fetches: on the log scale its segments are sampled.
        let fixedCurve = SVGChart.sampledOnLogScale(
            r.fixedCurve.compactMap { $0.count >= 2 ? (x: $0[0], y: $0[1]) : nil }, from: low, to: high)
        let ys = ps.map(picks.fresh) + bound.map(\.y) + fixedCurve.filter { $0.x <= high }.map(\.y)
        let y = LinearScale(covering: ys, including: [0, 1], from: frame.y0, to: frame.y1)
        var body = frame.axes(
            x: x, y: y, xTitle: "fetches per app per day (log scale)", yTitle: picks.tauText, xLabel: tick,
            yLabel: percentTick)
        func clip(_ pts: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
            pts.filter { $0.x >= low && $0.x <= high }.map { (x: x.position($0.x), y: y.position($0.y)) }
        }
        if let b = r.budget {
            for budget in b.budgets where budget >= low && budget <= high {
                let bx = n(x.position(budget))
                body +=
                    "<line class=\"budget-mark\" x1=\"\(bx)\" x2=\"\(bx)\" y1=\"\(n(frame.y0))\" y2=\"\(n(frame.y1))\">"
                    + "<title>budget \(CompareRenderer.budgetText(budget)) fetches/app/day</title></line>"
                    + "<text class=\"budget-label\" data-budget=\"\(budget)\" x=\"\(bx)\" y=\"\(n(frame.y1 - 5))\" "
                    + "text-anchor=\"middle\">\(HTML.escape(CompareRenderer.budgetText(budget)))</text>"
            }
        }
        if !bound.isEmpty {
            var xy = clip(bound)
            if let last = bound.last, last.x < high { xy.append((x: frame.x1, y: y.position(last.y))) }
            body +=
                "<polyline class=\"frontier bound\" points=\"\(SVGChart.points(xy))\"><title>the clairvoyant bound</title></polyline>"
        }
        if !fixedCurve.isEmpty {
            body +=
                "<polyline class=\"fixed-curve\" points=\"\(SVGChart.points(clip(fixedCurve)))\"><title>fixed intervals (the baseline)</title></polyline>"
        }
        if let never = r.budgetCurve.first?.never {
            let ny = n(y.position(never))
            body +=
                "<line class=\"never-line\" x1=\"\(n(frame.x0))\" x2=\"\(n(frame.x1))\" y1=\"\(ny)\" y2=\"\(ny)\"><title>never: \(percent(never))</title></line>"
        }
        for line in lines {
            let c = picks.colour(line.family)
            let xy = clip(line.front.map { (x: $0.metrics.fetchesPerAppDay, y: picks.fresh($0)) })
            body +=
                "<g class=\"family\" data-family=\"\(HTML.escape(line.family))\"><polyline class=\"curve s\(c)\" "
                + "points=\"\(SVGChart.points(xy))\"><title>\(HTML.escape(line.family))</title></polyline></g>"
        }
        // The oracles are what the bound stands for: not drawn as points.
        var drawn = 0
        var shown: [String] = []
        for p in ps
        where !p.isClairvoyant && p.metrics.fetchesPerAppDay >= low
            && p.metrics.fetchesPerAppDay <= high
        {
            if !shown.contains(p.family) { shown.append(p.family) }
            drawn += 1
            let tip =
                "\(p.name): \(picks.tauText) \(percent(picks.fresh(p))) at \(fixed(p.metrics.fetchesPerAppDay, 2)) fetches/app/day"
                + (p.metrics.gainVsFixed.map { String(format: ", %+.1f points over fixed intervals", $0 * 100) } ?? "")
                + (p.metrics.shareOfPossible.map { String(format: ", %.2f of the possible gain", $0) } ?? "")
            body += mark(
                p.family, picks, cx: x.position(p.metrics.fetchesPerAppDay), cy: y.position(picks.fresh(p)), r: 4,
                cls: "pt", name: p.name, title: tip)
        }
        body += legend(shown, picks, x: frame.x0, y: frame.height + 10, width: frame.x1 - frame.x0)
        let chart = svg(
            id: "budget-curve", width: frame.width,
            height: frame.height + legendHeight(shown, width: frame.x1 - frame.x0),
            data: [("lines", lines.count), ("points", drawn), ("bound", bound.count), ("fixed", r.fixedCurve.count)],
            title:
                "\(picks.tauText) against fetches per app per day: the clairvoyant bound, fixed intervals, each family's front",
            body)
        var caption =
            "\(picks.tauText) against fetches per app per day (averaged over pairs). Dashed: the clairvoyant bound, the "
            + "most any scheduler that knew every launch could make fresh with that many fetches. Grey: the fixed-interval "
            + "baseline, what a fixed interval gives at each cost in expectation over its phase. Coloured: each "
            + "family's Pareto front. The flat line is never; the vertical marks, numbered at the top, are the budgets of "
            + "the table."
        if r.budgetCurve.isEmpty { caption += " This run has no budget figures (stored before they existed)." }
        return """
            <section id="budget-section"><h2>Freshness at a budget</h2>
            \(figure(chart, caption: caption))
            \(budgetTable(r))\(ceilings(r))</section>
            """
    }

    /// The table of budgets: rows bound, each family (with its setting and share), fixed, never.
    static func budgetTable(_ r: ComparisonReport) -> String {
        let curve = r.budgetCurve
        guard !curve.isEmpty else { return "" }
        let families = Array(Set(curve.flatMap { $0.families.keys })).sorted()
        var head = "<tr><th>\(HTML.escape("fresh@" + CompareRenderer.minutes(r.settings.tau.inMinutes)))</th>"
        for p in curve { head += "<th>\(HTML.escape(CompareRenderer.budgetText(p.budget)))/app/day</th>" }
        head += "</tr>"
        /// A cell's first line, and its second (after a line break) in small type.
        func cell(_ text: String) -> String {
            let lines = text.split(separator: "\n", maxSplits: 1).map(String.init)
            return "<td>\(HTML.escape(lines[0]))"
                + (lines.count > 1 ? "<br><small>\(HTML.escape(lines[1]))</small>" : "") + "</td>"
        }
        func row(_ name: String, _ cells: [String], cls: String = "") -> String {
            "<tr\(cls.isEmpty ? "" : " class=\"\(cls)\"")><th scope=\"row\">\(HTML.escape(name))</th>"
                + cells.map(cell).joined() + "</tr>"
        }
        var body = row("clairvoyant bound", curve.map { percent($0.bound) }, cls: "bound")
        for f in families {
            body += row(
                f,
                curve.map { p in
                    guard let v = p.families[f] else { return "–" }
                    var cell = percent(v.fresh)
                    if let i = v.freshInterval { cell += String(format: " [%.1f–%.1f]", i.low * 100, i.high * 100) }
                    var detail = String(format: "%+.1f pts", v.gainVsFixed * 100)
                    if let s = v.shareOfPossible { detail += String(format: ", share %.2f", s) }
                    detail += " · " + (v.policy ?? "mixed with never")
                    return cell + "\n" + detail
                })
        }
        body += row(
            "fixed interval",
            curve.map { p in
                percent(p.fixed)
                    + (p.fixedInterval.map { String(format: " [%.1f–%.1f]", $0.low * 100, $0.high * 100) } ?? "")
            },
            cls: "fixed")
        body += row("never", curve.map { percent($0.never) })
        var note =
            "Each family at each budget: its best setting at or under the budget (mixed with never across apps below "
            + "its cheapest), its 95 % interval, its gain over the fixed-interval baseline in points, and its share of "
            + "the possible gain, (family − fixed) / (bound − fixed), shown where the bound is at least 2 points above fixed."
        if let b = r.budget, b.resamples > 0 {
            note += " Intervals: bootstrap \(r.intervalScope), \(b.resamples) resamples, seed \(b.seed)."
        }
        if r.settings.platform != .none {
            note +=
                " The bound and the fixed-interval baseline are the protocol's (every fetch asked for happens); the "
                + "\(r.settings.platform.rawValue) platform model applies to the policies only."
        }
        for w in r.budget?.warnings ?? [] { note += " Warning: \(w)." }
        return
            scrollHint
            + "<div class=\"scroll\"><table id=\"budget-table\" data-budgets=\"\(curve.count)\"><thead>\(head)</thead><tbody>\(body)</tbody></table></div>"
            + "<p class=\"caption\">\(HTML.escape(note))</p>"
    }

    /// Each causal family's Pareto front (fresh@τ up, fetches down), by fetches per day; families
    /// in order of appearance, `never`, `fixed` and the oracles left out.
    static func familyFronts(_ policies: [PolicyResult], _ picks: Picks) -> [(family: String, front: [PolicyResult])] {
        var out: [(family: String, front: [PolicyResult])] = []
        for p in policies where p.isReadAtBudget {
            if let i = out.firstIndex(where: { $0.family == p.family }) {
                out[i].front.append(p)
            } else {
                out.append((p.family, [p]))
            }
        }
        return out.map { line in
            var front: [PolicyResult] = []
            var top = -Double.infinity
            for p in line.front.sorted(by: { $0.metrics.fetchesPerAppDay < $1.metrics.fetchesPerAppDay })
            where picks.fresh(p) > top {
                top = picks.fresh(p)
                front.append(p)
            }
            return (line.family, front)
        }
    }
}
