import FetchLabCore
import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import Foundation
import Testing
import _FetchLabTestSupport

/// The HTML report and its chart geometry, over a hand-made report.
@Suite struct HTMLReportTests {
    static let odd = #"a<b&"c""#

    static func metrics(
        _ fresh15: Double, _ perDay: Double, _ gap: Double?, energy: Double, skips: [SkipReason: Int] = [:]
    ) -> PolicyMetrics {
        var m = PolicyMetrics(
            scoredLaunches: 1_000, fresh: [fresh15 / 2, fresh15, min(1, fresh15 * 1.5)], fetchesPerAppDay: perDay)
        m.shareOfPossible = gap
        m.gainVsFixed = gap.map { $0 / 5 }
        m.taus = [5, 15, 60].map { .minutes(fractional: $0) }
        m.energyJoulesPerDay = energy
        m.skips = skips
        m.stalenessCDF = PolicyMetrics.stalenessCDFMinutes.map { min(1, fresh15 * $0 / 15) }
        return m
    }

    static func policy(
        _ name: String, _ family: String, _ fresh15: Double, _ perDay: Double, _ gap: Double?, energy: Double,
        apps: [(String, Double)] = []
    ) -> PolicyResult {
        PolicyResult(
            name: name, family: family, params: [:], metrics: metrics(fresh15, perDay, gap, energy: energy),
            perApp: apps.map { GroupResult(name: $0.0, metrics: metrics($0.1, perDay, gap, energy: energy)) },
            signals: PolicyResult.fixtureSignals(family: family))
    }

    /// never, two fixed intervals, two predictive policies (one over 5 fetches a day), a budgeted
    /// one with an awkward name, the oracles; a frontier; a two-app day.
    static func report(timeline: Bool = true) -> ComparisonReport {
        var settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(5), .minutes(15), .minutes(60)], launchRefreshes: true, warmUpDays: 7,
            minLaunches: 20,
            platform: .ios, users: 3, pairs: 5, scoredLaunches: 1_000)
        settings.firstScoredDay = "2024-03-08"
        settings.lastScoredDay = "2024-03-12"
        var budgeted = policy(odd, "budgeted", 0.45, 2, 0.3, energy: 20)
        budgeted.metrics.skips = [.budget: 7, .lowBattery: 2]
        let policies = [
            policy("never", "never", 0.1, 0, nil, energy: 0, apps: [("mail", 0.1), ("news", 0.1)]),
            policy("fixed(1h)", "fixed", 0.3, 24, 0, energy: 300),
            policy("fixed(6h)", "fixed", 0.2, 4, 0, energy: 50, apps: [("mail", 0.2), ("news", 0.2)]),
            policy(
                "predictive(15m,0.55)", "predictive", 0.62, 3, 0.8, energy: 40, apps: [("mail", 0.9), ("news", 0.12)]),
            policy("predictive(30m,0.3)", "predictive", 0.7, 8, 0.9, energy: 110),
            budgeted,
            policy("budget-oracle(2)", "budget-oracle", 0.6, 2, nil, energy: 25),
            policy("oracle", "oracle", 0.95, 4, nil, energy: 45),
        ]
        var r = ComparisonReport(settings: settings, policies: policies)
        r.boundCurve = [[0, 0.1], [2, 0.6], [4, 0.8], [8, 0.95]]
        r.fixedCurve = [[0, 0.1], [4, 0.2], [24, 0.3]]
        r.budget = BudgetSettings(
            budgets: [0.5, 1, 2, 5, 10], headlineBudget: 5, resamples: 1_000, seed: 1, boundSaturation: 8, warnings: [])
        r.budgetCurve = [0.5, 1, 2, 5, 10].map { b in
            BudgetPoint(
                budget: b, fixed: 0.1 + 0.01 * b, fixedInterval: nil, bound: min(0.95, 0.1 + 0.25 * b), never: 0.1,
                families: [
                    "predictive": FamilyAtBudget(
                        fresh: min(0.7, 0.1 + 0.17 * b), policy: b >= 3 ? "predictive(15m,0.55)" : nil,
                        freshInterval: ConfidenceInterval(low: 0.05, high: 0.8), gainVsFixed: 0.1, gainInterval: nil,
                        shareOfPossible: 0.5)
                ])
        }
        if timeline { r.timeline = trace(policies.map(\.name)) }
        return r
    }

    static func trace(_ names: [String]) -> DayTrace {
        let start = Instant(secondsSince1970: 1_709_856_000)
        func at(_ hour: Double) -> Instant { start + Microseconds(hour * Double(Microseconds.perHour)) }
        let days = names.enumerated().map { k, name in
            PolicyDay(
                name: name,
                launches: (0..<(3 + k)).map { i in
                    TracedLaunch(
                        time: at(8 + Double(i)), app: i % 2, fresh: i % 2 == 0, stalenessMinutes: i == 0 ? nil : 20)
                },
                fetches: [
                    TracedFetch(time: at(7.9), app: 0, outcome: "useful"),
                    TracedFetch(time: at(12), app: 1, outcome: "wasted"),
                ],
                skips: [TracedSkip(time: at(22), app: 1, reason: .lowBattery)])
        }
        return DayTrace(
            user: "u<1>", day: "2024-03-09", utcOffset: 3_600, start: start, end: start + Microseconds.perDay,
            choice: "representative", apps: ["mail", "news"],
            context: [
                ContextStretch(start: start, end: at(7), battery: 90, charging: true, network: .wifi, lowPower: false),
                ContextStretch(
                    start: at(7), end: at(24), battery: 40, charging: false, network: .cellular, lowPower: false),
            ],
            policies: days)
    }

    // MARK: - Geometry

    @Test func linearScalesMapDomainEndsToRangeEndsWithNiceTicks() {
        let y = LinearScale(domain: 0...10, from: 300, to: 20)
        #expect(y.position(0) == 300)
        #expect(y.position(10) == 20)
        #expect(y.position(5) == 160)
        let covering = LinearScale(covering: [0.13, 7.9], from: 0, to: 100)
        #expect(covering.domain == 0...8)
        #expect(covering.position(covering.domain.lowerBound) == 0)
        #expect(covering.position(covering.domain.upperBound) == 100)
        for (lo, hi) in [(0.0, 1.0), (0, 7.9), (3, 1_234), (-0.4, 0.37), (0.001, 0.0234)] {
            let ticks = SVGChart.niceTicks(lo, hi, count: 5)
            #expect(ticks.count >= 3 && ticks.count <= 11, "\(lo)...\(hi): \(ticks)")
            let step = ticks[1] - ticks[0]
            let mantissa = step / pow(10, log10(step).rounded(.down))
            #expect([1, 2, 5].contains { abs(mantissa - $0) < 1e-6 }, "step \(step)")
            #expect(
                ticks.allSatisfy { abs($0 / step - ($0 / step).rounded()) < 1e-6 && $0 >= lo - 1e-9 && $0 <= hi + 1e-9 }
            )
        }
        #expect(SVGChart.niceTicks(0, 1, count: 5) == [0, 0.2, 0.4, 0.6000000000000001, 0.8, 1])
    }

    @Test func logScalesMapDomainEndsToRangeEndsWithPowersOfTen() {
        let x = LogScale(covering: [0, 0.3, 40], from: 50, to: 350)
        #expect(x.domain == 0.1...100)
        #expect(x.position(0.1) == 50)
        #expect(abs(x.position(100) - 350) < 1e-9)
        #expect(abs(x.position(10) - 250) < 1e-9)
        #expect(x.position(0) == 50)
        #expect(x.ticks() == [0.1, 1, 10, 100])
        let narrow = LogScale(domain: 1...10, from: 0, to: 1)
        #expect(narrow.ticks() == [1, 2, 5, 10])
    }

    @Test func theParetoFrontKeepsOnlyUndominatedPoints() {
        let points: [(x: Double, y: Double)] = [(1, 0.2), (2, 0.5), (3, 0.4), (2, 0.5), (5, 0.9), (0, 0.1), (6, 0.9)]
        // (3, 0.4) is dominated by (2, 0.5); the second (2, 0.5) repeats; (6, 0.9) costs more for the same.
        #expect(SVGChart.paretoFront(points) == [5, 0, 1, 4])
        #expect(SVGChart.paretoFront([]) == [])
    }

    @Test func coordinatesAreRoundedToOneDecimal() {
        #expect(SVGChart.n(12.345) == "12.3")
        #expect(SVGChart.n(12.0) == "12")
        #expect(SVGChart.n(-0.04) == "0")
        #expect(SVGChart.points([(x: 1.26, y: 2)]) == "1.3,2")
    }

    // MARK: - The page

    static func attribute(_ name: String, of id: String, in html: String) throws -> Int {
        let tag = try #require(html.range(of: "id=\"\(id)\""))
        let rest = html[tag.upperBound...]
        let close = try #require(rest.firstIndex(of: ">"))
        let head = rest[..<close]
        let key = try #require(head.range(of: "data-\(name)=\""))
        let digits = head[key.upperBound...].prefix { $0.isNumber }
        return try #require(Int(digits))
    }

    @Test func theParetoChartMarksTheFrontOfTheReport() throws {
        let html = HTMLReport.render(Self.report(), source: "Datasets/sample")
        // fresh@15 against J/day: never (0, 0.1), the budgeted one (20, 0.45), budget-oracle(2) (25, 0.6),
        // predictive(15m) (40, 0.62), oracle (45, 0.95); the fixed intervals and predictive(30m) are beaten.
        #expect(try Self.attribute("points", of: "pareto", in: html) == 8)
        #expect(try Self.attribute("front", of: "pareto", in: html) == 5)
        #expect(occurrences(of: "\"pt on-front ", in: html) == 5)
        #expect(
            !html.contains(
                "fixed(6h) (fixed): fresh@15 min 20.0%, 50.0 J/day, 4.00 fetches/app/day; on the Pareto front"))
        #expect(html.contains("The recommended predictive(15m,0.55) is on the front"))
    }

    @Test func theBudgetChartDrawsTheBoundFixedIntervalsAndEachFamilysFront() throws {
        let html = HTMLReport.render(Self.report(), source: "x")
        // predictive and budgeted are causal families; never, fixed (the baseline) and the oracles are not.
        #expect(try Self.attribute("lines", of: "budget-curve", in: html) == 2)
        #expect(occurrences(of: "<g class=\"family\"", in: html) == 2)
        #expect(html.contains("data-family=\"predictive\"><polyline"))
        #expect(try Self.attribute("bound", of: "budget-curve", in: html) == 3)  // the points above no fetch
        #expect(try Self.attribute("fixed", of: "budget-curve", in: html) == 3)  // the baseline's points, 0 included
        #expect(try Self.attribute("budgets", of: "budget-table", in: html) == 5)
        #expect(html.contains("<th scope=\"row\">clairvoyant bound</th>"))
        #expect(html.contains("<small>+10.0 pts, share 0.50 · predictive(15m,0.55)</small>"))
    }

    @Test func thePageFetchesNothing() {
        let html = HTMLReport.render(Self.report(), source: "Datasets/sample")
        // The one "http" is the CSP meta's http-equiv attribute name.
        #expect(!html.lowercased().replacingOccurrences(of: "<meta http-equiv=", with: "").contains("http"))
        #expect(!html.contains("src="))
        #expect(!html.contains("href="))
        #expect(!html.contains("url("))
        #expect(!html.contains("@import"))
    }

    @Test func thePageCarriesTheContentSecurityPolicy() {
        let html = HTMLReport.render(Self.report(), source: "x")
        #expect(
            html.contains(
                #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">"#
            ))
        #expect(html.contains("prefers-color-scheme: dark"))
        #expect(html.contains("@media print"))
        #expect(html.contains("window.onerror"))
        #expect(html.contains("<pre id=\"selftest\""))
    }

    @Test func namesAreEscaped() {
        let html = HTMLReport.render(Self.report(), source: "<db & co>")
        #expect(!html.contains(Self.odd))
        #expect(html.contains("a&lt;b&amp;&quot;c&quot;"))
        #expect(html.contains("&lt;db &amp; co&gt;"))
        #expect(!html.contains("<db"))
        #expect(html.contains("User u&lt;1&gt;"))
    }

    @Test func sectionsComeInOrder() throws {
        let html = HTMLReport.render(Self.report(), source: "x")
        let ids = [
            "summary", "budget-section", "ranking-section", "pareto-section", "per-app-section", "timeline-section",
            "skips-section", "staleness-section",
        ]
        let offsets = try ids.map { id in
            try #require(html.range(of: "<section id=\"\(id)\"")?.lowerBound, "\(id)")
        }
        #expect(offsets == offsets.sorted())
        #expect(occurrences(of: "<section ", in: html) == ids.count)
    }

    @Test func theHeadlineIsTheBudgetCurveAtTheChosenBudget() throws {
        func headline(_ html: String) throws -> String {
            let start = try #require(html.range(of: "id=\"headline\">"))
            let end = try #require(html[start.upperBound...].range(of: "</p>"))
            return String(html[start.upperBound..<end.lowerBound])
        }
        // At 5 the best app-scope setting within 5 is named with its own row's figures, and highlighted.
        let five = HTMLReport.render(Self.report(), source: "x")
        #expect(
            try headline(five).hasPrefix(
                "At 5 fetches/app/day (fresh@15 min; fixed-interval baseline 15.0%, clairvoyant bound 95.0%, never 10.0%):"
            ))
        #expect(
            try headline(five).contains(
                "For an app team: predictive(15m,0.55): 62.0%, +16.0 points over the baseline, 3.00 fetches/app/day"))
        #expect(five.contains("<tr class=\"recommended\" data-family=\"predictive\" data-band="))
        // One line each, indented as the text output: the audiences under the budget, the
        // recommendation on its own line.
        #expect(try headline(five).contains("):<br>&emsp;For an app team: "))
        #expect(try headline(five).contains("<br>&emsp;For a system scheduler: "))
        #expect(try headline(five).contains("<br>Recommended to an app team: "))
        // At 2 the predictive settings spend more: the headline names the single setting that fits
        // (never a family's curve mixed with never), and that row is the one highlighted.
        var r = Self.report()
        r.budget?.headlineBudget = 2
        let two = HTMLReport.render(r, source: "x")
        #expect(try headline(two).hasPrefix("At 2 fetches/app/day (fresh@15 min; fixed-interval baseline 12.0%"))
        #expect(try headline(two).contains("For an app team: a&lt;b&amp;&quot;c&quot;: 45.0%, +6.0 points"))
        #expect(try !headline(two).contains("mixed with never"))
        #expect(try !headline(two).contains("44.0%"))
        #expect(two.contains("<tr class=\"recommended\" data-family=\"budgeted\" data-band="))
    }

    @Test func aSettingNoFresherThanTheBaselineIsNotRecommended() throws {
        var r = Self.report()
        for i in r.policies.indices where r.policies[i].role == .family {
            r.policies[i].metrics.gainVsFixed = -0.01
        }
        let html = HTMLReport.render(r, source: "x")
        #expect(html.contains("No app-scope setting at this budget beats the baseline by more than its interval"))
        #expect(html.contains("No policy is recommended to an app team"))
        #expect(!html.contains("class=\"recommended\""))
    }

    @Test func theTimelineDrawsEveryLaunchOfEachPolicy() throws {
        let report = Self.report()
        let html = HTMLReport.render(report, source: "x")
        let trace = try #require(report.timeline)
        #expect(try Self.attribute("policies", of: "timeline", in: html) == trace.policies.count)
        let first = trace.policies[0]
        let open = try #require(html.range(of: "<g class=\"day\" data-policy=\"\(first.name)\""))
        let close = try #require(html[open.upperBound...].range(of: "</g>"))
        let group = html[open.lowerBound..<close.lowerBound]
        #expect(occurrences(of: "<circle class=\"launch ", in: group) == first.launches.count)
        #expect(occurrences(of: "<circle class=\"launch fresh\"", in: group) == first.launches.filter(\.fresh).count)
        #expect(occurrences(of: "class=\"fetch o-", in: group) == first.fetches.count)
        #expect(occurrences(of: "class=\"skip\"", in: group) == first.skips.count)
        #expect(group.contains("data-launches=\"\(first.launches.count)\""))
        #expect(group.contains("fetch refused, low battery"))
        // Every policy has a group, only the recommended one shown, and a choice in the select.
        #expect(occurrences(of: "<g class=\"day\"", in: html) == trace.policies.count)
        #expect(occurrences(of: "display=\"inline\"", in: html) == 1)
        #expect(
            html.contains(
                "data-policy=\"predictive(15m,0.55)\" data-launches=\"6\" data-fetches=\"2\" data-skips=\"1\" display=\"inline\""
            ))
        #expect(occurrences(of: "<option ", in: html) == trace.policies.count)
    }

    @Test func withoutATimelineTheSectionSaysSo() {
        let html = HTMLReport.render(Self.report(timeline: false), source: "x")
        #expect(html.contains("No timeline was recorded"))
        #expect(!html.contains("id=\"timeline\""))
    }

    @Test func skipsAndStalenessChartTheRightPolicies() throws {
        let html = HTMLReport.render(Self.report(), source: "x")
        #expect(try Self.attribute("policies", of: "skips", in: html) == 1)
        #expect(try Self.attribute("reasons", of: "skips", in: html) == 2)
        // never, the recommended policy and the oracle (no fixed interval at ≤ 3 fetches a day).
        #expect(try Self.attribute("lines", of: "staleness-cdf", in: html) == 3)
        #expect(try Self.attribute("apps", of: "per-app", in: html) == 2)
        #expect(html.contains("Prediction helps on mail (+80 points)"))
        #expect(html.contains("It cannot help (less than 5 points ahead) on news"))
    }
}

/// A report the size of the sample's (about 20 policies, a dozen apps a user, fixed intervals down
/// to 5 minutes in the timeline) stays well under 2 MB.
@Suite struct HTMLReportSizeTests {
    static func large() -> ComparisonReport {
        var settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(5), .minutes(15), .minutes(60)], launchRefreshes: true, warmUpDays: 7,
            minLaunches: 20,
            platform: .ios, users: 25, pairs: 240, scoredLaunches: 30_000)
        settings.platformRules = PlatformModel(kind: .ios)
        let apps = (0..<12).map { "com.example.app\($0)" }
        var policies: [PolicyResult] = []
        var specs: [(String, String, Double)] = [("never", "never", 0), ("oracle", "oracle", 3)]
        for minutes in [5, 15, 30, 60, 120, 240, 480] {
            specs.append(("fixed(\(minutes)m)", "fixed", 1_440 / Double(minutes)))
        }
        for k in 0..<6 { specs.append(("predictive(\(k * 5 + 5)m,0.\(k + 3))", "predictive", Double(k) + 1.5)) }
        for k in [1, 2, 4, 8, 16] { specs.append(("budget-oracle(\(k))", "budget-oracle", Double(k))) }
        for (i, spec) in specs.enumerated() {
            var m = PolicyMetrics(
                scoredLaunches: 30_000, fresh: [0.1, 0.2 + Double(i) * 0.03, 0.5], fetchesPerAppDay: spec.2)
            m.shareOfPossible = ["fixed", "predictive"].contains(spec.1) ? Double(i) / 20 : nil
            m.stalenessCDF = PolicyMetrics.stalenessCDFMinutes.map { min(1, $0 / 1_440 + Double(i) / 40) }
            m.energyJoulesPerDay = spec.2 * 12
            m.skips = i % 3 == 0 ? [.lowBattery: i * 7, .budget: i * 3, .forceQuit: 2] : [:]
            let perApp = apps.enumerated().map { k, app in
                GroupResult(
                    name: app,
                    metrics: PolicyMetrics(
                        scoredLaunches: 100, fresh: [0.1, Double((i + k) % 10) / 10, 0.5], fetchesPerAppDay: spec.2))
            }
            policies.append(
                PolicyResult(
                    name: spec.0, family: spec.1, params: [:], metrics: m, perApp: perApp,
                    signals: PolicyResult.fixtureSignals(family: spec.1)))
        }
        var r = ComparisonReport(settings: settings, policies: policies)
        r.boundCurve = [[0, 0.1], [1, 0.4], [2, 0.6], [4, 0.8], [16, 1]]
        let start = Instant(secondsSince1970: 1_709_856_000)
        let days = policies.map { p in
            let every =
                p.metrics.fetchesPerAppDay > 0 ? Microseconds.perDay / Microseconds(p.metrics.fetchesPerAppDay) : 0
            var fetches: [TracedFetch] = []
            if every > 0 {
                for a in apps.indices {
                    for k in stride(from: 0, to: Microseconds.perDay.value, by: Int(every)) {
                        fetches.append(
                            TracedFetch(
                                time: start + Microseconds(k), app: a,
                                outcome: ["useful", "wasted", "used", "expired"][fetches.count % 4]))
                    }
                }
            }
            let launches = (0..<60).map { i in
                TracedLaunch(
                    time: start + Microseconds.perMinute * Int64(i * 20), app: i % apps.count, fresh: i % 3 == 0,
                    stalenessMinutes: Double(i))
            }
            let skips = (0..<10).map { i in
                TracedSkip(time: start + Microseconds.perHour * Int64(i), app: i % 12, reason: .lowBattery)
            }
            return PolicyDay(name: p.name, launches: launches, fetches: fetches, skips: skips)
        }
        let context = (0..<96).map { i in
            let from = start + Microseconds.perMinute * Int64(i * 15)
            let level: Double = 100 - Double(i) * 0.8
            return ContextStretch(
                start: from, end: from + 15 * Microseconds.perMinute, battery: level, charging: i < 20,
                network: i % 7 == 0 ? .cellular : .wifi, lowPower: false)
        }
        r.timeline = DayTrace(
            user: "u00007", day: "2024-03-09", utcOffset: -28_800, start: start, end: start + Microseconds.perDay,
            choice: "representative", apps: apps, context: context, policies: days)
        return r
    }

    @Test func aSampleSizedReportStaysUnderTwoMegabytes() {
        let html = HTMLReport.render(Self.large(), source: "Datasets/sample")
        if let path = ProcessInfo.processInfo.environment["FETCHLAB_HTML_OUT"] {
            try? html.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(html.utf8.count < 2_000_000)
        #expect(html.utf8.count > 50_000)
    }
}

extension HTMLReportTests {
    @Test func anEmptyReportStillRendersEverySection() throws {
        let settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(15)], launchRefreshes: false, warmUpDays: 7, minLaunches: 20,
            platform: .none,
            users: 0, pairs: 0, scoredLaunches: 0)
        let html = HTMLReport.render(ComparisonReport(settings: settings, policies: []), source: "empty")
        #expect(html.contains("Nothing was scored"))
        #expect(try Self.attribute("points", of: "pareto", in: html) == 0)
        #expect(try Self.attribute("lines", of: "budget-curve", in: html) == 0)
        #expect(try Self.attribute("rows", of: "ranking", in: html) == 0)
        #expect(html.contains("No timeline was recorded"))
        #expect(html.contains("No policy had a fetch refused or expired."))
        #expect(occurrences(of: "<section ", in: html) == 8)
        #expect(html.hasSuffix("</html>\n"))
    }
}

extension HTMLReportTests {
    /// Issue 46: a bar at 0 % is drawn (2 units wide, outlined), not left out; each family has its
    /// own pair of colour and marker shape, the same in every chart; the ranking rules off its
    /// budget bands; every budget mark is numbered.
    @Test func chartsDrawZeroBarsDistinctFamiliesBandsAndBudgetLabels() throws {
        var r = Self.report()
        r.policies[3].perApp[1].metrics = Self.metrics(0, 3, 0.8, energy: 40)
        let html = HTMLReport.render(r, source: "x")
        let perApp = try #require(html.range(of: "<svg id=\"per-app\"").map { String(html[$0.lowerBound...]) })
        #expect(perApp.contains("bar-zero\" x=\"") && perApp.contains("width=\"2\""))
        // Every mark of a family (points and legend keys, in every chart) has one look: its colour
        // class and its shape; no two families share one.
        let pattern = try Regex(#"<path class="[^"]*\b(f\d+)" data-marker="([a-z]+)" data-family="([^"]*)""#)
        var looks: [String: Set<String>] = [:]
        for m in html.matches(of: pattern) {
            let (colour, marker, family) = (m.output[1].substring!, m.output[2].substring!, m.output[3].substring!)
            looks[String(family), default: []].insert("\(colour) \(marker)")
        }
        #expect(looks.count == Set(r.policies.map(\.family)).count)
        #expect(looks.values.allSatisfy { $0.count == 1 }, "\(looks)")
        #expect(Set(looks.values.compactMap(\.first)).count == looks.count, "\(looks)")
        #expect(occurrences(of: " data-band-start ", in: html) >= 1)
        #expect(
            occurrences(of: "<text class=\"budget-label\"", in: html)
                == occurrences(of: "<line class=\"budget-mark\"", in: html))
    }
}

extension HTMLReportTests {
    /// A right-to-left override in a name would reverse the text around it ("‮gpj.exe" shows as
    /// "exe.jpg"): bidirectional controls are shown (⟨U+202E⟩), never obeyed, in the page and on a
    /// terminal; a 990-character name does not widen the page: SVG labels are elided (the whole
    /// name in the label's title) and table cells wrap.
    @Test func hostileNamesAreShownNotObeyed() throws {
        var r = Self.report()
        let override = "\u{202E}gpj.exe"
        let long = String(repeating: "verylongappname.", count: 62)
        r.policies[3].perApp = [
            GroupResult(name: override, metrics: r.policies[3].metrics),
            GroupResult(name: long, metrics: r.policies[3].metrics),
        ]
        r.policies[0].name = "never\u{2067}isolate"
        let html = HTMLReport.render(r, source: "db\u{202D}x")
        for scalar in ["\u{202E}", "\u{202D}", "\u{2067}"] {
            #expect(!html.contains(scalar), "\(scalar.unicodeScalars.first!.value)")
        }
        #expect(html.contains("⟨U+202E⟩gpj.exe"))
        #expect(html.contains("⟨U+202D⟩"))
        // No SVG label longer than its margin (at most 300 units, about 44 characters of this
        // name; the browser test checks each lies inside its chart); the whole name in its title.
        let labels = html.components(separatedBy: "<text class=\"label\"").dropFirst().compactMap { piece -> String? in
            guard let close = piece.range(of: "</title>"), let end = piece.range(of: "</text>") else { return nil }
            return String(piece[close.upperBound..<end.lowerBound])
        }
        #expect(labels.contains { $0.hasSuffix("…") }, "\(labels)")
        #expect(labels.allSatisfy { $0.count <= 48 }, "\(labels.map(\.count))")
        #expect(html.contains("<title>\(long)</title>"))
        #expect(html.contains("overflow-wrap: anywhere"))
        // On a terminal too.
        #expect(TextFormat.escaped(override) == "\\u{202e}gpj.exe")
    }
}

extension HTMLReportTests {
    /// The ranking section's text and attribute values are escaped (issue 24): a policy whose name
    /// holds markup, quotes and an entity, and a family that would close its attribute and open
    /// another, are shown as written, never parsed. Fails if a cell, a `data-v` or `data-family`
    /// is written without ``HTML/escape``, or through an escaping that leaves quotes or `&amp;` as
    /// they are (Plot 0.14.0's `.text` and attribute values).
    @Test func theRankingSectionEscapesNamesAndValues() throws {
        var r = Self.report()
        let name = "<script>alert(1)</script>\"&'&amp;"
        r.policies[1].name = name
        r.policies[1].family = "x\" onmouseover=\"alert(1)"
        let html = HTMLReport.render(r, source: "x")
        let start = try #require(html.range(of: "<section id=\"ranking-section\">"))
        let end = try #require(html[start.upperBound...].range(of: "</section>"))
        let section = html[start.lowerBound..<end.upperBound]
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;&amp;amp;"
        // The name column: the cell's text (in pieces that break only after "(" or ",") and its sort value.
        #expect(
            section.contains(
                "<th scope=\"row\" data-v=\"\(escaped)\"><span class=\"nb\">&lt;script&gt;alert(</span><wbr>"
                    + "<span class=\"nb\">1)&lt;/script&gt;&quot;&amp;&#39;&amp;amp;</span></th>"))
        #expect(section.contains("<tr data-family=\"x&quot; onmouseover=&quot;alert(1)\" data-band="))
        #expect(!section.contains("<script"))
        #expect(!section.contains("onmouseover=\""))
        #expect(!section.contains(name))
    }
}
