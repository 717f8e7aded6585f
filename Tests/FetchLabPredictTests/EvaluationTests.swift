import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabPredict
@testable import FetchLabSynth

/// Records, at every question, whether it has been shown a launch at or after the origin.
struct SpyPredictor: UsePredictor {
    var name: String { "spy" }
    var latest = Instant.distantPast
    let violations = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var value = 0
        private(set) var questions = 0
        func record(_ violated: Bool) {
            lock.lock()
            questions += 1
            if violated { value += 1 }
            lock.unlock()
        }
    }

    mutating func observe(_ launch: UsageEvent) { latest = max(latest, launch.time) }

    func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        violations.record(latest >= origin)
        return .none(origin: origin, minutes: minutes)
    }

    func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double] {
        violations.record(latest >= origin)
        return Array(repeating: 0, count: apps)
    }
}

enum Population {
    static func histories(users: Int, days: Int, seed: UInt64) -> [UserHistory] {
        let gen = try! Generator(
            options: GenerateOptions(users: users, days: days, seed: seed, startDay: Histories.start))
        return gen.simulate(users: 0..<users).map(\.history)
    }
}

@Suite struct LeakageTests {
    /// The evaluator never shows a predictor a launch at or after the moment it asks about.
    @Test func noPredictorIsShownTheFuture() {
        let h = Population.histories(users: 2, days: 16, seed: 4)
        let spy = SpyPredictor()
        for history in h {
            var predictors: [any UsePredictor] = [spy]
            _ = Evaluator().run(history, predictors: &predictors, truth: nil, collectFit: 0)
        }
        #expect(spy.violations.questions > 500)
        #expect(spy.violations.value == 0)
    }

    /// The spy itself catches a leak: a harness that showed it a later launch would fail the test above.
    @Test func theSpyCatchesALeak() {
        var spy = SpyPredictor()
        spy.observe(UsageEvent(time: 2_000, offset: 0, app: 0))
        _ = spy.forecast(app: 0, origin: 1_000, offset: 0, minutes: 10)
        _ = spy.forecast(app: 0, origin: 3_000, offset: 0, minutes: 10)
        #expect(spy.violations.value == 1)
    }
}

@Suite struct EvaluatorTests {
    let histories = Population.histories(users: 6, days: 24, seed: 12)

    @Test func reportsEveryPredictorWithConsistentCounts() {
        var options = EvaluationOptions()
        options.originEveryHours = 6
        let report = Evaluator(options: options).evaluate(histories)
        #expect(report.users == 6)
        #expect(report.scores.map(\.name) == ["blend"] + (Evaluator.components() + Evaluator.baselines()).map(\.name))
        #expect(abs(report.blendWeights.values.reduce(0, +) - 1) < 1e-9)
        #expect(abs(report.nextAppWeights.values.reduce(0, +) - 1) < 1e-9)
        for s in report.scores {
            if !s.forecastsTiming {
                #expect(s.meanAbsErrorMinutes == nil && s.brier == nil)
            } else {
                #expect(s.nextUseSamples > 100, "\(s.name)")
                #expect(s.reliability.reduce(0) { $0 + $1.count } > s.nextUseSamples)
                #expect((0...1).contains(s.brier ?? -1))
                #expect(s.hits <= s.planned)
            }
            #expect(s.nextAppSamples == report.scores[0].nextAppSamples)
            #expect((s.hr1 ?? 0) <= (s.hr5 ?? 0))
        }
        // Deterministic: the same histories give the same report.
        let again = Evaluator(options: options).evaluate(histories)
        #expect(again.scores.map(\.meanAbsErrorMinutes) == report.scores.map(\.meanAbsErrorMinutes))
        #expect(again.scores.map(\.hr1) == report.scores.map(\.hr1))
    }

    @Test func truePeaksAreRecoveredByTheProfile() {
        let gen = try! Generator(options: GenerateOptions(users: 6, days: 24, seed: 12, startDay: Histories.start))
        let truths = (0..<6).map { gen.simulate(user: $0).truth }
        let byName = Dictionary(uniqueKeysWithValues: truths.map { ($0.name, $0) })
        let truth: @Sendable (String, Int) -> [TruePeak] = { user, day in
            guard let t = byName[user] else { return [] }
            return t.routinePeaks(onDay: day - Histories.start, weekend: LocalCalendar.isWeekend(day)).compactMap { p in
                t.apps.firstIndex { $0.app == p.app }.map { TruePeak(app: Int32($0), minute: p.minute) }
            }
        }
        var options = EvaluationOptions()
        options.originEveryHours = 12
        let report = Evaluator(options: options).evaluate(histories, truth: truth)
        let profile = report.scores.first { $0.name == "profile" }!
        #expect(profile.truthPeaks > 30)
        #expect(Double(profile.truthFound) / Double(profile.truthPeaks) > 0.3)
        #expect((profile.truthMedianErrorMinutes ?? 99) < 10)
    }
}

@Suite struct BlendFitterTests {
    /// Component 1 knows the answer, component 0 is always an hour late: all weight goes to 1.
    @Test func theBetterComponentGetsTheWeight() {
        var samples: [[[Float]]] = []
        var targets: [Double] = []
        for k in 0..<50 {
            let target = Double(30 + k * 10)
            func cdf(at minute: Double) -> [Float] { (0..<288).map { Double($0 * 5 + 5) > minute ? 1 : 0 } }
            samples.append([cdf(at: target + 60), cdf(at: target)])
            targets.append(target)
        }
        #expect(BlendFitter.fit(samples: samples, targets: targets, components: 2) == [0, 1])
    }

    @Test func nextAppWeightsFavourTheRankerThatIsRight() {
        let samples = (0..<40).map { k in
            NextAppSample(scores: [[0.5, 0.3, 0.2], k % 3 == 0 ? [0, 0, 1] : [0, 1, 0]], target: k % 3 == 0 ? 2 : 1)
        }
        #expect(BlendFitter.fitNextApp(samples, components: 2) == [0, 1])
    }

    @Test func theGridCoversTheSimplex() {
        let g = BlendFitter.grid(3, steps: 10)
        #expect(g.count == 66)
        #expect(g.allSatisfy { abs($0.reduce(0, +) - 1) < 1e-9 })
    }
}

@Suite struct ForecastTests {
    @Test func hazardQuantilesAndProbabilities() {
        // A use in minute 10 with probability 0.5, else in minute 20 with 0.5 of the rest.
        var hazard = [Double](repeating: 0, count: 60)
        hazard[10] = 0.5
        hazard[20] = 0.5
        let f = Forecast.fromHazard(origin: 0, hazard: hazard)
        #expect(f.density[10] == 0.5 && f.density[20] == 0.25)
        #expect(abs(f.beyond - 0.25) < 1e-12)
        #expect(f.probability(within: 10) == 0)
        #expect(f.probability(within: 11) == 0.5)
        #expect(abs(f.total - 0.75) < 1e-12)
        // Given a use within the hour: 2/3 at minute 10, so the median is inside minute 10.
        #expect(f.expectedNext.map { (10..<11).contains($0) } == true)
        #expect(f.quantile(0.9).map { (20..<21).contains($0) } == true)
        #expect(Forecast.none(origin: 0, minutes: 5).expectedNext == nil)
    }
}
