import FetchLabCore
import FetchLabResults
import Foundation
import Testing

import struct _FetchLabTestSupport.HistoryBuilder
import struct _FetchLabTestSupport.SeededDraws

@testable import FetchLabSimulation

@Suite struct PredictivePolicyTests {
    /// Apps 0 (A) and 1 (B); for `days` days, B three times a day at varying hours and A two
    /// minutes after each B (hours apart, so every A is cold), but after the third B of a day only
    /// when `always`.
    func followers(days: Int, seed: UInt64 = 7, always: Bool = true) -> UserHistory {
        var draws = SeededDraws(seed: seed)
        var h = HistoryBuilder(apps: ["a", "b"], firstDay: Int(day0.sinceEpoch / .perDay))
        for d in 0..<days {
            for k in 0..<3 {
                let x = draws.next()
                let b = h.launch(1, day: d, hour: 8 + 4 * k, minute: Int(x >> 58))
                if always || k < 2 { h.launch(0, at: b + .minutes(2)) }
            }
        }
        return h.build()
    }

    @Test func aLaunchOfTheUsualPredecessorTriggersAFetch() throws {
        let h = followers(days: 20)
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let sim = Simulator(evaluation: e)
        let sequence = try #require(PolicyRegistry.parse("predictive(15m,0.55,sequence)").first)
        let out = sim.replay(h, policies: [NeverPolicy(), sequence])
        let a = 0  // pair of app "a"
        #expect(out[0][a].fresh[1] == 0)  // A's launches are hours apart: never fresh without a fetch
        #expect(out[1][a].scored == 12 * 3)  // S = day0 + 8 d (a week after the first launch at 8 h)
        #expect(out[1][a].fresh[1] == out[1][a].scored)  // each B launch fetched A just in time
        #expect(out[1][a].fetches == out[1][a].scored)
        #expect(out[1][a].leads.allSatisfy { $0 == .minutes(2) })
        // Each fetch states its probability, and each was followed by a launch within τ.
        #expect(out[1][a].stated.count == out[1][a].fetches)
        #expect(out[1][a].stated.allSatisfy { $0.launched && $0.p >= 0.55 && $0.p <= 1 })
        let report = sim.compare([h], policies: [sequence])
        let table = try #require(report.policies[0].metrics.reliability)
        #expect(table.count == out[1][a].fetches + out[1][1].fetches)
        // Time of day alone cannot know the minute the jitter picks: it fetches less usefully.
        let clock = try #require(PolicyRegistry.parse("predictive(15m,0.55,time-of-day)").first)
        let tod = sim.replay(h, policies: [clock])[0][a]
        #expect(tod.fresh[1] < out[1][a].fresh[1])
    }

    @Test func aDailyHabitIsFetchedJustBefore() throws {
        // A launch at 12:05 every day, and a filler app to make the days.
        var b = HistoryBuilder(apps: ["noon"], firstDay: Int(day0.sinceEpoch / .perDay))
        for d in 0..<21 { b.launch(day: d, hour: 12, minute: 5) }
        let h = b.build()
        let policy = try #require(PolicyRegistry.parse("predictive(15m,0.55)").first)
        let out = Simulator(evaluation: EvaluationProtocol()).replay(h, policies: [policy])[0][0]
        #expect(out.scored == 13)  // days 8 to 20
        #expect(out.fresh[1] == 13)
        #expect(out.fetches == 13)  // one a day
        #expect(out.leads.allSatisfy { $0 <= .minutes(15) })
    }

    /// Causal by construction: two logs equal up to an instant and different after it give the
    /// same requests up to that instant.
    @Test func neverReadsTheFuture() throws {
        let full = followers(days: 20)
        let cut = day0 + .days(12) + .hours(10)
        var other = full
        other.launches =
            full.launches.filter { $0.time < cut }
            + (0..<50).map { UsageEvent(time: cut + .hours(Int64($0)), offset: 0, app: Int32($0 % 2)) }
        var e = EvaluationProtocol()
        e.minLaunches = 20
        for name in ["predictive", "predictive-cost-aware", "predictive(5m,0.2)"] {
            let policy = try #require(PolicyRegistry.parse(name).first)
            #expect(try requestTimes(policy, full, e, before: cut) == requestTimes(policy, other, e, before: cut))
        }
    }

    @Test func costAwareWaitsForCheapMomentsAndSparesALowBattery() throws {
        let h = followers(days: 20, always: false)  // A follows B two times in three
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let plain = try #require(PolicyRegistry.parse("predictive(15m,0.55,sequence)").first)
        let aware = try #require(PolicyRegistry.parse("predictive-cost-aware(15m,0.55,0.99,sequence)").first)
        func run(_ context: ContextSample) -> [PairOutcome] {
            var withContext = h
            withContext.context = [context]
            var settings = ReplaySettings()
            settings.context.hold = .days(365)
            return Simulator(evaluation: e, settings: settings).replay(withContext, policies: [plain, aware]).map {
                $0[0]
            }
        }
        let cellular = run(ContextSample(time: day0, battery: 60, charging: false, network: .cellular))
        #expect(cellular[0].fetches > 0)
        #expect(cellular[1].fetches == 0)  // 0.99 is not reached on cellular
        let wifi = run(ContextSample(time: day0, battery: 60, charging: false, network: .wifi))
        #expect(wifi[1].fetches == wifi[0].fetches)
        let low = run(ContextSample(time: day0, battery: 10, charging: false, network: .wifi))
        #expect(low[0].fetches > 0)
        #expect(low[1].fetches == 0)
        #expect(low[0].lowBattery == low[0].fetches)
    }

    @Test func namesParseBack() throws {
        for name in [
            "predictive(15m,0.55)", "predictive(10m,0.4,sequence+time-of-day)", "predictive(1h,1,gap)",
            "predictive-cost-aware(15m,0.55,0.83)", "predictive-cost-aware(5m,0.2,0.3,sequence)",
        ] {
            let p = try #require(PolicyRegistry.parse(name).first)
            #expect(p.name == name)
            #expect(try PolicyRegistry.parse(p.name).first?.name == name)
        }
        #expect(try PolicyRegistry.parse("predictive").first?.name == "predictive(15m,0.55)")
        #expect(
            try PolicyRegistry.parse("predictive(seq+tod)").first?.name == "predictive(15m,0.55,sequence+time-of-day)")
        #expect(try PolicyRegistry.parse("predictive-cost-aware").first?.name == "predictive-cost-aware(15m,0.55,0.83)")
        for bad in ["predictive(0m)", "predictive(15m,2)", "predictive(15m,0.5,0.6)", "predictive(15m,0.5,weather)"] {
            #expect(throws: PolicyRegistry.ParseError.self) { try PolicyRegistry.parse(bad) }
        }
    }
}

/// The time-of-day plan's greedy window search visits only the bins where the window sum changes;
/// it must choose exactly what a scan of every bin chooses (the same sums, rounded the same way).
@Suite struct GreedyWindowTests {
    /// The scan of every bin, as the plan was first written.
    static func scanned(_ q: [Double], width w: Int, threshold: Double) -> [(start: Int, p: Double)] {
        var q = q
        var out: [(start: Int, p: Double)] = []
        while out.count < q.count {
            var best = 0.0
            var start = 0
            var sum = 0.0
            for b in 0..<q.count {
                sum += q[b]
                if b >= w { sum -= q[b - w] }
                if b >= w - 1, sum > best + 1e-12 {
                    best = sum
                    start = b - w + 1
                }
            }
            guard best >= threshold else { break }
            out.append((start, min(1, best)))
            for b in start..<(start + w) { q[b] = 0 }
        }
        return out
    }

    @Test func visitingOnlyChangesChoosesWhatTheFullScanChooses() {
        var rng = SplitMix64(seed: 11)
        var plansWithWindows = 0
        for trial in 0..<3_000 {
            // Sparse shares of days, some equal (ties), some tiny, at the day's ends too.
            var q = [Double](repeating: 0, count: UseSignals.bins)
            let filled = Int(rng.next() % 40)
            for _ in 0..<filled {
                let b = Int(rng.next() % UInt64(q.count))
                let k = rng.next() % 4
                q[b] += k == 0 ? 0.25 : k == 1 ? 1e-13 : Double(rng.next() % 1_000) / 997
            }
            if trial % 50 == 0 { q[0] = 0.3; q[q.count - 1] = 0.3 }
            let width = 1 + trial % 4
            let threshold = [0.0, 0.05, 0.1, 0.2, 0.55][trial % 5]
            let fast = UseSignals.greedyWindows(q, width: width, threshold: threshold)
            let slow = Self.scanned(q, width: width, threshold: threshold)
            #expect(fast.map(\.start) == slow.map(\.start), "trial \(trial)")
            #expect(fast.map(\.p) == slow.map(\.p), "trial \(trial)")
            if !fast.isEmpty { plansWithWindows += 1 }
        }
        #expect(plansWithWindows > 1_000)
    }

    @Test func launchesInLaterGapBinsAreCountedFromEitherEnd() {
        var s = UseSignals(app: 0, tau: .minutes(15), lead: .hours(1), launchRefreshes: true, offset: 0)
        var t: Instant = 0
        var rng = SplitMix64(seed: 3)
        for _ in 0..<500 {
            t += .minutes(Int64(16 + rng.next() % 2_000))
            s.learn(UsageEvent(time: t, offset: 0, app: 0))
        }
        #expect(s.gapTotal == s.gapBins.reduce(0, +))
        for k in 0..<s.gapBins.count {
            #expect(s.launches(inGapBinsFrom: k) == s.gapBins[k...].reduce(0, +))
        }
    }
}
