import FetchLabCore
import FetchLabResults
import Testing
import _FetchLabTestSupport

@testable import FetchLabSimulation

/// Per-signal ceilings: the clairvoyant bound restricted to the fetch moments a signal set offers
/// (launches of other apps; + unlock, screen-on, system UI; + notifications; anywhere).
@Suite struct SignalCeilingTests {
    /// App 0 is evaluated, app 1 another app, app 2 the device.
    static let apps: [AppID] = ["com.a", "com.b", AppID.device]

    static func add(_ kind: UsageEventKind, _ app: Int32, _ time: Instant, to b: inout HistoryBuilder) {
        b.events.append(UsageEvent(time: time, offset: b.offset, app: app, kind: kind))
    }

    static func ceilings(
        _ history: UserHistory, evaluation: EvaluationProtocol = EvaluationProtocol(), budgets: [Double]
    ) -> (ceilings: SignalCeilings, bound: [Double]) {
        let sums = SignalCeilingSums(history, evaluation: evaluation, keepPairs: true)
        let bound = Self.bound(history, evaluation: evaluation)
        let anywhere = bound.fresh(atBudgets: budgets)
        return (
            sums.ceilings(
                budgets: budgets, anywhere: anywhere, tau: evaluation.primaryTau,
                launchRefreshes: evaluation.launchRefreshes), anywhere
        )
    }

    /// The run's own bound for one history (as ``UserBudgetSums`` builds it).
    static func bound(_ history: UserHistory, evaluation: EvaluationProtocol) -> ClairvoyantBound {
        var bound = ClairvoyantBound()
        guard let w = evaluation.window(of: history) else { return bound }
        var byApp = [[Instant]](repeating: [], count: history.apps.count)
        for l in history.launches { byApp[Int(l.app)].append(l.time) }
        for app in evaluation.evaluatedApps(of: history) {
            let (targets, scored) = ClairvoyantBound.targets(
                launches: byApp[Int(app)], window: w, tau: evaluation.primaryTau,
                launchRefreshes: evaluation.launchRefreshes)
            bound.add(
                ClairvoyantBound.Pair(targets: targets, days: w.scoredDays, tau: evaluation.primaryTau),
                scored: scored, freeFresh: scored - targets.count)
        }
        return bound
    }

    /// App A at noon every day for 30 days (S = day 8, E = day 29 noon: 22 targets over 21.5 days).
    /// B at 11:50 on days 8–13 (coverable by launches), at 11:40 on days 14–15 (20 min early: not);
    /// an unlock at 11:55 on days 14–17, a notification for A at 11:58 on days 18–19, an unlock just
    /// after noon on day 20 (too late).
    static func handMade() -> UserHistory {
        var b = HistoryBuilder(apps: apps)
        for d in 0..<30 { b.launch(0, day: d, hour: 12) }
        for d in 8..<14 { b.launch(1, day: d, hour: 11, minute: 50) }
        for d in 14..<16 { b.launch(1, day: d, hour: 11, minute: 40) }
        for d in 14..<18 { add(.unlock, 2, b.time(day: d, hour: 11, minute: 55), to: &b) }
        for d in 18..<20 { add(.notification, 0, b.time(day: d, hour: 11, minute: 58), to: &b) }
        add(.screenOn, 2, b.time(day: 20, hour: 12, minute: 5), to: &b)
        return b.build()
    }

    @Test func handMadeHistoryExactly() throws {
        let history = Self.handMade()
        let w = try #require(EvaluationProtocol().window(of: history))
        #expect(w.scoredDays == 21.5)
        let (c, bound) = Self.ceilings(history, budgets: [0.1, 0.5, 1])
        let expectedUnlimited: [SignalSet: Double] = [
            .launches: 6.0 / 22, .device: 10.0 / 22, .notifications: 12.0 / 22, .anywhere: 1,
        ]
        // One unit pair: c(k) = min(k, coverable), k = budget × 21.5 days.
        let expected: [SignalSet: [Double]] = [
            .launches: [2.15 / 22, 6.0 / 22, 6.0 / 22], .device: [2.15 / 22, 10.0 / 22, 10.0 / 22],
            .notifications: [2.15 / 22, 10.75 / 22, 12.0 / 22], .anywhere: [2.15 / 22, 10.75 / 22, 21.5 / 22],
        ]
        for set in SignalSet.allCases {
            let ceiling = try #require(c[set])
            #expect(ceiling.signalsPresent)
            #expect(abs(ceiling.unlimited - expectedUnlimited[set]!) < 1e-12, "\(set)")
            for (got, want) in zip(ceiling.fresh, expected[set]!) { #expect(abs(got - want) < 1e-9, "\(set)") }
        }
        #expect(c[.anywhere]?.fresh == bound)
        #expect(c.signalEvents[.unlock] == 4 && c.signalEvents[.notification] == 2 && c.signalEvents[.screenOn] == 1)
        #expect(c.signalEvents[.systemUI, default: 0] == 0)
    }

    @Test func clusteredTargetsWithoutLaunchRefreshes() throws {
        // Launch refreshes off: every scored launch a target. A at 12:00, 12:10, 12:20 each day, B at
        // 11:58: a fetch then covers 12:00 and 12:10 (12:20 is 22 min after it), the bound's two
        // fetches (12:00, 12:20 or 12:10) cover all three.
        var b = HistoryBuilder(apps: Self.apps)
        for d in 0..<12 {
            for m in [0, 10, 20] { b.launch(0, day: d, hour: 12, minute: m) }
            b.launch(1, day: d, hour: 11, minute: 58)
        }
        var rules = EvaluationProtocol()
        rules.launchRefreshes = false
        let history = b.build()
        let w = try #require(rules.window(of: history))
        let days = w.scoredDays
        let targets = 3.0 * 4  // days 8–11
        let (c, _) = Self.ceilings(history, evaluation: rules, budgets: [1 / days, 4 / days, 8 / days, 100])
        let launches = try #require(c[.launches])
        #expect(abs(launches.unlimited - 8 / targets) < 1e-12)
        // One fetch covers two targets, at every budget up to the four fetches that cover all eight.
        for (got, want) in zip(launches.fresh, [2, 8, 8, 8].map { $0 / targets }) { #expect(abs(got - want) < 1e-9) }
        let anywhere = try #require(c[.anywhere])
        for (got, want) in zip(anywhere.fresh, [2, 8, 12, 12].map { $0 / targets }) { #expect(abs(got - want) < 1e-9) }
        // Absent signals are said to be so, with the figures of the set before.
        #expect(c[.device]?.signalsPresent == false && c[.device]?.fresh == launches.fresh)
        #expect(c[.notifications]?.signalsPresent == false && c[.notifications]?.unlimited == launches.unlimited)
        #expect(c[.device]?.note?.contains("unlock, screen_on or system_ui") == true)
    }

    @Test func aSignalAtEveryTargetReachesTheBound() {
        var b = HistoryBuilder(apps: Self.apps)
        for d in 0..<20 {
            for h in [8, 13, 19] {
                let t = b.launch(0, day: d, hour: h, minute: d % 7)
                Self.add(.systemUI, 2, t, to: &b)
            }
            b.launch(0, day: d, hour: 13, minute: 10)  // fresh without a fetch (launch refreshes on)
        }
        let budgets = [0.5, 1, 2, 5, 10]
        let (c, bound) = Self.ceilings(b.build(), budgets: budgets)
        #expect(c[.device]?.fresh == bound)
        #expect(c[.notifications]?.fresh == bound)
        #expect(c[.device]?.unlimited == 1)
        // No other app: launches alone reach only the launches fresh without a fetch.
        let free = 12.0 / 48  // days 8–19: four launches a day, one fresh without a fetch
        #expect(c[.launches]?.fresh.allSatisfy { abs($0 - free) < 1e-12 } == true, "\(c[.launches]!.fresh)")
        #expect(abs((c[.launches]?.unlimited ?? 0) - free) < 1e-12)
    }

    @Test func withNoOtherAppLaunchesReachOnlyTheFreeShare() {
        var b = HistoryBuilder(apps: ["com.a"])
        for d in 0..<20 {
            b.launch(0, day: d, hour: 9)
            b.launch(0, day: d, hour: 9, minute: 5)  // fresh without a fetch
            b.launch(0, day: d, hour: 18)
        }
        let history = b.build()
        let bound = Self.bound(history, evaluation: EvaluationProtocol())
        let free = Double(bound.freeFresh) / Double(bound.scored)
        #expect(free > 0.3 && free < 0.34)
        let (c, _) = Self.ceilings(history, budgets: [0.5, 1, 2, 5, 10])
        for set in [SignalSet.launches, .device, .notifications] {
            #expect(c[set]?.fresh.allSatisfy { abs($0 - free) < 1e-12 } == true)
            #expect(abs((c[set]?.unlimited ?? 0) - free) < 1e-12)
        }
        #expect(c[.launches]?.signalsPresent == true && c[.device]?.signalsPresent == false)
    }

    /// c(k) of one pair by trying every set of k allowed moments.
    static func bruteForce(_ targets: [Instant], moments: [Instant], tau: Microseconds) -> [Int] {
        let m = moments.count
        var best = [Int](repeating: 0, count: m + 1)
        for mask in 0..<(1 << m) {
            var covered = 0
            for t in targets {
                if (0..<m).contains(where: { mask & (1 << $0) != 0 && t >= moments[$0] && t <= moments[$0] + tau }) {
                    covered += 1
                }
            }
            best[mask.nonzeroBitCount] = max(best[mask.nonzeroBitCount], covered)
        }
        return best
    }

    @Test func randomHistoriesAgainstBruteForceAndEachOther() throws {
        var rules = EvaluationProtocol()
        rules.warmUpDays = 0
        rules.minLaunches = 3
        let tau = rules.primaryTau
        let budgets = [0.5, 1, 2, 5, 10, 20, 50]
        // Seeds where a set reaches strictly more than the one before (unlimited): the loop tests something.
        var strictlyMore: [SignalSet: Int] = [:]
        for seed in 0..<150 {
            var rng = SplitMix64(seed: UInt64(seed))
            func draw(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
            rules.launchRefreshes = seed % 2 == 0
            var b = HistoryBuilder(apps: ["a", "b", "c", AppID.device])
            func at() -> Instant { b.time(day: 1, minute: draw(240)) }
            b.launch(0, day: 1)  // t0 = S: a midnight
            b.launch(0, day: 1, hour: 4)
            for _ in 0..<(1 + draw(4)) { b.launch(0, at: at()) }
            for _ in 0..<draw(4) { b.launch(1, at: at()) }
            for _ in 0..<draw(3) { b.launch(2, at: at()) }
            for _ in 0..<draw(4) {
                Self.add([.unlock, .screenOn, .systemUI][draw(3)], 3, at(), to: &b)
            }
            for _ in 0..<draw(3) { Self.add(.notification, Int32(draw(2)), at(), to: &b) }
            let history = b.build()
            let w = try #require(rules.window(of: history))
            let (c, bound) = Self.ceilings(history, evaluation: rules, budgets: budgets)
            // Expected: brute force per pair, then the fractional optimum over the pairs' hulls.
            var byApp = [[Instant]](repeating: [], count: 4)
            for l in history.launches { byApp[Int(l.app)].append(l.time) }
            let scored = Self.bound(history, evaluation: rules)
            let pairsApps = rules.evaluatedApps(of: history)
            for set in [SignalSet.launches, .device, .notifications] {
                var pairs: [(c: [Int], days: Double)] = []
                var coverable = 0
                for app in pairsApps {
                    let (targets, _) = ClairvoyantBound.targets(
                        launches: byApp[Int(app)], window: w, tau: tau, launchRefreshes: rules.launchRefreshes)
                    var moments = history.launches.filter { $0.app != app }.map(\.time)
                    if set >= .device {
                        moments += history.events.filter { $0.kind.isSignal && $0.kind != .notification }.map(\.time)
                    }
                    if set >= .notifications {
                        moments += history.events.filter { $0.kind == .notification && $0.app == app }.map(\.time)
                    }
                    moments = Array(Set(moments.filter(w.isScored))).sorted()
                    let curve = Self.bruteForce(targets, moments: moments, tau: tau)
                    coverable += curve.last ?? 0
                    pairs.append((curve, w.scoredDays))
                }
                let ceiling = try #require(c[set])
                let unlimited = (Double(scored.freeFresh + coverable)) / Double(scored.scored)
                #expect(abs(ceiling.unlimited - unlimited) < 1e-12, "seed \(seed) \(set)")
                for (i, budget) in budgets.enumerated() {
                    let covered = ClairvoyantBoundTests.greedy(pairs, budget: budget)
                    let want = (Double(scored.freeFresh) + covered) / Double(scored.scored)
                    #expect(abs(ceiling.fresh[i] - want) < 1e-6, "seed \(seed) \(set) budget \(budget)")
                }
            }
            // Never above the bound; each set at least the smaller one's, at every budget.
            #expect(c[.anywhere]?.fresh == bound)
            for (small, large) in zip(SignalSet.allCases, SignalSet.allCases.dropFirst()) {
                let (a, z) = (try #require(c[small]), try #require(c[large]))
                #expect(a.unlimited <= z.unlimited + 1e-12, "seed \(seed)")
                if z.unlimited > a.unlimited + 1e-12 { strictlyMore[large, default: 0] += 1 }
                for i in budgets.indices {
                    #expect(a.fresh[i] <= z.fresh[i] + 1e-9, "seed \(seed) \(small) budget \(budgets[i])")
                    #expect(a.fresh[i] <= bound[i] + 1e-9)
                }
            }
        }
        for set in [SignalSet.device, .notifications, .anywhere] {
            #expect(strictlyMore[set, default: 0] >= 5, "\(set)")
        }
    }

    @Test func theRunReportsCeilingsAndTheirAnywhereIsTheBound() throws {
        for refreshes in [true, false] {
            var simulator = Simulator()
            simulator.evaluation.launchRefreshes = refreshes
            let report = simulator.compare(
                [Self.handMade()], policies: [NeverPolicy(), FixedIntervalPolicy(interval: .hours(1))])
            let c = try #require(report.ceilings)
            #expect(c.budgets == report.budgetCurve.map(\.budget))
            #expect(c[.anywhere]?.fresh == report.budgetCurve.map(\.bound))
            #expect(c.launchRefreshes == refreshes)
            #expect(abs((c[.launches]?.unlimited ?? 0) - 6.0 / 22) < 1e-12)
            #expect(c[.device]?.signalsPresent == true)
        }
    }
}
