import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import Foundation
import Testing
import _FetchLabTestSupport

/// `tune`'s formats (table, Markdown, CSV, HTML) over the hand-made tuning run of `TuningFixture`.
@Suite struct TuningRendererTests {
    static func result() throws -> TuningResult {
        try JSONDecoder().decode(TuningResult.self, from: Data(TuningFixture.resultJSON.utf8))
    }

    static func platform() throws -> [PlatformOutcome] {
        try JSONDecoder().decode([PlatformOutcome].self, from: Data(TuningFixture.platformJSON.utf8))
    }

    /// The promise reads as two lines, training → held out, in points and percent, with what the
    /// intervals resample; JSON carries it under `promise` and the HTML section in `p#tuning-promise`.
    @Test func thePromiseIsTwoReadableLinesAndAJSONObject() throws {
        var r = try Self.result()
        let side = { (fresh: Double, gain: Double) in
            PromiseFigures(
                fresh: fresh, freshCI: [fresh - 0.04, fresh + 0.05], gainVsFixed: gain,
                gainCI: [gain - 0.031, gain + 0.031],
                fetchesPerAppDay: 1, never: 0.28, baseline: 0.29, scoredLaunches: 900, users: 2, units: 40)
        }
        let promise = TuningPromise(
            training: side(0.399, 0.061), heldOut: side(0.363, 0.048), intervalOver: .days, tau: .minutes(15),
            resamples: 1_000, seed: 1)
        r.folds[0].promise = promise
        r.folds[1].promise = promise
        r.promise = promise
        let text = TuningRenderer.text(r)
        #expect(
            text.contains("  fresh@15m: 39.9 % [35.9, 44.9 %] on training → 36.3 % [32.3, 41.3 %] held out"), "\(text)")
        #expect(
            text.contains("  gain over fixed: +6.1 points [+3.0, +9.2] on training → +4.8 [+1.7, +7.9] held out"),
            "\(text)")
        #expect(text.contains("95 % intervals over days of these users, not over users"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(TuningRenderer.json(r).utf8)) as? [String: Any])
        let p = try #require(json["promise"] as? [String: Any])
        #expect(p["interval_over"] as? String == "days")
        #expect((p["held_out"] as? [String: Any])?["gain_ci"] as? [Double] == [0.048 - 0.031, 0.048 + 0.031])
        let html = HTMLReport.tuning(r, platform: [])
        #expect(html.contains("id=\"tuning-promise\" data-interval-over=\"days\""))
        #expect(html.contains("gain over fixed: +6.1 points [+3.0, +9.2] on training → +4.8 [+1.7, +7.9] held out"))
    }

    @Test func markdownHoldsTheTablesContentAsGitHubTables() throws {
        let r = try Self.result()
        let md = TuningRenderer.markdown(r, platform: try Self.platform())
        let text = TuningRenderer.text(r, platform: try Self.platform())
        // Per fold a table of the settings tried and one of the held-out figures.
        #expect(occurrences(of: "| rank | setting | fresh@15m | J/day |", in: md) == 2)
        #expect(occurrences(of: "| held out | setting |", in: md) == 2)
        #expect(md.contains("| 2 | predictive(10m,0.3) | 62.0% | 12.5 | 0.10 | 1.00 | yes | \\* |"))
        #expect(md.contains("| ---: | --- | ---: |"))
        #expect(md.contains("| best fixed | fixed(2h) | 25.0% | 26.0 | 0.50 | 12.00 | 400 |"))
        // Every line of prose the table prints is a paragraph of its own.
        for line in [
            "chosen on train: predictive(10m,0.3); best fixed interval tuned the same way: fixed(2h)",
            "fold 2: train 2024-03-08 to 2024-03-26, test 2024-03-27 to 2024-03-31",
        ] {
            #expect(text.contains(line) && md.contains("\n\n" + line + "\n\n"), "\(line)")
        }
        // Snippets are fenced code in the platform list, verbatim.
        #expect(md.contains("- ios: BGAppRefreshTaskRequest \\<every\\> launch"))
        #expect(
            md.contains(
                "  ```swift\n  let r = BGAppRefreshTaskRequest(identifier: \"a\")\n  // <script>alert(1)</script>\n  ```"
            ))
        #expect(md.contains("  ```kotlin\n  val request"))
        #expect(!md.contains("\n\n\n"))
    }

    @Test func csvHasOneRowPerSettingPerFoldAndTheBestFixedInterval() throws {
        let r = try Self.result()
        let lines = TuningRenderer.csv(r).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == TuningRenderer.csvColumns.joined(separator: ","))
        #expect(TuningRenderer.csvColumns.count == 22)
        // 3 + 2 settings tried, and fold 1's best fixed interval, which was not among them.
        #expect(lines.count == 1 + 3 + 2 + 1)
        func fields(_ line: String) -> [String] {
            // The names hold commas: quoted.
            var out: [String] = []
            var field = ""
            var quoted = false
            for c in line {
                if c == "\"" {
                    quoted.toggle()
                } else if c == "," && !quoted {
                    out.append(field); field = ""
                } else {
                    field.append(c)
                }
            }
            return out + [field]
        }
        let rows = lines.dropFirst().map(fields)
        #expect(rows.allSatisfy { $0.count == TuningRenderer.csvColumns.count })
        let column = Dictionary(uniqueKeysWithValues: TuningRenderer.csvColumns.enumerated().map { ($1, $0) })
        func value(_ row: [String], _ key: String) -> String { row[column[key]!] }
        #expect(
            rows.map { value($0, "fold") + ":" + value($0, "rank") + ":" + value($0, "name") } == [
                "1:1:predictive(5m,0.2)", "1:2:predictive(10m,0.3)", "1:3:predictive(10m,0.4)", "1::fixed(2h)",
                "2:1:predictive(10m,0.3)", "2:2:predictive(10m,0.4)",
            ])
        #expect(rows.map { value($0, "chosen") } == ["false", "true", "false", "false", "true", "false"])
        #expect(rows.map { value($0, "best_fixed") } == ["false", "false", "false", "true", "false", "false"])
        #expect(rows.map { value($0, "feasible") } == ["false", "true", "true", "true", "true", "true"])
        #expect(rows.map { value($0, "pareto") } == ["true", "true", "false", "", "true", "false"])
        // Held-out figures on the chosen and best fixed rows only, every digit.
        #expect(rows.map { value($0, "test_fresh_15m") } == ["", "0.6", "", "0.25", "0.64", ""])
        #expect(rows.map { value($0, "test_scored_launches") } == ["", "400", "", "400", "300", ""])
        #expect(value(rows[1], "values") == "lead=10m threshold=0.3")
        #expect(value(rows[1], "energy_j_per_day") == "12.5")
    }

    /// A fold with a per-app recommendation and groups of users: the text, Markdown and HTML show
    /// each with its held-out gain; a fold without any shows none.
    @Test func groupsAndThePerAppPolicyAreShownInEveryFormat() throws {
        var r = try Self.result()
        r.folds = [r.folds[0]]
        let plain = HTMLReport.render(tuning: r, platform: [], source: "t.sqlite")
        #expect(!plain.contains("tuning-groups") && !TuningRenderer.text(r).contains("per app"))
        let s = r.folds[0].chosenTest
        var better = s
        better.fresh15 = 0.8
        better.objective = 0.8
        r.folds[0].groups = [
            GroupRecommendation(
                kind: .app, group: "com.news & <co>", chosen: "predictive(5m,0.2)", chosenTrain: s, chosenTest: better,
                globalTest: s, bestFixedTest: nil, gain: 0.2),
            GroupRecommendation(
                kind: .users, group: "light users (< 3.0 launches/day)", chosen: r.folds[0].chosen, chosenTrain: s,
                chosenTest: s, globalTest: s, bestFixedTest: nil, gain: 0),
        ]
        r.folds[0].perApp = PerAppRecommendation(
            assignments: [.init(app: "com.news & <co>", setting: "predictive(5m,0.2)")],
            policy: "per-app(com.news & <co>=predictive(5m,0.2);*=\(r.folds[0].chosen))", trainEstimate: s, train: s,
            feasibleOnTrain: true, test: better)
        let text = TuningRenderer.text(r)
        #expect(text.contains("per app (settings chosen together under the constraints"))
        #expect(text.contains("com.news & <co>") && text.contains("80.0%") && text.contains("20.0 pp"))
        #expect(text.contains("per group of users") && text.contains("light users (< 3.0 launches/day)"))
        #expect(TuningRenderer.markdown(r, platform: []).contains("| light users (\\< 3.0 launches/day) | predictive"))
        let html = HTMLReport.render(tuning: r, platform: [], source: "t.sqlite")
        #expect(html.contains("<table id=\"tuning-groups\" data-rows=\"2\">"))
        #expect(
            occurrences(of: "data-kind=\"app\"", in: html) == 1 && occurrences(of: "data-kind=\"users\"", in: html) == 1
        )
        #expect(html.contains("com.news &amp; &lt;co&gt;") && !html.contains("<co>"))
        #expect(html.contains("keep 80.0% of held-out launches fresh"))
    }

    @Test func theHTMLSectionPlotsEverySettingTriedAndHighlightsTheChoice() throws {
        let r = try Self.result()
        var oneFold = r
        oneFold.folds = [r.folds[0]]
        let html = HTMLReport.render(tuning: oneFold, platform: try Self.platform(), source: "t.sqlite")
        let names = html.components(separatedBy: "<circle class=\"pt tried").dropFirst().compactMap { piece in
            piece.range(of: "data-name=\"").map { String(piece[$0.upperBound...].prefix { $0 != "\"" }) }
        }
        #expect(names == oneFold.folds[0].tried.map(\.name))
        #expect(html.contains("data-points=\"3\""))
        // On the two-way front of fresh against energy: predictive(10m,0.3) (12.5 J, 62 %) and
        // predictive(5m,0.2) (40 J, 70 %); predictive(10m,0.4) (20 J, 50 %) is beaten.
        #expect(html.contains("data-front=\"2\""))
        #expect(occurrences(of: " on-front", in: html) == 2)
        #expect(occurrences(of: " chosen\"", in: html) == 1 && html.contains("data-name=\"predictive(10m,0.3)\""))
        // fixed(2h) was not tried: a square of its own.
        #expect(html.contains("<rect class=\"best-fixed\" data-name=\"fixed(2h)\""))
        #expect(html.contains("data-best-fixed=\"1\""))
        // The held-out comparison and a caption computed from it.
        #expect(html.contains("<table id=\"tuning-heldout\" data-rows=\"2\">"))
        #expect(
            html.contains(
                "On held-out data it keeps 60.0% of launches fresh within 15 min at 11.0 J/day and 0.90 fetches/app/day, "
                    + "against 25.0% at 26.0 J/day for fixed(2h), the best fixed interval chosen the same way: "
                    + "35.0 points fresher for 58% less energy."))
        // Platform settings, escaped.
        #expect(html.contains("data-settings=\"2\""))
        #expect(html.contains("// &lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>alert"))
        #expect(html.contains("BGAppRefreshTaskRequest &lt;every&gt; launch") && html.contains("a &amp; b"))
        // A page of its own: the header, the one section, the same rules as the report.
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("script-src 'unsafe-inline'; img-src data:\">"))
        #expect(occurrences(of: "<section ", in: html) == 1 && html.contains("<section id=\"tuning-section\">"))
        #expect(html.contains("<code>t.sqlite</code>"))
        #expect(!html.lowercased().replacingOccurrences(of: "<meta http-equiv=", with: "").contains("http"))
        #expect(!html.contains("src=") && !html.contains("href="))
    }

    @Test func aFoldWithoutAFixedIntervalSaysSo() throws {
        let r = try Self.result()
        let html = HTMLReport.tuning(r, platform: [])
        // The last fold is drawn; it has no best fixed interval.
        #expect(html.contains("data-points=\"2\"") && html.contains("data-best-fixed=\"0\""))
        #expect(!html.contains("class=\"best-fixed\""))
        #expect(html.contains("no fixed interval meets the constraints on the training part"))
        #expect(html.contains("of the last of 2 folds"))
        // Three held-out rows: both of fold 1, the tuned one of fold 2.
        #expect(html.contains("data-rows=\"3\""))
        #expect(html.contains("data-settings=\"0\""))
    }

    @Test func theReportEndsWithTheTuningSectionOnlyWhenGivenOne() throws {
        let report = HTMLReportTests.report()
        let without = HTMLReport.render(report, source: "x")
        #expect(!without.contains("tuning-section"))
        let with = HTMLReport.render(report, source: "x", tuning: (try Self.result(), try Self.platform()))
        #expect(occurrences(of: "<section ", in: with) == occurrences(of: "<section ", in: without) + 1)
        let last = try #require(with.range(of: "<section id=\"", options: .backwards))
        #expect(with[last.upperBound...].hasPrefix("tuning-section\""))
        // Everything before it is the report without a tuning run.
        let cut = try #require(with.range(of: "\n<section id=\"tuning-section\"")?.lowerBound)
        #expect(without.hasPrefix(String(with[..<cut])))
    }

    /// A run chosen over folds: the ranking by the mean once, per fold the test users and launches,
    /// the interval and the constraints checked on the test part; then how often each held, the
    /// pooled interval, one line per one-user test part, the warnings. JSON has each.
    @Test func aRunChosenOverFoldsSaysHowItWasTested() throws {
        var r = try Self.result()
        r.split = "by time: 2 expanding-window folds"
        r.ranking = r.folds[0].tried
        r.chosen = "predictive(10m,0.3)"
        r.bestFixed = "fixed(2h)"
        for i in r.folds.indices {
            r.folds[i].chosen = "predictive(10m,0.3)"
            r.folds[i].trainUsers = 12
            r.folds[i].testUsers = i == 0 ? 12 : 1
            r.folds[i].testUserNames = i == 0 ? nil : ["user_b"]
            r.folds[i].constraintsOnTest = [
                ConstraintCheck(constraint: "fetches<=2/app/day", value: i == 0 ? 0.9 : 2.5, held: i == 0)
            ]
            r.folds[i].testInterval = HeldOutInterval(
                tau: .minutes(15), fresh: r.folds[i].chosenTest.fresh15, low: i == 0 ? 0.5 : nil,
                high: i == 0 ? 0.7 : nil,
                users: r.folds[i].testUsers!, scoredLaunches: r.folds[i].chosenTest.scoredLaunches, resamples: 1_000,
                seed: 1)
        }
        r.heldOut = HeldOutInterval(
            tau: .minutes(15), fresh: 0.617, low: 0.52, high: 0.7, users: 12, scoredLaunches: 700, resamples: 1_000,
            seed: 1)
        r.warnings = ["few to measure on (fold 2: 1 user, 300 scored launches)"]
        let text = TuningRenderer.text(r)
        #expect(occurrences(of: "| rank |", in: TuningRenderer.markdown(r, platform: [])) == 1)
        #expect(occurrences(of: "rank  setting", in: text) == 1, "\(text)")
        #expect(text.contains("split: by time: 2 expanding-window folds"))
        #expect(text.contains("settings ranked by their mean over the 2 training parts"))
        #expect(text.contains("train: 12 users, 900 scored launches; test: 12 users, 400 scored launches"))
        #expect(text.contains("test: 1 user (user_b), 300 scored launches"))
        #expect(
            text.contains(
                "tuned on the test part: fresh@15m 60.0 % (95 % interval 50.0 % to 70.0 % over 12 users); "
                    + "fetches<=2/app/day held (0.90)"))
        #expect(text.contains("fresh@15m 64.0 % (one test user: no interval); fetches<=2/app/day missed (2.50)"))
        #expect(text.contains("the test part holds one user (user_b): its figures are that user's alone"))
        #expect(text.contains("constraints on the test parts: fetches<=2/app/day held on 1 of 2 folds"))
        #expect(
            text.contains(
                "held out (all folds' test parts pooled): predictive(10m,0.3) fresh@15m 61.7 % over 700 scored launches "
                    + "of 12 users, 95 % interval 52.0 % to 70.0 % (bootstrap over the test users, 1,000 resamples, seed 1)"
            ))
        #expect(text.contains("\nwarning: few to measure on (fold 2: 1 user, 300 scored launches)"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(TuningRenderer.json(r).utf8)) as? [String: Any])
        #expect((json["constraints_held"] as? [[String: Any]])?.first?["held"] as? Int == 1)
        #expect((json["held_out"] as? [String: Any])?["low"] as? Double == 0.52)
        #expect(json["chosen"] as? String == "predictive(10m,0.3)" && (json["ranking"] as? [Any])?.count == 3)
        #expect((json["warnings"] as? [String])?.count == 1 && json["split"] is String)
        let html = HTMLReport.tuning(r, platform: [])
        #expect(html.contains("<table id=\"tuning-folds\" data-rows=\"2\">"))
        #expect(occurrences(of: "data-one-user=\"1\"", in: html) == 1)
        #expect(html.contains("<td>held (0.90)</td>") && html.contains("<td>missed (2.50)</td>"))
        #expect(html.contains("Fold 2&#39;s test part holds one user (user_b)"))
        #expect(html.contains("Warning: few to measure on"))
        // A run stored before the folds were counted shows no such part.
        #expect(!HTMLReport.tuning(try Self.result(), platform: []).contains("tuning-folds"))
    }
}

/// The tuning's platform note: nothing to act on, some users' context assumed, or nothing to say.
@Suite struct TuningPlatformNoteTests {
    @Test func usersWithoutContextAreSaidToHaveAssumedContext() throws {
        var inputs = PlatformInputs()
        inputs.users = 3
        inputs.usersWithContext = 1
        inputs.forceQuits = 2
        let note = try #require(TuningRenderer.platformNote(inputs))
        #expect(note.hasPrefix("2 of 3 users read have no context samples"))
        #expect(note.contains("read assumed context (the context defaults), not observed"))
        inputs.usersWithContext = 3
        #expect(TuningRenderer.platformNote(inputs) == nil)
        inputs.usersWithContext = 0
        inputs.forceQuits = 0
        #expect(TuningRenderer.platformNote(inputs)?.contains("had nothing to act on") == true)
    }
}

/// `tune` writes fresh rates as percentages, as `compare` does, and its refusals readably.
@Suite struct TunePercentTests {
    @Test func aFreshObjectiveOverFoldsIsInPercent() throws {
        let r = try TuningRendererTests.result()
        #expect(r.folds.count > 1)
        let text = TuningRenderer.text(r)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("held-out fresh@15m over ") })
        let c = r.chosenTest
        let expected =
            String(format: "mean %.1f %% (%.1f to %.1f %%)", c.mean * 100, c.min * 100, c.max * 100)
        #expect(line.contains("tuned predictive " + expected), "\(line)")
        #expect(!line.contains(String(format: "%.3f", c.mean)), "\(line)")
    }

    @Test func refusalsByOneReasonReadAsSuch() throws {
        var o = try TuningRendererTests.platform()[0]
        o.skipped = 48
        o.skips = ["system_budget": 48]
        let line = TuningRenderer.platformLine(o)
        #expect(line.hasSuffix("J/day, 48 refused (all: daily wake budget)"), "\(line)")
        o.skips = ["system_budget": 40, "low_power": 8]
        #expect(TuningRenderer.platformLine(o).hasSuffix("48 refused (Low Power Mode 8, daily wake budget 40)"))
    }
}
