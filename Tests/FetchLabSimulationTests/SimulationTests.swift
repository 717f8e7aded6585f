import FetchLabCore
import FetchLabReport
import FetchLabResults
import Foundation
import Testing

import struct _FetchLabTestSupport.SeededDraws

@testable import FetchLabSimulation

/// A policy fetching at given times (for hand-made timelines).
struct AtTimes: FetchPolicy {
    var times: [Instant]
    var name: String { "at-times" }
    var family: String { "test" }
    var signals: Set<PolicySignal> { [] }
    var summary: String { "fixed times" }
    func fetchTimes(for pair: PairContext) -> [Instant] { times }
}

/// 2024-03-04, a Monday, at UTC midnight.
let day0 = Instant.epoch + .days(19_786)

func history(_ launches: [(Instant, Int32)], apps: Int = 1, offset: Int32 = 0, events: [Instant] = [])
    -> UserHistory
{
    UserHistory(
        user: "u", apps: (0..<apps).map { AppID("com.app\($0)") },
        launches: launches.map { UsageEvent(time: $0.0, offset: offset, app: $0.1) },
        events: events.map { UsageEvent(time: $0, offset: offset, app: 0, kind: .close) })
}

func evaluation(warmUp: Int = 1, minLaunches: Int = 1, refreshes: Bool = true) -> EvaluationProtocol {
    var e = EvaluationProtocol()
    e.warmUpDays = warmUp
    e.minLaunches = minLaunches
    e.launchRefreshes = refreshes
    return e
}

@Suite struct ReplayTests {
    @Test func fixedIntervalOnAUniformStreamIsTauOverT() throws {
        // A close at midnight is t0 (the fixed grid's anchor); a launch every minute, half a minute
        // past, for three days: staleness 0.5, 1.5, … 59.5 min against fixed(1h).
        let launches = (0..<(3 * 1440)).map { (day0 + .seconds(30) + .minutes(Int64($0)), Int32(0)) }
        let h = history(launches, events: [day0])
        let e = evaluation(refreshes: false)
        let out = Simulator(evaluation: e).replay(h, policies: [FixedIntervalPolicy(interval: .hours(1))])
        let pair = try #require(out.first?.first)
        #expect(pair.scored == 2 * 1440)
        #expect(pair.fresh == [2 * 1440 * 5 / 60, 2 * 1440 * 15 / 60, 2 * 1440])  // τ/T at 5, 15, 60 min
        #expect(pair.fetches == 48)
        #expect(abs(pair.fetchesPerDay - 24) < 0.01)
        let quarter = Simulator(evaluation: e).replay(h, policies: [FixedIntervalPolicy(interval: .hours(4))])
        #expect(quarter[0][0].fresh[1] == 2 * 1440 * 15 / 240)
    }

    @Test func oracleIsFullyFreshAtTau() {
        var draws = SeededDraws(seed: 42)
        var t = day0
        var launches: [(Instant, Int32)] = []
        for _ in 0..<2_000 {
            let x = draws.next()
            t += .seconds(Int64(x >> 33) % 7_200)
            launches.append((t, Int32((x >> 20) % 3)))
        }
        for refreshes in [true, false] {
            let h = history(launches, apps: 3)
            let out = Simulator(evaluation: evaluation(refreshes: refreshes)).replay(h, policies: [OraclePolicy()])
            for pair in out[0] {
                #expect(pair.scored > 0)
                #expect(pair.fresh[1] == pair.scored)
                #expect(pair.fresh[2] == pair.scored)
            }
        }
    }

    @Test func aRelaunchWithinTauIsFreshOnlyWhenLaunchesRefresh() {
        let s = day0 + .days(1)
        let h = history([(day0, 0), (s + .hours(1), 0), (s + .hours(1) + .minutes(10), 0)])
        let on = Simulator(evaluation: evaluation(refreshes: true)).replay(h, policies: [NeverPolicy()])
        #expect(on[0][0].scored == 2)
        #expect(on[0][0].fresh == [0, 1, 1])
        let off = Simulator(evaluation: evaluation(refreshes: false)).replay(h, policies: [NeverPolicy()])
        #expect(off[0][0].fresh == [0, 0, 0])
    }

    @Test func fetchesBeforeTheStartRefreshButAreNotCounted() {
        let s = day0 + .days(1)
        let h = history([(day0, 0), (s + .minutes(5), 0), (s + .hours(5), 0)])
        let policy = AtTimes(times: [s - .minutes(5), s + .hours(5) - .minutes(30)])
        let out = Simulator(evaluation: evaluation(refreshes: false)).replay(h, policies: [policy])
        #expect(out[0][0].scored == 2)
        #expect(out[0][0].fresh == [0, 1, 2])  // staleness 10 min, then 30 min
        #expect(out[0][0].fetches == 1)
        #expect(abs(out[0][0].days - (Microseconds.hours(5)).inDays) < 1e-12)
        // A launch with no refresh before it is not fresh.
        let none = Simulator(evaluation: evaluation(refreshes: false)).replay(h, policies: [NeverPolicy()])
        #expect(none[0][0].fresh == [0, 0, 0])
    }

    @Test func warmUpEndsAtTheFirstLocalMidnightAtLeastSevenDaysLater() throws {
        let offset: Int32 = 3_600
        let t0 = day0 + .hours(10)
        let h = history([(t0, 0), (t0 + .days(10), 0)], offset: offset)
        let w = try #require(EvaluationProtocol().window(of: h))
        #expect(w.firstEvent == t0)
        #expect(w.start == LocalCalendar.midnight(of: LocalCalendar.day(t0, offset: offset) + 8, offset: offset))
        #expect(w.end == t0 + .days(10))
        // Starting exactly at a local midnight: S is exactly seven days later.
        let m = LocalCalendar.midnight(of: 19_786, offset: offset)
        let w2 = try #require(EvaluationProtocol().window(of: history([(m, 0), (m + .days(9), 0)], offset: offset)))
        #expect(w2.start == m + .days(7))
        // A log that ends before S is not evaluated.
        #expect(EvaluationProtocol().window(of: history([(t0, 0), (t0 + .days(7), 0)])) == nil)
    }

    @Test func appsNeedTwentyLaunchesInTheWholeLog() {
        var launches: [(Instant, Int32)] = []
        for i in 0..<20 { launches.append((day0 + .hours(Int64(i * 12)), 0)) }
        for i in 0..<19 { launches.append((day0 + .hours(Int64(i * 12 + 1)), 1)) }
        let h = history(launches, apps: 2)
        #expect(EvaluationProtocol().evaluatedApps(of: h) == [0])
        let out = Simulator(evaluation: EvaluationProtocol()).replay(h, policies: [NeverPolicy()])
        #expect(out[0].count == 1)
        #expect(out[0][0].scored == 6)  // 168 h (S = t0 + 7 d, t0 being a midnight) to 228 h every 12 h
    }
}

@Suite struct BudgetOracleTests {
    /// Among equally good choices the earliest launches get the fetches: the protocol fixes only the
    /// coverage at the primary τ, this rule fixes fresh@τ at the other τ as well.
    @Test func tiesGoToTheEarliestLaunches() {
        let tau = Microseconds.minutes(15)
        #expect(BudgetOraclePolicy.bestCover([0, .minutes(100)], k: 1, tau: tau) == [0])
        #expect(
            BudgetOraclePolicy.bestCover([0, .minutes(100), .minutes(200)], k: 2, tau: tau) == [0, .minutes(100)])
        // A better choice still wins over an earlier one.
        #expect(
            BudgetOraclePolicy.bestCover([0, .minutes(100), .minutes(105), .minutes(110)], k: 1, tau: tau)
                == [.minutes(100)])
    }

    /// budget-oracle(k) on one day with nothing carried over covers at least as many launches as
    /// k fetches placed anywhere (brute force over launch times and random times).
    @Test func coversAtLeastAsManyAsAnyKFetchesOnADay() {
        var draws = SeededDraws(seed: 7)
        func next(_ n: Int) -> Int {
            let x = draws.next()
            return Int(x >> 33) % n
        }
        let s = day0 + .days(1)
        for round in 0..<300 {
            let n = 1 + next(9)
            let times = (0..<n).map { _ in s + .minutes(Int64(next(240))) }.sorted()
            let k = 1 + next(3)
            let refreshes = round % 2 == 0
            let e = evaluation(refreshes: refreshes)
            let window = UserWindow(firstEvent: day0, start: s, end: s + .days(1) - 1, offset: 0)
            let pair = PairContext(
                history: history([]), app: 0, launches: times, window: window, evaluation: e)
            func fresh(_ fetches: [Instant]) -> Int {
                Replay.run(
                    launches: times, fetches: fetches, window: window, taus: [.minutes(15)], launchRefreshes: refreshes
                ).fresh[0]
            }
            let chosen = BudgetOraclePolicy(budget: k).fetchTimes(for: pair)
            #expect(chosen.count <= k)
            let got = fresh(chosen)
            let candidates = Array(Set(times + (0..<6).map { _ in s + .minutes(Int64(next(260))) })).sorted()
            var best = 0
            func search(_ from: Int, _ left: Int, _ picked: [Instant]) {
                best = max(best, fresh(picked))
                guard left > 0 else { return }
                for i in from..<candidates.count { search(i + 1, left - 1, picked + [candidates[i]]) }
            }
            search(0, k, [])
            #expect(got >= best, "round \(round): \(times) k=\(k) chose \(chosen)")
        }
    }

    @Test func worksDayByDayOnLocalDays() {
        let offset: Int32 = -5 * 3_600
        let s = LocalCalendar.midnight(of: 19_787, offset: offset)
        // Two local days of four launches an hour apart each.
        var times: [Instant] = []
        for d in 0..<2 {
            for h in 0..<4 {
                let day = s + Microseconds.days(Int64(d))
                times.append(day + Microseconds.hours(Int64(8 + h)))
            }
        }
        let window = UserWindow(firstEvent: s - .days(7), start: s, end: s + .days(2) - 1, offset: offset)
        let pair = PairContext(
            history: history([]), app: 0, launches: times, window: window, evaluation: evaluation())
        let fetches = BudgetOraclePolicy(budget: 2).fetchTimes(for: pair)
        #expect(fetches.count == 4)
        #expect(Set(fetches.map { LocalCalendar.day($0, offset: offset) }) == [19_787, 19_788])
    }
}

@Suite struct FrontierTests {
    @Test func interpolatesByHand() throws {
        let f = Frontier([(4, 0.8), (0, 0.3), (2, 0.45), (1, 0.5)])
        #expect(f.points.map(\.y) == [0.3, 0.5, 0.8])  // (2, 0.45) is beaten by (1, 0.5): dropped
        #expect(f.value(at: 0) == 0.3)
        #expect(abs(f.value(at: 1.5)! - 0.55) < 1e-12)  // joined linearly from (1, 0.5) to (4, 0.8)
        #expect(abs(f.value(at: 3)! - 0.7) < 1e-12)
        #expect(f.value(at: 10) == 0.8)  // flat past the last point
        // Several points at one cost: the freshest stands for them.
        let same = Frontier([(1, 0.2), (1, 0.5), (1, 0.4), (0, 0.1)])
        #expect(same.points.count == 2)
        #expect(same.value(at: 1) == 0.5)
    }
}

@Suite struct CompareReportTests {
    func population() -> [UserHistory] {
        var draws = SeededDraws(seed: 3)
        return (0..<4).map { u in
            var t = day0 + .hours(Int64(u))
            var launches: [UsageEvent] = []
            for _ in 0..<1_500 {
                let x = draws.next()
                t += .seconds(Int64(x >> 33) % 2_400)
                launches.append(UsageEvent(time: t, offset: 3_600, app: Int32((x >> 18) % 4)))
            }
            return UserHistory(user: UserID("u\(u)"), apps: (0..<4).map { AppID("a\($0)") }, launches: launches)
        }
    }

    @Test func jsonHasTheAgreedShape() throws {
        let report = Simulator().compare(population(), policies: PolicyRegistry.references)
        let json = TextFormat.json(report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "settings", "headline", "budget", "budget_curve", "fixed_curve", "bound_curve", "ceilings", "policies",
            ])
        let headline = try #require(object["headline"] as? [String: Any])
        #expect(Set(headline.keys) == ["budget", "app", "os", "platforms", "lever"])
        #expect(try JSONDecoder().decode(ComparisonReport.self, from: Data(json.utf8)) == report)
        let settings = try #require(object["settings"] as? [String: Any])
        #expect(
            Set(settings.keys) == [
                "tau_minutes", "taus_minutes", "launch_refreshes", "warm_up_days", "min_launches", "platform", "users",
                "pairs", "scored_launches", "platform_rules", "cost_model", "context_defaults", "users_without_context",
                "pairs_with_content_updates", "first_scored_day", "last_scored_day",
            ])
        #expect(settings["users_without_context"] as? Int == 4)  // no context samples: the defaults stood in
        #expect((settings["context_defaults"] as? [String: Any])?["network"] as? String == "wifi")
        #expect(settings["tau_minutes"] as? Int == 15)
        #expect(settings["taus_minutes"] as? [Int] == [5, 15, 60])
        #expect(settings["platform"] as? String == "none")
        #expect(settings["users"] as? Int == 4)
        #expect(settings["pairs"] as? Int == 16)
        let policies = try #require(object["policies"] as? [[String: Any]])
        #expect(
            policies.map { $0["name"] as? String } == [
                "never", "fixed(15m)", "fixed(30m)", "fixed(1h)", "fixed(2h)", "fixed(4h)", "fixed(8h)", "fixed(24h)",
                "oracle", "budget-oracle(1)", "budget-oracle(2)", "budget-oracle(4)", "budget-oracle(8)",
                "budget-oracle(16)",
            ])
        let fixed1h = policies[3]
        #expect(fixed1h["family"] as? String == "fixed")
        #expect((fixed1h["params"] as? [String: Any])?["interval_minutes"] as? Int == 60)
        let metrics = try #require(fixed1h["metrics"] as? [String: Any])
        #expect(
            Set(metrics.keys) == [
                "scored_launches", "fresh_5m", "fresh_15m", "fresh_60m", "fetches_per_app_day", "fresh_ci",
                "gain_vs_fixed", "gain_ci", "share_of_possible", "content_fresh", "staleness_median_min",
                "staleness_p90_min", "lead_median_min", "fetches",
                "wasted_fetches", "wasted_share", "energy_j_per_day", "battery_pct_per_day", "cellular_mb_per_day",
                "cellular_fetches_per_day",
                "fetches_low_battery", "skips", "reliability", "staleness_cdf",
            ])
        #expect((metrics["staleness_cdf"] as? [Double])?.count == PolicyMetrics.stalenessCDFMinutes.count)
        #expect(metrics["reliability"] is NSNull)  // fixed intervals state no probability
        #expect(Set((metrics["skips"] as? [String: Int])?.keys ?? [:].keys) == Set(SkipReason.allCases.map(\.rawValue)))
        #expect(metrics["content_fresh"] is NSNull)  // no content updates
        #expect((fixed1h["per_app"] as? [[String: Any]])?.map { $0["name"] as? String } == ["a0", "a1", "a2", "a3"])
        #expect(fixed1h["per_user"] == nil)
        #expect(metrics["scored_launches"] as? Int == settings["scored_launches"] as? Int)
        let oracle = try #require(policies[8]["metrics"] as? [String: Any])
        #expect(oracle["gap_closed"] == nil)
        #expect(oracle["share_of_possible"] as? Double ?? 0 <= 1 + 1e-9)
        #expect(oracle["fresh_15m"] as? Double == 1)
        // Decodes back to the same numbers.
        let decoded = try JSONDecoder().decode(ComparisonReport.self, from: Data(json.utf8))
        #expect(decoded.policies.map(\.metrics.fresh) == report.policies.map(\.metrics.fresh))
        #expect(decoded.settings.scoredLaunches == report.settings.scoredLaunches)
        // Each fixed interval's gain is its distance from the baseline's line at its own cost.
        let fixed = report.policies[1...7]
        let never = report.policies[0].metrics.fresh[1]
        #expect(report.fixedCurve == [[0, never], [96, 1]])
        for p in fixed {
            let line = FixedBaselineLine.fresh(never: never, budget: p.metrics.fetchesPerAppDay, tau: 15 * .perMinute)
            #expect(abs((p.metrics.gainVsFixed ?? 1) - (p.metrics.fresh[1] - line)) < 1e-12, "\(p.name)")
        }
        #expect(zip(fixed, fixed.dropFirst()).allSatisfy { $0.metrics.fresh[1] >= $1.metrics.fresh[1] })
        let text = CompareRenderer.text(report)
        #expect(text.hasPrefix("τ = 15 min, launch refreshes on"))
        #expect(text.contains("platform none"))
    }

    @Test func sameResultWhateverTheScheduling() {
        let users = population()
        let a = Simulator().compare(users, policies: PolicyRegistry.references)
        let b = Simulator().compare(users.reversed(), policies: PolicyRegistry.references)
        #expect(a == Simulator().compare(users, policies: PolicyRegistry.references))
        #expect(a.policies.map(\.metrics.scoredLaunches) == b.policies.map(\.metrics.scoredLaunches))
        for (x, y) in zip(a.policies, b.policies) {
            #expect(x.metrics.fresh == y.metrics.fresh)
            #expect(abs(x.metrics.fetchesPerAppDay - y.metrics.fetchesPerAppDay) < 1e-9)
        }
    }

    @Test func registryReadsNamesAsTyped() throws {
        let names = try PolicyRegistry.parseList(
            " never, Fixed(15m, 1h) ,budget-oracle(1,2), oracle, fixed(24h), fixed:1h"
        )
        .map(\.name)
        #expect(
            names == [
                "never", "fixed(15m)", "fixed(1h)", "budget-oracle(1)", "budget-oracle(2)", "oracle", "fixed(24h)",
            ])
        #expect(throws: PolicyRegistry.ParseError.self) { try PolicyRegistry.parseList("sometimes") }
        #expect(throws: PolicyRegistry.ParseError.self) { try PolicyRegistry.parseList("fixed(0m)") }
        #expect(throws: PolicyRegistry.ParseError.self) { try PolicyRegistry.parseList("budget-oracle(x)") }
        #expect(OraclePolicy().summary.contains("clairvoyant"))
    }
}
