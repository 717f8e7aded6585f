import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import Foundation
import Testing

/// `compare`'s renderers over a hand-made report.
@Suite struct CompareRendererTests {
    static func report() -> ComparisonReport {
        var settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(5), .minutes(15), .minutes(60)], launchRefreshes: true, warmUpDays: 7,
            minLaunches: 20,
            platform: .none, users: 2, pairs: 3, scoredLaunches: 1_234)
        settings.firstScoredDay = "2024-03-08"
        settings.lastScoredDay = "2024-03-12"
        func metrics(_ fresh: [Double], _ perDay: Double, _ share: Double?) -> PolicyMetrics {
            var m = PolicyMetrics(scoredLaunches: 1_234, fresh: fresh, fetchesPerAppDay: perDay)
            m.shareOfPossible = share
            m.gainVsFixed = share.map { $0 / 10 }
            m.taus = [5, 15, 60].map { .minutes(fractional: $0) }
            return m
        }
        var fixed = metrics([0.25, 0.5, 0.75], 24, 0.25)
        fixed.skips = [.lowPower: 2, .budget: 1]
        fixed.stalenessMedianMinutes = 7.5
        return ComparisonReport(
            settings: settings,
            policies: [
                PolicyResult(
                    name: "never", family: "never", params: [:], metrics: metrics([0, 0, 0], 0, nil),
                    signals: [.ownLaunches]),
                PolicyResult(
                    name: "fixed(1h)", family: "fixed", params: ["interval_min": 60], metrics: fixed,
                    signals: [.ownLaunches]),
                // Reads another app's launches: only the OS can run it.
                PolicyResult(
                    name: "odd, \"quoted\" | name", family: "fixed", params: [:], metrics: metrics([1, 1, 1], 2, 0.5),
                    signals: [.ownLaunches, .otherLaunches]),
            ])
    }

    @Test func theTextTableRanksByFreshnessWithinBudgetBands() {
        let expected = """
            τ = 15 min, launch refreshes on, warm-up 7 d, scored 2024-03-08 to 2024-03-12; 2 users, 3 pairs (apps with ≥ 20
              launches), 1,234 scored launches; platform none
            context: every user has context samples; without a sample (or one older than 6h): battery 80 %, Wi-Fi, not charging, Low
              Power Mode off; cost: 3s and 150.0 KB a fetch, battery 12 Wh

            #  policy                scope  fresh@5 min  fresh@15 min  fresh@60 min  95% CI  stale p50  fetches/app/day  wasted  J/day  battery/day  cell MB/day  skipped  vs fixed  share
            up to 0.5 fetches/app/day:
            1  never                 app           0.0%          0.0%          0.0%       –      never             0.00      0%    0.0        0.00%         0.00        0         –      –
            over 1, up to 2 fetches/app/day:
            2  odd, "quoted" | name  OS          100.0%        100.0%        100.0%       –      never             2.00      0%    0.0        0.00%         0.00        0      +5.0   0.50
            above 10 fetches/app/day:
            3  fixed(1h)             app          25.0%         50.0%         75.0%       –    7.5 min            24.00      0%    0.0        0.00%         0.00        3      +2.5   0.25

            skipped fetches by reason:
              fixed(1h): Low Power Mode 2, budget 1
            """
        #expect(CompareRenderer.text(Self.report(), wide: true) == expected)
        // --sort fresh: one ranking, no bands.
        let names = CompareRenderer.ranked(Self.report().policies, by: .fresh).map(\.name)
        #expect(names == [#"odd, "quoted" | name"#, "fixed(1h)", "never"])
        #expect(!CompareRenderer.text(Self.report(), sort: .fresh).contains("fetches/app/day:"))
        #expect(CompareRenderer.ranked(Self.report().policies, by: .fetches).map(\.name).first == "never")
    }

    /// The default: the main columns, the key under the table, every line within 120 columns.
    @Test func theDefaultTextTableHasTheMainColumnsAndAKey() {
        let expected = """
            τ = 15 min, launch refreshes on, warm-up 7 d, scored 2024-03-08 to 2024-03-12; 2 users, 3 pairs (apps with ≥ 20
              launches), 1,234 scored launches; platform none
            context: every user has context samples; without a sample (or one older than 6h): battery 80 %, Wi-Fi, not charging, Low
              Power Mode off; cost: 3s and 150.0 KB a fetch, battery 12 Wh

            #  policy                scope  fresh@15 min [95% CI]  fetches/app/day  J/day  vs fixed  share
            up to 0.5 fetches/app/day:
            1  never                 app                     0.0%             0.00    0.0         –      –
            over 1, up to 2 fetches/app/day:
            2  odd, "quoted" | name  OS                    100.0%             2.00    0.0      +5.0   0.50
            above 10 fetches/app/day:
            3  fixed(1h)             app                    50.0%            24.00    0.0      +2.5   0.25
            fresh@15 min: the share of launches that found their app's content at most 15 min old [95 % interval over users].
            share: the share of the possible gain, (fresh − fixed interval) / (bound − fixed interval), at the same cost.
            bound: the clairvoyant bound, the freshest a policy could be at the same fetches/app/day if it knew each launch.

            skipped fetches by reason:
              fixed(1h): Low Power Mode 2, budget 1
            """
        #expect(CompareRenderer.text(Self.report()) == expected)
    }

    @Test func markdownIsAGitHubTableWithTheTextColumns() {
        let lines = CompareRenderer.markdown(Self.report()).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].hasPrefix("τ = 15 min, launch refreshes on"))
        #expect(lines[1] == "")
        #expect(
            lines[2]
                == "| # | policy | scope | fresh@5 min | fresh@15 min | fresh@60 min | 95% CI | stale p50 | fetches/app/day | "
                + "wasted | J/day | battery/day | cell MB/day | skipped | vs fixed | share |")
        #expect(lines[3] == "| ---: | --- | --- |" + String(repeating: " ---: |", count: 13))
        #expect(
            lines[5]
                == #"| 2 | odd, "quoted" \| name | OS | 100.0% | 100.0% | 100.0% | – | never | 2.00 | 0% | 0.0 | 0.00% | 0.00 | 0 | +5.0 | 0.50 |"#
        )
        #expect(
            lines[4]
                == "| 1 | never | app | 0.0% | 0.0% | 0.0% | – | never | 0.00 | 0% | 0.0 | 0.00% | 0.00 | 0 | – | – |")
        #expect(lines.count == 7)
    }

    @Test func csvHasAHeaderAndOneQuotedRowPerPolicy() throws {
        let csv = CompareRenderer.csv(Self.report())
        let rows = try Self.parseCSV(csv)
        #expect(rows.count == 4)
        let header = rows[0]
        #expect(
            Array(header.prefix(16)) == [
                "name", "family", "scope", "scored_launches", "fresh_5m", "fresh_15m", "fresh_60m",
                "fetches_per_app_day", "fresh_ci_low", "fresh_ci_high", "fresh_ci_over", "gain_vs_fixed",
                "share_of_possible", "energy_j_per_day", "battery_pct_per_day", "cellular_mb_per_day",
            ])
        #expect(rows.allSatisfy { $0.count == header.count })
        #expect(rows.map { $0[0] } == ["name", "never", "fixed(1h)", #"odd, "quoted" | name"#])
        func value(_ row: Int, _ column: String) -> String { rows[row][header.firstIndex(of: column)!] }
        #expect(value(2, "fresh_15m") == "0.5")
        #expect(value(2, "skipped") == "3")
        #expect(value(2, "skips_low_power") == "2")
        #expect(value(2, "staleness_median_min") == "7.5")
        #expect(value(1, "share_of_possible") == "")
        #expect(value(1, "scope") == "app")
        #expect(value(3, "scope") == "os")
        #expect(value(2, "share_of_possible") == "0.25")
        #expect(csv.contains(#""odd, ""quoted"" | name""#))
    }

    @Test func jsonIsTheReportsWithTheRunID() throws {
        let report = Self.report()
        let plain = CompareRenderer.json(report)
        #expect(plain == TextFormat.json(report))
        let stored = CompareRenderer.json(report, runID: 42)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["settings", "budget_curve", "fixed_curve", "bound_curve", "policies", "run_id"])
        #expect(object["run_id"] as? Int == 42)
        // The report's own keys are printed exactly as without the id.
        #expect(stored.replacingOccurrences(of: "  \"run_id\" : 42,\n", with: "") == plain)
        #expect(try JSONDecoder().decode(ComparisonReport.self, from: Data(stored.utf8)).policies == report.policies)
    }

    /// RFC 4180, as a reader would parse it: quoted fields may hold commas, quotes and line breaks.
    static func parseCSV(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" {
                        field.append("\"")
                        chars.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.append(c)
            }
        }
        row.append(field)
        rows.append(row)
        return rows
    }
}

@Suite struct ProgressLineTests {
    @Test func barPercentCountAndETA() {
        #expect(
            ProgressLine.line(done: 120, total: 268, unit: "users", elapsed: 10)
                == "[########            ] 44% 120/268 users, ETA 0:13")
        #expect(
            ProgressLine.line(done: 0, total: 268, unit: "users", elapsed: 3) == "[                    ] 0% 0/268 users"
        )
        #expect(
            ProgressLine.line(done: 268, total: 268, unit: "users", elapsed: 30)
                == "[####################] 100% 268/268 users, ETA 0:00")
        #expect(
            ProgressLine.line(done: 1, total: 10_000, unit: "users", elapsed: 1, width: 4)
                == "[    ] 0% 1/10,000 users, ETA 2:46:39")
        // More done than the total, or no total: a full bar, never past 100 %.
        #expect(
            ProgressLine.line(done: 5, total: 3, unit: "files", elapsed: 1).hasPrefix("[####################] 100% 3/3")
        )
        #expect(
            ProgressLine.line(done: 0, total: 0, unit: "files", elapsed: 0) == "[####################] 100% 0/0 files")
        // The one bar every progress line draws (import's byte-based line too): clamped, never NaN.
        #expect(ProgressLine.bar(fraction: 0.5, width: 4) == "[##  ]")
        #expect(ProgressLine.bar(fraction: 2, width: 4) == "[####]")
        #expect(ProgressLine.bar(fraction: -1, width: 4) == "[    ]")
        #expect(ProgressLine.bar(fraction: .nan, width: 4) == "[    ]")
    }

    @Test(arguments: [
        (0.0, "0:00"), (0.2, "0:01"), (59, "0:59"), (61, "1:01"), (3_600, "1:00:00"), (.infinity, "0:00"),
    ])
    func clock(seconds: Double, text: String) {
        #expect(ProgressLine.clock(seconds) == text)
    }
}

@Suite struct TuningPushVerdictTests {
    private func outcome(_ s: PlatformSetting, fresh: Double, joules: Double) -> PlatformOutcome {
        PlatformOutcome(setting: s, fresh: fresh, fetchesPerAppDay: 1, joulesPerDay: joules, skipped: 0)
    }

    @Test func pushIsComparedWithTheFreshestOtherIOSSetting() throws {
        let fixed = PlatformTranslation.translate(FixedIntervalPolicy(interval: .hours(2))).map(\.setting)
        let push = PlatformTranslation.silentPush().setting
        let better = TuningRenderer.pushVerdict([
            outcome(fixed[0], fresh: 0.6, joules: 20), outcome(fixed[1], fresh: 0.9, joules: 1),
            outcome(push, fresh: 0.7, joules: 10),
        ])
        #expect(better?.hasPrefix("silent push serves better than fixed(2h) on iOS: fresh 70.0% at 10.0 J/day") == true)
        let costly = TuningRenderer.pushVerdict([
            outcome(fixed[0], fresh: 0.6, joules: 5), outcome(push, fresh: 0.7, joules: 10),
        ])
        #expect(costly?.contains("is fresher but costs more than") == true)
        let worse = TuningRenderer.pushVerdict([
            outcome(fixed[0], fresh: 0.8, joules: 5), outcome(push, fresh: 0.7, joules: 1),
        ])
        #expect(worse?.contains("serves worse than") == true)
        #expect(TuningRenderer.pushVerdict([outcome(fixed[0], fresh: 0.8, joules: 5)]) == nil)
    }
}
