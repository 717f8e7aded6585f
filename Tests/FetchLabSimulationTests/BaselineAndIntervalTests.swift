import FetchLabCore
import FetchLabReport
import FetchLabResults
import FetchLabSynth
import Foundation
import Testing

@testable import FetchLabSimulation

/// A generated population (the synthetic generator's habits and sessions).
private func generated(users: Int, days: Int = 24, seed: UInt64) -> [UserHistory] {
    let options = GenerateOptions(users: users, days: days, seed: seed, startDay: Int(day0.sinceEpoch / .perDay))
    guard let generator = try? Generator(options: options) else { return [] }
    return generator.simulate(users: 0..<users).map(\.history)
}

/// The fixed-interval baseline in closed form (DOMAIN.md, "Fixed-interval baseline").
@Suite struct ClosedFormBaselineTests {
    /// Scored launches and those fresh without a fetch (launch refreshes on: within τ after the same
    /// app's previous launch), counted from the launches alone, over the evaluated pairs.
    static func counts(_ users: [UserHistory], _ e: EvaluationProtocol) -> (scored: Int, free: Int) {
        var (scored, free) = (0, 0)
        for h in users {
            guard let w = e.window(of: h) else { continue }
            for app in e.evaluatedApps(of: h) {
                let times = h.launches.filter { $0.app == app }.map(\.time).sorted()
                for (i, t) in times.enumerated() where t >= w.start && t <= w.end {
                    scored += 1
                    if i > 0, t - times[i - 1] <= e.primaryTau { free += 1 }
                }
            }
        }
        return (scored, free)
    }

    /// On generated populations, the run's baseline is (free + targets · min(1, τ·B/1440)) / scored
    /// at every budget, for each primary τ; every policy's gain is its fresh rate less the line at
    /// its own fetches per app per day; `never` gains exactly 0; no share exceeds 1.
    @Test(arguments: [5, 15, 60] as [Int64])
    func theBaselineIsTheClosedFormAtEveryBudget(tau: Int64) throws {
        for seed in [3, 8] as [UInt64] {
            let users = generated(users: 4, seed: seed)
            var e = EvaluationProtocol()
            e.primaryTau = .minutes(tau)
            let policies = try PolicyRegistry.parseList(
                "never, fixed(20m,1h,6h), predictive(15m,0.3), budget-oracle(1,4)")
            var run = Simulator(evaluation: e).comparison(policies: policies)
            run.resamples = 100
            run.budgets = [0.1, 0.5, 1, 2, 5, 10, 30, 1_440 / Double(tau), 500]
            run.add(users)
            let report = run.report()
            let (scored, free) = Self.counts(users, e)
            try #require(scored > 0)
            #expect(report.settings.scoredLaunches == scored)
            func line(_ b: Double) -> Double {
                (Double(free) + Double(scored - free) * min(1, Double(tau) * b / 1_440)) / Double(scored)
            }
            for point in report.budgetCurve {
                #expect(abs(point.fixed - line(point.budget)) < 1e-4, "τ \(tau), seed \(seed), B \(point.budget)")
                #expect(abs(point.never - line(0)) < 1e-12)
                for (name, f) in point.families {
                    #expect(abs(f.gainVsFixed - (f.fresh - point.fixed)) < 1e-12, "\(name)")
                    if let s = f.shareOfPossible { #expect(s <= 1 + 1e-9, "\(name) at \(point.budget)") }
                }
            }
            #expect(report.fixedCurve == [[0, line(0)], [1_440 / Double(tau), 1]])
            for p in report.policies {
                let gain = try #require(p.metrics.gainVsFixed)
                let fresh = p.metrics.fresh[report.settings.taus.firstIndex(of: .minutes(tau))!]
                #expect(abs(gain - (fresh - line(p.metrics.fetchesPerAppDay))) < 1e-4, "\(p.name)")
                if let s = p.metrics.shareOfPossible { #expect(s <= 1 + 1e-9, "\(p.name)") }
            }
            let never = try #require(report.policies.first { $0.name == "never" })
            #expect(never.metrics.gainVsFixed == 0)
            #expect(never.metrics.shareOfPossible.map { $0 == 0 } ?? true)
        }
    }
}

/// Intervals over users, or over each user's days with fewer than ``BudgetSettings/fewUsers`` users.
@Suite struct DayIntervalTests {
    static let policies = try! PolicyRegistry.parseList("never, fixed(1h), predictive(15m,0.3), budget-oracle(2)")

    static func report(_ users: [UserHistory], seed: UInt64 = 1, keep: Bool = false) -> ComparisonRun {
        var run = Simulator().comparison(policies: policies)
        run.resamples = 300
        run.seed = seed
        run.keepsUsers = keep
        run.add(users)
        return run
    }

    /// Two users: the intervals are over days (said in the JSON), seeded, and their ends are not the
    /// two users' own values, which an interval over two users would be.
    @Test func twoUsersResampleTheirDays() throws {
        let users = generated(users: 2, seed: 11)
        let report = Self.report(users).report()
        #expect(report.budget?.intervalOver == .days)
        #expect(report.budget?.resamples == 300)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(TextFormat.json(report).utf8)) as? [String: Any])
        #expect((json["budget"] as? [String: Any])?["interval_over"] as? String == "days")
        #expect(Self.report(users).report() == report)
        #expect(Self.report(users, seed: 2).report() != report)
        let own = users.map { Self.report([$0]).report() }
        for (i, p) in report.policies.enumerated() where p.name != "never" {
            let fresh = try #require(p.metrics.freshInterval, "\(p.name)")
            let gain = try #require(p.metrics.gainInterval, "\(p.name)")
            #expect(fresh.low < p.metrics.fresh[1] && p.metrics.fresh[1] < fresh.high, "\(p.name)")
            for u in own {
                let m = u.policies[i].metrics
                #expect(abs(fresh.low - m.fresh[1]) > 1e-6 && abs(fresh.high - m.fresh[1]) > 1e-6, "\(p.name)")
                let g = try #require(m.gainVsFixed)
                #expect(abs(gain.low - g) > 1e-6 && abs(gain.high - g) > 1e-6, "\(p.name)")
            }
        }
        let point = try #require(report.headlinePoint)
        #expect(point.fixedInterval.map { $0.low < point.fixed && point.fixed < $0.high } == true)
        #expect(report.budget?.warnings.first?.contains("over days of these 2 users, not over users") == true)
    }

    /// One user: days are all there is, so it has intervals too.
    @Test func oneUserHasIntervalsOverItsDays() throws {
        let report = Self.report(generated(users: 1, seed: 4)).report()
        #expect(report.budget?.intervalOver == .days)
        let p = try #require(report.policies.first { $0.name == "predictive(15m,0.3)" })
        let i = try #require(p.metrics.freshInterval)
        #expect(i.low < i.high)
        #expect(report.intervalScope == "over days of this user, not over users")
    }

    /// With 10 users or more the intervals are over users; a stored report without the field reads as users.
    @Test func tenUsersResampleUsers() throws {
        let report = Self.report(randomUsers(10, days: 12, apps: 2)).report()
        #expect(report.budget?.intervalOver == .users)
        #expect(report.intervalScope == "over users")
        var json = try #require(
            try JSONSerialization.jsonObject(with: Data(TextFormat.json(report).utf8)) as? [String: Any])
        var budget = try #require(json["budget"] as? [String: Any])
        #expect(budget["interval_over"] as? String == "users")
        budget["interval_over"] = nil
        budget["resamples"] = 7
        json["budget"] = budget
        let old = try JSONDecoder().decode(
            ComparisonReport.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.budget?.intervalOver == .users && old.budget?.resamples == 7)
    }

    /// A user's days add up to its own sums: scored, free and fresh exactly, fetches per day over
    /// the scored span (closed-form fixed intervals, event-by-event replays and the oracle alike).
    @Test func aUsersDaysAddUpToItsSums() throws {
        let e = EvaluationProtocol()
        for h in generated(users: 3, seed: 9) {
            let w = try #require(e.window(of: h))
            let user = UserSetup(history: h, window: w, evaluation: e, context: ContextDefaults())
            let outcomes = Self.policies.map { Simulator(evaluation: e).replay(user, policy: $0) }
            let sums = UserBudgetSums(
                user: user, outcomes: outcomes, primary: 1, tau: e.primaryTau, launchRefreshes: true)
            let days = try #require(sums.days)
            #expect(days.count == w.scoredDayCount && days.count > 10)
            #expect(sums.daysInconsistency(policies: Self.policies.count, resampledByDay: true) == nil)
            let totals = days.totals
            for i in Self.policies.indices {
                let fetches = Double(totals[2 + Self.policies.count + i]) / w.scoredDays
                #expect(abs(fetches - sums.fetchesPerDay[i]) < 1e-9 * max(1, fetches), "\(Self.policies[i].name)")
            }
            #expect((0..<days.count).map(days.length(ofDay:)).reduce(0, +) - w.scoredDays < 1e-9)
        }
    }

    /// A sharded run equals the unsharded one, over days (two partials of 2 users) and over users
    /// (three partials of 4: each keeps its days, the merge of 12 resamples users); a partial of
    /// fewer than 10 users without its days is refused.
    @Test func mergedShardsDecideByTheMergedUsers() throws {
        for (count, shards) in [(4, 2), (12, 3)] {
            let users = generated(users: count, days: 16, seed: 21).sorted {
                $0.user.name.utf8.lexicographicallyPrecedes($1.user.name.utf8)
            }
            let size = count / shards
            var merged: ComparisonRun? = nil
            for s in 0..<shards {
                let part = Array(users[(s * size)..<((s + 1) * size)])
                let partial = Self.report(part, keep: true).partial(shard: nil, source: "test")
                #expect(partial.inconsistency(policies: Self.policies) == nil)
                #expect(partial.users.allSatisfy { $0.budget?.days != nil })
                if merged == nil { merged = try ComparisonRun(merging: partial.configuration, policies: Self.policies) }
                try merged!.absorb(partial)
            }
            try merged!.finishMerge()
            let whole = Self.report(users).report()
            #expect(whole.budget?.intervalOver == (count < 10 ? .days : .users))
            #expect(TextFormat.json(merged!.report()) == TextFormat.json(whole))
        }
        var partial = Self.report(generated(users: 2, days: 16, seed: 21), keep: true).partial(shard: nil, source: "t")
        partial.users[1].budget?.days = nil
        #expect(partial.inconsistency(policies: Self.policies)?.contains("its scored days are missing") == true)
        // Ten users or more: the partial lets the days go.
        let large = Self.report(randomUsers(10, days: 12, apps: 2), keep: true).partial(shard: nil, source: "t")
        #expect(large.users.allSatisfy { $0.budget != nil && $0.budget?.days == nil })
        #expect(large.inconsistency(policies: Self.policies) == nil)
    }
}
