import FetchLabCore
import FetchLabResults
import FetchLabSynth
import Foundation
import Testing

import struct _FetchLabTestSupport.HistoryBuilder
import struct _FetchLabTestSupport.SeededDraws

@testable import FetchLabSimulation

/// The times of the requests a policy made for pair 0 of `h` before `cut` (all the user's pairs
/// replayed together, as a comparison replays them).
func requestTimes(_ policy: any FetchPolicy, _ h: UserHistory, _ e: EvaluationProtocol, before cut: Instant)
    throws -> [Instant]
{
    let window = try #require(e.window(of: h))
    let setup = UserSetup(history: h, window: window, evaluation: e, context: ContextDefaults())
    return PolicyRunner.runAll(policy, user: setup, settings: ReplaySettings())[0].fetches.map(\.time).filter {
        $0 < cut
    }
}

@Suite struct LearnedPolicyTests {
    /// Apps 0 (A), 1 (X) and 2 (a filler): for `days` days, X three times a day at varying
    /// minutes, A three minutes after each X (hours apart, so every A needs a fetch), and the filler
    /// at other hours, never followed by A.
    func sequenceHabit(days: Int, seed: UInt64 = 11) -> UserHistory {
        var draws = SeededDraws(seed: seed)
        var h = HistoryBuilder(apps: ["a", "x", "filler"], firstDay: Int(day0.sinceEpoch / .perDay))
        for d in 0..<days {
            for k in 0..<3 {
                let x = draws.next()
                let b = h.launch(1, day: d, hour: 8 + 4 * k, minute: Int(x >> 58))
                h.launch(0, at: b + .minutes(3))
                h.launch(2, day: d, hour: 10 + 4 * k, minute: Int((x >> 40) % 50))
            }
        }
        return h.build()
    }

    /// A generated population (the synthetic generator's sessions and habits).
    static let population: [UserHistory] = {
        let options = GenerateOptions(users: 8, days: 35, seed: 26, startDay: Int(day0.sinceEpoch / .perDay))
        guard let generator = try? Generator(options: options) else { return [] }
        return generator.simulate(users: 0..<8).map(\.history)
    }()

    /// Runs `policies` on the generated population: per policy, every evaluated pair's outcome.
    func replayPopulation(_ policies: [any FetchPolicy]) -> [[PairOutcome]] {
        var out = [[PairOutcome]](repeating: [], count: policies.count)
        let sim = Simulator(evaluation: EvaluationProtocol())
        for h in Self.population {
            for (k, pairs) in sim.replay(h, policies: policies).enumerated() { out[k] += pairs }
        }
        return out
    }

    @Test func aSequenceHabitFetchesAtThePredecessorsLaunch() throws {
        let h = sequenceHabit(days: 21)
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let policy = try #require(PolicyRegistry.parse("learned(3)").first)
        let pairs = try runs(h, policy, evaluation: e)
        let window = try #require(e.window(of: h))
        let xLaunches = Set(h.launches.filter { $0.app == 1 && window.isScored($0.time) }.map(\.time))
        let aFetches = Set(pairs[0].fetches.map(\.time))
        // A fetch of A at (almost) every scored launch of X: the moment the habit offers.
        #expect(xLaunches.count == 13 * 3)
        #expect(xLaunches.filter { aFetches.contains($0) }.count >= xLaunches.count * 9 / 10)
        let out = Simulator(evaluation: e).replay(h, policies: [NeverPolicy(), policy])
        #expect(out[0][0].fresh[1] == 0)  // A's launches are hours apart: never fresh without a fetch
        #expect(out[1][0].fresh[1] >= out[1][0].scored * 9 / 10)
        // Each fetch states a probability, high for these once learned.
        #expect(out[1][0].stated.count == out[1][0].fetches)
        let atX = out[1][0].stated.filter { $0.launched }
        #expect(atX.count >= xLaunches.count * 9 / 10)
        // Once the user's fetches are enough to resolve (30 and more), these are stated as near sure.
        #expect(atX.suffix(atX.count / 3).allSatisfy { $0.p > 0.9 }, "\(atX.map(\.p))")
        #expect(atX.allSatisfy { $0.p > 0.4 }, "\(atX.map(\.p))")
    }

    /// One controller per user: the user's budget goes where launches are likeliest. A (three
    /// minutes after each X) and C (at random minutes of random hours, after nothing) need the
    /// same number of fetches; at 1 fetch per app per day a budget split per app would give A
    /// one fetch a day (a third of its launches fresh), the shared threshold gives A its three and
    /// C little, and the user's apps together still spend about the budget.
    @Test func aUsersBudgetGoesToTheAppWhoseLaunchesArePredictable() throws {
        var h = HistoryBuilder(apps: ["a", "x", "filler", "c"], firstDay: Int(day0.sinceEpoch / .perDay))
        var draws = SeededDraws(seed: 3)
        let days = 28
        for d in 0..<days {
            for k in 0..<3 {
                let x = draws.next()
                let b = h.launch(1, day: d, hour: 8 + 4 * k, minute: Int(x >> 58))
                h.launch(0, at: b + .minutes(3))
                h.launch(2, day: d, hour: 10 + 4 * k, minute: Int((x >> 40) % 50))
                h.launch(3, day: d, hour: 7 + 5 * k + Int((x >> 20) % 3), minute: Int((x >> 30) % 60))
            }
        }
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let out = Simulator(evaluation: e).replay(h.build(), policies: [LearnedPolicy(budget: .fetches(1))])[0]
        #expect(out.count == 4)
        let a = out[0]
        let c = out[3]
        #expect(a.fresh[1] >= a.scored * 8 / 10, "A: \(a.fresh[1]) of \(a.scored) fresh")
        #expect(c.fetches * 2 < a.fetches, "C \(c.fetches) fetches, A \(a.fetches)")
        let perAppDay = Double(out.map(\.fetches).reduce(0, +)) / a.days / 4
        #expect(perAppDay > 0.7 && perAppDay < 1.3, "\(perAppDay) fetches per app per day")
    }

    /// Causal by construction: two logs equal up to an instant and different after it (launches
    /// and signals) give the same requests up to that instant.
    @Test func neverReadsTheFuture() throws {
        var full = sequenceHabit(days: 20)
        full.apps.append(AppID.device)
        // An unlock a minute before every launch of X.
        full.events = full.launches.filter { $0.app == 1 }.map {
            UsageEvent(time: $0.time - .minutes(1), offset: 0, app: 3, kind: .unlock)
        }
        let cut = day0 + .days(12) + .hours(10)
        var other = full
        other.launches =
            full.launches.filter { $0.time < cut }
            + (0..<50).map { UsageEvent(time: cut + .minutes(Int64($0) * 37), offset: 0, app: Int32($0 % 3)) }
        other.events =
            full.events.filter { $0.time < cut }
            + (0..<50).map { UsageEvent(time: cut + .minutes(Int64($0) * 41), offset: 0, app: 3, kind: .unlock) }
        var e = EvaluationProtocol()
        e.minLaunches = 20
        for name in ["learned(0.5)", "learned(2)", "learned(10)", "learned-cost-aware(40j)"] {
            let policy = try #require(PolicyRegistry.parse(name).first)
            let before = try requestTimes(policy, full, e, before: cut)
            #expect(!before.isEmpty, "\(name)")
            #expect(try before == requestTimes(policy, other, e, before: cut), "\(name)")
        }
    }

    /// When A follows an unlock (and no launch of another app comes before it), the unlock is
    /// the moment to fetch: with the unlocks shown, A is fresh; without them, much less often.
    @Test func anUnlockBeforeAColdLaunchIsAMomentToFetch() throws {
        var h = HistoryBuilder(apps: ["a", "filler", AppID.device], firstDay: Int(day0.sinceEpoch / .perDay))
        var unlocks: [UsageEvent] = []
        var draws = SeededDraws(seed: 5)
        for d in 0..<21 {
            for k in 0..<3 {
                let x = draws.next()
                let u = h.time(day: d, hour: 8 + 4 * k, minute: Int(x >> 58))
                unlocks.append(UsageEvent(time: u, offset: 0, app: 2, kind: .unlock))
                h.launch(0, at: u + .minutes(2))
                h.launch(1, day: d, hour: 10 + 4 * k, minute: Int((x >> 40) % 50))
            }
        }
        let plain = h.build()
        var signalled = plain
        signalled.events = unlocks
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let policy = LearnedPolicy(budget: .fetches(3))
        let with = Simulator(evaluation: e).replay(signalled, policies: [policy])[0][0]
        let without = Simulator(evaluation: e).replay(plain, policies: [policy])[0][0]
        #expect(with.fresh[1] >= with.scored * 9 / 10)
        #expect(without.fresh[1] * 2 < with.fresh[1])
    }

    @Test(arguments: [1.0, 2.0, 5.0])
    func spendsAboutItsBudget(budget: Double) throws {
        #expect(Self.population.count == 8)
        let policy = LearnedPolicy(budget: .fetches(budget))
        let pairs = replayPopulation([policy])[0]
        try #require(pairs.count >= 20)
        let perDay = pairs.map(\.fetchesPerDay).reduce(0, +) / Double(pairs.count)
        #expect(abs(perDay - budget) <= 0.15 * budget, "learned(\(budget)) spent \(perDay) fetches/app/day")
    }

    @Test func moreBudgetBuysMoreFreshness() throws {
        let out = replayPopulation([LearnedPolicy(budget: .fetches(1)), LearnedPolicy(budget: .fetches(5))])
        let fresh = out.map { pairs in pairs.map { $0.fresh[1] }.reduce(0, +) }
        #expect(fresh[1] > fresh[0])
    }

    /// In every 0.1-wide bin of stated probability holding at least 100 fetches, the share
    /// followed by a launch within τ is close to the mean stated probability.
    @Test func statedProbabilitiesMatchTheObservedRate() throws {
        let out = replayPopulation([LearnedPolicy(budget: .fetches(2)), LearnedPolicy(budget: .fetches(5))])
        var stated = [Double](repeating: 0, count: 10)
        var hits = [Double](repeating: 0, count: 10)
        var count = [Double](repeating: 0, count: 10)
        for pairs in out {
            for pair in pairs {
                for s in pair.stated {
                    let b = min(9, Int(s.p * 10))
                    stated[b] += s.p
                    hits[b] += s.launched ? 1 : 0
                    count[b] += 1
                }
            }
        }
        let filled = (0..<10).filter { count[$0] >= 100 }
        #expect(filled.count >= 2)
        for b in filled {
            let gap = abs(stated[b] / count[b] - hits[b] / count[b])
            #expect(gap <= 0.07, "bin \(b): stated \(stated[b] / count[b]), observed \(hits[b] / count[b])")
        }
    }

    @Test func namesParseAndExpand() throws {
        #expect(
            try PolicyRegistry.parse("learned(0.5,1,2,5,10)").map(\.name) == [
                "learned(0.5)", "learned(1)", "learned(2)", "learned(5)", "learned(10)",
            ])
        #expect(try PolicyRegistry.parse("learned").map(\.name) == ["learned(2)"])
        #expect(try PolicyRegistry.parse("learned-cost-aware(40)").map(\.name) == ["learned-cost-aware(40j)"])
        #expect(
            try PolicyRegistry.parse("Learned-Cost-Aware(10j, 2.5j)").map(\.name) == [
                "learned-cost-aware(10j)", "learned-cost-aware(2.5j)",
            ])
        for name in ["learned(0.5)", "learned(12.5)", "learned-cost-aware(40j)"] {
            let p = try #require(PolicyRegistry.parse(name).first)
            #expect(p.name == name)
            #expect(try PolicyRegistry.parse(p.name).first?.name == name)
        }
        let p = try #require(PolicyRegistry.parse("learned(5)").first)
        #expect(p.family == "learned")
        #expect(p.parameters == ["budget": 5])
        #expect(!p.isClairvoyant)
        #expect(try PolicyRegistry.parse("learned-cost-aware(40j)").first?.family == "learned-cost-aware")
        for bad in ["learned(0)", "learned(x)", "learned(-1)", "learned(2h)", "learned-cost-aware(0j)"] {
            #expect(throws: PolicyRegistry.ParseError.self) { try PolicyRegistry.parse(bad) }
        }
        // The standard set reads the family at every standard budget; the tuner searches it.
        let standard = PolicyRegistry.standard().filter { $0.family == "learned" }.map(\.name)
        #expect(standard == ["learned(0.5)", "learned(1)", "learned(2)", "learned(5)", "learned(10)"])
        let family = try #require(SearchSpace.Family(rawValue: "learned"))
        #expect(family.widened("budget", ["1", "2"], cheaper: true) == "0.5")
        #expect(family.widened("budget", ["1", "2"], cheaper: false) == "4")
    }

    @Test func costAwareSparesALowBatteryAndBuysFewerFetchesOnCellular() throws {
        let h = sequenceHabit(days: 21)
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let aware = LearnedPolicy(budget: .joules(20))
        func fetches(_ context: ContextSample) -> Int {
            var withContext = h
            withContext.context = [context]
            var settings = ReplaySettings()
            settings.context.hold = .days(365)
            // The user's fetches, all apps together (one energy budget for the user's apps).
            return Simulator(evaluation: e, settings: settings).replay(withContext, policies: [aware])[0]
                .map(\.fetches).reduce(0, +)
        }
        let wifi = fetches(ContextSample(time: day0, battery: 60, charging: false, network: .wifi))
        let cellular = fetches(ContextSample(time: day0, battery: 60, charging: false, network: .cellular))
        let low = fetches(ContextSample(time: day0, battery: 10, charging: false, network: .wifi))
        #expect(wifi > 0)
        #expect(cellular > 0 && cellular * 3 < wifi)
        #expect(low == 0)
    }

    /// Policies replayed as a group share each pair's model; each one's fetches, stated
    /// probabilities and skips are those of its own replay (`runAll`), and differ between budgets.
    @Test func aGroupSharingTheModelRunsEachPolicyAsAlone() throws {
        let h = sequenceHabit(days: 21)
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let window = try #require(e.window(of: h))
        let setup = UserSetup(history: h, window: window, evaluation: e, context: ContextDefaults())
        let policies = [
            LearnedPolicy(budget: .fetches(0.5)), LearnedPolicy(budget: .fetches(3)),
            LearnedPolicy(budget: .joules(40)),
        ]
        let group = PolicyRunner.runLearned(group: policies, user: setup, settings: ReplaySettings())
        #expect(group.count == policies.count)
        for (k, policy) in policies.enumerated() {
            let alone = PolicyRunner.runAll(policy, user: setup, settings: ReplaySettings())
            #expect(group[k].count == alone.count)
            for (g, a) in zip(group[k], alone) {
                #expect(g.fetches == a.fetches, "\(policy.name)")
                #expect(g.stated.map(\.time) == a.stated.map(\.time) && g.stated.map(\.p) == a.stated.map(\.p))
                #expect(g.skips == a.skips)
            }
        }
        #expect(group[0][0].fetches.count < group[1][0].fetches.count)
    }

    /// Under a platform model the policy asks for each fetch itself.
    @Test(arguments: [PlatformKind.ios, .android])
    func asksForEachFetchUnderAPlatform(platform: PlatformKind) throws {
        let h = sequenceHabit(days: 21)
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let policy = LearnedPolicy(budget: .fetches(3))
        let window = try #require(e.window(of: h))
        let setup = UserSetup(history: h, window: window, evaluation: e, context: ContextDefaults())
        #expect(policy.requestedMinimumInterval(for: PolicyRunner.info(pair: 0, of: setup)) == nil)
        let pairs = try runs(h, policy, evaluation: e, platform: platform)
        #expect(pairs[0].fetches.count > 0)
    }
}

/// The correction of stated probabilities by what became of the fetches.
@Suite struct StatedCalibrationTests {
    let tau = Microseconds.minutes(15)

    @Test func fewResolvedFetchesCorrectOnlyTheirBin() {
        var c = StatedCalibration()
        #expect(c.corrected(0.55) == 0.55)  // no fetch resolved yet: the model's own
        var t = day0
        for _ in 0..<20 {
            c.fetched(app: 1, at: t, modelled: 0.55)
            c.launched(app: 1, at: t + .minutes(5), tau: tau)
            t += .hours(2)
        }
        #expect(c.pending.isEmpty && c.isotonic == nil)
        #expect(c.corrected(0.52) > 0.7 && c.corrected(0.52) <= 1)
        // Another bin is untouched.
        #expect(c.corrected(0.25) == 0.25)
    }

    /// Fetches stated high that are used half the time, and fetches stated low used a tenth of the
    /// time: once enough are resolved, the stated probability is the observed rate, monotone.
    @Test func manyResolvedFetchesStateTheObservedRate() {
        var c = StatedCalibration()
        var t = day0
        for i in 0..<1_600 {
            let high = i % 2 == 0
            c.fetched(app: 1, at: t, modelled: high ? 0.8 : 0.3)
            let used = high ? (i / 2) % 2 == 0 : (i / 2) % 10 == 0
            c.launched(app: 1, at: t + .minutes(used ? 5 : 30), tau: tau)
            t += .hours(2)
        }
        // (800 of each: enough for the map to resolve both rates to within its 0.025 standard error.)
        #expect(c.isotonic != nil && c.resolved.count == 1_600)
        #expect(abs(c.corrected(0.8) - 0.5) < 0.02, "\(c.corrected(0.8))")
        #expect(abs(c.corrected(0.3) - 0.1) < 0.02, "\(c.corrected(0.3))")
        var last = 0.0
        for k in 0...20 {
            let q = c.corrected(Double(k) / 20)
            #expect(q >= last - 1e-12 && q >= 0 && q <= 1)
            last = q
        }
    }

    @Test func aFetchIsAMissOnceItsTauHasPassedAndOnlyItsOwnAppResolvesIt() {
        var c = StatedCalibration()
        c.fetched(app: 1, at: day0, modelled: 0.35)
        c.fetched(app: 2, at: day0, modelled: 0.35)
        // A launch of app 2 resolves app 2's fetch only; app 1's waits.
        c.launched(app: 2, at: day0 + .minutes(20), tau: tau)  // 20 min later: a miss
        #expect(c.pending.count == 1 && c.pending[0].app == 1)
        #expect(c.trials[3] == 1 && c.hits[3] == 0)
        c.expire(app: 1, before: day0 - .minutes(1))  // not yet past
        #expect(c.pending.count == 1)
        c.expire(app: 1, before: day0 + .minutes(1))
        #expect(c.pending.isEmpty && c.trials[3] == 2 && c.hits[3] == 0)
        #expect(c.corrected(0.35) < 0.35)
    }
}

/// The learned model judged as a predictor (`evaluate-predictors`).
@Suite struct LearnedModelEvaluationTests {
    /// A (three minutes after each X) is always the next launch that needs a fetch after X:
    /// once learned, the model ranks A first at X's launches, and its Brier score beats stating
    /// the base rate.
    @Test func aSequenceHabitIsRankedFirstAndBeatsTheBaseRate() throws {
        let h = LearnedPolicyTests().sequenceHabit(days: 28)
        var e = EvaluationProtocol()
        e.minLaunches = 20
        let start = day0 + .days(14)
        let score = LearnedModelEvaluation.evaluate([h], evaluation: e) { _ in start }
        #expect(score.questions > 500)
        #expect(score.reliability.count == score.questions)
        let brier = try #require(score.brier)
        let base = try #require(score.baseRateBrier)
        #expect(brier < base * 0.8, "Brier \(brier), base rate \(base)")
        // Ranked: A after each X (14 days × 3), and X and the filler when they need a fetch.
        #expect(score.rankedLaunches >= 14 * 3)
        #expect(try #require(score.hr1) >= 0.6)
        #expect(try #require(score.hr5) == 1)
        // Nothing held out: nothing scored.
        let none = LearnedModelEvaluation.evaluate([h], evaluation: e) { _ in nil }
        #expect(none.questions == 0 && none.rankedLaunches == 0 && none.brier == nil && none.hr1 == nil)
    }
}
