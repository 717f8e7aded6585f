import FetchLabCore
import FetchLabResults
import Foundation

extension HTMLReport {
    // MARK: - (3) Freshness against energy, the Pareto front

    /// The indices (into `policies`) of the Pareto front of fresh@τ (max) against energy (min).
    static func paretoFront(_ policies: [PolicyResult], _ picks: Picks) -> [Int] {
        SVGChart.paretoFront(policies.map { (x: $0.metrics.energyJoulesPerDay, y: picks.fresh($0)) })
    }

    static func pareto(_ r: ComparisonReport, _ picks: Picks) -> String {
        let ps = r.policies
        let frame = PlotFrame(width: 760, height: 420)
        let x = LinearScale(
            covering: ps.map(\.metrics.energyJoulesPerDay), including: [0], from: frame.x0, to: frame.x1)
        let y = LinearScale(covering: ps.map(picks.fresh), including: [0, 1], from: frame.y0, to: frame.y1)
        let front = paretoFront(ps, picks)
        var body = frame.axes(
            x: x, y: y, xTitle: "energy per user per day (J)", yTitle: picks.tauText, xLabel: tick,
            yLabel: percentTick)
        let line = front.map { (x: x.position(ps[$0].metrics.energyJoulesPerDay), y: y.position(picks.fresh(ps[$0]))) }
        body += "<polyline class=\"front\" points=\"\(SVGChart.points(line))\"/>"
        for (i, p) in ps.enumerated() {
            let onFront = front.contains(i)
            let tip =
                "\(p.name) (\(p.family)): \(picks.tauText) \(percent(picks.fresh(p))), "
                + "\(fixed(p.metrics.energyJoulesPerDay, 1)) J/day, \(fixed(p.metrics.fetchesPerAppDay, 2)) fetches/app/day"
                + (onFront ? "; on the Pareto front" : "")
            body += mark(
                p.family, picks, cx: x.position(p.metrics.energyJoulesPerDay), cy: y.position(picks.fresh(p)),
                r: onFront ? 6 : 4, cls: onFront ? "pt on-front" : "pt", name: p.name, title: tip)
        }
        // Names of the recommended policy and of the front's points, each beside its point inside
        // the chart, clear of every point and of the names already written (a front point's name
        // left out when no place is free; the recommended one's always written).
        var placer = LabelPlacer(width: frame.width, height: frame.height)
        for (i, p) in ps.enumerated() {
            placer.avoid(
                x: x.position(p.metrics.energyJoulesPerDay), y: y.position(picks.fresh(p)),
                r: front.contains(i) ? 6 : 4)
        }
        let recommended = ps.firstIndex { $0.name == picks.recommended?.name }
        var labelled: [Int] = []
        for i in (recommended.map { [$0] } ?? []) + front where !labelled.contains(i) {
            labelled.append(i)
            let p = ps[i]
            if let text = placer.place(
                p.name, x: x.position(p.metrics.energyJoulesPerDay), y: y.position(picks.fresh(p)),
                r: front.contains(i) ? 6 : 4, cls: i == recommended ? "label recommended" : "label",
                force: i == recommended)
            {
                body += text
            }
        }
        body += legend(picks.families, picks, x: frame.x0, y: frame.height + 10, width: frame.x1 - frame.x0)
        let svg = svg(
            id: "pareto", width: frame.width,
            height: frame.height + legendHeight(picks.families, width: frame.x1 - frame.x0),
            data: [("points", ps.count), ("front", front.count)],
            title: "\(picks.tauText) against energy per day, every policy; the Pareto front joined", body)
        return """
            <section id="pareto-section"><h2>Freshness against energy</h2>
            \(figure(svg, caption: paretoCaption(ps, front, picks)))</section>
            """
    }

    static func paretoCaption(_ ps: [PolicyResult], _ front: [Int], _ picks: Picks) -> String {
        guard !ps.isEmpty else { return "No policies were compared." }
        var out =
            "Each point is a policy: \(picks.tauText) (up) against the energy its fetches draw from the battery per user "
            + "per day (right). The line joins the Pareto front, the policies no other policy beats on both counts: "
            + front.map { ps[$0].name }.joined(separator: ", ") + "."
        if let rec = picks.recommended {
            if let i = ps.firstIndex(where: { $0.name == rec.name }), front.contains(i) {
                out += " The recommended \(rec.name) is on the front: nothing is fresher for less energy."
            } else if let better = ps.filter({
                $0.metrics.energyJoulesPerDay <= rec.metrics.energyJoulesPerDay && picks.fresh($0) > picks.fresh(rec)
            }).max(by: { picks.fresh($0) < picks.fresh($1) }) {
                out +=
                    " The recommended \(rec.name) is off the front: \(better.name) is fresher "
                    + "(\(percent(picks.fresh(better))) against \(percent(picks.fresh(rec)))) for no more energy"
                    + (better.isClairvoyant ? " (but it is not a causal policy)." : ".")
            } else {
                out += " The recommended \(rec.name) is off the front: an equally fresh policy spends less energy."
            }
        }
        return out
    }

    // MARK: - (5) Per app

    static func perApp(_ r: ComparisonReport, _ picks: Picks) -> String {
        guard let rec = picks.recommended, !rec.perApp.isEmpty else {
            return """
                <section id="per-app-section"><h2>Per app</h2><p class="caption">\(HTML.escape(picks.recommended == nil ? "No policy is recommended, so there is no per-app comparison." : "No per-app results were recorded."))</p></section>
                """
        }
        let compared: [(String, PolicyResult?)] = [
            ("never", picks.never), (picks.bestFixed?.name ?? "", picks.bestFixed), (rec.name, rec),
        ]
        let present = compared.compactMap { c in c.1.map { (c.0, $0) } }
        func value(_ p: PolicyResult, _ app: String) -> Double? {
            p.perApp.first { $0.name == app }.map { picks.fresh($0.metrics) }
        }
        let apps = rec.perApp.map(\.name)
        let bar = 9.0
        let rowHeight = Double(present.count) * bar + 10
        let left = labelMargin(apps, least: 170, most: 300)
        let width = 760.0
        let rowsEnd = 4 + Double(apps.count) * rowHeight
        let legend = flowLegend(
            present.map { (name, p) in
                (
                    mark: { (cx: Double, cy: Double) in
                        "<rect class=\"\(barClass(p, rec, picks))\" x=\"\(SVGChart.n(cx - 5))\" y=\"\(SVGChart.n(cy - 5))\" width=\"10\" height=\"10\"/>"
                    }, label: name
                )
            }, x: left, y: rowsEnd + 40, width: width - 20 - left)
        let height = rowsEnd + 40 + legend.height
        let x = LinearScale(domain: 0...1, from: left, to: width - 60)
        let n = SVGChart.n
        var body = ""
        for t in x.ticks() {
            body +=
                "<line class=\"grid\" x1=\"\(n(x.position(t)))\" x2=\"\(n(x.position(t)))\" y1=\"4\" y2=\"\(n(rowsEnd + 4))\"/>"
                + "<text class=\"tick\" x=\"\(n(x.position(t)))\" y=\"\(n(rowsEnd + 20))\" text-anchor=\"middle\">\(percentTick(t))</text>"
        }
        for (a, app) in apps.enumerated() {
            let top = 4 + Double(a) * rowHeight
            body +=
                "<text class=\"label\" x=\"\(n(left - 6))\" y=\"\(n(top + rowHeight / 2 - 3))\" dy=\"0.32em\" text-anchor=\"end\"><title>\(HTML.escape(app))</title>\(HTML.escape(HTML.fit(app, width: left - 12)))</text>"
            for (k, (name, p)) in present.enumerated() {
                guard let v = value(p, app) else { continue }
                // A bar at 0 % is drawn 2 units wide and outlined: there, not missing.
                let cls = barClass(p, rec, picks) + (v <= 0.004 ? " bar-zero" : "")
                body +=
                    "<rect class=\"\(cls)\" x=\"\(n(left))\" y=\"\(n(top + Double(k) * bar))\" width=\"\(n(max(2, x.position(v) - left)))\" "
                    + "height=\"\(n(bar - 1))\"><title>\(HTML.escape("\(app), \(name): \(picks.tauText) \(percent(v))"))</title></rect>"
            }
        }
        body += legend.svg
        body +=
            "<text class=\"axis-title\" x=\"\(n(left - 6))\" y=\"\(n(rowsEnd + 40))\" dy=\"0.32em\" text-anchor=\"end\">"
            + "\(HTML.escape(picks.tauText))</text>"
        let chart = svg(
            id: "per-app", width: width, height: height, data: [("apps", apps.count)],
            title: "\(picks.tauText) per app under never, the best fixed interval and the recommended policy", body)
        // Which apps prediction helps: ahead of the better of never and the fixed interval by 5 points.
        var helps: [(String, Double)] = []
        var cannot: [String] = []
        for app in apps {
            guard let v = value(rec, app) else { continue }
            let base = [picks.never, picks.bestFixed].compactMap { $0.flatMap { value($0, app) } }.max() ?? 0
            if v - base >= 0.05 { helps.append((app, v - base)) } else { cannot.append(app) }
        }
        helps.sort { $0.1 > $1.1 }
        var caption =
            "\(picks.tauText) of each app under never, \(picks.bestFixed?.name ?? "no fixed interval") and the recommended "
            + "\(rec.name). "
        caption +=
            helps.isEmpty
            ? "Prediction is not 5 points ahead of the better of never and the fixed interval on any app."
            : "Prediction helps on "
                + helps.map { "\($0.0) (+\(String(format: "%.0f", $0.1 * 100)) points)" }.joined(separator: ", ") + "."
        if !cannot.isEmpty {
            caption += " It cannot help (less than 5 points ahead) on " + cannot.joined(separator: ", ") + "."
        }
        return """
            <section id="per-app-section"><h2>Per app</h2>
            \(figure(chart, caption: caption))</section>
            """
    }

    /// The bar colour of a policy in the per-app chart: grey for never, the family colour (paler
    /// for the fixed interval) otherwise.
    static func barClass(_ p: PolicyResult, _ recommended: PolicyResult, _ picks: Picks) -> String {
        if p.role == .floor { return "bar-never" }
        return "f\(picks.colour(p.family))" + (p.name == recommended.name ? "" : " bar-base")
    }

    // MARK: - (7) Skips by reason

    static func skips(_ r: ComparisonReport) -> String {
        let with = CompareRenderer.ranked(r.policies).filter { $0.metrics.skipped > 0 }
        guard !with.isEmpty else {
            return """
                <section id="skips-section"><h2>Refused fetches</h2><p class="caption">No policy had a fetch refused or expired.</p></section>
                """
        }
        let reasons = SkipReason.allCases.filter { reason in with.contains { ($0.metrics.skips[reason] ?? 0) > 0 } }
        let most = with.map(\.metrics.skipped).max() ?? 1
        let left = labelMargin(with.map(\.name), least: 200, most: 320)
        let width = 760.0
        let row = 20.0
        let rowsEnd = 4 + Double(with.count) * row
        let legend = flowLegend(
            reasons.map { reason in
                (
                    mark: { (cx: Double, cy: Double) in
                        "<rect class=\"\(reasonClass(reason))\" x=\"\(SVGChart.n(cx - 5))\" y=\"\(SVGChart.n(cy - 5))\" width=\"10\" height=\"10\"/>"
                    }, label: reason.label
                )
            }, x: left, y: rowsEnd + 34, width: width - 20 - left)
        let height = rowsEnd + 34 + legend.height
        let x = LinearScale(covering: [Double(most)], including: [0], from: left, to: width - 20)
        let n = SVGChart.n
        var body = ""
        for t in x.ticks() {
            body +=
                "<line class=\"grid\" x1=\"\(n(x.position(t)))\" x2=\"\(n(x.position(t)))\" y1=\"4\" y2=\"\(n(rowsEnd))\"/>"
                + "<text class=\"tick\" x=\"\(n(x.position(t)))\" y=\"\(n(rowsEnd + 14))\" text-anchor=\"middle\">\(tick(t))</text>"
        }
        for (i, p) in with.enumerated() {
            let top = 4 + Double(i) * row
            body +=
                "<text class=\"label\" x=\"\(n(left - 6))\" y=\"\(n(top + row / 2 - 1))\" dy=\"0.32em\" text-anchor=\"end\"><title>\(HTML.escape(p.name))</title>\(HTML.escape(HTML.fit(p.name, width: left - 12)))</text>"
            var at = 0
            for reason in reasons {
                let count = p.metrics.skips[reason] ?? 0
                guard count > 0 else { continue }
                let x0 = x.position(Double(at))
                let x1 = x.position(Double(at + count))
                body +=
                    "<rect class=\"\(reasonClass(reason))\" x=\"\(n(x0))\" y=\"\(n(top))\" width=\"\(n(x1 - x0))\" height=\"\(n(row - 4))\">"
                    + "<title>\(HTML.escape("\(p.name): \(reason.label) \(TextFormat.count(count))"))</title></rect>"
                at += count
            }
        }
        body += legend.svg
        let chart = svg(
            id: "skips", width: width, height: height, data: [("policies", with.count), ("reasons", reasons.count)],
            title: "Fetches refused or expired, by reason, per policy", body)
        let totals = reasons.map { reason in (reason, with.reduce(0) { $0 + ($1.metrics.skips[reason] ?? 0) }) }
        return """
            <section id="skips-section"><h2>Refused fetches</h2>
            \(figure(chart, caption: skipsCaption(with, totals)))</section>
            """
    }

    static func skipsCaption(_ with: [PolicyResult], _ totals: [(SkipReason, Int)]) -> String {
        var out = "Fetches each policy asked for and did not get (or that expired), by reason; only policies with any."
        if let top = totals.max(by: { $0.1 < $1.1 }) {
            out += " The most common reason is \(top.0.label) (\(TextFormat.count(top.1)) over all policies)."
        }
        if let most = with.max(by: { $0.metrics.skipped < $1.metrics.skipped }) {
            out +=
                " \(most.name) loses the most: \(TextFormat.count(most.metrics.skipped)) of \(TextFormat.count(most.metrics.skipped + most.metrics.fetches)) asked for."
        }
        return out
    }

    static func reasonClass(_ reason: SkipReason) -> String {
        "r\(SkipReason.allCases.firstIndex(of: reason) ?? 0)"
    }

    // MARK: - (8) Staleness at launch

    static func staleness(_ r: ComparisonReport, _ picks: Picks) -> String {
        let thresholds = PolicyMetrics.stalenessCDFMinutes
        var keys: [(String, PolicyResult)] = []
        for (role, p) in [
            ("never", picks.never), ("best fixed", picks.bestFixed), ("recommended", picks.recommended),
            ("oracle", picks.oracle),
        ] {
            guard let p, p.metrics.stalenessCDF.count == thresholds.count,
                !keys.contains(where: { $0.1.name == p.name })
            else { continue }
            keys.append((role, p))
        }
        guard !keys.isEmpty else {
            return """
                <section id="staleness-section"><h2>Staleness at launch</h2><p class="caption">No staleness distribution was recorded.</p></section>
                """
        }
        let frame = PlotFrame(width: 760, height: 380)
        let x = LogScale(domain: thresholds[0]...thresholds[thresholds.count - 1], from: frame.x0, to: frame.x1)
        let y = LinearScale(domain: 0...1, from: frame.y0, to: frame.y1)
        let n = SVGChart.n
        var body = frame.axes(
            x: x, y: y, xTitle: "staleness at launch, minutes (log scale)", yTitle: "share of launches less stale",
            xLabel: tick, yLabel: percentTick)
        for (k, (role, p)) in keys.enumerated() {
            let xy = zip(thresholds, p.metrics.stalenessCDF).map { (x: x.position($0.0), y: y.position($0.1)) }
            let c = picks.colour(p.family)
            body +=
                "<g class=\"cdf\" data-policy=\"\(HTML.escape(p.name))\"><polyline class=\"curve s\(c) dash\(k)\" points=\"\(SVGChart.points(xy))\">"
                + "<title>\(HTML.escape("\(p.name) (\(role))"))</title></polyline>"
            for (t, v) in zip(thresholds, p.metrics.stalenessCDF) {
                body += mark(
                    p.family, picks, cx: x.position(t), cy: y.position(v), r: 3, cls: "pt",
                    title: "\(p.name): \(percent(v)) of launches less than \(CompareRenderer.minutes(t)) stale")
            }
            body += "</g>"
        }
        // The key below the plot, never over a curve: each line's dash, colour and marker.
        let legend = flowLegend(
            keys.enumerated().map { (k, key) in
                (
                    mark: { (cx: Double, cy: Double) in
                        "<g><line class=\"curve s\(picks.colour(key.1.family)) dash\(k)\" x1=\"\(n(cx - 12))\" x2=\"\(n(cx + 6))\" "
                            + "y1=\"\(n(cy))\" y2=\"\(n(cy))\"/>"
                            + mark(key.1.family, picks, cx: cx - 2, cy: cy, r: 3) + "</g>"
                    }, label: "\(key.1.name) (\(key.0))"
                )
            }, x: frame.x0 + 12, y: frame.height + 8, width: frame.x1 - frame.x0 - 12)
        body += legend.svg
        let chart = svg(
            id: "staleness-cdf", width: frame.width, height: frame.height + 8 + legend.height,
            data: [("lines", keys.count)],
            title: "Distribution of staleness at launch for the key policies", body)
        let tau = r.settings.tau.inMinutes
        let at = thresholds.enumerated().min { abs($0.element - tau) < abs($1.element - tau) }?.offset ?? 0
        let caption =
            "The share of launches less stale than each threshold (higher and further left is better). Less than "
            + "\(CompareRenderer.minutes(thresholds[at])) stale: "
            + keys.map { "\($0.1.name) \(percent($0.1.metrics.stalenessCDF[at]))" }.joined(separator: ", ") + "."
        return """
            <section id="staleness-section"><h2>Staleness at launch</h2>
            \(figure(chart, caption: caption))</section>
            """
    }

    // MARK: - Pieces

    /// One line of family swatches.
    static func legend(_ families: [String], _ picks: Picks, x: Double, y: Double, width: Double) -> String {
        var out = "<g class=\"legend\">"
        let n = SVGChart.n
        for (family, place) in zip(families, legendPlaces(families, x: x, y: y, width: width)) {
            out +=
                mark(family, picks, cx: place.x + 5, cy: place.y - 4, r: 4)
                + "<text class=\"legend\" data-family=\"\(HTML.escape(family))\" x=\"\(n(place.x + 12))\" y=\"\(n(place.y))\">"
                + "\(HTML.escape(HTML.fit(family, width: width - 16)))</text>"
        }
        return out + "</g>"
    }

    /// Where each legend entry goes: left to right, on a new line of 16 units when the next would
    /// pass `width`.
    static func legendPlaces(_ families: [String], x: Double, y: Double, width: Double) -> [(x: Double, y: Double)] {
        var at = x
        var line = y
        return families.map { family in
            let w = 24 + HTML.textWidth(HTML.fit(family, width: width - 16))
            if at > x, at + w - 12 > x + width {
                at = x
                line += 16
            }
            defer { at += w }
            return (at, line)
        }
    }

    /// The height a legend of `families` adds below a chart.
    static func legendHeight(_ families: [String], width: Double) -> Double {
        (legendPlaces(families, x: 0, y: 0, width: width).last?.y ?? 0) + 16
    }

    /// Legend entries left to right from `x`, each a mark (drawn by `mark` around its centre) and
    /// a label (elided to the width), on a new row 16 units down when the next would pass
    /// `x + width`; `y` is the first row's centre line. The SVG and the height from `y` down to
    /// below the last row.
    static func flowLegend(
        _ items: [(mark: (Double, Double) -> String, label: String)], x: Double, y: Double, width: Double
    ) -> (svg: String, height: Double) {
        let n = SVGChart.n
        var out = "<g class=\"legend\">"
        var at = x
        var line = y
        for item in items {
            let label = HTML.fit(item.label, width: width - 16)
            let w = 16 + HTML.textWidth(label)
            if at > x, at + w > x + width {
                at = x
                line += 16
            }
            out +=
                item.mark(at + 5, line)
                + "<text class=\"legend\" x=\"\(n(at + 14))\" y=\"\(n(line))\" dy=\"0.32em\">\(HTML.escape(label))</text>"
            at += w + 20
        }
        return (out + "</g>", line - y + 16)
    }

    /// The left margin of a chart whose rows are named on the left: room for the longest name,
    /// at least `least` and at most `most` (longer names are elided).
    static func labelMargin(_ names: [String], least: Double, most: Double) -> Double {
        min(most, max(least, (names.map { HTML.textWidth($0) }.max() ?? 0) + 14))
    }

    /// A tick label: `0.5`, `24`, `1,440`.
    static func tick(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e12 { return TextFormat.count(Int(v)) }
        return String(format: abs(v) < 0.1 ? "%.2f" : "%.1f", v)
    }

    static func percentTick(_ v: Double) -> String { String(format: "%.0f%%", v * 100) }
}

extension HTMLReport {
    /// How many family colours the style sheet has (`.f0`–`.f11`, `.s0`–`.s11`).
    static let paletteSize = 12

    /// The marker shapes a family's points are drawn with (with its colour, one pair per family).
    enum Marker: String, CaseIterable, Sendable {
        case circle, square, triangle, diamond, down

        /// The SVG path of the shape centred on (`cx`, `cy`), about as large as a circle of radius `r`.
        func path(_ cx: Double, _ cy: Double, _ r: Double) -> String {
            let n = SVGChart.n
            switch self {
            case .circle:
                return
                    "M\(n(cx - r)) \(n(cy))a\(n(r)) \(n(r)) 0 1 0 \(n(2 * r)) 0a\(n(r)) \(n(r)) 0 1 0 \(n(-2 * r)) 0Z"
            case .square:
                let s = r * 0.9
                return "M\(n(cx - s)) \(n(cy - s))H\(n(cx + s))V\(n(cy + s))H\(n(cx - s))Z"
            case .triangle:
                let s = r * 1.2
                return "M\(n(cx)) \(n(cy - s))L\(n(cx + s)) \(n(cy + s * 0.8))H\(n(cx - s))Z"
            case .diamond:
                let s = r * 1.25
                return "M\(n(cx)) \(n(cy - s))L\(n(cx + s)) \(n(cy))L\(n(cx)) \(n(cy + s))L\(n(cx - s)) \(n(cy))Z"
            case .down:
                let s = r * 1.2
                return "M\(n(cx)) \(n(cy + s))L\(n(cx + s)) \(n(cy - s * 0.8))H\(n(cx - s))Z"
            }
        }
    }

    /// A family's mark at (`cx`, `cy`): its colour and its shape; `cls` adds classes (`pt`,
    /// `on-front`), `name` the policy it stands for (`data-name`), `title` its tooltip.
    static func mark(
        _ family: String, _ picks: Picks, cx: Double, cy: Double, r: Double, cls: String = "", name: String? = nil,
        title: String? = nil
    ) -> String {
        let marker = picks.marker(family)
        let classes = ([cls].filter { !$0.isEmpty } + ["f\(picks.colour(family))"]).joined(separator: " ")
        return "<path class=\"\(classes)\" data-marker=\"\(marker.rawValue)\" data-family=\"\(HTML.escape(family))\""
            + (name.map { " data-name=\"\(HTML.escape($0))\"" } ?? "")
            + " d=\"\(marker.path(cx, cy, r))\">" + (title.map { "<title>\(HTML.escape($0))</title>" } ?? "")
            + "</path>"
    }
}
