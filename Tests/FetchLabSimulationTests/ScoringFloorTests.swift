import FetchLabCore
import FetchLabResults
import Testing

import struct _FetchLabTestSupport.SeededDraws

@testable import FetchLabSimulation

/// The fast scoring of issue 47 ("scoring floor") against what it replaced: the same numbers to
/// the bit.
@Suite struct ScoringFloorTests {
    /// `Replay.score` as it was before it counted wasted fetches without a per-pair array: the
    /// reference the one-pass version must equal.
    static func referenceScore(
        launches: [Instant], fetches: [DoneFetch], content: [Instant], window: UserWindow,
        taus: [Microseconds], primaryTau: Microseconds, launchRefreshes: Bool, lowBatteryPercent: Double
    ) -> PairOutcome {
        var out = PairOutcome(
            scored: 0, fresh: [Int](repeating: 0, count: taus.count), fetches: 0, days: window.scoredDays)
        var j = 0
        var lastFetch: Instant? = nil
        var lastFetchIndex = -1
        var usedFetch = [Bool](repeating: false, count: fetches.count)
        out.fetchesByDay = [Int32](repeating: 0, count: window.scoredDayCount)
        var creditedFetch = -1
        var c = 0
        for (i, t) in launches.enumerated() {
            while j < fetches.count, fetches[j].time <= t {
                if !fetches[j].expired {
                    lastFetch = fetches[j].time
                    lastFetchIndex = j
                }
                j += 1
            }
            if lastFetchIndex >= 0 { usedFetch[lastFetchIndex] = true }
            guard window.isScored(t) else { continue }
            out.scored += 1
            let previous: Instant? = launchRefreshes && i > 0 ? launches[i - 1] : nil
            var last = lastFetch
            if let p = previous, p > (last ?? .distantPast) { last = p }
            if !content.isEmpty {
                while c < content.count, content[c] <= t { c += 1 }
                out.contentScored += 1
                let newest = c > 0 ? content[c - 1] : nil
                if let newest { if let last, last >= newest { out.contentFresh += 1 } } else { out.contentFresh += 1 }
            }
            guard let refreshed = last else {
                out.staleness.append(Replay.never)
                continue
            }
            let staleness = t - refreshed
            out.staleness.append(staleness)
            for (k, tau) in taus.enumerated() where staleness <= tau { out.fresh[k] += 1 }
            if let f = lastFetch, t - f <= primaryTau, lastFetchIndex != creditedFetch,
                previous.map({ t - $0 > primaryTau }) ?? true
            {
                creditedFetch = lastFetchIndex
                out.leads.append(t - f)
            }
        }
        for (k, f) in fetches.enumerated() where window.isScored(f.time) {
            out.fetches += 1
            out.fetchesByDay[window.scoredDay(of: f.time)] += 1
            if f.state.isLow(below: lowBatteryPercent) { out.lowBattery += 1 }
            guard !f.expired, !usedFetch[k] else { continue }
            out.wasted += 1
        }
        return out
    }

    /// The one-pass score equals the reference on random pairs: fetches before S and after E,
    /// expired fetches, fetches at a launch's instant, launches refreshing or not, with and
    /// without content updates.
    @Test func onePassScoreEqualsTheReference() {
        var r = SeededDraws(seed: 47)
        let window = UserWindow(firstEvent: day0, start: day0 + .days(3), end: day0 + .days(12), offset: 0)
        let taus: [Microseconds] = [.minutes(5), .minutes(15), .minutes(60)]
        for round in 0..<300 {
            var launches: [Instant] = []
            var t = day0
            while t < window.end {
                t += .seconds(Int64(r.below(UInt64(1 + round % 7) * 9_000)))
                if t <= window.end { launches.append(t) }
            }
            var fetches: [DoneFetch] = []
            var f = day0 + .seconds(Int64(r.below(20_000)))
            while f < window.end + .hours(2) {
                // Now and then a fetch at a launch's instant.
                let time =
                    r.below(5) == 0 && !launches.isEmpty ? max(f, launches[Int(r.below(UInt64(launches.count)))]) : f
                if time >= (fetches.last?.time ?? .distantPast) {
                    let state = DeviceState(
                        battery: Double(r.below(100)), charging: r.below(3) == 0, network: .wifi, lowPower: false)
                    fetches.append(DoneFetch(time: time, expired: r.below(4) == 0, state: state))
                }
                f = time + .seconds(Int64(r.below(UInt64(1 + round % 5) * 12_000)))
            }
            let content = round % 3 == 0 ? [] : (0..<40).map { day0 + .hours(Int64($0) * 7) + .minutes(Int64(round)) }
            for refreshes in [false, true] {
                let a = Replay.score(
                    launches: launches, fetches: fetches, content: content,
                    contentCounts: Replay.contentCounts(launches: launches, content: content), window: window,
                    taus: taus,
                    primaryTau: .minutes(15), launchRefreshes: refreshes, lowBatteryPercent: 20)
                let b = Self.referenceScore(
                    launches: launches, fetches: fetches, content: content, window: window, taus: taus,
                    primaryTau: .minutes(15), launchRefreshes: refreshes, lowBatteryPercent: 20)
                #expect(a.scored == b.scored && a.fresh == b.fresh && a.fetches == b.fetches)
                #expect(a.fetchesByDay == b.fetchesByDay && a.staleness == b.staleness && a.leads == b.leads)
                #expect(a.wasted == b.wasted && a.lowBattery == b.lowBattery)
                #expect(a.contentScored == b.contentScored && a.contentFresh == b.contentFresh)
                #expect(a.skips == b.skips)
            }
        }
    }

    /// `RadioEnergy` gives `CostModel.energy(of:)`'s joules to the bit: fetches of several pairs
    /// at the same instants, expired fetches, fetches without a network, and a pair whose
    /// fetches are not in time order.
    @Test func radioEnergyEqualsTheCostModel() throws {
        var r = SeededDraws(seed: 7)
        let h = UserHistory(
            user: "u", apps: ["a", "b", "c"],
            launches: (0..<480).map { UsageEvent(time: day0 + .hours(Int64($0)), offset: 0, app: Int32($0 % 3)) })
        var e = EvaluationProtocol()
        e.minLaunches = 5
        var settings = ReplaySettings()
        settings.cost.perApp["b"] = AppFetchCost(duration: .seconds(9), bytes: 2_000_000)
        settings.cost.perApp["c"] = AppFetchCost(duration: .seconds(40), bytes: 1_000)
        let window = try #require(e.window(of: h))
        let user = UserSetup(history: h, window: window, evaluation: e, context: settings.context, cost: settings.cost)
        #expect(user.pairs.count == 3)
        for round in 0..<50 {
            var runs: [PairRun] = []
            for p in 0..<3 {
                var run = PairRun()
                var t = day0
                for _ in 0..<(round % 11 + p * 3) {
                    // Steps on a coarse grid, so that fetches of different pairs meet.
                    t += .seconds(Int64(r.below(4)) * 30)
                    let state = DeviceState(
                        battery: 50, charging: false, network: [NetworkType.wifi, .cellular, .none][Int(r.below(3))],
                        lowPower: false)
                    run.fetches.append(DoneFetch(time: t, expired: r.below(5) == 0, state: state))
                }
                if p == 2, round % 4 == 1 { run.fetches.reverse() }
                runs.append(run)
            }
            var uses: [RadioUse] = []
            for (p, run) in runs.enumerated() {
                let fetch = user.fetchCosts[p]
                let ran = min(fetch.duration, settings.platform.fetchBudget)
                for f in run.fetches {
                    uses.append(
                        RadioUse(start: f.time, duration: f.expired ? ran : fetch.duration, network: f.state.network))
                }
            }
            let expected = uses.isEmpty ? [] : settings.cost.energy(of: uses)
            let joules = RadioEnergy.joules(
                runs: runs, user: user, cost: settings.cost, fetchBudget: settings.platform.fetchBudget)
            #expect(joules.map(\.bitPattern) == expected.map(\.bitPattern))
        }
    }

    /// `never` skips the policy runner (it asks for nothing on any platform) and scores what the
    /// runner would have given it.
    @Test(arguments: [PlatformKind.none, .ios, .android])
    func neverScoresAsTheRunnerWould(platform: PlatformKind) throws {
        var launches: [UsageEvent] = []
        var r = SeededDraws(seed: 3)
        var t = day0
        while t < day0 + .days(15) {
            t += .seconds(Int64(r.below(20_000)))
            launches.append(UsageEvent(time: t, offset: 0, app: Int32(r.below(2))))
        }
        let h = UserHistory(
            user: "u", apps: ["a", "b"], launches: launches,
            contentUpdates: (0..<30).map { ContentUpdate(time: day0 + .hours(Int64($0) * 11), app: 0) })
        var e = EvaluationProtocol()
        e.minLaunches = 5
        var settings = ReplaySettings()
        settings.platform.kind = platform
        let sim = Simulator(evaluation: e, settings: settings)
        let window = try #require(e.window(of: h))
        let user = UserSetup(history: h, window: window, evaluation: e, context: settings.context, cost: settings.cost)
        let fast = sim.replayEventByEvent(user, policy: NeverPolicy())
        let runs = PolicyRunner.runAll(NeverPolicy(), user: user, settings: settings)
        #expect(runs.allSatisfy { $0.fetches.isEmpty && $0.stated.isEmpty && $0.skips.allSatisfy { $0 == 0 } })
        let slow = sim.outcomes(user, runs: runs)
        #expect(fast.count == 2 && slow.count == 2)
        for (a, b) in zip(fast, slow) {
            #expect(a.scored == b.scored && a.fresh == b.fresh && a.staleness == b.staleness)
            #expect(a.contentFresh == b.contentFresh && a.fetchesByDay == b.fetchesByDay && a.skips == b.skips)
        }
    }
}
