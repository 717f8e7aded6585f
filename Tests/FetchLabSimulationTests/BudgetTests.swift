import FetchLabCore
import FetchLabResults
import FetchLabScale
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabSimulation

/// The clairvoyant bound, the fixed-interval baseline and freshness at a budget (DOMAIN.md,
/// "Evaluation protocol").
@Suite struct ClairvoyantBoundTests {
    static func minutes(_ m: [Int64]) -> [Instant] { m.map { .epoch + .minutes($0) } }

    @Test func onePairByHand() {
        // Targets at 0, 10, 20 min, τ = 15 min: one fetch covers two, two cover all three.
        var bound = ClairvoyantBound()
        bound.add(
            ClairvoyantBound.Pair(targets: Self.minutes([0, 10, 20]), days: 1, tau: .minutes(15)), scored: 5,
            freeFresh: 2)
        #expect(abs(bound.coveredTargets(atBudget: 1) - 2) < 1e-9)
        #expect(abs(bound.coveredTargets(atBudget: 2) - 3) < 1e-9)
        // The concave hull between: 2.5 at 1.5 fetches a day.
        #expect(abs(bound.coveredTargets(atBudget: 1.5) - 2.5) < 1e-9)
        #expect(abs(bound.coveredTargets(atBudget: 0.5) - 1) < 1e-9)
        #expect(abs(bound.fresh(atBudget: 2) - 1) < 1e-12)  // (2 free + 3) / 5
        #expect(abs(bound.fresh(atBudget: 1) - 0.8) < 1e-9)
        #expect(abs(bound.saturation - 2) < 1e-9)
    }

    @Test func aFetchCostsMoreInAShortLog() {
        // Two pairs, each a lone target: a fetch in the 1-day pair costs 1/(2·1) of the average, in the
        // 10-day pair 1/(2·10). With 0.05 fetches/app/day only the long log's target can be bought.
        var bound = ClairvoyantBound()
        bound.add(
            ClairvoyantBound.Pair(targets: Self.minutes([0]), days: 1, tau: .minutes(15)), scored: 1, freeFresh: 0)
        bound.add(
            ClairvoyantBound.Pair(targets: Self.minutes([0]), days: 10, tau: .minutes(15)), scored: 1, freeFresh: 0)
        #expect(abs(bound.coveredTargets(atBudget: 0.05) - 1) < 1e-9)
        #expect(abs(bound.coveredTargets(atBudget: 0.55) - 2) < 1e-9)
        #expect(abs(bound.coveredTargets(atBudget: 0.3) - 1.5) < 1e-9)  // half of the short log's fetch
    }

    /// c(k) by trying every set of k fetch positions (fetches at targets suffice).
    static func bruteForce(_ targets: [Instant], tau: Microseconds) -> [Int] {
        let n = targets.count
        var best = [Int](repeating: 0, count: n + 1)
        for mask in 0..<(1 << n) {
            var covered = Set<Int>()
            for i in 0..<n where mask & (1 << i) != 0 {
                for j in 0..<n where targets[j] >= targets[i] && targets[j] <= targets[i] + tau { covered.insert(j) }
            }
            let k = mask.nonzeroBitCount
            best[k] = max(best[k], covered.count)
        }
        for k in 1...max(1, n) where k <= n { best[k] = max(best[k], best[k - 1]) }
        return best
    }

    /// The fractional optimum by greedy on the hulls' segments (an independent route).
    static func greedy(_ pairs: [(c: [Int], days: Double)], budget: Double) -> Double {
        var segments: [(slope: Double, cost: Double, gain: Double)] = []
        let p = Double(pairs.count)
        for (c, days) in pairs {
            var k = 0
            while k < c.count - 1 {
                // The hull's next vertex: the steepest chord from k.
                var bestJ = k + 1
                var bestSlope = -Double.infinity
                for j in (k + 1)..<c.count {
                    let s = Double(c[j] - c[k]) / Double(j - k)
                    if s > bestSlope + 1e-12 {
                        bestSlope = s
                        bestJ = j
                    }
                }
                let cost = Double(bestJ - k) / (p * days)
                segments.append((Double(c[bestJ] - c[k]) / cost, cost, Double(c[bestJ] - c[k])))
                k = bestJ
            }
        }
        var left = budget
        var total = 0.0
        for s in segments.sorted(by: { $0.slope > $1.slope }) where left > 0 && s.gain > 0 {
            let take = min(1, left / s.cost)
            total += take * s.gain
            left -= take * s.cost
        }
        return total
    }

    @Test func matchesBruteForceOnRandomPairs() {
        var draws = SeededDraws(seed: 11)
        func next(_ n: UInt64) -> UInt64 {
            let x = draws.next()
            return (x >> 33) % n
        }
        for _ in 0..<40 {
            var bound = ClairvoyantBound()
            var pairs: [(c: [Int], days: Double)] = []
            for _ in 0..<(1 + Int(next(4))) {
                var t: Instant = 0
                let targets = (0..<(1 + Int(next(9)))).map { _ -> Instant in
                    t += .minutes(Int64(next(40)))
                    return t
                }
                let days = Double(1 + next(20))
                bound.add(
                    ClairvoyantBound.Pair(targets: targets, days: days, tau: .minutes(15)), scored: targets.count,
                    freeFresh: 0)
                pairs.append((Self.bruteForce(targets, tau: .minutes(15)), days))
            }
            for budget in [0.01, 0.1, 0.3, 0.7, 1.5, 4] {
                let expected = Self.greedy(pairs, budget: budget)
                #expect(abs(bound.coveredTargets(atBudget: budget) - expected) < 1e-6, "budget \(budget)")
            }
        }
    }
}

/// A causal policy that fetches at random: right after some events, or a random while after them.
struct RandomCausalPolicy: FetchPolicy {
    var seed: UInt64
    var chance: Double
    var name: String { "random(\(seed),\(chance))" }
    var family: String { "random" }
    var signals: Set<PolicySignal> { Set(PolicySignal.allCases).subtracting([.future]) }
    var summary: String { "random fetches" }
    func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        RandomScheduler(draws: SeededDraws(seed: seed &* 31 &+ UInt64(pair.app) &+ 1), chance: chance)
    }

    struct RandomScheduler: FetchScheduler {
        var draws: SeededDraws
        var chance: Double
        var pending: Instant? = nil
        var nextWake: Instant? { pending }
        mutating func draw() -> Double { draws.unit() }
        mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
            if draw() < chance { return .fetch }
            if pending == nil, draw() < chance { pending = event.time + Microseconds(draw() * 3_600e6) }
            return nil
        }
        mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
            pending = nil
            return .fetch
        }
    }
}

@Suite struct BudgetCurveTests {
    /// Users with daily habits (an app at its hour, give or take), sessions of several apps and
    /// random use, 21 days each.
    static func population(users: Int = 12, seed: UInt64 = 5) -> [UserHistory] {
        var draws = SeededDraws(seed: seed)
        func next(_ n: UInt64) -> UInt64 {
            let x = draws.next()
            return (x >> 33) % n
        }
        let march1 = CivilDate(year: 2024, month: 3, day: 1).daysSince1970
        return (0..<users).map { u in
            var b = HistoryBuilder(user: UserID("u\(u)"), apps: (0..<5).map { AppID("app\($0)") }, firstDay: march1)
            let habits = (0..<5).map { _ in Int(6 + next(16)) }
            for d in 0..<21 {
                for (app, hour) in habits.enumerated() where next(10) < 7 {
                    var t = b.time(day: d, hour: hour, minute: Int(next(40)))
                    for _ in 0..<(1 + Int(next(3))) {
                        b.launch(Int32(app), at: t)
                        t += .minutes(Int64(1 + next(30)))
                        b.launch(Int32(next(5)), at: t)
                        t += .minutes(Int64(1 + next(90)))
                    }
                }
            }
            return b.build()
        }
    }

    static func standardAndRandom() -> [any FetchPolicy] {
        var policies = PolicyRegistry.standard(contentUpdates: false)
        policies += try! PolicyRegistry.parseList("fixed(20m), fixed(45m), fixed(3h), fixed(6h)")
        for seed in 0..<6 {
            policies.append(RandomCausalPolicy(seed: UInt64(seed), chance: [0.01, 0.05, 0.2][seed % 3]))
        }
        return policies
    }

    @Test func noPolicyBeatsTheBoundAndNoShareExceedsOne() throws {
        let policies = Self.standardAndRandom()
        let report = Simulator().compare(Self.population(), policies: policies)
        var bound = ClairvoyantBound()
        let e = EvaluationProtocol()
        for h in Self.population() {
            guard let w = e.window(of: h) else { continue }
            let user = UserSetup(history: h, window: w, evaluation: e, context: ContextDefaults())
            for pair in user.pairs {
                let (t, scored) = ClairvoyantBound.targets(
                    launches: pair.launches, window: w, tau: e.primaryTau, launchRefreshes: true)
                bound.add(
                    .init(targets: t, days: w.scoredDays, tau: e.primaryTau), scored: scored,
                    freeFresh: scored - t.count)
            }
        }
        #expect(report.settings.scoredLaunches == bound.scored)
        var random = 0
        for p in report.policies {
            let fresh = p.metrics.fresh[1]
            let top = bound.fresh(atBudget: p.metrics.fetchesPerAppDay)
            #expect(
                fresh <= top + 1e-9,
                "\(p.name): \(fresh) at \(p.metrics.fetchesPerAppDay) fetches/app/day over the bound \(top)")
            if let share = p.metrics.shareOfPossible { #expect(share <= 1 + 1e-9, "\(p.name)") }
            if p.family == "random" { random += 1 }
        }
        #expect(random == 6)
        // The oracle reaches the bound exactly where it spends (it is one of the schedules the bound allows).
        let oracle = try #require(report.policies.first { $0.name == "oracle" })
        #expect(abs(oracle.metrics.fresh[1] - bound.fresh(atBudget: oracle.metrics.fetchesPerAppDay)) < 1e-9)
        // Every family read at a budget stays under the bound there, and above never.
        for point in report.budgetCurve {
            #expect(point.fixed <= point.bound + 1e-9)
            #expect(point.never <= point.fixed + 1e-12)
            for (name, f) in point.families {
                #expect(f.fresh <= point.bound + 1e-9, "\(name) at \(point.budget)")
                if let s = f.shareOfPossible { #expect(s <= 1 + 1e-9) }
            }
        }
    }

    @Test func aFixedIntervalInTheRunScattersAroundTheBaseline() throws {
        let policies = try PolicyRegistry.parseList(
            "never, fixed(15m,20m,30m,1h,2h,4h,8h,24h), android-prefetch(12h,15m), oracle, budget-oracle(1,2,4,8,16)")
        let report = Simulator().compare(Self.population(), policies: policies)
        // The baseline is the closed form's line, not the best of the intervals: a fixed interval's
        // gain is its fresh rate less the line at its own cost, above or below by its phase luck.
        let never = try #require(report.policies.first { $0.name == "never" })
        #expect(never.metrics.gainVsFixed == 0)
        #expect(report.fixedCurve == [[0, never.metrics.fresh[1]], [96, 1]])
        var (above, below) = (0, 0)
        for p in report.policies where p.family == "fixed" {
            let gain = try #require(p.metrics.gainVsFixed)
            let line = FixedBaselineLine.fresh(
                never: never.metrics.fresh[1], budget: p.metrics.fetchesPerAppDay, tau: 15 * .perMinute)
            #expect(abs(gain - (p.metrics.fresh[1] - line)) < 1e-12, "\(p.name)")
            if gain > 0 { above += 1 } else { below += 1 }
        }
        #expect(above > 0 && below > 0, "above \(above), below \(below)")
        for point in report.budgetCurve {
            #expect(
                abs(
                    point.fixed
                        - FixedBaselineLine.fresh(never: point.never, budget: point.budget, tau: 15 * .perMinute))
                    < 1e-12)
        }
    }

    @Test func eachFamilyIsReadOnItsFrontAtTheBudget() throws {
        let policies = try PolicyRegistry.parseList(
            "never, fixed(1h), predictive(15m,0.55), predictive(15m,0.3), predictive(15m,0.15), budgeted(1,4)")
        var run = Simulator().comparison(policies: policies)
        run.budgets = [0.5, 1, 2, 5, 10]
        run.add(Self.population())
        let report = run.report()
        let predictive = report.policies.filter { $0.family == "predictive" }
        for point in report.budgetCurve {
            let f = try #require(point.families["predictive"])
            let within = predictive.filter { $0.metrics.fetchesPerAppDay <= point.budget }
            if let best = within.max(by: { $0.metrics.fresh[1] < $1.metrics.fresh[1] }) {
                #expect(f.policy == best.name)
                #expect(f.fresh >= best.metrics.fresh[1] - 1e-12)
            } else {
                #expect(f.policy == nil)
            }
            #expect(abs(f.gainVsFixed - (f.fresh - point.fixed)) < 1e-12)
            #expect(point.families["budgeted"] != nil)
            #expect(point.families["fixed"] == nil && point.families["never"] == nil)
        }
        #expect(report.budgetCurve.map(\.budget) == [0.5, 1, 2, 5, 10])
    }

    @Test func intervalsAreSeededAndWarnOnFewUsers() throws {
        let policies = try PolicyRegistry.parseList("never, fixed(1h), predictive(15m,0.3)")
        func report(seed: UInt64, users: Int) -> ComparisonReport {
            var run = Simulator().comparison(policies: policies)
            run.seed = seed
            run.resamples = 200
            run.add(Self.population(users: users))
            return run.report()
        }
        let a = report(seed: 7, users: 12)
        #expect(a == report(seed: 7, users: 12))
        #expect(a.policies[2].metrics.freshInterval != report(seed: 8, users: 12).policies[2].metrics.freshInterval)
        let p = a.policies[2].metrics
        let interval = try #require(p.freshInterval)
        #expect(interval.low <= p.fresh[1] && p.fresh[1] <= interval.high && interval.low < interval.high)
        #expect(a.budget?.resamples == 200)
        #expect(a.budget?.warnings == [])
        let few = report(seed: 7, users: 3)
        #expect(few.budget?.warnings.count == 1)
        #expect(few.budget?.warnings.first?.contains("3 users") == true)
    }
}

extension ClairvoyantBoundTests {
    @Test func pairsWhoseTargetsStandAloneTakeTheShortcutAndAgreeWithTheDP() {
        // Targets more than τ apart (as launch refreshes make them): c(k) = min(k, n).
        let apart = ClairvoyantBound.Pair(targets: Self.minutes([0, 20, 40, 100]), days: 2, tau: .minutes(15))
        #expect(apart.unit)
        let close = ClairvoyantBound.Pair(targets: Self.minutes([0, 10, 40]), days: 2, tau: .minutes(15))
        #expect(!close.unit)
        var bound = ClairvoyantBound()
        bound.add(apart, scored: 4, freeFresh: 0)
        bound.add(close, scored: 3, freeFresh: 0)
        // P = 2: a fetch costs 1/4 of the average in each. The close pair's first fetch covers two
        // targets, so it goes first; then one target a fetch anywhere.
        #expect(abs(bound.coveredTargets(atBudget: 0.25) - 2) < 1e-9)
        #expect(abs(bound.coveredTargets(atBudget: 0.5) - 3) < 1e-9)
        #expect(abs(bound.coveredTargets(atBudget: 1.5) - 7) < 1e-9)
        #expect(abs(bound.saturation - 1.5) < 1e-9)
        let greedy = Self.greedy(
            [
                (Self.bruteForce(Self.minutes([0, 20, 40, 100]), tau: .minutes(15)), 2),
                (Self.bruteForce(Self.minutes([0, 10, 40]), tau: .minutes(15)), 2),
            ], budget: 0.9)
        #expect(abs(bound.coveredTargets(atBudget: 0.9) - greedy) < 1e-9)
    }
}

extension BudgetCurveTests {
    /// The users' days the bootstrap over days resamples go to disk as the users are added, and
    /// are let go once the run has `BudgetSettings.fewUsers` users (it then resamples users, from
    /// sums); a run copied before more users are added keeps its own users: each copy reports what
    /// a run given only its users reports. The Poisson bootstrap's draws depend on each user's
    /// name, not its place: the users in another order give the same intervals.
    @Test func theDaysGoToDiskUntilUsersAreManyAndCopiesKeepTheirOwnUsers() throws {
        let policies = try PolicyRegistry.parseList("never, fixed(1h), predictive(15m,0.3)")
        let population = Self.population(users: 16)
        let (first, last) = (Array(population.prefix(8)), Array(population.suffix(8)))
        func run(_ batches: [[UserHistory]]) -> ComparisonRun {
            var run = Simulator().comparison(policies: policies)
            run.resamples = 200
            for b in batches { run.add(b) }
            return run
        }
        var a = run([first])
        let few = try #require(a.budget?.recordBytes)
        #expect(few.onDisk + few.inMemory > 0)
        var b = a
        a.add(last)
        b.add(last.reversed())
        let bytes = try #require(a.budget?.recordBytes)
        #expect(bytes.onDisk == 0 && bytes.inMemory == 0)
        #expect(a.budget?.users == 16 && b.budget?.users == 16)
        let direct = run([first, last]).report()
        #expect(a.report() == direct)
        #expect(b.report() == run([first, last.reversed()]).report())
        #expect(b.report().policies.map(\.metrics.freshInterval) == direct.policies.map(\.metrics.freshInterval))
        #expect(direct.policies.allSatisfy { $0.metrics.freshInterval != nil })
    }
}

extension BudgetCurveTests {
    /// A merge holds each user of the partials until all are read (to add them in name order), on
    /// disk, not in memory, as JSON without per-policy figures: partials of many users add their
    /// bootstrap sums whole. The merged run is the unsharded one.
    @Test func aMergeKeepsTheUsersOnDiskWithoutBootstrapFigures() throws {
        let policies = try PolicyRegistry.parseList("never, fixed(1h), predictive(15m,0.3)")
        let population = Self.population(users: 40).sorted {
            $0.user.name.utf8.lexicographicallyPrecedes($1.user.name.utf8)
        }
        func run(_ users: [UserHistory], keep: Bool = false) -> ComparisonRun {
            var run = Simulator().comparison(policies: policies)
            run.resamples = 200
            run.keepsUsers = keep
            run.add(users)
            return run
        }
        var merged: ComparisonRun? = nil
        for half in [Array(population.suffix(20)), Array(population.prefix(20))] {
            let partial = run(half, keep: true).partial(shard: nil, source: "test")
            if merged == nil {
                merged = try ComparisonRun(
                    merging: partial.configuration, policies: policies, recordStorage: FileRecordStorage())
            }
            try merged!.absorb(partial)
        }
        let records = try #require(merged?.mergingRecords)
        #expect(records.count == 40)
        #expect(records.bytes.onDisk > 0 && records.bytes.inMemory < FileRecordStore.bufferSize)
        for u in merged!.mergingUsers {
            guard case .record(let i) = u.user else {
                Issue.record("\(u.name) is held in memory")
                continue
            }
            let kept = try JSONDecoder().decode(ComparisonPartial.User.self, from: Data(records.record(at: i)))
            #expect(kept.name == u.name && u.budget == nil && kept.budget != nil)
            #expect(kept.budget?.days == nil && kept.budget?.fresh.isEmpty == true, "\(u.name)")
        }
        try merged!.finishMerge()
        #expect(merged!.report() == run(population).report())
    }
}

extension ClairvoyantBoundTests {
    /// A run's bound on disk gives the in-memory bound's figures to the last bit, over random
    /// pairs (unit and not, with odd and even numbers of targets, some empty) added user by user;
    /// a copy that adds other users keeps its own.
    @Test func theBoundOnDiskGivesTheSameFiguresAsInMemory() {
        var rng = SplitMix64(seed: 21)
        func user() -> ClairvoyantBound {
            var b = ClairvoyantBound()
            for _ in 0..<(1 + Int(rng.next() % 5)) {
                var t: Instant = 0
                let targets = (0..<Int(rng.next() % 12)).map { _ -> Instant in
                    t += .minutes(Int64(1 + rng.next() % 40))
                    return t
                }
                let pair = ClairvoyantBound.Pair(
                    targets: targets, days: Double(1 + rng.next() % 30) / 3, tau: .minutes(15))
                b.add(pair, scored: targets.count + 2, freeFresh: 2)
            }
            return b
        }
        let users = (0..<300).map { _ in user() }
        var memory = ClairvoyantBound()
        var disk = SpilledBound(in: FileRecordStorage())
        for (i, u) in users.enumerated() {
            memory.add(u)
            disk.add(u)
            if i == 150 { disk.add(ClairvoyantBound()) }  // a user without pairs
        }
        #expect(memory.pairs.contains { !$0.unit } && memory.pairs.contains { $0.unit && $0.targets > 0 })
        #expect(disk.pairCount == memory.pairs.count && disk.scored == memory.scored)
        let budgets = [0.01, 0.1, 0.3, 0.7, 1.5, 4, 50]
        #expect(disk.hullCovered(atBudgets: budgets) == memory.coveredTargets(atBudgets: budgets))
        #expect(disk.hullFresh(atBudgets: budgets) == memory.fresh(atBudgets: budgets))
        #expect(disk.hullSaturation == memory.saturation)
        #expect(disk.smallestPenalty == memory.smallestPenalty)
        // A copy adding other users: each side as if built alone.
        var (left, right) = (SpilledBound(in: FileRecordStorage()), ClairvoyantBound())
        for u in users.prefix(100) {
            left.add(u)
            right.add(u)
        }
        var copy = left
        var copyMemory = right
        for u in users.suffix(50) {
            left.add(u)
            right.add(u)
        }
        for u in users[100..<150] {
            copy.add(u)
            copyMemory.add(u)
        }
        #expect(left.hullCovered(atBudgets: budgets) == right.coveredTargets(atBudgets: budgets))
        #expect(copy.hullCovered(atBudgets: budgets) == copyMemory.coveredTargets(atBudgets: budgets))
        #expect(copy.hullCovered(atBudgets: budgets) != left.hullCovered(atBudgets: budgets))
    }
}
