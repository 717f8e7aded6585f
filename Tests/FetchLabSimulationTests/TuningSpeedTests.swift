import FetchLabCore
import FetchLabResults
import FetchLabScale
import Synchronization
import Testing

@testable import FetchLabSimulation

/// What makes tuning fast must not change what it finds: the references left out of replays that
/// do not need them, the users decoded once, the predictive scheduler's one-pass gap search, the
/// forward-moving context lookup; and the time budget stops the search between rounds.
@Suite struct TuningSpeedTests {
    private func users(_ count: Int, days: Int64 = 16, apps: Int32 = 3) -> [UserHistory] {
        randomUsers(count, days: days, apps: apps)
    }

    private func tuner(method: SearchMethod = .grid, objective: TuningMetric = .fresh(.minutes(15))) throws -> Tuner {
        var t = Tuner(
            simulator: Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20)),
            space: try SearchSpace.parse(family: "predictive", grid: nil),
            objective: Objective(metric: objective, maximize: true))
        t.method = method
        return t
    }

    @Test func leavingTheReferencesOutChangesNoMetricButGapClosed() throws {
        let policies = try PolicyRegistry.parseList("predictive(5m,0.2),predictive(15m,0.4),fixed(1h),ios-adaptive")
        let simulator = Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20))
        var with = simulator.comparison(policies: policies)
        var without = simulator.comparison(policies: policies, budgetFigures: false)
        with.add(users(4))
        without.add(users(4))
        #expect(without.policies.count == policies.count)
        #expect(with.report().budgetCurve.count == 5)
        #expect(without.report().budgetCurve.isEmpty)
        for (a, b) in zip(with.report().policies, without.report().policies) {
            var m = a.metrics
            m.freshInterval = nil
            m.gainVsFixed = nil
            m.gainInterval = nil
            m.shareOfPossible = nil
            #expect(m == b.metrics, "\(a.name)")
        }
    }

    @Test func usersKeptInMemoryAreReadOnceAndTuneTheSame() throws {
        let all = users(5)
        let reads = Mutex(0)
        let source: Tuner.UserBatches = { body in
            reads.withLock { $0 += 1 }
            body(Array(all.prefix(2)))
            body(Array(all.dropFirst(2)))
        }
        let plain = try tuner().run(source)
        let readsPlain = reads.withLock { $0 }
        reads.withLock { $0 = 0 }
        let kept = try tuner().run(Tuner.keeping(source))
        #expect(kept == plain)
        #expect(readsPlain >= 3)  // the scored span, the search, the held-out measurement
        #expect(reads.withLock { $0 } == 1)
        // Over the limit: the first batch kept, the rest read again by every pass.
        reads.withLock { $0 = 0 }
        #expect(try tuner().run(Tuner.keeping(limit: 2, source)) == plain)
        #expect(reads.withLock { $0 } == readsPlain)
        #expect(try tuner().run(Tuner.keeping(limit: 0, source)) == plain)
        // Over the memory bound: the batches that fit kept (the first), the rest read again by every pass.
        let firstBatch = all.prefix(2).reduce(0) { $0 + $1.ownBytes }
        #expect(firstBatch > 0 && all.dropFirst(2).reduce(0) { $0 + $1.ownBytes } > 0)
        let delivered = Mutex(0)
        let counted = startingAfter(source) { n in delivered.withLock { $0 += n } }
        #expect(try tuner().run(Tuner.keeping(bytes: firstBatch, after: counted)) == plain)
        let keptFirst = delivered.withLock { $0 }
        #expect(keptFirst == 5 + 3 * (readsPlain - 1), "the first batch decoded once, the other users by every pass")
        delivered.withLock { $0 = 0 }
        #expect(try tuner().run(Tuner.keeping(bytes: firstBatch - 1, after: counted)) == plain)
        #expect(delivered.withLock { $0 } == 5 * readsPlain, "nothing kept: every pass decodes every user")
    }

    /// With a temporary file, the users past the limits are decoded once too: the first pass
    /// writes them compactly, the later passes read them back in the same batches, and the tuning
    /// is the same.
    @Test func usersPastTheLimitsAreReadOnceFromATemporaryFile() throws {
        let all = users(5)
        let source: Tuner.UserBatches = { body in
            body(Array(all.prefix(2)))
            body(Array(all.dropFirst(2)))
        }
        let plain = try tuner().run(source)
        let delivered = Mutex(0)
        let batchSizes = Mutex<[Int]>([])
        let counted = startingAfter(source) { n in delivered.withLock { $0 += n } }
        let firstBatch = all.prefix(2).reduce(0) { $0 + $1.ownBytes }
        for (limit, bytes) in [(2, Int.max), (0, Int.max), (Int.max, firstBatch), (Int.max, 0)] {
            delivered.withLock { $0 = 0 }
            let users = Tuner.keeping(limit: limit, bytes: bytes, spill: .files(), after: counted)
            #expect(try tuner().run(users) == plain, "limit \(limit), bytes \(bytes)")
            #expect(delivered.withLock { $0 } == 5, "every user decoded once (limit \(limit), bytes \(bytes))")
            // A later pass hands the same users in the same batches.
            batchSizes.withLock { $0 = [] }
            try users { batch in batchSizes.withLock { $0.append(batch.count) } }
            #expect(batchSizes.withLock { $0 } == [2, 3])
            #expect(delivered.withLock { $0 } == 5)
        }
    }

    /// A first pass that fails (its source throws) leaves nothing behind: the next call makes
    /// its first pass again, and the later passes hand out that pass's users in its batches.
    @Test func aFirstPassThatThrowsLeavesNothingBehind() throws {
        struct Failed: Error {}
        let all = users(5)
        let failing = Mutex(true)
        let source: Tuner.UserBatchesAfter = { skipped, body in
            var seen = 0
            for batch in [Array(all.prefix(2)), Array(all.dropFirst(2))] {
                if seen >= skipped { body(batch) }
                seen += batch.count
                if failing.withLock({ $0 }) {
                    failing.withLock { $0 = false }
                    throw Failed()
                }
            }
        }
        let users = Tuner.keeping(limit: 0, spill: .files(), after: source)
        #expect(throws: Failed.self) { try users { _ in } }
        var names: [[String]] = []
        try users { batch in names.append(batch.map(\.user.name)) }
        try users { batch in names.append(batch.map(\.user.name)) }
        let given = [all.prefix(2).map(\.user.name), all.dropFirst(2).map(\.user.name)]
        #expect(names == given + given)
    }

    @Test func aBudgetNeverSpentChangesNothing() throws {
        var budgeted = try tuner()
        budgeted.budgetSpent = { false }
        let a = try budgeted.run { $0(users(3)) }
        let b = try tuner().run { $0(users(3)) }
        #expect(a == b)
        #expect(a.folds[0].cutShort == nil)
    }

    /// A budget spent after the first round: the grid (12 settings, rows of 4 thresholds) tries
    /// its first row, the coordinate search its middle; the best is still measured held out.
    @Test(arguments: [SearchMethod.grid, .random, .coordinate])
    func aSpentBudgetStopsAfterTheFirstRound(method: SearchMethod) throws {
        var t = try tuner(method: method)
        t.samples = 6
        let asked = Mutex(0)
        t.budgetSpent = {
            asked.withLock { $0 += 1 }
            return true
        }
        let r = try t.run { $0(users(3)) }
        let fold = r.folds[0]
        #expect(fold.cutShort == true)
        #expect(asked.withLock { $0 } == 1)
        #expect(fold.tried.count == (method == .coordinate ? 1 : 4))
        #expect(fold.tried.contains { $0.name == fold.chosen })
        #expect(fold.chosenTest.scoredLaunches > 0)
        // The settings it tried score as in the full search.
        var full = try tuner(method: method)
        full.samples = 6
        let all = try full.run { $0(users(3)) }.folds[0].tried
        for s in fold.tried { #expect(all.first { $0.name == s.name }?.train == s.train) }
    }

    /// Two rounds allowed (the budget counted in rounds, not time): two rows of the grid.
    @Test func aBudgetOfTwoRoundsTriesTwoRows() throws {
        var t = try tuner()
        let rounds = Mutex(0)
        t.budgetSpent = {
            rounds.withLock {
                $0 += 1; return $0 >= 2
            }
        }
        let r = try t.run { $0(users(3)) }
        #expect(r.folds[0].tried.count == 8)
        #expect(r.replays == 8)
        #expect(r.folds[0].cutShort == true)
    }

    /// The one-pass hazard equals the sum over the later bins, on seeded histories.
    @Test func theGapHazardEqualsItsDefinition() {
        for seed in UInt64(1)...20 {
            var s = UseSignals(
                app: 0, tau: .minutes(15), lead: .minutes(5), launchRefreshes: true, offset: 0, appCount: 3)
            for (t, app) in randomLaunches(seed: seed, days: 10, apps: 3) {
                s.learn(UsageEvent(time: t, user: 0, app: app, kind: .launch, utcOffset: 0))
            }
            for k in 0..<s.gapBins.count {
                let naive =
                    k < s.gapBins.count - 1 ? Double(s.gapBins[k]) / Double(s.gapBins[k...].reduce(0, +) + 1) : 0
                #expect(s.hazard(k) == naive, "seed \(seed) bin \(k)")
            }
        }
    }

    /// The first gap bin passing a threshold, read from the held bins, is the first a scan of
    /// every bin finds, after every launch learned, from every bin, at thresholds low and high.
    @Test func theFirstPassingGapBinEqualsAScanOfEveryBin() {
        var checked = 0
        for seed in UInt64(1)...6 {
            var s = UseSignals(
                app: 0, tau: .minutes(15), lead: .minutes(10), launchRefreshes: seed % 2 == 0, offset: 0, appCount: 2)
            for (t, app) in randomLaunches(seed: seed, days: 8, apps: 2) {
                s.learn(UsageEvent(time: t, user: 0, app: app, kind: .launch, utcOffset: 0))
                let last = s.gapBins.count - 1
                #expect(s.heldGapBins == s.gapBins.indices.filter { s.gapBins[$0] > 0 })
                for threshold in [0.01, 0.1, 0.3, 0.6] {
                    for k in stride(from: 0, through: last, by: 7) {
                        let scan = (k..<last).first { s.hazard($0) >= threshold }
                        #expect(s.firstGapBin(from: k, hazardAtLeast: threshold) == scan, "seed \(seed) bin \(k)")
                        if scan != nil { checked += 1 }
                    }
                }
            }
        }
        #expect(checked > 100)
    }

    /// The context lookup with a cursor answers as the binary search does, forwards and back.
    @Test func theContextCursorAgreesWithTheBinarySearch() {
        for seed in UInt64(1)...10 {
            let h = withContext(
                history(randomLaunches(seed: seed, days: 5, apps: 2), apps: 2), seed: seed, samples: 200)
            var rng = SplitMix64(seed: seed)
            let e = evaluation(warmUp: 1, minLaunches: 1)
            guard let window = e.window(of: h) else { continue }
            let user = UserSetup(history: h, window: window, evaluation: e, context: ContextDefaults())
            var cursor = 0
            var probe = day0 - Microseconds.hours(1)
            for _ in 0..<2_000 {
                // Mostly forward, sometimes back.
                probe += Microseconds(rng.next() % 1_200_000_000) - (rng.next() % 5 == 0 ? 3_000_000_000 : 0)
                #expect(user.state(at: probe, cursor: &cursor) == user.state(at: probe), "seed \(seed)")
            }
        }
    }
}

/// `source` as a source that can start past its first users, telling `delivered` how many users
/// each batch it hands out holds.
private func startingAfter(_ source: @escaping Tuner.UserBatches, delivered: @escaping (Int) -> Void)
    -> Tuner.UserBatchesAfter
{
    { skipped, body in
        var seen = 0
        try source { batch in
            if seen >= skipped {
                delivered(batch.count)
                body(batch)
            }
            seen += batch.count
        }
    }
}

/// Predictive policies of one lead replayed together (one walk, shared day plans) score exactly
/// as each replayed alone, on seeded histories with device context, on every platform.
@Suite struct GroupedReplayTests {
    @Test(arguments: [PlatformKind.none, .ios, .android])
    func aGroupScoresAsEachPolicyAlone(platform: PlatformKind) throws {
        try expectGroupScoresAsEachAlone(
            "predictive(10m,0.2),predictive(10m,0.55),predictive(10m,0.3,sequence+gap),"
                + "predictive-cost-aware(10m,0.3),predictive(5m,0.4),predictive(10m,0.1,time-of-day)",
            platform: platform)
    }
}

/// Budgeted policies of one kind of budget replayed together (one learner per pair, the better
/// slots summed once per wake) score exactly as each replayed alone, fetch budgets and joule
/// budgets, on every platform, with device context.
@Suite struct GroupedBudgetedReplayTests {
    @Test(arguments: [PlatformKind.none, .ios, .android])
    func aGroupScoresAsEachPolicyAlone(platform: PlatformKind) throws {
        let grouped = try expectGroupScoresAsEachAlone(
            "budgeted(1),budgeted(2),budgeted(8),budgeted(20j),budgeted(200j)", platform: platform)
        // The budgets differ: the group did not hand one policy's spending to another.
        #expect(grouped[0].metrics.fetchesPerAppDay < grouped[2].metrics.fetchesPerAppDay)
        #expect(grouped[3].metrics.fetchesPerAppDay < grouped[4].metrics.fetchesPerAppDay)
    }
}

/// Learned policies replayed together share each pair's model (it asks and learns the same
/// whatever any policy fetched) and score exactly as each replayed alone: every budget, the
/// cost-aware variant, on every platform, with device context.
@Suite struct GroupedLearnedReplayTests {
    @Test(arguments: [PlatformKind.none, .ios, .android])
    func aGroupScoresAsEachPolicyAlone(platform: PlatformKind) throws {
        let grouped = try expectGroupScoresAsEachAlone(
            "learned(0.5,2,10),learned-cost-aware(10j,40j)", platform: platform)
        // The budgets differ: the group did not hand one policy's fetches to another.
        #expect(grouped[0].metrics.fetchesPerAppDay < grouped[2].metrics.fetchesPerAppDay)
    }

    /// A run's learned settings replay as one group (one walk, its CPU time split evenly among
    /// them), and other policies alone.
    @Test func aRunsLearnedSettingsReplayAsOneGroup() throws {
        let policies = try PolicyRegistry.parseList("learned(0.5,2),learned-cost-aware(10j),workmanager")
        let h = withContext(history(randomLaunches(seed: 3, days: 18, apps: 4), apps: 4), seed: 3, samples: 600)
        let e = evaluation(warmUp: 1, minLaunches: 20)
        let window = try #require(e.window(of: h))
        let setup = UserSetup(history: h, window: window, evaluation: e, context: ContextDefaults())
        var seconds = [Double](repeating: 0, count: policies.count)
        let out = Simulator(evaluation: e, settings: ReplaySettings()).replay(
            setup, policies: policies, seconds: &seconds)
        #expect(out.count == policies.count && out.allSatisfy { $0.count == setup.pairs.count })
        #expect(seconds[0] > 0 && seconds[0] == seconds[1] && seconds[1] == seconds[2], "\(seconds)")
        #expect(seconds[3] > 0)
    }
}

/// Replays `list` together and each policy alone on six seeded users with device context, on
/// `platform`; expects the same metrics, and fetches from every policy. Returns the group's rows.
@discardableResult
private func expectGroupScoresAsEachAlone(_ list: String, platform: PlatformKind) throws -> [PolicyResult] {
    let policies = try PolicyRegistry.parseList(list)
    var users: [UserHistory] = []
    for seed in UInt64(1)...6 {
        var h = withContext(history(randomLaunches(seed: seed, days: 18, apps: 4), apps: 4), seed: seed, samples: 600)
        h.user = UserID("user\(seed)")
        users.append(h)
    }
    var settings = ReplaySettings()
    settings.platform.kind = platform
    let simulator = Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20), settings: settings)
    var together = simulator.comparison(policies: policies, budgetFigures: false)
    together.add(users)
    let grouped = together.report().policies
    for (i, p) in policies.enumerated() {
        var alone = simulator.comparison(policies: [p], budgetFigures: false)
        alone.add(users)
        #expect(alone.report().policies[0].metrics == grouped[i].metrics, "\(p.name) on \(platform)")
        #expect(grouped[i].metrics.fetchesPerAppDay > 0, "\(p.name) fetches")
    }
    return grouped
}

/// `h` with `samples` seeded context samples from day0 on, up to an hour apart (battery, charging,
/// Wi-Fi or cellular).
private func withContext(_ h: UserHistory, seed: UInt64, samples: Int) -> UserHistory {
    var h = h
    var rng = SplitMix64(seed: seed &+ 1_000)
    var t = day0
    h.context = (0..<samples).map { i in
        t += Microseconds(rng.next() % 3_600_000_000)
        return ContextSample(
            time: t, battery: Double(rng.next() % 100), charging: i % 3 == 0,
            network: i % 2 == 0 ? .wifi : .cellular, utcOffset: 0)
    }
    return h
}
