import FetchLabCore
import FetchLabResults
import FetchLabSynth
import Foundation
import Testing

@testable import FetchLabPredict

/// Samples from (stated, outcome) pairs written as 0/1.
private func samples(_ pairs: [(Double, Int)]) -> [CalibrationSample] {
    pairs.map { CalibrationSample(stated: $0.0, outcome: $0.1 == 1) }
}

@Suite struct ProbabilityCalibratorTests {
    /// Pure pool-adjacent-violators (no merging of small blocks).
    func isotonic(_ s: [CalibrationSample]) -> ProbabilityCalibrator {
        ProbabilityCalibrator(fitting: s, minimumSamples: 1, minimumBlock: 1, maximumStandardError: 1)
    }

    @Test func poolAdjacentViolatorsOnAKnownSequence() {
        // 0 | 1 0 → pooled to 0.5 | 1 1 1.
        let c = isotonic(samples([(0.1, 0), (0.2, 1), (0.3, 0), (0.4, 1), (0.5, 1), (0.6, 1)]))
        #expect(c.raw == [0.1, 0.2, 0.3, 0.4, 0.6])
        #expect(c.calibrated == [0, 0.5, 0.5, 1, 1])
        #expect(c(0.05) == 0)
        #expect(c(0.25) == 0.5)
        #expect(abs(c(0.35) - 0.75) < 1e-12)  // linear between the blocks
        #expect(c(0.5) == 1)
        #expect(c(0.9) == 1)
    }

    @Test func aDecreasingSequencePoolsIntoTheBaseRate() {
        let c = isotonic(samples([(0.2, 1), (0.4, 1), (0.6, 0), (0.8, 0)]))
        #expect(c.calibrated == [0.5, 0.5])
        #expect(c(0) == 0.5 && c(1) == 0.5)
    }

    @Test func equalRawValuesShareOneStep() {
        let c = isotonic(samples([(0.5, 1), (0.5, 0), (0.5, 0), (0.5, 0), (0.7, 1)]))
        #expect(c.raw == [0.5, 0.7])
        #expect(c.calibrated == [0.25, 1])
    }

    @Test func monotoneAndIndependentOfTheSamplesOrder() {
        var rng = SeededRandom(seed: 7)
        let s = (0..<500).map { _ -> CalibrationSample in
            let p = Double(rng.next() % 1000) / 1000
            return CalibrationSample(stated: p, outcome: Double(rng.next() % 1000) / 1000 < p * 0.4)
        }
        let c = ProbabilityCalibrator(fitting: s)
        #expect(c == ProbabilityCalibrator(fitting: s.reversed()))
        let grid = (0...100).map { c(Double($0) / 100) }
        #expect(zip(grid, grid.dropFirst()).allSatisfy { $0 <= $1 })
        // The truth is 0.4 p: the map is close to it where there are samples.
        #expect(abs(c(0.5) - 0.2) < 0.08)
        #expect(c.samples == 500)
    }

    @Test func uncertainStepsAreMerged() {
        // 40 at 0.2 with 10 % hits, 40 at 0.8 with 30 % hits: two steps with a tolerant error,
        // one (the base rate) when each step must be known to within 0.025.
        let s = samples(
            (0..<40).map { (0.2, $0 < 4 ? 1 : 0) } + (0..<40).map { (0.8, $0 < 12 ? 1 : 0) })
        let tolerant = ProbabilityCalibrator(fitting: s, maximumStandardError: 0.1)
        #expect(tolerant.calibrated == [0.1, 0.3])
        let strict = ProbabilityCalibrator(fitting: s)
        #expect(strict.calibrated == [0.2, 0.2])
        // Blocks lighter than the minimum are merged whatever their error.
        let light = ProbabilityCalibrator(fitting: s, minimumBlock: 50, maximumStandardError: 1)
        #expect(light.calibrated == [0.2, 0.2])
    }

    @Test func tooFewSamplesGiveTheBaseRateAndNoneTheIdentity() {
        let few = ProbabilityCalibrator(fitting: samples([(0.9, 1), (0.9, 0), (0.8, 0), (0.7, 0)]))
        #expect(few(0.1) == 0.25 && few(0.95) == 0.25)
        #expect(ProbabilityCalibrator(fitting: []) == .identity)
        #expect(ProbabilityCalibrator.identity(0.37) == 0.37)
    }

    @Test func jsonHasSnakeCaseKeys() throws {
        let json = String(decoding: try JSONEncoder().encode(ProbabilityCalibrator.identity), as: UTF8.self)
        #expect(json.contains("\"raw_knots\"") && json.contains("\"calibrated_knots\""))
        let back = try JSONDecoder().decode(ProbabilityCalibrator.self, from: Data(json.utf8))
        #expect(back == .identity)
    }
}

/// The isotonic map kept up to date sample by sample (a learned scheduler's stated probabilities).
@Suite struct IsotonicFitTests {
    /// Raw values at the middle of 0.001-wide cells, so that no two different values share a cell.
    func sample(_ rng: inout SeededRandom) -> CalibrationSample {
        let p = (Double(rng.next() % 1000) + 0.5) / 1000
        return CalibrationSample(stated: p, outcome: Double(rng.next() % 1000) / 1000 < 0.1 + p * 0.3)
    }

    /// After every sample, the map is the one fitted on all the samples so far at once (with the
    /// default blocks and without: the pooled blocks themselves agree).
    @Test func theMapAfterEachSampleIsTheMapOfAllOfThem() {
        var rng = SeededRandom(seed: 11)
        var fit = IsotonicFit()
        var all: [CalibrationSample] = []
        for n in 1...1_500 {
            let s = sample(&rng)
            fit.add(s)
            all.append(s)
            guard n % 7 == 0 || n < 40 else { continue }
            #expect(fit.count == n)
            #expect(fit.calibrator() == ProbabilityCalibrator(fitting: all))
            #expect(
                fit.calibrator(minimumSamples: 1, minimumBlock: 1, maximumStandardError: 1)
                    == ProbabilityCalibrator(fitting: all, minimumSamples: 1, minimumBlock: 1, maximumStandardError: 1))
        }
        #expect(IsotonicFit().calibrator() == .identity)
    }

    /// Samples in one cell are pooled as one value: the map has no step inside a cell, and keeps
    /// the cell's lowest and highest raw value.
    @Test func samplesInOneCellArePooled() {
        var fit = IsotonicFit()
        fit.add(CalibrationSample(stated: 0.3001, outcome: false))
        fit.add(CalibrationSample(stated: 0.3004, outcome: true))
        let c = fit.calibrator(minimumSamples: 1, minimumBlock: 1, maximumStandardError: 1)
        #expect(c.raw == [0.3001, 0.3004] && c.calibrated == [0.5, 0.5])
        // Fitted sample by sample, the two would be two steps.
        let apart = ProbabilityCalibrator(
            fitting: [.init(stated: 0.3001, outcome: false), .init(stated: 0.3004, outcome: true)], minimumSamples: 1,
            minimumBlock: 1, maximumStandardError: 1)
        #expect(apart.calibrated == [0, 1])
    }
}

@Suite struct ReliabilityTableTests {
    @Test func countsMeansAndFlagsAreExact() {
        var cases: [(Double, Int)] = []
        cases += (0..<30).map { (0.15, $0 < 6 ? 1 : 0) }  // bin 1: stated 0.15, observed 0.2
        cases += (0..<5).map { (0.95, $0 < 5 ? 1 : 0) }  // bin 9: too small
        cases += [(1.0, 1)]  // 1 belongs to the last bin
        let t = ReliabilityTable(samples(cases))
        #expect(t.count == 36)
        #expect(t.bins.count == 10)
        #expect(t.bins.map(\.count) == [0, 30, 0, 0, 0, 0, 0, 0, 0, 6])
        let b1 = t.bins[1]
        #expect(abs((b1.meanStated ?? 0) - 0.15) < 1e-12)
        #expect(abs((b1.observed ?? 0) - 0.2) < 1e-12)
        #expect(abs((b1.gap ?? 0) - 0.05) < 1e-12)
        #expect(!b1.tooSmall && t.bins[9].tooSmall)
        #expect(t.judged.count == 1)
        #expect(abs((t.maxGap ?? 0) - 0.05) < 1e-12)  // the small bin's gap is not judged
        #expect(t.bins[0].meanStated == nil && t.bins[0].gap == nil)
    }

    @Test func recordingOneByOneAndMergingGiveTheSameTable() {
        let s = samples((0..<100).map { (Double($0) / 100, $0 % 3 == 0 ? 1 : 0) })
        var a = ReliabilityTable(Array(s.prefix(40)))
        a.merge(ReliabilityTable(Array(s.dropFirst(40))))
        var b = ReliabilityTable(minimumCount: 30)
        for x in s { b.record(stated: x.stated, outcome: x.outcome) }
        #expect(a == b)
        #expect(a == ReliabilityTable(s))
        #expect(ReliabilityTable(s, minimumCount: 5).judged.count == 10)
    }

    /// A bin's gap is judged against what chance leaves in a bin of its size: 1.96 binomial
    /// standard errors at the mean stated probability. 100 cases stated at 0.5 leave ±0.098: 60
    /// hits (gap 0.10) are beyond chance, 55 (gap 0.05) within; a bin too small to judge is not
    /// counted whatever its gap.
    @Test func aGapIsJudgedAgainstTheGapChanceLeavesInABinOfItsSize() {
        let beyond = ReliabilityTable(samples((0..<100).map { (0.5, $0 < 60 ? 1 : 0) }))
        let b = beyond.bins[5]
        #expect(abs((b.chanceGap ?? 0) - 0.098) < 1e-9)
        #expect(abs((b.gap ?? 0) - 0.10) < 1e-9)
        #expect(b.beyondChance && beyond.binsBeyondChance == 1)
        let within = ReliabilityTable(samples((0..<100).map { (0.5, $0 < 55 ? 1 : 0) }))
        #expect(!within.bins[5].beyondChance && within.binsBeyondChance == 0)
        // 10 cases stated at 0.05, all hits: beyond chance, but too small to judge.
        let small = ReliabilityTable(samples((0..<10).map { _ in (0.05, 1) }))
        #expect(small.bins[0].beyondChance && small.bins[0].tooSmall && small.binsBeyondChance == 0)
        // Stated 0 or 1 leave no room for chance: any gap is beyond it.
        let sure = ReliabilityTable(samples((0..<40).map { (1.0, $0 < 39 ? 1 : 0) }))
        #expect(sure.bins[9].chanceGap == 0 && sure.binsBeyondChance == 1)
        #expect(ReliabilityTable().bins[0].chanceGap == nil && !ReliabilityTable().bins[0].beyondChance)
    }

    @Test func jsonHasSnakeCaseKeysAndRoundTrips() throws {
        let t = ReliabilityTable(samples((0..<40).map { (0.42, $0 < 10 ? 1 : 0) }), binCount: 5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(t), as: UTF8.self)
        for key in [
            "\"mean_stated\"", "\"too_small\"", "\"minimum_count\"", "\"max_gap\"", "\"observed\"", "\"gap\"",
            "\"chance_gap\"", "\"beyond_chance\"", "\"bins_beyond_chance\"",
        ] {
            #expect(json.contains(key), "\(key)")
        }
        let back = try JSONDecoder().decode(ReliabilityTable.self, from: Data(json.utf8))
        #expect(back.bins.map(\.count) == t.bins.map(\.count))
        #expect(abs((back.maxGap ?? 0) - (t.maxGap ?? 1)) < 1e-12)
    }
}

@Suite struct PlannedFetchProbabilityTests {
    /// A sure use at 08:00: the score is 1; a calibrated planner states the calibrated p.
    @Test func theCalibrationMapsTheScoreAndTheThresholdStaysOnTheScore() {
        var f = Forecast.none(origin: 0, minutes: 1440)
        f.density[480] = 1
        f.beyond = 0
        let plain = FetchPlanner().plan(f)
        #expect(plain.count == 1 && plain[0].score == 1 && plain[0].probability == 1)
        let calibration = ProbabilityCalibrator(fitting: samples((0..<10).map { (1.0, $0 < 2 ? 1 : 0) }))
        let calibrated = FetchPlanner(calibration: calibration).plan(f)
        #expect(calibrated.map(\.fetchAt) == plain.map(\.fetchAt))
        #expect(calibrated[0].score == 1)
        #expect(abs(calibrated[0].probability - 0.2) < 1e-12)
    }
}

@Suite struct PlannedFetchCalibrationTests {
    /// On a generated population, the blend's planned fetches state probabilities that agree with
    /// what happens on held-out time within 0.05 in every bin with enough fetches, while the raw
    /// scores do not.
    @Test func calibratedFetchProbabilitiesAgreeWithHeldOutOutcomes() throws {
        let histories = Population.histories(users: 12, days: 30, seed: 12)
        var options = EvaluationOptions()
        options.originEveryHours = 24
        let report = Evaluator(options: options).evaluate(histories)
        let blend = try #require(report.scores.first?.plannedFetches)
        #expect(blend.fitSamples >= 100)
        #expect(blend.calibrated.count == blend.raw.count)
        #expect(!blend.calibrated.judged.isEmpty)
        #expect(try #require(blend.calibrated.maxGap) <= 0.05)
        #expect(try #require(blend.raw.maxGap) > 0.1)
        // Predictors that plan nothing report nothing.
        #expect(report.scores.first { $0.name == "most-recent" }?.plannedFetches == nil)
    }

    /// `predict`'s planner is calibrated on the histories it is given: its fetches state the
    /// calibrator's p of their score.
    @Test func aPlannerCalibratedOnPastPlansStatesTheirOutcomeRate() throws {
        let histories = Population.histories(users: 4, days: 16, seed: 3)
        let (blend, request) = PredictionRequest().fitted(on: histories)
        let calibration = request.planner.calibration
        #expect(calibration != .identity)
        #expect(calibration.samples > 30)
        let h = histories[0]
        let origin = try #require(PredictionOrigin.resolve(nil, in: h))
        let report = try PredictionReport(history: h, origin: origin, blend: blend, request: request)
        let fetches = report.apps.flatMap(\.fetches)
        #expect(!fetches.isEmpty)
        for fetch in fetches { #expect(fetch.probability == calibration(fetch.score)) }
        #expect(fetches.contains { abs($0.probability - $0.score) > 0.1 })
    }
}
