import FetchLabCore
import FetchLabResults
import Foundation

/// `compare`'s report as one self-contained HTML file: inline CSS, inline SVG charts, a little
/// plain JavaScript (the sortable table, the timeline's policy), no network requests.
///
/// Sections, in order (`<section id>`, direct children of `<main>`): `summary` (what was compared
/// and the headline, `p#headline`), `budget-section` (chart `svg#budget-curve` with `data-lines`,
/// `data-points`, `data-bound`, `data-fixed`; table `#budget-table` with `data-budgets`),
/// `ranking-section` (table `#ranking` with `data-rows`; each
/// cell's sort value in `data-v`), `pareto-section`, `per-app-section`,
/// `timeline-section` (`select#timeline-policy`), `skips-section`, `staleness-section`, and
/// `tuning-section` when a tuning run is given (see `tuning(_:platform:)`).
/// Charts: `svg#budget-curve`, `svg#pareto` (`data-points`, `data-front`), `svg#per-app`
/// (`data-apps`), `svg#timeline` (`data-policies`, `data-apps`, `data-shown`; one `g.day` per
/// policy with `data-policy`, `data-launches`, `data-fetches`, `data-skips`, all but one with
/// `display="none"`), `svg#skips` (`data-policies`, `data-reasons`), `svg#staleness-cdf`
/// (`data-lines`); the last four are replaced by a sentence when there is nothing to draw (the
/// first three are always there, possibly empty). With `#selftest` in
/// the address the page sorts the table by fetches/app/day, switches the timeline to the last
/// policy and writes into `pre#selftest`: `{"errors": [...], "rows": n, "sortColumn": "...",
/// "sortedOk": bool, "timelineSwitchOk": bool|null, "sections": [ids], "charts": {svg id:
/// {data attribute without "data-": number}}}`.
public enum HTMLReport {
    /// The whole page.
    /// - Parameters:
    ///   - report: the comparison.
    ///   - source: what data it ran on (a database path, `Datasets/sample`), shown as given.
    ///   - tuning: a tuning run to show after the comparison (`tuning(_:platform:)`), if any.
    public static func render(
        _ report: ComparisonReport, source: String, tuning: (result: TuningResult, platform: [PlatformOutcome])? = nil
    ) -> String {
        let picks = Picks(report)
        var sections = [
            summary(report, source: source, picks),
            budget(report, picks),
            ranking(report, picks),
            pareto(report, picks),
            perApp(report, picks),
            timeline(report, picks),
            skips(report),
            staleness(report, picks),
        ]
        if let tuning { sections.append(self.tuning(tuning.result, platform: tuning.platform, comparison: report)) }
        return page(
            title: "FetchLab policy comparison: \(source)", heading: "Background-fetch policies compared",
            source: source,
            sections: sections)
    }

    /// A page with only the tuning section (`tune --format html`).
    public static func render(tuning result: TuningResult, platform: [PlatformOutcome], source: String) -> String {
        page(
            title: "FetchLab tuning: \(source)", heading: "Background-fetch policy tuned", source: source,
            sections: [tuning(result, platform: platform)])
    }

    /// The document around `sections`: the CSP, the style sheet, the header and the scripts.
    static func page(title: String, heading: String, source: String, sections: [String]) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="FetchLab">
        <title>\(HTML.escape(title))</title>
        <script>\(Assets.errorCollector)</script>
        <style>\(Assets.css)</style>
        </head>
        <body>
        <header><h1>\(HTML.escape(heading))</h1><p class="source">Data: <code>\(HTML.escape(source))</code></p></header>
        <main>
        \(sections.joined(separator: "\n"))
        </main>
        <pre id="selftest" hidden></pre>
        <script>\(Assets.script)</script>
        </body>
        </html>

        """
    }

    /// The policies the sections single out.
    struct Picks {
        /// Index of the primary τ in each policy's fresh rates.
        var tau: Int
        var tauText: String
        var recommended: PolicyResult?
        /// The fixed interval with the highest fresh@τ at no more fetches than the recommended
        /// policy (of all fixed intervals without a recommendation).
        var bestFixed: PolicyResult?
        var never: PolicyResult?
        var oracle: PolicyResult?
        /// Colour index of each family, in order of first appearance.
        var families: [String]

        init(_ r: ComparisonReport) {
            tau = r.primaryTauIndex
            tauText = "fresh@" + CompareRenderer.minutes(r.settings.tau.inMinutes)
            recommended = r.recommended
            bestFixed = r.bestFixed(spendingAtMost: recommended?.metrics.fetchesPerAppDay ?? .infinity)
            never = r.first(.floor)
            oracle = r.oracle
            var families: [String] = []
            for p in r.policies where !families.contains(p.family) { families.append(p.family) }
            self.families = families
        }

        func fresh(_ p: PolicyResult) -> Double { fresh(p.metrics) }
        func fresh(_ m: PolicyMetrics) -> Double { m.fresh(at: tau) }

        /// The colour class index of a family (``HTMLReport/paletteSize`` colours, cycling).
        func colour(_ family: String) -> Int { (families.firstIndex(of: family) ?? 0) % HTMLReport.paletteSize }
        /// The marker shape of a family (``HTMLReport/Marker``, cycling): with 12 colours and 5
        /// shapes, the first 60 families each have their own pair of colour and shape.
        func marker(_ family: String) -> Marker {
            Marker.allCases[(families.firstIndex(of: family) ?? 0) % Marker.allCases.count]
        }
    }

    // MARK: - (1) What was compared, and the headline

    static func summary(_ r: ComparisonReport, source: String, _ picks: Picks) -> String {
        let s = r.settings
        let d = s.contextDefaults
        var span = "warm-up \(s.warmUpDays) d"
        if let a = s.firstScoredDay, let b = s.lastScoredDay { span = "scored \(a) to \(b) (after a \(span))" }
        let rules =
            platformText(s.platformRules, name: s.platform.rawValue)
            + (CompareRenderer.assumedContextNote(s).map { "; " + $0.drop { $0 != ":" }.dropFirst(2) } ?? "")
        let cost =
            "\(Quantity.format(duration: s.cost.fetchDuration)) and \(TextFormat.bytes(s.cost.fetchBytes)) a fetch"
            + (s.cost.perApp.isEmpty ? "" : " (\(TextFormat.counted(s.cost.perApp.count, "app")) with their own)")
            + "; battery \(TextFormat.decimal(s.cost.batteryWattHours)) Wh; low battery below "
            + "\(TextFormat.decimal(s.cost.lowBatteryPercent)) %"
        let defaults =
            "battery \(TextFormat.decimal(d.battery)) %, \(d.network == .wifi ? "Wi-Fi" : d.network.name), "
            + "\(d.charging ? "charging" : "not charging"), Low Power Mode \(d.lowPower ? "on" : "off"), "
            + "a sample holds \(Quantity.format(duration: d.hold)); "
            + (s.usersWithoutContext == 0
                ? "every user has context samples"
                : "\(TextFormat.counted(s.usersWithoutContext, "user")) without context samples")
        let rows: [(String, String)] = [
            ("Data", source),
            ("Span", span),
            (
                "Population",
                "\(TextFormat.counted(s.users, "user")), \(TextFormat.counted(s.pairs, "user–app pair")) (apps with ≥ \(s.minLaunches) launches), \(TextFormat.counted(s.scoredLaunches, "scored launch", plural: "scored launches"))"
            ),
            (
                "τ",
                CompareRenderer.minutes(s.tau.inMinutes) + " (fresh rates also at "
                    + s.taus.map { CompareRenderer.minutes($0.inMinutes) }.joined(separator: ", ") + ")"
            ),
            ("Launch refreshes", s.launchRefreshes ? "on (a launch refreshes its app)" : "off"),
            ("Platform", rules),
            ("Cost", cost),
            ("Context defaults", defaults),
            ("Policies", TextFormat.counted(r.policies.count, "policy", plural: "policies")),
        ]
        let list = rows.map { "<dt>\(HTML.escape($0.0))</dt><dd>\(HTML.escape($0.1))</dd>" }.joined()
        return """
            <section id="summary"><h2>What was compared</h2>
            <p class="headline" data-recommended="\(HTML.escape(picks.recommended?.name ?? ""))" id="headline">\(headlineHTML(headline(r, picks)))</p>
            \(shipping(r))
            <dl class="facts">\(list)</dl></section>
            """
    }

    /// What an app team sets on each platform for the headline's app-scope setting: the setting,
    /// its code and what it gave replayed under the platform's rules (empty without platform lines).
    static func shipping(_ r: ComparisonReport) -> String {
        guard let h = r.effectiveHeadline, !h.platforms.isEmpty else { return "" }
        let items = h.platforms.map { line -> String in
            let name = line.platform == .ios ? "iOS" : "Android"
            let figures = String(
                format: "%.1f%% fresh, %+.1f points over the baseline, %.2f fetches/app/day", line.fresh * 100,
                line.gainVsFixed * 100, line.fetchesPerAppDay)
            return "<li><strong>\(name)</strong>: \(HTML.escape(line.setting)) — replayed as <code>"
                + "\(HTML.escape(line.policy))</code> under \(name)'s rules: \(HTML.escape(figures))"
                + (line.note.map { " <span class=\"caption\">(\(HTML.escape($0)))</span>" } ?? "")
                + "<pre class=\"snippet\">\(HTML.escape(line.snippet))</pre></li>"
        }
        return "<h3>What an app team sets</h3><ul class=\"shipping\" id=\"shipping\">\(items.joined())</ul>"
    }

    /// The page's one recommendation and its reason: the best family at the headline budget
    /// against the fixed-interval baseline and the clairvoyant bound (``CompareRenderer/headline(_:)``),
    /// then the recommended policy (`ComparisonReport.recommendation`) named once more, or why
    /// none is.
    static func headline(_ r: ComparisonReport, _ picks: Picks) -> String {
        if r.scoredNothing { return "Nothing was scored: no launch fell in a scored span." }
        guard let line = CompareRenderer.headline(r) else {
            return "This run has no budget figures (it was stored before they existed)."
        }
        return line + "\n" + recommendationLine(r)
    }

    /// The headline's lines, one per `<br>`, each indented as in the text output (two spaces an
    /// em space), so the platform lines sit under the app team's.
    static func headlineHTML(_ text: String) -> String {
        text.split(separator: "\n").map { line in
            let indent = line.prefix { $0 == " " }.count
            return String(repeating: "&emsp;", count: indent / 2) + HTML.escape(String(line.dropFirst(indent)))
        }
        .joined(separator: "<br>")
    }

    /// "Recommended to an app team: X, …", or why no policy is.
    static func recommendationLine(_ r: ComparisonReport) -> String {
        guard let rec = r.recommendation, let policy = rec.policy else {
            return "No policy is recommended to an app team: no app-scope setting at this budget beats the baseline "
                + "by more than its interval."
        }
        let budget = CompareRenderer.budgetText(rec.point.budget)
        return
            "Recommended to an app team: \(policy.name), the freshest app-scope setting within \(budget) fetches/app/day."
    }

    static func platformText(_ p: PlatformModel, name: String) -> String {
        switch p.kind {
        case .none: return "\(name): every fetch asked for happens"
        case .ios:
            return "\(name): iOS rules — a fetch budget of \(Quantity.format(duration: p.fetchBudget)), "
                + "background fetches at least \(Quantity.format(duration: p.iosMinimumInterval)) apart, "
                + "\(p.pushesPerHour) silent pushes/h, "
                + (p.dailyFetchBudget == 0 ? "no daily fetch budget" : "\(p.dailyFetchBudget) fetches/app/day")
                + ", low battery below \(TextFormat.decimal(p.lowBatteryPercent)) %"
                + (CompareRenderer.systemRules(p).map { "; " + $0 } ?? "")
        case .android:
            return
                "\(name): Android rules — periodic work at least \(Quantity.format(duration: p.androidMinimumPeriod)) apart, "
                + "standby deferrals \(Quantity.format(duration: p.workingSetDeferral)) / "
                + "\(Quantity.format(duration: p.frequentDeferral)) / \(Quantity.format(duration: p.rareDeferral)) "
                + "(working set / frequent / rare), low battery below \(TextFormat.decimal(p.lowBatteryPercent)) %"
        }
    }

    // MARK: - (2) The ranked table

    static func ranking(_ r: ComparisonReport, _ picks: Picks) -> String {
        // The text table's columns, the share of the possible gain moved next to the name.
        func reorder<T>(_ xs: [T]) -> [T] {
            xs.count > 2 ? Array(xs[0...1]) + [xs[xs.count - 1]] + xs[2..<(xs.count - 1)] : xs
        }
        let columns = reorder(CompareRenderer.columns(r))
        let cells = CompareRenderer.rows(r, bandLines: false).map(reorder)
        let budgets = r.budget?.budgets ?? BudgetSettings.standardBudgets
        let policies = CompareRenderer.ranked(r.policies, budgets: budgets, tau: r.settings.tau)
        var head = "<tr>"
        for (i, title) in columns.enumerated() {
            let kind = i == 1 || title == "scope" ? "text" : "num"
            head +=
                "<th data-col=\"\(i)\" data-type=\"\(kind)\" aria-sort=\"none\" tabindex=\"0\">\(HTML.escape(title))</th>"
        }
        head += "</tr>"
        var body = ""
        var lastBand: Int?
        for (row, p) in zip(cells, policies) {
            let m = p.metrics
            let band =
                p.isClairvoyant ? budgets.count + 1 : CompareRenderer.band(p.metrics.fetchesPerAppDay, budgets)
            defer { lastBand = band }
            let values: [String] = reorder(
                [row[0].isEmpty ? "1e9" : row[0], p.name, p.scope.label] + m.fresh.map(\.description)
                    + [
                        (m.freshInterval?.low ?? -1e9).description,
                        (m.stalenessMedianMinutes ?? 1e9).description, m.fetchesPerAppDay.description,
                        m.wastedShare.description, m.energyJoulesPerDay.description, m.batteryPercentPerDay.description,
                        m.cellularMBPerDay.description, "\(m.skipped)", (m.gainVsFixed ?? -1e9).description,
                        (m.shareOfPossible ?? -1e9).description,
                    ])
            let mark = p.name == picks.recommended?.name ? " class=\"recommended\"" : ""
            // The first row of each budget band after the first is ruled off (`data-band-start`).
            body +=
                "<tr\(mark) data-family=\"\(HTML.escape(p.family))\" data-band=\"\(band)\""
                + (lastBand != nil && lastBand != band ? " data-band-start" : "")
                + " title=\"\(HTML.escape(CompareRenderer.bandTitle(band, budgets)))\">"
            for (i, cell) in row.enumerated() {
                let v = i < values.count ? values[i] : cell
                let tag = i == 1 ? "th scope=\"row\"" : "td"
                body +=
                    "<\(tag) data-v=\"\(HTML.escape(v))\">\(i == 1 ? unbroken(cell) : HTML.escape(cell))</\(i == 1 ? "th" : "td")>"
            }
            body += "</tr>"
        }
        let dashed = policies.filter { $0.metrics.shareOfPossible == nil }.map(\.name)
        var caption =
            "Policies ranked by fresh@τ within budget bands (policies spending up to 0.5, 1, 2, 5, 10 fetches/app/day "
            + "together, cheapest band first; the clairvoyant oracles after, unranked). "
        caption +=
            "share: the share of the possible gain at the policy's own fetches/app/day, (policy − fixed) / (bound − fixed)"
        if dashed.isEmpty {
            caption += "."
        } else {
            caption +=
                "; “–” where it is not defined (no budget figures, or the clairvoyant bound less than 2 points above "
                + "fixed intervals at that cost): \(dashed.joined(separator: ", "))."
        }
        if let note = CompareRenderer.assumedCostNote(r.settings) { caption += " " + note + "." }
        caption += " Click a column title to sort by it."
        if let rec = picks.recommended { caption += " The recommended policy, \(rec.name), is highlighted." }
        return """
            <section id="ranking-section"><h2>Ranking</h2>
            <p class="caption">\(HTML.escape(caption))</p>
            \(scrollHint)<div class="scroll"><table id="ranking" data-rows="\(policies.count)"><thead>\(head)</thead><tbody>\(body)</tbody></table></div></section>
            """
    }

    /// A name that wraps only after a comma or an opening parenthesis, never inside a word: each
    /// piece between them unbreakable (`span.nb`), a break opportunity (`<wbr>`) after each.
    static func unbroken(_ name: String) -> String {
        var pieces: [String] = []
        var piece = ""
        for c in name {
            piece.append(c)
            if c == "," || c == "(" {
                pieces.append(piece)
                piece = ""
            }
        }
        if !piece.isEmpty || pieces.isEmpty { pieces.append(piece) }
        return pieces.map { "<span class=\"nb\">\(HTML.escape($0))</span>" }.joined(separator: "<wbr>")
    }

    // MARK: - Formatting

    static func percent(_ x: Double?) -> String { x.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
    static func fixed(_ x: Double?, _ digits: Int) -> String { TextFormat.fixed(x, digits) }

    /// `<figure>` with the chart and its caption.
    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\(scrollHint)<div class=\"scroll chart\">\(svg)</div><figcaption>\(HTML.escape(caption))</figcaption></figure>"
    }

    /// Said above a box that scrolls sideways (the page's script hides it when its box does not).
    static let scrollHint = "<p class=\"scroll-hint\" aria-hidden=\"true\">scroll sideways →</p>"

    /// An `<svg>` root: a stable id, a viewBox, data attributes and an accessible title.
    static func svg(id: String, width: Double, height: Double, data: [(String, Int)], title: String, _ body: String)
        -> String
    {
        let attributes = data.map { " data-\($0.0)=\"\($0.1)\"" }.joined()
        // Never narrower than its units: its 11-unit text stays 11 px or more (a narrow screen
        // scrolls the chart sideways in its box).
        return
            "<svg id=\"\(id)\" viewBox=\"0 0 \(SVGChart.n(width)) \(SVGChart.n(height))\" style=\"min-width:\(SVGChart.n(width))px\" role=\"img\""
            + " aria-labelledby=\"\(id)-title\"\(attributes)><title id=\"\(id)-title\">\(HTML.escape(title))</title>"
            + body + "</svg>"
    }
}
