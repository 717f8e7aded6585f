import FetchLabResults
import Testing

/// `runs diff`'s intervals: one for each difference (fresh, fetches, energy), from the same
/// bootstrap over users, and none without per-user figures.
@Suite struct RunDiffTests {
    /// A run of one policy whose users have the given (fresh, fetches/app/day, J/day) figures
    /// over 100 scored launches each; the run's figures are the users' means.
    static func run(_ users: [(fresh: Double, fetches: Double, energy: Double)], perUser: Bool = true)
        -> ComparisonReport
    {
        let settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(15)], launchRefreshes: true, warmUpDays: 7, minLaunches: 5,
            platform: .none, users: users.count, pairs: users.count, scoredLaunches: 100 * users.count)
        func metrics(_ fresh: Double, _ fetches: Double, _ energy: Double, launches: Int) -> PolicyMetrics {
            var m = PolicyMetrics(scoredLaunches: launches, fresh: [fresh], fetchesPerAppDay: fetches)
            m.energyJoulesPerDay = energy
            return m
        }
        let n = Double(users.count)
        var policy = PolicyResult(
            name: "fixed(1h)", family: "fixed", params: [:],
            metrics: metrics(
                users.map(\.fresh).reduce(0, +) / n, users.map(\.fetches).reduce(0, +) / n,
                users.map(\.energy).reduce(0, +) / n, launches: 100 * users.count),
            perApp: [])
        if perUser {
            policy.perUser = users.enumerated().map {
                GroupResult(
                    name: "u\($0.offset)",
                    metrics: metrics($0.element.fresh, $0.element.fetches, $0.element.energy, launches: 100))
            }
        }
        return ComparisonReport(settings: settings, policies: [policy])
    }

    @Test func everyDifferenceHasAnIntervalAroundIt() throws {
        typealias Figures = (fresh: Double, fetches: Double, energy: Double)
        func user(_ k: Int, _ base: Double) -> Figures {
            let i = Double(k)
            let fresh: Double = base + 0.01 * i.truncatingRemainder(dividingBy: 5)
            let fetches: Double = 10 * base + 0.1 * i.truncatingRemainder(dividingBy: 3)
            let energy: Double = 40 * base + i.truncatingRemainder(dividingBy: 4)
            return (fresh, fetches, energy)
        }
        let a = Self.run((0..<20).map { user($0, 0.2) })
        let b = Self.run((0..<20).map { user($0 * 7 % 20, 0.3) })
        let row = try #require(RunDiff(a, id: 1, b, id: 2).policies.first)
        let fetches = try #require(row.fetchesDifferenceInterval)
        let energy = try #require(row.energyDifferenceInterval)
        let fresh = try #require(row.freshDifferenceInterval)
        #expect(fresh.low <= row.difference.fresh && row.difference.fresh <= fresh.high)
        #expect(fetches.low <= row.difference.fetchesPerAppDay && row.difference.fetchesPerAppDay <= fetches.high)
        #expect(energy.low <= row.difference.energyJoulesPerDay && row.difference.energyJoulesPerDay <= energy.high)
        // Users vary, so the intervals have width.
        #expect(fetches.high > fetches.low && energy.high > energy.low)
    }

    /// Every user spends exactly 3 J and 0.5 fetches more per day in B: with the same users in both
    /// runs (paired) each resample's difference is exactly that, and so is the interval.
    @Test func aShiftEveryUserSharesHasAnIntervalOfThatShiftAlone() throws {
        let users: [(fresh: Double, fetches: Double, energy: Double)] = (0..<10).map { k in
            let i = Double(k)
            return (fresh: 0.2 + 0.02 * i, fetches: 1 + 0.25 * i, energy: 5 + i)
        }
        let a = Self.run(users)
        let b = Self.run(users.map { (fresh: $0.fresh, fetches: $0.fetches + 0.5, energy: $0.energy + 3) })
        let row = try #require(RunDiff(a, id: 1, b, id: 2).policies.first)
        let fetches = try #require(row.fetchesDifferenceInterval)
        let energy = try #require(row.energyDifferenceInterval)
        #expect(abs(fetches.low - 0.5) < 1e-9 && abs(fetches.high - 0.5) < 1e-9)
        #expect(abs(energy.low - 3) < 1e-9 && abs(energy.high - 3) < 1e-9)
        #expect(row.freshDifferenceInterval == ConfidenceInterval(low: 0, high: 0))
    }

    @Test func withoutPerUserFiguresNoDifferenceHasAnInterval() throws {
        let users: [(fresh: Double, fetches: Double, energy: Double)] = (0..<10).map { k in
            (fresh: 0.2 + 0.02 * Double(k), fetches: 1.0, energy: 5.0)
        }
        let diff = RunDiff(Self.run(users), id: 1, Self.run(users, perUser: false), id: 2)
        let row = try #require(diff.policies.first)
        #expect(row.freshDifferenceInterval == nil && row.fetchesDifferenceInterval == nil)
        #expect(row.energyDifferenceInterval == nil)
        #expect(diff.intervalNote == RunDiff.noPerUserNote)
    }
}
